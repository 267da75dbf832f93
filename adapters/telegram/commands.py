"""The slash commands: /start, /quiz (and /quiz group), /review, /remind, /timezone,
/progress, /leaderboard, /language, /mode, /stop, /help, and the admin commands /reload,
/stats, /quizzes and /unpublish.

Each handler decodes the command, asks the engine and shows its answer through the
:class:`~adapters.telegram.messenger.Messenger`. Starting a quiz or a round is shared with the
buttons (:mod:`adapters.telegram.callbacks`).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence

from telegram import Chat, Update, User
from telegram.constants import ChatType

from adapters.telegram.daily_rendering import period_board_message
from adapters.telegram.group_rounds import TelegramRoundDriver
from adapters.telegram.messenger import CHAT_MODE_SCOPE, Messenger
from adapters.telegram.rendering import (
    help_message,
    language_picker,
    mode_name,
    mode_picker,
    notice,
    picker_message,
    progress_message,
    start_message,
    stop_confirmation,
)
from adapters.telegram.round_rendering import (
    leaderboard_message,
    reload_report,
    round_picker,
    stats_report,
)
from adapters.telegram.shared import (
    GROUP_CHATS,
    PLATFORM,
    Context,
    is_chat_admin,
    participant,
    turn,
)
from adapters.telegram.texts import tt
from bot.daily.texts import daily_t
from bot.i18n import t
from bot.leaderboard_periods import Period, parse_period
from bot.library_texts import library_t, listing_lines
from bot.quoting import quote
from bot.rounds import RoundStartOutcome
from bot.scheduling.timezones import Place
from bot.services import Services
from bot.stats import QuizStats
from bot.views import Participant, StartOutcome, StartResult

log = logging.getLogger("quizbot.telegram")

# "<chat id>:<user id>" -> the seconds per question asked for while a round's quiz is picked
ROUND_LIMIT_SCOPE = "telegram:round-limit"
SECONDS = re.compile(r"[0-9]{1,6}")
StatsChart = Callable[[QuizStats], bytes]


def split_tag(args: Sequence[str]) -> tuple[list[str], str | None]:
    """``/quiz`` arguments without the topic to practise, and that topic: the first
    ``#tag`` (what Telegram users type) or ``tag:NAME``; the engine checks the name."""
    rest: list[str] = []
    tag: str | None = None
    for arg in args:
        if arg.startswith("#") or arg.lower().startswith("tag:"):
            if tag is None:
                tag = arg[1:] if arg.startswith("#") else arg[4:]
        else:
            rest.append(arg)
    return rest, tag


