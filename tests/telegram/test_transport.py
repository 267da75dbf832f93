"""How the bot talks to the Bot API: rate limits, webhook mode and its health check, and the
process lifecycle."""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import os
import signal
import socket
import sys
from pathlib import Path

import aiohttp
import pytest

from adapters.telegram import TelegramAdapter
from adapters.telegram.app import webhook_secret_for
from bot.catalog import QuizCatalog
from bot.engine import QuizEngine
from bot.i18n import t
from bot.storage import SQLiteStorage
from fakes.telegram_bot_api import TOKEN, FakeBotApi
from fakes.telegram_chatter import Chatter, clean
from quizbot.runner import YOUNG_COLLECTION_THRESHOLD, run_bots, telegram_config
from quizbot.settings import Settings
from tests.conftest import QUIZ_DIR, ROOT, FakeClock, services_beside
from tests.telegram.conftest import Launch

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def webhook_settings(api: FakeBotApi, port: int) -> Settings:
    return Settings(
        quiz_dir=QUIZ_DIR,
        telegram_token=TOKEN,
        telegram_api_base_url=api.base_url,
        webhook_url="https://bot.example.org/telegram/hook",
        webhook_secret="s3cret_Token-1",
        port=port,
    )


async def get_health(port: int) -> tuple[int, object]:
    async with (
        aiohttp.ClientSession() as http,
        http.get(f"http://127.0.0.1:{port}/healthz") as response,
    ):
        return response.status, await response.json()


# PTB itself reads RetryAfter.retry_after, which warns about its future type.
@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")
async def test_a_429_is_retried_after_retry_after(
    api: FakeBotApi, engine: QuizEngine, launch: Launch
) -> None:
    await launch(engine)
    user = api.user(5001, "Tara")
    me = Chatter(api, user, api.private_chat(user))
    api.fail_next("sendMessage", times=1, retry_after=1)
    me.send("/help")
    reply = await me.message(within=10)
    assert clean(t("welcome", "en")) in clean(reply.text)
    refused = api.calls_of("sendMessage", ok=False)
    delivered = api.calls_of("sendMessage")
    assert [c.error_code for c in refused] == [429]
    assert len(delivered) == 1
    assert delivered[0].params["text"] == refused[0].params["text"]
    assert delivered[0].at - refused[0].at >= 1.0  # waited retry_after, then sent it again


async def test_webhook_mode_takes_updates_with_the_secret_token_only(
    api: FakeBotApi, engine: QuizEngine, launch: Launch
) -> None:
    port = free_port()
    await launch(engine, webhook_settings(api, port))
    assert api.webhook["url"] == "https://bot.example.org/telegram/hook"
    assert api.webhook["secret_token"] == "s3cret_Token-1"
    assert api.webhook["allowed_updates"] == ["message", "callback_query", "poll_answer"]
    assert api.calls_of("getUpdates") == []
    user = api.user(5002, "Umar")
    me = Chatter(api, user, api.private_chat(user))
    url = f"http://127.0.0.1:{port}/telegram/hook"
    async with aiohttp.ClientSession() as http:
        for headers in ({}, {SECRET_HEADER: "wrong"}):
            update = api.text_update(user, me.chat, "/help")
            async with http.post(url, json=update, headers=headers) as response:
                assert response.status == 403
        secret = {SECRET_HEADER: "s3cret_Token-1"}
        async with http.post(url, data=b"{not json", headers=secret) as response:
            assert response.status == 400  # not from Telegram
        unreadable = {"update_id": 7, "message": {"text": "no date, no chat"}}
        async with http.post(url, json=unreadable, headers=secret) as response:
            assert response.status == 200  # unreadable, logged, and not to be sent again
        async with http.get(url, headers=secret) as response:
            assert response.status == 405  # updates are POSTed
        mark = len(api.calls)
        update = api.text_update(user, me.chat, "/progress")
        async with http.post(url, json=update, headers={SECRET_HEADER: "s3cret_Token-1"}) as resp:
            assert resp.status == 200
    me.mark = mark
    reply = await me.message()
    assert clean(reply.text) == clean(t("no_progress", "en"))
    assert len(api.calls_of("sendMessage")) == 1  # the refused /help updates got nothing


async def test_webhook_secret_defaults_to_one_derived_from_the_token(
    api: FakeBotApi, engine: QuizEngine, launch: Launch
) -> None:
    settings = Settings(
        quiz_dir=QUIZ_DIR,
        telegram_token=TOKEN,
        telegram_api_base_url=api.base_url,
        webhook_url="https://bot.example.org/hook",
        port=free_port(),
    )
    await launch(engine, settings)
    assert api.webhook["secret_token"] == webhook_secret_for(TOKEN)


