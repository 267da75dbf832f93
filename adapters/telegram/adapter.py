"""The Telegram bot: python-telegram-bot's Application in front of the quiz engine.

Handlers stay thin: decode what Telegram sent, call the engine, render, send. Every button
carries what it means (see :mod:`adapters.telegram.callback_data`) and poll links live in
storage, so nothing a user can press depends on this process's memory. Group rounds are run by
:class:`~adapters.telegram.group_rounds.RoundRunner`; webhook mode serves updates and a health
check from :class:`~adapters.telegram.webhook.WebhookServer`.
"""

from __future__ import annotations

import asyncio
import datetime as dtm
import functools
import hashlib
import json
import logging
import re
from collections import OrderedDict
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, Literal, cast
from urllib.parse import urlsplit

from telegram import (
    BotCommand,
    BotCommandScopeChat,
    CallbackQuery,
    Chat,
    InlineKeyboardMarkup,
    LinkPreviewOptions,
    Message,
    Poll,
    Update,
    User,
)
from telegram.constants import ChatMemberStatus, ChatType, ParseMode
from telegram.error import BadRequest, TelegramError
from telegram.ext import (
    AIORateLimiter,
    Application,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    PollAnswerHandler,
    filters,
)

from adapters.telegram import callback_data as cb
from adapters.telegram.budget import ChatBudget
from adapters.telegram.group_rounds import RoundRunner, RoundTiming
from adapters.telegram.polls import POLL_SCOPE, PollLink, plan_poll
from adapters.telegram.rendering import (
    answered_question,
    feedback_message,
    help_message,
    language_picker,
    mode_name,
    mode_picker,
    notice,
    picker_message,
    plain_text,
    progress_message,
    question_message,
    result_message,
    split_html,
    start_message,
    stop_confirmation,
    toast,
)
from adapters.telegram.round_rendering import (
    leaderboard_message,
    reload_report,
    round_picker,
    stats_report,
)
from adapters.telegram.texts import command_descriptions, tt
from adapters.telegram.update_processor import PerUserUpdateProcessor
from adapters.telegram.webhook import WebhookServer
from bot.engine import QuizEngine
from bot.i18n import DEFAULT_LANGUAGE, SUPPORTED_LANGUAGES, resolve_language, t
from bot.rate_limit import CommandRateLimiter
from bot.rounds import RoundAnswerOutcome, RoundStartOutcome
from bot.stats import QuizStats
from bot.views import (
    AnswerFeedback,
    AnswerOutcome,
    Participant,
    QuestionView,
    StartOutcome,
    StartResult,
)
from quizbot.settings import Settings

log = logging.getLogger("quizbot.telegram")

PLATFORM = "telegram"
DEFAULT_BASE_URL = "https://api.telegram.org/bot"
CHAT_MODE_SCOPE = "telegram:chat-mode"  # chat id -> "poll" | "buttons"
COMMANDS_SCOPE = "telegram:commands"  # bot id -> fingerprint of the last setMyCommands
# "<chat id>:<user id>" -> the seconds per question asked for while a round's quiz is picked
ROUND_LIMIT_SCOPE = "telegram:round-limit"
GROUP_CHATS = (ChatType.GROUP, ChatType.SUPERGROUP)
CHAT_ADMINS = (ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR)
_SECONDS = re.compile(r"[0-9]{1,6}")
ALLOWED_UPDATES = [Update.MESSAGE, Update.CALLBACK_QUERY, Update.POLL_ANSWER]
REMEMBERED_MESSAGES = 4096
_OptionIndex = Literal[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]  # what PTB's send_poll types accept
NO_PREVIEW = LinkPreviewOptions(is_disabled=True)

Context = ContextTypes.DEFAULT_TYPE
TelegramApplication = Application[Any, Any, Any, Any, Any, Any]
Handler = Callable[[Update, Context], Coroutine[Any, Any, None]]
StatsChart = Callable[[QuizStats], bytes]


def participant(user: User) -> Participant:
    """The engine's view of a Telegram user."""
    return Participant(PLATFORM, str(user.id), user.full_name or user.username, user.language_code)


def file_url_for(base_url: str) -> str:
    """The file download URL of a Bot API server, from its method URL (``.../bot``)."""
    head, sep, tail = base_url.rpartition("/bot")
    return f"{head}/file/bot{tail}" if sep else base_url.rstrip("/") + "/file/bot"


def webhook_secret_for(token: str) -> str:
    """A stable secret token derived from the bot token, for when WEBHOOK_SECRET is unset."""
    return hashlib.sha256(f"quizbot-webhook:{token}".encode()).hexdigest()


@dataclass(frozen=True)
class _Shown:
    """What a message this process sent or edited currently shows."""

    text: str
    markup: InlineKeyboardMarkup | None


