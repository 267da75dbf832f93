"""(g) Discord: N members take the whole seed quiz through discord.py, all pressing at once.

What is measured
    The real bot (:class:`~adapters.discord.QuizClient` on discord.py, the engine, a
    temporary SQLite database) against the fake Discord of ``fakes/discord_api.py``, in the
    benchmark's process (discord.py is pointed at the fake by its own ``Route.BASE`` and
    gateway URL). Setup (untimed): every member types ``/quiz checkpoint-sharding`` in the
    server channel and gets the first question. Then, question by question, all N members press
    an answer on their own question at the same moment (half the answers right), as the
    gateway would deliver them, and the next burst starts when every press of this one has been
    handled: N presses at once, 8 times. Per press: the seconds from its delivery to the
    interaction's initial response (an update of the message or a defer) at the fake.

Figures
    share of presses answered or deferred within Discord's 3 s deadline (target: all), the
    p95 of that delay, presses/s over the bursts (from a burst's delivery to its last press
    handled, summed over the 8), members who got their result.

Baseline
    None: Discord's deadline is absolute (a later response is "Unknown interaction").
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import discord
import discord.gateway
import discord.http
import yarl

from bench import SEED_QUIZ
from bench.answers import seed_catalog
from bench.report import STATUS_OK, Json, check, figure, percentile, scratch_dir, section
from fakes.discord_api import (
    DEFERRED_UPDATE_MESSAGE,
    TOKEN,
    UPDATE_MESSAGE,
    FakeDiscord,
    Message,
)
from fakes.discord_users import GUILD_ID, Player, World, button_for, buttons, pick_letter

TITLE = "Discord: members taking the whole quiz, all pressing at once"
DEADLINE_S = 3.0  # Discord drops an interaction without an initial response by then
START_BATCH = 50  # members starting their quiz together in the untimed setup


@dataclass(frozen=True)
class Size:
    users: int


def sizes(quick: bool, users: int | None = None) -> Size:
    return Size(users or (50 if quick else 500))


@dataclass
class Member:
    player: Player
    question: Message | None  # the question in front of them; None once they have a result
    finished: bool = False


def point_discord_at(base: str) -> Callable[[], None]:
    """discord.py's own configuration: where the REST API and the gateway are; returns the
    undo."""
    old_base = discord.http.Route.BASE
    old_gateway = discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    discord.http.Route.BASE = f"{base}/api/v10"
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(
        f"{base.replace('http', 'ws')}/gateway/"
    )

    def undo() -> None:
        discord.http.Route.BASE = old_base
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = old_gateway

    return undo


def _unanswered(message: Message) -> bool:
    return any(
        b.get("custom_id", "").startswith("qz1:a:") and not b.get("disabled")
        for b in buttons(message)
    )


def _next_questions(world: World) -> dict[int, Message]:
    """Interaction id -> the question the bot sent in answer to it (none: the result)."""
    return {
        m.interaction_id: m
        for m in world.fake.messages.values()
        if m.interaction_id is not None and _unanswered(m)
    }


async def _start(world: World, users: int) -> list[Member]:
    players = [world.user(f"Member {n}") for n in range(users)]
    members = []
    for first in range(0, users, START_BATCH):
        batch = players[first : first + START_BATCH]
        exchanges = await asyncio.gather(*(p.command("quiz", quiz=SEED_QUIZ) for p in batch))
        for player, exchange in zip(batch, exchanges, strict=True):
            original = exchange.interaction.original_id
            if original is None:
                raise RuntimeError(f"no first question for {player.name}")
            members.append(Member(player, world.fake.messages[original]))
    return members


async def _measure(users: int, workdir: Path, progress: Callable[[str], None]) -> Json:
    from adapters.discord import QuizClient  # imported late: discord.py's set-up is heavy
    from bot.engine import QuizEngine
    from bot.services import Services
    from bot.storage import SQLiteStorage
    from quizbot.runner import discord_config
    from quizbot.settings import Settings

    catalog = seed_catalog()
    quiz = catalog.get(SEED_QUIZ)
    assert quiz is not None
    fake = FakeDiscord()
    fake.guilds.add(GUILD_ID)
    undo = point_discord_at(await fake.start())
    db_path = workdir / "discord.db"
    storage = SQLiteStorage(db_path)
    await storage.open()
    client = None
    try:
        settings = Settings(database_url=f"sqlite:///{db_path}", discord_token=TOKEN)
        services = Services.build(QuizEngine(catalog, storage), storage)
        client = QuizClient(services, discord_config(settings))
        await client.login(TOKEN)
        services.scheduling.scheduler.start()  # as `quizbot run` starts it
        world = World(fake, client)
        members = await _start(world, users)
        progress(f"g: {users} members have their first question")
        delays: list[float] = []
        kinds: list[int | None] = []
        presses = 0
        elapsed = 0.0  # the bursts only, not the reading of questions in between
        for number in range(len(quiz.questions)):
            playing = [m for m in members if m.question is not None]
            payloads: list[dict[str, Any]] = []
            for index, member in enumerate(playing):
                assert member.question is not None
                right = (index + number) % 2 == 0
                letter = pick_letter(quiz, member.question, "en", correct=right)
                custom_id = button_for(member.question, letter)["custom_id"]
                payloads.append(member.player.press_payload(member.question, custom_id))
            began = time.perf_counter()
            exchange = await world.feed(*payloads)
            elapsed += time.perf_counter() - began
            presses += len(payloads)
            sent = _next_questions(world)
            for member, interaction in zip(playing, exchange.interactions, strict=True):
                kinds.append(interaction.response_type)
                delays.append(interaction.delay if interaction.delay is not None else float("inf"))
                member.question = sent.get(interaction.id)
                member.finished = member.question is None and interaction.delay is not None
        rows = await storage._fetchall("SELECT count(*) FROM answers")
        stored = int(rows[0][0])
    finally:
        if client is not None:
            await client.close()
            await client.services.scheduling.scheduler.stop()
        await storage.close()
        await fake.close()
        undo()
    in_time = sum(d < DEADLINE_S for d in delays)
    return {
        "users": users,
        "presses": presses,
        "elapsed_s": round(elapsed, 3),
        "presses_per_s": round(presses / elapsed, 1),
        "in_time_share": round(in_time / presses, 4) if presses else 0.0,
        "p50_ms": round(percentile(delays, 50) * 1000, 1),
        "p95_ms": round(percentile(delays, 95) * 1000, 1),
        "max_ms": round(max(delays) * 1000, 1),
        "deferred": kinds.count(DEFERRED_UPDATE_MESSAGE),
        "answered_or_deferred": sum(k in (UPDATE_MESSAGE, DEFERRED_UPDATE_MESSAGE) for k in kinds),
        "users_finished": sum(m.finished for m in members),
        "stored_answers": stored,
        "violations": list(fake.violations),
    }


def run(
    quick: bool,
    progress: Callable[[str], None],
    tmp_root: str | None = None,
    users: int | None = None,
) -> Json:
    size = sizes(quick, users)
    with scratch_dir("quizbot-bench-discord-", tmp_root) as workdir:
        r = asyncio.run(_measure(size.users, workdir, progress))
    progress(
        f"g: {r['presses']} presses, {r['in_time_share']:.1%} within 3 s, p95 {r['p95_ms']:.0f} ms"
    )
    who = f"{r['users']} members pressing at once"
    all_in_time = r["in_time_share"] >= 1.0
    figures = [
        figure(
            "discord.in_time_share",
            f"{who}: answered or deferred within 3 s",
            "%",
            round(100 * r["in_time_share"], 2),
            None,
            "none (Discord's deadline)",
            higher_is_better=True,
            target="100%",
            met=all_in_time,
            verdict="met" if all_in_time else "MISSED",
        ),
        figure(
            "discord.p95_ms",
            f"{who}: p95 press-to-response",
            "ms",
            r["p95_ms"],
            None,
            "none (Discord's deadline)",
            higher_is_better=False,
            target=f"< {DEADLINE_S * 1000:,.0f} ms",
            met=r["p95_ms"] < DEADLINE_S * 1000,
            verdict="met" if r["p95_ms"] < DEADLINE_S * 1000 else "MISSED",
        ),
        figure(
            "discord.presses_per_s",
            f"{who}: presses handled/s",
            "presses/s",
            r["presses_per_s"],
            None,
            "none",
            higher_is_better=True,
        ),
    ]
    checks = [
        check("discord: every press answered or deferred", r["presses"], r["answered_or_deferred"]),
        check("discord: every answer stored", r["presses"], r["stored_answers"]),
        check("discord: every member got a result", r["users"], r["users_finished"]),
        check("discord: no rule of Discord broken", 0, len(r["violations"])),
    ]
    note = "bot and fake Discord in one process; N presses delivered at once, 8 times"
    return section("g", TITLE, STATUS_OK, note=note, figures=figures, details=r, checks=checks)
