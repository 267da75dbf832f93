"""Updates of different users run concurrently; one user's updates stay in order."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from telegram import Update

from adapters.telegram.update_processor import PerUserUpdateProcessor
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
    processor.follow_up(update_from(api, 1), failing_follow_ups())
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


async def test_a_gated_follow_up_starts_at_its_gate_the_users_next_update_or_the_stop() -> None:
    api = FakeBotApi()
    processor = PerUserUpdateProcessor()
    gate = _Gate()
    events: list[str] = []

    async def record(name: str) -> None:
        events.append(name)

    processor.follow_up(update_from(api, 1), record("a1 follow-ups"), after=gate)
    processor.follow_up(update_from(api, 2), record("b1 follow-ups"), after=gate)
    await asyncio.sleep(0.01)
    assert events == []
    assert processor._running == set()  # parked: not even a task exists yet
    await processor.process_update(update_from(api, 1), record("a2"))
    assert events == ["a1 follow-ups", "a2"]  # the user's next update started theirs first
    gate.open()
    await asyncio.sleep(0.01)
    assert events == ["a1 follow-ups", "a2", "b1 follow-ups"]  # the gate started the other
    processor.follow_up(update_from(api, 3), record("c1 follow-ups"), after=gate)
    await processor.finish_follow_ups()  # stopping runs what is still parked
    assert events[-1] == "c1 follow-ups"
    gate.open()  # a gate that opens late starts nothing a second time
    await asyncio.sleep(0.01)
    assert len(events) == 4
    assert processor._follow_ups == {}
    assert processor._parked == set()
    assert processor._running == set()


async def test_a_users_second_gated_follow_up_starts_their_first_at_once() -> None:
    """Only a user's latest follow-up is what their next update waits for: an earlier one
    still parked starts when a later one is parked, so it is never left behind."""
    api = FakeBotApi()
    processor = PerUserUpdateProcessor()
    gate = _Gate()
    events: list[str] = []

    async def record(name: str) -> None:
        events.append(name)

    processor.follow_up(update_from(api, 1), record("first"), after=gate)
    processor.follow_up(update_from(api, 1), record("second"), after=gate)
    await processor.process_update(update_from(api, 1), record("next update"))
    assert events == ["first", "second", "next update"]
    gate.open()  # both already ran: nothing runs twice
    await processor.finish_follow_ups()
    assert events == ["first", "second", "next update"]
    assert processor._follow_ups == {}
    assert processor._parked == set()
