"""Aiken: a question line, options ``A. text``, ``A) text`` or ``A)text``, then ``ANSWER: B``.

Aiken has no feedback, so every question gets the stand-in explanation (reported once for the
file), and the options are shuffled: the author placed the right answer. A question
text may span several lines (Moodle's reader wants one; accepting more loses nothing). A block
that cannot be read is reported with its line and the reader moves on to the next question.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bot.importers.base import DraftOption, DraftQuestion, ImportResult, QuizBuilder, QuizMeta
from bot.quoting import quote

# Moodle reads "A)Yes" and "A.Yes" without a space; "A.Yes" only where the next option letter
# is due, since a question may begin "U.S. ..." or "E.coli ...".
_OPTION = re.compile(r"([A-Z])(?:\.\s+|\)\s*)(.*)")
_TIGHT_OPTION = re.compile(r"([A-Z])\.(\S.*)")
_ANSWER = re.compile(r"ANSWER\s*:(.*)", re.IGNORECASE)


@dataclass
class _Block:
    line: int
    text: list[str] = field(default_factory=list)
    options: list[tuple[str, str, int]] = field(default_factory=list)  # letter, text, line


def import_aiken(text: str, meta: QuizMeta) -> ImportResult:
    """Convert Aiken text; malformed questions become problems."""
    builder = QuizBuilder(meta, each_missing_explanation=False)
    block: _Block | None = None
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line:
            continue
        if answer := _ANSWER.fullmatch(line):
            if block is None:
                builder.problem(number, "ANSWER line without a question before it; ignored")
            else:
                _finish(builder, block, answer.group(1).strip(), number)
            block = None
        elif (option := _OPTION.fullmatch(line)) or (
            (option := _TIGHT_OPTION.fullmatch(line))
            and block is not None
            and bool(block.text)
            and option.group(1) == chr(ord("A") + len(block.options))
        ):
            assert option is not None
            if block is None:
                block = _Block(number)
            block.options.append((option.group(1), option.group(2), number))
        elif block is None:
            block = _Block(number, [line])
        elif not block.options:
            block.text.append(line)
        else:  # text after the options: the ANSWER line is missing and a new question starts
            _missing_answer(builder, block)
            block = _Block(number, [line])
    if block is not None:
        _missing_answer(builder, block)
    return builder.result(shuffle_options=True)


def _missing_answer(builder: QuizBuilder, block: _Block) -> None:
    builder.problem(block.line, "question has no ANSWER: line after its options; skipped")


def _finish(builder: QuizBuilder, block: _Block, answer: str, answer_line: int) -> None:
    if not block.text:
        builder.problem(block.line, "options without a question line before them; skipped")
        return
    letters: list[str] = []
    for letter, _, line in block.options:
        if letter in letters:
            builder.problem(line, f"option letter {letter} is used twice; question skipped")
            return
        letters.append(letter)
    if not re.fullmatch(r"[A-Za-z]", answer):
        builder.problem(
            answer_line,
            f'ANSWER must name one option letter, as in "ANSWER: B", not {quote(answer)}; '
            "question skipped",
        )
        return
    if answer.upper() not in letters:
        listed = ", ".join(letters) or "none"
        builder.problem(
            answer_line,
            f"ANSWER: {answer.upper()} is not one of the options ({listed}); question skipped",
        )
        return
    builder.add(
        DraftQuestion(
            line=block.line,
            text="\n".join(block.text),
            options=[DraftOption(text) for _, text, _ in block.options],
            correct=letters.index(answer.upper()),
        )
    )
