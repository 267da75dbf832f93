"""Progress, statistics, leaderboards and round scoreboards as localized plain text, written
once for every platform.

Each function returns plain lines in the requested language; adapters only add their markup
(HTML in Telegram, Markdown embeds in Discord, indentation in the terminal) and escape them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from bot.daily.texts import daily_t
from bot.daily.views import ChatStreak, DailyStatus
from bot.i18n import t
from bot.leaderboard_periods import PeriodBoard
from bot.library_texts import library_t
from bot.rounds.views import Leaderboard, LeaderboardLine, MemberStreak, RoundReveal, ScoreLine
from bot.stats import QuizStats
from bot.text_direction import prepare
from bot.views import ProgressReport

MEDALS = {1: "🥇", 2: "🥈", 3: "🥉"}
NO_SCORE = "–"
MAX_MEMBER_NAME = 64  # characters of a member's name on a scoreboard line
SCOREBOARD_TOP = 10  # members on the scoreboard under each reveal of a group round


def progress_lines(report: ProgressReport) -> list[str]:
    """Per quiz: completed attempts with best and last score, and an attempt in progress.
    Empty when the user has played nothing (``no_progress`` says so)."""
    lang = report.language
    lines = []
    for quiz in report.quizzes:
        if quiz.completed_attempts or quiz.in_progress_answered is None:
            lines.append(
                t(
                    "progress_line",
                    lang,
                    title=quiz.title,
                    count=quiz.completed_attempts,
                    best=NO_SCORE if quiz.best is None else quiz.best,
                    last=NO_SCORE if quiz.last is None else quiz.last,
                    total=quiz.total,
                )
            )
        if quiz.in_progress_answered is not None:
            lines.append(
                t(
                    "progress_in_progress",
                    lang,
                    title=quiz.title,
                    answered=quiz.in_progress_answered,
                    total=quiz.total,
                )
            )
    return lines


def stats_summary(quiz: QuizStats, language: str) -> str:
    """The quiz version, then attempts, completions and the average score of its attempts."""
    average = (
        NO_SCORE
        if quiz.average_score is None
        else f"{quiz.average_score:.1f}/{quiz.total_questions}"
    )
    summary = t(
        "stats_summary",
        language,
        attempts=quiz.attempts,
        completed=quiz.completed,
        average=average,
    )
    label = library_t("version_label", language, version=quiz.version)
    return f"{label[:1].upper()}{label[1:]} · {summary}"


def stats_hardest(quiz: QuizStats, language: str, *, shorten: Callable[[str], str] = str) -> str:
    """The question answered right least often (its text on one line, passed through
    ``shorten``), or that nobody has answered yet."""
    hardest = quiz.hardest
    if hardest is None or hardest.percent_correct is None:
        return t("stats_no_answers", language)
    return hardest_line(
        hardest.number, hardest.text, hardest.percent_correct, language, shorten=shorten
    )


def hardest_line(
    number: int, text: str, percent: float, language: str, *, shorten: Callable[[str], str] = str
) -> str:
    """The question answered right least often: its number, its text on one line (passed
    through ``shorten``) and the share of right answers."""
    shown = shorten(" ".join(text.split()))
    return t(
        "stats_hardest",
        language,
        number=number,
        text=prepare(shown, language),
        percent=round(percent),
    )


def duration(seconds: float) -> str:
    """``m:ss`` (``h:mm:ss`` past an hour): readable in every language."""
    whole = max(0, round(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02}:{secs:02}" if hours else f"{minutes}:{secs:02}"


def member_name(name: str) -> str:
    """A member's display name on one line, at most :data:`MAX_MEMBER_NAME` characters."""
    flat = " ".join(name.split()) or "?"
    return flat if len(flat) <= MAX_MEMBER_NAME else flat[: MAX_MEMBER_NAME - 1] + "…"


def _ranked(rank: int, name: str, score: int, out_of: int) -> str:
    return f"{MEDALS.get(rank, f'{rank}.')} {name} — {score}/{out_of}"


def leaderboard_line(line: LeaderboardLine, total: int, *, name: Callable[[str], str] = str) -> str:
    """``🥇 Asha — 7/8 · ⏱ 1:05``: rank (a medal for the first three), the member's name
    (on one line, shortened, then through ``name``, which may escape it), best score, time
    taken."""
    ranked = _ranked(line.rank, name(member_name(line.name)), line.best, total)
    return f"{ranked} · ⏱ {duration(line.seconds)}"


