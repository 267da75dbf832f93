"""Fuzzed quiz files: whatever an author (or an attacker) writes ends in a clear message."""

from __future__ import annotations

import os
import string

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bot.quiz_loader import load_quiz_text
from tests.conftest import QUIZ_DIR, SEED_QUIZ

SEED_LINES = (QUIZ_DIR / f"{SEED_QUIZ}.yaml").read_text(encoding="utf-8").splitlines()
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def check(text: str) -> None:
    report = load_quiz_text(text, "quizzes/fuzz.yaml", "fuzz")
    lines = text.count("\n") + 2
    for problem in report.errors + report.warnings:
        assert problem.path == "quizzes/fuzz.yaml"
        assert 1 <= problem.line <= lines, problem
        assert problem.message
        assert len(str(problem).splitlines()) == 1, problem  # the one-line path:line: format
    assert bool(report.quizzes) != bool(report.errors)


mutation = st.sampled_from(["delete", "duplicate", "swap", "replace", "indent", "dedent"])


@FUZZ
@given(st.lists(st.tuples(mutation, st.integers(0, len(SEED_LINES) - 1), st.text(max_size=20))))
def test_mutations_of_the_seed_quiz_never_crash_the_loader(edits):
    lines = list(SEED_LINES)
    for kind, index, text in edits:
        index %= len(lines) or 1
        if not lines:
            break
        if kind == "delete":
            del lines[index]
        elif kind == "duplicate":
            lines.insert(index, lines[index])
        elif kind == "swap":
            other = (index * 7 + 3) % len(lines)
            lines[index], lines[other] = lines[other], lines[index]
        elif kind == "replace":
            lines[index] = text
        elif kind == "indent":
            lines[index] = "  " + lines[index]
        else:
            lines[index] = lines[index].lstrip()
    check("\n".join(lines))


yaml_scalar = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=30)
)
yaml_value = st.recursive(
    yaml_scalar,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.text(string.ascii_lowercase, max_size=8), children, max_size=4),
    ),
    max_leaves=20,
)


@FUZZ
@given(
    st.dictionaries(
        st.sampled_from(
            [
                "title",
                "questions",
                "languages",
                "shuffle",
                "level",
                "default_language",
                "id",
                "guide",
                "x",
            ]
        ),
        yaml_value,
    )
)
@example({"languages": ["\n"]})  # found by Hypothesis: a two-line message failed CI at random
@example({"default_language": "\n", "title": {"\u2028": "x"}, "level": "a\rb", "x": None})
# Found by Hypothesis: YAML counts U+0085 as a line break, so "line 8" of a 5-line file.
@example({"title": None, "questions": "\x85", "languages": ["\x85", "\x85"]})
def test_documents_of_the_wrong_shape_get_messages(document):
    import yaml

    check(yaml.safe_dump(document, allow_unicode=True))


@FUZZ
@given(st.text(max_size=400))
def test_arbitrary_text_never_crashes_the_loader(text):
    check(text)


def test_deep_nesting_and_huge_strings_are_reported_not_crashing():
    check("title: " + "[" * 100_000)
    check("title:\n  en: " + "x" * 20_000 + "\nquestions: []\n")
    report = load_quiz_text("title:\n  en: " + "x" * 20_000 + "\n", "q.yaml", "q")
    assert any("the limit is 10000" in e.message for e in report.errors)


def test_date_like_text_is_text_not_a_crash():
    report = load_quiz_text(
        "title: 2001-13-01\nquestions:\n  - id: q\n    correct: a\n    text: 2024-01-01\n"
        "    options: [{id: a, text: '1'}, {id: b, text: '2'}]\n    explanation: x\n",
        "q.yaml",
        "q",
    )
    assert report.errors == []
    assert report.quizzes[0].title.get("en") == "2001-13-01"
    check("title: !!timestamp 2001-13-01\n")


def test_deep_block_nesting_is_refused_with_its_line():
    text = "title:\n" + "".join("  " * i + "a:\n" for i in range(1, 60))
    report = load_quiz_text(text, "deep.yaml", "deep")
    (error,) = report.errors
    assert error.line == 51 and "nesting deeper than 50 levels" in error.message


# Values that an author controls, drawn from the characters that end a line for
# str.splitlines() or a terminal, with quotes and backslashes that quoting must escape.
BREAKS = '\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029\t"\\ \ud800'
user_value = st.one_of(
    st.text(alphabet=BREAKS + "enrux-1", max_size=6),
    st.sampled_from(["en", "ru", "a", "q1", "typed", "choice"]),
    st.integers(-2, 2),
)
localized = st.one_of(user_value, st.dictionaries(user_value, user_value, max_size=3))
option = st.fixed_dictionaries({"id": user_value, "text": localized}, optional={"note": localized})
question = st.fixed_dictionaries(
    {"id": user_value, "text": localized},
    optional={
        "kind": user_value,
        "correct": user_value,
        "options": st.lists(option, max_size=3),
        "answers": st.one_of(
            st.lists(user_value, max_size=3),
            st.dictionaries(user_value, st.lists(user_value, max_size=2), max_size=2),
        ),
        "explanation": localized,
        "hint": user_value,
    },
)
quiz_document = st.fixed_dictionaries(
    {"title": localized, "questions": st.lists(question, max_size=3)},
    optional={
        "id": user_value,
        "default_language": user_value,
        "languages": st.lists(user_value, max_size=3),
        "level": user_value,
        "guide": user_value,
        "shuffle": st.one_of(user_value, st.dictionaries(user_value, user_value, max_size=2)),
    },
)


@FUZZ
@given(document=quiz_document, path=st.text(alphabet=BREAKS + "ab/.", min_size=1, max_size=8))
@example(document={"title": "t", "languages": ["\n"], "questions": []}, path="q.yaml")
def test_every_message_about_user_values_is_exactly_one_line(document, path):
    import yaml

    text = yaml.safe_dump(document, allow_unicode=True)
    report = load_quiz_text(text, path, "fuzz")
    for problem in report.errors + report.warnings:
        shown = str(problem)
        assert len(shown.splitlines()) == 1, shown
        shown.encode("utf-8")  # printable: no lone surrogates left to crash a terminal
    assert bool(report.quizzes) != bool(report.errors)


def test_ci_runs_the_property_tests_on_fixed_examples() -> None:
    """With CI set (CI sets CI=true) a red build is reproducible: no random seed, no
    example database carried between runs."""
    ci = settings.get_profile("ci")
    assert ci.derandomize and ci.database is None and ci.print_blob
    assert settings.default is not None
    assert settings.default.derandomize == bool(os.environ.get("CI"))
