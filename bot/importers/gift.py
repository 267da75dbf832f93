"""Moodle GIFT: the multiple-choice questions of a GIFT file.

Follows Moodle's own reader: questions are separated by blank lines, lines starting with ``//``
are comments, ``$CATEGORY:`` blocks are ignored, and ``\\``-escapes (``\\: \\= \\~ \\# \\{ \\}
\\\\ \\n``) make the special characters literal. Only questions with one right answer can be
represented in our format, and true/false ones (as True and False options); every other
question type is reported as skipped with its line. Texts in HTML (Moodle's default and
``[html]`` formats) are turned into plain text with :mod:`html.parser`; what cannot be kept
(images, link targets) is reported.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from bot.importers.base import (
    DraftOption,
    DraftQuestion,
    ImportResult,
    QuizBuilder,
    QuizMeta,
)

# Escaped characters become Unicode noncharacters while the structure is parsed, so that the
# structural search can never see them; they are put back in every text afterwards.
_ESCAPABLE = "\\:=~#{}"
_HIDE = {ch: chr(0xFDD0 + i) for i, ch in enumerate(_ESCAPABLE)}
_SHOW = {ord(hidden): ch for ch, hidden in _HIDE.items()}
_ESCAPE = re.compile(r"\\([\\:=~#{}n])")

_TITLE = re.compile(r"::(.*?)::", re.DOTALL)
_MARKUP = re.compile(r"\s*\[(html|moodle|plain|markdown)\]", re.IGNORECASE)
_TRUE_FALSE = re.compile(r"(?:T|F|TRUE|FALSE)\s*(?:#.*)?", re.IGNORECASE | re.DOTALL)
_WEIGHT = re.compile(r"\s*%(-?\d+(?:[.,]\d+)?)%")
_ONLY_MULTIPLE_CHOICE = "only multiple-choice questions with one right answer are imported"


_LOOKS_LIKE_HTML = re.compile(r"</?[a-zA-Z][^<>]*>|<!--|&(?:[a-zA-Z]+\d*|#\d+|#x[0-9a-fA-F]+);")
_BLOCKS = {"p", "div", "li", "ul", "ol", "tr", "table", "h1", "h2", "h3", "h4", "h5", "h6"}
_BLOCKS |= {"blockquote", "pre", "hr", "dl", "dt", "dd", "section", "article"}
_HIDDEN = {"script", "style", "head", "title"}


class _Text(HTMLParser):
    """The text a reader sees in an HTML fragment: tags and comments gone, entities decoded,
    white space collapsed outside ``<pre>``, paragraphs and ``<br>`` as line breaks, and
    what could not be kept (images, link targets) listed in ``dropped``."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.dropped: list[str] = []
        self.pre = 0
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        if tag in _HIDDEN:
            self.hidden += 1
        elif tag == "br":
            self.parts.append("\n")
        elif tag in _BLOCKS:
            self.parts.append("\n\n" if tag in ("p", "pre", "table", "blockquote") else "\n")
            self.pre += tag == "pre"
        elif tag == "img":
            alt = values.get("alt", "").strip()
            self.dropped.append(f"an image ({values.get('src') or 'no source'}) was dropped")
            if alt:
                self.parts.append(f"[{alt}]")
        elif tag == "a" and values.get("href"):
            self.dropped.append(f"a link to {values['href']} was dropped (its text is kept)")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag in _HIDDEN:
            self.hidden -= 1

    def handle_endtag(self, tag: str) -> None:
        if tag in _HIDDEN:
            self.hidden = max(0, self.hidden - 1)
        elif tag in _BLOCKS:
            if tag == "pre":
                self.pre = max(0, self.pre - 1)
            self.parts.append("\n\n" if tag in ("p", "pre", "table", "blockquote") else "\n")

    def handle_data(self, data: str) -> None:
        if self.hidden:
            return
        if self.pre:
            self.parts.append(f"\x00{data}\x01")  # kept as written, marked for the collapsing
        else:
            self.parts.append(re.sub(r"[ \t\n\r\f]+", " ", data))  # HTML white space, not &nbsp;

    def text(self) -> str:
        joined = "".join(self.parts)
        pieces = re.split(r"(\x00.*?\x01)", joined, flags=re.DOTALL)
        out: list[str] = []
        for piece in pieces:
            if piece.startswith("\x00"):
                out.append(piece[1:-1].strip("\n"))
            else:
                lines = [line.strip() for line in piece.split("\n")]
                out.append(re.sub(r"\n{3,}", "\n\n", "\n".join(lines)))
        return re.sub(r"\n{3,}", "\n\n", "".join(out)).strip("\n ")


