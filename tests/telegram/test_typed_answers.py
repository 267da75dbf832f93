"""Typed-answer questions on Telegram: real python-telegram-bot against the fake Bot API."""

from __future__ import annotations

from pathlib import Path

from bot.engine import QuizEngine
from bot.storage import SQLiteStorage
from fakes.telegram_bot_api import FakeBotApi, StoredMessage
from fakes.telegram_chatter import Chatter, clean
from tests.conftest import FakeClock
from tests.telegram.conftest import Launch, Reopen, stop_process
from tests.typed_quiz import RIGHT, TYPED_QUIZ_ID, WRONG, typed_catalog


def asks_for_reply(message: StoredMessage) -> bool:
    return bool(message.reply_markup and message.reply_markup.get("force_reply"))


async def test_a_typed_quiz_is_played_by_replying_in_a_private_chat(
    api: FakeBotApi, storage: SQLiteStorage, launch: Launch, tmp_path: Path
) -> None:
    engine = QuizEngine(typed_catalog(tmp_path), storage, clock=FakeClock())
    await launch(engine)
    user = api.user(2001, "Asha", language_code="en")
    me = Chatter(api, user, api.private_chat(user))
    me.send(f"/quiz {TYPED_QUIZ_ID}")
    question = await me.message(asks_for_reply)
    assert "Which band recorded Abbey Road?" in clean(question.text)
    assert "Reply to this message with your answer." in clean(question.text)
    assert question.reply_markup == {
        "force_reply": True,
        "input_field_placeholder": "Your answer",
        "selective": False,
    }
    # A reply to the question (what ForceReply makes the client send) answers it.
    api.send_text(user, me.chat, RIGHT["band"], reply_to=question)
    verdict = await me.message()
    assert clean(verdict.text).startswith("✅ Correct")
    assert "Your answer: the beatles" in clean(verdict.text)
    assert verdict.reply_to is not None and verdict.reply_to.text == RIGHT["band"]
    question = await me.message(asks_for_reply)
    assert "Pikachu" in clean(question.text)
    # In a private chat plain text answers too.
    me.send(WRONG["franchise"])
    verdict = await me.message()
    assert clean(verdict.text).startswith("❌ Not quite")
    assert "Correct answer: Pokémon" in clean(verdict.text)
    choice = await me.question()  # the choice question in between has buttons
    assert "Which planet is the largest?" in clean(choice.text)
    me.press_button(choice, "B. Jupiter")
    question = await me.message(asks_for_reply)
    api.send_text(user, me.chat, "moscow", reply_to=question)
    verdict = await me.message()
    assert "Why: Moscow has been the capital since 1918." in clean(verdict.text)
    result = await me.message()
    assert "Score: 3/4 (75%)" in clean(result.text)
    assert api.failed_calls() == []


async def test_a_second_reply_or_redelivery_changes_nothing(
    api: FakeBotApi, storage: SQLiteStorage, launch: Launch, tmp_path: Path
) -> None:
    engine = QuizEngine(typed_catalog(tmp_path), storage, clock=FakeClock())
    await launch(engine)
    user = api.user(2002, "Boris", language_code="ru")
    me = Chatter(api, user, api.private_chat(user))
    me.send(f"/quiz {TYPED_QUIZ_ID}")
    question = await me.message(asks_for_reply)
    assert "Какая группа записала Abbey Road?" in clean(question.text)
    update = api.text_update(user, me.chat, WRONG["band"], reply_to=question)
    api.enqueue(update)
    verdict = await me.message()
    assert clean(verdict.text).startswith("❌ Неверно")
    assert "Правильный ответ: Битлз" in clean(verdict.text)
    await me.message(asks_for_reply)
    api.enqueue({**update, "update_id": update["update_id"] + 1000})  # delivered again
    again = await me.message()
    assert clean(again.text) == "Вы уже ответили на этот вопрос."
    api.send_text(user, me.chat, RIGHT["band"], reply_to=question)  # a second try
    assert clean((await me.message()).text) == "Вы уже ответили на этот вопрос."
    (answer,) = await storage.answers(1)  # the only attempt in this database
    assert (answer.option_id, answer.correct) == (WRONG["band"], False)


async def test_in_a_group_only_replies_to_the_question_count_and_only_from_its_owner(
    api: FakeBotApi, storage: SQLiteStorage, launch: Launch, tmp_path: Path
) -> None:
    engine = QuizEngine(typed_catalog(tmp_path), storage, clock=FakeClock())
    await launch(engine)
    group = api.group_chat(-100777, "Quiz night")
    ann = api.user(2003, "Ann", language_code="en")
    bob = api.user(2004, "Bob", language_code="en")
    me = Chatter(api, ann, group)
    me.send(f"/quiz {TYPED_QUIZ_ID}")
    question = await me.message(asks_for_reply)
    assert "👤 Ann" in clean(question.text)
    assert question.reply_markup is not None and question.reply_markup["selective"] is True
    await me.barrier()  # Ann's /quiz fully handled (Bob's updates run concurrently with hers)
    api.send_text(ann, group, "The Beatles")  # not a reply: group chatter, not an answer
    api.send_text(bob, group, "The Beatles", reply_to=question)
    refusal = await me.message()
    assert "Ann" in clean(refusal.text) and refusal.reply_to is not None
    assert refusal.reply_to.sender["id"] == 2004
    assert await storage.answers(1) == []
    api.send_text(ann, group, "Beatles", reply_to=question)
    verdict = await me.message()
    assert clean(verdict.text).startswith("✅ Correct")
    assert "Pikachu" in clean((await me.message(asks_for_reply)).text)
    assert len(await storage.answers(1)) == 1


async def test_a_reply_sent_after_a_restart_still_answers(
    api: FakeBotApi, launch: Launch, reopen: Reopen, tmp_path: Path
) -> None:
    catalog = typed_catalog(tmp_path)
    first = await launch(await reopen(catalog))
    user = api.user(2005, "Chen", language_code="en")
    me = Chatter(api, user, api.private_chat(user))
    me.send(f"/quiz {TYPED_QUIZ_ID}")
    question = await me.message(asks_for_reply)
    await stop_process(first)
    await launch(await reopen(catalog))
    api.send_text(user, me.chat, "Beatles", reply_to=question)
    assert clean((await me.message()).text).startswith("✅ Correct")
