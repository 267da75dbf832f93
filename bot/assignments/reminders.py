"""Assignment reminders and the deadline summary, as jobs on the scheduler.

When an assignment is set, a job is scheduled for each configured time before its deadline
(``ASSIGNMENT_REMINDERS``, 24 h and 1 h by default) and one at the deadline, keyed
``assignment:<id>:...`` so that cancelling the assignment removes them all at once. A reminder
job messages every member who started the quiz and has not finished it (directly, one message
each) and posts a recap in the chat (done, in progress, not started); the deadline job posts
the summary in the chat (completion, average score, hardest question). Their messages are
written to the outbox in the transaction that completes the job (docs/scheduling.md), so each
is posted once across replicas and restarts.

A reminder that comes after its deadline (the process was down) is dropped, and of several
reminders missed while down only the latest is sent: no catch-up flood. A chat the bot can no
longer post in (marked unreachable, :mod:`bot.scheduling.reachability`: the bot was removed)
gets no recap and no summary; its members' reminders still go to them. Payloads hold plain
values; :mod:`bot.assignments.messages` words them in the recipient's language when sent.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from datetime import timedelta
from statistics import fmean

from bot.assignments.views import AssignmentReport, MemberStatus
from bot.scheduling import JobOutcome, JobRun, NewJob, NewMessage, Scheduler
from bot.scheduling.reachability import Reachability
from bot.storage.assignments import AssignmentRecord, AssignmentStore

log = logging.getLogger("quizbot.assignments")

REMINDER_JOB = "assignment-reminder"
DEADLINE_JOB = "assignment-deadline"
# Message kinds each platform's sender renders.
REMINDER = "assignment-reminder"  # to a member who started and has not finished
RECAP = "assignment-recap"  # in the chat, with each reminder
SUMMARY = "assignment-summary"  # in the chat, at the deadline
MESSAGE_KINDS = (REMINDER, RECAP, SUMMARY)
DEFAULT_REMINDERS = (timedelta(hours=24), timedelta(hours=1))

Report = Callable[[AssignmentRecord, str], Awaitable[AssignmentReport]]


def job_prefix(assignment_id: int) -> str:
    """The start of every job key of the assignment (what cancelling removes)."""
    return f"assignment:{assignment_id}:"


class AssignmentReminders:
    """Schedules an assignment's reminders and summary, and runs them when due."""

    def __init__(
        self,
        store: AssignmentStore,
        scheduler: Scheduler,
        report: Report,
        before: Sequence[timedelta] = DEFAULT_REMINDERS,
        reachability: Reachability | None = None,
    ) -> None:
        """``reachability``: the chats the bot can no longer post in (none when not given)."""
        self.store = store
        self.scheduler = scheduler
        self.report = report  # an assignment's report in a language, at the moment of asking
        self.reachability = reachability
        self.before = tuple(sorted(set(before), reverse=True))  # the earliest reminder first
        scheduler.register(REMINDER_JOB, self.remind)
        scheduler.register(DEADLINE_JOB, self.close)

    async def schedule(self, record: AssignmentRecord) -> None:
        """Schedule the reminders still ahead, and the deadline summary."""
        now = self.scheduler.clock()
        prefix = job_prefix(record.id)
        for before in self.before:
            due = record.deadline - before
            if due > now:
                seconds = int(before.total_seconds())
                key = f"{prefix}remind:{seconds}"
                payload = {"assignment": record.id, "before": seconds}
                # Stale once the deadline has passed: the summary says the rest.
                await self.scheduler.schedule(NewJob(REMINDER_JOB, key, due, payload, before))
        payload = {"assignment": record.id}
        deadline = NewJob(DEADLINE_JOB, f"{prefix}deadline", record.deadline, payload)
        await self.scheduler.schedule(deadline)

    async def cancel(self, assignment_id: int) -> int:
        """Remove the assignment's pending reminders and summary; how many."""
        return await self.scheduler.cancel(job_prefix(assignment_id))

    async def _live(self, run: JobRun) -> AssignmentRecord | None:
        record = await self.store.get_assignment(int(run.job.payload["assignment"]))
        return record if record is not None and record.cancelled_at is None else None

    async def _chat_unreachable(self, record: AssignmentRecord, what: str) -> bool:
        """Whether the assignment's chat is marked as one the bot cannot post in (then its
        ``what``, the recap or the summary, is skipped, and the log says so)."""
        marks = self.reachability
        if marks is None:
            return False
        await marks.refresh()
        if not marks.is_marked(record.platform, record.chat_id, to_user=False):
            return False
        log.warning(
            "assignment %s: the bot can no longer post in %s:%s; its %s is skipped",
            record.id,
            record.platform,
            record.chat_id,
            what,
        )
        return True

    def _overtaken(self, record: AssignmentRecord, before: timedelta, run: JobRun) -> bool:
        """Whether a later reminder of the assignment is due already (this one is late)."""
        later = [b for b in self.before if b < before]
        return bool(later) and run.now >= record.deadline - max(later)

    async def remind(self, run: JobRun) -> JobOutcome:
        """A reminder: each member who started and has not finished, and the chat's recap."""
        record = await self._live(run)
        before = timedelta(seconds=int(run.job.payload["before"]))
        if record is None or run.now >= record.deadline or self._overtaken(record, before, run):
            return JobOutcome()
        report = await self.report(record, record.language)
        post = report.post
        common = {
            "assignment": record.id,
            "quiz": record.quiz_id,
            "title": post.title,
            "deadline": record.deadline.isoformat(),
            "local": post.local_deadline,
            "language": record.language,
            "chat": record.chat_title,  # the reminders say whose assignment it is
        }
        key = f"{job_prefix(record.id)}remind:{int(before.total_seconds())}"
        messages = [
            NewMessage(
                record.platform,
                line.user_id,
                REMINDER,
                f"{key}:{line.user_id}",
                common | {"answered": line.answered, "total": line.total},
                to_user=True,
            )
            for line in report.started
            if line.status is MemberStatus.IN_PROGRESS
        ]
        if await self._chat_unreachable(record, "recap"):
            return JobOutcome(messages)
        minutes = max(1, round((record.deadline - run.now).total_seconds() / 60))
        counts = {
            "minutes": minutes,
            "done": report.count(MemberStatus.DONE),
            "going": report.count(MemberStatus.IN_PROGRESS),
            "waiting": report.count(MemberStatus.NOT_STARTED),
        }
        messages.append(NewMessage(record.platform, record.chat_id, RECAP, key, common | counts))
        return JobOutcome(messages)

    async def close(self, run: JobRun) -> JobOutcome:
        """The deadline: the chat's summary of who completed it, how well, what was hard."""
        record = await self._live(run)
        if record is None or await self._chat_unreachable(record, "summary"):
            return JobOutcome()
        report = await self.report(record, record.language)
        done = [line for line in report.started if line.status is MemberStatus.DONE]
        hardest = report.stats.hardest if report.stats is not None else None
        payload = {
            "assignment": record.id,
            "quiz": record.quiz_id,
            "title": report.post.title,
            "language": record.language,
            "done": len(done),
            "members": report.known,
            "average": fmean(line.correct for line in done) if done else None,
            "total": report.post.question_count,
            "hardest": None
            if hardest is None or hardest.percent_correct is None
            else {
                "question": hardest.question_id,
                "number": hardest.number,
                "percent": round(hardest.percent_correct),
            },
        }
        key = f"{job_prefix(record.id)}summary"
        return JobOutcome([NewMessage(record.platform, record.chat_id, SUMMARY, key, payload)])
