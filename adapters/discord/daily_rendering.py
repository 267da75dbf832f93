"""``/daily`` and the leaderboards over a period as Discord embeds.

Pure functions like :mod:`adapters.discord.round_rendering`. Times are Discord timestamps, so
every reader sees them in their own zone and language; the chat's zone is named beside the
daily time, which is kept in it. (The daily question and its reveal are round messages:
:mod:`adapters.discord.round_rendering` lays them out.)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from adapters.discord.rendering import INFO_COLOUR, RESULT_COLOUR, Page, Section, md, pack
from adapters.discord.round_rendering import SLOT, timestamp
from bot.daily.texts import daily_t
from bot.daily.views import DailyReply
from bot.leaderboard_periods import PeriodBoard
from bot.presenters import daily_status_lines, period_lines, period_title
from bot.text_direction import is_rtl, paragraph


def _stamped(lines: Sequence[str], stamps: list[str]) -> list[str]:
    """Lines made with a slot per timestamp, each slot filled in order (after the texts
    were prepared, which would break a timestamp's markup)."""
    filled = []
    for line in lines:
        while SLOT in line:
            line = line.replace(SLOT, stamps.pop(0), 1)
        filled.append(line)
    return filled


def _slots(language: str, style: str) -> tuple[Callable[[datetime], str], list[str]]:
    """A ``when`` for the presenters that leaves a slot, and the timestamps to fill in."""
    stamps: list[str] = []

    def when(moment: datetime) -> str:
        stamps.append(timestamp(moment, language, style))
        return SLOT

    return when, stamps


def daily_reply_pages(reply: DailyReply) -> list[Page]:
    """What ``/daily`` did: the notice, and the channel's setting with its next post."""
    lang = reply.language
    sections = [Section(paragraph(md(reply.notice), lang))] if reply.notice else []
    if reply.status is not None:
        when, stamps = _slots(lang, "F")
        lines = _stamped(daily_status_lines(reply.status, lang, when=when), stamps)
        sections.append(Section(paragraph("\n".join(lines), lang)))
    return pack(
        sections,
        colour=INFO_COLOUR,
        title=paragraph(daily_t("daily_title", lang), lang),
        rtl=is_rtl(lang),
    )


def period_board_pages(board: PeriodBoard) -> list[Page]:
    """A leaderboard over a period: since when, whose, then the best members."""
    lang = board.language
    when, stamps = _slots(lang, "D")
    title, *scope = _stamped(period_title(board, when=when), stamps)
    sections = [Section(paragraph("\n".join(scope), lang))]
    sections.append(Section(paragraph("\n".join(period_lines(board, name=md)), lang)))
    return pack(sections, colour=RESULT_COLOUR, title=paragraph(title, lang), rtl=is_rtl(lang))
