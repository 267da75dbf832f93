"""The scheduler and the outbox poster on both backends, on a manual clock: a job runs once at
its due time and its messages are posted once; a process down past a due time runs it once
(a stale one is skipped); failures retry with a bound; replicas never run a job twice; an
unreachable recipient is not tried again until they talk to the bot."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, time, timedelta
from typing import cast

from bot.scheduling import (
    JobOutcome,
    JobRun,
    NewJob,
    NewMessage,
    PosterTiming,
    SchedulerTiming,
    Scheduling,
    SendResult,
)
from bot.scheduling.timezones import next_local_time
from bot.storage import Storage
from bot.storage.scheduling import MessageStatus
from fakes.clock import ManualClock
from fakes.recording_sender import RecordingSender
from tests.conftest import OpenStorage

T0 = datetime(2026, 3, 1, 8, 0, tzinfo=UTC)
DAY = 24 * 3600


def daily(run: JobRun) -> JobOutcome:
    """A job posting its payload's text, then again tomorrow at 09:00 UTC."""
    job = run.job
    note = NewMessage("chat", "100", "note", f"{job.key}@{job.due_at:%Y%m%d}", dict(job.payload))
    following = next_local_time(run.now, time(9, 0), UTC)
    return JobOutcome([note], NewJob(job.kind, job.key, following, job.payload, job.stale_after))


async def daily_handler(run: JobRun) -> JobOutcome:
    return daily(run)


def build(storage: Storage, clock: ManualClock, owner: str = "r1") -> Scheduling:
    scheduling = Scheduling(
        storage,
        clock,
        owner=owner,
        scheduler_timing=SchedulerTiming(retries=3, retry_base=60),
        poster_timing=PosterTiming(max_attempts=3, retry_base=30),
    )
    scheduling.scheduler.register("daily", daily_handler)
    return scheduling


async def test_a_job_runs_once_when_due_and_then_tomorrow(any_storage: Storage) -> None:
    clock = ManualClock(T0)
    scheduling = build(any_storage, clock)
    scheduler, sender = scheduling.scheduler, RecordingSender()
    poster = scheduling.poster(sender)
    first = NewJob("daily", "daily:chat:100", T0.replace(hour=9), {"text": "hello"})
    assert await scheduler.schedule(first)
    assert not await scheduler.schedule(first)  # idempotent
    assert await scheduler.run_due() == 0  # not due yet
    clock.advance(3600)
    assert await scheduler.run_due() == 1
    assert await scheduler.run_due() == 0  # once
    assert await poster.post_due() == 1
    assert await poster.post_due() == 0
    assert sender.texts() == ["hello"]
    job = await scheduler.get("daily:chat:100")
    assert job is not None and job.due_at == T0.replace(day=2, hour=9)
    (sent,) = await any_storage.outgoing_messages()
    assert sent.status is MessageStatus.SENT and sent.message_id == "1"


async def test_a_process_down_for_days_runs_a_job_once_then_resumes_the_rhythm(
    any_storage: Storage,
) -> None:
    clock = ManualClock(T0)
    scheduling = build(any_storage, clock)
    await scheduling.scheduler.schedule(NewJob("daily", "d", T0.replace(hour=9), {"text": "x"}))
    clock.advance(3 * DAY + 3600)  # down from before 09:00 on day 1 to 10:00 on day 4
    assert await scheduling.scheduler.run_due() == 1
    assert await scheduling.scheduler.run_due() == 0  # no catch-up flood
    assert len(await any_storage.outgoing_messages()) == 1
    job = await scheduling.scheduler.get("d")
    assert job is not None and job.due_at == datetime(2026, 3, 5, 9, 0, tzinfo=UTC)


async def test_a_stale_job_is_skipped_but_keeps_its_rhythm(any_storage: Storage) -> None:
    clock = ManualClock(T0)
    scheduling = build(any_storage, clock)
    window = timedelta(hours=2)
    due = T0.replace(hour=9)
    await scheduling.scheduler.schedule(NewJob("daily", "d", due, {"text": "x"}, window))
    clock.advance(3600 + 2 * 3600 + 60)  # 11:01: more than two hours late
    assert await scheduling.scheduler.run_due() == 1
    assert await any_storage.outgoing_messages() == []  # skipped, not sent late
    job = await scheduling.scheduler.get("d")
    assert job is not None and job.due_at == due + timedelta(days=1)
    clock.advance(DAY - 2 * 3600)  # 09:01 the next day: on time again
    assert await scheduling.scheduler.run_due() == 1
    assert len(await any_storage.outgoing_messages()) == 1


