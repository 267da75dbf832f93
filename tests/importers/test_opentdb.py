"""Open Trivia DB: API answers with HTML entities, boolean questions, and broken results."""

from __future__ import annotations

import base64
import json
import urllib.parse
from collections.abc import Callable, Mapping

import pytest

from bot.importers import QuizImportError, import_quiz, import_text
from tests.importers.support import SAMPLES, line_of, problems_by_line, round_trip, summary

SAMPLE = SAMPLES / "computers.json"
CREDIT = "from the Open Trivia Database (opentdb.com), licensed CC BY-SA 4.0."


def result(question: str, right: str, wrong: list[str], **fields: str) -> dict[str, object]:
    kind = "boolean" if right in ("True", "False") else "multiple"
    return {
        "type": kind,
        "difficulty": "easy",
        "category": "General Knowledge",
        "question": question,
        "correct_answer": right,
        "incorrect_answers": wrong,
        **fields,
    }


def api(*results: Mapping[str, object]) -> str:
    return json.dumps({"response_code": 0, "results": list(results)})


def test_the_sample_round_trips_with_entities_decoded() -> None:
    quiz = round_trip(import_quiz(SAMPLE, "opentdb"))
    texts = [summary(q)[:3] for q in quiz.questions]
    assert [(text, sorted(options), right) for text, options, right in texts] == [
        (
            'What does "CPU" stand for?',
            sorted(
                [
                    "Central Processing Unit",
                    "Central Process Unit",
                    "Computer Personal Unit",
                    "Central Processor Unit",
                ]
            ),
            "Central Processing Unit",
        ),
        ("The programming language 'Python' is named after a snake.", ["False", "True"], "False"),
        ('Which character does the HTML entity "&eacute;" display?', ["è", "é", "ê", "ë"], "é"),
        ('"HTTP" stands for HyperText Transfer Protocol.', ["False", "True"], "True"),
    ]
    # boolean questions keep the order True, False whatever the answer
    assert [o.text.get("en") for o in quiz.questions[1].options] == ["True", "False"]
    assert quiz.description is not None
    assert quiz.description.get("en") == f"Science: Computers trivia {CREDIT}"
    assert quiz.level is None  # the sample mixes easy, medium and hard


def test_every_unusable_result_is_reported_with_its_line_and_number() -> None:
    problems = problems_by_line(import_quiz(SAMPLE, "opentdb"))
    assert problems[line_of(SAMPLE, "{", occurrence=5)] == [
        'result 4 has an unknown type "text"; skipped'
    ]
    assert problems[line_of(SAMPLE, "{", occurrence=6)] == [
        'result 5 has no "question" or "correct_answer" text; skipped'
    ]
    assert problems[line_of(SAMPLE, '"not a question"')] == ["result 6 is not an object; skipped"]
    assert problems[line_of(SAMPLE, "{", occurrence=7)] == [
        "result 7: a boolean answer must be True or False; skipped"
    ]
    # one line for the file (an API download of 5,000 would otherwise say it 5,000 times)
    explained = [(line, m) for line, ms in problems.items() for m in ms if "explanation" in m]
    assert explained == [
        (
            line_of(SAMPLE, "{", occurrence=2),
            "4 questions have no explanation (the source has none); each says "
            '"The answer is: ..." for now',
        )
    ]


def test_the_right_answer_position_is_stable_and_varies_between_questions() -> None:
    questions = [result(f"Question number {n}?", "right", ["w1", "w2", "w3"]) for n in range(12)]
    first = import_text(api(*questions), "opentdb").quiz["questions"]
    again = import_text(api(*questions), "opentdb").quiz["questions"]
    assert [q["correct"] for q in first] == [q["correct"] for q in again]
    assert len({q["correct"] for q in first}) > 1


def test_a_uniform_difficulty_becomes_the_quiz_level_and_mixed_categories_a_plain_credit() -> None:
    quiz = round_trip(
        import_text(
            api(
                result("A?", "x", ["y"], difficulty="hard", category="History"),
                result("B?", "x", ["y"], difficulty="hard", category="Art"),
            ),
            "opentdb",
        )
    )
    assert quiz.level == "advanced"
    assert quiz.description is not None
    assert quiz.description.get("en") == f"Trivia {CREDIT}"


