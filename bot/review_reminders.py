"""Review reminders: once a day at a local time a user chose, a direct message when questions
are due for review ("5 questions to review", with a button that starts the review).

One scheduled job per user (kind ``review-reminder``, key
``review-reminder:<platform>:<user id>``, payload: the time of day and the user's platform
language). When it runs it counts the user's due questions: none, nothing is sent; else one
``review-due`` message to the user (payload: the count), which each platform renders with a
Review button. Either way the job moves to the next day's time, in the user's zone as it is
then (a ``/timezone`` change moves it at once), by the daylight-saving rule of
:mod:`bot.scheduling.timezones`. A reminder missed while no process ran is sent once, late,
and the rhythm resumes the next day.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, time
from zoneinfo import ZoneInfo

from bot.engine import QuizEngine
from bot.i18n import t
from bot.scheduling import JobOutcome, JobRun, NewJob, NewMessage, Scheduling
from bot.scheduling.timezones import local_text, next_local_time, parse_local_time
from bot.views import Participant

REMINDER_JOB = "review-reminder"  # job kind
REVIEW_DUE = "review-due"  # message kind: payload {"count": n, "language": platform tag}


def reminder_key(platform: str, user_id: str) -> str:
    return f"{REMINDER_JOB}:{platform}:{user_id}"


@dataclass(frozen=True)
class ReminderSetting:
    """A user's reminder: the local time (None: off), their zone, and the next check."""

    at: time | None
    zone: ZoneInfo
    next_at: datetime | None

    def describe(self, language: str, *, changed: bool = False) -> str:
        """What ``/remind`` says about it (``changed``: it was just set)."""
        if self.at is None or self.next_at is None:
            return t("remind_none", language, zone=self.zone.key)
        key = "remind_set" if changed else "remind_current"
        upcoming = local_text(self.next_at, self.zone)
        return t(key, language, time=self.at.strftime("%H:%M"), zone=self.zone.key, next=upcoming)


class ReviewReminders:
    """Sets, shows and runs review reminders (registers its job kind on ``scheduling``)."""

    def __init__(self, engine: QuizEngine, scheduling: Scheduling) -> None:
        self.engine = engine
        self.scheduling = scheduling
        scheduling.scheduler.register(REMINDER_JOB, self.remind)

    async def command(self, who: Participant, argument: str | None, language: str) -> str:
        """``/remind`` on any platform: ``HH:MM`` sets, ``off`` stops, nothing shows; the
        reply in ``language``."""
        wanted = (argument or "").strip().lower()
        if not wanted:
            return (await self.setting(who)).describe(language)
        if wanted == "off":
            await self.off(who)
            return t("remind_off", language)
        at = parse_local_time(wanted)
        if at is None:
            return t("remind_bad_time", language)
        return (await self.set(who, at)).describe(language, changed=True)

    async def zone(self, who: Participant) -> ZoneInfo:
        return await self.scheduling.timezones.of_user(who.platform, who.user_id)

    async def set(self, who: Participant, at: time) -> ReminderSetting:
        """Remind ``who`` every day at ``at`` (their local time) from now on."""
        zone = await self.zone(who)
        due = next_local_time(self.scheduling.clock(), at, zone)
        payload = {
            "platform": who.platform,
            "user_id": who.user_id,
            "at": at.strftime("%H:%M"),
            "language": who.language_tag,
        }
        job = NewJob(REMINDER_JOB, reminder_key(who.platform, who.user_id), due, payload)
        await self.scheduling.scheduler.schedule(job, replace=True)
        return ReminderSetting(at, zone, due)

    async def off(self, who: Participant) -> bool:
        """Stop ``who``'s reminders; whether they had one."""
        return bool(await self.scheduling.scheduler.cancel(reminder_key(who.platform, who.user_id)))

    async def setting(self, who: Participant) -> ReminderSetting:
        zone = await self.zone(who)
        job = await self.scheduling.scheduler.get(reminder_key(who.platform, who.user_id))
        if job is None:
            return ReminderSetting(None, zone, None)
        return ReminderSetting(time.fromisoformat(str(job.payload["at"])), zone, job.due_at)

    async def zone_changed(self, who: Participant) -> None:
        """``who``'s zone changed: their reminder keeps its local time in the new zone."""
        current = await self.setting(who)
        if current.at is not None:
            await self.set(who, current.at)

    async def remind(self, run: JobRun) -> JobOutcome:
        """The job: a ``review-due`` message when questions are due, then tomorrow's job."""
        job, payload = run.job, run.job.payload
        platform, user_id = str(payload["platform"]), str(payload["user_id"])
        tag = payload.get("language")
        who = Participant(platform, user_id, None, tag if isinstance(tag, str) else None)
        due, _ = await self.engine.review_status(who)
        zone = await self.zone(who)
        at = time.fromisoformat(str(payload["at"]))
        following = NewJob(REMINDER_JOB, job.key, next_local_time(run.now, at, zone), payload)
        if not due:
            return JobOutcome(next_job=following)
        day = job.due_at.astimezone(zone).date().isoformat()
        message = NewMessage(
            platform,
            user_id,
            REVIEW_DUE,
            f"{REVIEW_DUE}:{platform}:{user_id}:{day}",
            {"count": due, "language": who.language_tag},
            to_user=True,
        )
        return JobOutcome([message], following)
