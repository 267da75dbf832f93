"""Explanations with images on Discord, through discord.py and the fake Discord: the answer's
edit attaches the explanation's image (keeping the question's file) and shows it at the end of
the feedback, in an embed of its own when the question's picture is there already; a typed
answer's feedback does the same; a round's reveal carries it as a file shown in its embed."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from adapters.discord.group_rounds import RoundTiming
from bot.catalog import QuizCatalog
from bot.engine import QuizEngine
from bot.image_files import sha256_of
from bot.quiz import Quiz
from bot.storage import SQLiteStorage
from fakes.discord_api import UPDATE_MESSAGE, FakeDiscord, Message
from fakes.discord_users import (
    GUILD_CHANNEL_ID,
    ClientFactory,
    World,
    buttons,
    pick_letter,
    text_of,
)
from tests.daily_harness import at, streak
from tests.discord.discord_harness import VirtualClock, uploads, world_on
from tests.discord.test_discord_daily import open_channel
from tests.images import EXPLAINED, LONG_EXPLANATION, engine_serving, write_explained_quiz

TIMING = RoundTiming(pause=3.0, edit_interval=5.0, retry=5.0)
ANSWER = "explanation-answer.png"  # the explanation's file: named apart from the question's


@pytest.fixture
def clock() -> VirtualClock:
    return VirtualClock()


@pytest.fixture
async def engine(tmp_path: Path, storage: SQLiteStorage, clock: VirtualClock) -> QuizEngine:
    write_explained_quiz(tmp_path / "quizzes")
    return await engine_serving(tmp_path / "quizzes", storage, clock)


@pytest.fixture
async def world(
    fake_discord: FakeDiscord, engine: QuizEngine, make_client: ClientFactory, clock: VirtualClock
) -> World:
    return await world_on(fake_discord, engine, make_client, clock, TIMING)


def quiz_of(engine: QuizEngine) -> Quiz:
    quiz = engine.catalog.get(EXPLAINED)
    assert quiz is not None
    return quiz


def images_of(message: Message) -> list[str]:
    """The files the message's embeds show, in order."""
    urls = [(embed.get("image") or {}).get("url", "") for embed in message.embeds]
    return [url.removeprefix("attachment://") for url in urls if url]


async def test_the_answer_shows_the_explanations_image_beside_the_questions(
    world: World, engine: QuizEngine
) -> None:
    quiz = quiz_of(engine)
    player = world.user("Ada")
    question = (await player.command("quiz", quiz=EXPLAINED)).last
    assert images_of(question) == ["diagram.png"]
    [diagram] = question.attachments

    # A wrong answer: the edit keeps the question's file and adds the explanation's, shown in
    # an embed of its own after the feedback (the first embed shows the question's).
    answered = await player.press_letter(question, pick_letter(quiz, question, "en", correct=False))
    assert answered.response_type == UPDATE_MESSAGE
    assert uploads([answered.callback]) == [ANSWER]
    after = world.fake.messages[question.id]
    assert images_of(after) == ["diagram.png", ANSWER]
    assert after.embeds[-1].get("image") and not after.embeds[-1].get("fields")
    assert after.embeds[-1]["color"] == after.embeds[0]["color"]  # the feedback's colour
    kept, added = after.attachments
    assert (kept.id, kept.filename) == (diagram.id, "diagram.png")
    assert (added.filename, added.description) == (ANSWER, "Arrows from the index to each shard")
    assert sha256_of(added.data) == next(
        i.sha256 for i in quiz.images if i.file == "images/answer.png"
    )
    assert "It maps every tensor name to its shard file." in text_of(after)
    assert buttons(after) and all(b["disabled"] for b in buttons(after))

    # A question without an image of its own: the feedback's embed shows the explanation's.
    plain = answered.last
    assert images_of(plain) == [] and plain.attachments == []
    answered = await player.press_letter(plain, pick_letter(quiz, plain, "en", correct=True))
    after = world.fake.messages[plain.id]
    assert images_of(after) == [ANSWER] and len(after.embeds) == 1
    assert [a.description for a in after.attachments] == [None]  # the short form: no alt text

    # A long explanation, in two fields: the image ends the feedback, after the second.
    long = answered.last
    answered = await player.press_letter(long, pick_letter(quiz, long, "en", correct=True))
    after = world.fake.messages[long.id]
    assert images_of(after) == ["explanation-wide.png"]
    last = after.embeds[-1]
    assert last["image"]["url"] == "attachment://explanation-wide.png"
    assert [f["name"] for f in last["fields"]][-2:] == ["Why (1/2)", "Why (2/2)"]
    assert LONG_EXPLANATION.split(". ")[0] in text_of(after)
    assert world.fake.violations == []


async def test_a_typed_answers_feedback_shows_the_explanations_image(
    world: World, engine: QuizEngine
) -> None:
    quiz = quiz_of(engine)
    player = world.user("Bo", dm=True)
    message = (await player.command("quiz", quiz=EXPLAINED)).last
    for _ in range(3):
        letter = pick_letter(quiz, message, "en", correct=True)
        message = (await player.press_letter(message, letter)).last
    (button,) = buttons(message)
    opened = await player.press(message, button["custom_id"])
    submitted = await player.submit(opened, "index")
    assert submitted.response_type == UPDATE_MESSAGE
    after = world.fake.messages[message.id]
    assert images_of(after) == [ANSWER] and [a.filename for a in after.attachments] == [ANSWER]
    assert "Correct" in text_of(after)
    assert world.fake.violations == []


async def test_a_rounds_reveal_carries_the_explanations_image(
    world: World, clock: VirtualClock
) -> None:
    host = world.user("Host")
    await host.command("round", quiz=EXPLAINED, seconds=30)
    await world.settle()
    [question] = [m for m in world.fake.channel_messages(GUILD_CHANNEL_ID) if buttons(m)]
    await host.press_letter(question, "B")
    await world.advance(clock, 30)  # closed and revealed
    [reveal] = [
        m
        for m in world.fake.channel_messages(GUILD_CHANNEL_ID)
        if "It maps every tensor name to its shard file." in text_of(m)
    ]
    assert images_of(reveal) == [ANSWER]
    [attached] = reveal.attachments
    assert (attached.filename, attached.description) == (
        ANSWER,
        "Arrows from the index to each shard",
    )
    # The question's message kept its own picture only.
    assert [a.filename for a in world.fake.messages[question.id].attachments] == ["diagram.png"]
    assert world.fake.violations == []


async def test_a_daily_questions_reveal_carries_the_explanations_image(
    fake_discord: FakeDiscord,
    engine: QuizEngine,
    storage: SQLiteStorage,
    make_client: ClientFactory,
) -> None:
    # One question a day: the explained quiz's first (its images stored by the fixture).
    quiz = quiz_of(engine)
    only = dataclasses.replace(quiz, questions=quiz.questions[:1])
    clock = VirtualClock(at("2026-03-02 07:00"))
    daily = QuizEngine(QuizCatalog([only]), storage, clock=clock)
    channel = await open_channel(fake_discord, daily, make_client, clock, only)
    asha = channel.world.user("Asha")
    await channel.moderator.command("daily", time="09:00", quizzes=EXPLAINED)
    await channel.until("2026-03-02 09:00")
    (question,) = channel.daily_questions()
    await channel.answer(asha, question, True)
    await channel.until("2026-03-02 21:00")
    (reveal,) = channel.reveals()
    assert images_of(reveal) == [ANSWER]
    assert [a.filename for a in reveal.attachments] == [ANSWER]
    assert streak("Asha", "🥇", 1, 1) in text_of(reveal)
    assert fake_discord.violations == []
