"""The daily question's Telegram messages: escaped, within limits, right to left in Urdu, the
closing time in the chat's zone, who got it right with their streaks, the leaderboards over a
period."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, time, timedelta

from adapters.telegram.daily_rendering import (
    daily_live,
    daily_live_fits,
    daily_reply,
    daily_reveal,
    period_board_message,
)
from adapters.telegram.rendering import MAX_MESSAGE, split_html
from bot.daily.views import DailyOutcome, DailyReply, DailyStatus
from bot.leaderboard_periods import Period, PeriodBoard, PeriodLine
from bot.rounds import MemberStreak, ScoreLine
from bot.storage import RoundKind
from fakes.telegram_bot_api import parse_html
from tests.telegram.test_round_rendering import NASTY, question, reveal

NOW = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)


def daily_question(text: str = "Is <b>this</b> & that?", language: str = "en"):
    asked = question(text, ["a<b", "c&d"], language)
    return replace(
        asked,
        number=1,
        total=1,
        kind=RoundKind.DAILY,
        time_zone="Europe/Berlin",
        opens_at=NOW,
        deadline=NOW + timedelta(hours=12),
    )


def test_the_question_shows_when_it_closes_in_the_chats_zone_not_a_countdown() -> None:
    asked = daily_question()
    shown, entities = parse_html(daily_live(asked, 3, closed=False, with_body=True))
    assert shown.startswith("☀️ Daily question · Quiz")
    assert "Is <b>this</b> & that?" in shown
    assert shown.endswith("🕘 Open until 2026-03-02 21:00 Europe/Berlin · Answers: 3")
    assert {e["type"] for e in entities} == {"bold"}
    closed, _ = parse_html(daily_live(asked, 7, closed=True, with_body=True))
    assert closed.endswith("⌛ Time is up for this question. · Answers: 7")
    long = daily_question("Long? " * 900)
    assert not daily_live_fits(long) and daily_live_fits(asked)
    assert len(parse_html(daily_live(long, 1, closed=False, with_body=False))[0]) < 200


def test_the_reveal_lists_who_got_it_right_longest_streak_first_names_escaped() -> None:
    base = reveal(members=30)
    board = tuple(
        ScoreLine(line.rank, line.user_id, line.name, 1 if n % 3 else 0, line.total_ms)
        for n, line in enumerate(base.scoreboard)
    )  # 20 right, 10 wrong
    streaks = tuple(MemberStreak(f"u{n}", n % 7, n % 7 + 1) for n in range(30))
    daily = replace(base, kind=RoundKind.DAILY, total=1, scoreboard=board, streaks=streaks)
    html = daily_reveal(daily)
    shown, _ = parse_html(html)
    lines = shown.split("\n")
    assert lines[0] == "📣 Daily question: the answer"
    assert "Correct answer: A. yes & no" in lines and "Why: Because a < b & c." in lines
    assert "20 got it right:" in lines
    first = lines.index("20 got it right:") + 1
    assert lines[first].startswith(f"🥇 {NASTY} ")  # the longest right streak: 6
    assert "🔥 6 right in a row · answered 7 days in a row" in lines[first]
    assert lines[-1] == "…and 10 more"
    assert len(shown) <= MAX_MESSAGE
    nobody = replace(daily, scoreboard=tuple(replace(line, score=0) for line in board))
    assert parse_html(daily_reveal(nobody))[0].endswith("Nobody got it right this time.")


def test_urdu_daily_messages_are_right_to_left() -> None:
    asked = daily_question("کیوں؟", "ur")
    live = daily_live(asked, 2, closed=False, with_body=True)
    assert all(line.startswith("\u200f") for line in live.split("\n") if line)
    parse_html(live)
    html = daily_reveal(replace(reveal("ur", members=2), kind=RoundKind.DAILY))
    assert all(line.startswith("\u200f") for line in html.split("\n") if line)
    parse_html(html)


def test_the_setting_and_a_period_board_are_escaped_and_split_when_long() -> None:
    status = DailyStatus(
        time(9), True, "Europe/Berlin", ("Quiz <1>",), 90, NOW, NOW + timedelta(minutes=90)
    )
    shown, _ = parse_html(daily_reply(DailyReply(DailyOutcome.SHOWN, "en", status=status)))
    assert shown.split("\n") == [
        "☀️ Daily question",
        "Monday to Friday at 09:00 (Europe/Berlin)",
        "Questions from: Quiz <1>",
        "Each question stays open 90 minutes",
        "Next question: 2026-03-02 09:00 Europe/Berlin",
    ]
    lines = tuple(PeriodLine(n + 1, f"u{n}", "N" * 200, 100 - n, 120) for n in range(300))
    board = PeriodBoard(Period.WEEK, NOW, "Europe/Berlin", "Quiz <1>", lines, "ru", here=True)
    chunks = split_html(period_board_message(board))
    texts = [parse_html(chunk)[0] for chunk in chunks]
    assert len(texts) > 1 and all(len(text) <= MAX_MESSAGE for text in texts)
    assert texts[0].split("\n")[:3] == [
        "🏆 Лучшие за неделю",
        "(с 2026-03-02 Europe/Berlin · участники этого чата)",
        "Тест: Quiz <1>",
    ]
    assert "🥇 " + "N" * 63 + "… — 100 верных из 120" in texts[0]
