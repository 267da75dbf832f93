"""A press is answered, acknowledged and followed up (the answered question, the next one)
after its update is done: the update's objects are freed at once, while the answer waits for
its commit, and the user's next update still waits for all of it, so their messages keep their
order."""

from __future__ import annotations

import asyncio
import gc
from typing import Any

import pytest
from telegram import Update

from adapters.telegram.texts import tt
from bot.engine import QuizEngine
from bot.i18n import t
from bot.quiz import Quiz
from bot.views import AnswerFeedback
from fakes.telegram_bot_api import ApiCall, FakeBotApi, StoredMessage
from fakes.telegram_chatter import Chatter, button_for, clean, is_question
from tests.conftest import SEED_QUIZ
from tests.telegram.conftest import Launch, chatter

PAUSE_S = 2  # the 429's retry_after: the follow-ups wait this long


def _live_updates_of(query_id: str) -> list[Update]:
    gc.collect()
    return [
        o
        for o in gc.get_objects()
        if isinstance(o, Update)
        and o.callback_query is not None
        and o.callback_query.id == query_id
    ]


async def _pressed_behind_a_429(
    api: FakeBotApi, quiz: Quiz, ann: Chatter
) -> tuple[StoredMessage, str, ApiCall]:
    """Ann starts the quiz and answers its first question; the edit that follows gets a 429,
    so the press's follow-ups wait PAUSE_S. Returns the question, the press and the 429."""
    ann.send(f"/quiz {SEED_QUIZ}")
    asked = await ann.question()
    api.fail_next("editMessageText", retry_after=PAUSE_S)
    query = ann.press(asked, button_for(asked, quiz, "en", True))
    await ann.toast(query)
    for _ in range(500):
        if refused := api.calls_of("editMessageText", ok=False):
            return asked, query, refused[0]
        await asyncio.sleep(0.01)
    raise AssertionError("the press's edit never came")


# PTB itself reads RetryAfter.retry_after, which warns about its future type.
@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")
async def test_a_press_update_is_freed_while_its_follow_ups_wait(
    api: FakeBotApi, engine: QuizEngine, seed: Quiz, launch: Launch
) -> None:
    await launch(engine)
    ann, ben = chatter(api, 6401, "Ann"), chatter(api, 6404, "Ben")
    asked, query, refused = await _pressed_behind_a_429(api, seed, ann)
    # The follow-ups wait out the 429; the update they follow is already gone.
    assert api.calls_of("sendMessage", after=refused.index) == []
    # PTB's update fetcher holds the latest update until the next one comes.
    ben.send("/help")
    await ben.message()
    assert _live_updates_of(query) == []
    await ann.edit_of(asked, refused.index + 1)
    assert await ann.question(within=PAUSE_S + 5)  # and they still go out


@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")
async def test_the_users_next_update_waits_for_the_follow_ups(
    api: FakeBotApi, engine: QuizEngine, seed: Quiz, launch: Launch
) -> None:
    """/help sent while the press's follow-ups wait out a 429 is answered after the next
    question, not before it."""
    await launch(engine)
    ann, ben = chatter(api, 6402, "Ann"), chatter(api, 6403, "Ben")
    _, _, refused = await _pressed_behind_a_429(api, seed, ann)
    ann.send("/help")
    ben.send("/help")  # another user is not held up meanwhile
    await ben.message()
    assert [int(c.params["chat_id"]) for c in api.calls_of("sendMessage", after=refused.index)] == [
        ben.chat_id
    ]
    await ann.question(within=PAUSE_S + 5)
    await ann.message()  # /help's answer
    sent = [
        api.message_of(c)
        for c in api.calls_of("sendMessage", after=refused.index)
        if int(c.params["chat_id"]) == ann.chat_id
    ]
    assert [is_question(m) for m in sent] == [True, False]


async def test_a_press_handled_while_the_bot_stops_still_gets_its_next_question(
    api: FakeBotApi, engine: QuizEngine, seed: Quiz, launch: Launch
) -> None:
    """A deploy stops the bot while a press is being acknowledged: the press's follow-ups
    start after python-telegram-bot stopped running, and still go out before the
    connections close."""
    adapter = await launch(engine)
    ann = chatter(api, 6405, "Ann")
    ann.send(f"/quiz {SEED_QUIZ}")
    asked = await ann.question()
    mark = len(api.calls)
    api.delays["answerCallbackQuery"] = 1.5
    api.delays["editMessageText"] = 1.0  # the follow-ups are still under way at the shutdown
    ann.press(asked, button_for(asked, seed, "en", True))
    await api.wait_for("getUpdates", lambda c: c.index > mark, after=mark)  # it was taken
    await asyncio.sleep(0.1)  # and is being acknowledged
    await adapter.stop()
    sent = [
        api.message_of(c)
        for c in api.calls_of("sendMessage", after=mark)
        if int(c.params["chat_id"]) == ann.chat_id
    ]
    assert [is_question(m) for m in sent] == [True]


async def test_a_press_update_is_freed_while_its_answer_waits_for_the_commit(
    api: FakeBotApi,
    engine: QuizEngine,
    seed: Quiz,
    launch: Launch,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Under a burst an answer waits for its group commit; the press's update does not wait
    with it (python-telegram-bot's objects, for the collector to scan meanwhile)."""
    await launch(engine)
    ann, ben = chatter(api, 6406, "Ann"), chatter(api, 6407, "Ben")
    ann.send(f"/quiz {SEED_QUIZ}")
    asked = await ann.question()
    committed = asyncio.Event()
    answer = engine.answer_by_position

    async def slow_commit(*args: Any) -> AnswerFeedback:
        await committed.wait()
        return await answer(*args)

    monkeypatch.setattr(engine, "answer_by_position", slow_commit)
    query = ann.press(asked, button_for(asked, seed, "en", True))
    try:
        ben.send("/help")  # PTB's update fetcher holds the latest update until another comes
        await ben.message()
        assert api.calls_of("answerCallbackQuery") == []  # the answer still waits
        assert _live_updates_of(query) == []
    finally:
        committed.set()  # else stopping the bot would wait for the answer forever
    assert await ann.toast(query) == clean(t("correct", "en"))
    assert is_question(await ann.question())


async def test_an_answer_that_fails_unexpectedly_tells_the_user_and_can_be_pressed_again(
    api: FakeBotApi,
    engine: QuizEngine,
    seed: Quiz,
    launch: Launch,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    await launch(engine)
    ann = chatter(api, 6408, "Ann", "ru")
    ann.send(f"/quiz {SEED_QUIZ}")
    asked = await ann.question()

    async def broken(*args: Any) -> AnswerFeedback:
        raise RuntimeError("a bug in the engine")

    with monkeypatch.context() as patched:
        patched.setattr(engine, "answer_by_position", broken)
        query = ann.press(asked, button_for(asked, seed, "ru", True))
        assert await ann.toast(query) == clean(tt("error", "ru"))
    assert "a bug in the engine" in caplog.text  # with its traceback, for the operator
    query = ann.press(asked, button_for(asked, seed, "ru", True))  # nothing was recorded
    assert await ann.toast(query) == clean(t("correct", "ru"))
    assert is_question(await ann.question())
