"""Assignments: a chat's admin sets a quiz with a deadline, members take it, the admin reads
who did what.

The service sits beside the engine, as group rounds do: it asks the engine only public
questions (a player's language, the catalog, starting a quiz), keeps assignments on their own
storage ports, and schedules their reminders and deadline summary on the scheduler
(:mod:`bot.assignments.reminders`).

An attempt counts for an assignment once its member starts the quiz from the assignment, or
resumes from it the attempt they already had in progress; a finished attempt counts before an
unfinished one, and one finished after the deadline is late. Adapters decide who is an admin
of a chat (the platform knows) and pass it in.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from bot.assignments.presenters import quiz_title
from bot.assignments.reminders import DEFAULT_REMINDERS, AssignmentReminders
from bot.assignments.texts import assignment_t
from bot.assignments.views import (
    AssignmentPost,
    AssignmentReport,
    AssignmentReports,
    AssignmentStart,
    AssignOutcome,
    AssignResult,
    CancelResult,
    MemberLine,
    MemberStatus,
    OpenAssignments,
)
from bot.chat_members import ChatMembers
from bot.engine import QuizEngine, valid_id
from bot.scheduling import Scheduling
from bot.scheduling.timezones import DeadlineError, local_text, parse_deadline
from bot.stats import compute_stats
from bot.storage import AttemptStatus, Storage
from bot.storage.assignments import AssignedAttempt, AssignmentRecord, NewAssignment
from bot.text_direction import is_rtl
from bot.views import Participant

MAX_CHAT_TITLE = 256  # characters of a chat's title kept (Telegram's are at most 128)
REPORTED = 3  # assignments one /report shows (newest deadline first); the rest are counted
# Why a typed deadline cannot be used (DeadlineError.key) -> the string that says so.
DEADLINE_PROBLEMS = {
    "deadline_invalid": "assign_bad_deadline",
    "deadline_past": "assign_past_deadline",
    "deadline_too_far": "assign_far_deadline",
}


def parse_id(text: str | None) -> int | None:
    """An assignment number as typed (``3`` or ``#3``), if it can name one."""
    digits = (text or "").strip().removeprefix("#")
    if not digits.isdigit() or len(digits) > 18:
        return None
    number = int(digits)
    return number if valid_id(number) else None


class Assignments:
    """Assignments in group chats: set, started, reported and cancelled here."""

    def __init__(
        self,
        engine: QuizEngine,
        scheduling: Scheduling,
        *,
        reminders: Sequence[timedelta] = DEFAULT_REMINDERS,
    ) -> None:
        """``reminders``: how long before each deadline its reminders go out."""
        self.engine = engine
        self.store: Storage = scheduling.storage
        self.members = ChatMembers(self.store, engine.clock)
        self.zones = scheduling.timezones
        self.reminders = AssignmentReminders(
            self.store, scheduling.scheduler, self.report, reminders, scheduling.reachability
        )

    def _now(self) -> datetime:
        return self.engine.clock()

    async def zone(self, platform: str, chat_id: str) -> ZoneInfo:
        """The time zone deadlines are read and shown in, in a chat (``/timezone``)."""
        return await self.zones.of_chat(platform, chat_id)

    # -- posts ------------------------------------------------------------------------------

    async def post(self, record: AssignmentRecord, language: str | None = None) -> AssignmentPost:
        """``record`` as its chat sees it, in ``language`` (default: its own)."""
        language = language or record.language
        quiz = self.engine.catalog.get(record.quiz_id)
        zone = await self.zone(record.platform, record.zone_chat)
        return AssignmentPost(
            assignment_id=record.id,
            platform=record.platform,
            chat_id=record.chat_id,
            quiz_id=record.quiz_id,
            title=quiz_title(quiz, language) if quiz else record.quiz_id,
            question_count=quiz.attempt_size() if quiz else 0,
            deadline=record.deadline,
            local_deadline=local_text(record.deadline, zone),
            language=language,
            rtl=is_rtl(language),
            cancelled=record.cancelled_at is not None,
            open=record.open_at(self._now()),
        )

    async def find(self, assignment_id: int) -> AssignmentRecord | None:
        return await self.store.get_assignment(assignment_id) if valid_id(assignment_id) else None

    # -- setting and cancelling -------------------------------------------------------------

    async def assign(
        self,
        chat_id: str,
        who: Participant,
        quiz_id: str | None,
        deadline: str | None,
        *,
        in_group: bool,
        allowed: bool,
        zone_chat: str | None = None,
        chat_title: str | None = None,
    ) -> AssignResult:
        """``/assign QUIZ DEADLINE`` in a chat: ``allowed`` when ``who`` is one of its admins
        or a bot operator (the adapter asks the platform). The deadline is read in the time
        zone of ``zone_chat`` (default: the chat's; a Discord channel's is its server's).
        ``chat_title``, the chat's name as the platform gives it, is kept for the reminders
        members get in private."""
        zone_chat = zone_chat or chat_id
        ui = await self.engine.interface_language(who)
        if not in_group:
            return AssignResult(
                AssignOutcome.NOT_IN_GROUP, ui, assignment_t("assign_group_only", ui)
            )
        if not allowed:
            return AssignResult(
                AssignOutcome.NOT_ALLOWED, ui, assignment_t("assign_admins_only", ui)
            )
        zone = await self.zone(who.platform, zone_chat)
        if not quiz_id or not deadline or not deadline.strip():
            usage = assignment_t("assign_usage", ui, zone=zone.key)
            return AssignResult(AssignOutcome.USAGE, ui, usage)
        quiz = self.engine.catalog.get(quiz_id)
        if quiz is None:
            notice = self.engine.unknown_quiz_notice(quiz_id, ui)
            return AssignResult(AssignOutcome.UNKNOWN_QUIZ, ui, notice)
        now = self._now()
        try:
            due = parse_deadline(deadline, zone, now)
        except DeadlineError as problem:
            shown = " ".join(deadline.split())[:40]
            notice = assignment_t(DEADLINE_PROBLEMS[problem.key], ui, text=shown)
            return AssignResult(AssignOutcome.BAD_DEADLINE, ui, notice)
        title = " ".join((chat_title or "").split())[:MAX_CHAT_TITLE] or None
        new = NewAssignment(
            who.platform, chat_id, quiz.id, who.user_id, ui, now, due, zone_chat, title
        )
        record = await self.store.create_assignment(new)
        await self.reminders.schedule(record)
        await self.members.seen(chat_id, who)
        return AssignResult(AssignOutcome.CREATED, ui, "", await self.post(record))

    async def cancel(
        self, chat_id: str, who: Participant, number: str | None, *, in_group: bool, allowed: bool
    ) -> CancelResult:
        """``/assign cancel ID`` in a chat (by one of its admins, or a bot operator)."""
        ui = await self.engine.interface_language(who)
        if not in_group:
            return CancelResult(ui, assignment_t("assign_group_only", ui))
        if not allowed:
            return CancelResult(ui, assignment_t("assign_admins_only", ui))
        assignment_id = parse_id(number)
        record = await self.find(assignment_id) if assignment_id is not None else None
        if record is None or (record.platform, record.chat_id) != (who.platform, chat_id):
            shown = (number or "?").strip().removeprefix("#")[:20] or "?"
            return CancelResult(ui, assignment_t("assignment_unknown", ui, id=shown))
        if not await self.store.cancel_assignment(record.id, self._now()):
            return CancelResult(ui, assignment_t("assignment_was_cancelled", ui, id=record.id))
        await self.reminders.cancel(record.id)
        post = await self.post(dataclasses.replace(record, cancelled_at=self._now()), ui)
        notice = assignment_t("assignment_cancelled", ui, id=record.id, title=post.title)
        return CancelResult(ui, notice, post)

    async def open_in(self, platform: str, chat_id: str, who: Participant) -> OpenAssignments:
        """``/assignments``: the chat's open assignments, soonest deadline first."""
        ui = await self.engine.interface_language(who)
        now = self._now()
        records = [
            r for r in await self.store.find_assignments(platform, chat_id) if r.open_at(now)
        ]
        posts = tuple([await self.post(r, ui) for r in records])
        notice = "" if posts else assignment_t("assignments_none", ui)
        return OpenAssignments(ui, posts, notice)

    # -- taking it --------------------------------------------------------------------------

    async def available(self, assignment_id: int, who: Participant) -> AssignmentStart:
        """Whether ``who`` can take the assignment (it exists and is not cancelled): its
        post in their language, or the notice saying why not. Reads, writes nothing."""
        ui = await self.engine.interface_language(who)
        record = await self.find(assignment_id)
        if record is None or record.platform != who.platform:
            return AssignmentStart(ui, assignment_t("assignment_unknown", ui, id=assignment_id))
        if record.cancelled_at is not None:
            return AssignmentStart(ui, assignment_t("assignment_was_cancelled", ui, id=record.id))
        return AssignmentStart(ui, "", await self.post(record, ui))

    async def start(
        self, assignment_id: int, who: Participant, *, chat_id: str | None
    ) -> AssignmentStart:
        """``who`` starts the assignment's quiz (in ``chat_id``): the engine starts it, or
        resumes the attempt they have in progress, and that attempt counts for the
        assignment. Past the deadline it still counts, as late (the notice says so)."""
        checked = await self.available(assignment_id, who)
        if checked.post is None:
            return checked
        post = checked.post
        result = await self.engine.start(who, post.quiz_id, chat_id=chat_id)
        if result.question is None:  # the quiz is gone: the engine's notice says so
            return dataclasses.replace(checked, notice=result.notice, start=result)
        now = self._now()
        await self.store.link_attempt(
            post.assignment_id, result.question.attempt_id, who.user_id, now
        )
        await self.members.seen(post.chat_id, who)
        if not post.open:
            late = assignment_t("assignment_late", checked.language)
            notice = f"{result.notice}\n{late}" if result.notice else late
            result = dataclasses.replace(result, notice=notice)
        return dataclasses.replace(checked, start=result)

    # -- reports ----------------------------------------------------------------------------

    async def reports(
        self,
        platform: str | None,
        chat_id: str | None,
        who: Participant,
        query: str | None = None,
        *,
        created_by: str | None = None,
        limit: int | None = REPORTED,
    ) -> AssignmentReports:
        """``/report [QUIZ|ID]``: the reports of a chat's assignments (or, without a chat,
        of those ``created_by`` set; without a platform either, of every one), newest
        deadline first, at most ``limit``."""
        ui = await self.engine.interface_language(who)
        query = (query or "").strip() or None
        number = parse_id(query)
        quiz_id = query if query is not None and number is None else None
        if quiz_id is not None and self.engine.catalog.get(quiz_id) is None:
            return AssignmentReports(ui, (), notice=self.engine.unknown_quiz_notice(quiz_id, ui))
        found = await self.store.find_assignments(
            platform, chat_id, created_by=created_by, quiz_id=quiz_id
        )
        if number is not None:
            found = [r for r in found if r.id == number]
            if not found:
                return AssignmentReports(
                    ui, (), notice=assignment_t("assignment_unknown", ui, id=number)
                )
        if not found:
            return AssignmentReports(ui, (), notice=assignment_t("report_none", ui))
        newest = sorted(found, key=lambda r: (r.deadline, r.id), reverse=True)
        shown = [await self.report(r, ui) for r in newest[:limit]]
        return AssignmentReports(ui, tuple(shown), more=len(newest) - len(shown))

    async def report(self, record: AssignmentRecord, language: str) -> AssignmentReport:
        """Who started the assignment with their status, best first; who has not among the
        members seen in its chat (its author aside); the per-question figures."""
        post = await self.post(record, language)
        counted = await self.store.assigned_attempts(record.id)
        started = _member_lines(record, counted)
        seen = {line.user_id for line in started} | {record.created_by}
        waiting = tuple(
            MemberLine(
                m.user_id,
                m.display_name or m.user_id,
                MemberStatus.NOT_STARTED,
                0,
                0,
                post.question_count,
            )
            for m in await self.store.chat_members(record.platform, record.chat_id)
            if m.user_id not in seen
        )
        quiz = self.engine.catalog.get(record.quiz_id)
        stats = None
        if quiz is not None and started:
            chosen = {line.attempt_id for line in started}
            attempts = [c.attempt for c in counted if c.attempt.id in chosen]
            answers = [
                a for a in await self.store.assignment_answers(record.id) if a.attempt_id in chosen
            ]
            stats = compute_stats(quiz, attempts, answers, language)
        return AssignmentReport(post, tuple(started), waiting, stats)

    async def overview(self, language: str, *, everything: bool = False) -> list[AssignmentReport]:
        """Every open assignment (``everything``: closed and cancelled ones too) with its
        report, soonest deadline first: what operators see in the terminal."""
        now = self._now()
        found = await self.store.find_assignments()
        return [await self.report(r, language) for r in found if everything or r.open_at(now)]

    async def report_of(self, assignment_id: int, language: str) -> AssignmentReport | None:
        """One assignment's report (for operators: ``quizbot report``, the CSV export)."""
        record = await self.find(assignment_id)
        return None if record is None else await self.report(record, language)


def _counting(theirs: Sequence[AssignedAttempt]) -> AssignedAttempt:
    """The attempt that counts for a member: the first they finished, else their latest."""
    finished = [a for a in theirs if a.attempt.status is AttemptStatus.COMPLETED]
    if finished:
        return min(
            finished, key=lambda a: (a.attempt.finished_at or a.attempt.updated_at, a.attempt.id)
        )
    return max(theirs, key=lambda a: (a.attempt.updated_at, a.attempt.id))


def _member_lines(record: AssignmentRecord, counted: Sequence[AssignedAttempt]) -> list[MemberLine]:
    """One line per member who started the assignment: done, late, then in progress; the
    best score (then the quickest) first."""
    by_user: defaultdict[str, list[AssignedAttempt]] = defaultdict(list)
    for each in counted:
        by_user[each.attempt.user_id].append(each)
    lines = []
    for user_id, theirs in by_user.items():
        chosen = _counting(theirs)
        attempt = chosen.attempt
        status = MemberStatus.IN_PROGRESS
        if attempt.status is AttemptStatus.COMPLETED:
            finished = attempt.finished_at or attempt.updated_at
            status = MemberStatus.DONE if finished <= record.deadline else MemberStatus.LATE
        lines.append(
            MemberLine(
                user_id=user_id,
                name=chosen.display_name or user_id,
                status=status,
                answered=chosen.answered,
                correct=chosen.correct,
                total=len(attempt.question_order),
                started_at=attempt.started_at,
                finished_at=attempt.finished_at if status is not MemberStatus.IN_PROGRESS else None,
                attempt_id=attempt.id,
            )
        )
    order = [MemberStatus.DONE, MemberStatus.LATE, MemberStatus.IN_PROGRESS]
    lines.sort(
        key=lambda line: (
            order.index(line.status),
            -line.correct if line.status is not MemberStatus.IN_PROGRESS else -line.answered,
            line.seconds or 0.0,
            line.name.casefold(),
        )
    )
    return lines
