"""Explanations with images on Telegram, end to end through python-telegram-bot and the fake
Bot API: after an answer the question loses its buttons and the feedback follows as the
caption of the explanation's photo (a feedback too long for a caption: the photo, then the
text), each image uploaded once per bot; a typed answer's verdict is that photo replying to
the answer; a quiz poll's vote is followed by it; a group round's and a daily question's
reveal is the photo with the reveal as its caption."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.catalog import QuizCatalog
from bot.daily.texts import daily_t
from bot.engine import QuizEngine
from bot.quiz import Quiz
from bot.quiz_images import store_quiz_images
from bot.storage import SQLiteStorage
from fakes.clock import ManualClock
from fakes.telegram_bot_api import BOT_ID, ApiCall, FakeBotApi, StoredMessage
from fakes.telegram_chatter import Chatter, button_for, clean, poll_choice
from tests.conftest import FakeClock
from tests.daily_harness import at, streak
from tests.images import EXPLAINED, LONG_EXPLANATION, write_explained_quiz
from tests.telegram.conftest import Launch, chatter
from tests.telegram.rounds_harness import (
    GROUP_ID,
    TIMING,
    Room,
    advance,
    member,
    on_the_clock,
    settle,
)
from tests.telegram.test_daily import start as start_daily

FEEDBACK_TWO = [
    "✅ Correct",
    "Your answer: A. The index",
    "Why: The index, then the shards it names.",
]
FEEDBACK_ONE = [
    "❌ Not quite",
    "Your answer: B. The optimizer settings",
    "Correct answer: A. Which shard holds each tensor",
    "Why: It maps every tensor name to its shard file.",
]


@contextlib.asynccontextmanager
async def served(
    folder: Path, *, stored: bool = True, removed: str | None = None
) -> AsyncIterator[tuple[QuizCatalog, SQLiteStorage]]:
    """The explained quiz loaded from ``folder``, and a database holding its images as
    start-up leaves them (``stored``); ``removed``: an image file deleted since the load."""
    write_explained_quiz(folder / "quizzes")
    catalog, report = QuizCatalog.from_paths([folder / "quizzes"])
    assert report.errors == []
    if removed is not None:
        (folder / "quizzes" / "images" / removed).unlink()
    storage = SQLiteStorage(folder / "bot.db")
    await storage.open()
    if stored:
        await store_quiz_images(storage, catalog.all())
    try:
        yield catalog, storage
    finally:
        await storage.close()


@pytest.fixture
async def explained(tmp_path: Path) -> AsyncIterator[tuple[QuizCatalog, SQLiteStorage]]:
    async with served(tmp_path) as quiz_and_storage:
        yield quiz_and_storage


def quiz_of(engine: QuizEngine) -> Quiz:
    quiz = engine.catalog.get(EXPLAINED)
    assert quiz is not None
    return quiz


async def photo(api: FakeBotApi, chat_id: int, after: int) -> tuple[StoredMessage, ApiCall]:
    """The next photo the bot sends to ``chat_id`` from call ``after`` on."""
    call = await api.wait_for(
        "sendPhoto", lambda c: int(c.params["chat_id"]) == chat_id, after=after
    )
    return api.message_of(call), call


def lines(text: str | None) -> list[str]:
    return [clean(line) for line in (text or "").split("\n") if line.strip()]


async def player(
    quiz_and_storage: tuple[QuizCatalog, SQLiteStorage],
    api: FakeBotApi,
    launch: Launch,
    user_id: int,
    name: str,
) -> tuple[QuizEngine, Quiz, Chatter]:
    """The bot serving the explained quiz, the quiz, and a user in a private chat with it."""
    catalog, storage = quiz_and_storage
    engine = QuizEngine(catalog, storage, clock=FakeClock())
    await launch(engine)
    return engine, quiz_of(engine), chatter(api, user_id, name)


def sha_of(engine: QuizEngine, file: str) -> str:
    return next(i.sha256 for i in quiz_of(engine).images if i.file == file)


async def test_the_feedback_is_the_caption_of_the_explanations_photo_uploaded_once(
    explained, api: FakeBotApi, launch: Launch
) -> None:
    engine, quiz, me = await player(explained, api, launch, 5001, "Ada")
    me.send(f"/quiz {EXPLAINED}")

    # 1: a photo question answered wrong. The question keeps its photo and caption and loses
    # its buttons; the feedback is the caption of the explanation's photo, uploaded.
    pictured = await me.question()
    assert pictured.photo is not None and len(api.photos) == 1
    me.press(pictured, button_for(pictured, quiz, "en", correct=False))
    explained_one, call = await photo(api, me.chat_id, me.mark)
    closed = api.messages[(me.chat_id, pictured.message_id)]
    assert closed.buttons == [] and closed.caption == pictured.caption
    assert closed.photo == pictured.photo
    assert lines(explained_one.caption) == FEEDBACK_ONE
    assert explained_one.buttons == [] and len(api.photos) == 2
    assert explained_one.message_id == pictured.message_id + 1

    # 2: a text question; the same explanation image, sent by its file_id: no upload.
    me.mark = call.index + 1
    plain = await me.question()
    assert plain.photo is None and plain.message_id == explained_one.message_id + 1
    me.press(plain, button_for(plain, quiz, "en", correct=True))
    explained_two, call = await photo(api, me.chat_id, me.mark)
    assert api.messages[(me.chat_id, plain.message_id)].buttons == []
    assert clean(api.messages[(me.chat_id, plain.message_id)].text) == clean(plain.text)
    assert lines(explained_two.caption) == FEEDBACK_TWO
    assert explained_one.photo is not None and len(api.photos) == 2
    assert call.params["photo"] == explained_one.photo[-1]["file_id"]

    # 3: a feedback too long for a caption: the photo alone, then the feedback as text.
    me.mark = call.index + 1
    long = await me.question()
    me.press(long, button_for(long, quiz, "en", correct=True))
    wide, call = await photo(api, me.chat_id, me.mark)
    assert wide.caption is None and len(api.photos) == 3
    me.mark = call.index + 1
    text = await me.message()
    assert text.message_id == wide.message_id + 1
    assert clean(LONG_EXPLANATION) in clean(text.text)

    # 4: a typed answer: the verdict is the photo's caption, replying to the answer.
    await me.message(lambda m: "Which file lists the shards?" in clean(m.text))
    me.send("index")
    typed, call = await photo(api, me.chat_id, me.mark)
    assert lines(typed.caption) == ["✅ Correct", "Your answer: index"]
    assert typed.reply_to is not None and typed.reply_to.text == "index"
    assert call.params["photo"] == explained_one.photo[-1]["file_id"] and len(api.photos) == 3
    me.mark = call.index + 1
    assert "Explained" in clean((await me.message()).text)  # then the result

    assert api.failed_calls() == []
    _, storage = explained
    uploaded = await storage.image_upload(f"telegram:{BOT_ID}", sha_of(engine, "images/answer.png"))
    assert uploaded == explained_one.photo[-1]["file_id"]


async def test_a_quiz_polls_vote_is_followed_by_the_explanations_photo(
    explained, api: FakeBotApi, launch: Launch
) -> None:
    # A poll's explanation is 200 characters of text: the picture follows the vote, with the
    # feedback as its caption, even when the poll's own explanation was complete.
    _, quiz, me = await player(explained, api, launch, 5002, "Bo")
    me.send("/mode poll")
    await me.message()
    me.send(f"/quiz {EXPLAINED}")
    for feedback in (FEEDBACK_ONE, FEEDBACK_TWO):
        poll = await me.question()
        assert poll.poll is not None
        assert clean(poll.poll["explanation"]) == feedback[-1].removeprefix("Why: ")
        mark = len(api.calls)
        right = feedback[0] == "✅ Correct"
        api.answer_poll(me.user, poll.poll["id"], [poll_choice(poll, quiz, "en", right)])
        explained_photo, call = await photo(api, me.chat_id, mark)
        assert lines(explained_photo.caption) == feedback
        assert explained_photo.message_id == poll.message_id + 1
        me.mark = call.index + 1
    assert (await me.question()).poll is not None  # the third comes after the picture
    # The question's diagram (before the first poll) and the explanations' picture, once each.
    assert len(api.photos) == 2 and api.failed_calls() == []


async def test_a_rounds_reveal_is_the_explanations_photo_with_the_reveal_as_caption(
    explained, api: FakeBotApi, launch: Launch, clock: ManualClock
) -> None:
    catalog, storage = explained
    on_the_clock(api, clock)
    engine = QuizEngine(catalog, storage, clock=clock)
    adapter = await launch(engine, round_timing=TIMING, clock=clock)
    room = Room(api)
    player = Chatter(api, member(api, 1, "Ann"), api.group_chat(GROUP_ID, "Study group"))
    player.send(f"/quiz group {EXPLAINED} 20")
    await room.notice()
    await settle(adapter)
    live, call = await room.question()
    mark = call.index + 1
    player.press(live, live.buttons[1]["callback_data"])  # B: wrong
    await advance(adapter, clock, 20)
    reveal, call = await photo(api, GROUP_ID, mark)
    assert lines(reveal.caption) == [
        "📣 Question 1/3",
        "What does the index file list?",
        "Correct answer: A. Which shard holds each tensor",
        "Why: It maps every tensor name to its shard file.",
        "Answers: 1",
        "✅ A. Which shard holds each tensor — 0",
        "▫️ B. The optimizer settings — 1",
        "Scoreboard",
        "🥇 Ann — 0/1",
    ]
    assert reveal.buttons == [] and len(api.photos) == 2  # the diagram, then this picture
    # The second question's reveal: the same picture, by its file_id.
    await advance(adapter, clock, TIMING.pause)
    await room.question()
    await advance(adapter, clock, 20)
    second, call = await photo(api, GROUP_ID, call.index + 1)
    assert lines(second.caption)[0] == "📣 Question 2/3" and len(api.photos) == 2
    # The third's is too long for a caption: the photo, then the reveal as text.
    await advance(adapter, clock, TIMING.pause)
    await room.question()
    await advance(adapter, clock, 20)
    wide, call = await photo(api, GROUP_ID, call.index + 1)
    assert wide.caption is None and len(api.photos) == 3
    after = api.messages[(GROUP_ID, wide.message_id + 1)]
    assert clean(after.text).startswith("📣 Question 3/3")
    assert clean(LONG_EXPLANATION) in clean(after.text)
    assert (await room.final())[0].startswith("🏁")
    assert api.failed_calls() == []


async def test_a_daily_questions_reveal_is_the_explanations_photo_with_its_streaks(
    explained, api: FakeBotApi, launch: Launch, clock: ManualClock
) -> None:
    catalog, storage = explained
    quiz = quiz_of(QuizEngine(catalog, storage, clock=clock))
    # One question a day, the explained quiz's first (the others are never due before it).
    (first, *_) = quiz.questions
    only = dataclasses.replace(quiz, questions=(first,))
    engine = QuizEngine(QuizCatalog([only]), storage, clock=clock)
    clock.now = at("2026-03-02 07:00")
    daily = await start_daily(api, engine, only, clock, launch)
    asha = daily.chatter(2, "Asha")
    await daily.say(daily.admin, f"/daily 09:00 {EXPLAINED}")
    await daily.until("2026-03-02 09:00")
    question = await daily.question()  # the photo above it carries the question
    await asha.toast(asha.press(question, question.buttons[0]["callback_data"]))  # A: right
    mark = len(api.calls)
    await daily.until("2026-03-02 21:00")
    reveal, _ = await photo(api, GROUP_ID, mark)
    shown = lines(reveal.caption)
    assert shown[0] == daily_t("daily_reveal", "en")
    assert "Why: It maps every tensor name to its shard file." in shown
    assert shown[-2:] == [daily_t("daily_right", "en", count=1), streak("Asha", "🥇", 1, 1)]
    assert api.failed_calls() == []


@pytest.fixture
async def image_gone(tmp_path: Path) -> AsyncIterator[tuple[QuizCatalog, SQLiteStorage]]:
    async with served(tmp_path, stored=False, removed="answer.png") as quiz_and_storage:
        yield quiz_and_storage


async def test_the_feedback_goes_as_text_when_the_explanations_image_is_gone(
    image_gone, api: FakeBotApi, launch: Launch
) -> None:
    _, quiz, me = await player(image_gone, api, launch, 5003, "Cy")
    me.send(f"/quiz {EXPLAINED}")
    pictured = await me.question()
    me.press(pictured, button_for(pictured, quiz, "en", correct=False))
    feedback = await me.message(lambda m: "Why:" in clean(m.text))  # the answer loses nothing
    assert lines(feedback.text) == FEEDBACK_ONE
    assert api.messages[(me.chat_id, pictured.message_id)].buttons == []
    assert len(api.calls_of("sendPhoto")) == 1  # the question's diagram only
    assert (await me.question()).message_id == feedback.message_id + 1  # the quiz goes on
