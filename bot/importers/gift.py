"""Moodle GIFT: the multiple-choice questions of a GIFT file.

Follows Moodle's own reader: questions are separated by blank lines, lines starting with ``//``
are comments, ``$CATEGORY:`` blocks are ignored, and ``\\``-escapes (``\\: \\= \\~ \\# \\{ \\}
\\\\ \\n``) make the special characters literal. Multiple-choice questions with one right
answer are imported (partial-credit answers become wrong options), true/false ones as True and
False options, and short-answer ones as typed-answer questions (``kind: typed``) that accept
every full-credit answer; every other question type is reported as skipped with its line.
Texts in HTML (Moodle's default and ``[html]`` formats) and ``[markdown]`` are turned into
plain text; what cannot be kept (images, link targets) is reported. The author placed the
right answers, so the quiz shuffles its options.
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
from bot.quoting import quote

# Escaped characters become Unicode noncharacters while the structure is parsed, so that the
# structural search can never see them; they are put back in every text afterwards. The
# noncharacters a source itself contains (U+FDD0-U+FDEF) are first written as _MARK and two
# digits, so that they come back as themselves, not as escaped characters.
_ESCAPABLE = "\\:=~#{}"
_HIDE = {ch: chr(0xFDD0 + i) for i, ch in enumerate(_ESCAPABLE)}
_SHOW = {ord(hidden): ch for ch, hidden in _HIDE.items()}
_ESCAPE = re.compile(r"\\([\\:=~#{}n])")
_NONCHARACTER = re.compile("[\ufdd0-\ufdef]")
_MARK = "\ufdd7"
_MARKED = re.compile(_MARK + r"(\d\d)")

_TITLE = re.compile(r"::(.*?)::", re.DOTALL)
_MARKUP = re.compile(r"\s*\[(html|moodle|plain|markdown)\]", re.IGNORECASE)
_TRUE_FALSE = re.compile(r"(?:T|F|TRUE|FALSE)\s*(?:#.*)?", re.IGNORECASE | re.DOTALL)
_WEIGHT = re.compile(r"\s*%(-?\d+(?:[.,]\d+)?)%")
_ONLY_MULTIPLE_CHOICE = (
    "only multiple-choice, true/false and short-answer questions with one right answer "
    "or full-credit answers are imported"
)
_ANSWERS_START = re.compile(r"\s*(?:[=~#]|(?:T|F|TRUE|FALSE)\s*(?:#|$))", re.IGNORECASE)


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
            source = quote(values["src"]) if values.get("src") else "no source"
            self.dropped.append(f"an image ({source}) was dropped")
            if alt:
                self.parts.append(f"[{alt}]")
        elif tag == "a" and values.get("href"):
            self.dropped.append(f"a link to {quote(values['href'])} was dropped (its text is kept)")

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
    text = _NONCHARACTER.sub(lambda m: f"{_MARK}{ord(m.group()) - 0xFDD0:02d}", text)
    return _ESCAPE.sub(lambda m: "\n" if m.group(1) == "n" else _HIDE[m.group(1)], text)


def _show(text: str, markup: str, dropped: list[str] | None = None) -> str:
    """A text of the question as a reader sees it; its own ``[format]`` marker wins."""
    shown = _render(text, markup, dropped)
    return _MARKED.sub(lambda m: chr(0xFDD0 + int(m.group(1))), shown)


def _render(text: str, markup: str, dropped: list[str] | None) -> str:
    if match := _MARKUP.match(text):
        markup = match.group(1).lower()
        text = text[match.end() :]
    text = text.translate(_SHOW)
    if markup == "markdown":
        return _markdown_text(text, dropped)
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


_MD_IMAGE = re.compile(r"!\[([^\]]*)\]\(([^)\s]*)[^)]*\)")
_MD_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]*)[^)]*\)")
_MD_EMPHASIS = re.compile(
    r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1|(?<![\w*])([*_])(?=\S)(.+?)(?<=\S)\3(?![\w*])"
)
_MD_CODE = re.compile(r"`([^`]+)`")
_MD_LINE = re.compile(r"^(?:#{1,6}\s+|>\s?)", re.MULTILINE)
_MD_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!])")


def _markdown_text(text: str, dropped: list[str] | None) -> str:
    """What a reader sees of a ``[markdown]`` text: emphasis, code marks, headings and
    links as their words; images as their alt text, reported like HTML's."""
    lost: list[str] = []

    def image(match: re.Match[str]) -> str:
        lost.append(
            f"an image ({quote(match.group(2)) if match.group(2) else 'no source'}) was dropped"
        )
        return f"[{match.group(1)}]" if match.group(1).strip() else ""

    def link(match: re.Match[str]) -> str:
        if match.group(2):
            lost.append(f"a link to {quote(match.group(2))} was dropped (its text is kept)")
        return match.group(1)

    escaped: dict[str, str] = {}

    def hide(match: re.Match[str]) -> str:
        key = f"\ufde0{len(escaped)}\ufdef"  # no source noncharacter is left to meet it
        escaped[key] = match.group(1)
        return key

    text = _MD_ESCAPE.sub(hide, text)  # \* is a literal star, never emphasis
    text = _MD_CODE.sub(lambda m: m.group(1), text)
    text = _MD_IMAGE.sub(image, text)
    text = _MD_LINK.sub(link, text)
    previous = None
    while previous != text:  # nested emphasis, such as ***both***
        previous = text
        text = _MD_EMPHASIS.sub(lambda m: m.group(2) or m.group(4), text)
    text = _MD_LINE.sub("", text)
    for key, char in escaped.items():
        text = text.replace(key, char)
    if dropped is not None:
        dropped.extend(lost)
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
    return builder.result(shuffle_options=True)


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
    named = f"question {quote(title)}" if title else "this question"
    dropped: list[str] = []

    parts = _split_braces(block, named)
    if isinstance(parts, str):
        builder.problem(line, parts)
        return
    before, answers, after = parts
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
    if kind == _SHORT_ANSWER:
        _short_answer(builder, line, named, title, question_text, answers, general, markup, dropped)
        return
    if kind is not None:
        builder.problem(line, f"{named} {kind}; skipped ({_ONLY_MULTIPLE_CHOICE})")
        return

    pieces = _weighted(answers)
    _choices(builder, line, named, title, question_text, pieces, general, markup, dropped)


