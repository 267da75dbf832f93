"""Group rounds on Telegram, end to end: many members, first answer counts, timers, restarts,
and the per-group rate limit.

Time runs SPEED times faster than real time: the engine's clock (:class:`ScaledClock`), the
adapter's timers (``RoundTiming.speed``) and the fake server's per-minute window alike, so a
30 s question takes 30 / SPEED real seconds. While members answer, engine time is frozen, so
that how fast the machine handles their presses cannot decide whether they were in time.
"""

from __future__ import annotations

import asyncio
import copy
import itertools
import re
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
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


@pytest.fixture
async def reopened(db_path: Path) -> AsyncIterator[list[SQLiteStorage]]:
    """Storages of restarted processes, closed at the end."""
    opened: list[SQLiteStorage] = []
    yield opened
    for storage in opened:
        await storage.close()


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


async def test_fifty_members_answer_and_the_reveal_counts_them(
    api: FakeBotApi,
    round_engine: QuizEngine,
    seed: Quiz,
    clock: ScaledClock,
    launch: Launch,
    group: dict[str, Any],
) -> None:
    await launch(round_engine, round_timing=TIMING)
    room = Room(api)
    host = Chatter(api, api.user(7000, "Host"), group)
    host.send(f"/quiz group {SEED_QUIZ} 30")
    assert await room.notice() == clean(t("round_started", "en", seconds=30))
    question, _ = await room.question()
    assert clean(question.text).startswith("👥 Question 1/8")
    assert re.search(r"⏳ \d{1,2} s left · Answers: 0$", clean(question.text))
    running = await round_engine._storage.active_round("telegram", str(GROUP_ID))
    assert running is not None and running.time_limit_seconds == 30
    right = button_for(question, seed, "en", correct=True)
    wrong = button_for(question, seed, "en", correct=False)
    people = [member(api, n) for n in range(50)]
    with clock.frozen():
        queries = [api.press(p, question, right if n < 30 else wrong) for n, p in enumerate(people)]
        for query in queries:
            assert await host.toast(query) == clean(t("round_answer_taken", "en"))

    reveal, _ = await room.reveal()
    assert clean(t("round_answers_count", "en", count=50)) in reveal
    assert count_line(seed, question, True, 30) in reveal
    assert count_line(seed, question, False, 20) in reveal
    asked = find_question(seed, "en", question.text or "")
    assert clean(t("correct_answer", "en", answer="")) in " ".join(reveal)
    assert clean(asked.explanation.get("en")) in " ".join(reveal)
    # Ten of the right answers (all equally fast while time stood still: by name); the rest
    # summarised.
    assert scores(reveal) == [(n + 1, f"Member {n:02}", 1) for n in range(10)]
    assert reveal[-1] == clean(tt("more_lines", "en", count=40))
    # The question was closed with the final count, buttons gone.
    closed = room.now(question)
    assert closed.buttons == []
    assert clean(closed.text).endswith(f"⌛ {t('round_closed', 'en')} · Answers: 50")

    # A member who neither started it nor administers the chat cannot stop it; an admin can.
    outsider = Chatter(api, people[40], group)
    outsider.send("/stop")
    assert await room.notice() == clean(t("round_not_starter", "en"))
    admin = Chatter(api, people[41], group)
    api.chat_admins[GROUP_ID][people[41]["id"]] = "administrator"
    admin.send("/stop")
    final = await room.final()
    assert final[0] == clean(t("round_stopped", "en", title=TITLE))
    ranking = scores(final)
    assert len(ranking) == 50  # everyone is ranked
    assert [score for _, _, score in ranking] == [1] * 30 + [0] * 20
    assert api.failed_calls() == []
    assert not [c for c in api.calls if c.error_code == 429]