def test_a_bare_list_of_results_on_one_line_is_accepted() -> None:
    text = json.dumps([result("A?", "x", ["y"]), {"type": "multiple"}])
    result_ = import_text(text, "opentdb")
    assert 'line 1: result 2 has no "question" or "correct_answer" text; skipped' in [
        str(p) for p in result_.problems
    ]


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ('{\n  "response_code": 0,\n  "results": [\n    {"type": }\n  ]\n}', 4, "not valid JSON"),
        ('{"response_code": 1, "results": []}', 1, "response_code 1 (no results"),
        ('{"response_code": 0, "results": {}}', 1, 'a "results" list'),
        ('{"response_code": 0, "results": []}', 1, "no question could be imported"),
        ("7" * 5000, 1, "not valid JSON"),  # over Python's integer-digits limit
        ("[" * 100_000, 1, "not valid JSON"),
    ],
)
def test_unreadable_answers_raise_with_their_line(text: str, line: int, message: str) -> None:
    with pytest.raises(QuizImportError) as caught:
        import_text(text, "opentdb")
    assert caught.value.line == line
    assert message in caught.value.message


ENCODED_ITEMS = [
    result('Who wrote "Hamlet" & more?', "Shakespeare", ["Marlowe", "Jonson", "1+1"]),
    result("Is 2 + 2 = 4?", "True", ["False"]),
]


def _encode(item: dict[str, object], encode: Callable[[str], str]) -> dict[str, object]:
    return {
        key: [encode(v) for v in value] if isinstance(value, list) else encode(str(value))
        for key, value in item.items()
    }


@pytest.mark.parametrize(
    "encode",
    [
        lambda t: base64.b64encode(t.encode()).decode(),
        lambda t: urllib.parse.quote(t, safe="-_.~"),  # encode=url3986
        urllib.parse.quote_plus,  # encode=urlLegacy
    ],
    ids=["base64", "url3986", "urlLegacy"],
)
def test_downloads_in_the_apis_other_encodings_are_decoded(
    encode: Callable[[str], str],
) -> None:
    text = api(*(_encode(item, encode) for item in ENCODED_ITEMS))
    quiz = round_trip(import_text(text, "opentdb"))
    assert [summary(q)[:3] for q in quiz.questions] == [
        (
            'Who wrote "Hamlet" & more?',
            summary(quiz.questions[0])[1],
            "Shakespeare",
        ),
        ("Is 2 + 2 = 4?", ["True", "False"], "True"),
    ]
    assert sorted(summary(quiz.questions[0])[1]) == ["1+1", "Jonson", "Marlowe", "Shakespeare"]
    assert quiz.description is not None
    assert quiz.level == "beginner" and quiz.description.get("en").startswith("General Knowledge")


def test_a_type_that_is_not_text_is_reported() -> None:
    text = api({"type": []}, result("Q?", "x", ["y"]))
    first = import_text(text, "opentdb").problems[0]
    assert first.message == 'result 1 has an unknown type "[]"; skipped'


def test_a_response_code_saved_as_text_is_understood() -> None:
    ok = json.dumps({"response_code": "0", "results": [result("Q?", "x", ["y"])]})
    assert len(round_trip(import_text(ok, "opentdb")).questions) == 1
    with pytest.raises(QuizImportError, match=r"response_code 5 \(rate limit"):
        import_text(json.dumps({"response_code": "5", "results": []}), "opentdb")


def test_lone_surrogates_from_json_escapes_are_reported_not_written() -> None:
    text = api(result("Bad \ud800 text?", "x", ["y"]), result("Good?", "x", ["y"]))
    imported = import_text(text, "opentdb")
    assert "not valid Unicode" in imported.problems[0].message
    assert [q["text"]["en"] for q in imported.quiz["questions"]] == ["Good?"]


def test_results_saved_without_a_type_are_read_by_their_answers() -> None:
    sample = SAMPLES / "no_type.json"
    result_ = import_quiz(sample, "opentdb")
    gold, mars = round_trip(result_).questions
    assert summary(gold)[1:3] == (["True", "False"], "True")
    assert sorted(summary(mars)[1]) == ["Jupiter", "Mars", "Saturn", "Venus"]
    problems = problems_by_line(result_)
    assert problems[line_of(sample, "{", occurrence=4)] == [
        'result 3 has no "type" field, and its answers do not show one (boolean: '
        '"True"/"False"; multiple: a list "incorrect_answers"); skipped'
    ]
    # the same question downloaded twice (a repeated API call) is imported once
    assert problems[line_of(sample, "{", occurrence=5)] == [
        f"the same question as on line {line_of(sample, '{', occurrence=3)}; skipped"
    ]
    assert not any("unknown type" in m for ms in problems.values() for m in ms)


def test_missing_explanations_are_one_line_for_the_whole_download() -> None:
    results = [result(f"Question {n}?", "right", ["w1", "w2"]) for n in range(300)]
    problems = import_text(api(*results), "opentdb").problems
    assert [str(p) for p in problems] == [
        'line 1: 300 questions have no explanation (the source has none); each says "The '
        'answer is: ..." for now'
    ]