async def test_healthz_answers_200_while_the_database_works_and_503_when_not(
    api: FakeBotApi, catalog: QuizCatalog, launch: Launch, tmp_path: Path
) -> None:
    storage = SQLiteStorage(tmp_path / "health.db")
    await storage.open()
    engine = QuizEngine(catalog, storage, clock=FakeClock())
    port = free_port()
    await launch(engine, webhook_settings(api, port))
    assert await get_health(port) == (200, {"status": "ok"})
    await storage.close()  # the database is gone: a real SQLiteStorage, closed
    status, body = await get_health(port)
    assert status == 503
    assert body == {"status": "unavailable", "database": "down"}


async def test_the_port_is_bound_before_telegram_answers(api: FakeBotApi, tmp_path: Path) -> None:
    """A platform waiting for $PORT sees it at once, even when Telegram is slow to answer:
    ``quizbot run`` binds it before the Telegram adapter starts."""
    api.delays["getMe"] = 1.5
    port = free_port()
    settings = dataclasses.replace(
        webhook_settings(api, port), database_url=f"sqlite:///{tmp_path / 'q.db'}", serve_http=True
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    began = loop.time()
    collecting = gc.get_threshold()
    running = asyncio.create_task(run_bots(settings, stop, listen="127.0.0.1"))
    try:
        while True:
            try:
                status, _ = await get_health(port)
                break
            except aiohttp.ClientConnectionError:
                assert not running.done(), running
                assert loop.time() - began < 1.0, "the port was not bound within a second"
                await asyncio.sleep(0.02)
        assert status == 200
        assert not api.webhook.get("url")  # Telegram (getMe) has not answered yet
        for _ in range(500):
            if api.webhook.get("url"):
                break
            await asyncio.sleep(0.02)
        assert api.webhook["url"] == "https://bot.example.org/telegram/hook"
        assert gc.get_threshold()[0] == YOUNG_COLLECTION_THRESHOLD  # while the bots run
    finally:
        stop.set()
        assert await asyncio.wait_for(running, 10) == 0
    with pytest.raises(aiohttp.ClientConnectionError):  # stopping released the port
        await get_health(port)
    assert gc.get_threshold() == collecting  # and as before once they stop


async def test_quizbot_run_polls_and_stops_on_sigterm(api: FakeBotApi, tmp_path: Path) -> None:
    """``quizbot run`` with a token: the adapter starts, and SIGTERM ends it with code 0."""
    env = {
        **os.environ,
        "TELEGRAM_BOT_TOKEN": TOKEN,
        "TELEGRAM_API_BASE_URL": api.base_url,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'run.db'}",
        "QUIZ_DIR": str(QUIZ_DIR),
        "LOG_LEVEL": "INFO",
    }
    for name in ("DISCORD_BOT_TOKEN", "WEBHOOK_URL"):
        env.pop(name, None)
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "quizbot",
        "run",
        cwd=ROOT,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    try:
        await api.wait_for("getUpdates", within=20)  # polling has begun
        user = api.user(5003, "Vera")
        me = Chatter(api, user, api.private_chat(user))
        me.send("/help")
        await me.message(within=10)
        proc.send_signal(signal.SIGTERM)
        output, _ = await asyncio.wait_for(proc.communicate(), 20)
        assert proc.returncode == 0, output.decode()
        assert "adapter stopped: telegram" in output.decode()
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


async def test_every_send_to_a_group_counts_towards_its_budget_without_extra_code(
    api: FakeBotApi, engine: QuizEngine, launch: Launch
) -> None:
    """The budget rounds pace themselves by is kept by the Application's rate limiter: any
    request that sends or changes something in a group counts, even from code that never
    heard of the budget (here stopPoll, which the bot does not use), and nothing else does."""
    adapter = await launch(engine)
    assert adapter.application is not None
    bot = adapter.application.bot
    group = api.group_chat(-100777, "Budgeted")["id"]
    user = api.user(5201, "Xia")
    await bot.send_message(group, "hello")
    poll = await bot.send_poll(group, "Which?", ["a", "b"])
    await bot.stop_poll(group, poll.message_id)  # a send path with no budget code anywhere
    await bot.get_chat_member(group, user["id"])  # reading sends nothing
    await bot.send_message(api.private_chat(user)["id"], "private chats have no such limit")
    assert adapter.budget.used(group) == 3
    assert adapter.budget.used(user["id"]) == 0


def test_webhook_mode_needs_the_web_server_and_the_config_hides_secrets(
    api: FakeBotApi, engine: QuizEngine
) -> None:
    """The adapter starts no server of its own: webhook mode without a WebMount is refused
    at once, and the config it gets never shows the token or the secret (log lines)."""
    config = telegram_config(webhook_settings(api, free_port()))
    with pytest.raises(ValueError, match="web server"):
        TelegramAdapter(services_beside(engine), config)
    assert TOKEN not in repr(config) and "s3cret_Token-1" not in repr(config)
