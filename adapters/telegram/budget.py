"""How many messages and edits the bot may still send to a group chat this minute.

Telegram allows about 20 messages a minute in a group and answers more with 429 Too Many
Requests, which would stall a round. The budget keeps the bot's own count lower (15 by default)
with a sliding window, so a round's essential messages (question, reveal, ranking) always get a
slot and its optional ones (countdown edits) are simply skipped when slots run short.

Nothing counts by hand: :class:`BudgetedRateLimiter`, the Application's rate limiter, records
every request that sends or changes something in a group chat, whichever code makes it. Rounds
take their slots ahead (:meth:`ChatBudget.take`), and the request then uses the slot taken.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

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


class BudgetedRateLimiter(AIORateLimiter):
    """PTB's AIORateLimiter (Telegram's limits, retries after 429) that also counts, in a
    :class:`ChatBudget`, every request sending or changing something in a group chat."""

    def __init__(self, budget: ChatBudget, **limits: Any) -> None:
        super().__init__(**limits)
        self.budget = budget

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, bool | dict[str, Any] | list[dict[str, Any]]]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: int | None,
    ) -> bool | dict[str, Any] | list[dict[str, Any]]:
        chat_id = data.get("chat_id")
        with contextlib.suppress(ValueError, TypeError):
            chat_id = int(chat_id)  # type: ignore[arg-type]
        # Groups have negative ids; reading (getChat, getChatMember...) sends nothing.
        if isinstance(chat_id, int) and chat_id < 0 and not endpoint.startswith("get"):
            self.budget.count_request(chat_id)
        return await super().process_request(
            callback, args, kwargs, endpoint, data, rate_limit_args
        )
