"""No token ever reaches a log line: a full Telegram quiz played against ``quizbot run`` with
DEBUG logging, every line of its output searched for the token."""

from __future__ import annotations

import asyncio
import os
import sys

import pytest

from bot.catalog import QuizCatalog
from fakes.telegram_bot_api import TOKEN, FakeBotApi
from fakes.telegram_chatter import Chatter, button_for, is_question
from tests.conftest import QUIZ_DIR, ROOT, SEED_QUIZ

pytestmark = pytest.mark.slow  # a whole quiz against `quizbot run` at DEBUG level


async def test_a_full_quiz_at_debug_level_logs_no_token(tmp_path, catalog: QuizCatalog):
    api = FakeBotApi(max_poll_wait=0.2)
    await api.start()
    env = {
        **os.environ,
        "TELEGRAM_BOT_TOKEN": TOKEN,
        "TELEGRAM_API_BASE_URL": api.base_url,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'logs.db'}",
        "QUIZ_DIR": str(QUIZ_DIR),
        "LOG_LEVEL": "DEBUG",
    }
    for name in ("DISCORD_BOT_TOKEN", "WEBHOOK_URL", "LOG_FORMAT"):
        env.pop(name, None)
    log_file = (tmp_path / "bot.log").open("wb")  # a file: a full pipe would block the bot
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "quizbot", "run", cwd=ROOT, env=env,
        stdout=log_file, stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    try:
        user = api.user(8801, "Logan")
        me = Chatter(api, user, api.private_chat(user))
        me.send(f"/quiz {SEED_QUIZ}")
        quiz = catalog.get(SEED_QUIZ)
        assert quiz is not None
        for _ in quiz.questions:
            question = await me.question(within=30)
            me.press(question, button_for(question, quiz, "en", correct=True))
        result = await me.message(lambda m: not is_question(m), within=30)
        assert "8/8" in (result.text or "")
    finally:
        proc.terminate()
        await proc.wait()
        log_file.close()
        await api.close()
    logs = (tmp_path / "bot.log").read_text(encoding="utf-8")
    assert proc.returncode == 0
    assert "level=DEBUG" in logs and "getUpdates" in logs  # the log really was verbose
    assert TOKEN not in logs
    assert TOKEN.split(":")[1] not in logs  # not even the secret half
