"""The bot admins' reports (``/reload``, ``/stats``) as Discord embeds, within the limits."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from adapters.discord.rendering import INFO_COLOUR, Page, Section, md, pack, truncate
from adapters.discord.texts import text
from bot.i18n import t
from bot.presenters import stats_hardest, stats_summary
from bot.quiz_loader import LoadReport
from bot.stats import QuizStats
from bot.text_direction import is_rtl, paragraph, prepare

PROBLEMS_SHOWN = 40  # more would be pages of followups: `quizbot validate` lists them all
HARDEST_TEXT = 200


def reload_pages(report: LoadReport, live: int, language: str) -> list[Page]:
    """How many quizzes are live after a reload, and each error as ``file:line: problem``."""
    lines = [text("reload_done", language, count=live)]
    if report.errors:
        lines += ["", text("reload_problems", language, count=len(report.errors))]
        # Paths and messages are shown literally (a file name_with_underscores is not italic).
        lines += [f"• {md(' '.join(str(p).split()))}" for p in report.errors[:PROBLEMS_SHOWN]]
        if len(report.errors) > PROBLEMS_SHOWN:
            lines.append(text("reload_more", language, count=len(report.errors) - PROBLEMS_SHOWN))
    else:
        lines.append(text("reload_clean", language))
    return pack(
        [Section(paragraph("\n".join(lines), language))],
        colour=INFO_COLOUR,
        rtl=is_rtl(language),
    )


def stats_pages(stats: Sequence[QuizStats], language: str) -> list[Page]:
    """Per quiz: attempts, completions, average score and the hardest question."""
    sections = []
    for quiz in stats:
        shorten = functools.partial(truncate, limit=HARDEST_TEXT)
        lines = [
            md(stats_summary(quiz, language)),
            md(stats_hardest(quiz, language, shorten=shorten)),
        ]
        name = paragraph(prepare(md(quiz.title), language), language)
        sections.append(Section(paragraph("\n".join(lines), language), name))
    if not sections:
        sections.append(Section(paragraph(t("no_quizzes", language), language)))
    return pack(
        sections,
        colour=INFO_COLOUR,
        title=paragraph(text("stats_title", language), language),
        rtl=is_rtl(language),
    )
