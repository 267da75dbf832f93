"""The daily question of a chat: ``/daily`` sets it, a scheduled job posts it.

``/daily HH:MM [weekdays] [6h] [QUIZ ...]`` (a chat admin) keeps the chat's setting and
schedules the next post as a job (:mod:`bot.scheduling`) at that local time in the chat's time
zone. When the job runs, one replica posts the day's question: it chooses one the chat has not
had in this pass through the chosen quizzes (:mod:`bot.daily.choice`) and opens it as a
one-question round of the daily kind (:class:`~bot.rounds.service.GroupRounds`), in the same
transaction as the day's post record, so a day is posted once however many replicas try. The
round is then driven like any round (its platform's
:class:`~bot.rounds.driver.RoundDriver` posts it, takes presses, closes it and posts the
reveal through the round outbox, across restarts and replicas); it stays open ``open_for``
(12 hours unless set), but never past the next post, which closes it first.

The job then schedules the next post from the moment it ran, never from the missed due time,
so a process that was down for days posts at most once when it comes back; and a post missed
by more than its open window (the job runs *stale*) is skipped, not posted late.

A chat the bot can no longer post in (it was removed: its round driver, or the outbox, marked
the chat unreachable, :mod:`bot.scheduling.reachability`) gets no more questions: the next
post job turns its daily question off, says so in the log, and schedules nothing more. An
admin who adds the bot back turns it on again with ``/daily``.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from bot.daily.choice import choose_question, day_seed, question_pool
from bot.daily.request import DailyAction, DailyRequest, DailyRequestError, parse_daily
from bot.daily.streaks import DailyStreaks
from bot.daily.texts import daily_t
from bot.daily.views import DailyOutcome, DailyReply, DailyStatus
from bot.quiz import Quiz
from bot.rounds.service import GroupRounds
from bot.rounds.views import RoundQuestion
from bot.scheduling.scheduler import JobOutcome, JobRun
from bot.scheduling.scheduling import Scheduling
from bot.scheduling.timezones import SATURDAY, at_local, next_local_time
from bot.storage import NewRound, RoundKind, RoundRecord, StorageError
from bot.storage.daily import DailySetting, NewDailyPost
from bot.storage.scheduling import NewJob
from bot.text_direction import prepare
from bot.views import Participant

log = logging.getLogger("quizbot.daily")

DAILY_JOB = "daily-post"
Listener = Callable[[RoundQuestion], None]


def job_key(platform: str, chat_id: str) -> str:
    """The key of a chat's daily post job (its trailing ``:`` keeps one chat's key from being
    a prefix of another's, so cancelling by prefix cancels that chat's only)."""
    return f"daily:{platform}:{chat_id}:"


class DailyQuestions:
    """Each chat's daily question: the ``/daily`` command and the job that posts it."""

    def __init__(self, rounds: GroupRounds, scheduling: Scheduling) -> None:
        """Registers the post job with ``scheduling``'s scheduler, and gives ``rounds`` the
        streaks its daily reveals show."""
        self.rounds = rounds
        self.engine = rounds.engine
        self.store = scheduling.storage
        self.scheduler = scheduling.scheduler
        self.timezones = scheduling.timezones
        self.reachability = scheduling.reachability
        self.streaks = DailyStreaks(self.store)
        rounds.streaks = self.streaks
        self._listeners: dict[str, list[Listener]] = {}
        self.scheduler.register(DAILY_JOB, self._run)

    def on_posted(self, platform: str, listener: Listener) -> None:
        """Call ``listener`` with each daily question this process opens on ``platform``
        (its round driver starts on it at once; other replicas' find it within a lease)."""
        self._listeners.setdefault(platform, []).append(listener)

    def _now(self) -> datetime:
        return self.engine.clock()

    # -- /daily -------------------------------------------------------------------------------

    async def command(
        self,
        platform: str,
        chat_id: str,
        who: Participant,
        words: Sequence[str],
        *,
        is_chat_admin: bool,
        chat_title: str | None = None,
        zone_chat: str | None = None,
    ) -> DailyReply:
        """``/daily [HH:MM [weekdays] [6h] [QUIZ ...] | off]`` in a chat: show the setting, or
        (a chat admin) set it or turn it off. Bad words change nothing and say why. The
        times are in ``zone_chat``'s zone (the chat's own unless given: a Discord channel
        keeps its server's)."""
        ui = await self.engine.interface_language(who)
        try:
            request = parse_daily(words, lambda word: self.engine.catalog.get(word) is not None)
        except DailyRequestError as error:
            if error.unknown_quiz is None:
                return _said(DailyOutcome.REFUSED, ui, error.key)
            notice = self.engine.unknown_quiz_notice(error.unknown_quiz, ui)
            return DailyReply(DailyOutcome.REFUSED, ui, notice)
        if request.action is DailyAction.SHOW:
            return await self.show(platform, chat_id, ui)
        if not is_chat_admin:
            return _said(DailyOutcome.REFUSED, ui, "daily_admins_only")
        if request.action is DailyAction.OFF:
            return await self.turn_off(platform, chat_id, who, ui)
        where = (platform, chat_id, zone_chat or chat_id)
        return await self.turn_on(where, who, request, ui, chat_title)

    async def show(self, platform: str, chat_id: str, language: str) -> DailyReply:
        """The chat's setting and its next post, or that it has none."""
        setting = await self.store.daily_setting(platform, chat_id)
        if setting is None or not setting.enabled:
            return _said(DailyOutcome.SHOWN, language, "daily_none")
        status = await self._status(setting, language)
        return DailyReply(DailyOutcome.SHOWN, language, status=status)

    async def turn_on(
        self,
        where: tuple[str, str, str],
        who: Participant,
        request: DailyRequest,
        language: str,
        chat_title: str | None,
    ) -> DailyReply:
        """Keep the setting of chat ``where`` (platform, chat id, the chat whose zone it
        keeps) and schedule its next post."""
        platform, chat_id, zone_chat = where
        assert request.at is not None
        if not question_pool(self._quizzes(request.quiz_ids)):
            return _said(DailyOutcome.REFUSED, language, "daily_no_questions")
        setting = DailySetting(
            platform=platform,
            chat_id=chat_id,
            enabled=True,
            at=request.at,
            weekdays_only=request.weekdays_only,
            quiz_ids=request.quiz_ids,
            close_minutes=int(request.open_for.total_seconds() // 60),
            language=language,
            chat_title=chat_title,
            set_by=who.user_id,
            updated_at=self._now(),
            zone_chat=zone_chat,
        )
        await self.store.set_daily(setting)
        zone = await self._reschedule(setting)
        status = await self._status(setting, language, zone)
        return _said(DailyOutcome.TURNED_ON, language, "daily_turned_on", status)

    async def turn_off(
        self, platform: str, chat_id: str, who: Participant, language: str
    ) -> DailyReply:
        """No more posts (a question open now stays open until it closes)."""
        setting = await self.store.daily_setting(platform, chat_id)
        await self.scheduler.cancel(job_key(platform, chat_id))
        if setting is None or not setting.enabled:
            return _said(DailyOutcome.TURNED_OFF, language, "daily_none")
        off = DailySetting(
            **{
                **setting.__dict__,
                "enabled": False,
                "set_by": who.user_id,
                "updated_at": self._now(),
            }
        )
        await self.store.set_daily(off)
        return _said(DailyOutcome.TURNED_OFF, language, "daily_turned_off")

    async def zone_changed(self, platform: str, zone_chat: str) -> None:
        """The time zone of ``zone_chat`` changed (``/timezone`` in a group or server): the
        daily questions keeping it are posted at their local time in the new zone."""
        for setting in await self.store.daily_settings(platform):
            if setting.enabled and setting.zone_place == zone_chat:
                await self._reschedule(setting)

    async def _reschedule(self, setting: DailySetting) -> ZoneInfo:
        """Schedule the setting's next post from now (replacing the one scheduled); the zone
        it is in."""
        zone = await self._zone(setting)
        due = self._next_post(setting, zone, self._now())
        await self.scheduler.schedule(self._job(setting, zone, due), replace=True)
        return zone

    async def _zone(self, setting: DailySetting) -> ZoneInfo:
        return await self.timezones.of_chat(setting.platform, setting.zone_place)

    async def _status(
        self, setting: DailySetting, language: str, zone: ZoneInfo | None = None
    ) -> DailyStatus:
        zone = zone or await self._zone(setting)
        due = self._next_post(setting, zone, self._now())
        titles = tuple(
            prepare(quiz.title.get(language), language)
            for quiz in self._quizzes(setting.quiz_ids)
            if setting.quiz_ids
        )
        return DailyStatus(
            at=setting.at,
            weekdays_only=setting.weekdays_only,
            zone=zone.key,
            quiz_titles=titles,
            close_minutes=setting.close_minutes,
            next_post=due,
            next_close=due + self._open_for(setting, zone, due),
        )

    # -- posting ------------------------------------------------------------------------------

    @staticmethod
    def _next_post(setting: DailySetting, zone: ZoneInfo, after: datetime) -> datetime:
        return next_local_time(after, setting.at, zone, weekdays_only=setting.weekdays_only)

    def _open_for(self, setting: DailySetting, zone: ZoneInfo, due: datetime) -> timedelta:
        """How long the question posted at ``due`` stays open: its setting's time, but never
        past the next post."""
        following = self._next_post(setting, zone, due)
        return min(timedelta(minutes=setting.close_minutes), following - due)

    def _job(self, setting: DailySetting, zone: ZoneInfo, due: datetime) -> NewJob:
        return NewJob(
            kind=DAILY_JOB,
            key=job_key(setting.platform, setting.chat_id),
            due_at=due,
            payload={"platform": setting.platform, "chat": setting.chat_id},
            # Run later than the question would have stayed open: skipped, not posted late.
            stale_after=self._open_for(setting, zone, due),
        )

    def _quizzes(self, quiz_ids: Sequence[str]) -> list[Quiz]:
        """The chosen quizzes still in the catalog (every quiz when none is chosen)."""
        catalog = self.engine.catalog
        if not quiz_ids:
            return list(catalog.all())
        return [quiz for quiz in map(catalog.get, quiz_ids) if quiz is not None]

    async def _run(self, run: JobRun) -> JobOutcome:
        """The post job of a chat: post the day's question (unless the setting changed since,
        or the job runs past the question's window), then schedule the next post from now."""
        platform, chat_id = str(run.job.payload["platform"]), str(run.job.payload["chat"])
        setting = await self.store.daily_setting(platform, chat_id)
        if setting is None or not setting.enabled:
            return JobOutcome()  # turned off meanwhile: no next post
        if await self._unreachable(setting):
            await self._turn_off_unreachable(setting)
            return JobOutcome()  # no next post: the bot cannot post there
        zone = await self._zone(setting)
        due = run.job.due_at
        if not self._still_due(setting, zone, due):
            log.info("daily %s:%s: its time or zone changed; rescheduled", platform, chat_id)
        elif run.stale:
            log.info(
                "daily %s:%s: missed by %s, past its window: skipped", platform, chat_id, run.late
            )
        else:
            await self.post(setting, zone, due)
        following = self._next_post(setting, zone, run.now)
        return JobOutcome(next_job=self._job(setting, zone, following))

    async def _unreachable(self, setting: DailySetting) -> bool:
        """Whether the chat is marked as one the bot cannot post in (and nobody has talked
        to the bot there since)."""
        await self.reachability.refresh()
        return self.reachability.is_marked(setting.platform, setting.chat_id, to_user=False)

    async def _turn_off_unreachable(self, setting: DailySetting) -> None:
        off = dataclasses.replace(setting, enabled=False, updated_at=self._now())
        await self.store.set_daily(off)
        log.warning(
            "daily %s:%s: the bot can no longer post in this chat; its daily question is "
            "turned off (an admin turns it on again with /daily)",
            setting.platform,
            setting.chat_id,
        )

    def _still_due(self, setting: DailySetting, zone: ZoneInfo, due: datetime) -> bool:
        """Whether ``due`` is one of the setting's post times in ``zone`` (the chat's zone, or
        the setting, may have changed since the job was scheduled)."""
        day = due.astimezone(zone).date()
        if setting.weekdays_only and day.weekday() >= SATURDAY:
            return False
        return at_local(day, setting.at, zone) == due

    async def post(
        self, setting: DailySetting, zone: ZoneInfo, due: datetime
    ) -> RoundQuestion | None:
        """Open the question of the day whose post was due at ``due`` (once: a day already
        posted is left as it is); None when there is nothing to post."""
        now = self._now()
        closes = due + self._open_for(setting, zone, due)
        if now >= closes:
            return None
        day = due.astimezone(zone).date()
        new = await self._new_post(setting, zone, due, now, closes)
        if new is None:
            log.warning("daily %s:%s: no question to ask", setting.platform, setting.chat_id)
            return None
        post, new_round = new
        try:
            _, round_, _ = await self.store.open_daily_post(post, new_round)
        except StorageError:
            # The previous day's question is still open: the next post closes it (its reveal
            # goes through the round outbox), then opens today's.
            await self._close_previous(setting)
            _, round_, _ = await self.store.open_daily_post(post, new_round)
        question = await self.rounds.question_of(round_)
        if question is not None:
            log.info(
                "daily %s:%s: posted %s for %s",
                setting.platform,
                setting.chat_id,
                post.question_id,
                day,
            )
            for listener in self._listeners.get(setting.platform, []):
                listener(question)
        return question

    async def _new_post(
        self, setting: DailySetting, zone: ZoneInfo, due: datetime, now: datetime, closes: datetime
    ) -> tuple[NewDailyPost, NewRound] | None:
        """The day's question (not asked yet in this cycle) and the round that asks it."""
        day = due.astimezone(zone).date()
        cycle, asked = await self.store.daily_cycle(setting.platform, setting.chat_id)
        pool = question_pool(self._quizzes(setting.quiz_ids))
        choice = choose_question(
            pool, cycle, asked, day_seed(setting.platform, setting.chat_id, day)
        )
        quiz = self.engine.catalog.get(choice.quiz_id) if choice else None
        if choice is None or quiz is None:
            return None
        starter = Participant(setting.platform, setting.set_by)
        plan = self.engine.plan_attempt(
            starter, quiz, setting.chat_id, question_ids=[choice.question_id]
        )
        language = quiz.shown_language(setting.language)
        new_round = NewRound(
            platform=setting.platform,
            chat_id=setting.chat_id,
            quiz_id=quiz.id,
            starter_id=setting.set_by,
            language=language,
            question_order=(choice.question_id,),
            option_order=plan.option_order,
            time_limit_seconds=max(1, int((closes - now).total_seconds())),
            started_at=now,
            quiz_version=quiz.version,
            kind=RoundKind.DAILY,
            time_zone=zone.key,
        )
        post = NewDailyPost(
            setting.platform, setting.chat_id, day, choice.cycle, quiz.id, choice.question_id, due
        )
        return post, new_round

    async def _close_previous(self, setting: DailySetting) -> None:
        previous: RoundRecord | None = await self.store.active_round(
            setting.platform, setting.chat_id, RoundKind.DAILY
        )
        if previous is not None:
            await self.rounds.close(previous.id, previous.current)


def _said(
    outcome: DailyOutcome, language: str, key: str, status: DailyStatus | None = None
) -> DailyReply:
    """A reply whose notice is the daily string ``key``."""
    return DailyReply(outcome, language, daily_t(key, language), status, key)