def _hide_escapes(text: str) -> str:
    return _ESCAPE.sub(lambda m: "\n" if m.group(1) == "n" else _HIDE[m.group(1)], text)


def _show(text: str, markup: str, dropped: list[str] | None = None) -> str:
    """A text of the question as a reader sees it; its own ``[format]`` marker wins."""
    if match := _MARKUP.match(text):
        markup = match.group(1).lower()
        text = text[match.end() :]
    text = text.translate(_SHOW)
    # Moodle's default format (no marker) and "moodle" auto-format both render HTML.
    if markup in ("html", "moodle") or (markup == "auto" and _LOOKS_LIKE_HTML.search(text)):
        parser = _Text()
        try:
            parser.feed(text)
            parser.close()
        except AssertionError:  # html.parser on a malformed "<![...]>" section
            if dropped is not None:
                dropped.append("HTML that could not be read was kept as written")
            return text.strip()
        if dropped is not None:
            dropped.extend(parser.dropped)
        return parser.text()
    return "\n".join(line.strip() for line in text.strip().split("\n"))


def _blocks(text: str) -> list[tuple[int, str]]:
    """Each question's first line and text: comment lines dropped, lines trimmed (as Moodle)."""
    blocks: list[tuple[int, str]] = []
    lines: list[tuple[int, str]] = []
    for number, raw in enumerate([*text.split("\n"), ""], start=1):
        line = raw.strip()
        if line.startswith("$CATEGORY:") and not lines:
            continue  # categories are Moodle's question bank folders; a quiz file has none
        if line and not line.startswith("//"):
            lines.append((number, raw.rstrip()))  # indentation matters inside <pre>
        elif not line and lines:
            blocks.append((lines[0][0], "\n".join(content for _, content in lines)))
            lines = []
    return blocks


def import_gift(text: str, meta: QuizMeta) -> ImportResult:
    """Convert GIFT text; other question types become problems, not questions."""
    builder = QuizBuilder(meta)
    normalized = text.replace("\r\n", "\n").replace("\r", "\n")
    for line, block in _blocks(normalized):
        _question(builder, line, _hide_escapes(block))
    return builder.result()


