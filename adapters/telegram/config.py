"""What the Telegram adapter needs to know, built by the wiring (``quizbot``) from its settings.

The adapter never reads the environment or the application's settings: it gets this object,
and the process's web server as a :class:`WebMount`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Protocol

from aiohttp import web

DEFAULT_BASE_URL = "https://api.telegram.org/bot"


@dataclass(frozen=True)
class TelegramConfig:
    """The bot token, the Bot API server, the admins and webhook mode (``webhook_url`` set)."""

    token: str = field(repr=False)  # never in a log line
    api_base_url: str = DEFAULT_BASE_URL
    admin_ids: frozenset[str] = frozenset()
    webhook_url: str | None = None
    webhook_secret: str | None = field(default=None, repr=False)  # None: from the token
    webhook_max_connections: int = 40

    def __post_init__(self) -> None:
        if not self.token:
            raise ValueError("TELEGRAM_BOT_TOKEN is not set")


class WebMount(Protocol):
    """Where webhook mode answers Telegram's POSTs: a path on the process's web server."""

    def mount(
        self,
        path: str,
        handler: Callable[[web.Request], Awaitable[web.StreamResponse]],
        *,
        authorized: Callable[[web.Request], bool] | None = None,
    ) -> None:
        """Answer ``POST path`` with ``handler``; ``authorized`` refuses a request (403) by
        its headers before its body is read."""

    def unmount(self, path: str) -> None:
        """Stop answering ``path``."""
