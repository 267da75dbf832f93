"""Updates of different users run concurrently; one user's updates stay in order."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from telegram import Update

from adapters.telegram.update_processor import PerUserUpdateProcessor, ordering_key
from fakes.telegram_bot_api import FakeBotApi


def update_from(api: FakeBotApi, user_id: int) -> Update:
    user = api.user(user_id, f"U{user_id}")
    return Update.de_json(api.text_update(user, api.private_chat(user), "/help"), None)


async def test_one_users_updates_run_in_order_and_others_meanwhile() -> None:
    api = FakeBotApi()
    processor = PerUserUpdateProcessor()
    events: list[str] = []
    gate = asyncio.Event()

    async def handle(name: str, wait: bool) -> None:
        events.append(f"{name} start")
        if wait:
            await gate.wait()
        events.append(f"{name} end")

    first = asyncio.create_task(processor.process_update(update_from(api, 1), handle("a1", True)))
    second = asyncio.create_task(processor.process_update(update_from(api, 1), handle("a2", False)))
    other = asyncio.create_task(processor.process_update(update_from(api, 2), handle("b", False)))
    await other  # another user is not held up by user 1's slow update
    assert events == ["a1 start", "b start", "b end"]
    gate.set()
    await asyncio.gather(first, second)
    assert events[3:] == ["a1 end", "a2 start", "a2 end"]  # user 1's updates in order
    assert processor._locks == {}  # nothing is kept once idle


async def test_a_users_next_update_waits_for_their_follow_ups_and_others_do_not(
    caplog: pytest.LogCaptureFixture,
) -> None:
    api = FakeBotApi()
    processor = PerUserUpdateProcessor()
    events: list[str] = []
    release = asyncio.Event()

    async def handle(name: str) -> None:
        events.append(name)

    async def failing_follow_ups() -> None:
        await release.wait()
        events.append("a1 follow-ups")
        raise RuntimeError("a follow-up failed")

    await processor.process_update(update_from(api, 1), handle("a1"))
    processor.follow_up(ordering_key(update_from(api, 1)), failing_follow_ups())
    second = asyncio.create_task(processor.process_update(update_from(api, 1), handle("a2")))
    await processor.process_update(update_from(api, 2), handle("b"))
    await asyncio.sleep(0.01)
    assert events == ["a1", "b"]  # a2 waits for a1's follow-ups; b does not
    release.set()
    await second
    assert events == ["a1", "b", "a1 follow-ups", "a2"]
    await processor.finish_follow_ups()
    assert "a press's follow-ups failed" in caplog.text  # a failure is logged, not lost
    assert processor._follow_ups == {}  # nothing is kept once they are done
    assert processor._running == set()
    assert processor._locks == {}


class _Gate:
    """A follow-up gate that opens when the test says so."""

    def __init__(self) -> None:
        self.waiting: list[Callable[[], object]] = []

    def when_acknowledged(self, callback: Callable[[], object]) -> None:
        self.waiting.append(callback)

    def open(self) -> None:
        waiting, self.waiting = self.waiting, []
        for callback in waiting:
            callback()


class _GatedRun:
    """A processor, a gate for its follow-ups, and the order in which things ran."""

    def __init__(self) -> None:
        self.api = FakeBotApi()
        self.processor = PerUserUpdateProcessor()
        self.gate = _Gate()
        self.events: list[str] = []

    async def record(self, name: str) -> None:
        self.events.append(name)

    def follow_up(self, user_id: int, name: str) -> None:
        self.processor.follow_up(
            ordering_key(update_from(self.api, user_id)), self.record(name), after=self.gate
        )

    async def update(self, user_id: int, name: str) -> None:
        await self.processor.process_update(update_from(self.api, user_id), self.record(name))

    def assert_nothing_kept(self) -> None:
        assert self.processor._follow_ups == {}
        assert self.processor._parked == set()
        assert self.processor._running == set()


async def test_a_gated_follow_up_starts_at_its_gate_the_users_next_update_or_the_stop(
    caplog: pytest.LogCaptureFixture,
) -> None:
    run = _GatedRun()
    run.follow_up(1, "a1 follow-ups")
    run.follow_up(2, "b1 follow-ups")
    await asyncio.sleep(0.01)
    assert run.events == []
    assert run.processor._running == set()  # parked: not even a task exists yet
    await run.update(1, "a2")
    assert run.events == ["a1 follow-ups", "a2"]  # the user's next update started theirs first
    run.gate.open()
    await asyncio.sleep(0.01)
    assert run.events == ["a1 follow-ups", "a2", "b1 follow-ups"]  # the gate started the other
    run.follow_up(3, "c1 follow-ups")
    await run.processor.finish_follow_ups()  # stopping runs what is still parked
    assert run.events[-1] == "c1 follow-ups"
    run.gate.open()  # a gate that opens late starts nothing a second time
    await asyncio.sleep(0.01)
    assert len(run.events) == 4
    # A second start would run an awaited coroutine again: a failed follow-up, logged.
    assert "follow-ups failed" not in caplog.text
    run.assert_nothing_kept()


async def test_a_users_second_gated_follow_up_starts_their_first_at_once() -> None:
    """Only a user's latest follow-up is what their next update waits for: an earlier one
    still parked starts when a later one is parked, so it is never left behind."""
    run = _GatedRun()
    run.follow_up(1, "first")
    run.follow_up(1, "second")
    await run.update(1, "next update")
    assert run.events == ["first", "second", "next update"]
    run.gate.open()  # both already ran: nothing runs twice
    await run.processor.finish_follow_ups()
    assert run.events == ["first", "second", "next update"]
    run.assert_nothing_kept()


async def test_the_users_next_update_waits_for_what_their_follow_up_leaves_behind() -> None:
    """A press is answered by a follow-up of its update, which parks the press's own
    follow-ups: the user's next update, arriving meanwhile, waits for both."""
    run = _GatedRun()
    answered = asyncio.Event()
    key = ("user", 1)

    async def answer() -> None:
        await answered.wait()
        run.events.append("answered")
        run.processor.follow_up(key, run.record("answer's follow-ups"), after=run.gate)

    run.processor.follow_up(key, answer())
    next_update = asyncio.create_task(run.update(1, "next update"))
    await asyncio.sleep(0.01)
    assert run.events == []  # the next update waits for the answer
    answered.set()
    await next_update
    # The gate never opened: the next update started the parked follow-ups itself.
    assert run.events == ["answered", "answer's follow-ups", "next update"]
    run.assert_nothing_kept()
