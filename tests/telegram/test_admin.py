"""Admin commands (/reload, /stats), unknown commands, and handlers that fail politely."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest
import yaml

from adapters.telegram import callback_data as cb
from adapters.telegram.texts import tt
from bot.catalog import QuizCatalog
from bot.engine import QuizEngine
from bot.i18n import t
from bot.storage import SQLiteStorage
from fakes.telegram_bot_api import FakeBotApi
from fakes.telegram_chatter import Chatter, button_for, clean
from quizbot.charts import render_stats_png
from quizbot.settings import Settings
from tests.conftest import QUIZ_DIR, SEED_QUIZ, FakeClock
from tests.telegram.conftest import Launch, chatter, stop_process

ADMIN = 8001
TITLE = "Checkpoint sharding and resumable training"


@pytest.fixture
def quiz_dir(tmp_path: Path) -> Path:
    """A quiz folder of our own, to break files in."""
    directory = tmp_path / "quizzes"
    directory.mkdir()
    shutil.copy(QUIZ_DIR / f"{SEED_QUIZ}.yaml", directory)
    return directory


@pytest.fixture
def admin_settings(settings: Settings, quiz_dir: Path) -> Settings:
    return dataclasses.replace(
        settings, quiz_dir=quiz_dir, admin_telegram_ids=frozenset({str(ADMIN)})
    )


@pytest.fixture
async def admin_engine(quiz_dir: Path, storage: SQLiteStorage) -> QuizEngine:
    catalog, report = QuizCatalog.from_paths([quiz_dir])
    assert not report.errors
    return QuizEngine(catalog, storage, clock=FakeClock())


async def test_reload_reports_live_quizzes_and_errors_and_keeps_a_broken_files_quiz(
    api: FakeBotApi,
    admin_engine: QuizEngine,
    admin_settings: Settings,
    quiz_dir: Path,
    launch: Launch,
) -> None:
    await launch(admin_engine, admin_settings)
    admin = chatter(api, ADMIN, "Ada")
    # A second quiz appears, and the seed quiz's file gets broken.
    shutil.copy(QUIZ_DIR / "mixed-precision-training.yaml", quiz_dir)
    seed = quiz_dir / f"{SEED_QUIZ}.yaml"
    data = yaml.safe_load(seed.read_text(encoding="utf-8"))
    data["questions"][2]["correct"] = "z"
    seed.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    admin.send("/reload")
    report = clean((await admin.message()).text)
    assert report.startswith(clean(tt("reload_done", "en", count=2)))
    assert clean(tt("reload_problems", "en", count=1)) in report
    assert f"{seed}:" in report and 'correct option "z"' in report
    assert admin_engine.catalog.get(SEED_QUIZ) is not None  # the previous version stays live
    # Fixed again: no problems.
    shutil.copy(QUIZ_DIR / f"{SEED_QUIZ}.yaml", quiz_dir)
    admin.send("/reload")
    report = clean((await admin.message()).text)
    assert report == clean(tt("reload_done", "en", count=2) + " " + tt("reload_clean", "en"))
    assert api.failed_calls() == []


async def test_stats_text_and_chart(
    api: FakeBotApi,
    admin_engine: QuizEngine,
    admin_settings: Settings,
    launch: Launch,
) -> None:
    await launch(admin_engine, admin_settings, stats_chart=render_stats_png)
    quiz = admin_engine.catalog.get(SEED_QUIZ)
    assert quiz is not None
    player = chatter(api, 8002, "Pia")
    player.send(f"/quiz {SEED_QUIZ}")
    for right in "01111111":  # question 1 is the only one missed
        question = await player.question()
        await player.toast(player.press(question, button_for(question, quiz, "en", right == "1")))
    await player.message(lambda m: bool(m.buttons))  # the result
    admin = chatter(api, ADMIN, "Ada")
    admin.send(f"/stats {SEED_QUIZ}")
    report = clean((await admin.message()).text)
    assert TITLE in report
    summary = tt("stats_summary", "en", attempts=1, completed=1, average="7.0/8")
    assert clean(summary) in report
    assert report.startswith(clean(tt("stats_title", "en")))
    assert "Hardest question: 1. " in report and "(0% correct)" in report
    photo = await api.wait_for("sendPhoto", after=admin.mark, within=30)  # matplotlib: slow
    assert api.photos[-1].startswith(b"\x89PNG")
    assert api.message_of(photo).caption == TITLE
    admin.send("/stats nope")
    assert clean((await admin.message()).text).startswith('There is no quiz "nope"')
    assert api.failed_calls() == []


async def test_admin_commands_look_unknown_to_everyone_else(
    api: FakeBotApi,
    admin_engine: QuizEngine,
    admin_settings: Settings,
    launch: Launch,
) -> None:
    await launch(admin_engine, admin_settings)
    user = chatter(api, 8003, "Ivan", "ru")
    unknown = clean(tt("unknown_command", "ru"))
    for command in ("/nonsense", "/reload", "/stats", f"/stats {SEED_QUIZ}"):
        user.send(command)
        assert clean((await user.message()).text) == unknown, command
    assert admin_engine.catalog.get(SEED_QUIZ) is not None
    # In a group, only commands addressed to this bot by name are answered: the others may be
    # another bot's.
    group = api.group_chat(-8100, "Club")
    member = Chatter(api, user.user, group)
    member.send("/reload")
    member.send("/nonsense@other_bot")
    member.send("/nonsense@quiz_test_bot")
    reply = await member.message()
    assert clean(reply.text) == unknown
    await member.barrier()
    assert len(api.calls_of("sendMessage", after=member.mark)) == 0
    assert len([c for c in member.sent_since(0) if c.method == "sendMessage"]) == 1
    # The admin's help lists the admin commands; nobody else's does.
    user.send("/help")
    assert "/reload" not in clean((await user.message()).text)
    admin = chatter(api, ADMIN, "Ada")
    admin.send("/help")
    text = clean((await admin.message()).text)
    assert "/reload" in text and "/stats" in text


async def test_admin_menus_are_scoped_to_the_admins_chat(
    api: FakeBotApi,
    admin_engine: QuizEngine,
    admin_settings: Settings,
    launch: Launch,
) -> None:
    adapter = await launch(admin_engine, admin_settings)
    default = json.dumps({"type": "default"})
    chat_admins = json.dumps({"type": "all_chat_administrators"})
    scoped = json.dumps({"chat_id": ADMIN, "type": "chat"}, sort_keys=True)
    for lang in ("", "en", "bn", "ur", "ru"):
        public = [c["command"] for c in api.commands[(default, lang)]]
        assert "reload" not in public and "stats" not in public
        mine = [c["command"] for c in api.commands[(scoped, lang)]]
        admin_only = ["reload", "stats", "quizzes", "unpublish"]
        # An operator's menu: a group admin's (/assign and /report too), then theirs.
        groups_admin = [c["command"] for c in api.commands[(chat_admins, lang)]]
        assert mine[-4:] == admin_only and mine[:-4] == groups_admin
    # No longer an admin: the scoped menu is removed on the next start.
    await stop_process(adapter)
    plain = dataclasses.replace(admin_settings, admin_telegram_ids=frozenset())
    await launch(admin_engine, plain)
    assert not [key for key in api.commands if key[0] == scoped]


async def test_a_failing_handler_tells_the_user_briefly(
    api: FakeBotApi, engine: QuizEngine, storage: SQLiteStorage, launch: Launch
) -> None:
    await launch(engine)
    me = chatter(api, 8004, "Olu", "bn")
    me.send("/help")
    await me.message()
    await storage.close()  # every engine call now fails
    me.send("/progress")
    assert clean((await me.message()).text) == clean(tt("error", "bn"))
    query = me.press(api.messages[(me.chat_id, 1)], "v1:m:p")
    assert await me.toast(query) == clean(tt("error", "bn"))


async def test_review_plays_the_missed_questions_like_a_quiz(
    api: FakeBotApi, engine: QuizEngine, catalog: QuizCatalog, launch: Launch
) -> None:
    await launch(engine)
    quiz = catalog.get(SEED_QUIZ)
    assert quiz is not None
    me = chatter(api, 8005, "Rin")
    me.send("/review")
    assert clean((await me.message()).text) == clean(t("review_empty", "en"))
    me.send(f"/quiz {SEED_QUIZ}")
    for right in "10101111":  # two misses
        question = await me.question()
        await me.toast(me.press(question, button_for(question, quiz, "en", right == "1")))
    await me.message(lambda m: bool(m.buttons))
    me.send("/review")
    assert clean((await me.message()).text) == clean(t("review_started", "en", count=2))
    missed = {quiz.questions[1].id, quiz.questions[3].id}
    for number in (1, 2):
        question = await me.question()
        assert clean(question.text).startswith(f"Question {number}/2")
        shown = next(q for q in quiz.questions if clean(q.text.get("en")) in clean(question.text))
        assert shown.id in missed
        assert await me.toast(me.press(question, button_for(question, quiz, "en", True))) == clean(
            t("correct", "en")
        )
    result = await me.message(lambda m: bool(m.buttons))
    assert "Score: 2/2" in (result.text or "")
    me.send("/review")  # right answers pushed both later: the notice says when
    next_at = clean(t("review_next_at", "en", when="@")).split("@")[0]
    assert clean((await me.message()).text).startswith(next_at)
    assert api.failed_calls() == []


async def test_try_again_after_a_review_keeps_the_unfinished_quiz(
    api: FakeBotApi, engine: QuizEngine, catalog: QuizCatalog, launch: Launch
) -> None:
    """A review's result offers no "Try again" (as on Discord), and one pressed on an older
    result resumes the quiz in progress instead of throwing it away."""
    await launch(engine)
    quiz = catalog.get(SEED_QUIZ)
    assert quiz is not None
    me = chatter(api, 8006, "Ode")
    me.send(f"/quiz {SEED_QUIZ}")
    for right in (False, True):  # one miss, then the quiz is left unfinished at question 3
        question = await me.question()
        await me.toast(me.press(question, button_for(question, quiz, "en", right)))
    await me.question()
    me.send("/review")
    assert clean((await me.message()).text) == clean(t("review_started", "en", count=1))
    question = await me.question()
    await me.toast(me.press(question, button_for(question, quiz, "en", True)))
    result = await me.message(lambda m: bool(m.buttons))
    assert "Score: 1/1" in (result.text or "")
    review_attempt = int(question.buttons[0]["callback_data"].split(":")[2])
    me.press(result, cb.encode(cb.Retry(review_attempt)))  # as results used to carry it
    resumed = await me.question()
    assert clean(resumed.text).startswith("Question 3/8")
    assert [clean(b["text"]) for b in result.buttons] == [clean(t("other_quiz", "en"))]
    assert api.failed_calls() == []
