"""What the Telegram modules share: the platform's name, chat kinds and who a user is."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from telegram import LinkPreviewOptions, Update, User
from telegram.constants import ChatType
from telegram.ext import Application, ContextTypes

from bot.views import Participant

PLATFORM = "telegram"
GROUP_CHATS = (ChatType.GROUP, ChatType.SUPERGROUP)
NO_PREVIEW = LinkPreviewOptions(is_disabled=True)

Context = ContextTypes.DEFAULT_TYPE
TelegramApplication = Application[Any, Any, Any, Any, Any, Any]
Handler = Callable[[Update, Context], Coroutine[Any, Any, None]]


def participant(user: User) -> Participant:
    """The engine's view of a Telegram user."""
    return Participant(PLATFORM, str(user.id), user.full_name or user.username, user.language_code)