def _split_braces(block: str, named: str) -> tuple[str, str, str] | str:
    """The text before, inside and after the one answer block, or the problem (as reported)."""
    start = block.find("{")
    end = block.find("}", start + 1) if start >= 0 else -1
    if start < 0 and "}" not in block:
        return "text without an answer block { } (a Moodle description); skipped"
    if start < 0 or end < 0 or "{" in block[start + 1 : end] or "}" in block[:start]:
        return f"{named} has unbalanced braces (write \\{{ or \\}} for a literal brace); skipped"
    before, answers, after = block[:start], block[start + 1 : end], block[end + 1 :]
    if "{" in after or "}" in after:
        following = min(i for i in (after.find("{"), after.find("}")) if i >= 0)
        if _ANSWERS_START.match(answers) and "\n" in after[:following]:
            hint = "more than one answer block (is a blank line missing between two questions?)"
        else:  # a brace in the text itself, as LaTeX writes them: \( x^{2} \)
            hint = "braces in its text: write \\{ and \\} there (as LaTeX needs them)"
        return f"{named} has {hint}; skipped"
    return before, answers, after


def _weighted(answers: str) -> list[tuple[float, str]]:
    """A multiple-choice block's answers with their weights (=: 100, ~: 0, or %n%)."""
    pieces: list[tuple[float, str]] = []
    for part in re.split(r"(?=[=~])", answers)[1:]:
        marker, body = part[0], part[1:]
        if marker == "~" and not body.strip():
            continue  # "~=right": Moodle splits at both marks and drops the empty answer
        weight = 100.0 if marker == "=" else 0.0
        if match := _WEIGHT.match(body):
            weight = float(match.group(1).replace(",", "."))
            body = body[match.end() :]
        pieces.append((weight, body))
    return pieces