async def test_first_answer_counts_and_a_question_closes_when_everyone_answered(
    api: FakeBotApi,
    round_engine: QuizEngine,
    seed: Quiz,
    clock: ScaledClock,
    launch: Launch,
    group: dict[str, Any],
) -> None:
    await launch(round_engine, round_timing=TIMING)
    room = Room(api)
    asha = Chatter(api, member(api, 1, "Asha"), group)
    boris = Chatter(api, member(api, 2, "Boris"), group)
    asha.send(f"/quiz group {SEED_QUIZ} 30")
    await room.notice()
    first, _ = await room.question()
    right = button_for(first, seed, "en", correct=True)
    wrong = button_for(first, seed, "en", correct=False)
    with clock.frozen():
        taken = clean(t("round_answer_taken", "en"))
        assert await asha.toast(asha.press(first, right)) == taken
        again = asha.press(first, wrong)  # a second answer, different: the first one counts
        assert await asha.toast(again) == clean(t("round_first_counts", "en"))
        assert await boris.toast(boris.press(first, wrong)) == taken
    reveal, _ = await room.reveal()
    assert clean(t("round_answers_count", "en", count=2)) in reveal
    assert count_line(seed, first, True, 1) in reveal
    assert count_line(seed, first, False, 1) in reveal
    assert scores(reveal) == [(1, "Asha", 1), (2, "Boris", 0)]

    # Question 2: both answer, so it closes at once: time stands still meanwhile, so it can
    # only have been closed early.
    second, _ = await room.question()
    assert clean(second.text).startswith("👥 Question 2/8")
    with clock.frozen():
        asha.press(second, button_for(second, seed, "en", correct=True))
        boris.press(second, button_for(second, seed, "en", correct=True))
        reveal, _ = await room.reveal()
    assert clean(t("round_answers_count", "en", count=2)) in reveal
    # A press on a closed question changes nothing.
    late = boris.press(first, right)
    assert await boris.toast(late) == clean(t("round_closed", "en"))
    asha.send("/stop")
    final = await room.final()
    assert scores(final) == [(1, "Asha", 2), (2, "Boris", 1)]
    assert api.failed_calls() == []


async def test_time_up_closes_the_question_and_the_next_follows_after_the_pause(
    api: FakeBotApi,
    round_engine: QuizEngine,
    seed: Quiz,
    launch: Launch,
    group: dict[str, Any],
) -> None:
    await launch(round_engine, round_timing=TIMING)
    room = Room(api)
    host = Chatter(api, member(api, 3, "Host"), group)
    asked = time.monotonic()  # the round cannot start before this
    host.send(f"/quiz group {SEED_QUIZ} 5")
    await room.notice()
    question, _ = await room.question()
    reveal, revealed = await room.reveal()  # nobody answers
    assert 5 <= (revealed.at - asked) * SPEED < 20
    assert clean(tt("round_no_answers", "en")) in reveal
    assert count_line(seed, question, True, 0) in reveal
    closed = room.now(question)
    assert closed.buttons == []
    assert clean(closed.text).endswith(f"⌛ {t('round_closed', 'en')} · Answers: 0")
    _, following = await room.question()
    # The pause runs from the close, a moment before the reveal arrived.
    assert (following.at - revealed.at) * SPEED >= TIMING.pause / 2
    late = host.press(question, button_for(question, seed, "en", correct=True))
    assert await host.toast(late) == clean(t("round_closed", "en"))
    host.send("/stop")
    assert scores(await room.final()) == []
    assert api.failed_calls() == []


async def test_a_restarted_bot_continues_the_round(
    api: FakeBotApi,
    round_engine: QuizEngine,
    catalog: QuizCatalog,
    seed: Quiz,
    clock: ScaledClock,
    db_path: Path,
    reopened: list[SQLiteStorage],
    launch: Launch,
    group: dict[str, Any],
) -> None:
    async def restart() -> Any:
        storage = SQLiteStorage(db_path)
        await storage.open()
        reopened.append(storage)
        return await launch(QuizEngine(catalog, storage, clock=clock), round_timing=TIMING)

    first_process = await launch(round_engine, round_timing=TIMING)
    room = Room(api)
    asha = Chatter(api, member(api, 4, "Asha"), group)
    boris = Chatter(api, member(api, 5, "Boris"), group)
    asha.send(f"/quiz group {SEED_QUIZ} 60")
    await room.notice()
    first, _ = await room.question()
    right = button_for(first, seed, "en", correct=True)
    with clock.frozen():
        assert await asha.toast(asha.press(first, right)) == clean(t("round_answer_taken", "en"))
        await first_process.stop()  # mid-question
        second_process = await restart()
        taken = await boris.toast(boris.press(first, right))
        assert taken == clean(t("round_answer_taken", "en"))
    reveal, _ = await room.reveal()
    assert clean(t("round_answers_count", "en", count=2)) in reveal
    assert count_line(seed, first, True, 2) in reveal
    assert room.now(first).buttons == []  # the new process closed the old process's message
    second, _ = await room.question()
    assert clean(second.text).startswith("👥 Question 2/8")

    # Down again, this time until question 2's time is up: it is revealed at once on start.
    await second_process.stop()
    await asyncio.sleep(61 / SPEED)
    await restart()
    reveal, _ = await room.reveal()
    assert reveal[0] == "📣 " + clean(t("question_progress", "en", number=2, total=8))
    assert clean(t("round_answers_count", "en", count=0)) in reveal
    assert scores(reveal) == [(1, "Asha", 1), (2, "Boris", 1)]  # the scoreboard so far
    third, _ = await room.question()
    assert clean(third.text).startswith("👥 Question 3/8")
    asha.send("/stop")
    assert len(scores(await room.final())) == 2
    assert api.failed_calls() == []


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
