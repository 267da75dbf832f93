"""The Telegram bot: python-telegram-bot's Application in front of the quiz engine.

This module wires things together and runs them: the Application with its rate limiter and
per-user update order, the handlers (:mod:`~adapters.telegram.commands` for commands,
:mod:`~adapters.telegram.callbacks` for buttons and polls), long polling or a webhook
(:mod:`~adapters.telegram.webhook`, mounted on the process's web server), the menu
(:mod:`~adapters.telegram.menu_sync`) and the group round timers
(:class:`~adapters.telegram.group_rounds.TelegramRoundDriver`). Handlers stay thin: decode what
Telegram sent, call the engine, render, send (:class:`~adapters.telegram.messenger.Messenger`).
"""

from __future__ import annotations

import datetime as dtm
import functools
import hashlib
import logging
from typing import Any
from urllib.parse import urlsplit

from telegram import Update
from telegram.ext import (
    Application,
    ApplicationHandlerStop,
    BaseHandler,
    CallbackQueryHandler,
    CommandHandler,
    MessageHandler,
    PollAnswerHandler,
    TypeHandler,
    filters,
)

from adapters.telegram.assignment_rendering import AssignmentMessages
from adapters.telegram.assignments import TelegramAssignments
from adapters.telegram.budget import BudgetedRateLimiter, ChatBudget
from adapters.telegram.callbacks import Callbacks
from adapters.telegram.commands import Commands, StatsChart
from adapters.telegram.config import TelegramConfig, WebMount
from adapters.telegram.daily_commands import DailyCommands
from adapters.telegram.group_rounds import RoundTiming, TelegramRoundDriver
from adapters.telegram.menu_sync import sync_commands
from adapters.telegram.messenger import Messenger
from adapters.telegram.outbox_sender import TelegramSender
from adapters.telegram.reminders import render_review_due
from adapters.telegram.shared import (
    PLATFORM,
    TURN_KEY,
    Context,
    Handler,
    TelegramApplication,
    Turn,
    apologize,
    participant,
)
from adapters.telegram.transport import AiohttpRequest
from adapters.telegram.typed_answers import TypedAnswers
from adapters.telegram.update_processor import PerUserUpdateProcessor
from adapters.telegram.uploads import TelegramUploads
from adapters.telegram.webhook import TelegramWebhook, WebhookReplies
from bot.i18n import t
from bot.rate_limit import CommandRateLimiter
from bot.review_reminders import REVIEW_DUE
from bot.rounds import RoundClock, SystemClock
from bot.services import Services

log = logging.getLogger("quizbot.telegram")

ALLOWED_UPDATES = [Update.MESSAGE, Update.CALLBACK_QUERY, Update.POLL_ANSWER]
DEEP_LINK_START = r"^/start(@\w+)?\s+A[0-9]{1,18}\s*$"  # t.me/<bot>?start=A<assignment id>
ASSIGNMENT_START = r"^v1:as:"  # the Start button under an assignment


def file_url_for(base_url: str) -> str:
    """The file download URL of a Bot API server, from its method URL (``.../bot``)."""
    head, sep, tail = base_url.rpartition("/bot")
    return f"{head}/file/bot{tail}" if sep else base_url.rstrip("/") + "/file/bot"


def send_budget(timing: RoundTiming, clock: RoundClock) -> ChatBudget:
    """The groups' send budget: on real time (monotonic, ``timing.speed`` times faster) when
    rounds run on the system's clock; on the rounds' own clock otherwise (tests: a
    ManualClock), so that a minute of it passes as the rounds see it pass."""
    if isinstance(clock, SystemClock):
        return ChatBudget(timing.chat_budget, timing.window, speed=timing.speed)
    return ChatBudget(timing.chat_budget, timing.window, now=lambda: clock().timestamp())


def webhook_secret_for(token: str) -> str:
    """A stable secret token derived from the bot token, for when WEBHOOK_SECRET is unset."""
    return hashlib.sha256(f"quizbot-webhook:{token}".encode()).hexdigest()


