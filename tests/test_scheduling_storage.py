"""The scheduling port on both backends: jobs scheduled once per key, claimed by one replica
for a lease, completed with their messages in one step only while the claim holds; the outbox
of outgoing messages claimed, sent once, retried or undeliverable; unreachable recipients."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from bot.storage import Storage
from bot.storage.scheduling import MessageStatus, NewJob, NewMessage
from tests.conftest import OpenStorage

T0 = datetime(2026, 3, 1, 8, 0, tzinfo=UTC)
LEASE = timedelta(seconds=30)


def job(key: str, minutes: float = 0, **fields: object) -> NewJob:
    payload = {"n": 1, "who": ["a", "b"]}
    return NewJob("ping", key, T0 + timedelta(minutes=minutes), payload, **fields)  # type: ignore[arg-type]


def message(key: str, target: str = "100", **fields: object) -> NewMessage:
    return NewMessage("chat", target, "note", key, {"text": key}, **fields)  # type: ignore[arg-type]


async def test_a_key_is_one_job_and_replace_moves_it(any_storage: Storage) -> None:
    assert await any_storage.schedule_job(job("a:1", 5), T0)
    assert not await any_storage.schedule_job(job("a:1", 9), T0)  # idempotent
    stored = await any_storage.get_job("a:1")
    assert stored is not None and stored.due_at == T0 + timedelta(minutes=5)
    assert stored.payload == {"n": 1, "who": ["a", "b"]} and stored.claim is None
    assert await any_storage.schedule_job(job("a:1", 9), T0, replace=True)
    moved = await any_storage.get_job("a:1")
    assert moved is not None and moved.due_at == T0 + timedelta(minutes=9)
    assert moved.id == stored.id
    assert await any_storage.get_job("a:2") is None


async def test_due_jobs_are_claimed_earliest_first_and_held_for_the_lease(
    any_storage: Storage,
) -> None:
    for key, minutes in (("late", 3), ("early", 1), ("future", 60)):
        await any_storage.schedule_job(job(key, minutes), T0)
    now = T0 + timedelta(minutes=5)
    assert await any_storage.next_job_due() == T0 + timedelta(minutes=1)
    claimed = await any_storage.claim_jobs("r1", now, now + LEASE, 10)
    assert [j.key for j in claimed] == ["early", "late"]
    assert all(j.claim == "r1" and j.claimed_until == now + LEASE for j in claimed)
    assert await any_storage.claim_jobs("r2", now, now + LEASE, 10) == []  # held
    await any_storage.schedule_job(NewJob("other", "o", T0), T0)
    assert await any_storage.claim_jobs("r2", now, now + LEASE, 10, ["ping"]) == []
    (other,) = await any_storage.claim_jobs("r2", now, now + LEASE, 10, ["other", "x"])
    assert other.key == "o" and await any_storage.complete_job(other, now)
    assert await any_storage.next_job_due() == now + LEASE  # (the claims run out first)
    # The holder died: once the lease ran out another replica takes them over.
    later = now + LEASE
    taken = await any_storage.claim_jobs("r2", later, later + LEASE, 1)
    assert [j.key for j in taken] == ["early"]
    assert not await any_storage.complete_job(claimed[0], later)  # r1's claim is void
    assert await any_storage.complete_job(taken[0], later)
    assert await any_storage.get_job("early") is None


async def test_replicas_claiming_at_once_get_different_jobs(open_storage: OpenStorage) -> None:
    first = await open_storage()
    replicas = [first, await open_storage(), await open_storage()]
    for n in range(30):
        await first.schedule_job(job(f"j:{n}"), T0)
    now = T0 + timedelta(seconds=1)
    batches = await asyncio.gather(
        *(
            r.claim_jobs(f"r{i}", now, now + LEASE, 7)
            for i, r in enumerate(replicas * 3)  # three claims from each replica
        )
    )
    keys = [j.key for batch in batches for j in batch]
    assert len(keys) == len(set(keys)) == 30


async def test_completing_writes_the_messages_and_the_next_job_in_one_step(
    any_storage: Storage,
) -> None:
    await any_storage.schedule_job(job("daily:1"), T0)
    (claimed,) = await any_storage.claim_jobs("r1", T0, T0 + LEASE, 5)
    tomorrow = job("daily:1", 24 * 60)
    sent = [message("m:1"), message("m:2", "7", to_user=True)]
    assert await any_storage.complete_job(claimed, T0, sent, tomorrow)
    assert not await any_storage.complete_job(claimed, T0, [message("m:3")])  # once
    again = await any_storage.get_job("daily:1")
    assert again is not None and again.due_at == T0 + timedelta(days=1) and again.claim is None
    queued = await any_storage.outgoing_messages("m:")
    assert [(m.dedupe_key, m.target, m.to_user, m.status) for m in queued] == [
        ("m:1", "100", False, MessageStatus.PENDING),
        ("m:2", "7", True, MessageStatus.PENDING),
    ]
    assert queued[0].payload == {"text": "m:1"} and queued[0].created_at == T0
    # The next job may have another key: the claimed one is removed.
    (claimed,) = await any_storage.claim_jobs(
        "r1", T0 + timedelta(days=1), T0 + timedelta(days=2), 5
    )
    assert await any_storage.complete_job(claimed, T0, [message("m:1")], job("daily:2", 3000))
    assert await any_storage.get_job("daily:1") is None
    assert await any_storage.get_job("daily:2") is not None
    assert len(await any_storage.outgoing_messages("m:")) == 2  # m:1 was queued already


async def test_a_cancelled_or_replaced_job_does_not_complete(any_storage: Storage) -> None:
    for key in ("assignment:7:remind:24h", "assignment:7:remind:1h", "assignment:70:remind:1h"):
        await any_storage.schedule_job(job(key), T0)
    await any_storage.schedule_job(job("assignment_7"), T0)  # "_" is not a wildcard
    claimed = await any_storage.claim_jobs("r1", T0, T0 + LEASE, 10)
    assert await any_storage.cancel_jobs("assignment:7:") == 2
    assert await any_storage.get_job("assignment:70:remind:1h") is not None
    assert await any_storage.get_job("assignment_7") is not None
    by_key = {j.key: j for j in claimed}
    assert not await any_storage.complete_job(by_key["assignment:7:remind:1h"], T0, [message("x")])
    assert await any_storage.outgoing_messages("x") == []
    await any_storage.schedule_job(job("assignment:70:remind:1h", 30), T0, replace=True)
    assert not await any_storage.complete_job(by_key["assignment:70:remind:1h"], T0)
    assert await any_storage.get_job("assignment:70:remind:1h") is not None  # the new one


async def test_a_failed_run_is_retried_later_or_dropped(any_storage: Storage) -> None:
    await any_storage.schedule_job(job("flaky"), T0)
    (claimed,) = await any_storage.claim_jobs("r1", T0, T0 + LEASE, 5)
    retry = T0 + timedelta(minutes=2)
    assert await any_storage.release_job(claimed, retry, "boom", T0)
    stored = await any_storage.get_job("flaky")
    assert stored is not None and stored.attempts == 1 and stored.due_at == retry
    assert await any_storage.claim_jobs("r1", T0, T0 + LEASE, 5) == []
    (claimed,) = await any_storage.claim_jobs("r1", retry, retry + LEASE, 5)
    assert await any_storage.release_job(claimed, None, "boom", retry)
    assert await any_storage.get_job("flaky") is None


async def test_messages_are_claimed_oldest_first_a_few_per_recipient(any_storage: Storage) -> None:
    await any_storage.queue_messages([message(f"g:{n}", "group") for n in range(5)], T0)
    await any_storage.queue_messages([message("dm:1", "7", to_user=True)], T0)
    await any_storage.queue_messages([NewMessage("other", "1", "note", "o:1")], T0)
    assert await any_storage.queue_messages([message("g:0", "group")], T0) == 0  # dedupe
    assert await any_storage.next_message_due("chat") == T0
    claimed = await any_storage.claim_messages("chat", ["note"], "r1", T0, T0 + LEASE, 10, 2)
    assert [m.dedupe_key for m in claimed] == ["g:0", "g:1", "dm:1"]
    more = await any_storage.claim_messages("chat", ["note"], "r2", T0, T0 + LEASE, 10, 2)
    assert [m.dedupe_key for m in more] == ["g:2", "g:3"]
    # Kinds this process cannot render are left for one that can.
    assert await any_storage.claim_messages("chat", ["other"], "r2", T0, T0 + LEASE, 10, 9) == []


async def test_a_message_is_marked_sent_once_and_a_retry_waits(any_storage: Storage) -> None:
    await any_storage.queue_messages([message("a"), message("b")], T0)
    a, b = await any_storage.claim_messages("chat", ["note"], "r1", T0, T0 + LEASE, 10, 5)
    marks = await asyncio.gather(*(any_storage.mark_message_sent(a, T0, str(n)) for n in range(3)))
    assert sum(marks) == 1
    retry = T0 + timedelta(seconds=20)
    assert await any_storage.retry_message(b, retry, "HTTP 502")
    assert await any_storage.claim_messages("chat", ["note"], "r1", T0, T0 + LEASE, 10, 5) == []
    assert await any_storage.next_message_due("chat") == retry
    (b,) = await any_storage.claim_messages("chat", ["note"], "r1", retry, retry + LEASE, 10, 5)
    assert b.attempts == 1
    assert await any_storage.mark_message_undeliverable(b, retry, "HTTP 400: bad")
    assert not await any_storage.mark_message_sent(b, retry, "9")
    sent, failed = await any_storage.outgoing_messages()
    assert (sent.status, sent.sent_at, sent.message_id) == (
        MessageStatus.SENT,
        T0,
        str(marks.index(True)),
    )
    assert (failed.status, failed.last_error) == (MessageStatus.UNDELIVERABLE, "HTTP 400: bad")
    assert await any_storage.next_message_due("chat") is None


async def test_a_claim_that_ran_out_is_taken_over(any_storage: Storage) -> None:
    await any_storage.queue_messages([message("a")], T0)
    (mine,) = await any_storage.claim_messages("chat", ["note"], "r1", T0, T0 + LEASE, 10, 5)
    assert await any_storage.claim_messages("chat", ["note"], "r2", T0, T0 + LEASE, 10, 5) == []
    later = T0 + LEASE
    (theirs,) = await any_storage.claim_messages(
        "chat", ["note"], "r2", later, later + LEASE, 10, 5
    )
    assert theirs.id == mine.id and theirs.claim == "r2"
    assert not await any_storage.retry_message(mine, later, "late")  # not r1's any more


async def test_messages_to_an_unreachable_recipient_are_not_sent_until_the_mark_clears(
    any_storage: Storage,
) -> None:
    await any_storage.touch_user("chat", "7", "Seven")
    await any_storage.set_language("chat", "7", "ru")
    await any_storage.mark_unreachable("chat", "7", True, "blocked", T0)
    await any_storage.queue_messages([message("dm:1", "7", to_user=True), message("c", "7")], T0)
    claimed = await any_storage.claim_messages("chat", ["note"], "r1", T0, T0 + LEASE, 10, 5)
    assert [m.dedupe_key for m in claimed] == ["c"]  # the chat 7 is not the user 7
    assert claimed[0].language is None
    (dropped,) = await any_storage.outgoing_messages("dm:")
    assert dropped.status is MessageStatus.UNDELIVERABLE
    (mark,) = await any_storage.unreachable()
    assert (mark.platform, mark.target, mark.to_user, mark.reason) == ("chat", "7", True, "blocked")
    assert await any_storage.unreachable(T0 + timedelta(seconds=1)) == []
    assert await any_storage.clear_unreachable("chat", "7", True)
    assert not await any_storage.clear_unreachable("chat", "7", True)
    await any_storage.queue_messages([message("dm:2", "7", to_user=True)], T0)
    (sent,) = await any_storage.claim_messages("chat", ["note"], "r1", T0, T0 + LEASE, 10, 5)
    assert sent.dedupe_key == "dm:2" and sent.language == "ru"  # the recipient's choice
