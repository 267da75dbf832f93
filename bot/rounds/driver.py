"""Driving group rounds over time, for any chat platform.

The rounds service (:class:`bot.rounds.GroupRounds`) keeps every round in the database and
decides what happens; something still has to act when the time comes. A :class:`RoundDriver`
runs one task per round this process drives, which for each question:

1. waits until the question opens (the pause after the previous reveal) and posts it, or, after
   a restart, adopts the message a previous process posted (its id is kept in the storage's
   key-value table);
2. refreshes that message (countdown, answer count) at most once every
   :attr:`RoundTiming.edit_interval`, and only when it would show something new, so a burst of
   answers becomes one edit (a daily question, open for hours, shows when it closes instead
   of a countdown and is refreshed at most every :attr:`RoundTiming.daily_refresh`);
3. closes the question when its time is up, or early once everyone taking part answered it
   (:meth:`RoundDriver.on_answer`), takes its buttons off and posts the reveal; after the last
   question, the final ranking. The next question follows after the pause.

:meth:`RoundDriver.resume` carries on with every round a previous process left open (questions
whose time ran out meanwhile are revealed at once), :meth:`RoundDriver.shutdown` stops the
tasks and leaves the rounds in the database, :meth:`RoundDriver.stopped` halts a round that was
stopped early.

Several processes (replicas) may share one database. Each round is driven by one of them: the
holder of the round's lease (``Storage.claim_round``), which a keeper task renews every third of
:attr:`RoundTiming.lease`; when a holder dies, another replica's keeper takes the round over
once the lease ran out. Reveals and the final ranking are not posted straight from the close:
the close writes them to an outbox in the same transaction, and the driver posts unsent entries
(marking each sent after the platform accepted it), so a crash between close and post delays
a reveal but never loses it. The end of a round (its last close, or a stop) also queues the
copy of each member's answers into their own history: the process that ended the round copies
at once and marks the entry sent; if it died first, the next driver runs the copy (which skips
members already copied and finishes a half-done one) and marks it sent, posting nothing.
Answers any replica took are read from the database every :attr:`RoundTiming.poll`.

A platform subclasses the driver and implements the abstract hooks: how a question, a refresh,
a closed question, a reveal and a ranking look and are sent, and how the open question's message
is recorded. Time goes through a :class:`RoundClock`: the engine's clock and real sleeps by
default (:class:`SystemClock`, which can also run faster), or a
:class:`fakes.clock.ManualClock` that moves only when told to.
"""

from __future__ import annotations

import abc
import asyncio
import contextlib
import json
import logging
import os
import socket
import uuid
from collections.abc import Awaitable, Coroutine
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from bot.rounds.clock import RoundClock, SystemClock
from bot.rounds.service import GroupRounds
from bot.rounds.views import RoundEnd, RoundQuestion, RoundReveal
from bot.storage import OutboxEntry, OutboxKind, RoundKind, RoundStatus
from bot.views import Participant

KEEPER = 0  # the lease keeper's key among the sleepers (round ids start at 1)