class TelegramAdapter:
    """Runs the quiz bot on Telegram: long polling by default, a webhook when configured."""

    name = "telegram"

    def __init__(
        self,
        services: Services,
        config: TelegramConfig,
        *,
        polling_timeout: float = 10.0,
        max_retries: int = 5,
        round_timing: RoundTiming | None = None,
        stats_chart: StatsChart | None = None,
        limiter: CommandRateLimiter | None = None,
        web: WebMount | None = None,
        message_rate: float = 30.0,
    ) -> None:
        """``services``: the engine and the services beside it, the process's (the adapter
        posts Telegram's outbox with their scheduling, whose scheduler the runner runs, and
        its round driver takes on the daily questions it opens); ``stats_chart`` (optional)
        renders a quiz's statistics as a PNG for /stats; ``limiter`` caps each user's
        commands (so one user cannot spend the bot's sending budget for everyone); ``web`` is
        the process's HTTP server, where webhook mode (``config.webhook_url``) mounts its
        path: that mode needs one; ``message_rate`` is the overall messages a second
        (Telegram's 30; 0 turns the pacing off, for benchmarks of the software alone).
        """
        if config.webhook_url and web is None:
            raise ValueError("webhook mode needs the web server to mount its path on")
        engine = services.engine
        self.services = services
        self.engine = engine
        self.config = config
        self.token = config.token
        self.base_url = config.api_base_url
        self.polling_timeout = polling_timeout
        self.max_retries = max_retries
        self.timing = round_timing or RoundTiming()
        self.limiter = limiter or CommandRateLimiter()
        self.message_rate = message_rate
        self.application: TelegramApplication | None = None
        self.web = web
        self._webhook_path: str | None = None
        # Presses acknowledged in the webhook's response (webhook mode only).
        self.replies = WebhookReplies()
        self.budget = send_budget(self.timing, services.clock)
        self.round_driver = TelegramRoundDriver(
            services.rounds, PLATFORM, self.timing, self.budget, clock=services.clock
        )
        # A chat a round cannot post in is marked as the outbox marks one (no more daily posts).
        self.round_driver.unreachable = services.scheduling.reachability
        services.daily.on_posted(PLATFORM, self.round_driver.ensure)
        # The outbox: scheduled and queued messages, posted through the rate limiter.
        self.sender = TelegramSender()
        self.sender.register(REVIEW_DUE, render_review_due)
        for kind, renderer in AssignmentMessages(engine.catalog).renderers().items():
            self.sender.register(kind, renderer)
        self.poster = services.scheduling.poster(self.sender)
        self.messenger = Messenger(engine)
        self.commands = Commands(
            services, config.admin_ids, self.messenger, self.round_driver, stats_chart
        )
        self.daily_commands = DailyCommands(services.daily, self.messenger)
        # Users' updates concurrently, each user's own in order (with their follow-ups): a
        # double tap's second press sees the first's result, a one-shot menu cannot act twice.
        self.updates = PerUserUpdateProcessor()
        self.callbacks = Callbacks(
            engine, self.messenger, self.commands, self.round_driver, self.updates
        )
        self.typed = TypedAnswers(engine, self.messenger)
        self.uploads = TelegramUploads(engine, self.messenger, config.admin_ids)
        self.assignments = TelegramAssignments(
            services.assignments, config.admin_ids, self.messenger, self.commands
        )
        # The handlers whose updates count against the user's command budget.
        self._budgeted: list[BaseHandler[Update, Context, None]] = []

    def build_application(self) -> TelegramApplication:
        """The Application with its handlers; not started."""
        speed = self.timing.speed
        builder = (
            Application.builder()
            .token(self.token)
            .base_url(self.base_url)
            .base_file_url(file_url_for(self.base_url))
            # aiohttp instead of PTB's httpx: it holds under hundreds of concurrent requests.
            .request(
                AiohttpRequest(
                    # A request waits for a free connection rather than fail after PTB's 1 s:
                    # under a burst a dropped follow-up is a user who never sees the next
                    # question. The read timeouts keep the pool draining.
                    pool_timeout=None,
                    divert=self.replies.divert if self.config.webhook_url else None,
                )
            )
            .get_updates_request(AiohttpRequest(connection_pool_size=1))
            .rate_limiter(
                BudgetedRateLimiter(
                    self.budget,
                    overall_max_rate=self.message_rate,  # Telegram's: 30 messages a second,
                    overall_time_period=1 / speed,
                    group_max_rate=20,  # 20 a minute in one group
                    group_time_period=60 / speed,
                    # A 429 waits retry_after and is sent again; after this many it is logged.
                    max_retries=self.max_retries,
                )
            )
            .concurrent_updates(self.updates)
        )
        if self.config.webhook_url:
            builder = builder.updater(None)  # updates come from our own web server
        application = builder.build()
        commands: dict[str, Handler] = {
            "start": self.commands.start,
            "quiz": self.commands.quiz,
            "review": self.commands.review,
            "remind": self.commands.remind,
            "timezone": self.commands.timezone,
            "progress": self.commands.progress,
            "leaderboard": self.commands.leaderboard,
            "language": self.commands.language,
            "stop": self.commands.stop,
            "mode": self.commands.mode,
            "help": self.commands.help,
            "reload": self.commands.reload,
            "stats": self.commands.stats,
            "quizzes": self.commands.quizzes,
            "unpublish": self.commands.unpublish,
            "daily": self.daily_commands.daily_command,
            "assign": self.assignments.assign,
            "assignments": self.assignments.list_open,
            "report": self.assignments.report,
        }
        # Group -1 runs first on every update: who sent it and the command budget, once.
        application.add_handler(TypeHandler(Update, self._before_handlers), group=-1)
        # Before /start's own handler: its deep link to an assignment's quiz.
        deep_link = filters.ChatType.PRIVATE & filters.Regex(DEEP_LINK_START)
        self._budgeted = [CommandHandler("start", self.assignments.deep_link, deep_link)]
        # Before the quiz buttons' handler: the Start button under an assignment.
        application.add_handler(
            CallbackQueryHandler(self.assignments.on_press, pattern=ASSIGNMENT_START)
        )
        # Presses and votes before the commands: PTB tries a group's handlers in turn, and a
        # burst of presses should not ask every command handler first (no command matches).
        application.add_handler(CallbackQueryHandler(self.callbacks.on_callback))
        application.add_handler(PollAnswerHandler(self.callbacks.on_poll_answer))
        self._budgeted += [CommandHandler(name, command) for name, command in commands.items()]
        for handler in self._budgeted:
            application.add_handler(handler)
        # Text that is not a command: a reply to a typed-answer question, within the budget.
        typed = MessageHandler(filters.TEXT & ~filters.COMMAND, self.typed.on_text)
        self._budgeted.append(typed)
        application.add_handler(typed)
        # A file sent in a private chat: an admin's quiz upload, within the budget.
        documents = MessageHandler(
            filters.Document.ALL & filters.ChatType.PRIVATE, self.uploads.on_document
        )
        self._budgeted.append(documents)
        application.add_handler(documents)
        # Last: any other command (the handlers above take theirs first).
        application.add_handler(MessageHandler(filters.COMMAND, self.commands.unknown))
        # A handler that raises: the user hears so briefly, the log has the traceback.
        application.add_error_handler(self._on_error)
        return application

    async def start(self) -> None:
        """Connect, register the commands and take updates in the background.

        In webhook mode the wiring has bound ``PORT`` before this, so the platform's port
        check passes however slow Telegram is.
        """
        application = self.build_application()
        self.application = application
        try:
            webhook_url = self.config.webhook_url
            secret = self.config.webhook_secret or webhook_secret_for(self.token)
            if webhook_url:
                web = self.web
                assert web is not None  # checked in __init__
                on_update = functools.partial(self._queue_update, application)
                self._webhook_path = urlsplit(webhook_url).path
                hook = TelegramWebhook(secret, on_update, self.replies)
                web.mount(self._webhook_path, hook.handle, authorized=hook.authorized)
            await application.initialize()
            await sync_commands(application.bot, self.engine, self.config.admin_ids)
            await application.start()
            if webhook_url:
                await application.bot.set_webhook(
                    webhook_url,
                    secret_token=secret,
                    allowed_updates=ALLOWED_UPDATES,
                    # Updates sent while the bot was down are still handled.
                    drop_pending_updates=False,
                    # Telegram's own bound on concurrent deliveries; the server caps the rest.
                    max_connections=self.config.webhook_max_connections,
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
            self.round_driver.attach(application.bot)
            await self.round_driver.resume()
            self.sender.attach(application.bot)
            self.poster.start()
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
        if self._webhook_path is not None and self.web is not None:
            self.web.unmount(self._webhook_path)
        self._webhook_path = None
        if application is None:
            return
        await self.poster.stop()  # unsent messages stay in the outbox for the next process
        if application.updater is not None and application.updater.running:
            await application.updater.stop()
        if application.running:
            await application.stop()
        await self.updates.finish_follow_ups()  # presses handled while stopping too
        await self.round_driver.shutdown()
        await application.shutdown()

    async def _before_handlers(self, update: Update, context: Context) -> None:
        """Every update, before its handler: its sender's :class:`Turn` on the context, and a
        command or typed answer over the user's budget stopped here (one notice, then
        silence), so that one user cannot spend the bot's sending budget for everyone."""
        user = update.effective_user
        if user is None:
            return
        here = context.__dict__[TURN_KEY] = Turn(self.engine, participant(user))
        chat = update.effective_chat
        # They talk to the bot: the outbox may message them again (a no-op unless marked).
        await self.services.scheduling.reachability.seen(
            PLATFORM, str(user.id), str(chat.id) if chat is not None else None
        )
        # Only messages are budgeted (commands, typed answers): a press or a vote never is.
        message = update.message or update.edited_message
        if message is None or not any(h.check_update(update) for h in self._budgeted):
            return
        decision = self.limiter.check(PLATFORM, here.who.user_id)
        if decision.allowed:
            await self.assignments.seen(update)  # a member seen in a group, for its reports
            return
        if decision.notify and update.effective_chat is not None:
            ui = await here.language()
            await context.bot.send_message(update.effective_chat.id, t("slow_down", ui))
        raise ApplicationHandlerStop

    async def _apologize(self, update: Update, context: Context) -> None:
        user, query, chat = update.effective_user, update.callback_query, update.effective_chat
        await apologize(
            context.bot,
            user.language_code if user else None,
            query_id=query.id if query else None,
            chat_id=chat.id if chat and update.effective_message else None,
        )

    async def _on_error(self, update: object, context: Context) -> None:
        if not isinstance(update, Update):  # not from a handler (a job, the updater)
            log.error("telegram: error outside a handler", exc_info=context.error)
            return
        log.error("telegram: handling update %s failed", update.update_id, exc_info=context.error)
        await self._apologize(update, context)
