"""Recipients the platform would not deliver to, until they talk to the bot again.

When a send is refused because the recipient blocked the bot (Telegram's 403, Discord's
50007), the outbox marks them in the database; their due messages are then not tried (they
become undeliverable), so nobody is retried forever. Any command or press of theirs clears the
mark (:meth:`Reachability.seen`).

That check runs on every update, so it must cost nothing in the common case: each process
keeps the marks in memory, refreshed from the database every ``refresh`` seconds (a mark made
by another replica is seen here within that), and only a user found marked costs a write.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from bot.rounds.clock import RoundClock
from bot.storage.scheduling import SchedulingStore

log = logging.getLogger("quizbot.outbox")

Recipient = tuple[str, str, bool]  # platform, target, to_user
OVERLAP = timedelta(seconds=60)  # refreshes re-read marks this much older than the last one


class Reachability:
    """The unreachable marks of every platform, as this process last read them."""

    def __init__(self, store: SchedulingStore, clock: RoundClock, *, refresh: float = 30.0) -> None:
        self.store = store
        self.clock = clock
        self.refresh_every = timedelta(seconds=refresh)
        self._marked: set[Recipient] = set()
        self._read_at: datetime | None = None  # when the marks were last read in full or part

    def is_marked(self, platform: str, target: str, *, to_user: bool) -> bool:
        return (platform, target, to_user) in self._marked

    async def mark(self, platform: str, target: str, to_user: bool, reason: str) -> None:
        """The platform refused to deliver to this recipient: remember it (database first)."""
        await self.store.mark_unreachable(platform, target, to_user, reason, self.clock())
        self._marked.add((platform, target, to_user))
        log.info(
            "%s: %s %s is unreachable (%s)", platform, "user" if to_user else "chat", target, reason
        )

    async def seen(self, platform: str, user_id: str, chat_id: str | None = None) -> None:
        """The user talked to the bot (in ``chat_id``): clear their mark, and the chat's."""
        if not self._marked:  # nearly always: nobody to clear, and every update asks
            return
        found: list[Recipient] = [(platform, user_id, True)]
        if chat_id is not None:
            found.append((platform, chat_id, False))
        for recipient in found:
            if recipient in self._marked:
                await self.store.clear_unreachable(*recipient)
                self._marked.discard(recipient)

    async def refresh(self, *, force: bool = False) -> None:
        """Read the marks made since the last read (all of them the first time, and on
        ``force``); a no-op until ``refresh`` seconds have passed."""
        now = self.clock()
        last = self._read_at
        if not force and last is not None and now - last < self.refresh_every:
            return
        if force or last is None:
            self._marked = {
                (m.platform, m.target, m.to_user) for m in await self.store.unreachable()
            }
        else:
            for mark in await self.store.unreachable(last - OVERLAP):
                self._marked.add((mark.platform, mark.target, mark.to_user))
        self._read_at = now
