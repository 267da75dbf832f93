"""Long texts stay within Discord's limits: split, never cut, in either direction."""

from __future__ import annotations

import re
from pathlib import Path

import discord
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from adapters.discord.adapter import QuizClient
from adapters.discord.rendering import (
    DESCRIPTION_LIMIT,
    FIELD_VALUE_LIMIT,
    Section,
    pack,
    split_text,
    truncate,
)
from bot.catalog import QuizCatalog
from bot.engine import QuizEngine
from bot.storage import SQLiteStorage
from bot.text_direction import LRI, PDI, RLM, paragraph, prepare, strip_controls
from fakes.discord_api import UPDATE_MESSAGE, FakeDiscord, Message, check_message
from fakes.discord_users import (
    ClientFactory,
    World,
    buttons,
    field_values,
    squash,
    text_of,
    visible,
)
from tests.conftest import FakeClock

LATIN = "Adam moments, RNG state and the data_loader *position* "
URDU = "یہ جملہ optimizer state اور RNG کے بارے میں ہے، اور `data_loader` بھی۔ "


def long_text(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size].strip()


def long_quiz() -> dict[str, object]:
    """A quiz at the loader's limits: a 6000-character question with ten 900-character
    options, a 9900-character explanation, 3000-character notes; in English and Urdu."""

    def both(size: int, tag: str) -> dict[str, str]:
        return {"en": f"{tag} " + long_text(LATIN, size), "ur": f"{tag} " + long_text(URDU, size)}

    options: list[dict[str, object]] = [
        {"id": f"o{n}", "text": both(900, f"option{n}")} for n in range(10)
    ]
    for option in options:
        if option["id"] != "o3":
            option["note"] = both(3000, f"note-{option['id']}")
    short = [
        {"id": "a", "text": {"en": "Yes", "ur": "ہاں"}},
        {"id": "b", "text": {"en": "No", "ur": "نہیں"}},
    ]
    return {
        "id": "long",
        "default_language": "en",
        "languages": ["en", "ur"],
        "shuffle": {"questions": False, "options": True},
        "title": both(200, "Long"),
        "questions": [
            {
                "id": "giant",
                "correct": "o3",
                "text": both(6000, "question"),
                "options": options,
                "explanation": both(9900, "because"),
            },
            {
                "id": "small",
                "correct": "a",
                "text": {"en": "Done?", "ur": "ختم؟"},
                "options": short,
                "explanation": {"en": "Yes.", "ur": "جی ہاں۔"},
            },
        ],
    }


@pytest.fixture
async def long_world(
    fake_discord: FakeDiscord, tmp_path: Path, storage: SQLiteStorage, make_client: ClientFactory
) -> World:
    directory = tmp_path / "long"
    directory.mkdir()
    (directory / "long.yaml").write_text(
        yaml.safe_dump(long_quiz(), allow_unicode=True), encoding="utf-8"
    )
    catalog, report = QuizCatalog.from_paths([directory])
    assert not report.errors, report.errors
    client = await make_client(QuizEngine(catalog, storage, clock=FakeClock()))
    return World(fake_discord, client)


def texts(message: Message) -> list[str]:
    found = []
    for embed in message.embeds:
        found += [embed.get("title") or "", embed.get("description") or ""]
        found += [f["name"] for f in embed.get("fields") or []]
        found += [f["value"] for f in embed.get("fields") or []]
    return [t for t in found if t]


@pytest.mark.parametrize("language", ["en", "ur"])
async def test_a_quiz_at_the_limits_plays_through(long_world: World, language: str) -> None:
    assert isinstance(long_world.client, QuizClient)
    quiz = long_world.client.engine.catalog.get("long")
    assert quiz is not None
    giant = quiz.question("giant")
    assert giant is not None
    player = long_world.user("Ali", "en-US")
    await player.command("language", language=language)
    started = await player.command("quiz", quiz="long")
    pages = started.new_messages
    assert len(pages) > 1  # too long for one message: continued in followups
    shown = squash("".join(t for m in pages for t in texts(m)))
    assert squash(giant.text.get(language)) in shown
    for option in giant.options:
        assert squash(option.text.get(language)) in shown
    question = pages[-1]
    assert len(buttons(question)) == 10 and len(question.components) == 5
    assert all(len(b["label"]) == 1 for b in buttons(question))  # too long: letters only
    letters = dict(re.findall(r"([A-J])\. option(\d) ", visible("\n".join(map(text_of, pages)))))
    assert len(letters) == 10
    wrong = next(letter for letter, n in letters.items() if n != "3")  # o3 is correct
    pressed = await player.press_letter(question, wrong)
    assert pressed.response_type == UPDATE_MESSAGE
    feedback = [long_world.fake.messages[question.id], *pressed.new_messages[:-1]]
    values = squash(field_values(*feedback))
    assert squash(giant.explanation.get(language)) in values
    picked, right = giant.option(f"o{letters[wrong]}"), giant.option("o3")
    assert picked is not None and picked.note is not None and right is not None
    assert squash(picked.note.get(language)) in values  # why that option is wrong, in full
    assert squash(right.text.get(language)) in values
    for message in [*pages, *feedback]:
        assert check_message({"embeds": message.embeds}, creating=True) == []
        if language == "ur":  # every piece reads right to left, isolates balanced
            for text in texts(message):
                assert text.startswith(RLM), text[:40]
                assert text.count(LRI) == text.count(PDI), text[:40]


