"""Playing quizzes on Telegram end to end: real python-telegram-bot, fake Bot API server."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.catalog import QuizCatalog
from bot.engine import QuizEngine
from bot.i18n import t
from bot.storage import SQLiteStorage
from bot.views import Participant
from fakes.telegram_bot_api import FakeBotApi
from fakes.telegram_chatter import (
    Chatter,
    button_for,
    clean,
    find_question,
    option_text,
)
from tests.conftest import SEED_QUIZ, FakeClock
from tests.telegram.conftest import Launch, Reopen, chatter, stop_process
from tests.telegram.quizzes import (
    LONG_EXPLANATION,
    TRICKY,
    TRICKY_QUESTION,
    catalog_of,
    write_tricky,
)


@pytest.mark.parametrize("language", ["en", "bn", "ur", "ru"])
async def test_seed_quiz_played_through_in_each_language(
    api: FakeBotApi, engine: QuizEngine, catalog: QuizCatalog, launch: Launch, language: str
) -> None:
    await launch(engine)
    quiz = catalog.get(SEED_QUIZ)
    assert quiz is not None
    me = chatter(api, 1001, "Asha", language)
    pattern = [True, True, False, True, False, True, True, False]
    me.send(f"/quiz {SEED_QUIZ}")
    message = await me.question()
    for number, right in enumerate(pattern, start=1):
        progress = clean(t("question_progress", language, number=number, total=8))
        assert clean(message.text).startswith(progress)
        assert "▰" * number + "▱" * (8 - number) in (message.text or "")
        question = find_question(quiz, language, message.text or "")
        query = me.press(message, button_for(message, quiz, language, right))
        assert await me.toast(query) == clean(t("correct" if right else "wrong", language))
        await me.edit_of(message, me.mark)
        shown = clean(api.messages[(message.chat_id, message.message_id)].text)
        assert clean(question.explanation.get(language)) in shown  # the whole explanation
        assert clean(t("correct" if right else "wrong", language)) in shown
        if not right:
            correct = option_text(question, question.correct_option_id, language)
            assert correct in shown
        assert not api.messages[(message.chat_id, message.message_id)].buttons
        if number < len(pattern):
            message = await me.question()
    result = await me.message()
    score = sum(pattern)
    expected = t("score", language, correct=score, total=8, percent=round(100 * score / 8))
    assert clean(expected) in clean(result.text)
    lines = [clean(line) for line in (result.text or "").split("\n")]
    marks = [line[0] for line in lines if line[:1] in ("✓", "✗")]
    assert marks == ["✓" if right else "✗" for right in pattern]
    labels = [clean(b["text"]) for b in result.buttons]
    assert labels == [clean(t("retry", language)), clean(t("other_quiz", language))]
    assert api.failed_calls() == []


async def test_double_tap_is_counted_once(
    api: FakeBotApi,
    engine: QuizEngine,
    storage: SQLiteStorage,
    catalog: QuizCatalog,
    launch: Launch,
) -> None:
    await launch(engine)
    quiz = catalog.get(SEED_QUIZ)
    assert quiz is not None
    me = chatter(api, 1002, "Boris")
    me.send(f"/quiz {SEED_QUIZ}")
    message = await me.question()
    data = button_for(message, quiz, "en", correct=True)
    start = len(api.calls)
    first = api.press(me.user, message, data)
    second = api.press(me.user, message, data)  # same snapshot: the keyboard still showed
    assert await me.toast(first) == clean(t("correct", "en"))
    assert await me.toast(second) == clean(t("already_answered", "en"))
    # A different option on the answered question: refused too, nothing changes.
    other = api.press(me.user, message, button_for(message, quiz, "en", correct=False))
    assert await me.toast(other) == clean(t("already_answered", "en"))
    await me.barrier()
    changes = me.sent_since(start)
    assert [c.method for c in changes] == ["editMessageText", "sendMessage"]
    attempt = await engine.active_attempt(Participant("telegram", str(me.user["id"])))
    assert attempt is not None
    assert len(await storage.answers(attempt[0].id)) == 1
    assert api.failed_calls() == []


async def test_press_after_restart_continues_the_quiz(
    api: FakeBotApi,
    engine: QuizEngine,
    catalog: QuizCatalog,
    launch: Launch,
    reopen: Reopen,
) -> None:
    first_process = await launch(engine)
    quiz = catalog.get(SEED_QUIZ)
    assert quiz is not None
    me = chatter(api, 1003, "Chen")
    me.send(f"/quiz {SEED_QUIZ}")
    first = await me.question()
    me.press(first, button_for(first, quiz, "en", correct=True))
    second = await me.question()
    me.press(second, button_for(second, quiz, "en", correct=False))
    third = await me.question()
    await stop_process(first_process)

    # Pressed while the bot is down; a new process on the same database picks it up.
    query = me.press(third, button_for(third, quiz, "en", correct=True))
    old = api.press(me.user, first, button_for(first, quiz, "en", correct=False))
    await launch(await reopen(catalog))
    assert await me.toast(query) == clean(t("correct", "en"))
    await me.edit_of(third, me.mark)
    fourth = await me.question()
    assert clean(fourth.text).startswith("Question 4/8")
    assert await me.toast(old) == clean(t("already_answered", "en"))
    assert api.failed_calls() == []


async def test_stale_and_junk_presses_change_nothing(
    api: FakeBotApi, engine: QuizEngine, catalog: QuizCatalog, launch: Launch
) -> None:
    await launch(engine)
    quiz = catalog.get(SEED_QUIZ)
    assert quiz is not None
    me = chatter(api, 1004, "Dana")
    me.send(f"/quiz {SEED_QUIZ}")
    question = await me.question()
    start = len(api.calls)
    invalid = clean(t("invalid_button", "en"))
    for junk in [
        "garbage",
        "",
        "v1:a:abc:1:0",
        "v2:a:1:1:0",
        "v1:a:999999:1:0",  # no such attempt
        "v1:a:1:99:0",  # no such question
        "v1:a:1:1:9",  # no such option
        "v1:a:01:1:0",  # not canonical
        "v1:q:../../etc:1",
        "x" * 64,
    ]:
        assert await me.toast(me.press(question, junk)) == invalid, junk
    # The attempt is abandoned (retried from scratch elsewhere): its question is superseded.
    me.send("/stop")
    confirm = await me.message()
    me.press_button(confirm, t("stop_yes", "en"))
    await me.edit_of(confirm, me.mark)
    query = me.press(question, button_for(question, quiz, "en", correct=True))
    assert await me.toast(query) == clean(t("stale", "en"))
    await me.barrier()
    changes = [c for c in me.sent_since(start) if c.params.get("message_id") == question.message_id]
    assert changes == []
    assert api.failed_calls() == []


async def test_a_stranger_cannot_answer_in_a_group(
    api: FakeBotApi, engine: QuizEngine, catalog: QuizCatalog, launch: Launch
) -> None:
    await launch(engine)
    quiz = catalog.get(SEED_QUIZ)
    assert quiz is not None
    group = api.group_chat(-4001, "Study group")
    owner = Chatter(api, api.user(2001, "Asha", last_name="Rahman"), group)
    stranger = Chatter(api, api.user(2002, "Ivan", language_code="ru"), group)
    owner.send(f"/quiz {SEED_QUIZ}")
    question = await owner.question()
    assert "👤 Asha Rahman" in (question.text or "")
    start = len(api.calls)
    query = stranger.press(question, button_for(question, quiz, "en", correct=True))
    assert await stranger.toast(query) == clean(t("not_yours", "ru", name="Asha Rahman"))
    await stranger.barrier()
    assert owner.sent_since(start) == []
    query = owner.press(question, button_for(question, quiz, "en", correct=True))
    assert await owner.toast(query) == clean(t("correct", "en"))
    await owner.edit_of(question, owner.mark)
    nxt = await owner.question()
    assert clean(nxt.text).startswith("Question 2/8")
    # The stranger's own /quiz in the same group is their own attempt, in their language.
    stranger.send(f"/quiz {SEED_QUIZ}")
    theirs = await stranger.question()
    assert "👤 Ivan" in (theirs.text or "")
    assert clean(theirs.text).startswith(clean(t("question_progress", "ru", number=1, total=8)))
    assert api.failed_calls() == []


@pytest.fixture
def tricky_catalog(tmp_path: Path) -> QuizCatalog:
    write_tricky(tmp_path / "extra")
    return catalog_of(tmp_path / "extra")


@pytest.fixture
async def tricky_engine(tricky_catalog: QuizCatalog, storage: SQLiteStorage) -> QuizEngine:
    return QuizEngine(tricky_catalog, storage, clock=FakeClock())


async def test_picker_escaping_text_buttons_and_long_explanations(
    api: FakeBotApi, tricky_engine: QuizEngine, tricky_catalog: QuizCatalog, launch: Launch
) -> None:
    await launch(tricky_engine)
    me = chatter(api, 1005, "Emil")
    me.send("/quiz")
    picker = await me.message()
    assert clean(picker.text).startswith(clean(t("choose_quiz", "en")))
    titles = [clean(b["text"]) for b in picker.buttons]
    assert len(titles) == len(tricky_catalog)
    assert "Checkpoint sharding and resumable training" in titles
    assert "Tricky <markup> & friends" in titles
    query = me.press_button(picker, "Tricky <markup> & friends")
    await me.toast(query)
    question = await me.question()
    assert api.messages[(picker.chat_id, picker.message_id)].buttons == []  # one-shot menu
    assert TRICKY_QUESTION in (question.text or "")
    assert all(e["type"] == "bold" for e in question.entities)  # quiz text stayed text
    labels = [clean(b["text"]) for b in question.buttons]  # short options: on the buttons
    assert sorted(label.split(". ", 1)[1] for label in labels) == [
        "<i>never</i>",
        "__init__ *args*",
        "x < y & z",
    ]
    # A second press on the picker does not start anything again.
    again = me.press_button(picker, "Tricky <markup> & friends") if picker.buttons else None
    assert again is None or await me.toast(again) == "Already done."

    tricky = tricky_catalog.get(TRICKY)
    assert tricky is not None
    mark = me.mark
    query = me.press(question, button_for(question, tricky, "en", correct=True))
    assert await me.toast(query) == clean(t("correct", "en"))
    edit = await me.edit_of(question, mark)
    second = await me.question()
    assert clean(second.text).startswith("Question 2/2")
    shown = [api.messages[(question.chat_id, question.message_id)].text or ""]
    shown += [
        api.message_of(c).text or ""
        for c in api.calls_of("sendMessage", after=edit.index)
        if api.message_of(c).message_id < second.message_id
    ]
    assert len(shown) >= 3  # ~9,300 characters: the edit and at least two more messages
    assert all(len(text) <= 4096 for text in shown)
    assert clean(LONG_EXPLANATION) in clean(" ".join(shown))
    assert api.failed_calls() == []


async def test_unknown_quiz_id_shows_the_picker(
    api: FakeBotApi, tricky_engine: QuizEngine, tricky_catalog: QuizCatalog, launch: Launch
) -> None:
    await launch(tricky_engine)
    me = chatter(api, 1006, "Fatima")
    me.send("/quiz nope")
    picker = await me.message()
    assert clean(picker.text).startswith('There is no quiz "nope"')
    assert len(picker.buttons) == len(tricky_catalog)
    me.send(f"/quiz {TRICKY}")
    question = await me.question()
    assert "Question 1/2" in (question.text or "")