class TelegramAdapter:
    """Runs the quiz bot on Telegram: long polling by default, a webhook when configured."""

    name = "telegram"

    def __init__(
        self,
        engine: QuizEngine,
        settings: Settings,
        *,
        listen: str = "0.0.0.0",
        polling_timeout: float = 10.0,
        max_retries: int = 5,
        round_timing: RoundTiming | None = None,
        stats_chart: StatsChart | None = None,
        limiter: CommandRateLimiter | None = None,
    ) -> None:
        """``stats_chart`` (optional) renders a quiz's statistics as a PNG for /stats;
        ``limiter`` caps each user's commands (so one user cannot spend the bot's sending
        budget for everyone)."""
        if not settings.telegram_token:
            raise ValueError("TELEGRAM_BOT_TOKEN is not set")
        self.engine = engine
        self.settings = settings
        self.token = settings.telegram_token
        self.base_url = settings.telegram_api_base_url or DEFAULT_BASE_URL
        self.listen = listen
        self.polling_timeout = polling_timeout
        self.max_retries = max_retries
        self.timing = round_timing or RoundTiming()
        self.stats_chart = stats_chart
        self.limiter = limiter or CommandRateLimiter()
        self.application: TelegramApplication | None = None
        self.webhook: WebhookServer | None = None
        # Only to avoid "message is not modified" on quick repeated presses; presses are
        # understood without it (after a restart it is empty and the press's own copy of the
        # message is used instead).
        self._shown: OrderedDict[tuple[int, int], _Shown] = OrderedDict()
        self._budget = ChatBudget(
            self.timing.chat_budget, self.timing.window, speed=self.timing.speed
        )
        self._rounds = RoundRunner(engine, PLATFORM, self.timing, self._budget)

    # -- lifecycle ---------------------------------------------------------------------------

    def build_application(self) -> TelegramApplication:
        """The Application with its handlers; not started."""
        speed = self.timing.speed
        builder = (
            Application.builder()
            .token(self.token)
            .base_url(self.base_url)
            .base_file_url(file_url_for(self.base_url))
            .rate_limiter(
                AIORateLimiter(
                    overall_max_rate=30,  # Telegram's limits: 30 messages a second,
                    overall_time_period=1 / speed,
                    group_max_rate=20,  # 20 a minute in one group
                    group_time_period=60 / speed,
                    # A 429 waits retry_after and is sent again; after this many it is logged.
                    max_retries=self.max_retries,
                )
            )
            # Users concurrently, each user's own updates in order: a double tap's second
            # press sees the first's result, and a one-shot menu cannot act twice.
            .concurrent_updates(PerUserUpdateProcessor())
        )
        if self.settings.webhook_url:
            builder = builder.updater(None)  # updates come from our own web server
        application = builder.build()
        commands: dict[str, Handler] = {
            "start": self._cmd_start,
            "quiz": self._cmd_quiz,
            "review": self._cmd_review,
            "progress": self._cmd_progress,
            "leaderboard": self._cmd_leaderboard,
            "language": self._cmd_language,
            "stop": self._cmd_stop,
            "mode": self._cmd_mode,
            "help": self._cmd_help,
            "reload": self._cmd_reload,
            "stats": self._cmd_stats,
        }
        for command, callback in commands.items():
            application.add_handler(CommandHandler(command, self._guarded(self._limited(callback))))
        application.add_handler(CallbackQueryHandler(self._guarded(self._on_callback)))
        application.add_handler(PollAnswerHandler(self._guarded(self._on_poll_answer)))
        # Last: any other command (the handlers above take theirs first).
        application.add_handler(MessageHandler(filters.COMMAND, self._guarded(self._cmd_unknown)))
        application.add_error_handler(self._on_error)
        return application

    async def start(self) -> None:
        """Connect, register the commands and take updates in the background.

        In webhook mode the HTTP server binds ``PORT`` first, before anything talks to
        Telegram, so the platform's port check passes however slow Telegram is.
        """
        application = self.build_application()
        self.application = application
        try:
            webhook_url = self.settings.webhook_url
            secret = self.settings.webhook_secret or webhook_secret_for(self.token)
            if webhook_url:
                self.webhook = WebhookServer(
                    urlsplit(webhook_url).path,
                    secret,
                    functools.partial(self._queue_update, application),
                    self.engine.healthy,
                )
                await self.webhook.start(self.listen, self.settings.port)
                log.info("telegram: webhook server on %s:%s", self.listen, self.settings.port)
            await application.initialize()
            await self._sync_commands(application)
            await application.start()
            if webhook_url:
                await application.bot.set_webhook(
                    webhook_url,
                    secret_token=secret,
                    allowed_updates=ALLOWED_UPDATES,
                    # Updates sent while the bot was down are still handled.
                    drop_pending_updates=False,
                )
                log.info("telegram: webhook set")
            else:
                updater = application.updater
                assert updater is not None
                await updater.start_polling(
                    timeout=dtm.timedelta(seconds=self.polling_timeout),
                    allowed_updates=ALLOWED_UPDATES,
                    # Presses made while the bot was down are still answered.
                    drop_pending_updates=False,
                )
                log.info("telegram: long polling")
            self._rounds.attach(application.bot)
            await self._rounds.resume()
        except BaseException:
            await self.stop()
            raise

    @staticmethod
    async def _queue_update(application: TelegramApplication, data: dict[str, Any]) -> None:
        """One update from the webhook, handed to the Application like the Updater would."""
        update = Update.de_json(data, application.bot)
        await application.update_queue.put(update)

    async def stop(self) -> None:
        """Stop taking updates, finish the ones in hand, stop the round timers (rounds go on
        after a restart), close the connections."""
        application, self.application = self.application, None
        webhook, self.webhook = self.webhook, None
        if webhook is not None:
            await webhook.stop()
        if application is None:
            return
        if application.updater is not None and application.updater.running:
            await application.updater.stop()
        if application.running:
            await application.stop()
        await self._rounds.shutdown()
        await application.shutdown()

    async def _sync_commands(self, application: TelegramApplication) -> None:
        """setMyCommands for every language, and for each admin's own chat a menu with the
        admin commands; once per change of the lists."""
        admins = sorted(self.settings.admin_telegram_ids)
        menus = {lang: command_descriptions(lang) for lang in SUPPORTED_LANGUAGES}
        admin_menus = {lang: command_descriptions(lang, admin=True) for lang in SUPPORTED_LANGUAGES}
        wanted = {"menus": menus, "admin_menus": admin_menus, "admins": admins}
        fingerprint = hashlib.sha256(json.dumps(wanted, sort_keys=True).encode()).hexdigest()
        key = str(application.bot.id)
        admins_key = f"{key}:admins"
        engine = self.engine
        if await engine.get_value(COMMANDS_SCOPE, key) == fingerprint:
            return
        bot = application.bot
        try:
            await bot.set_my_commands([BotCommand(c, d) for c, d in menus["en"]])
            for lang, menu in menus.items():
                await bot.set_my_commands([BotCommand(c, d) for c, d in menu], language_code=lang)
        except TelegramError:
            log.warning("telegram: could not register the command menu", exc_info=True)
            return
        complete = True
        for admin in admins:
            scope = BotCommandScopeChat(int(admin))
            try:
                # Chat-scoped menus outrank the default ones, so every language needs one.
                await bot.set_my_commands(
                    [BotCommand(c, d) for c, d in admin_menus["en"]], scope=scope
                )
                for lang, menu in admin_menus.items():
                    await bot.set_my_commands(
                        [BotCommand(c, d) for c, d in menu], scope=scope, language_code=lang
                    )
            except TelegramError as error:  # e.g. an admin who never opened the bot's chat
                log.warning("telegram: no admin command menu for %s (%s)", admin, error)
                complete = False
        before = json.loads(await engine.get_value(COMMANDS_SCOPE, admins_key) or "[]")
        for former in set(before) - set(admins):
            scope = BotCommandScopeChat(int(former))
            try:
                await bot.delete_my_commands(scope=scope)
                for lang in SUPPORTED_LANGUAGES:
                    await bot.delete_my_commands(scope=scope, language_code=lang)
            except TelegramError as error:
                log.warning("telegram: could not remove the admin menu of %s (%s)", former, error)
                complete = False
        await engine.set_value(COMMANDS_SCOPE, admins_key, json.dumps(admins))
        if complete:  # else the next start tries again
            await engine.set_value(COMMANDS_SCOPE, key, fingerprint)

    def _guarded(self, handler: Handler) -> Handler:
        """``handler``, but an exception is logged and the user told briefly, never raised."""

        @functools.wraps(handler)
        async def run(update: Update, context: Context) -> None:
            try:
                await handler(update, context)
            except Exception:
                log.exception(
                    "telegram: %s failed on update %s", handler.__name__, update.update_id
                )
                await self._apologize(update, context)

        return run

    def _limited(self, handler: Handler) -> Handler:
        """``handler`` within the user's command budget: over it, one notice, then silence."""

        @functools.wraps(handler)
        async def run(update: Update, context: Context) -> None:
            user = update.effective_user
            if user is None:
                await handler(update, context)
                return
            decision = self.limiter.check(PLATFORM, str(user.id))
            if decision.allowed:
                await handler(update, context)
            elif decision.notify and update.effective_chat is not None:
                ui = await self.engine.interface_language(participant(user))
                self._spend(update.effective_chat.id)
                await context.bot.send_message(update.effective_chat.id, t("slow_down", ui))

        return run

    async def _apologize(self, update: Update, context: Context) -> None:
        user = update.effective_user
        # No storage here: it may be what failed.
        ui = resolve_language(
            None, user.language_code if user else None, SUPPORTED_LANGUAGES, DEFAULT_LANGUAGE
        )
        text = tt("error", ui)
        try:
            if update.callback_query is not None:
                await update.callback_query.answer(toast(text))
            elif update.effective_chat is not None and update.effective_message is not None:
                self._spend(update.effective_chat.id)
                await context.bot.send_message(update.effective_chat.id, text)
        except TelegramError:
            log.warning("telegram: could not tell the user about the failure", exc_info=True)

    async def _on_error(self, update: object, context: Context) -> None:
        log.error("telegram: error while handling %r", update, exc_info=context.error)

    # -- sending -------------------------------------------------------------------------------

    def _remember(self, chat_id: int, message_id: int, shown: _Shown) -> None:
        key = (chat_id, message_id)
        self._shown[key] = shown
        self._shown.move_to_end(key)
        while len(self._shown) > REMEMBERED_MESSAGES:
            self._shown.popitem(last=False)

    def _spend(self, chat_id: int) -> None:
        """Count a send to a group towards its per-minute budget (rounds pace themselves by
        it; replies to commands are never held back)."""
        if chat_id < 0:
            self._budget.record(chat_id)

    def _current(self, message: Message) -> _Shown:
        known = self._shown.get((message.chat.id, message.message_id))
        return known or _Shown(message.text or "", message.reply_markup)

    async def _send(
        self,
        context: Context,
        chat_id: int,
        html: str,
        markup: InlineKeyboardMarkup | None = None,
    ) -> Message | None:
        """Send ``html`` as one message, or several when it is too long (the keyboard goes
        on the last one). Returns the last message."""
        chunks = split_html(html)
        sent = None
        for index, chunk in enumerate(chunks):
            keyboard = markup if index == len(chunks) - 1 else None
            self._spend(chat_id)
            sent = await context.bot.send_message(
                chat_id,
                chunk,
                parse_mode=ParseMode.HTML,
                reply_markup=keyboard,
                link_preview_options=NO_PREVIEW,
            )
            self._remember(chat_id, sent.message_id, _Shown(plain_text(chunk), keyboard))
        return sent

    async def _edit(
        self,
        context: Context,
        message: Message,
        html: str,
        markup: InlineKeyboardMarkup | None = None,
    ) -> None:
        """Show ``html`` in ``message`` (the rest in new messages when too long). Does nothing
        when the message already shows exactly that: Telegram refuses such edits."""
        chunks = split_html(html) or [""]
        first, rest = chunks[0], chunks[1:]
        keyboard = markup if not rest else None
        wanted = _Shown(plain_text(first), keyboard)
        chat_id = message.chat.id
        if self._current(message) != wanted:
            self._spend(chat_id)
            try:
                await context.bot.edit_message_text(
                    first,
                    chat_id=chat_id,
                    message_id=message.message_id,
                    parse_mode=ParseMode.HTML,
                    reply_markup=keyboard,
                    link_preview_options=NO_PREVIEW,
                )
            except BadRequest as error:
                if "not modified" not in error.message.lower():
                    # Too old, deleted, or otherwise not editable: show it as a new message.
                    log.warning("telegram: cannot edit a message (%s); sending it anew", error)
                    await self._send(context, chat_id, html, markup)
                    return
            self._remember(chat_id, message.message_id, wanted)
        if rest:
            await self._send(context, chat_id, "\n\n".join(rest), markup)

    def _menu_open(self, query: CallbackQuery) -> bool:
        """Whether the pressed one-shot menu still has its keyboard; False on a second press
        of the same menu, which must not act twice."""
        message = query.message
        if not isinstance(message, Message):
            return True
        markup = self._current(message).markup
        return markup is not None and bool(markup.inline_keyboard)

    async def _close_menu(self, context: Context, query: CallbackQuery, html: str | None) -> None:
        """Take the keyboard off a one-shot menu, showing ``html`` instead when given."""
        message = query.message
        if not isinstance(message, Message) or not self._menu_open(query):
            return
        if html is not None:
            await self._edit(context, message, html)
            return
        self._spend(message.chat.id)
        try:
            await context.bot.edit_message_reply_markup(
                chat_id=message.chat.id, message_id=message.message_id, reply_markup=None
            )
        except BadRequest as error:  # the press still counts; only the keyboard stays
            log.warning("telegram: cannot remove a keyboard (%s)", error)
        text = self._current(message).text
        self._remember(message.chat.id, message.message_id, _Shown(text, None))

    async def _poll_mode(self, chat_id: int, quiz_id: str) -> bool:
        """Whether questions go out as quiz polls: the chat's choice, else the quiz's."""
        chosen = await self.engine.get_value(CHAT_MODE_SCOPE, str(chat_id))
        if chosen in ("poll", "buttons"):
            return chosen == "poll"
        quiz = self.engine.catalog.get(quiz_id)
        return quiz is not None and quiz.native_polls

    async def _send_question(
        self, context: Context, chat_id: int, question: QuestionView, owner: str | None
    ) -> None:
        if await self._poll_mode(chat_id, question.quiz_id) and await self._send_poll(
            context, chat_id, question
        ):
            return
        rendered = question_message(question, owner)
        await self._send(context, chat_id, rendered.html, rendered.markup)

    async def _send_poll(self, context: Context, chat_id: int, question: QuestionView) -> bool:
        """Send ``question`` as a quiz poll; False when it does not fit poll limits."""
        key = self.engine.answer_key(question.quiz_id, question.question_id, question.language)
        if key is None:
            return False
        correct_option_id, explanation = key
        plan = plan_poll(question, correct_option_id, explanation)
        if plan is None:
            return False
        self._spend(chat_id)
        message = await context.bot.send_poll(
            chat_id,
            plan.question,
            list(plan.options),
            is_anonymous=False,
            type=Poll.QUIZ,
            correct_option_ids=[cast(_OptionIndex, plan.correct_index)],
            explanation=plan.explanation or None,
        )
        if message.poll is None:
            return True
        link = PollLink(
            attempt_id=question.attempt_id,
            question_id=question.question_id,
            question_number=question.number,
            option_ids=tuple(o.id for o in question.options),
            chat_id=chat_id,
            explanation_complete=plan.explanation_complete,
        )
        await self.engine.set_value(POLL_SCOPE, message.poll.id, link.dumps())
        return True

    async def _send_next(
        self, context: Context, chat_id: int, feedback: AnswerFeedback, owner: str | None
    ) -> None:
        """After an accepted answer: the next question, or the result."""
        if feedback.next_question is not None:
            await self._send_question(context, chat_id, feedback.next_question, owner)
        elif feedback.result is not None:
            rendered = result_message(feedback.result, owner)
            await self._send(context, chat_id, rendered.html, rendered.markup)

    async def _after_start(
        self, context: Context, chat: Chat, user: User, result: StartResult
    ) -> None:
        """Show what engine.start decided: the question, a picker, or a notice."""
        lang = result.language
        if result.question is not None:
            if result.notice:
                await self._send(context, chat.id, notice(result.notice, lang))
            await self._send_question(context, chat.id, result.question, _owner(chat, user))
        elif result.outcome in (StartOutcome.CHOOSE, StartOutcome.UNKNOWN_QUIZ):
            await self._remember_user(chat, user)
            rendered = picker_message(result.quizzes, lang, user.id, result.notice)
            await self._send(context, chat.id, rendered.html, rendered.markup)
        else:
            await self._send(context, chat.id, notice(result.notice, lang))

    async def _remember_user(self, chat: Chat, user: User) -> None:
        """Keep the name of who a group menu is for, to name them to others who press it."""
        if chat.type != ChatType.PRIVATE:
            await self.engine.remember_user(participant(user))

    # -- commands ------------------------------------------------------------------------------

    async def _cmd_start(self, update: Update, context: Context) -> None:
        chat, user = update.effective_chat, update.effective_user
        if chat is None or user is None:
            return
        if context.args:  # deep link: t.me/<bot>?start=<quiz id>
            await self._start_quiz(context, chat, user, context.args[0])
            return
        who = participant(user)
        ui = await self.engine.interface_language(who)
        await self._remember_user(chat, user)
        rendered = start_message(self.engine.quizzes(ui), ui, user.id)
        await self._send(context, chat.id, rendered.html, rendered.markup)

    async def _cmd_quiz(self, update: Update, context: Context) -> None:
        chat, user = update.effective_chat, update.effective_user
        if chat is None or user is None:
            return
        args = context.args or []
        if args and args[0].lower() == "group":
            await self._cmd_group_round(context, chat, user, args[1:])
            return
        await self._start_quiz(context, chat, user, args[0] if args else None)

    async def _cmd_review(self, update: Update, context: Context) -> None:
        chat, user = update.effective_chat, update.effective_user
        if chat is None or user is None:
            return
        quiz_id = context.args[0] if context.args else None
        result = await self.engine.start_review(participant(user), quiz_id, chat_id=str(chat.id))
        # The same question messages and buttons as /quiz: answers go through answer_at.
        await self._after_start(context, chat, user, result)

    async def _start_quiz(
        self,
        context: Context,
        chat: Chat,
        user: User,
        quiz_id: str | None,
    ) -> None:
        who = participant(user)
        result = await self.engine.start(who, quiz_id, chat_id=str(chat.id))
        await self._after_start(context, chat, user, result)

    async def _cmd_progress(self, update: Update, context: Context) -> None:
        chat, user = update.effective_chat, update.effective_user
        if chat is None or user is None:
            return
        report = await self.engine.progress(participant(user))
        await self._send(context, chat.id, progress_message(report))

    async def _cmd_language(self, update: Update, context: Context) -> None:
        chat, user = update.effective_chat, update.effective_user
        if chat is None or user is None:
            return
        who = participant(user)
        if context.args:
            chosen = await self.engine.set_language(who, context.args[0])
            if chosen is not None:
                await self._send(context, chat.id, notice(t("language_set", chosen), chosen))
                return
        ui = await self.engine.interface_language(who)
        await self._remember_user(chat, user)
        rendered = language_picker(ui, user.id)
        await self._send(context, chat.id, rendered.html, rendered.markup)

    async def _cmd_stop(self, update: Update, context: Context) -> None:
        chat, user = update.effective_chat, update.effective_user
        if chat is None or user is None:
            return
        if chat.type in GROUP_CHATS and await self._stop_round(update, context, chat, user):
            return
        who = participant(user)
        ui = await self.engine.interface_language(who)
        active = await self.engine.active_attempt(who)
        if active is None:
            await self._send(context, chat.id, notice(t("nothing_to_stop", ui), ui))
            return
        attempt, title = active
        rendered = stop_confirmation(title, attempt.id, ui)
        await self._send(context, chat.id, rendered.html, rendered.markup)

    async def _cmd_mode(self, update: Update, context: Context) -> None:
        chat, user = update.effective_chat, update.effective_user
        if chat is None or user is None:
            return
        ui = await self.engine.interface_language(participant(user))
        wanted = (context.args[0].lower() if context.args else "").strip()
        if wanted in ("poll", "polls", "buttons", "button"):
            poll = wanted.startswith("poll")
            await self._set_mode(chat.id, poll)
            text = notice(tt("mode_set", ui, mode=mode_name(poll, ui)), ui)
            await self._send(context, chat.id, text)
            return
        current = await self.engine.get_value(CHAT_MODE_SCOPE, str(chat.id)) == "poll"
        rendered = mode_picker(current, ui)
        await self._send(context, chat.id, rendered.html, rendered.markup)

    async def _set_mode(self, chat_id: int, poll: bool) -> None:
        await self.engine.set_value(CHAT_MODE_SCOPE, str(chat_id), "poll" if poll else "buttons")

    async def _cmd_help(self, update: Update, context: Context) -> None:
        chat, user = update.effective_chat, update.effective_user
        if chat is None or user is None:
            return
        ui = await self.engine.interface_language(participant(user))
        await self._send(context, chat.id, help_message(ui, admin=self._is_admin(user)))

    async def _cmd_leaderboard(self, update: Update, context: Context) -> None:
        """In a group, its members' best scores; in a private chat, everyone's."""
        chat, user = update.effective_chat, update.effective_user
        if chat is None or user is None:
            return
        who = participant(user)
        ui = await self.engine.interface_language(who)
        here = chat.type != ChatType.PRIVATE
        named = context.args[0] if context.args else None
        if named is not None and self.engine.catalog.get(named) is None:
            await self._send(context, chat.id, notice(self._unknown_quiz(named, ui), ui))
            return
        quiz_ids = [named] if named else [q.id for q in self.engine.catalog.all()]
        boards = []
        for quiz_id in quiz_ids:
            board = await self.engine.rounds.leaderboard(
                quiz_id,
                who,
                platform=PLATFORM if here else None,
                chat_id=str(chat.id) if here else None,
            )
            if board is not None and (board.lines or named):
                boards.append(board)
        if not boards:
            await self._send(context, chat.id, notice(t("leaderboard_empty", ui), ui))
            return
        await self._send(context, chat.id, leaderboard_message(boards, ui, here=here))

    def _unknown_quiz(self, quiz_id: str, language: str) -> str:
        available = ", ".join(q.id for q in self.engine.catalog.all())
        return t("unknown_quiz", language, quiz=quiz_id, available=available)

    # -- admin commands ------------------------------------------------------------------------

    def _is_admin(self, user: User) -> bool:
        return str(user.id) in self.settings.admin_telegram_ids

    async def _cmd_reload(self, update: Update, context: Context) -> None:
        """Re-read the quiz files; a broken file keeps its previous version live."""
        chat, user = update.effective_chat, update.effective_user
        if chat is None or user is None:
            return
        if not self._is_admin(user):
            await self._cmd_unknown(update, context)
            return
        ui = await self.engine.interface_language(participant(user))
        # Reading and validating files is blocking work: keep the event loop free meanwhile.
        report = await asyncio.to_thread(self.engine.catalog.reload)
        live = len(self.engine.catalog)
        log.info(
            "telegram: quizzes reloaded by %s: %d live, %d errors",
            user.id,
            live,
            len(report.errors),
        )
        await self._send(context, chat.id, reload_report(report, live, ui))

    async def _cmd_stats(self, update: Update, context: Context) -> None:
        """Per quiz: attempts, completions, average score, hardest question (and a chart)."""
        chat, user = update.effective_chat, update.effective_user
        if chat is None or user is None:
            return
        if not self._is_admin(user):
            await self._cmd_unknown(update, context)
            return
        ui = await self.engine.interface_language(participant(user))
        named = context.args[0] if context.args else None
        if named is not None and self.engine.catalog.get(named) is None:
            await self._send(context, chat.id, notice(self._unknown_quiz(named, ui), ui))
            return
        stats = await self.engine.stats(named, language=ui)
        await self._send(context, chat.id, stats_report(stats, ui))
        if self.stats_chart is not None:
            await self._send_charts(context, chat.id, stats)

    async def _send_charts(
        self, context: Context, chat_id: int, stats: Sequence[QuizStats]
    ) -> None:
        assert self.stats_chart is not None
        for quiz in stats:
            if not any(q.answered for q in quiz.questions):
                continue
            try:
                # In the event loop on purpose: plotting libraries are rarely thread-safe,
                # and another adapter may draw at the same time.
                png = self.stats_chart(quiz)
            except Exception:
                log.warning("telegram: no stats chart for %s", quiz.quiz_id, exc_info=True)
                return
            self._spend(chat_id)
            await context.bot.send_photo(chat_id, png, caption=quiz.title[:1024])

    async def _cmd_unknown(self, update: Update, context: Context) -> None:
        """Any command the bot does not have (and admin commands for everyone else). In
        groups only commands addressed to this bot by name get an answer: the others may be
        for another bot."""
        chat, user, message = update.effective_chat, update.effective_user, update.effective_message
        if chat is None or user is None or message is None:
            return
        if chat.type != ChatType.PRIVATE:
            command = (message.text or "").split(maxsplit=1)[0] if message.text else ""
            _, _, target = command.partition("@")
            if not target or target.lower() != (context.bot.username or "").lower():
                return
        ui = await self.engine.interface_language(participant(user))
        await self._send(context, chat.id, notice(tt("unknown_command", ui), ui))

    # -- group rounds --------------------------------------------------------------------------

    async def _cmd_group_round(
        self, context: Context, chat: Chat, user: User, args: Sequence[str]
    ) -> None:
        """``/quiz group [quiz] [seconds]``: a round the whole group plays together."""
        if chat.type not in GROUP_CHATS:
            ui = await self.engine.interface_language(participant(user))
            await self._send(context, chat.id, notice(tt("round_group_only", ui), ui))
            return
        quiz_id, seconds = _round_args(args)
        await self._begin_round(context, chat, user, quiz_id, seconds)

    async def _begin_round(
        self, context: Context, chat: Chat, user: User, quiz_id: str | None, seconds: int | None
    ) -> None:
        who = participant(user)
        start = await self.engine.rounds.start(
            PLATFORM, str(chat.id), who, quiz_id, time_limit=seconds
        )
        lang = start.language
        if start.outcome in (RoundStartOutcome.CHOOSE, RoundStartOutcome.UNKNOWN_QUIZ):
            # The picker's buttons cannot carry the seconds too (64 bytes): keep them aside.
            key = f"{chat.id}:{user.id}"
            await self.engine.set_value(ROUND_LIMIT_SCOPE, key, str(seconds) if seconds else None)
            await self._remember_user(chat, user)
            heading = start.notice if start.outcome is RoundStartOutcome.UNKNOWN_QUIZ else None
            rendered = round_picker(start.quizzes, lang, user.id, heading)
            await self._send(context, chat.id, rendered.html, rendered.markup)
            return
        await self._send(context, chat.id, notice(start.notice, lang))
        if start.question is not None:  # started, or already running: make sure it runs
            self._rounds.ensure(start.question)

    async def _stop_round(self, update: Update, context: Context, chat: Chat, user: User) -> bool:
        """/stop in a group with a round running: its starter or a chat admin ends it with
        the scoreboard so far. False when no round is running."""
        running = await self.engine.rounds.running(PLATFORM, str(chat.id))
        if running is None:
            return False
        who = participant(user)
        admin = running.starter_id != str(user.id) and await self._is_chat_admin(
            context, chat, user, update.effective_message
        )
        outcome = await self.engine.rounds.stop(PLATFORM, str(chat.id), who, is_chat_admin=admin)
        if isinstance(outcome, str):
            ui = await self.engine.interface_language(who)
            await self._send(context, chat.id, notice(outcome, ui))
        else:
            await self._rounds.stopped(outcome)
        return True

    async def _is_chat_admin(
        self, context: Context, chat: Chat, user: User, message: Message | None
    ) -> bool:
        if message is not None and message.sender_chat is not None:
            return message.sender_chat.id == chat.id  # an anonymous admin speaks as the group
        try:
            member = await context.bot.get_chat_member(chat.id, user.id)
        except TelegramError as error:
            log.warning("telegram: cannot check chat admin rights (%s)", error)
            return False
        return member.status in CHAT_ADMINS

    # -- buttons -------------------------------------------------------------------------------

    async def _on_callback(self, update: Update, context: Context) -> None:
        query = update.callback_query
        if query is None:
            return
        user = query.from_user
        who = participant(user)
        data = cb.decode(query.data)
        match data:
            case cb.Answer():
                await self._on_answer(context, query, who, data)
            case cb.PickQuiz(quiz_id, owner_id):
                if await self._refuse_foreign_menu(query, who, owner_id, "quiz"):
                    return
                await self._on_pick(context, query, who, quiz_id)
            case cb.Retry(attempt_id) | cb.OtherQuiz(attempt_id):
                attempt = await self.engine.attempt_info(attempt_id)
                if attempt is None or attempt.platform != PLATFORM:
                    await self._toast_invalid(query, who)
                    return
                if await self._refuse_foreign_menu(query, who, int(attempt.user_id), "quiz"):
                    return
                if isinstance(data, cb.Retry):
                    await self._on_retry(context, query, who, attempt_id)
                else:
                    await self._on_other_quiz(context, query, who)
            case cb.ChooseLanguage(language, owner_id):
                if await self._refuse_foreign_menu(query, who, owner_id, "language"):
                    return
                await self._on_language(context, query, who, language)
            case cb.StopConfirm(attempt_id, confirm):
                attempt = await self.engine.attempt_info(attempt_id)
                if attempt is None or attempt.platform != PLATFORM:
                    await self._toast_invalid(query, who)
                    return
                if await self._refuse_foreign_menu(query, who, int(attempt.user_id), "stop"):
                    return
                await self._on_stop(context, query, who, attempt_id, confirm)
            case cb.SetMode(poll):
                await self._on_mode(context, query, who, poll)
            case cb.RoundAnswer(round_id, number, index):
                result = await self.engine.rounds.answer(round_id, who, number, index)
                await query.answer(toast(result.notice))
                if result.outcome is RoundAnswerOutcome.ACCEPTED:
                    self._rounds.on_answer(
                        round_id, number, result.answered, result.everyone_answered
                    )
            case cb.PickRound(quiz_id, owner_id):
                if await self._refuse_foreign_menu(query, who, owner_id, "quiz"):
                    return
                await self._on_pick_round(context, query, who, quiz_id)
            case None:
                await self._toast_invalid(query, who)

    async def _toast_invalid(self, query: CallbackQuery, who: Participant) -> None:
        ui = await self.engine.interface_language(who)
        await query.answer(toast(t("invalid_button", ui)))

    async def _refuse_foreign_menu(
        self, query: CallbackQuery, who: Participant, owner_id: int, command: str
    ) -> bool:
        """Toast and return True when the pressed menu was shown to someone else."""
        if str(owner_id) == who.user_id:
            return False
        ui = await self.engine.interface_language(who)
        name = await self.engine.display_name(PLATFORM, str(owner_id)) or tt("someone", ui)
        await query.answer(toast(tt("menu_not_yours", ui, name=name, command=command)))
        return True

    async def _already_done(self, query: CallbackQuery, who: Participant) -> None:
        ui = await self.engine.interface_language(who)
        await query.answer(toast(tt("already_done", ui)))

    async def _on_answer(
        self, context: Context, query: CallbackQuery, who: Participant, data: cb.Answer
    ) -> None:
        feedback = await self.engine.answer_at(
            who, data.attempt_id, data.question_number, data.option_index
        )
        # Acknowledge first: the spinner on the button stops while the rest is sent.
        await query.answer(toast(feedback.notice))
        if feedback.outcome is not AnswerOutcome.ACCEPTED:
            return
        message = query.message
        chat_id = message.chat.id if message is not None else query.from_user.id
        chat_type = message.chat.type if message is not None else ChatType.PRIVATE
        owner = who.display_name if chat_type != ChatType.PRIVATE else None
        html = answered_question(feedback, owner)
        if isinstance(message, Message):
            await self._edit(context, message, html)
        else:
            await self._send(context, chat_id, html)
        await self._send_next(context, chat_id, feedback, owner)

    async def _on_pick(
        self, context: Context, query: CallbackQuery, who: Participant, quiz_id: str
    ) -> None:
        if not self._menu_open(query):
            await self._already_done(query, who)
            return
        await query.answer()
        await self._close_menu(context, query, None)
        if query.message is None:
            return
        await self._start_quiz(context, query.message.chat, query.from_user, quiz_id)

    async def _on_retry(
        self, context: Context, query: CallbackQuery, who: Participant, attempt_id: int
    ) -> None:
        if not self._menu_open(query):
            await self._already_done(query, who)
            return
        await query.answer()
        await self._close_menu(context, query, None)
        message = query.message
        if message is None:
            return
        result = await self.engine.retry(who, attempt_id, chat_id=str(message.chat.id))
        await self._after_start(context, message.chat, query.from_user, result)

    async def _on_pick_round(
        self, context: Context, query: CallbackQuery, who: Participant, quiz_id: str
    ) -> None:
        if not self._menu_open(query):
            await self._already_done(query, who)
            return
        await query.answer()
        await self._close_menu(context, query, None)
        message = query.message
        if message is None:
            return
        key = f"{message.chat.id}:{query.from_user.id}"
        seconds = await self.engine.get_value(ROUND_LIMIT_SCOPE, key)
        limit = int(seconds) if seconds and _SECONDS.fullmatch(seconds) else None
        await self.engine.set_value(ROUND_LIMIT_SCOPE, key, None)
        await self._begin_round(context, message.chat, query.from_user, quiz_id, limit)

    async def _on_other_quiz(
        self, context: Context, query: CallbackQuery, who: Participant
    ) -> None:
        if not self._menu_open(query):
            await self._already_done(query, who)
            return
        await query.answer()
        await self._close_menu(context, query, None)
        if query.message is None:
            return
        ui = await self.engine.interface_language(who)
        rendered = picker_message(self.engine.quizzes(ui), ui, query.from_user.id)
        await self._send(context, query.message.chat.id, rendered.html, rendered.markup)

    async def _on_language(
        self, context: Context, query: CallbackQuery, who: Participant, language: str
    ) -> None:
        chosen = await self.engine.set_language(who, language)
        if chosen is None:
            await self._toast_invalid(query, who)
            return
        text = t("language_set", chosen)
        await query.answer(toast(text))
        await self._close_menu(context, query, notice(text, chosen))

    async def _on_stop(
        self,
        context: Context,
        query: CallbackQuery,
        who: Participant,
        attempt_id: int,
        confirm: bool,
    ) -> None:
        if not self._menu_open(query):
            await self._already_done(query, who)
            return
        ui = await self.engine.interface_language(who)
        if confirm:
            text = await self.engine.stop(who, attempt_id)
        else:
            active = await self.engine.active_attempt(who)
            title = active[1] if active is not None and active[0].id == attempt_id else ""
            text = tt("stop_kept", ui, title=title) if title else t("nothing_to_stop", ui)
        await query.answer(toast(text))
        await self._close_menu(context, query, notice(text, ui))

    async def _on_mode(
        self, context: Context, query: CallbackQuery, who: Participant, poll: bool
    ) -> None:
        message = query.message
        if message is None:
            await self._toast_invalid(query, who)
            return
        await self._set_mode(message.chat.id, poll)
        ui = await self.engine.interface_language(who)
        text = tt("mode_set", ui, mode=mode_name(poll, ui))
        await query.answer(toast(text))
        await self._close_menu(context, query, notice(text, ui))

    # -- quiz polls ----------------------------------------------------------------------------

    async def _on_poll_answer(self, update: Update, context: Context) -> None:
        answer = update.poll_answer
        if answer is None or answer.user is None or not answer.option_ids:
            return  # an anonymous vote or a retracted one: nothing to record
        link = PollLink.loads(await self.engine.get_value(POLL_SCOPE, answer.poll_id))
        if link is None:
            return
        index = answer.option_ids[0]
        if not 0 <= index < len(link.option_ids):
            return
        who = participant(answer.user)
        feedback = await self.engine.answer(
            who, link.attempt_id, link.question_id, link.option_ids[index]
        )
        if feedback.outcome is AnswerOutcome.NOT_YOURS:
            return  # another member voted on someone's poll in a group: theirs is still open
        await self.engine.set_value(POLL_SCOPE, answer.poll_id, None)
        if feedback.outcome is not AnswerOutcome.ACCEPTED:
            return
        if not link.explanation_complete or (not feedback.correct and feedback.wrong_note):
            await self._send(context, link.chat_id, feedback_message(feedback))
        owner = who.display_name if link.chat_id != answer.user.id else None
        await self._send_next(context, link.chat_id, feedback, owner)


def _round_args(args: Sequence[str]) -> tuple[str | None, int | None]:
    """The quiz id and seconds per question of ``/quiz group [quiz] [seconds]``, any order."""
    quiz_id = seconds = None
    for arg in args:
        if _SECONDS.fullmatch(arg):
            seconds = int(arg)
        elif quiz_id is None:
            quiz_id = arg
    return quiz_id, seconds


def _owner(chat: Chat, user: User) -> str | None:
    """In groups, whose attempt a question belongs to is shown on it."""
    return None if chat.type == ChatType.PRIVATE else participant(user).display_name
