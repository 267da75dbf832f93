"""Progress, statistics, leaderboards and round scoreboards as localized plain text, written
once for every platform.

Each function returns plain lines in the requested language; adapters only add their markup
(HTML in Telegram, Markdown embeds in Discord, indentation in the terminal) and escape them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bot.i18n import t
from bot.library_texts import library_t
from bot.rounds.views import Leaderboard, LeaderboardLine, ScoreLine
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
    text = shorten(" ".join(hardest.text.split()))
    return t(
        "stats_hardest",
        language,
        number=hardest.number,
        text=prepare(text, language),
        percent=round(hardest.percent_correct),
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
