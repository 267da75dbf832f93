"""Question banks on Telegram, through python-telegram-bot and the fake Bot API: a bank's
pick, ``/quiz QUIZ #tag``, an unknown tag, and the drawn questions across a restart."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.catalog import QuizCatalog
from bot.engine import QuizEngine
from bot.storage import SQLiteStorage
from fakes.telegram_bot_api import FakeBotApi
from fakes.telegram_chatter import Chatter, button_for, clean, find_question, is_round_question
from tests.banks import BANK, BANK_PICK, topic, write_bank
from tests.conftest import FakeClock
from tests.telegram.conftest import Launch, Reopen, chatter, stop_process

PROGRESS = re.compile(r"^Question (\d+)/(\d+)")


@pytest.fixture
def bank(tmp_path: Path) -> QuizCatalog:
    catalog, report = QuizCatalog.from_paths([write_bank(tmp_path / "bank").parent])
    assert not report.errors
    return catalog


@pytest.fixture
def bank_engine(bank: QuizCatalog, storage: SQLiteStorage) -> QuizEngine:
    return QuizEngine(bank, storage, clock=FakeClock())


async def answer(me: Chatter, bank: QuizCatalog, count: int) -> list[str]:
    """Answer ``count`` questions rightly; the ids of the questions asked."""
    quiz = bank.get(BANK)
    assert quiz is not None
    asked: list[str] = []
    for _ in range(count):
        message = await me.question()
        match = PROGRESS.match(clean(message.text))
        assert match is not None, message.text
        assert (int(match.group(1)), int(match.group(2))) == (len(asked) + 1, BANK_PICK)
        asked.append(find_question(quiz, "en", message.text or "").id)
        me.press(message, button_for(message, quiz, "en", correct=True))
    return asked


async def test_quiz_with_a_hashtag_plays_that_topic_of_the_bank(
    api: FakeBotApi, bank: QuizCatalog, bank_engine: QuizEngine, launch: Launch
) -> None:
    await launch(bank_engine)
    me = chatter(api, 2001, "Tess")
    me.send(f"/quiz {BANK} #gamma")
    asked = await answer(me, bank, BANK_PICK)
    assert len(set(asked)) == BANK_PICK
    assert {topic(int(qid[1:])) for qid in asked} == {"gamma"}
    result = await me.message(lambda m: "Score:" in clean(m.text))
    assert f"Score: {BANK_PICK}/{BANK_PICK} (100%)" in clean(result.text)
    assert api.failed_calls() == []


async def test_an_unknown_hashtag_gets_the_quiz_tags_and_starts_nothing(
    api: FakeBotApi, bank_engine: QuizEngine, storage: SQLiteStorage, launch: Launch
) -> None:
    await launch(bank_engine)
    me = chatter(api, 2002, "Uma")
    me.send(f"/quiz {BANK} #Delta<b>")
    reply = await me.message()
    assert clean(reply.text) == (
        '“Question bank” has no questions tagged "delta<b>". Its tags: #alpha, #beta, #even, #gamma'
    )
    assert await storage.active_attempts("telegram", "2002") == []
    assert api.failed_calls() == []  # the tag a user typed is escaped, not sent as markup


async def test_the_drawn_questions_survive_a_restart(
    api: FakeBotApi, bank: QuizCatalog, bank_engine: QuizEngine, launch: Launch, reopen: Reopen
) -> None:
    first_process = await launch(bank_engine)
    me = chatter(api, 2003, "Vic")
    me.send(f"/quiz {BANK}")
    before = await answer(me, bank, 2)
    third = await me.question()
    await stop_process(first_process)

    await launch(await reopen(bank))
    me.send(f"/quiz {BANK}")
    resumed = await me.question()
    assert clean(resumed.text).startswith(f"Question 3/{BANK_PICK}")
    quiz = bank.get(BANK)
    assert quiz is not None
    assert find_question(quiz, "en", resumed.text or "") == find_question(
        quiz, "en", third.text or ""
    )
    me.press(resumed, button_for(resumed, quiz, "en", correct=True))
    rest = []
    for _ in range(BANK_PICK - 3):
        message = await me.question()
        rest.append(find_question(quiz, "en", message.text or "").id)
        me.press(message, button_for(message, quiz, "en", correct=True))
    result = await me.message(lambda m: "Score:" in clean(m.text))
    assert f"Score: {BANK_PICK}/{BANK_PICK}" in clean(result.text)
    assert len({*before, *rest}) == BANK_PICK - 1  # no question asked twice


async def test_tag_colon_works_too_and_may_come_first(
    api: FakeBotApi, bank: QuizCatalog, bank_engine: QuizEngine, launch: Launch
) -> None:
    await launch(bank_engine)
    me = chatter(api, 2004, "Wes")
    me.send(f"/quiz tag:Alpha {BANK}")
    asked = await answer(me, bank, BANK_PICK)
    assert {topic(int(qid[1:])) for qid in asked} == {"alpha"}


async def test_a_group_round_of_one_topic_and_an_unknown_topic(
    api: FakeBotApi, bank: QuizCatalog, bank_engine: QuizEngine, launch: Launch
) -> None:
    await launch(bank_engine)
    group = api.group_chat(-1009876, "Bank group")
    host = Chatter(api, api.user(2010, "Host", language_code="en"), group)
    host.send(f"/quiz group {BANK} #delta 20")
    refused = await host.message()
    assert 'has no questions tagged "delta"' in clean(refused.text)
    host.send(f"/quiz group {BANK} 20 #beta")
    question = await host.message(is_round_question)
    quiz = bank.get(BANK)
    assert quiz is not None
    assert f"1/{BANK_PICK}" in clean(question.text)
    assert topic(int(find_question(quiz, "en", question.text or "").id[1:])) == "beta"