def _question(builder: QuizBuilder, line: int, block: str) -> None:
    title = None
    block = block.lstrip()
    if match := _TITLE.match(block):
        title = _show(match.group(1), "plain") or None
        block = block[match.end() :]
    markup = "auto"
    if match := _MARKUP.match(block):
        markup = match.group(1).lower()
        block = block[match.end() :]
    named = f'question "{title}"' if title else "this question"
    dropped: list[str] = []

    start = block.find("{")
    end = block.find("}", start + 1) if start >= 0 else -1
    if start < 0 and "}" not in block:
        builder.problem(line, "text without an answer block { } (a Moodle description); skipped")
        return
    if start < 0 or end < 0 or "{" in block[start + 1 : end] or "}" in block[:start]:
        builder.problem(
            line, f"{named} has unbalanced braces (write \\{{ or \\}} for a literal brace); skipped"
        )
        return
    before, answers, after = block[:start], block[start + 1 : end], block[end + 1 :]
    if "{" in after or "}" in after:
        builder.problem(
            line,
            f"{named} has more than one answer block (is a blank line missing between two "
            "questions?); skipped",
        )
        return
    question_text = _show(before, markup, dropped)
    if rest := _show(after, markup, dropped):  # Moodle's "missing word": the answers fill it
        glue = "" if rest[0] in ".,;:!?…)»”’" else " "
        question_text = f"{question_text} _____{glue}{rest}".strip()

    answers, _, general = answers.partition("####")
    answers = answers.strip()
    if _TRUE_FALSE.fullmatch(answers):
        _true_false(builder, line, named, title, question_text, answers, general, markup, dropped)
        return
    kind = _other_kind(answers)
    if kind is not None:
        builder.problem(line, f"{named} {kind}; skipped ({_ONLY_MULTIPLE_CHOICE})")
        return

    options: list[DraftOption] = []
    right: list[int] = []
    right_feedback = ""
    for index, part in enumerate(re.split(r"(?=[=~])", answers)[1:]):
        marker, body = part[0], part[1:]
        weight = 100.0 if marker == "=" else 0.0
        if match := _WEIGHT.match(body):
            weight = float(match.group(1).replace(",", "."))
            body = body[match.end() :]
        if weight not in (0.0, 100.0):
            builder.problem(
                line,
                f"{named} has %weights (several right answers or partial credit); "
                f"skipped ({_ONLY_MULTIPLE_CHOICE})",
            )
            return
        answer, _, feedback = body.partition("#")
        if weight == 100.0:
            right.append(index)
            right_feedback = _show(feedback, markup, dropped)
            options.append(DraftOption(_show(answer, markup, dropped)))
        else:
            note = _show(feedback, markup, dropped) or None
            options.append(DraftOption(_show(answer, markup, dropped), note))
    if len(right) != 1:
        reason = "no right answer (=)" if not right else f"{len(right)} right answers"
        builder.problem(line, f"{named} has {reason}; skipped ({_ONLY_MULTIPLE_CHOICE})")
        return
    explanation = "\n\n".join(t for t in (right_feedback, _show(general, markup, dropped)) if t)
    _report_dropped(builder, line, dropped)
    builder.add(
        DraftQuestion(
            line=line,
            text=question_text,
            options=options,
            correct=right[0],
            explanation=explanation or None,
            name=title,
        )
    )


def _report_dropped(builder: QuizBuilder, line: int, dropped: list[str]) -> None:
    for message in dict.fromkeys(dropped):  # once each, in order
        builder.problem(line, f"{message}: check that the question still makes sense")


def _true_false(
    builder: QuizBuilder,
    line: int,
    named: str,
    title: str | None,
    text: str,
    answers: str,
    general: str,
    markup: str,
    dropped: list[str],
) -> None:
    """``{T}`` / ``{FALSE#wrong feedback#right feedback}``: the options True and False, as the
    Open Trivia DB booleans are imported. Moodle shows the first feedback to whoever answered
    wrong and the second to whoever answered right."""
    value, _, feedback = answers.partition("#")
    if_wrong, _, if_right = feedback.partition("#")
    truth = value.strip().upper() in ("T", "TRUE")
    note = _show(if_wrong, markup, dropped) or None
    explanation = "\n\n".join(
        t for t in (_show(if_right, markup, dropped), _show(general, markup, dropped)) if t
    )
    options = [
        DraftOption("True", None if truth else note),
        DraftOption("False", note if truth else None),
    ]
    _report_dropped(builder, line, dropped)
    builder.add(
        DraftQuestion(
            line=line,
            text=text,
            options=options,
            correct=0 if truth else 1,
            explanation=explanation or None,
            name=title,
        )
    )


def _other_kind(answers: str) -> str | None:
    """What a non-multiple-choice answer block makes of its question; None for multiple choice."""
    if not answers:
        return "is an essay question"
    if answers.startswith("#"):
        return "is a numerical question"
    if answers[0] not in "=~":
        return "has answers that do not start with = or ~"
    if "~" not in answers:
        return "is a matching question" if "->" in answers else "is a short-answer question"
    return None
