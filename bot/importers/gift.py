"""Moodle GIFT: the multiple-choice questions of a GIFT file.

Follows Moodle's own reader: questions are separated by blank lines, lines starting with ``//``
are comments, ``$CATEGORY:`` blocks are ignored, and ``\\``-escapes (``\\: \\= \\~ \\# \\{ \\}
\\\\ \\n``) make the special characters literal. Only questions with one right answer can be
represented in our format; every other question type is reported as skipped with its line.
"""

from __future__ import annotations

import html
import re

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


def _hide_escapes(text: str) -> str:
    return _ESCAPE.sub(lambda m: "\n" if m.group(1) == "n" else _HIDE[m.group(1)], text)


def _show(text: str, markup: str) -> str:
    text = text.translate(_SHOW)
    if markup == "html":
        text = re.sub(r"(?i)<br\s*/?>|</p\s*>", "\n", text)
        text = html.unescape(re.sub(r"<[^>]*>", "", text))
    return text.strip()


def _blocks(text: str) -> list[tuple[int, str]]:
    """Each question's first line and text: comment lines dropped, lines trimmed (as Moodle)."""
    blocks: list[tuple[int, str]] = []
    lines: list[tuple[int, str]] = []
    for number, raw in enumerate([*text.split("\n"), ""], start=1):
        line = raw.strip()
        if line.startswith("$CATEGORY:") and not lines:
            continue  # categories are Moodle's question bank folders; a quiz file has none
        if line and not line.startswith("//"):
            lines.append((number, line))
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
    if match := _TITLE.match(block):
        title = _show(match.group(1), "plain") or None
        block = block[match.end() :]
    markup = "plain"
    if match := _MARKUP.match(block):
        markup = match.group(1).lower()
        block = block[match.end() :]
    named = f'question "{title}"' if title else "this question"

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
    question_text = _show(before, markup)
    if _show(after, markup):  # Moodle's "missing word" form: the answers fill the blank
        question_text = f"{question_text} _____ {_show(after, markup)}".strip()

    answers, _, general = answers.partition("####")
    answers = answers.strip()
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
            right_feedback = _show(feedback, markup)
            options.append(DraftOption(_show(answer, markup)))
        else:
            options.append(DraftOption(_show(answer, markup), _show(feedback, markup) or None))
    if len(right) != 1:
        reason = "no right answer (=)" if not right else f"{len(right)} right answers"
        builder.problem(line, f"{named} has {reason}; skipped ({_ONLY_MULTIPLE_CHOICE})")
        return
    explanation = "\n\n".join(t for t in (right_feedback, _show(general, markup)) if t)
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


def _other_kind(answers: str) -> str | None:
    """What a non-multiple-choice answer block makes of its question; None for multiple choice."""
    if not answers:
        return "is an essay question"
    if answers.startswith("#"):
        return "is a numerical question"
    if _TRUE_FALSE.fullmatch(answers):
        return "is a true/false question"
    if answers[0] not in "=~":
        return "has answers that do not start with = or ~"
    if "~" not in answers:
        return "is a matching question" if "->" in answers else "is a short-answer question"
    return None
