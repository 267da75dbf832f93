"""Starting and stopping: the adapter as the runner uses it, and `quizbot run` with SIGTERM."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

import discord
import pytest

from adapters.discord import DiscordAdapter
from bot.catalog import QuizCatalog
from bot.engine import QuizEngine
from bot.i18n import t
from bot.services import Services
from fakes.discord_api import TOKEN, UPDATE_MESSAGE, FakeDiscord, Interaction
from fakes.discord_users import World, button_for, pick_letter, text_of, visible
from quizbot.runner import discord_config
from quizbot.settings import Settings
from tests.conftest import QUIZ_DIR, SEED_QUIZ, services_beside
from tests.discord.discord_harness import SlowStorage

ROOT = Path(__file__).resolve().parents[2]

# `quizbot run`, with discord.py's endpoints pointed at the fake (its configuration, as in the
# fixtures); everything else is the real command.
LAUNCHER = """
import sys, yarl, discord.gateway, discord.http
discord.http.Route.BASE = sys.argv[1] + "/api/v10"
discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(sys.argv[2])
from quizbot.cli import main
sys.exit(main(["run"]))
"""


async def eventually(condition: Callable[[], object], seconds: float = 10.0) -> None:
    """Wait until ``condition()`` holds (things another process or task does)."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.02)


async def send_help(fake: FakeDiscord) -> Interaction:
    """A /help typed by a user, delivered over the gateway like Discord does."""
    payload = World(fake, None).user("Gus").command_payload("help")
    interaction = Interaction(
        id=int(payload["id"]),
        token=payload["token"],
        type=payload["type"],
        user_id=int(payload["member"]["user"]["id"]),
        channel_id=int(payload["channel_id"]),
        guild_id=int(payload["guild_id"]),
        fed_at=time.monotonic(),
    )
    fake.expect(interaction)
    await fake.dispatch("INTERACTION_CREATE", payload)
    await eventually(lambda: interaction.response_type is not None)
    return interaction


async def test_start_connects_in_the_background_and_stop_closes_cleanly(
    fake_discord: FakeDiscord, engine: QuizEngine, settings: Settings
) -> None:
    adapter = DiscordAdapter(services_beside(engine), discord_config(settings))
    assert adapter.name == "discord"
    await adapter.start()  # returns once logged in; the gateway connects in the background
    assert fake_discord.command_syncs == ["global"]
    await asyncio.wait_for(fake_discord.identified.wait(), 10)
    interaction = await send_help(fake_discord)
    reply = fake_discord.messages[interaction.original_id or 0]
    assert visible(t("welcome", "en")) in visible(reply.embeds[0]["description"])
    await adapter.stop()
    assert adapter.client.is_closed()
    await eventually(lambda: fake_discord.gateway_close_codes)
    assert fake_discord.gateway_close_codes == [1000]  # a normal close, not a dropped socket


async def test_a_bad_token_fails_start_without_leaking_a_session(
    fake_discord: FakeDiscord, engine: QuizEngine, settings: Settings
) -> None:
    adapter = DiscordAdapter(
        services_beside(engine),
        discord_config(dataclasses.replace(settings, discord_token="wrong")),
    )
    try:
        await adapter.start()
    except discord.LoginFailure:
        pass
    else:
        raise AssertionError("a wrong token must fail start()")
    assert adapter.client.is_closed()
    assert fake_discord.command_syncs == []


async def test_quizbot_run_stops_on_sigterm_with_exit_code_0(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("TELEGRAM_BOT_TOKEN", "DISCORD_GUILD_ID", "DATABASE_URL")
    }
    env |= {
        "DISCORD_BOT_TOKEN": TOKEN,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'run.db'}",
        "QUIZ_DIR": str(QUIZ_DIR),
        "LOG_LEVEL": "WARNING",
        "PYTHONPATH": str(ROOT),
    }
    gateway = f"{fake_discord.base_url.replace('http', 'ws')}/gateway/"
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        LAUNCHER,
        fake_discord.base_url,
        gateway,
        cwd=tmp_path,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        await asyncio.wait_for(fake_discord.identified.wait(), 30)
        await send_help(fake_discord)
        process.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(process.wait(), 20)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    _, stderr = await process.communicate()
    assert code == 0, stderr.decode()
    assert "Traceback" not in stderr.decode()
    await eventually(lambda: fake_discord.gateway_close_codes)
    assert fake_discord.gateway_close_codes == [1000]


async def test_stop_lets_an_answer_in_progress_finish(
    fake_discord: FakeDiscord, catalog: QuizCatalog, tmp_path: Path, settings: Settings
) -> None:
    slow = SlowStorage(tmp_path / "slow.db")
    await slow.open()
    try:
        engine = QuizEngine(catalog, slow)
        adapter = DiscordAdapter(Services.build(engine, slow), discord_config(settings))
        await adapter.start()
        await asyncio.wait_for(fake_discord.identified.wait(), 10)
        world = World(fake_discord, adapter.client)
        alice = world.user("Alice")
        quiz = catalog.get(SEED_QUIZ)
        assert quiz is not None
        message = (await alice.command("quiz", quiz=SEED_QUIZ)).last
        letter = pick_letter(quiz, message, "en", correct=True)
        pressed = world.deliver(
            alice.press_payload(message, button_for(message, letter)["custom_id"])
        )
        await asyncio.sleep(0.1)  # SIGTERM arrives while the answer is being written
        await adapter.stop()
        assert pressed.response_type == UPDATE_MESSAGE  # answered before disconnecting
        assert visible(t("question_progress", "en", number=2, total=8)) in text_of(
            *fake_discord.messages.values()
        )
        await eventually(lambda: fake_discord.gateway_close_codes)
        assert fake_discord.gateway_close_codes == [1000]
    finally:
        await slow.close()


async def test_discord_runs_alongside_telegram_on_one_engine(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    telegram = pytest.importorskip("fakes.telegram_bot_api")
    from quizbot.runner import run_bots

    bot_api = telegram.FakeBotApi()
    await bot_api.start()
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'both.db'}",
        quiz_dir=QUIZ_DIR,
        telegram_token=telegram.TOKEN,
        telegram_api_base_url=bot_api.base_url,
        discord_token=TOKEN,
    )
    stop = asyncio.Event()
    running = asyncio.create_task(run_bots(settings, stop))
    try:
        await asyncio.wait_for(fake_discord.identified.wait(), 20)
        await eventually(lambda: bot_api.calls_of("getUpdates", ok=None))
        await send_help(fake_discord)
        stop.set()  # what SIGTERM does
        assert await asyncio.wait_for(running, 20) == 0
    finally:
        if not running.done():
            running.cancel()
        await bot_api.close()
    assert fake_discord.gateway_close_codes == [1000]