def raw(text: str) -> str:
    """The characters of a text, ignoring whitespace and direction marks (what splitting
    may add or remove)."""
    return "".join(strip_controls(text).split())


def check_pages(pages: list[list[discord.Embed]]) -> None:
    for page in pages:
        assert 1 <= len(page) <= 10
        assert sum(len(e) for e in page) <= 6000
        assert check_message({"embeds": [e.to_dict() for e in page]}, creating=True) == []


words = st.text(
    alphabet=st.sampled_from([*"abcdefghij ABC\n.-_*", "ب", "ی", "ہ", "।"]),
    min_size=0,
    max_size=3000,
)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    descriptions=st.lists(words, max_size=3),
    fields=st.lists(st.tuples(st.text(min_size=1, max_size=300), words), max_size=8),
    rtl=st.booleans(),
    multiplier=st.integers(min_value=1, max_value=6),
)
def test_pack_keeps_every_character_within_the_limits(
    descriptions: list[str], fields: list[tuple[str, str]], rtl: bool, multiplier: int
) -> None:
    language = "ur" if rtl else "en"
    sections = [
        Section(paragraph(prepare(d * multiplier, language), language)) for d in descriptions
    ]
    sections += [
        Section(paragraph(prepare(v * multiplier, language), language), name.strip() or "x")
        for name, v in fields
    ]
    pages = pack(sections, colour=discord.Colour.blue(), title="T" * 300, author="A" * 300, rtl=rtl)
    check_pages(pages)
    body = "".join(
        (e.description or "") + "".join(str(f.value) for f in e.fields)
        for page in pages
        for e in page
    )
    expected = "".join(s.text for s in sections)
    assert raw(body) == raw(expected)


@settings(deadline=None, derandomize=True)
@given(st.text(max_size=5000), st.integers(min_value=10, max_value=1100), st.booleans())
def test_split_text_pieces_fit(text: str, limit: int, rtl: bool) -> None:
    pieces = split_text(text, limit, rtl=rtl)
    assert all(0 < len(p) <= limit for p in pieces)
    assert raw("".join(pieces)) == raw(text)


def test_split_prefers_paragraphs_then_lines_then_words() -> None:
    text = "a" * 50 + "\n\n" + "b" * 30 + "\n" + "c " * 20
    assert split_text(text, 60) == ["a" * 50, "b" * 30, ("c " * 20).strip()]
    assert split_text("one two three. four five", 16) == ["one two three.", "four five"]
    assert split_text("x" * 10, DESCRIPTION_LIMIT) == ["x" * 10]
    assert len(split_text("y" * 3000, FIELD_VALUE_LIMIT)) == 3


def test_truncate_marks_the_cut_and_closes_isolates() -> None:
    assert truncate("short", 10) == "short"
    cut = truncate(f"{LRI}{'x' * 20}{PDI}", 10)
    assert len(cut) <= 10 and cut.endswith("…") and cut.count(LRI) == cut.count(PDI)


@pytest.mark.parametrize("rtl", [False, True])
def test_pack_spreads_a_lot_of_text_over_embeds_and_messages(rtl: bool) -> None:
    language = "ur" if rtl else "en"
    unit = URDU if rtl else LATIN
    sections = [Section(paragraph(prepare(long_text(unit, 9000), language), language))] * 2
    sections += [
        Section(paragraph(prepare(long_text(unit, 2500), language), language), f"Field {n}")
        for n in range(40)
    ]
    pages = pack(sections, colour=discord.Colour.blue(), title="Title", rtl=rtl)
    check_pages(pages)
    assert len(pages) > 10
    embeds = [e for page in pages for e in page]
    names = [f.name for e in embeds for f in e.fields]
    assert names[:3] == ["Field 0 (1/3)", "Field 0 (2/3)", "Field 0 (3/3)"]
    body = "".join((e.description or "") + "".join(str(f.value) for f in e.fields) for e in embeds)
    assert raw(body) == raw("".join(s.text for s in sections))
