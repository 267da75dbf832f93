"""What happens on each slash command and button press: engine calls and Discord replies.

Conversation shape, chosen so a quiz reads as a transcript the user can scroll back through:

- ``/quiz`` replies with the question (ephemeral in a server channel, so only that member
  sees it; a normal message in DMs).
- A press on an option edits *that* message into the feedback (right or wrong, the correct
  option, the explanation and its image, a file the edit adds beside the question's; buttons
  disabled and coloured) and then sends the next question
  as a new message (a followup, ephemeral in servers). Editing the question into its
  feedback keeps every explanation readable later, and the new message keeps the next
  question at the bottom of the conversation where the eye already is.
- The last answer is followed by the result with a ✓/✗ per question and a retry button.
- Presses that change nothing (someone else's quiz, a second press, an answered or closed
  question, a button we do not know) get a short ephemeral notice and leave every message as
  it was.
- Ephemeral messages disappear when the Discord client reloads; ``/quiz`` then resumes the
  quiz at its next unanswered question (the engine keeps the attempt).

``/review`` plays the questions due for practice exactly like ``/quiz`` (the same buttons,
and answers go through the same engine call, which updates the schedule).

Group rounds (``/round [quiz] [seconds]``, server channels only) are public: the command's
reply announces the round, and :class:`~adapters.discord.group_rounds.DiscordRoundDriver` posts the
questions, reveals and ranking as channel messages. A press on a round's option gets a short
ephemeral notice. ``/stop`` in a channel with a round ends the round when its starter or a
member allowed to manage messages asks (anyone else's ``/stop`` still stops their own quiz).
``/leaderboard`` is public as well.

``/reload``, ``/stats``, ``/quizzes``, ``/unpublish`` and ``/upload`` are for the user ids in
``ADMIN_DISCORD_IDS``; anyone else is told
the command is unknown and nothing else happens. (Their registration also hides them from
members without the Administrator permission in servers, but that is the server's setting to
change; the id check is the guard.) With a ``stats_chart``, ``/stats`` for one quiz that has
answers also shows the quiz's chart (a PNG attachment, as the embed's image).

Commands (and the start/list buttons, which also create messages) go through a per-user rate
limiter; answering is paced by the quiz itself and is not limited.

Discord wants an acknowledgement within 3 seconds. The engine is normally much faster; if a
call has not finished after :data:`DEFER_AFTER` seconds the interaction is deferred (a
"thinking…" placeholder for commands, a silent deferred update for presses) and the real
reply follows as an edit or followup.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import io
import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass, replace
from typing import Any, Concatenate, ParamSpec, TypeVar

import discord
from discord import app_commands

from adapters.discord import buttons, images, rendering, typed_answers
from adapters.discord.daily_rendering import daily_reply_pages, period_board_pages
from adapters.discord.group_rounds import PLATFORM, DiscordRoundDriver
from adapters.discord.reports import reload_pages, stats_pages
from adapters.discord.round_rendering import announcement, ending_pages, leaderboard_pages
from adapters.discord.texts import STRINGS as TEXTS
from adapters.discord.texts import text
from adapters.discord.translator import localize_commands
from adapters.discord.uploads import DiscordUploads
from bot import markup
from bot.bank_texts import normalize_tag
from bot.daily.request import OFF_WORDS
from bot.daily.views import ChatStreak, DailyOutcome
from bot.i18n import t
from bot.leaderboard_periods import Period, PeriodBoard
from bot.library_texts import library_t, listing_lines
from bot.quiz_loader import LoadReport
from bot.quoting import quote
from bot.rate_limit import CommandRateLimiter
from bot.rounds import (
    Leaderboard,
    RoundAnswerOutcome,
    RoundEnd,
    RoundStartOutcome,
)
from bot.scheduling.timezones import Place, zone_names
from bot.services import Services
from bot.stats import QuizStats
from bot.text_direction import paragraph, strip_controls
from bot.views import (
    AnswerFeedback,
    AnswerOutcome,
    Participant,
    ProgressReport,
    QuestionView,
    QuizResult,
    StartOutcome,
    StartResult,
)

DEFER_AFTER = 1.0  # seconds; Discord drops interactions not acknowledged within 3, and
# a burst of hundreds of defers needs the rest of that window to reach Discord
LANGUAGE_KEY = "quizbot_language"  # the interaction's interface language, once looked up
UNSAFE_FILENAME = re.compile(r"[^A-Za-z0-9._-]")

log = logging.getLogger("quizbot.discord")
T = TypeVar("T")
Boards = list[tuple[Leaderboard | None, Leaderboard]]  # per quiz: this channel's, everyone's
StatsChart = Callable[[QuizStats], bytes]  # a quiz's statistics as a PNG


@dataclass
class Outgoing:
    """One message to send or to edit into place."""

    content: str | None = None
    embeds: Sequence[discord.Embed] = ()
    view: discord.ui.View | None = None
    files: Sequence[discord.File] = ()
    # An edit adding ``files``: the message's files it keeps (an edit with files replaces them).
    kept: Sequence[discord.Attachment] = ()

    def send_kwargs(self) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"embeds": list(self.embeds)}
        if self.content:
            kwargs["content"] = rendering.notice(self.content)
        if self.view is not None:
            kwargs["view"] = self.view
        if self.files:
            kwargs["files"] = list(self.files)
        return kwargs

    def edit_kwargs(self) -> dict[str, Any]:
        # Edits replace everything, so say explicitly what goes away.
        content = rendering.notice(self.content) if self.content else None
        kwargs: dict[str, Any] = {
            "content": content,
            "embeds": list(self.embeds),
            "view": self.view,
        }
        if self.files:
            kwargs["attachments"] = [*self.kept, *self.files]
        return kwargs


def participant(interaction: discord.Interaction[Any]) -> Participant:
    """The user behind an interaction, with their Discord client's locale."""
    user = interaction.user
    return Participant(PLATFORM, str(user.id), user.display_name, interaction.locale.value)


