"""Concurrent update handling that keeps each user's updates in order.

Handling every update one at a time is safe but slow: a press waits for everyone's presses before
it, each costing a database commit and round trips to Telegram, and a busy group round would lag
behind its own countdown. Handling everything concurrently lets one user's double tap or repeated
menu press race itself. This processor (python-telegram-bot's extension point for concurrency)
runs updates of different users at once and those of the same user in order (across chats:
a poll answer carries no chat, and must not overtake the sending of its own poll).
The engine's guarantees (answers recorded once, closes by compare-and-set) do not rely on it.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any, Protocol

from telegram import Update
from telegram.ext import BaseUpdateProcessor

# Generous on purpose: an update waits for its user's earlier one, and that one's follow-ups
# wait for Telegram's 30 messages/s; with few slots, other users' presses would wait for a
# slot (and their acknowledgement) behind those sends. An update in flight costs a few kB.
MAX_CONCURRENT_UPDATES = 4096

OrderingKey = tuple[str, int]

log = logging.getLogger(__name__)


def ordering_key(update: object) -> OrderingKey | None:
    """Whose updates must not overlap: the user's, else the chat's; None for neither."""
    if not isinstance(update, Update):
        return None
    if update.effective_user is not None:
        return ("user", update.effective_user.id)
    if update.effective_chat is not None:
        return ("chat", update.effective_chat.id)
    return None


class FollowUpGate(Protocol):
    """What a follow-up may wait for before it starts (see ``PerUserUpdateProcessor.follow_up``)."""

    def when_acknowledged(self, callback: Callable[[], object]) -> None:
        """Call ``callback`` once the follow-up may start: now, or later."""


@dataclass(eq=False, slots=True)
class _Parked:
    """A follow-up waiting for its gate: nothing of it runs yet."""

    key: OrderingKey | None
    work: Coroutine[Any, Any, None]


class PerUserUpdateProcessor(BaseUpdateProcessor):
    """Up to ``max_concurrent_updates`` at once, one at a time per user; an update's
    follow-ups (see :meth:`follow_up`) count as part of it."""

    def __init__(self, max_concurrent_updates: int = MAX_CONCURRENT_UPDATES) -> None:
        super().__init__(max_concurrent_updates)
        self._locks: dict[OrderingKey, tuple[asyncio.Lock, int]] = {}
        self._follow_ups: dict[OrderingKey, asyncio.Task[None] | _Parked] = {}
        self._running: set[asyncio.Task[None]] = set()
        self._parked: set[_Parked] = set()

    def follow_up(
        self,
        key: OrderingKey | None,
        work: Coroutine[Any, Any, None],
        *,
        after: FollowUpGate | None = None,
    ) -> None:
        """Run ``work``, the rest of handling an update whose :func:`ordering_key` is ``key``,
        as a task of its own, so that the handler returns; with ``after``, start it only when
        that gate says so. ``work`` may leave follow-ups of its own.

        The update's objects are then freed at once, instead of living on, a few dozen for
        the collector to scan each, while ``work`` waits for a commit or behind the rate
        limiter (under a burst of presses, milliseconds to seconds). The user's next update
        still waits for ``work`` and what it leaves (and starts what waits for a gate), so
        their messages stay in order, and :meth:`finish_follow_ups` runs and waits for it
        when the bot stops. ``work`` must not hold the update or its objects, or nothing is
        gained.
        """
        if key is not None and isinstance(earlier := self._follow_ups.get(key), _Parked):
            self._unpark(earlier)  # the user's earlier follow-ups start before these
        if after is None:
            self._start(key, work)
            return
        parked = _Parked(key, work)
        self._parked.add(parked)
        if key is not None:
            self._follow_ups[key] = parked
        after.when_acknowledged(functools.partial(self._unpark, parked))

    def _start(
        self, key: OrderingKey | None, work: Coroutine[Any, Any, None]
    ) -> asyncio.Task[None]:
        task = asyncio.create_task(work, name="follow-up")
        self._running.add(task)
        if key is not None:
            self._follow_ups[key] = task
        task.add_done_callback(functools.partial(self._finished, key))
        return task

    def _unpark(self, parked: _Parked) -> asyncio.Task[None] | None:
        """Start a parked follow-up, once (its gate, the user's next update or the stop may
        each be first): its task, or None when it had started already. A parked one is still
        its user's latest (see :meth:`follow_up`), so its task takes its place."""
        if parked not in self._parked:
            return None
        self._parked.discard(parked)
        return self._start(parked.key, parked.work)

    def _finished(self, key: OrderingKey | None, task: asyncio.Task[None]) -> None:
        self._running.discard(task)
        if key is not None and self._follow_ups.get(key) is task:
            del self._follow_ups[key]  # memory stays bounded by the follow-ups in flight
        if not task.cancelled() and (error := task.exception()) is not None:
            log.error("telegram: a press's follow-ups failed", exc_info=error)

    async def finish_follow_ups(self) -> None:
        """Run every follow-up so far, parked ones at once, and wait for them and those they
        wait for. For stopping: python-telegram-bot's ``stop()`` waits for the updates in
        hand, not for these."""
        while self._running or self._parked:
            for parked in list(self._parked):
                self._unpark(parked)
            await asyncio.wait(set(self._running))

    async def _follow_ups_of(self, key: OrderingKey) -> None:
        """Run and wait for the user's follow-ups, parked ones at once, and for those they
        leave in turn (how each ended is its own: logged when it failed)."""
        while (earlier := self._follow_ups.get(key)) is not None:
            task = self._unpark(earlier) if isinstance(earlier, _Parked) else earlier
            if task is None:
                return  # cannot happen: a started parked one's task took its place
            await asyncio.wait((task,))

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        key = ordering_key(update)
        if key is None:
            await coroutine
            return
        lock, users = self._locks.get(key) or (asyncio.Lock(), 0)
        self._locks[key] = (lock, users + 1)
        try:
            async with lock:
                await self._follow_ups_of(key)
                await coroutine
        finally:
            lock, users = self._locks[key]
            if users == 1:
                del self._locks[key]  # nobody waits: forget it, memory stays bounded
            else:
                self._locks[key] = (lock, users - 1)

    async def initialize(self) -> None:
        """Nothing to set up."""

    async def shutdown(self) -> None:
        """Nothing to tear down: Application.stop() waits for running updates."""
