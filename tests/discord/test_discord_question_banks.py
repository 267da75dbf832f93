"""Question banks on Discord, through discord.py and the fake Discord API: ``/quiz quiz:<id>
tag:<name>`` with the quiz's tags autocompleted, an unknown tag, and a bank's pick."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from adapters.discord.group_rounds import RoundTiming
from bot.catalog import QuizCatalog
from bot.engine import QuizEngine
from bot.i18n import t
from bot.quiz import Quiz
from bot.storage import SQLiteStorage
from fakes.discord_api import AUTOCOMPLETE, FakeDiscord
from fakes.discord_users import (
    GUILD_CHANNEL_ID,
    ClientFactory,
    Player,
    World,
    buttons,
    find_question,
    pick_letter,
    text_of,
    visible,
)
from tests.banks import BANK, BANK_PICK, topic, write_bank
from tests.conftest import FakeClock
from tests.discord.discord_harness import VirtualClock

TIMING = RoundTiming(pause=3.0, edit_interval=5.0, retry=5.0)


@pytest.fixture
def bank(tmp_path: Path) -> QuizCatalog:
    catalog, report = QuizCatalog.from_paths([write_bank(tmp_path / "bank").parent])
    assert not report.errors
    return catalog


@pytest.fixture
async def banked(
    fake_discord: FakeDiscord, bank: QuizCatalog, storage: SQLiteStorage, make_client: ClientFactory
) -> World:
    client = await make_client(QuizEngine(bank, storage, clock=FakeClock()))
    return World(fake_discord, client)


async def tag_choices(
    player: Player, quiz: str | None, typed: str, command: str = "quiz"
) -> list[dict[str, Any]]:
    """Type into ``/quiz``'s (or ``/round``'s) tag option, the quiz option filled in (or
    not) before."""
    options: list[dict[str, Any]] = [{"name": "tag", "type": 3, "value": typed, "focused": True}]
    if quiz is not None:
        options.insert(0, {"name": "quiz", "type": 3, "value": quiz})
    data = {"id": str(player.fake.new_id()), "name": command, "type": 1, "options": options}
    exchange = await player.world.feed(player.payload(AUTOCOMPLETE, data))
    assert exchange.interaction.choices is not None, "no autocomplete answer"
    return exchange.interaction.choices


async def test_the_tag_option_autocompletes_the_chosen_quiz_tags(banked: World) -> None:
    alice = banked.user("Alice", "en-US")
    everything = await tag_choices(alice, BANK, "")
    assert [c["value"] for c in everything] == ["alpha", "beta", "even", "gamma"]
    assert [c["value"] for c in await tag_choices(alice, BANK, "#GA")] == ["gamma"]
    assert [c["value"] for c in await tag_choices(alice, BANK, "e")] == [
        "even",  # those starting with the text first
        "beta",
    ]
    # The only quiz needs no naming; an unknown quiz has no tags to offer.
    assert len(await tag_choices(alice, None, "")) == 4
    assert await tag_choices(alice, "no-such-quiz", "") == []


async def test_a_tag_plays_only_that_topic_drawn_from_the_bank(
    banked: World, bank: QuizCatalog
) -> None:
    quiz = bank.get(BANK)
    assert isinstance(quiz, Quiz)
    alice = banked.user("Alice", "en-US")
    message = (await alice.command("quiz", quiz=BANK, tag="beta")).last
    asked = []
    for number in range(1, BANK_PICK + 1):
        shown = text_of(message)
        assert visible(t("question_progress", "en", number=number, total=BANK_PICK)) in shown
        asked.append(find_question(quiz, message, "en").id)
        letter = pick_letter(quiz, message, "en", correct=True)
        message = (await alice.press_letter(message, letter)).last
    assert len(set(asked)) == BANK_PICK
    assert {topic(int(qid[1:])) for qid in asked} == {"beta"}
    score = t("score", "en", correct=BANK_PICK, total=BANK_PICK, percent=100)
    assert visible(score) in text_of(message)


async def test_an_unknown_tag_gets_the_quiz_tags_and_starts_nothing(
    banked: World, storage: SQLiteStorage
) -> None:
    alice = banked.user("Alice", "en-US")
    exchange = await alice.command("quiz", quiz=BANK, tag="delta")
    assert exchange.notice == (
        '“Question bank” has no questions tagged "delta". Its tags: #alpha, #beta, #even, #gamma'
    )
    assert await storage.active_attempts("discord", str(alice.id)) == []


@pytest.fixture
async def bank_rounds(
    fake_discord: FakeDiscord, bank: QuizCatalog, storage: SQLiteStorage, make_client: ClientFactory
) -> World:
    """The bank's bot with rounds on a virtual clock (as the round tests run them)."""
    clock = VirtualClock()
    fake_discord.stamp = clock
    engine = QuizEngine(bank, storage, clock=clock)
    client = await make_client(engine, clock=clock, round_timing=TIMING)
    return World(fake_discord, client)


async def test_a_round_of_one_topic_and_an_unknown_topic(
    bank_rounds: World, bank: QuizCatalog
) -> None:
    banked = bank_rounds
    quiz = bank.get(BANK)
    assert isinstance(quiz, Quiz)
    host = banked.user("Host", "en-US")
    refused = await host.command("round", quiz=BANK, tag="delta")
    assert 'has no questions tagged "delta"' in refused.notice
    started = await host.command("round", quiz=BANK, seconds=30, tag="gamma")
    assert not started.last.ephemeral  # the announcement
    await banked.settle()
    (question,) = [
        m
        for m in banked.fake.channel_messages(GUILD_CHANNEL_ID)
        if any(str(b["custom_id"]).startswith("qz1:r:") for b in buttons(m))
    ]
    assert visible(t("question_progress", "en", number=1, total=BANK_PICK)) in text_of(question)
    assert topic(int(find_question(quiz, question, "en").id[1:])) == "gamma"
    assert [c["value"] for c in await tag_choices(host, BANK, "g", command="round")] == ["gamma"]