def chat_title(interaction: discord.Interaction[Any]) -> str | None:
    """How a member names the interaction's channel elsewhere (a daily streak's chat, an
    assignment's reminder in DMs): ``#general``, with its server's name when discord.py
    knows the server (``#general (Study Club)``); None when the channel's name is unknown."""
    name = getattr(interaction.channel, "name", None)
    if not isinstance(name, str):
        return None
    guild = interaction.guild
    return f"#{name} ({guild.name})" if guild is not None and guild.name else f"#{name}"


def say(interaction: discord.Interaction[Any], message: str, language: str) -> str:
    """Interface text for a message: commands named as the user's client names them, each
    line laid out in the language's direction."""
    return paragraph(localize_commands(message, interaction.locale), language)


def zone_choices(current: str) -> list[app_commands.Choice[str]]:
    """Autocomplete for ``/timezone``: IANA names containing what was typed (25 at most,
    those starting with it first)."""
    typed = current.strip().lower().replace(" ", "_")
    names = [n for n in zone_names() if typed in n.lower()]
    names.sort(key=lambda n: (not n.lower().startswith(typed), "/" not in n, n))
    return [app_commands.Choice(name=n, value=n) for n in names[: rendering.CHOICES_LIMIT]]


def is_private_reply(interaction: discord.Interaction[Any]) -> bool:
    """In a server, quiz messages are ephemeral: only the member who asked sees them."""
    return interaction.guild_id is not None


def can_run_round(interaction: discord.Interaction[Any]) -> bool:
    """Whether the bot may post a round's messages (with embeds) in the interaction's channel:
    rounds post through the channel, where a missing permission would only show up later."""
    allowed = interaction.app_permissions
    if isinstance(interaction.channel, discord.Thread):
        send = allowed.send_messages_in_threads
    else:
        send = allowed.send_messages
    return allowed.view_channel and send and allowed.embed_links


def may_moderate(interaction: discord.Interaction[Any]) -> bool:
    """Whether the member may end someone else's round in this channel (Manage Messages or
    Administrator, as Discord resolved them for this channel)."""
    permissions = interaction.permissions
    return permissions.administrator or permissions.manage_messages


def _pages_to_messages(
    pages: Sequence[rendering.Page], view: discord.ui.View | None = None
) -> list[Outgoing]:
    messages = [Outgoing(embeds=page) for page in pages]
    messages[-1].view = view
    return messages


P = ParamSpec("P")
H = TypeVar("H", bound="QuizHandlers")  # the handlers' class (a subclass adds handlers)
Method = Callable[Concatenate[H, "discord.Interaction[Any]", P], Coroutine[Any, Any, None]]


def handled(*, limited: bool = True, admin: bool = False) -> Callable[[Method[H, P]], Method[H, P]]:
    """What every command and press goes through: tracked (so stop() lets it finish), a crash
    turned into a short notice; with ``admin``, refused to anyone but the bot's admins; with
    ``limited`` (commands, not answers), within the user's command budget."""

    def wrap(method: Method[H, P]) -> Method[H, P]:
        @functools.wraps(method)
        async def run(
            self: H,
            interaction: discord.Interaction[Any],
            /,
            *args: P.args,
            **kwargs: P.kwargs,
        ) -> None:
            async with self._handling(interaction):
                if admin and await self._refuse_non_admin(interaction):
                    return
                if (limited or admin) and not await self._allowed(interaction):
                    return
                await method(self, interaction, *args, **kwargs)

        return run

    return wrap


