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
from collections.abc import Awaitable
from typing import Any

from telegram import Update
from telegram.ext import BaseUpdateProcessor

# Generous on purpose: a handler acknowledges a press at once but then waits for Telegram's
# 30 messages/s to send the next question; with few slots, later presses would wait for a slot
# (and their acknowledgement) behind those sends. An update in flight costs a few kB.
MAX_CONCURRENT_UPDATES = 4096


def ordering_key(update: object) -> tuple[str, int] | None:
    """Whose updates must not overlap: the user's, else the chat's; None for neither."""
    if not isinstance(update, Update):
        return None
    if update.effective_user is not None:
        return ("user", update.effective_user.id)
    if update.effective_chat is not None:
        return ("chat", update.effective_chat.id)
    return None


class PerUserUpdateProcessor(BaseUpdateProcessor):
    """Up to ``max_concurrent_updates`` at once, one at a time per user."""

    def __init__(self, max_concurrent_updates: int = MAX_CONCURRENT_UPDATES) -> None:
        super().__init__(max_concurrent_updates)
        self._locks: dict[tuple[str, int], tuple[asyncio.Lock, int]] = {}

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        key = ordering_key(update)
        if key is None:
            await coroutine
            return
        lock, users = self._locks.get(key) or (asyncio.Lock(), 0)
        self._locks[key] = (lock, users + 1)
        try:
            async with lock:
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
