"""The webhook port under a flood: capped connections, slow clients dropped, refusals before
the body is read, and ``/healthz`` and real updates served throughout."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import resource
import sys
from pathlib import Path

import aiohttp

from bot.engine import QuizEngine
from bot.i18n import t
from fakes.telegram_bot_api import TOKEN, FakeBotApi
from fakes.telegram_chatter import Chatter, clean
from quizbot.settings import Settings
from quizbot.web import BODY_TIMEOUT, IDLE_TIMEOUT
from tests.conftest import QUIZ_DIR, ROOT
from tests.telegram.conftest import Launch
from tests.telegram.test_transport import SECRET_HEADER, free_port, webhook_settings

HOOK = "/telegram/hook"
SECRET = "s3cret_Token-1"


async def closed_within(reader: asyncio.StreamReader, seconds: float) -> bytes:
    """What the server sent before it closed the connection, which it must within
    ``seconds`` (a timeout here fails the test)."""
    received = b""
    async with asyncio.timeout(seconds):
        with contextlib.suppress(ConnectionError):
            while chunk := await reader.read(4096):
                received += chunk
    return received


async def test_set_webhook_carries_max_connections(
    api: FakeBotApi, engine: QuizEngine, launch: Launch
) -> None:
    await launch(engine, webhook_settings(api, free_port()))
    assert api.webhook["max_connections"] == 40  # Telegram's own default, now explicit
    api2 = FakeBotApi()
    await api2.start()
    try:
        custom = Settings.from_env(
            {
                "QUIZ_DIR": str(QUIZ_DIR),
                "TELEGRAM_BOT_TOKEN": TOKEN,
                "TELEGRAM_API_BASE_URL": api2.base_url,
                "WEBHOOK_URL": "https://bot.example.org/telegram/hook",
                "PORT": str(free_port()),
                "WEBHOOK_MAX_CONNECTIONS": "12",
            }
        )
        await launch(engine, custom)
        assert api2.webhook["max_connections"] == 12
    finally:
        await api2.close()


async def test_a_request_without_the_secret_is_refused_before_its_body_is_read(
    api: FakeBotApi, engine: QuizEngine, launch: Launch
) -> None:
    port = free_port()
    await launch(engine, webhook_settings(api, port))
    for headers, status in (
        ("", b"403"),  # no secret: refused on its headers alone
        (f"{SECRET_HEADER}: wrong\r\n", b"403"),
        (f"{SECRET_HEADER}: {SECRET}\r\n", b"413"),  # more than any update: not waited for
    ):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        head = (
            f"POST {HOOK} HTTP/1.1\r\nHost: bot\r\nContent-Type: application/json\r\n"
            f"Content-Length: {900_000 if status == b'403' else 50_000_000}\r\n{headers}\r\n"
        )
        writer.write(head.encode())  # and never a byte of the body
        await writer.drain()
        async with asyncio.timeout(2):
            line = await reader.readline()
        assert line.split()[1] == status, line
        writer.close()


async def test_slow_clients_are_dropped_and_others_served(
    api: FakeBotApi, engine: QuizEngine, launch: Launch
) -> None:
    port = free_port()
    await launch(engine, webhook_settings(api, port))
    loop = asyncio.get_running_loop()

    async def drip(first: bytes, then: bytes) -> float:
        """Send ``first``, then ``then`` a byte a second; seconds until the server hangs up."""
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        began = loop.time()
        writer.write(first)

        async def trickle() -> None:
            with contextlib.suppress(ConnectionError):
                for byte in then:
                    await asyncio.sleep(1)
                    writer.write(bytes([byte]))
                    await writer.drain()

        sender = asyncio.create_task(trickle())
        try:
            received = await closed_within(reader, IDLE_TIMEOUT + BODY_TIMEOUT + 5)
        finally:
            sender.cancel()
            writer.close()
        assert b"200 OK" not in received
        return loop.time() - began

    headers = drip(b"GET /healthz HTTP/1.1\r\n", b"Host: bot\r\nX-Slow: " + b"a" * 60)
    body = drip(
        (
            f"POST {HOOK} HTTP/1.1\r\nHost: bot\r\n{SECRET_HEADER}: {SECRET}\r\n"
            "Content-Type: application/json\r\nContent-Length: 60\r\n\r\n{"
        ).encode(),
        b'"update_id": 1' + b" " * 46,
    )
    slow = asyncio.gather(headers, body)
    await asyncio.sleep(0.5)
    async with (  # meanwhile, everyone else is served
        aiohttp.ClientSession() as http,
        http.get(f"http://127.0.0.1:{port}/healthz") as response,
    ):
        assert response.status == 200
    header_time, body_time = await slow
    assert header_time < IDLE_TIMEOUT + 1.5
    assert body_time < BODY_TIMEOUT + 1.5


async def test_a_connection_flood_leaves_healthz_and_updates_working(
    api: FakeBotApi, tmp_path: Path
) -> None:
    """``quizbot run`` with 256 file descriptors, 1,200 connections from loopback: it never
    runs out of descriptors, answers /healthz and handles a real update meanwhile, and
    afterwards everything works."""
    port = free_port()
    env = {
        **os.environ,
        "TELEGRAM_BOT_TOKEN": TOKEN,
        "TELEGRAM_API_BASE_URL": api.base_url,
        "WEBHOOK_URL": f"https://bot.example.org{HOOK}",
        "WEBHOOK_SECRET": SECRET,
        "PORT": str(port),
        "DATABASE_URL": f"sqlite:///{tmp_path / 'flood.db'}",
        "QUIZ_DIR": str(QUIZ_DIR),
        "QUIZ_CACHE_DIR": "",
        "LOG_LEVEL": "INFO",
    }
    env.pop("DISCORD_BOT_TOKEN", None)

    def few_descriptors() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))

    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "quizbot",
        "run",
        cwd=ROOT,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        preexec_fn=few_descriptors,
    )
    flood: list[asyncio.StreamWriter] = []
    try:
        async with asyncio.timeout(120):  # before the fix, the flood left it stuck
            await flood_and_check(api, proc, port, flood)
    finally:
        for writer in flood:
            writer.close()
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


async def flood_and_check(
    api: FakeBotApi, proc: asyncio.subprocess.Process, port: int, flood: list[asyncio.StreamWriter]
) -> None:
    """Waves of idle connections; /healthz and a real update between them, and after."""
    await api.wait_for("setWebhook", within=30)
    user = api.user(5301, "Yusuf")
    me = Chatter(api, user, api.private_chat(user))
    loop = asyncio.get_running_loop()

    async def connect() -> None:
        with contextlib.suppress(OSError, TimeoutError):
            async with asyncio.timeout(3):  # a server that stopped accepting: SYNs hang
                _, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(b"GET /healthz HTTP/1.1\r\n")  # and never the rest
            flood.append(writer)

    async with aiohttp.ClientSession() as http:

        async def health() -> float:
            began = loop.time()
            async with (
                asyncio.timeout(5),
                http.get(
                    f"http://127.0.0.1:{port}/healthz",
                    headers={"Connection": "close"},
                ) as response,
            ):
                assert response.status == 200
            return loop.time() - began

        async def post(text: str) -> None:
            mark = len(api.calls)
            update = json.dumps(api.text_update(user, me.chat, text))
            async with (
                asyncio.timeout(5),
                http.post(
                    f"http://127.0.0.1:{port}{HOOK}",
                    data=update,
                    headers={SECRET_HEADER: SECRET, "Connection": "close"},
                ) as response,
            ):
                assert response.status == 200
            me.mark = mark

        for wave in range(6):  # 6 waves of 200, 1,200 connections in all
            await asyncio.gather(*(connect() for _ in range(200)))
            assert await health() < 2.0, f"/healthz slow during wave {wave}"
        await post("/progress")
        reply = await me.message(within=10)
        assert clean(reply.text) == clean(t("no_progress", "en"))
        for writer in flood:
            writer.close()
        flood.clear()
        await asyncio.sleep(0.5)
        assert await health() < 2.0
        await post("/help")
        assert clean(t("welcome", "en")) in clean((await me.message(within=10)).text)
    proc.terminate()
    output, _ = await asyncio.wait_for(proc.communicate(), 20)
    text = output.decode()
    assert proc.returncode == 0, text
    assert "out of system resource" not in text and "Too many open files" not in text
