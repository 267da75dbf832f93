"""Questions with images on Discord, through discord.py and the fake Discord: the image is a
file of the question's message, shown as its embed's image with the alt text as the file's
description; answering and a round's status edits keep the file without sending it again."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.discord.group_rounds import RoundTiming
from bot.engine import QuizEngine
from bot.image_files import sha256_of
from bot.storage import SQLiteStorage
from fakes.discord_api import CHANNEL_MESSAGE, UPDATE_MESSAGE, FakeDiscord, Message
from fakes.discord_users import (
    GUILD_CHANNEL_ID,
    ClientFactory,
    World,
    buttons,
    pick_letter,
    squash,
    text_of,
)
from tests.discord.discord_harness import VirtualClock, uploads, world_on
from tests.images import LONG_QUESTION, PICTURES, engine_serving, write_picture_quiz

TIMING = RoundTiming(pause=3.0, edit_interval=5.0, retry=5.0)


@pytest.fixture
def clock() -> VirtualClock:
    return VirtualClock()


@pytest.fixture
async def engine(tmp_path: Path, storage: SQLiteStorage, clock: VirtualClock) -> QuizEngine:
    write_picture_quiz(tmp_path / "quizzes")
    return await engine_serving(tmp_path / "quizzes", storage, clock)


@pytest.fixture
async def world(
    fake_discord: FakeDiscord, engine: QuizEngine, make_client: ClientFactory, clock: VirtualClock
) -> World:
    return await world_on(fake_discord, engine, make_client, clock, TIMING)


def image_of(message: Message) -> str | None:
    """The file the message's first embed shows, if any."""
    url = (message.embeds[0].get("image") or {}).get("url", "") if message.embeds else ""
    return url.removeprefix("attachment://") or None


async def test_a_question_shows_its_image_and_the_answer_keeps_it(
    world: World, engine: QuizEngine
) -> None:
    quiz = engine.catalog.get(PICTURES)
    assert quiz is not None
    player = world.user("Ada")
    started = await player.command("quiz", quiz=PICTURES)
    assert started.response_type == CHANNEL_MESSAGE
    question = started.last
    assert question.ephemeral and image_of(question) == "diagram.png"
    [attached] = question.attachments
    assert (attached.filename, attached.description) == (
        "diagram.png",
        "Four shard files and an index",
    )
    diagram = quiz.questions[0].image
    assert diagram is not None and sha256_of(attached.data) == diagram.sha256
    answered = await player.press_letter(question, pick_letter(quiz, question, "en", correct=True))
    assert answered.response_type == UPDATE_MESSAGE
    assert uploads([answered.callback]) == []  # the edit sends no file again
    after = world.fake.messages[question.id]
    assert image_of(after) == "diagram.png" and after.attachments == [attached]
    assert "It maps every tensor name to its shard file." in text_of(after)
    assert buttons(after) and all(b["disabled"] for b in buttons(after))
    # The next question (long, but one embed holds it) carries its own image.
    following = answered.last
    assert image_of(following) == "wide.png" and squash(LONG_QUESTION) in squash(text_of(following))
    assert uploads(answered.requests) == ["wide.png"]


async def test_code_and_an_image_in_one_question_stay_within_limits(
    world: World, engine: QuizEngine
) -> None:
    quiz = engine.catalog.get(PICTURES)
    assert quiz is not None
    player = world.user("Bo", dm=True)
    message = (await player.command("quiz", quiz=PICTURES)).last
    for _ in range(2):
        message = (
            await player.press_letter(message, pick_letter(quiz, message, "en", correct=True))
        ).last
    assert image_of(message) == "diagram.png"
    description = message.embeds[0]["description"]
    assert "`load(index)`" in description and "```python\n" in description
    assert "Use <b> & co:" in description  # shown as written, no Markdown escapes needed
    # The option buttons carry letters; the options with their code are in the embed.
    assert "**A.** `dict` of tensors" in description


async def test_a_round_posts_each_image_once_and_its_edits_keep_it(
    world: World, clock: VirtualClock
) -> None:
    host = world.user("Host")
    started = await host.command("round", quiz=PICTURES, seconds=30)
    assert started.response_type == CHANNEL_MESSAGE
    await world.settle()
    [question] = [
        m for m in world.fake.channel_messages(GUILD_CHANNEL_ID) if image_of(m) is not None
    ]
    assert [a.filename for a in question.attachments] == ["diagram.png"]
    await host.press_letter(question, "A")
    await world.advance(clock, 6)  # the answer count is edited in
    await world.advance(clock, 30)  # closed: buttons off
    edits = world.fake.channel_edits(question.id)
    assert len(edits) >= 2 and uploads(edits) == []
    closed = world.fake.messages[question.id]
    assert image_of(closed) == "diagram.png" and closed.attachments == question.attachments
    assert buttons(closed) and all(b["disabled"] for b in buttons(closed))
    await world.advance(clock, TIMING.pause)
    pictured = [m for m in world.fake.channel_messages(GUILD_CHANNEL_ID) if image_of(m) is not None]
    assert [image_of(m) for m in pictured] == ["diagram.png", "wide.png"]
