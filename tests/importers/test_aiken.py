"""Aiken: questions, A. / A) options and ANSWER lines; every malformed block is reported."""

from __future__ import annotations

import pytest

from bot.importers import QuizImportError, import_quiz, import_text
from tests.importers.support import SAMPLES, line_of, problems_by_line, round_trip, summary

SAMPLE = SAMPLES / "http.txt"


def test_the_sample_round_trips_with_its_questions_options_and_answers() -> None:
    quiz = round_trip(import_quiz(SAMPLE, "aiken", quiz_id="http-basics"))
    assert quiz.id == "http-basics"
    assert quiz.title.get("en") == "Http basics"
    assert [(q.id, *summary(q)[:3]) for q in quiz.questions] == [
        ("q1", 'Which HTTP status code means "Not Found"?', ["200", "301", "404", "500"], "404"),
        ("q2", "Which method is idempotent by definition?", ["POST", "PUT", "PATCH"], "PUT"),
        (
            "q3",
            "What does TLS stand for?\nPick the expansion used in the RFCs.",
            ["Transport Layer Security", "Total Link Safety", "Trusted Line Service"],
            "Transport Layer Security",
        ),
        (
            "q4",
            "Which HTTP version introduced multiplexed streams?",
            ["HTTP/1.0", "HTTP/1.1", "HTTP/2"],
            "HTTP/2",
        ),
    ]
    assert all(summary(q)[3] == [None] * len(q.options) for q in quiz.questions)  # no notes
    assert quiz.questions[0].explanation.get("en") == "The answer is: 404."


def test_every_malformed_block_is_reported_with_its_line() -> None:
    problems = problems_by_line(import_quiz(SAMPLE, "aiken"))
    malformed = {
        line_of(SAMPLE, "Which request header"): [
            "question has no ANSWER: line after its options; skipped"
        ],
        line_of(SAMPLE, "ANSWER: E"): [
            "ANSWER: E is not one of the options (A, B); question skipped"
        ],
        line_of(SAMPLE, "ANSWER: A or B"): [
            'ANSWER must name one option letter, as in "ANSWER: B", not "A or B"; question skipped'
        ],
        line_of(SAMPLE, "An option without"): [
            "options without a question line before them; skipped"
        ],
        line_of(SAMPLE, "ANSWER: B", occurrence=2): [
            "ANSWER line without a question before it; ignored"
        ],
    }
    for line, messages in malformed.items():
        assert problems[line] == messages, line
    # Aiken never has explanations: one line for the file, not one per question
    explained = {line: messages for line, messages in problems.items() if line not in malformed}
    assert explained == {
        line_of(SAMPLE, "Which HTTP status code"): [
            "4 questions have no explanation (the source has none); each says "
            '"The answer is: ..." for now'
        ]
    }


def test_windows_line_endings_and_a_missing_answer_at_the_end() -> None:
    text = "Q1?\r\nA. x\r\nB. y\r\nANSWER: A\r\n\r\nQ2?\r\nA. x\r\nB. y\r\n"
    result = import_text(text, "aiken")
    assert [str(p) for p in result.problems][1:] == [
        "line 6: question has no ANSWER: line after its options; skipped"
    ]
    assert len(result.quiz["questions"]) == 1


def test_duplicate_letters_and_a_single_option_are_reported() -> None:
    text = "Q1?\nA. x\nA. y\nANSWER: A\n\nQ2?\nA. only\nANSWER: A\n\nQ3?\nA. x\nB. y\nANSWER: B"
    problems = [str(p) for p in import_text(text, "aiken").problems]
    assert problems[:2] == [
        "line 3: option letter A is used twice; question skipped",
        "line 6: question has 1 options; a quiz question needs 2 to 10; skipped",
    ]


def test_text_that_is_no_aiken_at_all_cannot_be_imported() -> None:
    with pytest.raises(QuizImportError, match="no question could be imported"):
        import_text("Just some prose.\nNothing here.", "aiken")


def test_options_without_a_space_after_the_parenthesis_as_moodle_reads_them() -> None:
    text = (
        "Is the sky blue?\nA)Yes\nB)No\nC) Sometimes\nANSWER: A\n\n"
        "Who wrote it?\nA.Smith\nB. Jones\nANSWER: B"
    )
    result = import_text(text, "aiken")
    quiz = round_trip(result)
    assert [o.text.get("en") for o in quiz.questions[0].options] == ["Yes", "No", "Sometimes"]
    assert [o.text.get("en") for o in quiz.questions[1].options] == ["Smith", "Jones"]
    assert [str(p) for p in result.problems if "skipped" in p.message] == []


def test_a_question_starting_like_an_abbreviation_is_not_an_option() -> None:
    text = "U.S. state with the most people?\nA.California\nB.Texas\nANSWER: A"
    (question,) = round_trip(import_text(text, "aiken")).questions
    assert question.text.get("en") == "U.S. state with the most people?"
    assert [o.text.get("en") for o in question.options] == ["California", "Texas"]


def test_the_options_are_shuffled_since_the_author_put_the_answer_first() -> None:
    text = "\n\n".join(f"Q{n}?\nA. right {n}\nB. wrong {n}\nANSWER: A" for n in range(3))
    quiz = round_trip(import_text(text, "aiken"))
    assert quiz.shuffle.options and not quiz.shuffle.questions
    assert import_text(text, "aiken").quiz["shuffle"] == {"options": True}


def test_a_question_asked_twice_is_reported_and_an_exact_repeat_skipped() -> None:
    sample = SAMPLES / "repeated.txt"
    result = import_quiz(sample, "aiken")
    problems = problems_by_line(result)
    first, port = line_of(sample, "What does HTTP"), line_of(sample, "Which port")
    assert problems[line_of(sample, "What does HTTP", occurrence=2)] == [
        f"the same question as on line {first}; skipped"
    ]
    assert problems[line_of(sample, "Which port", occurrence=2)] == [
        f"the question on line {port} has the same text with other answers; both are kept: "
        "check which is right"
    ]
    assert len(round_trip(result).questions) == 3
