"""Updates of different users run concurrently; one user's updates stay in order."""

from __future__ import annotations

import asyncio

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
