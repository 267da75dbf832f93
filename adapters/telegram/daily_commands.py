"""``/daily``: a group's daily question, shown to anyone, set or turned off by a chat admin
(as ``/stop`` decides who controls a group: its admins, or an anonymous admin speaking as the
group). The question itself is posted by the scheduled job and driven by the round driver."""

from __future__ import annotations

from telegram import Update

from adapters.telegram.daily_rendering import daily_reply
from adapters.telegram.messenger import Messenger
from adapters.telegram.rendering import notice
from adapters.telegram.shared import (
    GROUP_CHATS,
    PLATFORM,
    Context,
    is_chat_admin,
    participant,
    turn,
)
from bot.daily.service import DailyQuestions
from bot.daily.texts import daily_t


class DailyCommands:
    """The handler of ``/daily``."""

    def __init__(self, daily: DailyQuestions, messenger: Messenger) -> None:
        self.daily = daily
        self.messenger = messenger

    async def daily_command(self, update: Update, context: Context) -> None:
        chat, user = update.effective_chat, update.effective_user
        if chat is None or user is None:
            return
        if chat.type not in GROUP_CHATS:
            ui = await turn(context).language()
            await self.messenger.send(context, chat.id, notice(daily_t("daily_group_only", ui), ui))
            return
        words = list(context.args or [])
        # Asked of Telegram only when something is to change: showing it is for everyone.
        admin = bool(words) and await is_chat_admin(context, chat, user, update.effective_message)
        reply = await self.daily.command(
            PLATFORM,
            str(chat.id),
            participant(user),
            words,
            is_chat_admin=admin,
            chat_title=chat.title,
        )
        await self.messenger.send(context, chat.id, daily_reply(reply))
