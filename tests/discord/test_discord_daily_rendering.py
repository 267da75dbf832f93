"""The daily question's Discord embeds: within Discord's limits however many got it right, the
closing time and the setting's next post as timestamps each client shows in its own zone, and
an Urdu status whose timestamp keeps its markup."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, time, timedelta

from adapters.discord.daily_rendering import daily_reply_pages, period_board_pages
from adapters.discord.round_rendering import closes_text, reveal_pages, round_question_pages
from bot.daily.views import DailyOutcome, DailyReply, DailyStatus
from bot.leaderboard_periods import Period, PeriodBoard, PeriodLine
from bot.rounds import MemberStreak, ScoreLine
from bot.storage import RoundKind
from bot.text_direction import LRI, PDI
from tests.discord.test_discord_rendering import check_pages
from tests.telegram.test_round_rendering import question, reveal

NOW = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)
CLOSES = int((NOW + timedelta(hours=12)).timestamp())


def daily_question(language: str = "en"):
    asked = question("Which one?", ["a", "b"], language)
    return replace(
        asked,
        number=1,
        total=1,
        kind=RoundKind.DAILY,
        opens_at=NOW,
        deadline=NOW + timedelta(hours=12),
    )


def test_the_question_closes_at_a_timestamp_and_fits() -> None:
    asked = daily_question()
    status = closes_text(asked)
    assert status == f"🕘 Open until <t:{CLOSES}:t> (<t:{CLOSES}:R>)"
    pages = round_question_pages(asked, 3, status)
    check_pages(pages)
    assert pages[0][0].title is not None and pages[0][0].title.endswith("☀️ Daily question")
    urdu = closes_text(daily_question("ur"))
    assert f"{LRI}<t:{CLOSES}:t>{PDI}" in urdu  # isolated, its markup whole


def test_the_reveal_fits_however_many_got_it_right() -> None:
    base = reveal(members=300)
    board = tuple(replace(line, name="N" * 200) for line in base.scoreboard)
    streaks = tuple(MemberStreak(f"u{n}", n, n) for n in range(300))
    daily = replace(base, kind=RoundKind.DAILY, scoreboard=board, streaks=streaks)
    pages = reveal_pages(daily)
    check_pages(pages)
    shown = "\n".join(str(e.to_dict()) for page in pages for e in page)
    assert "300 got it right:" in shown and "…and 290 more" in shown
    nobody = replace(daily, scoreboard=tuple(ScoreLine(1, "u", "U", 0, 1) for _ in range(1)))
    assert "Nobody got it right this time." in str(reveal_pages(nobody)[0][0].to_dict())


def test_the_setting_and_a_period_board_use_timestamps_and_fit() -> None:
    status = DailyStatus(time(9), False, "Europe/Berlin", (), 720, NOW, NOW + timedelta(hours=12))
    (page,) = daily_reply_pages(DailyReply(DailyOutcome.TURNED_ON, "ur", "Done", status))
    assert f"{LRI}<t:{int(NOW.timestamp())}:F>{PDI}" in (page[0].description or "")
    lines = tuple(PeriodLine(n + 1, f"u{n}", "N" * 200, 100 - n, 120) for n in range(300))
    board = PeriodBoard(Period.MONTH, NOW, "Europe/Berlin", None, lines, "en", here=False)
    pages = period_board_pages(board)
    check_pages(pages)
    first = pages[0][0].description or ""
    assert f"since <t:{int(NOW.timestamp())}:D> · all players" in first
