"""A storage that counts its round trips: what a test uses to hold a path to its budget.

Every storage operation is one round trip to the database (one statement or one transaction;
the backends say so per method), so counting the operations a path awaits counts its trips.
"""

from __future__ import annotations

import functools
import inspect
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any, cast

from bot.storage import Storage


class CountingStorage:
    """Wraps a real backend; every coroutine method it is asked for is counted by name.

    ``trips`` counts by name and ``calls`` lists them in order; :meth:`reset` starts a new
    measurement. Use it where a
    :class:`~bot.storage.Storage` goes through :meth:`as_storage` (it behaves as the backend
    it wraps)."""

    def __init__(self, inner: Storage) -> None:
        self.inner = inner
        self.trips: Counter[str] = Counter()
        self.calls: list[str] = []  # every operation, in the order it was asked for

    def as_storage(self) -> Storage:
        return cast(Storage, self)

    def reset(self) -> None:
        self.trips.clear()
        self.calls.clear()

    @property
    def total(self) -> int:
        return sum(self.trips.values())

    def __getattr__(self, name: str) -> Any:
        value = getattr(self.inner, name)
        if name.startswith("_") or not callable(value) or not _is_coroutine(self.inner, name):
            return value
        method = cast(Callable[..., Awaitable[Any]], value)

        @functools.wraps(method)
        async def counted(*args: Any, **kwargs: Any) -> Any:
            self.trips[name] += 1
            self.calls.append(name)
            return await method(*args, **kwargs)

        return counted


def _is_coroutine(obj: object, name: str) -> bool:
    return inspect.iscoroutinefunction(getattr(type(obj), name, None))