async def test_a_failing_handler_is_retried_with_backoff_then_dropped(
    any_storage: Storage,
) -> None:
    clock = ManualClock(T0)
    scheduling = build(any_storage, clock)
    runs: list[datetime] = []

    async def broken(run: JobRun) -> JobOutcome:
        runs.append(run.now)
        raise RuntimeError("the database of quizzes is away")

    scheduling.scheduler.register("broken", broken)
    await scheduling.scheduler.schedule(NewJob("broken", "b", T0))
    for _ in range(10):
        await scheduling.scheduler.run_due()
        clock.advance(60)
    assert runs == [T0, T0 + timedelta(seconds=60), T0 + timedelta(seconds=180)]
    assert await scheduling.scheduler.get("b") is None  # dropped after 3 runs


async def test_cancelling_by_prefix_stops_every_job_of_a_thing(any_storage: Storage) -> None:
    clock = ManualClock(T0)
    scheduling = build(any_storage, clock)
    for key in ("a:1:24h", "a:1:1h", "a:12:1h"):
        await scheduling.scheduler.schedule(NewJob("daily", key, T0, {"text": key}))
    assert await scheduling.scheduler.cancel("a:1:") == 2
    assert await scheduling.scheduler.run_due() == 1
    assert [m.payload["text"] for m in await any_storage.outgoing_messages()] == ["a:12:1h"]


async def test_three_replicas_run_every_job_once(open_storage: OpenStorage) -> None:
    clock = ManualClock(T0)
    replicas = [build(await open_storage(), clock, f"r{n}") for n in range(3)]
    store = replicas[0].storage
    for n in range(40):
        await replicas[0].scheduler.schedule(NewJob("daily", f"d{n}", T0, {"text": str(n)}))
    while sum(await asyncio.gather(*(r.scheduler.run_due() for r in replicas))):
        pass
    queued = await store.outgoing_messages()
    assert sorted(int(m.payload["text"]) for m in queued) == list(range(40))
    senders = [RecordingSender() for _ in replicas]
    posters = [r.poster(s) for r, s in zip(replicas, senders, strict=True)]
    while sum(await asyncio.gather(*(p.post_due() for p in posters))):
        pass
    texts = [text for s in senders for text in s.texts()]
    assert sorted(map(int, texts)) == list(range(40))  # each once, across the replicas


async def test_a_killed_posters_messages_are_taken_over_after_the_lease(
    any_storage: Storage,
) -> None:
    clock = ManualClock(T0)
    scheduling = build(any_storage, clock)
    await any_storage.queue_messages([NewMessage("chat", "1", "note", "k", {"text": "a"})], T0)
    # A replica claimed it and died before sending: nothing is sent while its lease runs.
    assert await any_storage.claim_messages(
        "chat", ["note"], "dead", T0, T0 + timedelta(seconds=120), 9, 9
    )
    sender = RecordingSender()
    poster = scheduling.poster(sender)
    assert await poster.post_due() == 0
    clock.advance(120)
    assert await poster.post_due() == 1
    assert sender.texts() == ["a"]


