"""How many messages and edits the bot may still send to a group chat this minute.

Telegram allows about 20 messages a minute in a group and answers more with 429 Too Many
Requests, which would stall a round. The budget keeps the bot's own count lower (15 by default)
with a sliding window, so a round's essential messages (question, reveal, ranking) always get a
slot and its optional ones (countdown edits) are simply skipped when slots run short.

Nothing counts by hand: :class:`BudgetedRateLimiter`, the Application's rate limiter, records
every request that sends or changes something in a group chat, whichever code makes it. Rounds
take their slots ahead (:meth:`ChatBudget.take`), and the request then uses the slot taken.

The same limiter paces all messages to Telegram's overall 30 a second fairly between chats
(:class:`FairPacer`) and lets acknowledgements of presses through at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine, Hashable
from typing import Any

from telegram.error import RetryAfter
from telegram.ext import AIORateLimiter


class ChatBudget:
    """A sliding-window count of sends per chat. Times are in seconds of ``now()``."""

    def __init__(
        self,
        limit: int = 15,
        window: float = 60.0,
        *,
        now: Callable[[], float] = time.monotonic,
        speed: float = 1.0,
    ) -> None:
        if limit < 1 or window <= 0 or speed <= 0:
            raise ValueError("a budget needs a positive limit, window and speed")
        self.limit = limit
        self.window = window
        self._now = now
        self._speed = speed  # window seconds per real second (tests run faster)
        self._sent: dict[int, deque[float]] = {}
        self._taken: dict[int, int] = {}  # slots taken ahead whose request has not been made

    def _recent(self, chat_id: int) -> deque[float]:
        sent = self._sent.setdefault(chat_id, deque())
        horizon = self._clock() - self.window
        while sent and sent[0] <= horizon:
            sent.popleft()
        if not sent:
            # Forget idle chats, so the dict stays as small as the set of busy chats.
            del self._sent[chat_id]
            return deque()
        return sent

    def _clock(self) -> float:
        return self._now() * self._speed

    def used(self, chat_id: int) -> int:
        return len(self._recent(chat_id))

    def free(self, chat_id: int) -> int:
        return max(0, self.limit - self.used(chat_id))

    def record(self, chat_id: int) -> None:
        """Count a send that happens regardless (a reply to a command)."""
        self._recent(chat_id)
        self._sent.setdefault(chat_id, deque()).append(self._clock())

    def count_request(self, chat_id: int) -> None:
        """A request to the chat is being made: it uses a slot taken ahead, else one now."""
        taken = self._taken.get(chat_id, 0)
        if taken:
            if taken == 1:
                del self._taken[chat_id]
            else:
                self._taken[chat_id] = taken - 1
            return
        self.record(chat_id)

    def _take_ahead(self, chat_id: int) -> None:
        self.record(chat_id)
        self._taken[chat_id] = self._taken.get(chat_id, 0) + 1

    def try_take(self, chat_id: int, *, keep: int = 0) -> bool:
        """Take a slot for an optional send, leaving ``keep`` slots for essential ones."""
        if self.free(chat_id) <= keep:
            return False
        self._take_ahead(chat_id)
        return True

    def wait_time(self, chat_id: int, slots: int = 1) -> float:
        """Window seconds until ``slots`` sends could be taken at once (0 when they can now)."""
        sent = self._recent(chat_id)
        over = len(sent) + min(slots, self.limit) - self.limit
        if over <= 0:
            return 0.0
        return max(0.0, sent[over - 1] + self.window - self._clock())

    async def take(
        self, chat_id: int, sleep: Callable[[float], Awaitable[None]] | None = None
    ) -> None:
        """Take a slot for an essential send, waiting for one to free up when needed.

        ``sleep(seconds)`` waits that many seconds of ``now()``: by default asyncio's timers
        (at ``speed``); rounds wait on their own clock, which ``now()`` then follows too.
        """
        # Slots free up with time, not with an event; another waiter may win the slot, so the
        # wait is re-checked after each sleep.
        while (wait := self.wait_time(chat_id)) > 0:
            if sleep is None:
                await asyncio.sleep(wait / self._speed + 0.001)
            else:
                await sleep(wait)
        self._take_ahead(chat_id)


class FairPacer:
    """Telegram's overall rate (about 30 messages a second) handed out round-robin over chats.

    A leaky bucket like PTB's (``max_rate`` at once, then ``max_rate`` per ``period``), but its
    waiters queue per chat, and each chat with a waiter gets one slot per turn: a chat with many
    messages waiting cannot starve the others, and each chat's messages leave in the order they
    were asked for. (aiolimiter, under PTB's AIORateLimiter, is first come first served, and a
    waiter that wakes to find its slot taken by a newcomer goes to the back of the line.)
    """

    def __init__(self, max_rate: float, period: float) -> None:
        if max_rate < 1 or period <= 0:
            raise ValueError("max_rate must be at least 1 and period positive")
        self.max_rate = max_rate
        self._per_s = max_rate / period
        self._level = 0.0
        self._last = 0.0
        self._queues: dict[Hashable, deque[asyncio.Future[None]]] = {}
        self._turns: deque[Hashable] = deque()  # chats with a waiter, in turn order
        self._timer: asyncio.TimerHandle | None = None

    def _leak(self, now: float) -> None:
        self._level = max(0.0, self._level - (now - self._last) * self._per_s)
        self._last = now

    @property
    def waiting(self) -> int:
        return sum(len(q) for q in self._queues.values())

    async def wait(self, chat: Hashable) -> None:
        """Return when ``chat`` may send one message."""
        loop = asyncio.get_running_loop()
        self._leak(loop.time())
        if not self._turns and self._level + 1 <= self.max_rate:
            self._level += 1
            return
        future: asyncio.Future[None] = loop.create_future()
        queue = self._queues.get(chat)
        if queue is None:
            queue = self._queues[chat] = deque()
            self._turns.append(chat)
        queue.append(future)
        if self._timer is None:
            self._dispatch()
        try:
            await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():
                self._level = max(0.0, self._level - 1)  # granted but not used: give it back
            raise

    def _dispatch(self) -> None:
        self._timer = None
        loop = asyncio.get_running_loop()
        self._leak(loop.time())
        while self._turns and self._level + 1 <= self.max_rate:
            chat = self._turns.popleft()
            queue = self._queues[chat]
            future = queue.popleft()
            if queue:
                self._turns.append(chat)  # its next message waits for everyone else's turn
            else:
                del self._queues[chat]
            if not future.done():  # else its caller gave up waiting
                future.set_result(None)
                self._level += 1
        if self._turns:
            due = self._last + (self._level + 1 - self.max_rate) / self._per_s
            self._timer = loop.call_at(due, self._dispatch)


# Requests that are not messages: the acknowledgement of a button press stops its spinner and
# must not wait behind the follow-up messages Telegram's 30 a second pace.
UNPACED = frozenset({"answerCallbackQuery"})


class BudgetedRateLimiter(AIORateLimiter):
    """PTB's AIORateLimiter (Telegram's limits, retries after 429) that also counts, in a
    :class:`ChatBudget`, every request sending or changing something in a group chat.

    Unlike PTB's, the overall limit is fair between chats (:class:`FairPacer`), and
    acknowledgements of button presses (:data:`UNPACED`) are sent at once: no pacing, and no
    pause after another request's 429 (a 429 of their own is still waited out and retried).
    """

    def __init__(
        self,
        budget: ChatBudget,
        *,
        overall_max_rate: float = 30,
        overall_time_period: float = 1,
        max_retries: int = 0,
        **limits: Any,
    ) -> None:
        # PTB's own overall limiter stays off: the pacer below takes its place.
        super().__init__(overall_max_rate=0, max_retries=max_retries, **limits)
        self.budget = budget
        self.pacer = (
            FairPacer(overall_max_rate, overall_time_period)
            if overall_max_rate and overall_time_period
            else None
        )
        self._retries = max_retries

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, bool | dict[str, Any] | list[dict[str, Any]]]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: int | None,
    ) -> bool | dict[str, Any] | list[dict[str, Any]]:
        if endpoint in UNPACED:
            return await self._unpaced(callback, args, kwargs, rate_limit_args or self._retries)
        chat_id = data.get("chat_id")
        with contextlib.suppress(ValueError, TypeError):
            chat_id = int(chat_id)  # type: ignore[arg-type]
        # Groups have negative ids; reading (getChat, getChatMember...) sends nothing.
        if isinstance(chat_id, int) and chat_id < 0 and not endpoint.startswith("get"):
            self.budget.count_request(chat_id)
        pacer = self.pacer
        if pacer is not None and chat_id is not None and not data.get("allow_paid_broadcast"):
            # Paced where PTB's overall limiter would be: inside the group limit and the pause
            # after a 429, so a retry waits its turn again.
            chat = chat_id if isinstance(chat_id, int | str) else str(chat_id)
            send = callback

            async def paced(*a: Any, **kw: Any) -> bool | dict[str, Any] | list[dict[str, Any]]:
                await pacer.wait(chat)
                return await send(*a, **kw)

            callback = paced
        return await super().process_request(
            callback, args, kwargs, endpoint, data, rate_limit_args
        )

    @staticmethod
    async def _unpaced(
        callback: Callable[..., Coroutine[Any, Any, bool | dict[str, Any] | list[dict[str, Any]]]],
        args: Any,
        kwargs: dict[str, Any],
        retries: int,
    ) -> bool | dict[str, Any] | list[dict[str, Any]]:
        for attempt in range(retries + 1):
            try:
                return await callback(*args, **kwargs)
            except RetryAfter as error:
                if attempt == retries:
                    raise
                # Read as PTB's own limiter does: the public property warns about its type.
                await asyncio.sleep(error._retry_after.total_seconds() + 0.1)  # noqa: SLF001
        raise AssertionError("unreachable")
