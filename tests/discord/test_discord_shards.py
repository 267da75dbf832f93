"""Sharding (SHARD_COUNT / SHARD_IDS) and a gateway that fails for good, against the fake."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import sys
from pathlib import Path

from adapters.discord import DiscordAdapter
from bot.engine import QuizEngine
from fakes.discord_api import TOKEN, FakeDiscord
from quizbot.runner import discord_config
from quizbot.settings import Settings
from tests.conftest import QUIZ_DIR, services_beside
from tests.discord.test_discord_lifecycle import LAUNCHER, ROOT, eventually, send_help


async def test_all_recommended_shards_run_when_none_are_named(
    fake_discord: FakeDiscord, engine: QuizEngine, settings: Settings
) -> None:
    fake_discord.recommended_shards = 2
    adapter = DiscordAdapter(services_beside(engine), discord_config(settings))
    await adapter.start()
    try:
        await eventually(lambda: len(fake_discord.gateway_shards) == 2)
        assert sorted(fake_discord.gateway_shards or []) == [[0, 2], [1, 2]]  # type: ignore[type-var]
        await send_help(fake_discord)  # and it answers
    finally:
        await adapter.stop()


async def test_this_process_runs_only_the_shards_it_is_given(
    fake_discord: FakeDiscord, engine: QuizEngine, settings: Settings
) -> None:
    mine = dataclasses.replace(settings, shard_count=3, shard_ids=(1, 2))
    adapter = DiscordAdapter(services_beside(engine), discord_config(mine))
    await adapter.start()
    try:
        await eventually(lambda: len(fake_discord.gateway_shards) == 2)
        assert fake_discord.gateway_shards == [[1, 3], [2, 3]]
        assert not [r for r in fake_discord.requests if r.path.endswith("/gateway/bot")]
    finally:
        await adapter.stop()


async def run_quizbot(fake: FakeDiscord, tmp_path: Path) -> asyncio.subprocess.Process:
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
    gateway = f"{fake.base_url.replace('http', 'ws')}/gateway/"
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        LAUNCHER,
        fake.base_url,
        gateway,
        cwd=tmp_path,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )


async def test_quizbot_run_exits_non_zero_when_the_token_is_revoked(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    process = await run_quizbot(fake_discord, tmp_path)
    try:
        await asyncio.wait_for(fake_discord.identified.wait(), 30)
        await send_help(fake_discord)  # it works...
        await fake_discord.revoke()  # ...until the token is reset in the developer portal
        code = await asyncio.wait_for(process.wait(), 30)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    _, stderr = await process.communicate()
    log = stderr.decode()
    assert code == 1, log
    assert "4004" in log and "failed for good" in log
    assert TOKEN not in log