class Commands:
    """The handlers of every command (each takes PTB's update and context)."""

    def __init__(
        self,
        services: Services,
        admin_ids: frozenset[str],
        messenger: Messenger,
        round_driver: TelegramRoundDriver,
        stats_chart: StatsChart | None = None,
    ) -> None:
        self.engine = services.engine
        self.reminders = services.reminders  # /remind, and the user's zone for /review
        self.timezones = services.scheduling.timezones
        self.clock = services.clock
        self.daily = services.daily  # its streaks for /progress, its posts' zone for /timezone
        self.leaderboards = services.leaderboards  # over a week, a month or all time
        self.admin_ids = admin_ids  # Telegram user ids, as text
        self.messenger = messenger
        self.round_driver = round_driver
        self.rounds = round_driver.rounds  # the rules of group rounds
        self.stats_chart = stats_chart

    async def after_start(
        self, context: Context, chat: Chat, user: User, result: StartResult
    ) -> None:
        """Show what engine.start decided: the question, a picker, or a notice."""
        lang = result.language
        if result.question is not None:
            if result.notice:
                await self.messenger.send(context, chat.id, notice(result.notice, lang))
            await self.messenger.send_question(
                context, chat.id, result.question, _owner(chat, user)
            )
        elif result.outcome in (StartOutcome.CHOOSE, StartOutcome.UNKNOWN_QUIZ):
            await self.remember_user(chat, user)
            rendered = picker_message(result.quizzes, lang, user.id, result.notice)
            await self.messenger.send(context, chat.id, rendered.html, rendered.markup)
        else:
            await self.messenger.send(context, chat.id, notice(result.notice, lang))

    async def remember_user(self, chat: Chat, user: User) -> None:
        """Keep the name of who a group menu is for, to name them to others who press it."""
        if chat.type != ChatType.PRIVATE:
            await self.engine.remember_user(participant(user))

    async def start(self, update: Update, context: Context) -> None:
        chat, user = update.effective_chat, update.effective_user
        if chat is None or user is None:
            return
        if context.args:  # deep link: t.me/<bot>?start=<quiz id>
            await self.start_quiz(context, chat, user, context.args[0])
            return
        ui = await turn(context).language()
        await self.remember_user(chat, user)
        rendered = start_message(self.engine.quizzes(ui), ui, user.id)
        await self.messenger.send(context, chat.id, rendered.html, rendered.markup)

    async def quiz(self, update: Update, context: Context) -> None:
        chat, user = update.effective_chat, update.effective_user
        if chat is None or user is None:
            return
        args = context.args or []
        if args and args[0].lower() == "group":
            await self.group_round(context, chat, user, args[1:])
            return
        rest, tag = split_tag(args)
        await self.start_quiz(context, chat, user, rest[0] if rest else None, tag=tag)

    async def review(self, update: Update, context: Context) -> None:
        chat, user = update.effective_chat, update.effective_user
        if chat is None or user is None:
            return
        quiz_id = context.args[0] if context.args else None
        await self.start_review(context, chat, user, quiz_id)

    async def start_review(
        self, context: Context, chat: Chat, user: User, quiz_id: str | None = None
    ) -> None:
        """/review and a reminder's Review button: the review, or when the next one is due
        (in the user's time zone)."""
        who = participant(user)
        zone = await self.reminders.zone(who)
        result = await self.engine.start_review(who, quiz_id, chat_id=str(chat.id), zone=zone)
        # The same question messages and buttons as /quiz: answers go through answer_by_position.
        await self.after_start(context, chat, user, result)

    async def remind(self, update: Update, context: Context) -> None:
        """``/remind HH:MM``, ``/remind off``, ``/remind``: the daily review reminder, which
        comes as a private message (so it is set in the private chat)."""
        chat, user = update.effective_chat, update.effective_user
        if chat is None or user is None:
            return
        ui = await turn(context).language()
        if chat.type != ChatType.PRIVATE:
            text = t("remind_private_only", ui)
        else:
            argument = context.args[0] if context.args else None
            text = await self.reminders.command(participant(user), argument, ui)
        await self.messenger.send(context, chat.id, notice(text, ui))

    async def timezone(self, update: Update, context: Context) -> None:
        """``/timezone [NAME]``: the user's zone in private, the chat's in a group (which
        only the chat's admins change)."""
        chat, user = update.effective_chat, update.effective_user
        if chat is None or user is None:
            return
        ui = await turn(context).language()
        in_group = chat.type != ChatType.PRIVATE
        place = Place(PLATFORM, str(chat.id) if in_group else str(user.id), chat=in_group)
        argument = " ".join(context.args) if context.args else None
        allowed = not (in_group and argument) or await is_chat_admin(
            context, chat, user, update.effective_message
        )
        now = self.clock()
        text, changed = await self.timezones.command(place, argument, ui, now, may_change=allowed)
        if changed and not in_group:  # the reminder keeps its local time in the new zone
            await self.reminders.zone_changed(participant(user))
        if changed and in_group:  # so does the group's daily question
            await self.daily.zone_changed(PLATFORM, str(chat.id))
        await self.messenger.send(context, chat.id, notice(text, ui))

    async def start_quiz(
        self,
        context: Context,
        chat: Chat,
        user: User,
        quiz_id: str | None,
        *,
        tag: str | None = None,
    ) -> None:
        who = participant(user)
        result = await self.engine.start(who, quiz_id, chat_id=str(chat.id), tag=tag)
        await self.after_start(context, chat, user, result)

    async def progress(self, update: Update, context: Context) -> None:
        chat, user = update.effective_chat, update.effective_user
        if chat is None or user is None:
            return
        report = await self.engine.progress(participant(user))
        # A group shows its own streak; a private chat every chat's the user answered in.
        here = str(chat.id) if chat.type in GROUP_CHATS else None
        streaks = await self.daily.streaks.of_member(PLATFORM, str(user.id), here)
        await self.messenger.send(context, chat.id, progress_message(report, streaks))

    async def language(self, update: Update, context: Context) -> None:
        chat, user = update.effective_chat, update.effective_user
        if chat is None or user is None:
            return
        who = participant(user)
        if context.args:
            chosen = await self.engine.set_language(who, context.args[0])
            if chosen is not None:
                await self.messenger.send(
                    context, chat.id, notice(t("language_set", chosen), chosen)
                )
                return
        ui = await turn(context).language()
        await self.remember_user(chat, user)
        rendered = language_picker(ui, user.id)
        await self.messenger.send(context, chat.id, rendered.html, rendered.markup)

    async def stop(self, update: Update, context: Context) -> None:
        chat, user = update.effective_chat, update.effective_user
        if chat is None or user is None:
            return
        if chat.type in GROUP_CHATS and await self._stop_round(update, context, chat, user):
            return
        who = participant(user)
        ui = await turn(context).language()
        active = await self.engine.active_attempt(who)
        if active is None:
            await self.messenger.send(context, chat.id, notice(t("nothing_to_stop", ui), ui))
            return
        attempt, title = active
        rendered = stop_confirmation(title, attempt.id, ui)
        await self.messenger.send(context, chat.id, rendered.html, rendered.markup)

    async def mode(self, update: Update, context: Context) -> None:
        chat, user = update.effective_chat, update.effective_user
        if chat is None or user is None:
            return
        ui = await turn(context).language()
        wanted = (context.args[0].lower() if context.args else "").strip()
        if wanted in ("poll", "polls", "buttons", "button"):
            poll = wanted.startswith("poll")
            await self.messenger.set_mode(chat.id, poll)
            text = notice(tt("mode_set", ui, mode=mode_name(poll, ui)), ui)
            await self.messenger.send(context, chat.id, text)
            return
        current = await self.engine.get_value(CHAT_MODE_SCOPE, str(chat.id)) == "poll"
        rendered = mode_picker(current, ui)
        await self.messenger.send(context, chat.id, rendered.html, rendered.markup)

    async def help(self, update: Update, context: Context) -> None:
        chat, user = update.effective_chat, update.effective_user
        if chat is None or user is None:
            return
        ui = await turn(context).language()
        shown = help_message(ui, admin=self._is_admin(user))
        await self.messenger.send(context, chat.id, shown)

    async def leaderboard(self, update: Update, context: Context) -> None:
        """In a group, its members' best scores; in a private chat, everyone's. With a
        period (``week``, ``month``, ``all``): who answered most right in it."""
        chat, user = update.effective_chat, update.effective_user
        if chat is None or user is None:
            return
        who = participant(user)
        args = list(context.args or [])
        period = parse_period(args[0]) if args else None
        if period is not None:
            await self._period_board(context, chat, who, period, args[1:])
            return
        ui = await turn(context).language()
        here = chat.type != ChatType.PRIVATE
        named = args[0] if args else None
        if named is not None and self.engine.catalog.get(named) is None:
            unknown = self.engine.unknown_quiz_notice(named, ui)
            hint = daily_t("period_unknown", ui)
            await self.messenger.send(context, chat.id, notice(f"{unknown}\n{hint}", ui))
            return
        quiz_ids = [named] if named else [q.id for q in self.engine.catalog.all()]
        boards = []
        for quiz_id in quiz_ids:
            board = await self.rounds.leaderboard(
                quiz_id,
                who,
                platform=PLATFORM if here else None,
                chat_id=str(chat.id) if here else None,
            )
            if board is not None and (board.lines or named):
                boards.append(board)
        if not boards:
            await self.messenger.send(context, chat.id, notice(t("leaderboard_empty", ui), ui))
            return
        await self.messenger.send(context, chat.id, leaderboard_message(boards, ui, here=here))

    async def _period_board(
        self, context: Context, chat: Chat, who: Participant, period: Period, rest: list[str]
    ) -> None:
        """``/leaderboard week|month|all [quiz]``: this group's (in a private chat,
        everyone's) most right answers in the period, in the chat's time zone."""
        named = rest[0] if rest else None
        if named is not None and self.engine.catalog.get(named) is None:
            ui = await turn(context).language()
            unknown = self.engine.unknown_quiz_notice(named, ui)
            await self.messenger.send(context, chat.id, notice(unknown, ui))
            return
        here = str(chat.id) if chat.type != ChatType.PRIVATE else None
        board = await self.leaderboards.board(period, who, chat_id=here, quiz_id=named)
        await self.messenger.send(context, chat.id, period_board_message(board))

    def _is_admin(self, user: User) -> bool:
        return str(user.id) in self.admin_ids

    async def _operator_asks(
        self, update: Update, context: Context
    ) -> tuple[Chat, User, str] | None:
        """The chat, the sender and their language when one of the bot's operators sent an
        admin command; None otherwise (anyone else hears that there is no such command)."""
        chat, user = update.effective_chat, update.effective_user
        if chat is None or user is None:
            return None
        if not self._is_admin(user):
            await self.unknown(update, context)
            return None
        return chat, user, await turn(context).language()

    async def reload(self, update: Update, context: Context) -> None:
        """Re-read QUIZ_DIR and publish what is new, for every replica; a broken file keeps
        its previous version live."""
        asked = await self._operator_asks(update, context)
        if asked is None:
            return
        chat, user, ui = asked
        # QUIZ_DIR's new quizzes go to the library: every replica serves them within seconds.
        report = (await self.engine.library.publish_quiz_dir()).load
        live = len(self.engine.catalog)
        log.info(
            "telegram: quizzes reloaded by %s: %d live, %d errors",
            user.id,
            live,
            len(report.errors),
        )
        await self.messenger.send(context, chat.id, reload_report(report, live, ui))

    async def quizzes(self, update: Update, context: Context) -> None:
        """The published quizzes: version, where each came from, question count."""
        asked = await self._operator_asks(update, context)
        if asked is None:
            return
        chat, _, ui = asked
        lines = listing_lines(await self.engine.library.listing(), ui)
        await self.messenger.send(context, chat.id, notice("\n".join(lines), ui))

    async def unpublish(self, update: Update, context: Context) -> None:
        """``/unpublish ID``: hide a quiz everywhere; attempts in progress finish."""
        asked = await self._operator_asks(update, context)
        if asked is None:
            return
        chat, user, ui = asked
        if not context.args:
            text = library_t("unpublish_usage", ui)
        elif await self.engine.library.unpublish(context.args[0]):
            log.info("telegram: quiz %s unpublished by %s", context.args[0], user.id)
            text = library_t("unpublished", ui, quiz=context.args[0])
        else:
            text = library_t("unpublish_unknown", ui, quiz=quote(context.args[0][:60]))
        await self.messenger.send(context, chat.id, notice(text, ui))

    async def stats(self, update: Update, context: Context) -> None:
        """Per quiz: attempts, completions, average score, hardest question (and a chart)."""
        asked = await self._operator_asks(update, context)
        if asked is None:
            return
        chat, _, ui = asked
        named = context.args[0] if context.args else None
        if named is not None and self.engine.catalog.get(named) is None:
            unknown = self.engine.unknown_quiz_notice(named, ui)
            await self.messenger.send(context, chat.id, notice(unknown, ui))
            return
        stats = await self.engine.stats(named, language=ui)
        await self.messenger.send(context, chat.id, stats_report(stats, ui))
        await self.send_charts(context, chat.id, stats)

    async def send_charts(self, context: Context, chat_id: int, stats: Sequence[QuizStats]) -> None:
        """Each quiz's chart of option picks as a photo (those with answers; none without a
        chart renderer)."""
        if self.stats_chart is None:
            return
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
            await context.bot.send_photo(chat_id, png, caption=quiz.title[:1024])

    async def unknown(self, update: Update, context: Context) -> None:
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
        ui = await turn(context).language()
        await self.messenger.send(context, chat.id, notice(tt("unknown_command", ui), ui))

    async def group_round(
        self, context: Context, chat: Chat, user: User, args: Sequence[str]
    ) -> None:
        """``/quiz group [quiz] [seconds] [#tag]``: a round the whole group plays together."""
        if chat.type not in GROUP_CHATS:
            ui = await turn(context).language()
            await self.messenger.send(context, chat.id, notice(tt("round_group_only", ui), ui))
            return
        rest, tag = split_tag(args)
        quiz_id, seconds = _round_args(rest)
        await self.begin_round(context, chat, user, quiz_id, seconds, tag=tag)

    async def begin_round(
        self,
        context: Context,
        chat: Chat,
        user: User,
        quiz_id: str | None,
        seconds: int | None,
        *,
        tag: str | None = None,
    ) -> None:
        who = participant(user)
        start = await self.rounds.start(
            PLATFORM, str(chat.id), who, quiz_id, time_limit=seconds, tag=tag
        )
        lang = start.language
        if start.outcome in (RoundStartOutcome.CHOOSE, RoundStartOutcome.UNKNOWN_QUIZ):
            # The picker's buttons cannot carry the seconds too (64 bytes): keep them aside.
            key = f"{chat.id}:{user.id}"
            await self.engine.set_value(ROUND_LIMIT_SCOPE, key, str(seconds) if seconds else None)
            await self.remember_user(chat, user)
            heading = start.notice if start.outcome is RoundStartOutcome.UNKNOWN_QUIZ else None
            rendered = round_picker(start.quizzes, lang, user.id, heading)
            await self.messenger.send(context, chat.id, rendered.html, rendered.markup)
            return
        await self.messenger.send(context, chat.id, notice(start.notice, lang))
        if start.question is not None:  # started, or already running: make sure it runs
            self.round_driver.ensure(start.question)

    async def _stop_round(self, update: Update, context: Context, chat: Chat, user: User) -> bool:
        """/stop in a group with a round running: its starter or a chat admin ends it with
        the scoreboard so far. False when no round is running."""
        running = await self.rounds.running(PLATFORM, str(chat.id))
        if running is None:
            return False
        who = participant(user)
        admin = running.starter_id != str(user.id) and await is_chat_admin(
            context, chat, user, update.effective_message
        )
        outcome = await self.rounds.stop(PLATFORM, str(chat.id), who, is_chat_admin=admin)
        if isinstance(outcome, str):
            ui = await turn(context).language()
            await self.messenger.send(context, chat.id, notice(outcome, ui))
        else:
            await self.round_driver.stopped(outcome)
        return True


def _round_args(args: Sequence[str]) -> tuple[str | None, int | None]:
    """The quiz id and seconds per question of ``/quiz group [quiz] [seconds]``, any order."""
    quiz_id = seconds = None
    for arg in args:
        if SECONDS.fullmatch(arg):
            seconds = int(arg)
        elif quiz_id is None:
            quiz_id = arg
    return quiz_id, seconds


def _owner(chat: Chat, user: User) -> str | None:
    """In groups, whose attempt a question belongs to is shown on it."""
    return None if chat.type == ChatType.PRIVATE else participant(user).display_name
