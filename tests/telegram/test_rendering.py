"""Rendering: escaping, splitting long messages at sensible places, poll limits."""

from __future__ import annotations

import html

from hypothesis import given, settings
from hypothesis import strategies as st

from adapters.telegram.polls import MAX_EXPLANATION, plan_poll, shorten_explanation
from adapters.telegram.rendering import (
    esc,
    help_message,
    options_on_buttons,
    plain_text,
    question_message,
    split_html,
    toast,
)
from adapters.telegram.texts import (
    ASSIGNMENT_COMMANDS,
    COMMANDS,
    TEXTS,
    command_descriptions,
)
from bot.i18n import SUPPORTED_LANGUAGES, t
from bot.views import OptionView, QuestionView
from fakes.telegram_bot_api import parse_html


def view(text: str, options: list[str], language: str = "en") -> QuestionView:
    return QuestionView(
        attempt_id=7,
        quiz_id="q",
        quiz_title="Quiz",
        question_id="one",
        number=2,
        total=5,
        text=text,
        options=tuple(OptionView(f"o{i}", "ABCDEFGHIJ"[i], o) for i, o in enumerate(options)),
        language=language,
        rtl=language == "ur",
    )


def test_quiz_text_is_escaped() -> None:
    rendered = question_message(view("<b>x</b> & _y_ *z*", ["a<b", "c&d"]))
    text, entities = parse_html(rendered.html)  # what Telegram would show
    assert "<b>x</b> & _y_ *z*" in text
    assert [e["type"] for e in entities] == ["bold"]
    assert rendered.markup is not None
    labels = [b.text for row in rendered.markup.inline_keyboard for b in row]
    assert labels == ["A. a<b", "B. c&d"]


def test_long_options_are_listed_and_buttons_carry_letters() -> None:
    question = view("Which?", ["short", "a much longer option that would be cut on a phone"])
    assert not options_on_buttons(question)
    rendered = question_message(question)
    assert "B. a much longer option" in plain_text(rendered.html)
    assert rendered.markup is not None
    assert [b.text for row in rendered.markup.inline_keyboard for b in row] == ["A", "B"]
    data = [b.callback_data for row in rendered.markup.inline_keyboard for b in row]
    assert data == ["v1:a:7:2:0", "v1:a:7:2:1"]


def test_split_prefers_paragraphs_then_lines_then_words() -> None:
    paragraphs = ["para one " * 300, "para two " * 300, "para three " * 100]
    chunks = split_html("\n\n".join(paragraphs), limit=4096)
    assert (
        chunks
        == [
            paragraphs[0].strip(),  # cut at the paragraph break, not mid-paragraph
            "\n\n".join(paragraphs[1:]).strip(),
        ]
    )
    lines = "\n".join(["line " * 100] * 20)  # no paragraphs: cut at a line break
    assert all(chunk.endswith("line") for chunk in split_html(lines, limit=1000))


def test_split_keeps_tags_balanced_across_a_cut() -> None:
    text = "<b>" + esc("bold & long " * 800) + "</b>"
    chunks = split_html(text, limit=1000)
    assert len(chunks) > 5
    for chunk in chunks:
        shown, entities = parse_html(chunk)  # valid HTML on its own
        assert len(shown) <= 1000
        assert entities and entities[0]["type"] == "bold"
    assert " ".join(parse_html(c)[0] for c in chunks).split() == ("bold & long " * 800).split()


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["", "b", "i"]),
            st.text(alphabet=st.characters(codec="utf-8"), max_size=300),
        ),
        max_size=30,
    ),
    st.integers(min_value=20, max_value=400),
)
def test_split_never_exceeds_the_limit_and_loses_no_word(
    parts: list[tuple[str, str]], limit: int
) -> None:
    pieces = []
    for tag, text in parts:
        escaped = esc(text)
        tagged = tag and text.strip() and "\n" not in text
        pieces.append(f"<{tag}>{escaped}</{tag}>" if tagged else escaped)
    source = " ".join(pieces)
    chunks = split_html(source, limit)
    for chunk in chunks:
        shown, _ = parse_html(chunk)
        assert len(shown.encode("utf-16-le")) // 2 <= limit
    # Nothing but the whitespace at the cuts is lost.
    expected = "".join(parse_html(source.strip())[0].split())
    assert "".join("".join(parse_html(c)[0].split()) for c in chunks) == expected


def test_poll_plan_within_limits_or_none() -> None:
    question = view("Short question?", ["yes", "no"])
    plan = plan_poll(question, "o1", "Because. " * 50)
    assert plan is not None
    assert plan.question.startswith("Question 2/5")
    assert plan.correct_index == 1
    assert len(plan.explanation) <= MAX_EXPLANATION and not plan.explanation_complete
    assert plan_poll(view("Q?", ["x" * 101, "y"]), "o0", "e") is None
    assert plan_poll(view("Q" * 301, ["x", "y"]), "o0", "e") is None
    assert plan_poll(view("Q?", ["only one"]), "o0", "e") is None


def test_explanations_are_shortened_at_a_word() -> None:
    short, complete = shorten_explanation("Fine as it is.", "en")
    assert (short, complete) == ("Fine as it is.", True)
    text = "word " * 100
    short, complete = shorten_explanation(text, "ur")
    assert not complete and short.endswith("…") and len(short) <= MAX_EXPLANATION
    assert short.lstrip("\u200f").rstrip("…").split() == ["word"] * len(short.split())
    lines, complete = shorten_explanation("a\nb\nc\nd", "en")
    assert not complete and "\n" not in lines


def test_escape_round_trip() -> None:
    assert html.unescape(esc("<&>")) == "<&>"


def test_every_telegram_string_is_in_every_language() -> None:
    for key, by_language in TEXTS.items():
        assert set(by_language) == set(SUPPORTED_LANGUAGES), key
    for language in SUPPORTED_LANGUAGES:
        for command, description in command_descriptions(language):
            menu = (*COMMANDS, *ASSIGNMENT_COMMANDS)
            assert command in menu and 1 <= len(description) <= 256


def test_urdu_commands_stay_whole() -> None:
    text = help_message("ur") + toast(t("not_yours", "ur", name="Asha"))
    assert "/quiz" in text and "/\u2066" not in text
