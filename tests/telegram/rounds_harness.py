"""Group rounds on Telegram as a test watches them, on a :class:`~fakes.clock.ManualClock`:
the group's messages in order (:class:`Room`), and time that moves only when the test says
(:func:`advance`), as in the Discord tests, so no assertion depends on how fast the machine is.

The fake server stamps every call with the clock's time (:func:`on_the_clock`), so Telegram's
per-minute group limit and the gaps between countdown edits are measured on the same clock.
"""

from __future__ import annotations

import asyncio
import copy
import re
import time
from collections.abc import Callable
from typing import Any

from adapters.telegram import TelegramAdapter
from adapters.telegram.group_rounds import RoundTiming
from bot.quiz import Quiz
from bot.views import LETTERS
from fakes.clock import ManualClock
from fakes.telegram_bot_api import ApiCall, FakeBotApi, StoredMessage
from fakes.telegram_chatter import (
    button_for,
    chosen_option,
    clean,
    find_question,
    is_round_question,
    option_text,
)

# Real durations: the clock is virtual. ``speed`` reaches only what the clock cannot: PTB's own
# rate limiter (Telegram's 20 a minute per group, on the event loop's real time), which would
# otherwise hold a round's sends back for real minutes; the chat's send budget on the clock and
# the fake server's minute of the clock do the pacing.
TIMING = RoundTiming(speed=1000)
GROUP_ID = -1001234
TITLE = "Checkpoint sharding and resumable training"
SCORE_LINE = re.compile(r"(?:(🥇|🥈|🥉)|(\d+)\.) (.+) — (\d+)/(\d+)(?: · ⏱ [\d:]+)?")
MEDAL_RANKS = {"🥇": 1, "🥈": 2, "🥉": 3}


def on_the_clock(api: FakeBotApi, clock: ManualClock) -> None:
    """Stamp the fake server's calls with the clock's time (seconds since the epoch)."""
    api.stamp = lambda: clock().timestamp()


class Room:
    """The group as the test watches it: the bot's messages in order."""

    def __init__(self, api: FakeBotApi) -> None:
        self.api = api
        self.mark = 0

    def _here(self, call: ApiCall) -> bool:
        return int(call.params.get("chat_id", 0)) == GROUP_ID

    async def next(
        self, predicate: Callable[[StoredMessage], bool], within: float = 10.0
    ) -> tuple[StoredMessage, ApiCall]:
        """The next message the bot sends to the group matching ``predicate``."""
        call = await self.api.wait_for(
            "sendMessage",
            lambda c: self._here(c) and predicate(self.api.message_of(c)),
            after=self.mark,
            within=within,
        )
        self.mark = call.index + 1
        return copy.deepcopy(self.api.message_of(call)), call

    async def notice(self) -> str:
        message, _ = await self.next(lambda m: not m.buttons)
        return clean(message.text)

    async def question(self, within: float = 10.0) -> tuple[StoredMessage, ApiCall]:
        return await self.next(is_round_question, within)

    async def reveal(self) -> tuple[list[str], ApiCall]:
        """The next reveal: its lines, cleaned."""
        message, call = await self.next(lambda m: clean(m.text).startswith("📣"))
        return lines_of(message), call

    async def final(self) -> list[str]:
        """The last message of a round: its lines, cleaned."""
        message, _ = await self.next(lambda m: clean(m.text).startswith(("🏁", "⏹")))
        return lines_of(message)

    def now(self, message: StoredMessage) -> StoredMessage:
        """The message as it looks now (after edits)."""
        return self.api.messages[(GROUP_ID, message.message_id)]


def lines_of(message: StoredMessage) -> list[str]:
    return [clean(line) for line in (message.text or "").split("\n") if line.strip()]


def scores(lines: list[str]) -> list[tuple[int, str, int]]:
    """(rank, name, score) of every scoreboard line."""
    return [
        (MEDAL_RANKS[m.group(1)] if m.group(1) else int(m.group(2)), m.group(3), int(m.group(4)))
        for line in lines
        if (m := SCORE_LINE.fullmatch(line))
    ]


def count_line(quiz: Quiz, question: StoredMessage, correct: bool, count: int) -> str:
    """The reveal's line for the right (or the first wrong) option and how many chose it."""
    asked = find_question(quiz, "en", question.text or "")
    wanted = option_text(asked, chosen_option(asked, correct), "en")
    index = int(button_for(question, quiz, "en", correct).rsplit(":", 1)[1])
    return f"{'✅' if correct else '▫️'} {LETTERS[index]}. {wanted} — {count}"


def member(api: FakeBotApi, number: int, name: str | None = None) -> dict[str, Any]:
    return api.user(70_000 + number, name or f"Member {number:02}")


async def settle(adapter: TelegramAdapter, seconds: float = 10.0) -> None:
    """Wait until every round waits for the clock with nothing to do (its sends are done)."""
    deadline = time.monotonic() + seconds
    calm = 0
    while calm < 2:  # twice in a row: nothing woke up in between
        await asyncio.sleep(0.005)
        calm = calm + 1 if adapter.round_driver.settled() else 0
        assert time.monotonic() < deadline, "the rounds did not settle"


async def advance(adapter: TelegramAdapter, clock: ManualClock, seconds: float) -> None:
    """Let what is due now happen, then ``seconds`` pass, and what falls due happen."""
    await settle(adapter)
    clock.advance(seconds)
    await settle(adapter)


def posted_since(api: FakeBotApi, mark: int) -> list[str]:
    """The texts of the messages sent to the group since call ``mark``."""
    return [
        clean(api.message_of(c).text)
        for c in api.calls_of("sendMessage", after=mark)
        if int(c.params.get("chat_id", 0)) == GROUP_ID
    ]
