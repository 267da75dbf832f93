"""Fixtures: the fake Discord API with discord.py pointed at it, a logged-in quiz client."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import discord
import discord.gateway
import discord.http
import pytest
import yarl

from adapters.discord import QuizClient
from bot.catalog import QuizCatalog
from bot.engine import QuizEngine
from bot.quiz import Quiz
from bot.rounds import RoundClock
from bot.scheduling import Scheduler
from fakes.discord_api import TOKEN, FakeDiscord
from fakes.discord_users import GUILD_ID, ClientFactory, World
from quizbot.runner import discord_config
from quizbot.settings import Settings
from tests.conftest import SEED_QUIZ, services_beside


@pytest.fixture
async def fake_discord(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[FakeDiscord]:
    fake = FakeDiscord()
    fake.guilds.add(GUILD_ID)
    base = await fake.start()
    # discord.py's own configuration: where the REST API and the gateway are.
    monkeypatch.setattr(discord.http.Route, "BASE", f"{base}/api/v10")
    monkeypatch.setattr(
        discord.gateway.DiscordWebSocket,
        "DEFAULT_GATEWAY",
        yarl.URL(f"{base.replace('http', 'ws')}/gateway/"),
    )
    yield fake
    await fake.close()
    assert fake.violations == [], fake.violations


@pytest.fixture
def settings(db_path: Path) -> Settings:
    return Settings(database_url=f"sqlite:///{db_path}", discord_token=TOKEN)


@pytest.fixture
async def make_client(
    fake_discord: FakeDiscord, settings: Settings
) -> AsyncIterator[ClientFactory]:
    """Log in new clients against the fake (HTTP only, like a process before its gateway
    connects) on the services beside an engine, then start their scheduler, as the runner
    does; all are closed at the end.

    ``clock``: the services' (a VirtualClock the engine shares); ``settings``: other than the
    fixture's."""
    clients: list[QuizClient] = []
    schedulers: list[Scheduler] = []
    usual = settings

    async def make(
        engine: QuizEngine,
        *,
        clock: RoundClock | None = None,
        settings: Settings | None = None,
        **options: Any,
    ) -> QuizClient:
        services = services_beside(engine, clock)
        client = QuizClient(services, discord_config(settings or usual), **options)
        clients.append(client)
        await client.login(TOKEN)
        services.scheduling.scheduler.start()
        schedulers.append(services.scheduling.scheduler)
        return client

    yield make
    for client in clients:
        await client.close()
    for scheduler in schedulers:
        await scheduler.stop()


@pytest.fixture
async def world(fake_discord: FakeDiscord, engine: QuizEngine, make_client: ClientFactory) -> World:
    return World(fake_discord, await make_client(engine))


@pytest.fixture
def quiz(catalog: QuizCatalog) -> Quiz:
    found = catalog.get(SEED_QUIZ)
    assert found is not None
    return found
