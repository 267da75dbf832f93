"""A web process serves ``GET /healthz`` on ``PORT`` whichever bots run: the runner owns the
HTTP server, and Telegram's webhook (when configured) shares its port."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import aiohttp
import pytest

from fakes.discord_api import TOKEN, FakeDiscord
from quizbot.runner import run_bots
from quizbot.settings import Settings
from tests.conftest import QUIZ_DIR


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def get(url: str) -> tuple[int, object]:
    async with aiohttp.ClientSession() as http, http.get(url) as response:
        return response.status, await response.json()


def test_a_set_port_makes_a_web_process() -> None:
    env = {"QUIZ_DIR": str(QUIZ_DIR)}
    assert not Settings.from_env(env).serve_http  # a worker: no port bound
    assert Settings.from_env({**env, "PORT": "5000"}).serve_http


async def test_a_discord_only_web_process_serves_healthz_on_port(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    port = free_port()
    settings = Settings.from_env(
        {
            "DATABASE_URL": f"sqlite:///{tmp_path / 'web.db'}",
            "QUIZ_DIR": str(QUIZ_DIR),
            "DISCORD_BOT_TOKEN": TOKEN,
            "PORT": str(port),
        }
    )
    stop = asyncio.Event()
    running = asyncio.create_task(run_bots(settings, stop, listen="127.0.0.1"))
    try:
        await asyncio.wait_for(fake_discord.identified.wait(), 20)
        assert await get(f"http://127.0.0.1:{port}/healthz") == (200, {"status": "ok"})
        stop.set()
        assert await asyncio.wait_for(running, 20) == 0
    finally:
        if not running.done():
            running.cancel()
    with pytest.raises(aiohttp.ClientConnectionError):  # the port is released at the end
        await get(f"http://127.0.0.1:{port}/healthz")


async def test_telegram_webhook_and_healthz_share_the_runners_port(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    telegram = pytest.importorskip("fakes.telegram_bot_api")
    bot_api = telegram.FakeBotApi()
    await bot_api.start()
    port = free_port()
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'both.db'}",
        quiz_dir=QUIZ_DIR,
        telegram_token=telegram.TOKEN,
        telegram_api_base_url=bot_api.base_url,
        webhook_url="https://bot.example.org/telegram/hook",
        webhook_secret="s3cret_Token-1",
        port=port,
        serve_http=True,
        discord_token=TOKEN,
    )
    stop = asyncio.Event()
    running = asyncio.create_task(run_bots(settings, stop, listen="127.0.0.1"))
    try:
        await asyncio.wait_for(fake_discord.identified.wait(), 20)
        await bot_api.wait_for("setWebhook", within=20)
        assert await get(f"http://127.0.0.1:{port}/healthz") == (200, {"status": "ok"})
        user = bot_api.user(5101, "Wes")
        update = bot_api.text_update(user, bot_api.private_chat(user), "/help")
        headers = {"X-Telegram-Bot-Api-Secret-Token": "s3cret_Token-1"}
        url = f"http://127.0.0.1:{port}/telegram/hook"
        async with (
            aiohttp.ClientSession() as http,
            http.post(url, json=update, headers=headers) as r,
        ):
            assert r.status == 200
        await bot_api.wait_for("sendMessage", within=20)  # the update reached the bot
        stop.set()
        assert await asyncio.wait_for(running, 20) == 0
    finally:
        if not running.done():
            running.cancel()
        await bot_api.close()
