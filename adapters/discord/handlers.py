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

The other features' commands live in the modules named after them (assignments, the daily
question, reminders, time zones, the quiz library), each a class :class:`QuizHandlers` puts
together; what they all share (answering in time, notices, the command budget) is
:class:`~adapters.discord.interactions.Interactions`.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from adapters.discord import buttons, images, rendering, typed_answers
from adapters.discord.assignments import AssignmentHandlers
from adapters.discord.daily_commands import DailyCommands
from adapters.discord.daily_rendering import period_board_pages
from adapters.discord.group_rounds import PLATFORM
from adapters.discord.interactions import (
    Outgoing,
    can_run_round,
    handled,
    is_private_reply,
    may_moderate,
    pages_to_messages,
    participant,
    say,
)
from adapters.discord.library_commands import LibraryCommands
from adapters.discord.reminder_commands import ReminderCommands
from adapters.discord.round_rendering import announcement, ending_pages, leaderboard_pages
from adapters.discord.texts import text
from adapters.discord.timezone_commands import TimezoneCommands
from adapters.discord.translator import localize_commands
from bot import markup
from bot.bank_texts import normalize_tag
from bot.daily.views import ChatStreak
from bot.i18n import t
from bot.leaderboard_periods import Period, PeriodBoard
from bot.rounds import (
    Leaderboard,
    RoundAnswerOutcome,
    RoundEnd,
    RoundStartOutcome,
)
from bot.text_direction import strip_controls
from bot.views import (
    AnswerFeedback,
    AnswerOutcome,
    Participant,
    ProgressReport,
    QuizResult,
    StartOutcome,
    StartResult,
)

Boards = list[tuple[Leaderboard | None, Leaderboard]]  # per quiz: this channel's, everyone's


class QuizHandlers(
    AssignmentHandlers, DailyCommands, ReminderCommands, TimezoneCommands, LibraryCommands
):
    """Every slash command and button press of one client: those of quizzes, reviews and group
    rounds here, and each other feature's from its own class."""

    # -- starting ---------------------------------------------------------------------

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

    # -- answering --------------------------------------------------------------------

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
        return pages_to_messages(rendering.result_pages(result), view)

    # -- the other commands -----------------------------------------------------------

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
            messages = pages_to_messages(rendering.progress_pages(report, streaks))
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
            interaction, pages_to_messages(pages), private=is_private_reply(interaction)
        )

    @handled(limited=False)
    async def unknown_button(self, interaction: discord.Interaction[Any]) -> None:
        """A press whose ``custom_id`` is none of ours."""
        await self._notice_in_time(interaction, "invalid_button")

    # -- group rounds -----------------------------------------------------------------

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
            await self._reply(interaction, pages_to_messages(pages, view), private=True)
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
        await self._reply(interaction, pages_to_messages(ending_pages(outcome)), private=False)
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
            await self._reply(interaction, pages_to_messages(pages), private=False)

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
        await self._reply(interaction, pages_to_messages(pages), private=False)