async def test_an_unreachable_recipient_is_not_tried_again_until_they_talk_to_the_bot(
    any_storage: Storage,
) -> None:
    clock = ManualClock(T0)
    scheduling = build(any_storage, clock)
    blocked = SendResult.unreachable("Forbidden: bot was blocked by the user")
    sender = RecordingSender(answers={("7", True): [blocked]})
    poster = scheduling.poster(sender)
    dm = [NewMessage("chat", "7", "note", f"dm{n}", {"text": f"dm{n}"}, True) for n in range(3)]
    await any_storage.queue_messages([*dm, NewMessage("chat", "8", "note", "c", {"text": "c"})], T0)
    await poster.post_due()
    assert sender.texts() == ["c"] and [m.dedupe_key for m in sender.tries] == ["dm0", "c"]
    statuses = {m.dedupe_key: m.status for m in await any_storage.outgoing_messages()}
    assert statuses == {
        "dm0": MessageStatus.UNDELIVERABLE,
        "dm1": MessageStatus.UNDELIVERABLE,  # not tried: the recipient is unreachable
        "dm2": MessageStatus.UNDELIVERABLE,
        "c": MessageStatus.SENT,
    }
    # Another replica learns of the mark from the database.
    other = build(any_storage, clock, "r2")
    await other.reachability.refresh()
    assert other.reachability.is_marked("chat", "7", to_user=True)
    # Later messages to them are not tried either.
    await any_storage.queue_messages([NewMessage("chat", "7", "note", "dm3", {}, True)], T0)
    clock.advance(60)
    await poster.post_due()
    assert len(sender.tries) == 2
    # They press a button: the mark goes, and the next message is sent.
    sender.answers.clear()
    await other.reachability.seen("chat", "7")
    await scheduling.reachability.refresh(force=True)
    assert not scheduling.reachability.is_marked("chat", "7", to_user=True)
    await any_storage.queue_messages(
        [NewMessage("chat", "7", "note", "dm4", {"text": "back"}, True)], T0
    )
    await poster.post_due()
    assert sender.texts() == ["c", "back"]


async def test_failed_sends_retry_with_backoff_and_give_up_bounded(any_storage: Storage) -> None:
    clock = ManualClock(T0)
    scheduling = build(any_storage, clock)
    hiccup = SendResult.retry("HTTP 502")
    sender = RecordingSender(
        answers={("1", False): [hiccup], ("2", False): [SendResult.refused("400")]}
    )
    poster = scheduling.poster(sender)
    await any_storage.queue_messages(
        [NewMessage("chat", t, "note", t, {"text": t}) for t in ("1", "2")], T0
    )
    tried: list[datetime] = []
    for _ in range(12):
        before = len(sender.tries)
        await poster.post_due()
        if len(sender.tries) > before:
            tried.append(clock())
        clock.advance(10)
    # Tries at 0 s, then 30 s and 60 s later (doubling), then undeliverable after 3 tries.
    assert tried == [T0, T0 + timedelta(seconds=30), T0 + timedelta(seconds=90)]
    one, two = await any_storage.outgoing_messages()
    assert one.status is MessageStatus.UNDELIVERABLE and one.last_error is not None
    assert one.last_error.startswith("gave up after 3 tries") and one.attempts == 3
    assert two.status is MessageStatus.UNDELIVERABLE and two.attempts == 1  # refused: once


async def test_the_loops_run_and_post_on_their_own_as_the_clock_moves(any_storage: Storage) -> None:
    clock = ManualClock(T0)
    scheduling = build(any_storage, clock)
    sender = RecordingSender()
    poster = scheduling.poster(sender)
    scheduling.scheduler.start()
    poster.start()
    try:
        await scheduling.scheduler.schedule(
            NewJob("daily", "d", T0.replace(hour=9), {"text": "hi"})
        )
        await until(scheduling.settled)
        assert sender.texts() == []
        for _ in range(13):  # an hour, five minutes at a time
            clock.advance(300)
            await until(scheduling.settled)
        assert sender.texts() == ["hi"]
        clock.advance(DAY)
        await until(scheduling.settled)
        assert sender.texts() == ["hi", "hi"]
    finally:
        await scheduling.scheduler.stop()
        await poster.stop()


async def until(condition: object, within: float = 5.0) -> None:
    assert callable(condition)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    await asyncio.sleep(0)
    while not condition():
        assert loop.time() < deadline, "never settled"
        await asyncio.sleep(0.005)


def test_the_claim_lease_comes_from_the_environment() -> None:
    import pytest

    from quizbot.settings import ConfigError, Settings
    from tests.conftest import QUIZ_DIR

    base = {"QUIZ_DIR": str(QUIZ_DIR)}
    assert Settings.from_env(base).claim_lease_seconds == 60
    assert Settings.from_env(base | {"CLAIM_LEASE_SECONDS": "20"}).claim_lease_seconds == 20
    with pytest.raises(ConfigError) as error:
        Settings.from_env(base | {"CLAIM_LEASE_SECONDS": "1"})
    assert error.value.variable == "CLAIM_LEASE_SECONDS"
    clock = ManualClock(T0)
    timing = Scheduling.leased(cast(Storage, None), clock, 30).poster_timing
    assert timing is not None and (timing.lease, timing.send_timeout, timing.margin) == (30, 15, 5)
