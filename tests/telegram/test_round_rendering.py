"""Group round messages and admin reports: escaped, within limits, right to left in Urdu; and
the per-chat send budget that paces rounds."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta

from adapters.telegram.budget import ChatBudget
from adapters.telegram.rendering import MAX_MESSAGE, split_html
from adapters.telegram.round_rendering import (
    leaderboard_message,
    reload_report,
    round_end,
    round_keyboard,
    round_live,
    round_live_fits,
    round_reveal,
)
from bot.quiz_loader import LoadReport, QuizProblem
from bot.rounds import (
    Leaderboard,
    LeaderboardLine,
    OptionCount,
    RoundEnd,
    RoundQuestion,
    RoundReveal,
    ScoreLine,
)
from bot.views import OptionView
from fakes.telegram_bot_api import MAX_CALLBACK_DATA, parse_html

NOW = datetime(2026, 1, 1, tzinfo=UTC)
NASTY = "<b>Bob</b> & <i>co"


def question(text: str, options: list[str], language: str = "en") -> RoundQuestion:
    return RoundQuestion(
        round_id=2**62,
        platform="telegram",
        chat_id="-100",
        quiz_id="q",
        quiz_title="Quiz",
        number=9999,
        total=9999,
        text=text,
        options=tuple(OptionView(f"o{i}", "ABCDEFGHIJ"[i], o) for i, o in enumerate(options)),
        language=language,
        rtl=language == "ur",
        opens_at=NOW,
        deadline=NOW + timedelta(seconds=30),
        time_limit_seconds=30,
    )


def reveal(language: str = "en", members: int = 25) -> RoundReveal:
    asked = question("x < y?", ["yes & no", "<no>"], language)
    board = tuple(ScoreLine(n + 1, f"u{n}", f"{NASTY} {n}", 1, 100 * n) for n in range(members))
    return RoundReveal(
        round_id=1,
        platform="telegram",
        chat_id="-100",
        number=1,
        total=8,
        question_text=asked.text,
        correct_option=asked.options[0],
        explanation="Because a < b & c.",
        counts=(OptionCount(asked.options[0], 3, True), OptionCount(asked.options[1], 1, False)),
        scoreboard=board,
        language=language,
        rtl=language == "ur",
        next_question=None,
        finished=False,
    )


def test_round_question_is_escaped_and_its_buttons_fit() -> None:
    asked = question("Is <b>this</b> & that?", ["a<b", "c&d"])
    shown, entities = parse_html(round_live(asked, 3, 25, with_body=True))
    assert "Is <b>this</b> & that?" in shown
    assert shown.endswith("⏳ 25 s left · Answers: 3")
    assert [e["type"] for e in entities] == ["bold"]
    buttons = [b for row in round_keyboard(asked).inline_keyboard for b in row]
    assert [b.text for b in buttons] == ["A. a<b", "B. c&d"]
    assert buttons[0].callback_data == f"v1:g:{2**62}:9999:0"
    assert all(len(str(b.callback_data).encode()) <= MAX_CALLBACK_DATA for b in buttons)
    closed, _ = parse_html(round_live(asked, 7, None, with_body=True))
    assert closed.endswith("⌛ Time is up for this question. · Answers: 7")


def test_a_question_too_long_for_one_message_gets_a_short_live_message() -> None:
    asked = question("Long? " * 900, ["x" * 90] * 10)
    assert not round_live_fits(asked)
    live = round_live(asked, 1, 5, with_body=False)
    assert len(parse_html(live)[0]) < 200
    assert round_live_fits(question("Short?", ["a", "b"]))


def test_reveal_counts_scoreboard_top_ten_and_names_escaped() -> None:
    shown, _ = parse_html(round_reveal(reveal()))
    lines = shown.split("\n")
    assert "Correct answer: A. yes & no" in lines
    assert "✅ A. yes & no — 3" in lines and "▫️ B. <no> — 1" in lines
    assert "Why: Because a < b & c." in lines
    assert f"🥇 {NASTY} 0 — 1/1" in lines
    assert sum(1 for line in lines if " — 1/1" in line) == 10
    assert lines[-1] == "…and 15 more"


def test_the_final_ranking_lists_everyone_and_splits_when_long() -> None:
    board = tuple(ScoreLine(n + 1, f"u{n}", "N" * 200, 8 - n % 9, n) for n in range(300))
    html = round_end(RoundEnd(1, "Quiz", board, 8, False, "en", "🏁 Round over: Quiz"))
    chunks = split_html(html)
    assert len(chunks) > 1
    shown = [parse_html(chunk)[0] for chunk in chunks]
    assert all(len(text) <= MAX_MESSAGE for text in shown)
    assert sum(text.count(" — ") for text in shown) == 300  # names shortened, none lost
    assert "N" * 63 + "…" in shown[0]


def test_urdu_round_messages_are_right_to_left() -> None:
    html = round_reveal(reveal("ur", members=2))
    lines = [line for line in html.split("\n") if line]
    assert all(line.startswith("\u200f") for line in lines)
    parse_html(html)
    live = round_live(question("کیوں؟", ["ہاں", "نہیں"], "ur"), 2, 10, with_body=True)
    assert all(line.startswith("\u200f") for line in live.split("\n") if line)
    assert "سوال" in parse_html(live)[0]


def test_leaderboard_and_reload_report() -> None:
    board = Leaderboard("q", "Quiz <1>", 8, (LeaderboardLine(1, "u", NASTY, 7, 83.4),), "en")
    shown, _ = parse_html(leaderboard_message([board], "en", here=True))
    assert shown.split("\n") == [
        "🏆 Leaderboard: Quiz <1>",
        "(members of this chat)",
        f"🥇 {NASTY} — 7/8 · ⏱ 1:23",
    ]
    report = LoadReport(errors=[QuizProblem("quizzes/x.yaml", 14, 'correct "e" is <bad>')])
    shown, entities = parse_html(reload_report(report, 3, "ru"))
    assert shown.split("\n")[-1] == 'quizzes/x.yaml:14: correct "e" is <bad>'
    assert entities[-1]["type"] == "code"
    assert shown.startswith("🔄 Перезагружено: активны 3 теста.")


def test_budget_counts_a_sliding_window() -> None:
    now = [0.0]
    budget = ChatBudget(limit=3, window=60, now=lambda: now[0])
    assert budget.try_take(-1, keep=1) and budget.try_take(-1, keep=1)
    assert not budget.try_take(-1, keep=1)  # the last slot is kept for an essential send
    budget.record(-1)
    assert budget.free(-1) == 0 and budget.free(-2) == 3  # chats are counted apart
    now[0] = 30
    assert budget.wait_time(-1) == 30  # the first send leaves the window at 60
    assert budget.wait_time(-1, slots=3) == 30
    now[0] = 60.5
    assert budget.free(-1) == 3 and budget.wait_time(-1, slots=3) == 0


async def test_budget_take_waits_for_a_slot() -> None:
    budget = ChatBudget(limit=2, window=0.2)
    budget.record(-1)
    budget.record(-1)
    began = time.monotonic()
    await asyncio.wait_for(budget.take(-1), 2)
    assert time.monotonic() - began >= 0.19
    assert budget.used(-1) == 1


def test_a_slot_taken_ahead_is_used_by_its_request() -> None:
    """A round takes its slot before sending; the rate limiter then sees the request and
    must not count it a second time (an unannounced request counts on its own)."""
    budget = ChatBudget(limit=5, window=60, now=lambda: 0.0)
    assert budget.try_take(-1)
    budget.count_request(-1)  # the taken slot's request
    assert budget.used(-1) == 1
    budget.count_request(-1)  # a request nobody took a slot for
    assert budget.used(-1) == 2
