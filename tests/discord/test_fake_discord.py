"""The fake Discord's global rate limit, through discord.py: past its limit of requests in a
second it answers 429 as Discord does (``retry_after``, ``"global": true``), discord.py waits
that out and tries again, so every post arrives once; interaction callbacks are not limited."""

from __future__ import annotations

import asyncio

from fakes.discord_api import GLOBAL_LIMIT, FakeDiscord
from fakes.discord_users import GUILD_CHANNEL_ID, World


async def test_past_the_global_limit_discord_answers_429_and_discord_py_waits_it_out(
    fake_discord: FakeDiscord, world: World
) -> None:
    assert fake_discord.global_limit == GLOBAL_LIMIT == 50  # Discord's: 50 requests a second
    fake_discord.global_limit = 4  # (a small limit, so that the burst surely passes it)
    assert world.client is not None
    channel = world.client.get_partial_messageable(GUILD_CHANNEL_ID)
    path = f"/api/v10/channels/{GUILD_CHANNEL_ID}/messages"
    mark = len(fake_discord.requests)
    await asyncio.gather(*(channel.send(content=f"post {n}") for n in range(10)))
    statuses = [r.status for r in fake_discord.requests[mark:] if r.path == path]
    assert statuses.count(200) == 10 and 429 in statuses  # told to wait, then let through
    assert sorted(m.content for m in fake_discord.channel_messages(GUILD_CHANNEL_ID)) == sorted(
        f"post {n}" for n in range(10)
    )
    assert all(r.path == path for r in fake_discord.rate_limited)


async def test_interaction_responses_are_not_bound_to_the_global_limit(
    fake_discord: FakeDiscord, world: World
) -> None:
    fake_discord.global_limit = 1
    players = [world.user(f"Member {n}") for n in range(5)]
    replies = await asyncio.gather(*(player.command("help") for player in players))
    assert all(reply.interaction.response_type is not None for reply in replies)
    assert fake_discord.rate_limited == []
