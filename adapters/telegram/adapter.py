"""The Telegram bot: python-telegram-bot's Application in front of the quiz engine.

Handlers stay thin: decode what Telegram sent, call the engine, render, send. Every button
carries what it means (see :mod:`adapters.telegram.callback_data`) and poll links live in
storage, so nothing a user can press depends on this process's memory.
"""

from __future__ import annotations

import datetime as dtm
import hashlib
import json
import logging
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Literal, cast
from urllib.parse import urlsplit

from telegram import (
    BotCommand,
    CallbackQuery,
    Chat,
    InlineKeyboardMarkup,
    LinkPreviewOptions,
    Message,
    Poll,
    Update,
    User,
)
from telegram.constants import ChatType, ParseMode
from telegram.error import BadRequest, TelegramError
from telegram.ext import (
    AIORateLimiter,
    Application,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
    PollAnswerHandler,
)

from adapters.telegram import callback_data as cb
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
from adapters.telegram.texts import command_descriptions, tt
from bot.engine import QuizEngine
from bot.i18n import SUPPORTED_LANGUAGES, t
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
ALLOWED_UPDATES = [Update.MESSAGE, Update.CALLBACK_QUERY, Update.POLL_ANSWER]
REMEMBERED_MESSAGES = 4096
_OptionIndex = Literal[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]  # what PTB's send_poll types accept
NO_PREVIEW = LinkPreviewOptions(is_disabled=True)