class QuizHandlers:
    """Handles the slash commands and button presses of one client with one engine."""

    def __init__(
        self,
        services: Services,
        round_driver: DiscordRoundDriver,
        *,
        defer_after: float = DEFER_AFTER,
        limiter: CommandRateLimiter | None = None,
        admin_ids: frozenset[str] = frozenset(),
        stats_chart: StatsChart | None = None,
    ) -> None:
        """``services``: the engine and the services beside it; ``stats_chart`` (optional)
        renders a quiz's statistics as a PNG for ``/stats``."""
        engine = services.engine
        self.services = services
        self.engine = engine
        self.round_driver = round_driver
        self.rounds = round_driver.rounds  # the rules of group rounds
        self.defer_after = defer_after
        self.limiter = limiter or CommandRateLimiter()
        self.admin_ids = admin_ids
        self.stats_chart = stats_chart
        self.uploads = DiscordUploads(engine, admin_ids)
        self._in_flight: set[asyncio.Task[Any]] = set()

    # -- plumbing -------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def _handling(self, interaction: discord.Interaction[Any]) -> AsyncIterator[None]:
        """Track the handler (so stop() can let it finish) and turn a crash into a notice."""
        task = asyncio.current_task()
        if task is not None:
            self._in_flight.add(task)
        try:
            # They talk to the bot: the outbox may DM them again (a no-op unless marked).
            channel = interaction.channel_id
            await self.services.scheduling.reachability.seen(
                PLATFORM, str(interaction.user.id), str(channel) if channel else None
            )
            yield
        except Exception:
            log.exception("handling a Discord interaction failed")
            with contextlib.suppress(Exception):
                language = await self._interface_language(interaction)
                await self._notice(interaction, text("error", language), language)
        finally:
            if task is not None:
                self._in_flight.discard(task)

    async def drain(self, grace: float) -> None:
        """Wait (up to ``grace`` seconds) for interactions being handled to finish."""
        pending = {task for task in self._in_flight if task is not asyncio.current_task()}
        if pending:
            await asyncio.wait(pending, timeout=grace)

    async def _in_time(
        self,
        interaction: discord.Interaction[Any],
        work: Awaitable[T],
        defer: Callable[[], Awaitable[object]],
    ) -> T:
        """Run ``work``; if it is still running after ``defer_after`` seconds, acknowledge
        the interaction with ``defer`` so Discord's 3 second window is kept."""
        task = asyncio.ensure_future(work)
        try:
            return await asyncio.wait_for(asyncio.shield(task), self.defer_after)
        except TimeoutError:
            if not interaction.response.is_done():
                try:
                    await defer()
                except discord.HTTPException:
                    log.warning("could not defer interaction %s", interaction.id, exc_info=True)
            return await task

    async def _interface_language(self, interaction: discord.Interaction[Any]) -> str:
        """The user's interface language, asked of the engine once per interaction (kept in
        discord.py's ``Interaction.extras``)."""
        known = interaction.extras.get(LANGUAGE_KEY)
        if isinstance(known, str):
            return known
        language = await self.engine.interface_language(participant(interaction))
        interaction.extras[LANGUAGE_KEY] = language
        return language

    async def _reply(
        self, interaction: discord.Interaction[Any], messages: Sequence[Outgoing], *, private: bool
    ) -> None:
        """New messages: the first as the response (or in place of the "thinking…"
        placeholder when deferred), the others as followups."""
        first, *rest = messages
        if not interaction.response.is_done():
            await interaction.response.send_message(**first.send_kwargs(), ephemeral=private)
        else:
            await interaction.edit_original_response(**first.edit_kwargs())
        for message in rest:
            await interaction.followup.send(**message.send_kwargs(), ephemeral=private, wait=True)

    async def _update(
        self, interaction: discord.Interaction[Any], messages: Sequence[Outgoing], *, private: bool
    ) -> None:
        """Edit the pressed message into the first message, then send the others."""
        first, *rest = messages
        if not interaction.response.is_done():
            await interaction.response.edit_message(**first.edit_kwargs())
        else:
            await interaction.edit_original_response(**first.edit_kwargs())
        for message in rest:
            await interaction.followup.send(**message.send_kwargs(), ephemeral=private, wait=True)

    async def _notice(
        self, interaction: discord.Interaction[Any], notice: str, language: str
    ) -> None:
        """A short note only the presser sees; nothing else changes."""
        content = rendering.notice(say(interaction, notice, language))
        thinking = discord.InteractionResponseType.deferred_channel_message
        if not interaction.response.is_done():
            await interaction.response.send_message(content, ephemeral=True)
        elif interaction.response.type is thinking:  # replace the "thinking…" placeholder
            await interaction.edit_original_response(content=content, embeds=[], view=None)
        else:
            await interaction.followup.send(content, ephemeral=True, wait=True)

    async def _notice_in_time(self, interaction: discord.Interaction[Any], key: str) -> None:
        """A notice from :mod:`adapters.discord.texts` or :data:`bot.i18n.STRINGS`, in the
        user's language (looked up without risking Discord's 3 seconds)."""
        language = await self._in_time(
            interaction,
            self._interface_language(interaction),
            lambda: interaction.response.defer(ephemeral=True, thinking=True),
        )
        notice = text(key, language) if key in TEXTS else t(key, language)
        await self._notice(interaction, notice, language)

    async def _allowed(self, interaction: discord.Interaction[Any]) -> bool:
        """Whether the user may run another command now (a per-user token bucket); if not,
        they are told. Discord needs every interaction answered, and interaction replies do
        not count against the bot's global rate limit, so the notice is repeated rather than
        leaving the user with "this interaction failed"."""
        if self.limiter.check(PLATFORM, str(interaction.user.id)).allowed:
            return True
        await self._notice_in_time(interaction, "slow_down")
        return False

    def _think(
        self, interaction: discord.Interaction[Any], *, private: bool | None = None
    ) -> Callable[[], Awaitable[object]]:
        """A "thinking…" placeholder, private as the reply will be (by default, as quiz
        messages are)."""
        ephemeral = is_private_reply(interaction) if private is None else private
        return lambda: interaction.response.defer(ephemeral=ephemeral, thinking=True)

    def _is_admin(self, interaction: discord.Interaction[Any]) -> bool:
        return str(interaction.user.id) in self.admin_ids

    # -- starting -------------------------------------------------------------------------

    @handled()
    async def quiz(
        self, interaction: discord.Interaction[Any], query: str | None, tag: str | None = None
    ) -> None:
        """``/quiz [quiz] [tag]``: start or resume a quiz (or list them); with a tag, play
        only the quiz's questions carrying it."""
        quiz_id = await self._resolve_quiz(interaction, query)
        await self._start(interaction, quiz_id, tag=tag)

    @handled()
    async def start_pressed(
        self, interaction: discord.Interaction[Any], quiz_id: str, owner_id: int | None
    ) -> None:
        """A quiz's start button, or the retry button under a result."""
        if owner_id is not None and owner_id != interaction.user.id:
            await self._notice_in_time(interaction, "not_your_button")
            return
        await self._start(interaction, quiz_id)

    @handled()
    async def list_pressed(self, interaction: discord.Interaction[Any]) -> None:
        """The "another quiz" button: the list of quizzes."""
        language = await self._in_time(
            interaction, self._interface_language(interaction), self._think(interaction)
        )
        summaries = tuple(self.engine.quizzes(language))
        result = StartResult(
            StartOutcome.CHOOSE, language, t("choose_quiz", language), quizzes=summaries
        )
        await self._reply(
            interaction,
            await self._start_messages(interaction, result),
            private=is_private_reply(interaction),
        )

    async def _resolve_quiz(
        self, interaction: discord.Interaction[Any], query: str | None
    ) -> str | None:
        """A quiz id from what was typed: an id (autocomplete fills those in), else the one
        quiz whose title contains the text."""
        query = (query or "").strip()
        if not query or self.engine.catalog.get(query) is not None:
            return query or None
        language = await self._interface_language(interaction)
        needle = query.casefold()
        found = [
            s.id
            for s in self.engine.quizzes(language)
            if needle in strip_controls(s.title).casefold()
        ]
        return found[0] if len(found) == 1 else query

    async def _start(
        self, interaction: discord.Interaction[Any], quiz_id: str | None, *, tag: str | None = None
    ) -> None:
        who = participant(interaction)
        chat = str(interaction.channel_id) if interaction.channel_id else None
        result = await self._in_time(
            interaction,
            self.engine.start(who, quiz_id, chat_id=chat, tag=tag),
            self._think(interaction),
        )
        await self._reply(
            interaction,
            await self._start_messages(interaction, result),
            private=is_private_reply(interaction),
        )

    async def _start_messages(
        self, interaction: discord.Interaction[Any], result: StartResult
    ) -> list[Outgoing]:
        if result.question is not None:
            messages = await self._question_messages(result.question)
            if result.notice:
                messages[0].content = say(interaction, result.notice, result.language)
            return messages
        if result.quizzes:
            shown = min(len(result.quizzes), buttons.ROWS * buttons.BUTTONS_PER_ROW)
            notice = localize_commands(result.notice, interaction.locale)
            pages = rendering.choose_pages(result.quizzes, result.language, notice, shown=shown)
            return _pages_to_messages(pages, buttons.choose_view(result.quizzes))
        return [Outgoing(content=say(interaction, result.notice, result.language))]

    @handled()
    async def review(self, interaction: discord.Interaction[Any], query: str | None) -> None:
        """``/review [quiz]``: practise the questions due again, played like ``/quiz``."""
        await self._review(interaction, query)

    @handled()
    async def review_pressed(self, interaction: discord.Interaction[Any]) -> None:
        """A review reminder's button: the review, as ``/review`` starts it."""
        await self._review(interaction, None)

    async def _review(self, interaction: discord.Interaction[Any], query: str | None) -> None:
        quiz_id = await self._resolve_quiz(interaction, query)
        who = participant(interaction)
        chat = str(interaction.channel_id) if interaction.channel_id else None

        async def start() -> StartResult:
            if quiz_id is not None and self.engine.catalog.get(quiz_id) is None:
                ui = await self._interface_language(interaction)
                notice = self.engine.unknown_quiz_notice(quiz_id, ui)
                return StartResult(StartOutcome.UNKNOWN_QUIZ, ui, notice)
            zone = await self.services.reminders.zone(who)
            return await self.engine.start_review(who, quiz_id, chat_id=chat, zone=zone)

        result = await self._in_time(interaction, start(), self._think(interaction))
        if result.question is None:  # nothing due (the notice says when), or no such quiz
            await self._notice(interaction, result.notice, result.language)
            return
        await self._reply(
            interaction,
            await self._start_messages(interaction, result),
            private=is_private_reply(interaction),
        )

    @handled()
    async def remind(self, interaction: discord.Interaction[Any], when: str | None) -> None:
        """``/remind [HH:MM|off]``: the daily review reminder, by direct message."""
        reminders = self.services.reminders
        who = participant(interaction)

        async def decide() -> tuple[str, str]:
            ui = await self._interface_language(interaction)
            return await reminders.command(who, when, ui), ui

        text, ui = await self._in_time(
            interaction, decide(), self._think(interaction, private=True)
        )
        await self._notice(interaction, text, ui)

    @handled()
    async def timezone(self, interaction: discord.Interaction[Any], zone: str | None) -> None:
        """``/timezone [zone]``: in a server, the server's zone (changed by members who may
        manage it); in DMs, the user's own."""
        services = self.services
        who = participant(interaction)
        guild = interaction.guild_id
        place = Place(PLATFORM, str(guild) if guild else who.user_id, chat=guild is not None)
        permissions = interaction.permissions
        allowed = guild is None or permissions.administrator or permissions.manage_guild

        async def decide() -> tuple[str, str]:
            ui = await self._interface_language(interaction)
            text, changed = await services.scheduling.timezones.command(
                place, zone, ui, services.clock(), may_change=allowed
            )
            if changed and not place.chat:  # the reminder keeps its local time
                await services.reminders.zone_changed(who)
            if changed and place.chat:  # so do its daily questions
                await services.daily.zone_changed(PLATFORM, place.id)
            return text, ui

        text, ui = await self._in_time(
            interaction, decide(), self._think(interaction, private=True)
        )
        await self._notice(interaction, text, ui)

    async def tag_choices(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        """Autocomplete for ``/quiz``'s tag: the tags of the quiz chosen so far (of the only
        quiz, when none is), those containing the text first."""
        query = getattr(interaction.namespace, "quiz", None)
        quiz_id = await self._resolve_quiz(interaction, query if isinstance(query, str) else None)
        quizzes = self.engine.catalog.all()
        quiz = self.engine.catalog.get(quiz_id) if quiz_id else None
        if quiz is None and not quiz_id and len(quizzes) == 1:
            quiz = quizzes[0]
        if quiz is None:
            return []
        needle = normalize_tag(current)
        found = [tag for tag in quiz.tags if needle in tag]
        found.sort(key=lambda tag: not tag.startswith(needle))
        return [app_commands.Choice(name=tag, value=tag) for tag in found][
            : rendering.CHOICES_LIMIT
        ]

    async def quiz_choices(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        """Autocomplete for ``/quiz``: titles in the user's language containing the text."""
        language = await self._interface_language(interaction)
        needle = current.strip().casefold()
        choices = []
        for summary in sorted(
            self.engine.quizzes(language), key=lambda s: strip_controls(s.title).casefold()
        ):
            title = strip_controls(summary.title)
            if needle and needle not in title.casefold() and needle not in summary.id:
                continue
            line = t("quiz_summary", language, title=summary.title, count=summary.question_count)
            name = rendering.truncate(markup.plain(line), rendering.CHOICE_NAME_LIMIT)
            choices.append(app_commands.Choice(name=name, value=summary.id))
        return choices[: rendering.CHOICES_LIMIT]

    # -- answering ------------------------------------------------------------------------

    @handled(limited=False)
    async def answer(
        self, interaction: discord.Interaction[Any], attempt_id: int, number: int, option: int
    ) -> None:
        """An option button: record the answer once and show what it means."""
        who = participant(interaction)

        feedback = await self._in_time(
            interaction,
            self.engine.answer_by_position(who, attempt_id, number, option),
            interaction.response.defer,
        )
        if feedback.outcome is not AnswerOutcome.ACCEPTED or feedback.question is None:
            await self._notice(interaction, feedback.notice, feedback.language)
            return
        await self._update(
            interaction,
            await self._feedback_messages(interaction, feedback),
            private=is_private_reply(interaction),
        )

    @handled(limited=False)
    async def open_typed_answer(
        self, interaction: discord.Interaction[Any], attempt_id: int, number: int
    ) -> None:
        """The "Type your answer" button: the modal, if the question still waits for its
        answer; else a notice."""
        who = participant(interaction)
        question = await self.engine.current_question(who, attempt_id)
        if question is None or question.number != number or not question.typed:
            # Answered already, or the attempt is over (only its owner sees the button).
            language = await self._interface_language(interaction)
            await self._notice(interaction, t("stale", language), language)
            return
        await interaction.response.send_modal(typed_answers.answer_modal(question))

    async def answer_typed(self, interaction: discord.Interaction[Any]) -> None:
        """A modal submit: answer the question it names with what was typed, then show the
        feedback and what follows, as an option press does."""
        submitted = typed_answers.submitted_answer(interaction.data)
        if submitted is not None:  # else not one of ours: nothing to answer
            await self._answer_typed(interaction, *submitted)

    @handled(limited=False)
    async def _answer_typed(
        self, interaction: discord.Interaction[Any], attempt_id: int, number: int, text: str
    ) -> None:
        who = participant(interaction)
        feedback = await self._in_time(
            interaction,
            self.engine.answer_text(who, attempt_id, number, text),
            interaction.response.defer,
        )
        if feedback.outcome is not AnswerOutcome.ACCEPTED or feedback.question is None:
            await self._notice(interaction, feedback.notice, feedback.language)
            return
        messages = await self._feedback_messages(interaction, feedback)
        private = is_private_reply(interaction)
        if interaction.message is not None:  # opened from the question: edit it in place
            await self._update(interaction, messages, private=private)
        else:
            await self._reply(interaction, messages, private=private)

    async def _question_messages(self, question: QuestionView) -> list[Outgoing]:
        """A question's messages, its image (when it has one) attached to the first."""
        pages, view = typed_answers.question_layout(question)
        messages = _pages_to_messages(pages, view)
        if question.image is not None:
            file = await images.image_file(self.engine.images, question.image)
            if file is not None:
                images.show(pages[0], question.image)
                messages[0].files = [file]
        return messages

    async def _feedback_messages(
        self, interaction: discord.Interaction[Any], feedback: AnswerFeedback
    ) -> list[Outgoing]:
        assert feedback.question is not None
        typed = feedback.question.typed
        pages = (typed_answers if typed else rendering).feedback_pages(feedback)
        image = feedback.question.image
        if image is not None and images.has_file(interaction.message, image):
            images.show(pages[0], image)  # the answered question keeps its picture
        explained = await self._explanation_file(feedback, pages)
        messages = [Outgoing(embeds=page) for page in pages]
        if explained is not None:
            number, file = explained
            messages[number].files = [file]
            if number == 0 and interaction.message is not None:  # the edit keeps the question's
                messages[0].kept = interaction.message.attachments
        # The disabled buttons stay under the answered question, on the edited message.
        messages[0].view = (
            typed_answers.answer_view(feedback.question, answered=True)
            if typed
            else buttons.answer_view(feedback.question, feedback)
        )
        if feedback.next_question is not None:
            messages += await self._question_messages(feedback.next_question)
        elif feedback.result is not None:
            messages += self._result_messages(interaction, feedback.result)
        return messages

    async def _explanation_file(
        self, feedback: AnswerFeedback, pages: list[rendering.Page]
    ) -> tuple[int, discord.File] | None:
        """The explanation's image shown at the end of the feedback's ``pages``: the number of
        the page whose message carries it, and its file (None: no image, or no bytes)."""
        image = feedback.explanation_image
        file = None if image is None else await images.image_file(self.engine.images, image)
        if image is None or file is None:
            return None
        return images.show_at_end(pages, image), file

    def _result_messages(
        self, interaction: discord.Interaction[Any], result: QuizResult
    ) -> list[Outgoing]:
        language = result.language
        other = t("other_quiz", language) if len(self.engine.catalog) > 1 else None
        # "Try again" restarts the whole quiz: under a review it would promise something else.
        retry = None if result.review else t("retry", language)
        view = buttons.result_view(result.quiz_id, interaction.user.id, retry, other)
        return _pages_to_messages(rendering.result_pages(result), view)

    # -- the other commands ---------------------------------------------------------------

    @handled()
    async def progress(self, interaction: discord.Interaction[Any]) -> None:
        """``/progress``: attempts and scores per quiz, and the streaks in daily questions
        (in a server channel, its own; in DMs, every channel's)."""
        who = participant(interaction)
        here = str(interaction.channel_id) if interaction.guild_id is not None else None

        async def gather() -> tuple[ProgressReport, list[ChatStreak]]:
            report = await self.engine.progress(who)
            streaks = self.services.daily.streaks
            return report, await streaks.of_member(PLATFORM, who.user_id, here)

        report, streaks = await self._in_time(interaction, gather(), self._think(interaction))
        if report.quizzes or streaks:
            messages = _pages_to_messages(rendering.progress_pages(report, streaks))
        else:
            notice = say(interaction, t("no_progress", report.language), report.language)
            messages = [Outgoing(content=notice)]
        await self._reply(interaction, messages, private=is_private_reply(interaction))

    @handled()
    async def language(self, interaction: discord.Interaction[Any], code: str) -> None:
        """``/language``: remember the user's language (for Bengali and Urdu, the only way)."""
        who = participant(interaction)
        matched = await self._in_time(
            interaction, self.engine.set_language(who, code), self._think(interaction)
        )
        language = matched or await self._interface_language(interaction)
        reply = say(interaction, t("language_set", language), language)
        await self._reply(
            interaction, [Outgoing(content=reply)], private=is_private_reply(interaction)
        )

    @handled()
    async def stop(self, interaction: discord.Interaction[Any]) -> None:
        """``/stop``: end the channel's round (see :meth:`_stop_round`), else abandon the
        user's current quiz; its buttons then say it is closed."""
        if interaction.guild_id is not None and await self._stop_round(interaction):
            return
        who = participant(interaction)

        async def stop_quiz() -> tuple[str, str]:
            return await self.engine.stop(who), await self._interface_language(interaction)

        notice, language = await self._in_time(interaction, stop_quiz(), self._think(interaction))
        notice = say(interaction, notice, language)
        await self._reply(
            interaction, [Outgoing(content=notice)], private=is_private_reply(interaction)
        )

    @handled()
    async def help(self, interaction: discord.Interaction[Any]) -> None:
        """``/help``: what the bot does and its commands."""
        language = await self._in_time(
            interaction, self._interface_language(interaction), self._think(interaction)
        )
        admin = self._is_admin(interaction)
        pages = rendering.help_pages(language, interaction.locale, admin=admin)
        await self._reply(
            interaction, _pages_to_messages(pages), private=is_private_reply(interaction)
        )

    @handled(limited=False)
    async def unknown_button(self, interaction: discord.Interaction[Any]) -> None:
        """A press whose ``custom_id`` is none of ours."""
        await self._notice_in_time(interaction, "invalid_button")

    # -- group rounds ---------------------------------------------------------------------

    @handled()
    async def round(
        self,
        interaction: discord.Interaction[Any],
        query: str | None,
        seconds: int | None,
        tag: str | None = None,
    ) -> None:
        """``/round [quiz] [seconds] [tag]``: the channel plays a quiz (one topic of it)
        together."""
        quiz_id = await self._resolve_quiz(interaction, query)
        await self._start_round(interaction, quiz_id, seconds, tag=tag)

    @handled()
    async def round_start_pressed(
        self, interaction: discord.Interaction[Any], quiz_id: str, seconds: int | None
    ) -> None:
        """A quiz picked from the ``/round`` picker."""
        await self._start_round(interaction, quiz_id, seconds)

    async def _start_round(
        self,
        interaction: discord.Interaction[Any],
        quiz_id: str | None,
        seconds: int | None,
        *,
        tag: str | None = None,
    ) -> None:
        if interaction.guild_id is None or interaction.channel_id is None:
            await self._notice_in_time(interaction, "round_server_only")
            return
        if not can_run_round(interaction):
            await self._notice_in_time(interaction, "round_no_permission")
            return
        who = participant(interaction)
        start = await self._in_time(
            interaction,
            self.rounds.start(
                PLATFORM, str(interaction.channel_id), who, quiz_id, time_limit=seconds, tag=tag
            ),
            self._think(interaction, private=False),
        )
        if start.outcome is RoundStartOutcome.STARTED and start.question is not None:
            notice = say(interaction, announcement(start.question, start.notice), start.language)
            await self._reply(interaction, [Outgoing(content=notice)], private=False)
            # After the announcement, so that the first question comes below it.
            self.round_driver.ensure(start.question)
            return
        if start.question is not None:  # already running here: make sure it runs
            self.round_driver.ensure(start.question)
        if start.quizzes:
            language = start.language
            heading = (
                start.notice
                if start.outcome is RoundStartOutcome.UNKNOWN_QUIZ
                else text("round_choose", language)
            )
            shown = min(len(start.quizzes), buttons.ROWS * buttons.BUTTONS_PER_ROW)
            heading = localize_commands(heading, interaction.locale)
            pages = rendering.choose_pages(start.quizzes, language, heading, shown=shown)
            view = buttons.round_choose_view(start.quizzes, seconds)
            await self._reply(interaction, _pages_to_messages(pages, view), private=True)
            return
        await self._notice(interaction, start.notice, start.language)

    @handled(limited=False)
    async def round_answer(
        self, interaction: discord.Interaction[Any], round_id: int, number: int, option: int
    ) -> None:
        """An option of a round's question: the member's first answer counts."""
        who = participant(interaction)

        result = await self._in_time(
            interaction,
            self.rounds.answer(round_id, who, number, option),  # (in the member's language)
            lambda: interaction.response.defer(ephemeral=True, thinking=True),
        )
        if result.outcome is RoundAnswerOutcome.ACCEPTED:
            self.round_driver.on_answer(round_id, number, result.answered, result.everyone_answered)
        await self._notice(interaction, result.notice, result.language)

    async def _stop_round(self, interaction: discord.Interaction[Any]) -> bool:
        """``/stop`` in a server channel with a round: its starter or a member with Manage
        Messages (or Administrator) ends it, and the channel sees the ranking so far.

        False when there is no round here, or when someone else may not stop it but has a
        quiz of their own going: that is what their ``/stop`` is about.
        """
        who = participant(interaction)
        chat = str(interaction.channel_id)
        moderator = may_moderate(interaction)

        async def stop() -> tuple[RoundEnd | str, str] | None:
            running = await self.rounds.running(PLATFORM, chat)
            if running is None:
                return None
            mine = running.starter_id == who.user_id
            if not (mine or moderator) and await self.engine.active_attempt(who) is not None:
                return None
            outcome = await self.rounds.stop(PLATFORM, chat, who, is_chat_admin=moderator)
            return outcome, await self._interface_language(interaction)

        found = await self._in_time(interaction, stop(), self._think(interaction, private=False))
        if found is None:
            return False
        outcome, language = found
        if isinstance(outcome, str):  # not theirs to stop, or it just ended
            await self._notice(interaction, outcome, language)
            return True
        self.round_driver.stopped(outcome)
        await self._reply(interaction, _pages_to_messages(ending_pages(outcome)), private=False)
        return True

    @handled()
    async def leaderboard(
        self, interaction: discord.Interaction[Any], query: str | None, period: Period | None = None
    ) -> None:
        """``/leaderboard [quiz] [period]``: this channel's best members (in a server) and
        everyone's, for one quiz or every quiz anyone completed; with a period, who answered
        most right in it (in the channel's time zone)."""
        who = participant(interaction)
        quiz_id = await self._resolve_quiz(interaction, query)
        if period is not None:
            await self._period_board(interaction, who, period, quiz_id)
            return
        here = str(interaction.channel_id) if interaction.guild_id is not None else None

        async def boards() -> tuple[str, Boards | None]:
            ui = await self._interface_language(interaction)
            if quiz_id is not None and self.engine.catalog.get(quiz_id) is None:
                return ui, None
            ids = [quiz_id] if quiz_id else [q.id for q in self.engine.catalog.all()]
            found: Boards = []
            for each in ids:
                everyone = await self.rounds.leaderboard(each, who)
                if everyone is None:
                    continue
                channel = None
                if here is not None:
                    channel = await self.rounds.leaderboard(
                        each, who, platform=PLATFORM, chat_id=here
                    )
                if quiz_id or everyone.lines:
                    found.append((channel, everyone))
            return ui, found

        language, found = await self._in_time(
            interaction, boards(), self._think(interaction, private=False)
        )
        if found is None:
            assert quiz_id is not None
            unknown = self.engine.unknown_quiz_notice(quiz_id, language)
            await self._notice(interaction, unknown, language)
        elif not found:
            await self._notice(interaction, t("leaderboard_empty", language), language)
        else:
            pages = leaderboard_pages(found, language)
            await self._reply(interaction, _pages_to_messages(pages), private=False)

    async def _period_board(
        self,
        interaction: discord.Interaction[Any],
        who: Participant,
        period: Period,
        quiz_id: str | None,
    ) -> None:
        leaderboards = self.services.leaderboards
        here = str(interaction.channel_id) if interaction.guild_id is not None else None

        async def board() -> tuple[str, PeriodBoard | None]:
            ui = await self._interface_language(interaction)
            if quiz_id is not None and self.engine.catalog.get(quiz_id) is None:
                return ui, None
            server = str(interaction.guild_id) if here is not None else None
            board = await leaderboards.board(
                period, who, chat_id=here, zone_chat=server, quiz_id=quiz_id
            )
            return ui, board

        language, found = await self._in_time(
            interaction, board(), self._think(interaction, private=False)
        )
        if found is None:
            assert quiz_id is not None
            await self._notice(
                interaction, self.engine.unknown_quiz_notice(quiz_id, language), language
            )
            return
        pages = period_board_pages(found)
        await self._reply(interaction, _pages_to_messages(pages), private=False)

    # -- the daily question ---------------------------------------------------------------

    @handled()
    async def daily(
        self,
        interaction: discord.Interaction[Any],
        time: str | None,
        weekdays: bool = False,
        hours: int | None = None,
        quizzes: str | None = None,
    ) -> None:
        """``/daily [time] [weekdays] [hours] [quizzes]`` in a server channel: its daily
        question, shown to anyone; set (``time``) or turned off (``off``) by a member who may
        manage messages there, as ``/stop`` decides who controls a channel's round."""
        daily = self.services.daily
        if interaction.guild_id is None or interaction.channel_id is None:
            await self._notice_in_time(interaction, "daily_server_only")
            return
        words = [time or ""]
        words += ["weekdays"] if weekdays else []
        words += [f"{hours}h"] if hours is not None else []
        words += (quizzes or "").split()
        if not any(words):
            words = []
        setting = bool(words) and (time or "").strip().lower() not in OFF_WORDS
        if setting and not can_run_round(interaction):
            await self._notice_in_time(interaction, "round_no_permission")
            return
        reply = await self._in_time(
            interaction,
            daily.command(
                PLATFORM,
                str(interaction.channel_id),
                participant(interaction),
                words,
                is_chat_admin=may_moderate(interaction),
                chat_title=chat_title(interaction),
                zone_chat=str(interaction.guild_id),  # a channel keeps its server's zone
            ),
            self._think(interaction, private=False),
        )
        if reply.key in TEXTS:  # said in Discord's words
            reply = replace(reply, notice=text(reply.key, reply.language))
        if reply.outcome is DailyOutcome.REFUSED:
            await self._notice(interaction, reply.notice, reply.language)
            return
        notice = localize_commands(reply.notice, interaction.locale)
        pages = daily_reply_pages(replace(reply, notice=notice))
        await self._reply(interaction, _pages_to_messages(pages), private=False)

    async def quiz_list_choices(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        """Autocomplete for ``/daily``'s quizzes: the words typed so far, and the last one
        completed to each quiz id containing it (not chosen yet)."""
        words = current.split()
        done, last = (words, "") if current.endswith(" ") or not words else (words[:-1], words[-1])
        needle = last.casefold()
        choices = []
        for quiz in self.engine.catalog.all():
            if quiz.id in done or needle not in quiz.id:
                continue
            value = " ".join([*done, quiz.id])
            if len(value) <= rendering.CHOICE_NAME_LIMIT:
                choices.append(app_commands.Choice(name=value, value=value))
        return choices[: rendering.CHOICES_LIMIT]

    # -- bot admins -----------------------------------------------------------------------

    async def _refuse_non_admin(self, interaction: discord.Interaction[Any]) -> bool:
        """True (after telling them the command is unknown) for anyone but a bot admin."""
        if self._is_admin(interaction):
            return False
        await self._notice_in_time(interaction, "unknown_command")
        return True

    @handled(admin=True)
    async def reload(self, interaction: discord.Interaction[Any]) -> None:
        """``/reload``: read QUIZ_DIR again and publish what is new, for every replica; how
        many quizzes are live, and each error (a broken file keeps its previous version
        live)."""

        async def reload() -> tuple[LoadReport, int, str]:
            # QUIZ_DIR's new quizzes go to the library (files are read off the event loop,
            # so other members' presses are still answered within Discord's 3 seconds):
            # every replica serves them within seconds.
            report = (await self.engine.library.publish_quiz_dir()).load
            return report, len(self.engine.catalog), await self._interface_language(interaction)

        report, live, language = await self._in_time(
            interaction, reload(), self._think(interaction, private=True)
        )
        log.info(
            "discord: quizzes reloaded by %s: %d live, %d errors",
            interaction.user.id,
            live,
            len(report.errors),
        )
        pages = reload_pages(report, live, language)
        await self._reply(interaction, _pages_to_messages(pages), private=True)

    @handled(admin=True)
    async def upload(
        self, interaction: discord.Interaction[Any], attachment: discord.Attachment, fmt: str | None
    ) -> None:
        """``/upload file [format]``: publish a quiz file or a zip (see :mod:`.uploads`)."""

        async def publish() -> tuple[str, discord.File | None]:
            language = await self._interface_language(interaction)
            by = f"discord:{interaction.user.id}"
            return await self.uploads.publish(attachment, fmt, by, language)

        content, file = await self._in_time(
            interaction, publish(), self._think(interaction, private=True)
        )
        message = Outgoing(content=content, files=[file] if file is not None else [])
        await self._reply(interaction, [message], private=True)

    @handled(admin=True)
    async def quizzes(self, interaction: discord.Interaction[Any]) -> None:
        """``/quizzes``: the published quizzes with version, source and question count."""

        async def listing() -> str:
            language = await self._interface_language(interaction)
            lines = listing_lines(await self.engine.library.listing(), language)
            return "\n".join(lines)

        content = await self._in_time(
            interaction, listing(), self._think(interaction, private=True)
        )
        await self._reply(interaction, [Outgoing(content=content)], private=True)

    @handled(admin=True)
    async def unpublish(self, interaction: discord.Interaction[Any], quiz_id: str) -> None:
        """``/unpublish quiz``: hide a quiz everywhere; attempts in progress finish."""

        async def hide() -> tuple[str, str]:
            language = await self._interface_language(interaction)
            if await self.engine.library.unpublish(quiz_id):
                log.info("discord: quiz %s unpublished by %s", quiz_id, interaction.user.id)
                return library_t("unpublished", language, quiz=quiz_id), language
            shown = quote(quiz_id[:60])
            return library_t("unpublish_unknown", language, quiz=shown), language

        notice, language = await self._in_time(
            interaction, hide(), self._think(interaction, private=True)
        )
        await self._notice(interaction, notice, language)

    @handled(admin=True)
    async def stats(self, interaction: discord.Interaction[Any], query: str | None) -> None:
        """``/stats [quiz]``: attempts, completions, average score and hardest question."""
        quiz_id = await self._resolve_quiz(interaction, query)

        async def collect() -> tuple[str, list[QuizStats] | None]:
            language = await self._interface_language(interaction)
            if quiz_id is not None and self.engine.catalog.get(quiz_id) is None:
                return language, None
            return language, await self.engine.stats(quiz_id, language)

        language, stats = await self._in_time(
            interaction, collect(), self._think(interaction, private=True)
        )
        if stats is None:
            assert quiz_id is not None
            unknown = self.engine.unknown_quiz_notice(quiz_id, language)
            await self._notice(interaction, unknown, language)
            return
        messages = _pages_to_messages(stats_pages(stats, language))
        if len(stats) == 1:
            await self._attach_chart(interaction, stats[0], messages[-1])
        await self._reply(interaction, messages, private=True)

    async def _attach_chart(
        self, interaction: discord.Interaction[Any], quiz: QuizStats, message: Outgoing
    ) -> None:
        """The quiz's chart as the image of the message's last embed, when there is a chart
        renderer and anything to draw. Without a chart (it failed) the text stands alone."""
        if self.stats_chart is None or not message.embeds:
            return
        if not any(question.answered for question in quiz.questions):
            return
        if not interaction.response.is_done():
            # Drawing blocks the event loop (on purpose: plotting libraries are rarely
            # thread-safe, and another adapter may draw at the same time), so acknowledge first.
            await self._think(interaction, private=True)()
        try:
            png = self.stats_chart(quiz)
        except Exception:
            log.warning("discord: no stats chart for %s", quiz.quiz_id, exc_info=True)
            return
        filename = f"stats-{UNSAFE_FILENAME.sub('_', quiz.quiz_id)}.png"
        message.embeds[-1].set_image(url=f"attachment://{filename}")
        message.files = [discord.File(io.BytesIO(png), filename=filename)]
