"""The outbox's :class:`~bot.scheduling.Sender` for Telegram: renders a queued message by its
kind and sends it through the Application's bot, so python-telegram-bot's rate limiter
(:class:`~adapters.telegram.budget.BudgetedRateLimiter`: 30 messages a second overall, fair
between chats, 20 a minute in a group, waits out 429s) paces every post.

Features register a renderer per message kind (:meth:`TelegramSender.register`): a plain
function from the message and the recipient's language to what to send
(:class:`~adapters.telegram.rendering.Rendered`: HTML and an optional keyboard). A text over
Telegram's 4096 characters goes out as several messages, the keyboard on the last.

Telegram's answers become outcomes: 403 (blocked by the user, user deactivated, never started
the bot, kicked from the group) means the recipient cannot be reached; 400 means this message
is refused for good ("chat not found" too: nobody there to reach); a 429 past the limiter's
own retries, a timeout or a network error is retried later.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from telegram import Bot
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden, RetryAfter, TelegramError

from adapters.telegram.rendering import Rendered, split_html
from adapters.telegram.shared import NO_PREVIEW, PLATFORM
from bot.scheduling import OutgoingMessage, SendResult

TelegramRenderer = Callable[[OutgoingMessage, str], Sequence[Rendered]]


class TelegramSender:
    """Posts outbox messages to Telegram chats and private chats (a user's id is their chat)."""

    platform = PLATFORM

    def __init__(self) -> None:
        self._renderers: dict[str, TelegramRenderer] = {}
        self._bot: Bot | None = None

    def attach(self, bot: Bot) -> None:
        """Send through ``bot`` (the Application's, with its rate limiter) from now on."""
        self._bot = bot

    def register(self, kind: str, renderer: TelegramRenderer) -> None:
        """Render messages of ``kind`` with ``renderer`` (one per kind)."""
        if kind in self._renderers:
            raise ValueError(f"a Telegram renderer for {kind!r} is registered already")
        self._renderers[kind] = renderer

    def kinds(self) -> Sequence[str]:
        return tuple(self._renderers)

    async def send(self, message: OutgoingMessage, language: str) -> SendResult:
        if self._bot is None:
            return SendResult.retry("the bot is not started")
        posts = self._renderers[message.kind](message, language)
        last: int | None = None
        try:
            for post in posts:
                last = await self._post(self._bot, int(message.target), post)
        except Forbidden as error:
            return SendResult.unreachable(error.message)
        except RetryAfter as error:
            # Read as PTB's own limiter does: the public property warns about its type.
            wait = error._retry_after.total_seconds()  # noqa: SLF001
            return SendResult.retry(error.message, wait)
        except BadRequest as error:
            return SendResult.refused(error.message)
        except TelegramError as error:  # timed out, network: the message may come again
            return SendResult.retry(f"{type(error).__name__}: {error.message}")
        return SendResult.sent(last)

    @staticmethod
    async def _post(bot: Bot, chat_id: int, post: Rendered) -> int:
        """Send one rendered message (split when too long); the id of the last part."""
        parts = split_html(post.html)
        message_id = 0
        for number, part in enumerate(parts):
            markup = post.markup if number == len(parts) - 1 else None
            sent = await bot.send_message(
                chat_id,
                part,
                parse_mode=ParseMode.HTML,
                reply_markup=markup,
                link_preview_options=NO_PREVIEW,
            )
            message_id = sent.message_id
        return message_id