def score_lines(
    scoreboard: Sequence[ScoreLine],
    language: str,
    *,
    out_of: int,
    top: int | None = None,
    timed: bool = False,
    name: Callable[[str], str] = str,
) -> list[str]:
    """A round's scoreboard, best first: ``🥇 Asha — 7/8`` (with ``timed``, ``· ⏱ 1:05`` of
    answering time), the first ``top`` members then how many more there are, or that nobody
    answered. ``name`` escapes a member's name (already on one line and shortened)."""
    if not scoreboard:
        return [t("round_no_answers", language)]
    shown = scoreboard if top is None else scoreboard[:top]
    lines = []
    for line in shown:
        ranked = _ranked(line.rank, name(member_name(line.name)), line.score, out_of)
        lines.append(f"{ranked} · ⏱ {duration(line.total_ms / 1000)}" if timed else ranked)
    if len(scoreboard) > len(shown):
        lines.append(t("round_more", language, count=len(scoreboard) - len(shown)))
    return lines


def leaderboard_lines(
    board: Leaderboard | None, language: str, *, name: Callable[[str], str] = str
) -> list[str]:
    """Every line of a leaderboard, or that nobody has completed the quiz yet."""
    if board is None or not board.lines:
        return [t("leaderboard_empty", language)]
    return [leaderboard_line(line, board.total, name=name) for line in board.lines]


# -- the daily question, streaks and leaderboards over a period ----------------------------

When = Callable[[datetime], str]  # a moment as a platform shows it (local text, a timestamp)


def daily_status_lines(status: DailyStatus, language: str, *, when: When) -> list[str]:
    """A chat's daily question: when, from which quizzes, open how long, the next post."""
    key = "daily_weekdays" if status.weekdays_only else "daily_every_day"
    lines = [daily_t(key, language, time=f"{status.at:%H:%M}", zone=status.zone)]
    if status.quiz_titles:
        lines.append(daily_t("daily_from", language, titles=", ".join(status.quiz_titles)))
    else:
        lines.append(daily_t("daily_from_all", language))
    hours, minutes = divmod(status.close_minutes, 60)
    if minutes:
        lines.append(daily_t("daily_open_minutes", language, count=status.close_minutes))
    else:
        lines.append(daily_t("daily_open_for", language, count=hours))
    lines.append(daily_t("daily_next", language, when=when(status.next_post)))
    return lines


def streak_text(streak: MemberStreak, language: str) -> str:
    """``🔥 5 right in a row · answered 7 days in a row``."""
    right = daily_t("streak_right", language, count=streak.right)
    return f"{right} · {daily_t('streak_answered', language, count=streak.answered)}"


def daily_right_lines(
    reveal: RoundReveal,
    language: str,
    *,
    top: int = SCOREBOARD_TOP,
    name: Callable[[str], str] = str,
) -> list[str]:
    """Under a daily question's reveal: who got it right, the longest streaks first (then the
    fastest), each with their streaks; the first ``top``, then how many more."""
    right = [line for line in reveal.scoreboard if line.score > 0]
    if not right:
        return [daily_t("daily_nobody_right", language)]
    streaks = {s.user_id: s for s in reveal.streaks}
    fallback = MemberStreak("", 1, 1)
    right.sort(key=lambda line: (-streaks.get(line.user_id, fallback).right, line.total_ms))
    lines = [daily_t("daily_right", language, count=len(right))]
    for rank, line in enumerate(right[:top], start=1):
        who = f"{MEDALS.get(rank, f'{rank}.')} {name(member_name(line.name))}"
        lines.append(f"{who} — {streak_text(streaks.get(line.user_id, fallback), language)}")
    if len(right) > top:
        lines.append(t("round_more", language, count=len(right) - top))
    return lines


def chat_streak_lines(streaks: Sequence[ChatStreak], language: str) -> list[str]:
    """``/progress``: the member's streak in each chat's daily questions (named by the chat's
    title when known)."""
    lines = []
    for chat in streaks:
        title = chat.chat_title or daily_t("streaks_this_chat", language)
        lines.append(f"{member_name(title)}: {streak_text(chat.streak, language)}")
    return lines


def period_title(board: PeriodBoard, *, when: When) -> list[str]:
    """A leaderboard's heading over a period: which period (since when, in which zone), whose
    (this chat's members, or everyone), of which quiz."""
    lang = board.language
    lines = [daily_t(f"period_{board.period.value}", lang)]
    scope = t("leaderboard_here" if board.here else "leaderboard_everyone", lang)
    if board.since is not None:
        scope = f"{daily_t('period_since', lang, when=when(board.since))} · {scope}"
    lines.append(f"({scope})")
    if board.quiz_title:
        lines.append(daily_t("period_quiz", lang, title=board.quiz_title))
    return lines


def period_lines(board: PeriodBoard, *, name: Callable[[str], str] = str) -> list[str]:
    """``🥇 Asha — 12 right of 15`` per member, or that nobody answered in the period."""
    lang = board.language
    if not board.lines:
        return [daily_t("period_empty", lang)]
    return [
        f"{MEDALS.get(line.rank, f'{line.rank}.')} {name(member_name(line.name))} — "
        + daily_t("period_score", lang, count=line.right, answered=line.answered)
        for line in board.lines
    ]