def default_owner() -> str:
    """This process's name on the round leases it holds: host, pid and a random part (a pid
    is reused after a restart, a lease must not be)."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


class LeaseLost(Exception):
    """Another process drives the round now (this one stalled past its lease)."""


def message_scope(platform: str) -> str:
    """The key-value scope that maps a round id to the message showing its open question."""
    return f"{platform}:round-message"


@dataclass(frozen=True)
class RoundTiming:
    """The pace of group rounds, in seconds."""

    pause: float = 5.0  # between a reveal and the next question
    edit_interval: float = 5.0  # at most one refresh of the open question this often
    retry: float = 5.0  # after an unexpected error, carry on with the round this much later
    lease: float = 15.0  # a round's driver holds it this long, renewed every third of it
    poll: float = 2.0  # how often the open question's answers are read (other replicas')
    # A daily question is open for hours and shows when it closes, not a countdown: its
    # message is refreshed (the answer count) and its answers read at most this often.
    daily_refresh: float = 900.0


@dataclass
class LiveQuestion:
    """The open question of a round this process drives.

    Platforms that keep more about the question's message subclass it (see
    :meth:`RoundDriver.new_live`).
    """

    question: RoundQuestion
    message_id: int | None = None  # the message with its status and buttons, once posted
    answered: int = 0  # answers counted so far (from accepted answers)
    shown: str | None = None  # what that message shows (a key from RoundDriver.content)
    last_refresh: datetime | None = None  # when it was last posted or refreshed
    close_now: bool = False  # everyone taking part answered it (or it closed elsewhere)
    polled: datetime | None = None  # when its answers were last read from the database
    wake: asyncio.Event = field(default_factory=asyncio.Event)


L = TypeVar("L", bound=LiveQuestion)


class UnreachableMarks(Protocol):
    """Where a chat the bot can no longer post in is recorded: the outbox's unreachable
    recipients (:class:`bot.scheduling.reachability.Reachability`), which the features that
    post there on a schedule (the daily question, assignment recaps) consult."""

    async def mark(self, platform: str, target: str, to_user: bool, reason: str) -> None: ...


class RoundDriver(abc.ABC, Generic[L]):
    """Drives the group rounds of one platform in this process."""

    #: Errors of the platform meaning the round can no longer post in its chat (the bot was
    #: removed, say): the round is then ended rather than retried.
    fatal_errors: ClassVar[tuple[type[Exception], ...]] = ()

    def __init__(
        self,
        rounds: GroupRounds,
        platform: str,
        *,
        timing: RoundTiming | None = None,
        clock: RoundClock | None = None,
        owner: str | None = None,
    ) -> None:
        self.rounds = rounds
        self.store = rounds.store
        self.platform = platform
        self.owner = owner or default_owner()  # who this process is on round leases
        self.timing = timing or RoundTiming()
        self.clock: RoundClock = clock or SystemClock(rounds.engine.clock)
        self.message_scope = message_scope(platform)
        self.log = logging.getLogger(f"quizbot.{platform}")
        self._tasks: dict[int, asyncio.Task[None]] = {}  # round id -> its driver
        self._live: dict[int, L] = {}
        self._sleeping: dict[int, tuple[datetime, asyncio.Event]] = {}
        self._background: set[asyncio.Task[None]] = set()
        self._keeper: asyncio.Task[None] | None = None  # renews leases, takes over rounds
        self._foreign: dict[int, datetime] = {}  # rounds another process drives: until when
        # Told of a chat a round could not post in (the wiring sets it: the outbox's marks).
        self.unreachable: UnreachableMarks | None = None

    # -- what a platform implements ---------------------------------------------------------

    @abc.abstractmethod
    def new_live(self, question: RoundQuestion) -> L:
        """A fresh record of the open question ``question``."""

    @abc.abstractmethod
    def content(self, live: L, answered: int, seconds_left: float) -> str:
        """What the question's message would show with ``answered`` answers and
        ``seconds_left`` to go (may be negative), as a short key: equal keys mean the same
        message, so it is not refreshed."""

    @abc.abstractmethod
    async def post_question(self, live: L, answered: int, seconds_left: float) -> int | None:
        """Post the question that just opened; the id of the message with its status and
        buttons (the one :meth:`refresh` and :meth:`close_question` edit), if any."""

    @abc.abstractmethod
    async def refresh(self, live: L, answered: int, seconds_left: float) -> bool:
        """Edit the open question's message to show ``answered`` answers and
        ``seconds_left``; whether it now does (False: skipped, or it did not work)."""

    @abc.abstractmethod
    async def close_question(self, live: L, answered: int, outcome: RoundReveal | RoundEnd) -> None:
        """The question closed (revealed, or its round stopped): final count, buttons off."""

    @abc.abstractmethod
    async def post_reveal(self, reveal: RoundReveal, dedupe: str = "") -> int | None:
        """Post a closed question's answer, counts and scoreboard; the id of the (last)
        message, if known, which the outbox keeps. ``dedupe`` names this post, the same
        when it is posted again after a crash: a platform that can, makes a repeat a no-op."""

    @abc.abstractmethod
    async def post_end(self, end: RoundEnd, dedupe: str = "") -> int | None:
        """Post the final ranking of a round that ran to its end (the message id, if known)."""

    @abc.abstractmethod
    def message_fields(self, live: L) -> dict[str, object]:
        """What the stored record of the open question's message keeps besides its number
        and message id: at least ``live.shown`` (JSON values, under short keys)."""

    @abc.abstractmethod
    def adopt_fields(self, live: L, fields: dict[str, Any]) -> None:
        """Take ``shown`` (and the platform's own fields) from a stored record of ``live``'s
        question; KeyError, TypeError or ValueError when it is not usable."""

    def unreachable_reason(self, error: Exception) -> str | None:
        """Why the round's chat cannot be posted in, after one of :attr:`fatal_errors`
        (None: the error does not say so). By default every fatal error does."""
        return str(error) or type(error).__name__

    async def post_stopped(self, end: RoundEnd) -> None:
        """Post the ranking of a round stopped early (by default like :meth:`post_end`)."""
        await self.post_end(end)

    def pause_seconds(self, question: RoundQuestion) -> float:
        """The pause between revealing ``question`` and opening the next one."""
        return self.timing.pause

    # -- lifecycle ----------------------------------------------------------------------------

    async def resume(self) -> None:
        """Carry on with the rounds a previous process left running; a round whose quiz is
        gone is ended. Questions whose time ran out meanwhile are revealed at once."""
        rounds = self.rounds
        due = await rounds.due(self.platform)
        questions = await rounds.open_questions(self.platform)
        playable = {question.round_id for question in questions}
        for round_id, number in due:
            if round_id not in playable:  # its quiz is gone: closing ends it
                await rounds.close(round_id, number)
                await self.forget(round_id)
        for question in questions:
            self.ensure(question)
        if questions:
            self.log.info(
                "%s: resumed %d group rounds (%d overdue)", self.platform, len(questions), len(due)
            )
        await self._take_over_posts()
        self._start_keeper()

    async def shutdown(self) -> None:
        """Stop every timer and give up this process's leases; the rounds stay in the database
        for another replica (at once) or the next process."""
        held = list(self._tasks)
        keeper = [self._keeper] if self._keeper is not None else []
        tasks = [*self._tasks.values(), *self._background, *keeper]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._keeper = None
        for round_id in held:
            try:
                await self.store.release_round(round_id, self.owner)
            except Exception:  # the lease then runs out on its own
                self.log.warning("%s: could not release round %s", self.platform, round_id)
        self._tasks.clear()
        self._live.clear()
        self._sleeping.clear()
        self._background.clear()

    def ensure(self, question: RoundQuestion) -> None:
        """Run the round of ``question`` unless this process already does (and as long as it
        holds the round's lease: another replica may drive it)."""
        self._drive_round(question.round_id, question)

    def _drive_round(self, round_id: int, question: RoundQuestion | None) -> None:
        if round_id in self._tasks:
            return
        task = asyncio.create_task(self._drive(round_id, question), name=f"round-{round_id}")
        self._tasks[round_id] = task
        self._start_keeper()

    def running(self, round_id: int) -> bool:
        """Whether this process drives the round."""
        return round_id in self._tasks

    def settled(self) -> bool:
        """Whether every round is waiting for the clock, with nothing to do before it moves
        (what tests driving a virtual clock wait for)."""
        if self._background:
            return False
        now = self.clock()
        if self._keeper is not None and not self._keeper.done():
            sleeping = self._sleeping.get(KEEPER)
            if sleeping is None or sleeping[0] <= now or sleeping[1].is_set():
                return False
        for round_id, task in self._tasks.items():
            if task.done():
                continue
            sleeping = self._sleeping.get(round_id)
            if sleeping is None or sleeping[0] <= now or sleeping[1].is_set():
                return False
        return True

    # -- events from the handlers -------------------------------------------------------------

    def on_answer(self, round_id: int, number: int, answered: int, everyone: bool) -> None:
        """An accepted answer: count it (shown at the next refresh) and close the question
        early when everyone taking part has answered it."""
        live = self._live.get(round_id)
        if live is None:
            # A round another replica started, or whose driver ended on an error: drive it
            # unless another replica was found driving it a moment ago.
            foreign = self._foreign.get(round_id)
            if round_id not in self._tasks and (foreign is None or foreign <= self.clock()):
                self._spawn(self._adopt(round_id))
            return
        if live.question.number != number:
            return
        live.answered = max(live.answered, answered)
        # On question 1 everyone who answered is everyone taking part: closing then would
        # shut out all but the fastest member.
        if everyone and number > 1:
            live.close_now = True
        live.wake.set()

    def stopped(self, end: RoundEnd) -> Awaitable[object]:
        """The round was stopped: halt its driver now, so nothing more is posted for it, then
        close its open question and post :meth:`post_stopped` in the background.

        Returns at once; await the result to wait until the driver has halted.
        """
        task = self._tasks.pop(end.round_id, None)
        if task is not None:
            task.cancel()
        live = self._live.pop(end.round_id, None)
        self._sleeping.pop(end.round_id, None)
        self._spawn(self._finish_stopped(task, live, end))
        return asyncio.gather(*([task] if task else []), return_exceptions=True)

    async def _finish_stopped(
        self, task: asyncio.Task[None] | None, live: L | None, end: RoundEnd
    ) -> None:
        if task is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        try:
            if live is not None:
                await self._close(live, live.answered, end)
            await self.post_stopped(end)
            await self.forget(end.round_id)
            await self.store.release_round(end.round_id, self.owner)
        except Exception:
            self.log.exception("%s: could not close stopped round %s", self.platform, end.round_id)

    # -- the driver ---------------------------------------------------------------------------

    async def _drive(self, round_id: int, question: RoundQuestion | None) -> None:
        """Drive one round while this process holds its lease: first post what a previous
        driver left in the outbox, then play its questions to the end."""
        finished = False
        try:
            if not await self._claim(round_id):
                self._foreign[round_id] = self.clock() + self._renew_every
                return
            self._foreign.pop(round_id, None)
            self.log.info("%s: driving round %s (%s)", self.platform, round_id, self.owner)
            await self._play_from(await self._pick_up(round_id), round_id)
            finished = True
        except LeaseLost:
            self.log.info("%s: round %s is driven by another process now", self.platform, round_id)
        except self.fatal_errors as error:
            self.log.warning("%s: round %s cannot post (%s)", self.platform, round_id, error)
            await self._abandon(round_id, error)
            finished = True
        except Exception:
            self.log.exception("%s: round %s stopped running", self.platform, round_id)
        finally:
            if self._tasks.get(round_id) is asyncio.current_task():
                del self._tasks[round_id]
                self._live.pop(round_id, None)
                self._sleeping.pop(round_id, None)
        if finished:  # nothing left to drive (or post): another process need not wait
            with contextlib.suppress(Exception):
                await self.store.release_round(round_id, self.owner)

    async def _pick_up(self, round_id: int) -> RoundQuestion | None:
        """Post what the round's outbox still owes, then its open question (None: over)."""
        try:
            await self._flush(round_id)
            return await self.rounds.open_question(round_id)
        except self._not_retried:
            raise
        except Exception:
            self.log.exception("%s: round %s failed; carrying on shortly", self.platform, round_id)
            return await self._recover(round_id)

    async def _play_from(self, current: RoundQuestion | None, round_id: int) -> None:
        """Play the round's questions from ``current`` to its end; an error of the platform
        that means the chat is gone ends the round, any other error is retried shortly."""
        while current is not None:
            try:
                current = await self._play(current)
            except LeaseLost:
                raise
            except self.fatal_errors as error:
                self.log.warning(
                    "%s: round %s cannot post (%s); ending it", self.platform, round_id, error
                )
                await self._abandon(round_id, error)
                current = None
            except Exception:
                self.log.exception(
                    "%s: round %s failed; carrying on shortly", self.platform, round_id
                )
                current = await self._recover(round_id)

    async def _play(self, question: RoundQuestion) -> RoundQuestion | None:
        """Show one question until its time is up (or everyone answered), reveal it; the next
        question, or None when the round is over."""
        round_id = question.round_id
        live = self.new_live(question)
        self._live[round_id] = live
        await self._show(live)
        await self._countdown(live)
        pause = self.pause_seconds(question)
        reveal = await self.rounds.close(round_id, question.number, pause_seconds=pause)
        self._live.pop(round_id, None)
        if reveal is None:
            return await self._closed_elsewhere(live)
        await self._close(live, sum(c.count for c in reveal.counts), reveal)
        if reveal.post_id is not None:  # queued by this close: post the reveal built with it
            await self._post_owed(reveal.post_id, self.post_reveal(reveal, f"qb{reveal.post_id}"))
        if reveal.finished:
            await self._flush(round_id)  # the ranking (and the history copy, if still owed)
        if reveal.finished or reveal.next_question is None:
            await self.forget(round_id)
            return None
        return reveal.next_question

    async def _closed_elsewhere(self, live: L) -> RoundQuestion | None:
        """The question was not open any more when its time came: the round was stopped (on
        another replica: take the buttons off), or it moved on (carry on from there)."""
        rounds, round_id = self.rounds, live.question.round_id
        round_ = await self.store.get_round(round_id)
        if round_ is None:
            return None
        if round_.status is RoundStatus.STOPPED and round_.current == live.question.number:
            await self._close(live, live.answered, await rounds.ending(round_id, stopped=True))
            await self.forget(round_id)
            return None
        await self._flush(round_id)
        return await rounds.open_question(round_id)

    async def _flush(self, round_id: int) -> None:
        """Post the round's unsent outbox entries in order, each marked sent (with its message
        id) once the platform accepted it; a crash in between posts it again, never loses it.
        A history entry posts nothing: the members' history is copied (a no-op when the
        process that ended the round did it already), then the entry is marked sent."""
        for entry in await self.store.unsent_outbox(self.platform, round_id):
            if not await self._claim(round_id):  # a stalled driver must not post twice
                raise LeaseLost(round_id)
            await self._post_owed(entry.id, self._post_entry(entry))

    async def _post_entry(self, entry: OutboxEntry) -> int | None:
        """Post what ``entry`` owes (rebuilt from the database); the message id, if any."""
        rounds, round_id = self.rounds, entry.round_id
        if entry.kind is OutboxKind.REVEAL:
            reveal = await rounds.reveal(round_id, entry.number)
            return None if reveal is None else await self.post_reveal(reveal, f"qb{entry.id}")
        if entry.kind is OutboxKind.END:
            return await self.post_end(await rounds.ending(round_id), f"qb{entry.id}")
        await rounds.copy_history(round_id)  # OutboxKind.HISTORY: posts nothing
        return None

    async def _post_owed(self, entry_id: int, post: Awaitable[int | None]) -> None:
        """Run the post an outbox entry owes, then mark the entry sent with its message id."""
        try:
            message_id = await post
        except self.fatal_errors:
            # Undeliverable for good (the bot left the chat): do not retry it forever.
            await self.store.mark_outbox_sent(entry_id, self.clock(), None)
            raise
        sent = None if message_id is None else str(message_id)
        await self.store.mark_outbox_sent(entry_id, self.clock(), sent)

    async def _show(self, live: L) -> None:
        """Post the question when it opens, or adopt the message a previous process posted."""
        question = live.question
        if await self._recall(live):
            live.answered = await self._count(question)
            # When the previous process last refreshed is unknown: wait a full interval.
            live.last_refresh = self.clock()
            return
        while self.clock() < question.opens_at:
            live.wake.clear()
            await self._sleep(live, question.opens_at)
        if self.clock() >= question.deadline:
            return  # its time ran out while no process ran the round: just reveal it
        live.answered = answered = await self._count(question)
        left = self._left(question.deadline)
        message_id = await self.post_question(live, answered, left)
        if message_id is None:
            return
        live.message_id, live.last_refresh = message_id, self.clock()
        live.shown = self.content(live, answered, left)
        await self._remember(live)

    async def _countdown(self, live: L) -> None:
        """Wait for the deadline or an early close, refreshing the question's message at most
        once an interval and only when it would show something new: answers in between are
        coalesced into one refresh."""
        interval, poll = self._pace(live.question)
        deadline = live.question.deadline
        while True:
            live.wake.clear()
            now = self.clock()
            if live.close_now or now >= deadline:
                return
            if live.polled is None or live.polled > now:
                live.polled = now
            elif live.polled + poll <= now:
                await self._poll(live)
                continue
            if live.last_refresh is None or live.last_refresh > now:  # (a clock set back)
                live.last_refresh = now
            due = live.last_refresh + interval
            if due <= now:
                if self._news(live, now):
                    await self._refresh(live, now)
                    continue
                due = now + interval  # nothing new yet: a countdown may change by then
            until = min(deadline, due) if self._news(live, due) else deadline
            await self._sleep(live, min(until, live.polled + poll))

    def _pace(self, question: RoundQuestion) -> tuple[timedelta, timedelta]:
        """How often the open question's message may be refreshed, and how often its answers
        are read: a daily question, open for hours, far less often than a round's."""
        if question.kind is RoundKind.DAILY:
            slow = timedelta(seconds=self.timing.daily_refresh)
            return slow, slow
        return timedelta(seconds=self.timing.edit_interval), timedelta(seconds=self.timing.poll)

    async def _poll(self, live: L) -> None:
        """Read the open question's answers: presses other replicas took count too, and it
        closes early when everyone answered there, or at once when it closed elsewhere."""
        question = live.question
        answered, everyone, still_open = await self.rounds.progress(
            question.round_id, question.number
        )
        live.polled = self.clock()
        live.answered = max(live.answered, answered)
        if not still_open or (everyone and question.number > 1):
            live.close_now = True

    def _news(self, live: L, at: datetime) -> bool:
        """Whether the question's message would show something else at ``at``."""
        if live.message_id is None:
            return False
        left = (live.question.deadline - at).total_seconds()
        return self.content(live, live.answered, left) != live.shown

    async def _refresh(self, live: L, now: datetime) -> None:
        answered, left = live.answered, (live.question.deadline - now).total_seconds()
        shown = self.content(live, answered, left)
        live.last_refresh = now
        if await self.refresh(live, answered, left):
            live.shown = shown
            await self._remember(live)

    async def _close(self, live: L, answered: int, outcome: RoundReveal | RoundEnd) -> None:
        if live.message_id is None:
            return
        await self.close_question(live, answered, outcome)
        live.message_id = None

    async def _count(self, question: RoundQuestion) -> int:
        answers = await self.store.round_answers(question.round_id)
        return sum(1 for a in answers if a.number == question.number)

    async def _recover(self, round_id: int) -> RoundQuestion | None:
        """After an error: wait, then carry on from the round's open question (if any), after
        posting what its outbox still owes."""
        while True:
            until = self.clock() + timedelta(seconds=self.timing.retry)
            await self._sleep_for(round_id, until, asyncio.Event())
            try:
                await self._flush(round_id)
                return await self.rounds.open_question(round_id)
            except self._not_retried:
                raise
            except Exception:
                self.log.warning(
                    "%s: round %s: storage unavailable", self.platform, round_id, exc_info=True
                )

    async def _adopt(self, round_id: int) -> None:
        try:
            question = await self.rounds.open_question(round_id)
        except Exception:
            self.log.exception("%s: could not pick up round %s", self.platform, round_id)
            return
        if question is not None and question.platform == self.platform:
            self.ensure(question)

    async def _abandon(self, round_id: int, error: Exception) -> None:
        """End a round whose chat the bot can no longer post in, and record the chat as
        unreachable (:attr:`unreachable`), so that nothing is posted there on a schedule
        until someone talks to the bot in it again."""
        try:
            rounds = self.rounds
            round_ = await self.store.get_round(round_id)
            if round_ is not None and round_.status is RoundStatus.ACTIVE:
                starter = Participant(self.platform, round_.starter_id)
                await rounds.stop(
                    self.platform, round_.chat_id, starter, is_chat_admin=True, kind=round_.kind
                )
            await self.forget(round_id)
            reason = self.unreachable_reason(error)
            if round_ is not None and reason is not None and self.unreachable is not None:
                await self.unreachable.mark(self.platform, round_.chat_id, False, reason)
        except Exception:
            self.log.exception("%s: could not end round %s", self.platform, round_id)

    # -- leases: which replica drives a round -------------------------------------------------

    @property
    def _not_retried(self) -> tuple[type[Exception], ...]:
        return (LeaseLost, *self.fatal_errors)

    @property
    def _renew_every(self) -> timedelta:
        return timedelta(seconds=self.timing.lease / 3)

    async def _claim(self, round_id: int) -> bool:
        """Take or renew the round's lease; False while another live process holds it."""
        now = self.clock()
        until = now + timedelta(seconds=self.timing.lease)
        return await self.store.claim_round(round_id, self.owner, now, until)

    def _start_keeper(self) -> None:
        if self._keeper is None or self._keeper.done():
            self._keeper = asyncio.create_task(self._keep(), name=f"{self.platform}-round-leases")

    async def _keep(self) -> None:
        """Every third of a lease: renew the leases of the rounds driven here (a round whose
        lease another process took is let go), then take over rounds, and posts, whose
        driver died."""
        wake = asyncio.Event()
        until = self.clock() + self._renew_every
        while True:
            wake.clear()
            if self.clock() < until:
                await self._sleep_for(KEEPER, until, wake)
                continue
            until = self.clock() + self._renew_every
            try:
                for round_id, task in list(self._tasks.items()):
                    if not task.done() and not await self._claim(round_id):
                        self.log.warning("%s: lost the lease of round %s", self.platform, round_id)
                        task.cancel()
                for question in await self.rounds.open_questions(self.platform):
                    self.ensure(question)
                await self._take_over_posts()
            except Exception:  # the database is away: try again next time
                self.log.warning("%s: renewing round leases failed", self.platform, exc_info=True)

    async def _take_over_posts(self) -> None:
        """Drive the rounds with posts left unsent (a driver died after a close): they are
        posted by whoever takes the round's lease."""
        for entry in await self.store.unsent_outbox(self.platform):
            self._drive_round(entry.round_id, None)

    async def _remember(self, live: L) -> None:
        """Record which message shows the open question, for a restarted process."""
        if live.message_id is None or live.shown is None:
            return
        record = {"v": 1, "n": live.question.number, "m": live.message_id}
        raw = json.dumps(record | self.message_fields(live))
        await self.store.set_value(self.message_scope, str(live.question.round_id), raw)

    async def _recall(self, live: L) -> bool:
        """Adopt the message a previous process posted for the open question, if any."""
        raw = await self.store.get_value(self.message_scope, str(live.question.round_id))
        if not raw:
            return False
        try:
            record = json.loads(raw)
            if int(record["n"]) != live.question.number:
                return False
            message_id = int(record["m"])
            self.adopt_fields(live, record)
        except (ValueError, KeyError, TypeError):
            return False
        live.message_id = message_id
        return True

    async def forget(self, round_id: int) -> None:
        await self.store.set_value(self.message_scope, str(round_id), None)

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coroutine)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # -- time ---------------------------------------------------------------------------------

    def _left(self, when: datetime) -> float:
        """Seconds from now until ``when``."""
        return (when - self.clock()).total_seconds()

    async def _sleep(self, live: L, until: datetime) -> None:
        await self._sleep_for(live.question.round_id, until, live.wake)

    async def _sleep_for(self, round_id: int, until: datetime, wake: asyncio.Event) -> None:
        self._sleeping[round_id] = (until, wake)
        try:
            await self.clock.sleep(until, wake)
        finally:
            self._sleeping.pop(round_id, None)