def _choices(
    builder: QuizBuilder,
    line: int,
    named: str,
    title: str | None,
    question_text: str,
    pieces: list[tuple[float, str]],
    general: str,
    markup: str,
    dropped: list[str],
) -> None:
    """A question of answers (weight, text#feedback) with one full-credit answer; answers of
    partial credit become wrong options (our questions are right or wrong), and say so."""
    options: list[DraftOption] = []
    right: list[int] = []
    partial = 0
    right_feedback = ""
    for index, (weight, body) in enumerate(pieces):
        answer, _, feedback = body.partition("#")
        if weight >= 100.0:
            right.append(index)
            right_feedback = _show(feedback, markup, dropped)
            options.append(DraftOption(_show(answer, markup, dropped)))
        else:
            partial += weight > 0
            note = _show(feedback, markup, dropped) or None
            options.append(DraftOption(_show(answer, markup, dropped), note))
    if len(right) != 1:
        if right:
            reason = f"{len(right)} right answers"
        elif partial:
            reason = "%weights but no full-credit answer (several right answers or partial credit)"
        else:
            reason = "no right answer (=)"
        builder.problem(line, f"{named} has {reason}; skipped ({_ONLY_MULTIPLE_CHOICE})")
        return
    explanation = "\n\n".join(t for t in (right_feedback, _show(general, markup, dropped)) if t)
    _report_dropped(builder, line, dropped)
    if partial:
        builder.problem(
            line,
            f"{named}: {partial} partial-credit answer{'s are' if partial > 1 else ' is'} "
            "a wrong option here (a quiz answer is right or wrong)",
        )
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
        DraftOption(builder.word("true", line), None if truth else note),
        DraftOption(builder.word("false", line), note if truth else None),
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


_SHORT_ANSWER = "is a short-answer question"


def _other_kind(answers: str) -> str | None:
    """What a non-multiple-choice answer block makes of its question; None for multiple choice.

    As Moodle decides: a ``~`` anywhere makes multiple choice, ``=`` with ``->`` matching, and
    anything else (``{=four =4}``, ``{four}``) short answer."""
    if not answers:
        return "is an essay question"
    if answers.startswith("#"):
        return "is a numerical question"
    if "~" not in answers:
        return "is a matching question" if "->" in answers else _SHORT_ANSWER
    if answers[0] not in "=~":
        return "has answers that do not start with = or ~"
    return None


def _short_answer(
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
    """``{=four =4}``: a typed-answer question accepting every full-credit answer. With one
    full-credit answer and partial-credit ones, a multiple-choice question whose wrong
    options are the partial ones; with several, the partial ones are left out."""
    pieces: list[tuple[float, str]] = []
    for piece in answers.split("="):  # as Moodle splits them; the first piece is before any =
        piece = piece.strip()
        if not piece:
            continue
        weight = 100.0
        if match := _WEIGHT.match(piece):
            weight = float(match.group(1).replace(",", "."))
            piece = piece[match.end() :]
        pieces.append((weight, piece))
    full = [body for weight, body in pieces if weight >= 100.0]
    if len(full) == 1 and len(pieces) > 1:
        _choices(builder, line, named, title, text, pieces, general, markup, dropped)
        return
    if not full:
        builder.problem(
            line, f"{named} has no full-credit answer; skipped ({_ONLY_MULTIPLE_CHOICE})"
        )
        return
    if len(full) < len(pieces):
        left = len(pieces) - len(full)
        builder.problem(
            line,
            f"{named}: {left} partial-credit answer{'s were' if left > 1 else ' was'} left "
            "out (a typed answer is right or wrong)",
        )
    accepted = [_show(body.partition("#")[0], markup, dropped) for body in full]
    feedback = [_show(body.partition("#")[2], markup, dropped) for body in full]
    explanation = "\n\n".join(
        t for t in (next((f for f in feedback if f), ""), _show(general, markup, dropped)) if t
    )
    _report_dropped(builder, line, dropped)
    builder.add(
        DraftQuestion(
            line=line,
            text=text,
            options=[],
            correct=0,
            explanation=explanation or None,
            name=title,
            answers=accepted,
        )
    )
