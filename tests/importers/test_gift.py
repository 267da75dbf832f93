"""Moodle GIFT: multiple-choice questions, feedback, escapes, and every other type reported."""

from __future__ import annotations

import pytest

from bot.importers import QuizImportError, import_quiz, import_text
from tests.importers.support import SAMPLES, line_of, problems_by_line, round_trip, summary

SAMPLE = SAMPLES / "networking.gift"
SKIPPED = (
    "skipped (only multiple-choice, true/false and short-answer questions with one right "
    "answer or full-credit answers are imported)"
)


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
        "loopback",
        "short-answer",
    ]
    assert quiz.shuffle.options and not quiz.shuffle.questions  # the author placed the answers
    *choices, short_answer = quiz.questions
    assert short_answer.kind == "typed"  # {=ARP =Address Resolution Protocol}
    assert short_answer.answers is not None
    assert short_answer.answers.get("en") == ("ARP", "Address Resolution Protocol")
    assert [summary(q) for q in choices] == [
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
        (
            "127.0.0.1 is a loopback address.",  # true/false: as Open Trivia DB booleans
            ["True", "False"],
            "True",
            [None, "It is."],
            "Yes: all of 127.0.0.0/8 is loopback.",
        ),
    ]


def test_every_skipped_or_incomplete_item_is_reported_with_its_line() -> None:
    problems = problems_by_line(import_quiz(SAMPLE, "gift"))
    expected = {
        "::DNS port::": 'question "dns-port" has no explanation',
        'What does the "S"': 'question "q4" has no explanation',
        "::HTML::": 'question "html" has no explanation',
        "::Missing word::": 'question "missing-word" has no explanation',
        "::Numeric::": f'question "Numeric" is a numerical question; {SKIPPED}',
        "::Matching::": f'question "Matching" is a matching question; {SKIPPED}',
        "::Essay::": f'question "Essay" is an essay question; {SKIPPED}',
        "::Weights::": 'question "Weights" has %weights but no full-credit answer',
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
        import_text("// only this\n\n::N::How many? {#3}\n\n::E::Essay {}", "gift")
    assert caught.value.line == 3
    assert "no question could be imported (2 problems reported)" in str(caught.value)
    assert [p.line for p in caught.value.problems] == [3, 5]


@pytest.mark.parametrize(
    ("answers", "correct", "notes", "explanation"),
    [
        ("T", "True", [None, None], "The answer is: True."),
        ("FALSE", "False", [None, None], "The answer is: False."),
        ("F#No, it is.#Right, it is not.", "False", ["No, it is.", None], "Right, it is not."),
        ("TRUE####Always.", "True", [None, None], "Always."),
    ],
)
def test_true_false_questions_have_true_and_false_options(
    answers: str, correct: str, notes: list[str | None], explanation: str
) -> None:
    (question,) = round_trip(import_text(f"::TF::Is it? {{{answers}}}", "gift")).questions
    assert summary(question) == ("Is it?", ["True", "False"], correct, notes, explanation)


def test_format_markers_are_stripped_from_options_and_feedback_too() -> None:
    gift = (
        "::M::[markdown]Which **one**? {\n=[plain]Right#[html]<i>Because</i> it is.\n"
        "~[moodle]Wrong#[plain]Not <this>.\n####[html]<p>General</p>}"
    )
    (question,) = round_trip(import_text(gift, "gift")).questions
    assert summary(question) == (
        "Which one?",  # [markdown]: the emphasis marks are not shown as stars
        ["Right", "Wrong"],
        "Right",
        [None, "Not <this>."],  # [plain]: angle brackets are text
        "Because it is.\n\nGeneral",
    )


def test_html_becomes_the_text_a_reader_sees() -> None:
    gift = (
        "::H::[html]<p>Tom &amp; Jerry&#39;s <!-- a note for teachers --><b>best</b>"
        "<br>episode?</p><script>alert(1)</script>{=<span>Yes &lt;3</span> ~No}"
    )
    result = import_text(gift, "gift")
    (question,) = round_trip(result).questions
    assert summary(question)[:2] == ("Tom & Jerry's best\nepisode?", ["Yes <3", "No"])


def test_moodle_exports_without_a_marker_are_html_too_but_plain_text_is_left_alone() -> None:
    gift = "<p>What is 2 &lt; 3?</p>{=true ~false}\n\nIs a < b and c > d? {=yes ~no}"
    questions = round_trip(import_text(gift, "gift")).questions
    assert [q.text.get("en") for q in questions] == ["What is 2 < 3?", "Is a < b and c > d?"]


def test_dropped_images_and_links_are_reported_and_alt_text_kept() -> None:
    gift = (
        '::Flag::[html]<p>Whose flag is this? <img src="@@PLUGINFILE@@/flag.png" alt="flag">'
        ' See <a href="https://example.org/flags">the list</a>.</p>{=France#Yes. ~Italy}'
    )
    result = import_text(gift, "gift")
    (question,) = round_trip(result).questions
    assert question.text.get("en") == "Whose flag is this? [flag] See the list."
    assert [str(p) for p in result.problems] == [
        'line 1: an image ("@@PLUGINFILE@@/flag.png") was dropped: check that the question '
        "still makes sense",
        'line 1: a link to "https://example.org/flags" was dropped (its text is kept): check '
        "that the question still makes sense",
    ]


def test_pre_keeps_its_indentation() -> None:
    gift = (
        "::Code::[html]<p>What does this print?</p>\n<pre>for i in range(2):\n"
        "    print(i)\n</pre>{=0 and 1#Yes. ~1 and 2}"
    )
    (question,) = round_trip(import_text(gift, "gift")).questions
    assert question.text.get("en") == "What does this print?\n\nfor i in range(2):\n    print(i)"


@pytest.mark.parametrize(
    ("gift", "text"),
    [
        ("The capital of France is {=Paris ~Lyon}.", "The capital of France is _____."),
        ("Is {=Paris ~Lyon}, or not?", "Is _____, or not?"),
        ("The {=Seine ~Loire} flows through Paris.", "The _____ flows through Paris."),
    ],
)
def test_a_blank_has_no_space_before_trailing_punctuation(gift: str, text: str) -> None:
    (question,) = round_trip(import_text(gift, "gift")).questions
    assert question.text.get("en") == text


def test_html_the_parser_cannot_read_is_kept_as_written_and_reported() -> None:
    result = import_text("::X::[html]<![foo[ x ]]> Q? {=a#Why. ~b}", "gift")
    (question,) = round_trip(result).questions
    assert question.text.get("en") == "<![foo[ x ]]> Q?"
    assert [str(p) for p in result.problems] == [
        "line 1: HTML that could not be read was kept as written: check that the question "
        "still makes sense"
    ]


def test_a_right_answer_written_after_a_tilde_is_read_as_moodle_reads_it() -> None:
    # "~=Paris": Moodle splits at "~" and at "=", and drops the empty answer between them.
    sample = SAMPLES / "tilde_equals.gift"
    result = import_quiz(sample, "gift")
    assert not any("empty" in p.message for p in result.problems)
    quiz = round_trip(result)
    assert [summary(q)[1:3] for q in quiz.questions] == [
        (["Paris", "Lyon", "Marseille"], "Paris"),
        (["Danube", "Volga", "Rhine"], "Volga"),
        (["Pacific", "Atlantic", "Indian"], "Pacific"),
    ]
    assert summary(quiz.questions[0])[3:] == (
        [None, "Lyon is the third-largest city.", None],
        "Yes, since the 10th century.",
    )


def test_short_answers_become_typed_questions_and_partial_credit_wrong_options() -> None:
    sample = SAMPLES / "short_answers.gift"
    result = import_quiz(sample, "gift")
    four, little, capital, planet = round_trip(result).questions
    assert (four.kind, four.answers and four.answers.get("en")) == ("typed", ("four", "4"))
    assert little.kind == "typed" and little.answers and little.answers.get("en") == ("little",)
    assert little.explanation.get("en") == "Mice weigh about 20 g."
    # one full-credit answer and a partial one: a choice between them, the partial one wrong
    assert capital.kind == "choice"
    assert summary(capital)[1:4] == (
        ["Canberra", "Sydney"],
        "Canberra",
        [None, "Sydney is the largest city, not the capital."],
    )
    # several full-credit answers: typed, the partial-credit one is not accepted
    assert planet.answers and planet.answers.get("en") == ("Jupiter", "jupiter planet")
    problems = problems_by_line(result)
    assert problems[line_of(sample, "::Capital::")][0] == (
        'question "Capital": 1 partial-credit answer is a wrong option here '
        "(a quiz answer is right or wrong)"
    )
    assert problems[line_of(sample, "::Spellings::")] == [
        'question "Spellings": 1 partial-credit answer was left out '
        "(a typed answer is right or wrong)"
    ]


def test_one_full_credit_choice_with_partial_ones_keeps_them_as_wrong_options() -> None:
    gift = "::W::Which are even? {=2#Yes. ~%50%4 ~%-50%3}"
    result = import_text(gift, "gift")
    (question,) = round_trip(result).questions
    assert summary(question)[1:3] == (["2", "4", "3"], "2")
    assert [str(p) for p in result.problems] == [
        'line 1: question "W": 1 partial-credit answer is a wrong option here '
        "(a quiz answer is right or wrong)"
    ]


def test_questions_nobody_can_answer_are_reported_and_repeated_wrong_options_dropped() -> None:
    sample = SAMPLES / "duplicates.gift"
    result = import_quiz(sample, "gift")
    problems = problems_by_line(result)
    assert problems[line_of(sample, "::Copied right answer::")] == [
        'the right answer "Carbon dioxide" is also option 3, a wrong one: nobody can tell '
        "which to pick; skipped"
    ]
    assert problems[line_of(sample, "::All the same::")] == [
        'all 3 options read "Yes": nobody can tell the right one; skipped'
    ]
    assert problems[line_of(sample, "::Repeated wrong::")][0] == (
        "option 3 repeats option 2; it was left out"
    )
    (question,) = round_trip(result).questions
    assert summary(question)[1:3] == (["Mercury", "Venus", "Mars"], "Mercury")


def test_latex_braces_get_a_hint_about_escaping_not_about_a_blank_line() -> None:
    sample = SAMPLES / "latex.gift"
    result = import_quiz(sample, "gift")
    assert problems_by_line(result)[line_of(sample, "::Square::")] == [
        'question "Square" has braces in its text: write \\{ and \\} there (as LaTeX needs '
        "them); skipped"
    ]
    (question,) = round_trip(result).questions
    assert question.text.get("en") == "What is \\( x^{2} \\) for \\( x = 4 \\)?"


def test_markdown_texts_lose_their_marks_and_report_links() -> None:
    sample = SAMPLES / "markdown.gift"
    result = import_quiz(sample, "gift")
    bold, marks = round_trip(result).questions
    assert bold.text.get("en") == "Which is not a primary colour?"
    assert summary(marks)[:2] == (
        "What does ls do in a Unix shell? See the manual.",
        ["Lists files", "Deletes files", "Prints 2 * 3"],
    )
    assert problems_by_line(result)[line_of(sample, "::Marks::")][0] == (
        'a link to "https://man7.org/linux/man-pages/man1/ls.1.html" was dropped (its text '
        "is kept): check that the question still makes sense"
    )


def test_a_title_with_a_line_break_is_quoted_in_its_message() -> None:
    (problem,) = import_text("::Two\\nlines::Numbers? {#32}\n\nQ? {=a#. ~b}", "gift").problems
    assert str(problem) == f'line 1: question "Two\\nlines" is a numerical question; {SKIPPED}'


def test_answers_without_a_mark_and_a_missing_word_short_answer_are_typed_too() -> None:
    # Moodle reads "{four}" (no "~") as a short answer whose one answer is full credit.
    gift = "Two plus two? {four}\n\nThe {=Seine =la Seine} flows through Paris."
    four, seine = round_trip(import_text(gift, "gift")).questions
    assert (four.kind, four.answers and four.answers.get("en")) == ("typed", ("four",))
    assert seine.text.get("en") == "The _____ flows through Paris."
    assert seine.answers and seine.answers.get("en") == ("Seine", "la Seine")
