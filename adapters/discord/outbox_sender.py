"""The outbox's :class:`~bot.scheduling.Sender` for Discord: renders a queued message by its
kind and posts it to a channel, or to a user's direct messages (opened with
:meth:`discord.Client.create_dm`, which discord.py caches).

Features register a renderer per message kind (:meth:`DiscordSender.register`): a plain
function from the message and the recipient's language to the posts to make
(:class:`DiscordPost`: content, embeds, a view of DynamicItem buttons).

Every post carries a nonce made from the message's id (Discord then returns the message it
already created for that nonce instead of posting twice, for a few minutes: the outbox's
lease is shorter), so a replica killed between Discord's reply and marking the message sent
does not show it twice. discord.py waits out 429s on its own, within Discord's 50 requests a
second; direct messages are also paced (``dm_rate`` a second, each with the opening of its DM
channel, aiolimiter's leaky bucket): Discord refuses a bot that opens DMs too fast (40003) at
a pace it does not publish, and quarantines one that mass-messages users (docs/benchmarks.md,
row j, says why 5 a second).

Discord's answers become outcomes: 50007 (the user blocked the bot or does not accept its
direct messages), a channel the bot may not see or post in (50001, 50013) or that is gone
(10003) mean the recipient cannot be reached (:mod:`adapters.discord.refusals`); another 4xx
refuses this message for good; a 5xx, a 429 past discord.py's retries, DMs opened too fast
(40003) or a network error is retried later.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import aiohttp
import discord
from aiolimiter import AsyncLimiter

from adapters.discord.group_rounds import PLATFORM, _base36
from adapters.discord.refusals import described, later, unreachable_reason
from bot.scheduling import OutgoingMessage, SendResult

DM_RATE = 5.0  # direct messages a second, at most (two requests each at most: open, post)


@dataclass(frozen=True)
class DiscordPost:
    """One message to post."""

    content: str | None = None
    embeds: Sequence[discord.Embed] = ()
    view: discord.ui.View | None = None

    def send_kwargs(self) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"embeds": list(self.embeds)}
        if self.content:
            kwargs["content"] = self.content
        if self.view is not None:
            kwargs["view"] = self.view
        return kwargs


DiscordRenderer = Callable[[OutgoingMessage, str], Sequence[DiscordPost]]


def nonce(message: OutgoingMessage, part: int) -> str:
    """The nonce of a message's ``part``-th post: its id and its creation time (so that a
    database started afresh does not reuse one), at most 25 characters."""
    made = _base36(int(message.created_at.timestamp()))
    return f"o{_base36(message.id)}.{made}.{part}"[:25]


class DiscordSender:
    """Posts outbox messages to Discord channels and users' direct messages."""

    platform = PLATFORM

    def __init__(self, client: discord.Client, *, dm_rate: float = DM_RATE) -> None:
        self.client = client
        self._renderers: dict[str, DiscordRenderer] = {}
        self._dm_pace = AsyncLimiter(max(1.0, dm_rate), 1.0)

    def register(self, kind: str, renderer: DiscordRenderer) -> None:
        """Render messages of ``kind`` with ``renderer`` (one per kind)."""
        if kind in self._renderers:
            raise ValueError(f"a Discord renderer for {kind!r} is registered already")
        self._renderers[kind] = renderer

    def kinds(self) -> Sequence[str]:
        return tuple(self._renderers)

    async def send(self, message: OutgoingMessage, language: str) -> SendResult:
        posts = self._renderers[message.kind](message, language)
        last: int | None = None
        try:
            for part, post in enumerate(posts):
                if message.to_user:  # (the first part's turn covers opening the DM channel)
                    await self._dm_pace.acquire()
                channel = await self._destination(message)  # (a DM channel: cached after one)
                sent = await channel.send(**post.send_kwargs(), nonce=nonce(message, part))
                last = sent.id
        except discord.HTTPException as error:
            return _outcome(error)
        except (aiohttp.ClientError, OSError, TimeoutError) as error:
            return SendResult.retry(f"{type(error).__name__}: {error}")
        return SendResult.sent(last)

    async def _destination(self, message: OutgoingMessage) -> discord.abc.Messageable:
        if message.to_user:
            return await self.client.create_dm(discord.Object(int(message.target)))
        return self.client.get_partial_messageable(int(message.target))


def _outcome(error: discord.HTTPException) -> SendResult:
    reason = unreachable_reason(error)
    if reason is not None:
        return SendResult.unreachable(reason)
    if later(error):
        return SendResult.retry(described(error))
    return SendResult.refused(described(error))
