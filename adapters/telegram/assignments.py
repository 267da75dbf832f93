"""Assignments on Telegram: ``/assign QUIZ DEADLINE`` and ``/assign cancel ID`` (chat admins
and the bot's operators), ``/assignments``, ``/report [QUIZ|ID]`` (the same admins), and the
Start button under an assignment.

A quiz is played alone in the member's private chat with the bot, so the Start button sends
it there: the line naming the assignment, then its first (or next unanswered) question. A
member who never opened a chat with the bot cannot be written to (Telegram answers 403): the
press then says so and opens the bot's chat through a deep link
(``https://t.me/<bot>?start=A<id>``, the bot's username from getMe); pressing Start there sends
``/start A<id>``, which begins the quiz.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from telegram import CallbackQuery, Chat, Message, Update, User
from telegram.constants import ChatType
from telegram.error import Forbidden

from adapters.telegram import callback_data as cb
from adapters.telegram.assignment_rendering import (
    assignment_message,
    deep_link,
    deep_link_payload,
    intro_message,
    open_message,
    report_message,
)
from adapters.telegram.commands import Commands
from adapters.telegram.messenger import Messenger
from adapters.telegram.rendering import notice, toast
from adapters.telegram.shared import (
    GROUP_CHATS,
    PLATFORM,
    Context,
    is_chat_admin,
    participant,
    turn,
)
from bot.assignments import AssignmentReport, AssignmentReports, Assignments
from bot.assignments.export import assignment_csv
from bot.assignments.texts import assignment_t
from bot.i18n import t
from bot.views import Participant


class TelegramAssignments:
    """The handlers of the assignment commands and of the Start button."""

    def __init__(
        self,
        assignments: Assignments,
        admin_ids: frozenset[str],
        messenger: Messenger,
        commands: Commands,
    ) -> None:
        self.assignments = assignments
        self.admin_ids = admin_ids  # the bot's operators (ADMIN_TELEGRAM_IDS)
        self.messenger = messenger
        self.commands = commands  # starting a quiz and the /stats charts are shared

    async def _may_manage(
        self, context: Context, chat: Chat, user: User, message: Message | None
    ) -> bool:
        """A bot operator anywhere, or an admin of this group."""
        if str(user.id) in self.admin_ids:
            return True
        return chat.type in GROUP_CHATS and await is_chat_admin(context, chat, user, message)

    async def seen(self, update: Update) -> None:
        """Remember whoever sent a command in a group as one of its members."""
        chat, user = update.effective_chat, update.effective_user
        if chat is not None and user is not None and chat.type in GROUP_CHATS:
            await self.assignments.members.seen(str(chat.id), participant(user))

    # -- commands ---------------------------------------------------------------------------

    async def assign(self, update: Update, context: Context) -> None:
        """``/assign QUIZ DEADLINE`` posts an assignment; ``/assign cancel ID`` cancels one."""
        chat, user, message = update.effective_chat, update.effective_user, update.effective_message
        if chat is None or user is None:
            return
        args = context.args or []
        who = participant(user)
        in_group = chat.type in GROUP_CHATS
        allowed = in_group and await self._may_manage(context, chat, user, message)
        if args and args[0].lower() == "cancel":
            number = args[1] if len(args) > 1 else None
            cancelled = await self.assignments.cancel(
                str(chat.id), who, number, in_group=in_group, allowed=allowed
            )
            text = notice(cancelled.notice, cancelled.language)
            await self.messenger.send(context, chat.id, text)
            return
        quiz_id = args[0] if args else None
        deadline = " ".join(args[1:]) or None
        result = await self.assignments.assign(
            str(chat.id),
            who,
            quiz_id,
            deadline,
            in_group=in_group,
            allowed=allowed,
            chat_title=chat.title,
        )
        if result.post is None:
            await self.messenger.send(context, chat.id, notice(result.notice, result.language))
            return
        rendered = assignment_message(result.post)
        await self.messenger.send(context, chat.id, rendered.html, rendered.markup)

    async def list_open(self, update: Update, context: Context) -> None:
        """``/assignments``: the chat's open assignments."""
        chat, user = update.effective_chat, update.effective_user
        if chat is None or user is None:
            return
        found = await self.assignments.open_in(PLATFORM, str(chat.id), participant(user))
        await self.messenger.send(context, chat.id, open_message(found.posts, found.language))

    async def report(self, update: Update, context: Context) -> None:
        """``/report [QUIZ|ID]``: in a group, its assignments (its admins); in a private chat,
        those the user set (the bot's operators: every one)."""
        chat, user, message = update.effective_chat, update.effective_user, update.effective_message
        if chat is None or user is None:
            return
        who = participant(user)
        query = context.args[0] if context.args else None
        found = await self._reports(context, chat, user, message, who, query)
        if found is None:
            ui = await turn(context).language()
            text = notice(assignment_t("report_admins_only", ui), ui)
            await self.messenger.send(context, chat.id, text)
            return
        if not found.reports:
            await self.messenger.send(context, chat.id, notice(found.notice, found.language))
            return
        more = assignment_t("report_more", found.language, count=found.more) if found.more else None
        await self.messenger.send(context, chat.id, report_message(found.reports, more))
        await self._send_csv(context, chat.id, found)
        await self._send_charts(context, chat.id, found.reports)

    async def _reports(
        self,
        context: Context,
        chat: Chat,
        user: User,
        message: Message | None,
        who: Participant,
        query: str | None,
    ) -> AssignmentReports | None:
        """The reports ``who`` may read here; None when they may read none."""
        if chat.type in GROUP_CHATS:
            if not await self._may_manage(context, chat, user, message):
                return None
            return await self.assignments.reports(PLATFORM, str(chat.id), who, query)
        mine = None if str(user.id) in self.admin_ids else who.user_id
        return await self.assignments.reports(PLATFORM, None, who, query, created_by=mine)

    async def _send_csv(self, context: Context, chat_id: int, found: AssignmentReports) -> None:
        """The reports' rows as a CSV file in the chat."""
        numbers = "-".join(str(r.post.assignment_id) for r in found.reports)
        data = assignment_csv(found.reports).encode("utf-8-sig")  # spreadsheets read UTF-8
        caption = assignment_t("report_csv_caption", found.language)
        await context.bot.send_document(
            chat_id, data, filename=f"assignment-{numbers}.csv", caption=caption
        )

    async def _send_charts(
        self, context: Context, chat_id: int, reports: Sequence[AssignmentReport]
    ) -> None:
        """Each report's per-question chart, titled with its assignment."""
        stats = [
            dataclasses.replace(r.stats, title=f"#{r.post.assignment_id} {r.stats.title}")
            for r in reports
            if r.stats is not None
        ]
        await self.commands.send_charts(context, chat_id, stats)

    # -- starting ---------------------------------------------------------------------------

    async def on_press(self, update: Update, context: Context) -> None:
        """A press of the Start button under an assignment (any member may press it)."""
        query = update.callback_query
        if query is None:
            return
        data = cb.decode(query.data)
        if not isinstance(data, cb.StartAssignment):
            ui = await turn(context).language()
            await query.answer(toast(t("invalid_button", ui)))
            return
        await self.pressed_start(context, query, turn(context).who, data.assignment_id)

    async def pressed_start(
        self, context: Context, query: CallbackQuery, who: Participant, assignment_id: int
    ) -> None:
        """The Start button under an assignment: the quiz in the member's private chat, or
        (never opened) the deep link to it and why."""
        found = await self.assignments.available(assignment_id, who)
        post = found.post
        if post is None:
            await query.answer(toast(found.notice))
            return
        if query.message is not None and query.message.chat.type in GROUP_CHATS:
            await self.assignments.members.seen(str(query.message.chat.id), who)
        user = query.from_user
        try:
            await self.messenger.send(context, user.id, intro_message(post))
        except Forbidden:  # they never opened a chat with the bot (or blocked it)
            link = deep_link(context.bot.username, assignment_id)
            text = assignment_t("assignment_open_private", found.language)
            await query.answer(toast(text), show_alert=True, url=link)
            return
        await query.answer(toast(assignment_t("assignment_sent_private", found.language)))
        await self._start_in_private(context, user, assignment_id)

    async def deep_link(self, update: Update, context: Context) -> None:
        """``/start A<id>`` in a private chat (the Start button's deep link): the line naming
        the assignment, then the quiz."""
        user = update.effective_user
        if user is None or not context.args:
            return
        assignment_id = deep_link_payload(context.args[0])
        if assignment_id is not None:
            await self._start_in_private(context, user, assignment_id, intro=True)

    async def _start_in_private(
        self, context: Context, user: User, assignment_id: int, *, intro: bool = False
    ) -> None:
        """Start (or resume) the assignment's quiz in the user's private chat; with
        ``intro``, the line naming the assignment comes first."""
        started = await self.assignments.start(
            assignment_id, participant(user), chat_id=str(user.id)
        )
        if started.start is None or started.post is None:
            await self.messenger.send(context, user.id, notice(started.notice, started.language))
            return
        if intro:
            await self.messenger.send(context, user.id, intro_message(started.post))
        private = Chat(id=user.id, type=ChatType.PRIVATE)
        await self.commands.after_start(context, private, user, started.start)