Context = ContextTypes.DEFAULT_TYPE
TelegramApplication = Application[Any, Any, Any, Any, Any, Any]


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
    ) -> None:
        if not settings.telegram_token:
            raise ValueError("TELEGRAM_BOT_TOKEN is not set")
        self.engine = engine
        self.settings = settings
        self.token = settings.telegram_token
        self.base_url = settings.telegram_api_base_url or DEFAULT_BASE_URL
        self.listen = listen
        self.polling_timeout = polling_timeout
        self.max_retries = max_retries
        self.application: TelegramApplication | None = None
        # Only to avoid "message is not modified" on quick repeated presses; presses are
        # understood without it (after a restart it is empty and the press's own copy of the
        # message is used instead).
        self._shown: OrderedDict[tuple[int, int], _Shown] = OrderedDict()

    # -- lifecycle ---------------------------------------------------------------------------

    def build_application(self) -> TelegramApplication:
        """The Application with its handlers; not started."""
        application = (
            Application.builder()
            .token(self.token)
            .base_url(self.base_url)
            .base_file_url(file_url_for(self.base_url))
            .rate_limiter(
                AIORateLimiter(
                    overall_max_rate=30,  # Telegram's limits: 30 messages a second,
                    overall_time_period=1,
                    group_max_rate=20,  # 20 a minute in one group
                    group_time_period=60,
                    # A 429 waits retry_after and is sent again; after this many it is logged.
                    max_retries=self.max_retries,
                )
            )
            # One update at a time, in order: a double tap's second press sees the first's
            # result, and a one-shot menu cannot act twice.
            .concurrent_updates(False)
            .build()
        )
        commands = {
            "start": self._cmd_start,
            "quiz": self._cmd_quiz,
            "progress": self._cmd_progress,
            "language": self._cmd_language,
            "stop": self._cmd_stop,
            "mode": self._cmd_mode,
            "help": self._cmd_help,
        }
        for command, callback in commands.items():
            application.add_handler(CommandHandler(command, callback))
        application.add_handler(CallbackQueryHandler(self._on_callback))
        application.add_handler(PollAnswerHandler(self._on_poll_answer))
        application.add_error_handler(self._on_error)
        return application

    async def start(self) -> None:
        """Connect, register the commands and take updates in the background."""
        application = self.build_application()
        await application.initialize()
        self.application = application
        try:
            await self._sync_commands(application)
            await application.start()
            updater = application.updater
            assert updater is not None
            if self.settings.webhook_url:
                await updater.start_webhook(
                    listen=self.listen,
                    port=self.settings.port,
                    url_path=urlsplit(self.settings.webhook_url).path.strip("/"),
                    webhook_url=self.settings.webhook_url,
                    secret_token=self.settings.webhook_secret or webhook_secret_for(self.token),
                    allowed_updates=ALLOWED_UPDATES,
                    drop_pending_updates=False,
                )
                log.info("telegram: webhook listening on %s:%s", self.listen, self.settings.port)
            else:
                await updater.start_polling(
                    timeout=dtm.timedelta(seconds=self.polling_timeout),
                    allowed_updates=ALLOWED_UPDATES,
                    # Presses made while the bot was down are still answered.
                    drop_pending_updates=False,
                )
                log.info("telegram: long polling")
        except BaseException:
            await self.stop()
            raise

    async def stop(self) -> None:
        """Stop taking updates, finish the ones in hand, close the connections."""
        application, self.application = self.application, None
        if application is None:
            return
        if application.updater is not None and application.updater.running:
            await application.updater.stop()
        if application.running:
            await application.stop()
        await application.shutdown()

    async def _sync_commands(self, application: TelegramApplication) -> None:
        """setMyCommands for every language, once per change of the command list."""
        menus = {lang: command_descriptions(lang) for lang in SUPPORTED_LANGUAGES}
        fingerprint = hashlib.sha256(json.dumps(menus, sort_keys=True).encode()).hexdigest()
        key = str(application.bot.id)
        storage = self.engine.storage
        if await storage.get_value(COMMANDS_SCOPE, key) == fingerprint:
            return
        try:
            default = [BotCommand(c, d) for c, d in menus["en"]]
            await application.bot.set_my_commands(default)
            for lang, menu in menus.items():
                await application.bot.set_my_commands(
                    [BotCommand(c, d) for c, d in menu], language_code=lang
                )
        except TelegramError:
            log.warning("telegram: could not register the command menu", exc_info=True)
            return
        await storage.set_value(COMMANDS_SCOPE, key, fingerprint)

    async def _on_error(self, update: object, context: Context) -> None:
        log.error("telegram: error while handling %r", update, exc_info=context.error)

    # -- sending -------------------------------------------------------------------------------

    def _remember(self, chat_id: int, message_id: int, shown: _Shown) -> None:
        key = (chat_id, message_id)
        self._shown[key] = shown
        self._shown.move_to_end(key)
        while len(self._shown) > REMEMBERED_MESSAGES:
            self._shown.popitem(last=False)

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
        chosen = await self.engine.storage.get_value(CHAT_MODE_SCOPE, str(chat_id))
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
        await self.engine.storage.set_value(POLL_SCOPE, message.poll.id, link.dumps())
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
            await self.engine.storage.touch_user(
                PLATFORM, str(user.id), participant(user).display_name
            )

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
        await self._start_quiz(context, chat, user, context.args[0] if context.args else None)

    async def _start_quiz(
        self,
        context: Context,
        chat: Chat,
        user: User,
        quiz_id: str | None,
        *,
        restart: bool = False,
    ) -> None:
        who = participant(user)
        result = await self.engine.start(who, quiz_id, chat_id=str(chat.id), restart=restart)
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
        current = await self.engine.storage.get_value(CHAT_MODE_SCOPE, str(chat.id)) == "poll"
        rendered = mode_picker(current, ui)
        await self._send(context, chat.id, rendered.html, rendered.markup)

    async def _set_mode(self, chat_id: int, poll: bool) -> None:
        await self.engine.storage.set_value(
            CHAT_MODE_SCOPE, str(chat_id), "poll" if poll else "buttons"
        )

    async def _cmd_help(self, update: Update, context: Context) -> None:
        chat, user = update.effective_chat, update.effective_user
        if chat is None or user is None:
            return
        ui = await self.engine.interface_language(participant(user))
        await self._send(context, chat.id, help_message(ui))

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
                await self._on_pick(context, query, who, quiz_id, restart=False)
            case cb.Retry(attempt_id) | cb.OtherQuiz(attempt_id):
                attempt = await self.engine.storage.get_attempt(attempt_id)
                if attempt is None or attempt.platform != PLATFORM:
                    await self._toast_invalid(query, who)
                    return
                if await self._refuse_foreign_menu(query, who, int(attempt.user_id), "quiz"):
                    return
                if isinstance(data, cb.Retry):
                    await self._on_pick(context, query, who, attempt.quiz_id, restart=True)
                else:
                    await self._on_other_quiz(context, query, who)
            case cb.ChooseLanguage(language, owner_id):
                if await self._refuse_foreign_menu(query, who, owner_id, "language"):
                    return
                await self._on_language(context, query, who, language)
            case cb.StopConfirm(attempt_id, confirm):
                attempt = await self.engine.storage.get_attempt(attempt_id)
                if attempt is None or attempt.platform != PLATFORM:
                    await self._toast_invalid(query, who)
                    return
                if await self._refuse_foreign_menu(query, who, int(attempt.user_id), "stop"):
                    return
                await self._on_stop(context, query, who, attempt_id, confirm)
            case cb.SetMode(poll):
                await self._on_mode(context, query, who, poll)
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
        owner = await self.engine.storage.get_user(PLATFORM, str(owner_id))
        name = (owner.display_name if owner else None) or tt("someone", ui)
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
        self,
        context: Context,
        query: CallbackQuery,
        who: Participant,
        quiz_id: str,
        *,
        restart: bool,
    ) -> None:
        if not self._menu_open(query):
            await self._already_done(query, who)
            return
        await query.answer()
        await self._close_menu(context, query, None)
        if query.message is None:
            return
        await self._start_quiz(
            context, query.message.chat, query.from_user, quiz_id, restart=restart
        )

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
        storage = self.engine.storage
        link = PollLink.loads(await storage.get_value(POLL_SCOPE, answer.poll_id))
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
        await storage.set_value(POLL_SCOPE, answer.poll_id, None)
        if feedback.outcome is not AnswerOutcome.ACCEPTED:
            return
        if not link.explanation_complete or (not feedback.correct and feedback.wrong_note):
            await self._send(context, link.chat_id, feedback_message(feedback))
        owner = who.display_name if link.chat_id != answer.user.id else None
        await self._send_next(context, link.chat_id, feedback, owner)


def _owner(chat: Chat, user: User) -> str | None:
    """In groups, whose attempt a question belongs to is shown on it."""
    return None if chat.type == ChatType.PRIVATE else participant(user).display_name
