"""Native quiz-poll mode: polls sent, poll answers recorded, and buttons when a poll can't fit."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.telegram.polls import MAX_EXPLANATION
from adapters.telegram.rendering import mode_name
from adapters.telegram.texts import tt
from bot.catalog import QuizCatalog
from bot.engine import QuizEngine
from bot.i18n import t
from bot.storage import SQLiteStorage
from fakes.telegram_bot_api import FakeBotApi, StoredMessage
from fakes.telegram_chatter import (
    Chatter,
    button_for,
    clean,
    find_question,
    poll_choice,
)
from tests.conftest import SEED_QUIZ, FakeClock
from tests.telegram.conftest import Launch, Reopen, chatter, stop_process
from tests.telegram.quizzes import LONG_OPTION, catalog_of, write_long_option


async def set_poll_mode(me: Chatter, language: str) -> None:
    me.send("/mode poll")
    reply = clean((await me.message()).text)
    assert reply == clean(tt("mode_set", language, mode=mode_name(True, language)))


async def answer(
    api: FakeBotApi,
    me: Chatter,
    question: StoredMessage,
    catalog: QuizCatalog,
    quiz_id: str,
    language: str,
    right: bool,
) -> None:
    """Vote in a poll, or press a button when the question came with buttons."""
    quiz = catalog.get(quiz_id)
    assert quiz is not None
    if question.poll is not None:
        api.answer_poll(
            me.user, question.poll["id"], [poll_choice(question, quiz, language, right)]
        )
    else:
        await me.toast(me.press(question, button_for(question, quiz, language, right)))


async def test_seed_quiz_as_quiz_polls(
    api: FakeBotApi, engine: QuizEngine, catalog: QuizCatalog, launch: Launch
) -> None:
    await launch(engine)
    quiz = catalog.get(SEED_QUIZ)
    assert quiz is not None
    me = chatter(api, 4001, "Olga", "ru")
    await set_poll_mode(me, "ru")
    me.send(f"/quiz {SEED_QUIZ}")
    pattern = [True, False, True, True, False, True, True, True]
    for number, right in enumerate(pattern, start=1):
        message = await me.question()
        poll = message.poll
        assert poll is not None, f"question {number} came with buttons"
        assert poll["type"] == "quiz" and poll["is_anonymous"] is False
        question = find_question(quiz, "ru", poll["question"])
        correct = [clean(poll["options"][i]["text"]) for i in poll["correct_option_ids"]]
        right_option = question.option(question.correct_option_id)
        assert right_option is not None
        assert correct == [clean(right_option.text.get("ru"))]
        assert 0 < len(poll["explanation"]) <= MAX_EXPLANATION
        assert poll["question"].startswith(f"Вопрос {number}/8")
        await answer(api, me, message, catalog, SEED_QUIZ, "ru", right)
        # Every seed explanation is longer than a poll's: it follows the answer in full.
        follow_up = await me.message()
        assert clean(question.explanation.get("ru")) in clean(follow_up.text)
        assert clean(t("correct" if right else "wrong", "ru")) in clean(follow_up.text)
    result = await me.message(lambda m: bool(m.buttons))
    assert clean(t("score", "ru", correct=6, total=8, percent=75)) in clean(result.text)
    assert api.failed_calls() == []


@pytest.fixture
def long_catalog(tmp_path: Path) -> tuple[QuizCatalog, str]:
    question_id = write_long_option(tmp_path / "extra")
    return catalog_of(tmp_path / "extra"), question_id


async def test_a_question_too_long_for_a_poll_comes_with_buttons(
    api: FakeBotApi,
    storage: SQLiteStorage,
    long_catalog: tuple[QuizCatalog, str],
    launch: Launch,
) -> None:
    catalog, long_question = long_catalog
    engine = QuizEngine(catalog, storage, clock=FakeClock())
    await launch(engine)
    quiz = catalog.get(LONG_OPTION)
    assert quiz is not None
    me = chatter(api, 4002, "Pavel", "ru")
    await set_poll_mode(me, "ru")
    me.send(f"/quiz {LONG_OPTION}")
    kinds = []
    for _ in range(8):
        message = await me.question()
        text = message.poll["question"] if message.poll else message.text
        question = find_question(quiz, "ru", text or "")
        kinds.append((question.id, "poll" if message.poll else "buttons"))
        await answer(api, me, message, catalog, LONG_OPTION, "ru", True)
    result = await me.message(lambda m: bool(m.buttons))
    assert clean(t("score", "ru", correct=8, total=8, percent=100)) in clean(result.text)
    assert [kind for _, kind in kinds] == [
        "buttons" if qid == long_question else "poll" for qid, _ in kinds
    ]
    assert kinds.count((long_question, "buttons")) == 1
    assert api.failed_calls() == []


async def test_poll_answered_after_restart_still_counts(
    api: FakeBotApi,
    engine: QuizEngine,
    catalog: QuizCatalog,
    launch: Launch,
    reopen: Reopen,
) -> None:
    first_process = await launch(engine)
    me = chatter(api, 4003, "Qiu", "en")
    me.send("/mode")
    menu = await me.message()
    query = me.press_button(menu, "📊 Quiz polls")
    assert await me.toast(query) == "Questions in this chat: 📊 Quiz polls"
    me.send(f"/quiz {SEED_QUIZ}")
    message = await me.question()
    assert message.poll is not None
    await stop_process(first_process)
    await answer(api, me, message, catalog, SEED_QUIZ, "en", True)  # while the bot is down
    await launch(await reopen(catalog))
    follow_up = await me.message()
    assert clean(t("correct", "en")) in clean(follow_up.text)
    second = await me.question()
    assert second.poll is not None and second.poll["question"].startswith("Question 2/8")
    # The same vote delivered again changes nothing.
    mark = len(api.calls)
    api.answer_poll(me.user, message.poll["id"], [0])
    await me.barrier()
    assert me.sent_since(mark) == []
    # Back to buttons for this chat.
    me.send("/mode buttons")
    assert clean((await me.message()).text) == "Questions in this chat: 🔘 Buttons"
    me.send(f"/quiz {SEED_QUIZ}")
    resumed = await me.question()
    assert resumed.poll is None and resumed.buttons
    assert api.failed_calls() == []


async def test_votes_of_others_in_a_group_are_ignored(
    api: FakeBotApi, engine: QuizEngine, catalog: QuizCatalog, launch: Launch
) -> None:
    await launch(engine)
    group = api.group_chat(-4003, "Poll club")
    owner = Chatter(api, api.user(4004, "Rita"), group)
    other = Chatter(api, api.user(4005, "Sam"), group)
    owner.send("/mode poll")
    await owner.message()
    owner.send(f"/quiz {SEED_QUIZ}")
    message = await owner.question()
    assert message.poll is not None and message.poll["is_anonymous"] is False
    mark = len(api.calls)
    await answer(api, other, message, catalog, SEED_QUIZ, "en", True)
    await other.barrier()
    assert owner.sent_since(mark) == []
    await answer(api, owner, message, catalog, SEED_QUIZ, "en", False)
    follow_up = await owner.message()
    assert clean(t("wrong", "en")) in clean(follow_up.text)
    second = await owner.question()
    assert second.poll is not None
    assert api.failed_calls() == []
