"""Properties: any input either imports into a file the loader accepts or raises
QuizImportError, and texts survive the trip through each format's syntax.

``IMPORT_FUZZ_EXAMPLES=5000`` runs a longer search than the default 150 examples per test.
"""

from __future__ import annotations

import json
import os
import string
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from bot.answer_matching import normalize
from bot.importers import FORMATS, ImportResult, QuizImportError, import_text
from bot.importers.base import same_text_key
from tests.importers.support import reload, round_trip

SETTINGS = settings(
    max_examples=int(os.environ.get("IMPORT_FUZZ_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

# Characters that mean something in one of the formats, so that random text reaches the
# parsers' interesting branches instead of being rejected at once.
SYNTAX = "{}=~#:%\\/[]>-$.)\n \t\"'&;,|*!?" + "ABCDET" + "ANSWER" + "CATEGORY" + "0123456789"
source_text = st.one_of(st.text(), st.text(alphabet=SYNTAX))


def one_line(message: str) -> None:
    """What the author reads as ``file:line: problem`` stays one printable line."""
    assert len(message.splitlines()) == 1, message
    message.encode("utf-8")


def check(result: ImportResult) -> None:
    """An import that succeeds writes what the loader accepts, and says so in single lines."""
    for problem in result.problems:
        one_line(str(problem))
    if result.quiz["questions"]:
        assert [e.message for e in reload(result).errors] == []


@pytest.mark.parametrize("fmt", FORMATS)
@SETTINGS
@given(text=source_text)
def test_any_text_imports_validly_or_raises_quiz_import_error(fmt: str, text: str) -> None:
    try:
        result = import_text(text, fmt, choices=3 if fmt == "red" and len(text) % 2 else None)
    except QuizImportError as exc:
        assert exc.line >= 1
        for problem in [*exc.problems, exc]:
            one_line(str(problem))
        return
    check(result)


HTML = "<>/!-[]&;#=\"' abcdeiprsx" + "CDATA" + "\n"


@SETTINGS
@given(
    question=st.text(alphabet=HTML),
    option=st.text(alphabet=HTML),
    marker=st.sampled_from(["[html]", "[moodle]", ""]),
)
def test_any_html_in_gift_imports_validly_or_is_reported(
    question: str, option: str, marker: str
) -> None:
    gift = f"{marker}{question} {{=ok#{marker}{option} ~{marker}{option} no}}"
    try:
        result = import_text(gift, "gift")
    except QuizImportError:
        return
    check(result)


json_value = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=10,
)
opentdb_item = st.fixed_dictionaries(
    {},
    optional={
        "type": st.sampled_from(["multiple", "boolean"]) | json_value,
        "difficulty": st.sampled_from(["easy", "medium", "hard"]) | json_value,
        "category": st.text() | json_value,
        "question": st.text() | json_value,
        "correct_answer": st.sampled_from(["True", "False"]) | st.text() | json_value,
        "incorrect_answers": st.lists(st.text(), max_size=10) | json_value,
    },
)


@SETTINGS
@given(
    results=st.lists(opentdb_item | json_value, max_size=6),
    indent=st.none() | st.integers(0, 4),
)
def test_any_json_shaped_like_an_api_answer_imports_validly_or_raises(
    results: list[Any], indent: int | None
) -> None:
    text = json.dumps({"response_code": 0, "results": results}, indent=indent)
    try:
        result = import_text(text, "opentdb")
    except QuizImportError:
        return
    check(result)


# Texts without the characters that each format cannot carry at all in a line.
line_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp"), blacklist_characters="%"),
    min_size=1,
    max_size=40,
).filter(lambda t: t.strip() and not t.strip().startswith("//"))


def gift_escape(text: str) -> str:
    for char in "\\:=~#{}":
        text = text.replace(char, "\\" + char)
    return text


@SETTINGS
@given(
    question=line_text.filter(lambda t: "->" not in t),
    right=line_text,
    wrong=st.lists(line_text, min_size=1, max_size=9),
    feedback=st.lists(line_text, min_size=2, max_size=2),
)
@example(question="a  b", right="0", wrong=["<A>"], feedback=["0", "0"])  # HTML-looking text
@example(question="0", right=";", wrong=["\ufdd0"], feedback=["0", "\ufdd0"])  # found in CI
def test_gift_texts_with_any_special_characters_survive_escaping(
    question: str, right: str, wrong: list[str], feedback: list[str]
) -> None:
    # Options a player cannot tell apart are refused by design (tests/importers/test_common.py).
    assume(len({same_text_key(t) for t in [right, *wrong]}) == len(wrong) + 1)
    answers = [f"={gift_escape(right)}#{gift_escape(feedback[0])}"]
    answers += [f"~{gift_escape(w)}#{gift_escape(feedback[1])}" for w in wrong]
    # Plain text: Moodle's default format is HTML, where "<A>" is a tag and spaces collapse
    # (tests/importers/test_gift.py covers that); here only GIFT's own escapes are at stake.
    gift = f"::Title::[plain]{gift_escape(question)} {{\n" + "\n".join(answers) + "\n}"
    (imported,) = round_trip(import_text(gift, "gift")).questions
    right_option = imported.option(imported.correct_option_id)
    assert right_option is not None
    assert imported.text.get("en") == question.strip()
    assert right_option.text.get("en") == right.strip()
    assert [o.text.get("en") for o in imported.options[1:]] == [w.strip() for w in wrong]
    assert imported.explanation.get("en") == feedback[0].strip()
    assert {o.note.get("en") for o in imported.options[1:] if o.note} == {feedback[1].strip()}


@SETTINGS
@given(
    question=line_text.filter(lambda t: not t.strip().upper().startswith("ANSWER")),
    options=st.lists(line_text, min_size=2, max_size=10),
    data=st.data(),
)
def test_aiken_questions_keep_their_texts_and_answer(
    question: str, options: list[str], data: st.DataObject
) -> None:
    # A question line that looks like an option or an ANSWER line is Aiken's own ambiguity.
    if question.strip()[:1] in string.ascii_uppercase and question.strip()[1:2] in ".)":
        return
    assume(len({same_text_key(option) for option in options}) == len(options))
    letters = string.ascii_uppercase[: len(options)]
    answer = data.draw(st.sampled_from(letters))
    lines = [
        question,
        *(f"{letter}. {text}" for letter, text in zip(letters, options, strict=True)),
    ]
    (imported,) = round_trip(
        import_text("\n".join([*lines, f"ANSWER: {answer}"]), "aiken")
    ).questions
    assert imported.text.get("en") == question.strip()
    assert [o.text.get("en") for o in imported.options] == [o.strip() for o in options]
    assert imported.correct_option_id == "abcdefghij"[letters.index(answer)]


@SETTINGS
@given(
    questions=st.dictionaries(
        line_text.filter(
            lambda t: t.strip().upper() not in ("AUTHOR", "CONFIG", "DESCRIPTION", "$SCHEMA")
        ),
        st.lists(line_text, min_size=1, max_size=4),
        min_size=1,
        max_size=5,
    )
)
def test_red_questions_keep_their_text_and_answers(questions: dict[str, list[str]]) -> None:
    text = yaml.safe_dump(questions, allow_unicode=True, sort_keys=False)
    expected = []
    for key, answers in questions.items():
        kept: list[str] = []
        for answer in (a.strip() for a in answers):
            if normalize(answer) and answer.casefold() not in {k.casefold() for k in kept}:
                kept.append(answer)
        if kept:
            expected.append((key.strip(), kept))
    try:
        result = import_text(text, "red")
    except QuizImportError:
        assert expected == []
        return
    got = [(q["text"]["en"], q["answers"]["en"]) for q in result.quiz["questions"]]
    assert got == expected


# Values the importers quote in messages, made of what ends a line or cannot be printed.
BREAKING = '\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"\\ab'
breaking = st.text(alphabet=BREAKING, min_size=1, max_size=6)


@SETTINGS
@given(title=breaking, answer=breaking, key=breaking, kind=breaking, letter=breaking)
@example(title="\n", answer="\u2028", key="a\nb", kind="\n", letter="\x85")
def test_every_importer_message_is_exactly_one_line(
    title: str, answer: str, key: str, kind: str, letter: str
) -> None:
    """Titles, answers, Red questions, Open Trivia DB types and Aiken answer letters that
    contain line breaks are quoted: each message stays one ``file:line: problem`` line."""
    title, answer = gift_escape(title).replace("\n", "\\n"), gift_escape(answer)
    gift = (
        f"::{title}::Q? {{#1}}\n\n::{title}::[html]<img src='{answer}'>Q? {{=a ~b}}"
        f"\n\nR? {{={answer} =%50%x}}"
    )
    results = [{"type": kind, "question": "Q", "correct_answer": "x"}]
    sources = [
        ("gift", gift),
        ("red", yaml.safe_dump({key: ["x"], "Q?": [answer], "Z?": {"k": 1}})),
        ("opentdb", json.dumps({"results": results})),
        ("opentdb", json.dumps({"response_code": kind, "results": []})),
        ("aiken", f"Q?\nA. x\nB. y\nANSWER: {letter}\n\nQ2?\nA. x\nB. y\nANSWER: A"),
    ]
    for fmt, text in sources:
        try:
            result = import_text(text, fmt)
        except QuizImportError as exc:
            for problem in [*exc.problems, exc]:
                one_line(str(problem))
            continue
        check(result)
