"""Moodle GIFT: multiple-choice questions, feedback, escapes, and every other type reported."""

from __future__ import annotations

import pytest

from bot.importers import QuizImportError, import_quiz, import_text
from tests.importers.support import SAMPLES, line_of, problems_by_line, round_trip, summary

SAMPLE = SAMPLES / "networking.gift"
SKIPPED = "skipped (only multiple-choice questions with one right answer are imported)"


def test_the_sample_round_trips_with_its_questions_options_answers_and_feedback() -> None:
    quiz = round_trip(import_quiz(SAMPLE, "gift"))
    assert quiz.id == "networking"
    assert quiz.title.get("en") == "Networking"
    assert [q.id for q in quiz.questions] == [
        "tcp-handshake",
        "dns-port",
        "escapes-ipv6",
        "q4",
        "html",
        "missing-word",
    ]
    assert [summary(q) for q in quiz.questions] == [
        (
            "How many messages does the TCP handshake exchange before data flows?",
            ["Three", "Two", "Four"],
            "Three",
            [
                None,
                "That would leave the server without confirmation that its SYN arrived.",
                "Four is the connection teardown (FIN, ACK in each direction), not the handshake.",
            ],
            # the right answer's feedback, then the general feedback (####)
            "SYN, SYN-ACK, ACK.\n\nEach side must send its initial sequence number and see it "
            "acknowledged; the server's SYN and ACK travel together.",
        ),
        (
            "Which port does DNS use by default?",
            ["22", "53", "80", "443"],
            "53",
            ["22 is SSH.", None, "80 is plain HTTP.", "443 is HTTPS."],
            "The answer is: 53.",
        ),
        (
            "In a URL, an IPv6 address such as {2001:db8::1} is written how?",
            [
                "In square brackets, e.g. http://[2001:db8::1]:8080/",
                "As is, e.g. http://2001:db8::1:8080/",
                "With ~ instead of :",
            ],
            "In square brackets, e.g. http://[2001:db8::1]:8080/",
            [
                None,
                "The last colon would be ambiguous: is 8080 a port or part of the address?",
                "There is no such = rule; # and ~ mean nothing special in hosts.",
            ],
            "The brackets separate the address's colons from the port's.",
        ),
        (
            'What does the "S" in HTTPS stand for?',
            ["Simple", "Speedy", "Secure"],
            "Secure",
            [None, None, None],
            "The answer is: Secure.",
        ),
        (
            "Which HTTP status code means Not\u00a0Found?",  # [html]: tags gone, &nbsp; decoded
            ["404", "403", "410"],
            "404",
            [
                None,
                '403 means "Forbidden": the resource exists but you may not see it.',
                '410 means "Gone", a stronger, permanent statement.',
            ],
            "The answer is: 404.",
        ),
        (
            "The _____ protocol guarantees in-order delivery.",  # Moodle's missing-word form
            ["UDP", "TCP", "ICMP"],
            "TCP",
            [None, None, None],
            "The answer is: TCP.",
        ),
    ]


def test_every_skipped_or_incomplete_item_is_reported_with_its_line() -> None:
    problems = problems_by_line(import_quiz(SAMPLE, "gift"))
    expected = {
        "::DNS port::": 'question "dns-port" has no explanation',
        'What does the "S"': 'question "q4" has no explanation',
        "::HTML::": 'question "html" has no explanation',
        "::Missing word::": 'question "missing-word" has no explanation',
        "::Loopback::": f'question "Loopback" is a true/false question; {SKIPPED}',
        "::Short answer::": f'question "Short answer" is a short-answer question; {SKIPPED}',
        "::Numeric::": f'question "Numeric" is a numerical question; {SKIPPED}',
        "::Matching::": f'question "Matching" is a matching question; {SKIPPED}',
        "::Essay::": f'question "Essay" is an essay question; {SKIPPED}',
        "::Weights::": 'question "Weights" has %weights',
        "::Two right::": f'question "Two right" has 2 right answers; {SKIPPED}',
        "The next questions": "text without an answer block",
        "::Unbalanced::": 'question "Unbalanced" has unbalanced braces',
    }
    assert sorted(problems) == sorted(line_of(SAMPLE, needle) for needle in expected)
    for needle, message in expected.items():
        (found,) = problems[line_of(SAMPLE, needle)]
        assert found.startswith(message), (needle, found)


