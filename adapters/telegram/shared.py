"""What the Telegram modules share: the platform's name, chat kinds, who a user is, whether
they administer a chat, and the per-update :class:`Turn`."""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from telegram import Bot, Chat, LinkPreviewOptions, Message, Update, User
from telegram.constants import ChatMemberStatus, ChatType
from telegram.error import TelegramError
from telegram.ext import Application, ContextTypes

from adapters.telegram.rendering import toast
from adapters.telegram.texts import tt
from bot.i18n import DEFAULT_LANGUAGE, SUPPORTED_LANGUAGES, resolve_language
from bot.views import Participant

if TYPE_CHECKING:
    from bot.engine import QuizEngine

log = logging.getLogger("quizbot.telegram")

PLATFORM = "telegram"
GROUP_CHATS = (ChatType.GROUP, ChatType.SUPERGROUP)
CHAT_ADMINS = (ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR)
NO_PREVIEW = LinkPreviewOptions(is_disabled=True)

Context = ContextTypes.DEFAULT_TYPE
TelegramApplication = Application[Any, Any, Any, Any, Any, Any]
Handler = Callable[[Update, Context], Coroutine[Any, Any, None]]


def participant(user: User) -> Participant:
    """The engine's view of a Telegram user."""
    return Participant(PLATFORM, str(user.id), user.full_name or user.username, user.language_code)


TURN_KEY = "quizbot_turn"  # where the group -1 hook keeps the Turn on PTB's per-update context


class Turn:
    """One update's sender and their interface language, asked of the engine at most once
    (and only when a handler needs it: a press that only answers never does)."""

    __slots__ = ("_engine", "_language", "who")

    def __init__(self, engine: QuizEngine, who: Participant) -> None:
        self._engine = engine
        self.who = who
        self._language: str | None = None

    async def language(self) -> str:
        if self._language is None:
            self._language = await self._engine.interface_language(self.who)
        return self._language


def turn(context: Context) -> Turn:
    """The sender of the update being handled, set by the adapter's group -1 hook."""
    found = context.__dict__.get(TURN_KEY)
    if not isinstance(found, Turn):
        raise LookupError("no Turn on this context: the group -1 hook did not run")
    return found


async def is_chat_admin(context: Context, chat: Chat, user: User, message: Message | None) -> bool:
    """Whether ``user`` administers ``chat`` (creator or administrator, as getChatMember
    says; an anonymous admin speaks as the group itself). False when Telegram cannot say."""
    if message is not None and message.sender_chat is not None:
        return message.sender_chat.id == chat.id
    try:
        member = await context.bot.get_chat_member(chat.id, user.id)
    except TelegramError as error:
        log.warning("telegram: cannot check chat admin rights (%s)", error)
        return False
    return member.status in CHAT_ADMINS


async def apologize(
    bot: Bot, language_tag: str | None, *, query_id: str | None = None, chat_id: int | None = None
) -> None:
    """Tell the user briefly that handling their update failed, in their platform's language:
    as the toast of their press (``query_id``), else in a message to ``chat_id``. Failing to
    tell them is only logged: Telegram may be what failed. The storage is not asked for the
    user's chosen language: it may be what failed."""
    ui = resolve_language(None, language_tag, SUPPORTED_LANGUAGES, DEFAULT_LANGUAGE)
    text = tt("error", ui)
    try:
        if query_id is not None:
            await bot.answer_callback_query(query_id, toast(text))
        elif chat_id is not None:
            await bot.send_message(chat_id, text)
    except TelegramError:
        log.warning("telegram: could not tell the user about the failure", exc_info=True)
