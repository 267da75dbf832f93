"""Code in quiz texts: `` `inline` `` code and fenced blocks, parsed once into neutral spans.

Every quiz text (question, option, note, explanation, title, description) may hold inline code
(a run of backticks, the code, the same run again, all on one line; one space just inside each
end is dropped, so ``` `` a`b `` ``` is the code ``a`b``) and fenced blocks (a run of three or
more backticks with an optional language word and a line break, the code lines, then a line
that is only a run at least as long). A backtick run that does not open one of these is text.

Adapters turn the spans into their own markup (Telegram HTML, Discord Markdown, terminal plain
text); :func:`plain` is the text without markup for places that show none (buttons, polls).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Text:
    text: str


@dataclass(frozen=True)
class Code:
    """Inline code: shown as written, on one line."""

    code: str


@dataclass(frozen=True)
class Block:
    """A fenced code block: its lines (without the fences) and its language ("" when none)."""

    code: str
    language: str = ""


Span = Text | Code | Block

_RUN = re.compile(r"`+")
_LRI, _PDI = "\u2066", "\u2069"  # as in bot.text_direction (which imports this module)
_INFO = re.compile(r"[ \t]*([^\s`]*)[ \t]*\n")


def _closing_fence(text: str, start: int, length: int) -> re.Match[str] | None:
    """The first line from ``start`` that is only a backtick run of at least ``length``."""
    return re.compile(rf"(?m)^[ \t]*`{{{length},}}[ \t]*$").search(text, start)


def parse(text: str) -> tuple[Span, ...]:
    """``text`` as text, inline code and code block spans (adjacent text merged)."""
    return _scan(text)[0]


def block_ranges(text: str) -> tuple[tuple[int, int], ...]:
    """Where ``text``'s fenced blocks are: (start of the opening fence, end of the closing)."""
    return _scan(text)[1]


@functools.lru_cache(maxsize=4096)  # the same quiz texts are rendered over and over
def _scan(text: str) -> tuple[tuple[Span, ...], tuple[tuple[int, int], ...]]:
    spans: list[Span] = []
    blocks: list[tuple[int, int]] = []
    buffer: list[str] = []
    position = 0

    def flush() -> None:
        if joined := "".join(buffer):
            spans.append(Text(joined))
        buffer.clear()

    while (run := _RUN.search(text, position)) is not None:
        buffer.append(text[position : run.start()])
        length = len(run.group(0))
        if length >= 3 and (info := _INFO.match(text, run.end())):
            body_start = info.end()
            if close := _closing_fence(text, body_start, length):
                code = text[body_start : close.start()]
                code = code[:-1] if code.endswith("\n") else code
                flush()
                spans.append(Block(code, info.group(1)))
                blocks.append((run.start(), close.end()))
                position = close.end()
                if text.startswith("\n", position):  # the fence's own line break
                    position += 1
                    buffer.append("\n")
                continue
        end = _matching_run(text, run.end(), length)
        if end is None:
            buffer.append(run.group(0))
            position = run.end()
            continue
        code = text[run.end() : end]
        if len(code) >= 2 and code[0] == code[-1] == " " and code.strip():
            code = code[1:-1]
        flush()
        spans.append(Code(code))
        position = end + length
    buffer.append(text[position:])
    flush()
    return tuple(spans), tuple(blocks)


def _matching_run(text: str, start: int, length: int) -> int | None:
    """Where a run of exactly ``length`` backticks closes inline code opened at ``start``
    (on the same line), else None."""
    line_end = text.find("\n", start)
    line_end = len(text) if line_end < 0 else line_end
    for run in _RUN.finditer(text, start, line_end):
        if len(run.group(0)) == length:
            return run.start()
    return None


def unclosed_fence(text: str) -> bool:
    """Whether ``text`` opens a fenced block at the start of a line and never closes it (a
    likely authoring mistake: the fence and the code would show as plain text)."""
    if "```" not in text:
        return False
    for span in parse(text):
        if isinstance(span, Text) and re.search(r"(?m)^[ \t]*```+[ \t]*[^\s`]*[ \t]*\n", span.text):
            return True
    return False


def plain(text: str) -> str:
    """``text`` without markup: the code as it is, fences and backticks dropped."""
    if "`" not in text:
        return text
    parts = []
    for span in parse(text):
        if isinstance(span, Text):
            parts.append(span.text)
        elif isinstance(span, Code):
            parts.append(span.code)
        else:
            parts.append(span.code)
    return "".join(parts)


def inline_source(code: str) -> str:
    """Markup for ``code`` as inline code: a backtick run longer than any inside it, with a
    space inside each end when the code starts or ends with a backtick (or a space)."""
    longest = max((len(r) for r in _RUN.findall(code)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if code[:1] in ("`", " ") or code[-1:] in ("`", " ") else ""
    return f"{fence}{pad}{code}{pad}{fence}"


def source(spans: tuple[Span, ...] | list[Span]) -> str:
    """Markup that parses back to ``spans``."""
    parts = []
    for span in spans:
        if isinstance(span, Text):
            parts.append(span.text)
        elif isinstance(span, Code):
            parts.append(inline_source(span.code))
        else:
            longest = max((len(r) for r in _RUN.findall(span.code)), default=0)
            fence = "`" * max(3, longest + 1)
            parts.append(f"{fence}{span.language}\n{span.code}\n{fence}")
    return "".join(parts)


def one_line(text: str) -> str:
    """``text`` on one line for a list entry: whitespace collapsed outside code, a block
    shortened to its first line as inline code (with "…" when it has more)."""
    if "`" not in text:
        return " ".join(text.split())
    spans = parse(text)
    # Text prepared for a right-to-left language isolates its code: keep that for a block.
    isolate = any(isinstance(s, Text) and _LRI in s.text for s in spans)
    out: list[Span] = []
    for span in spans:
        if isinstance(span, Block):
            lines = [line.strip() for line in span.code.split("\n") if line.strip()]
            code = Code(lines[0] if lines else "")
            more = " …" if len(lines) > 1 else ""
            if isolate:
                out += [Text(f" {_LRI}"), code, Text(f"{more}{_PDI} ")]
            else:
                out += [Text(" "), code, Text(f"{more} ")]
        else:
            out.append(span)
    merged: list[Span] = []
    for span in out:
        if isinstance(span, Text) and merged and isinstance(merged[-1], Text):
            merged[-1] = Text(merged[-1].text + span.text)
        else:
            merged.append(span)
    flat = [Text(re.sub(r"\s+", " ", s.text)) if isinstance(s, Text) else s for s in merged]
    if flat and isinstance(flat[0], Text):
        flat[0] = Text(flat[0].text.lstrip())
    if flat and isinstance(flat[-1], Text):
        flat[-1] = Text(flat[-1].text.rstrip())
    return source(flat)
