"""Round scoreboards and leaderboards, worded once for every platform."""

from __future__ import annotations

from bot.presenters import MAX_MEMBER_NAME, leaderboard_lines, member_name, score_lines
from bot.rounds import Leaderboard, LeaderboardLine, ScoreLine


def board(size: int) -> tuple[ScoreLine, ...]:
    return tuple(ScoreLine(n, f"u{n}", f"Member {n}", 10 - n, 1500 * n) for n in range(1, size + 1))


def test_a_scoreboard_gives_medals_to_three_then_ranks_and_says_how_many_more() -> None:
    lines = score_lines(board(13), "en", out_of=8, top=10)
    assert lines[:4] == [
        "🥇 Member 1 — 9/8",
        "🥈 Member 2 — 8/8",
        "🥉 Member 3 — 7/8",
        "4. Member 4 — 6/8",
    ]
    assert len(lines) == 11 and lines[-1] == "…and 3 more"
    assert score_lines(board(13), "ru", out_of=8, top=10)[-1] == "…и ещё 3"


def test_a_final_ranking_shows_each_members_time_and_everyone_without_a_top() -> None:
    lines = score_lines(board(2), "en", out_of=8, timed=True)
    assert lines == ["🥇 Member 1 — 9/8 · ⏱ 0:02", "🥈 Member 2 — 8/8 · ⏱ 0:03"]


def test_nobody_answered_is_said_in_the_rounds_language() -> None:
    assert score_lines((), "en", out_of=1) == ["Nobody answered."]
    assert score_lines((), "ru", out_of=1) == ["Никто не ответил."]


def test_names_are_flattened_shortened_then_escaped_by_the_platform() -> None:
    long = "Ann\n" + "x" * 100
    assert member_name(long) == ("Ann " + "x" * 100)[: MAX_MEMBER_NAME - 1] + "…"
    assert len(member_name(long)) == MAX_MEMBER_NAME
    (line,) = score_lines(
        (ScoreLine(1, "u", "a*b", 1, 0),), "en", out_of=1, name=lambda n: f"<{n}>"
    )
    assert line == "🥇 <a*b> — 1/1"
    leaders = Leaderboard("q", "Quiz", 8, (LeaderboardLine(4, "u", "  Bo\tb ", 7, 65.0),), "en")
    assert leaderboard_lines(leaders, "en") == ["4. Bo b — 7/8 · ⏱ 1:05"]
