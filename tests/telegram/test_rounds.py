"""Group rounds on Telegram against Telegram's per-minute group limit, which is about real
time: a whole round's pacing, and picking a round's quiz. (Timers, first answers and restarts
run on a ManualClock in ``test_round_timers.py``; this module keeps what they share.)

Time runs SPEED times faster than real time: the engine's clock (:class:`ScaledClock`), the
adapter's timers (``RoundTiming.speed``) and the fake server's per-minute window alike, so a
30 s question takes 30 / SPEED real seconds. While members answer, engine time is frozen, so
that how fast the machine handles their presses cannot decide whether they were in time.
"""

from __future__ import annotations

import copy
import itertools
import re
from collections.abc import Callable
from typing import Any

import pytest

from adapters.telegram.group_rounds import RoundTiming
from adapters.telegram.texts import tt
from bot.catalog import QuizCatalog
from bot.engine import QuizEngine
from bot.i18n import t
from bot.quiz import Quiz
from bot.storage import SQLiteStorage
from bot.views import LETTERS
from fakes.telegram_bot_api import GROUP_LIMIT, ApiCall, FakeBotApi, StoredMessage
from fakes.telegram_chatter import (
    Chatter,
    ScaledClock,
    button_for,
    chosen_option,
    clean,
    find_question,
    is_round_question,
    option_text,
)
from tests.conftest import SEED_QUIZ
from tests.telegram.conftest import Launch

pytestmark = pytest.mark.slow  # rounds run on sped-up real time

SPEED = 40.0
TIMING = RoundTiming(speed=SPEED)
GROUP_ID = -1001234
TITLE = "Checkpoint sharding and resumable training"
SCORE_LINE = re.compile(r"(?:🥇|🥈|🥉)?(\d+)\. (.+) — (\d+)/(\d+)")


@pytest.fixture
def clock() -> ScaledClock:
    return ScaledClock(SPEED)


@pytest.fixture
def round_engine(catalog: QuizCatalog, storage: SQLiteStorage, clock: ScaledClock) -> QuizEngine:
    return QuizEngine(catalog, storage, clock=clock)


@pytest.fixture
def seed(catalog: QuizCatalog) -> Quiz:
    quiz = catalog.get(SEED_QUIZ)
    assert quiz is not None
    return quiz


@pytest.fixture
def group(api: FakeBotApi) -> dict[str, Any]:
    api.rate_window = 60 / SPEED  # Telegram's minute, at the test's speed
    return api.group_chat(GROUP_ID, "Study group")


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
        (int(m.group(1)), m.group(2), int(m.group(3)))
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


async def test_a_full_round_stays_within_the_group_rate_limit(
    api: FakeBotApi,
    round_engine: QuizEngine,
    seed: Quiz,
    clock: ScaledClock,
    launch: Launch,
    group: dict[str, Any],
) -> None:
    await launch(round_engine, round_timing=TIMING)
    room = Room(api)
    players = [Chatter(api, member(api, 10 + n, name), group) for n, name in enumerate("ABC")]
    players[0].send(f"/quiz group {SEED_QUIZ} 20")
    await room.notice()
    expected = {"A": 0, "B": 0, "C": 0}
    questions = []
    for number in range(1, 9):
        question, _ = await room.question(within=20)
        assert clean(question.text).startswith(f"👥 Question {number}/8")
        questions.append(question)
        # Odd questions: C sits out, so the question runs until time is up; even ones close
        # as soon as all three answered.
        answering = players if number % 2 == 0 or number == 1 else players[:2]
        with clock.frozen():
            for index, player in enumerate(answering):
                right = (number + index) % 3 != 0
                query = player.press(question, button_for(question, seed, "en", correct=right))
                assert await player.toast(query) == clean(t("round_answer_taken", "en"))
                expected[player.user["first_name"]] += right
    final = await room.final()
    assert final[0] == clean(t("round_finished", "en", title=TITLE))
    ranking = scores(final)
    assert sorted((name, score) for _, name, score in ranking) == sorted(expected.items())
    assert [score for _, _, score in ranking] == sorted(expected.values(), reverse=True)

    # Never over Telegram's 20 a minute in the group, and never refused.
    assert not [c for c in api.calls if c.error_code == 429]
    assert api.busiest_window(GROUP_ID) <= GROUP_LIMIT
    assert api.failed_calls() == []
    # Countdown edits were made, coalesced: at most one per 5 s per question message.
    edits = [
        c
        for c in api.calls_of("editMessageText")
        if int(c.params["chat_id"]) == GROUP_ID and c.params.get("reply_markup")
    ]
    assert edits, "no countdown edits at all"
    for question in questions:
        mine = [c.at for c in edits if int(c.params["message_id"]) == question.message_id]
        assert len(mine) <= 20 / TIMING.edit_interval
        gaps = [(b - a) * SPEED for a, b in itertools.pairwise(mine)]
        # (as the fake server received them: network jitter is magnified SPEED times)
        assert all(gap >= TIMING.edit_interval / 2 for gap in gaps), gaps

    # The chat's leaderboard now has the three of them; a private chat shows everyone's.
    players[0].send("/leaderboard")
    board, _ = await room.next(lambda m: "🏆" in (m.text or ""))
    text = clean(board.text)
    assert clean(t("leaderboard_title", "en", title=TITLE)) in text
    assert clean(tt("leaderboard_here", "en")) in text
    assert all(f" {name} — " in text for name in "ABC")
    alone = Chatter(api, players[1].user, api.private_chat(players[1].user))
    alone.send(f"/leaderboard {SEED_QUIZ}")
    text = clean((await alone.message()).text)
    assert clean(tt("leaderboard_everyone", "en")) in text and " B — " in text


async def test_picking_the_quiz_of_a_round_and_rounds_only_in_groups(
    api: FakeBotApi,
    round_engine: QuizEngine,
    catalog: QuizCatalog,
    launch: Launch,
    group: dict[str, Any],
) -> None:
    await launch(round_engine, round_timing=TIMING)
    host_user = member(api, 30, "Host")
    private = Chatter(api, host_user, api.private_chat(host_user))
    private.send("/quiz group")
    assert clean((await private.message()).text) == clean(tt("round_group_only", "en"))
    room = Room(api)
    host = Chatter(api, host_user, group)
    host.send("/leaderboard")
    assert await room.notice() == clean(t("leaderboard_empty", "en"))
    host.send("/quiz group 7")
    picker, _ = await room.next(lambda m: bool(m.buttons))
    assert clean(picker.text).startswith(clean(tt("round_choose", "en")))
    assert len(picker.buttons) == len(catalog)
    stranger = Chatter(api, member(api, 31, "Zoe"), group)
    refused = stranger.press(picker, picker.buttons[0]["callback_data"])
    assert await stranger.toast(refused) == "These buttons are Host's — send /quiz to get your own."
    host.press_button(picker, TITLE)
    assert await room.notice() == clean(t("round_started", "en", seconds=7))
    question, _ = await room.question()
    assert re.search(r"⏳ \d s left", clean(question.text))
    running = await round_engine._storage.active_round("telegram", str(GROUP_ID))
    assert running is not None and running.time_limit_seconds == 7
    host.send(f"/quiz group {SEED_QUIZ}")
    assert await room.notice() == clean(t("round_running", "en"))
    host.send("/stop")
    await room.final()
    assert api.failed_calls() == []