def test_the_stand_in_explanation_restates_the_answer_and_says_what_to_do() -> None:
    (problem,) = import_text("Q? {=Yes ~No}", "gift").problems
    assert problem.message == (
        'question "q1" has no explanation; it says "The answer is: Yes." for now: '
        "write why the answer is right"
    )


@pytest.mark.parametrize(
    ("escaped", "plain"),
    [
        (r"a\:b", "a:b"),
        (r"x \= y", "x = y"),
        (r"\~approx", "~approx"),
        (r"issue \#5", "issue #5"),
        (r"set \{1\}", "set {1}"),
        (r"C\:\\Windows", "C:\\Windows"),
        (r"two\nlines", "two\nlines"),
        (r"a \d stays", r"a \d stays"),  # not a GIFT escape: the backslash is kept
    ],
)
def test_escapes_become_literal_characters_everywhere(escaped: str, plain: str) -> None:
    gift = f"::T {escaped}::Q {escaped}? {{={escaped}#{escaped} ~w {escaped}#{escaped}}}"
    quiz = round_trip(import_text(gift, "gift"))
    (question,) = quiz.questions
    assert summary(question) == (
        f"Q {plain}?",
        [plain, f"w {plain}"],
        plain,
        [None, plain],
        plain,
    )


def test_crlf_bom_comments_and_a_category_on_the_questions_first_line() -> None:
    gift = (
        "\ufeff// header\r\n\r\n$CATEGORY: tom\r\n::One::First? {\r\n// the answers\r\n"
        "=yes#Right.\r\n~no\r\n}\r\n\r\n\r\n::Two::Second? {=a#Because. ~b}\r\n"
    )
    result = import_text(gift, "gift")
    assert result.problems == []
    quiz = round_trip(result)
    assert [(q.id, q.text.get("en")) for q in quiz.questions] == [
        ("one", "First?"),
        ("two", "Second?"),
    ]


def test_a_missing_blank_line_between_questions_is_reported() -> None:
    gift = "::A::One? {=x ~y}\n::B::Two? {=x ~y}\n\n::C::Three? {=x#Why. ~y}"
    result = import_text(gift, "gift")
    assert [str(p) for p in result.problems] == [
        'line 1: question "A" has more than one answer block (is a blank line missing '
        "between two questions?); skipped"
    ]
    assert [q["id"] for q in result.quiz["questions"]] == ["c"]


def test_ids_come_from_titles_when_they_can_and_never_repeat() -> None:
    gift = "\n\n".join(
        [
            "::Same title::A? {=x#. ~y}",
            "::Same title::B? {=x#. ~y}",
            "::Заголовок::C? {=x#. ~y}",  # nothing ASCII is left: numbered instead
            "::q4::D? {=x#. ~y}",
            "E? {=x#. ~y}",
        ]
    )
    ids = [q["id"] for q in import_text(gift, "gift").quiz["questions"]]
    assert ids == ["same-title", "same-title-2", "q3", "q4", "q5"]


def test_more_than_ten_options_are_reported_not_written() -> None:
    answers = " ".join(f"~{n}" for n in range(11))
    result = import_text(f"Pick? {{=right {answers}}}\n\nOK? {{=a#. ~b}}", "gift")
    assert [str(p) for p in result.problems] == [
        "line 1: question has 12 options; a quiz question needs 2 to 10; skipped"
    ]


def test_weights_of_100_and_0_are_an_ordinary_question() -> None:
    quiz = round_trip(import_text("Q? {~%0%a ~%100%b#Yes. =%0%c}", "gift"))
    assert summary(quiz.questions[0])[1:3] == (["a", "b", "c"], "b")


def test_a_file_without_any_multiple_choice_question_cannot_be_imported() -> None:
    with pytest.raises(QuizImportError) as caught:
        import_text("// only this\n\n::TF::Sky is blue {T}\n\n::E::Essay {}", "gift")
    assert caught.value.line == 3
    assert "no question could be imported (2 problems reported)" in str(caught.value)
    assert [p.line for p in caught.value.problems] == [3, 5]
