"""Statistics as a PNG chart (matplotlib, an optional extra: ``pip install -e '.[charts]'``).

One row per question: how often each option was picked, the correct one in green, so authors
see at a glance which questions are hard and which distractors attract people.
"""

from __future__ import annotations

import io

from bot.stats import QuizStats
from quizbot.extras import MissingExtra

WIDTH_INCHES = 10.0
ROW_INCHES = 0.5
DPI = 100
CORRECT_COLOUR = "#2e7d32"
WRONG_COLOURS = ("#ef9a9a", "#e57373", "#ef5350", "#f44336", "#e53935", "#d32f2f")


class ChartsUnavailable(MissingExtra):
    """matplotlib is not installed."""


def chart_size(stats: QuizStats) -> tuple[int, int]:
    """The chart's size in pixels (width, height)."""
    height = 1.5 + ROW_INCHES * max(1, len(stats.questions))
    return round(WIDTH_INCHES * DPI), round(height * DPI)


def render_stats_png(stats: QuizStats) -> bytes:
    """The quiz's per-question option picks as a horizontal stacked bar chart (PNG bytes)."""
    try:
        import matplotlib

        matplotlib.use("Agg")  # no display on servers
        import matplotlib.pyplot as plt
    except ImportError as exc:
        reason = "a statistics chart was asked for"
        raise ChartsUnavailable("charts", reason, exc.name or "matplotlib") from exc

    width, height = chart_size(stats)
    figure, axes = plt.subplots(figsize=(width / DPI, height / DPI), dpi=DPI)
    try:
        labels = []
        for row, question in enumerate(reversed(stats.questions)):
            left = 0.0
            wrong = 0
            total = question.answered or 1
            for option in question.options:
                share = 100 * option.picks / total
                colour = CORRECT_COLOUR if option.correct else WRONG_COLOURS[wrong % 6]
                wrong += not option.correct
                axes.barh(row, share, left=left, color=colour, edgecolor="white")
                if share >= 6:
                    axes.text(
                        left + share / 2,
                        row,
                        option.option_id[:4],  # letters were shuffled per attempt
                        ha="center",
                        va="center",
                        fontsize=8,
                        color="white",
                    )
                left += share
            percent = f"{question.percent_correct:.0f}%" if question.answered else "-"
            labels.append(f"Q{question.number} ({percent}, n={question.answered})")
        axes.set_yticks(range(len(labels)), labels)
        axes.set_xlim(0, 100)
        axes.set_xlabel("share of answers per option (%) — green: correct")
        axes.set_title(f"{stats.title}: {stats.attempts} attempts, {stats.completed} completed")
        figure.tight_layout()
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=DPI)
        return buffer.getvalue()
    finally:
        plt.close(figure)
