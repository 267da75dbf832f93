"""Leaderboards over a period: who answered most questions right this week, this month or ever,
in a chat (in a private chat: everyone), the week and the month in the chat's time zone.

Everything a member answers counts (quizzes, group rounds, daily questions; reviews, which
are practice, do not): most right answers first, then the fewest answers (the more accurate).
A week starts on Monday at 00:00 and a month on its first day at 00:00, local time.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

from bot.engine import QuizEngine
from bot.scheduling.timezones import TimeZones, at_local
from bot.storage.standings import StandingsQuery, StandingsStore
from bot.text_direction import prepare
from bot.views import Participant

BOARD_TOP = 10


class Period(enum.StrEnum):
    WEEK = "week"
    MONTH = "month"
    ALL = "all"


def parse_period(word: str) -> Period | None:
    """The period a word names (``week``, ``month``, ``all``, any letter case), else None."""
    try:
        return Period(word.strip().lower())
    except ValueError:
        return None


def period_start(period: Period, now: datetime, zone: ZoneInfo) -> datetime | None:
    """When the period that ``now`` is in began in ``zone`` (None: all time)."""
    today = now.astimezone(zone).date()
    if period is Period.WEEK:
        return at_local(today - timedelta(days=today.weekday()), time(0), zone)
    if period is Period.MONTH:
        return at_local(today.replace(day=1), time(0), zone)
    return None


@dataclass(frozen=True)
class PeriodLine:
    rank: int
    user_id: str
    name: str
    right: int
    answered: int


@dataclass(frozen=True)
class PeriodBoard:
    """A leaderboard over ``period``, which began at ``since`` (None: all time) in ``zone``;
    of one quiz when ``quiz_title`` is set; of one chat's members when ``here``."""

    period: Period
    since: datetime | None
    zone: str
    quiz_title: str | None
    lines: tuple[PeriodLine, ...]
    language: str
    here: bool


class PeriodLeaderboards:
    """Leaderboards over a period, from the standings the storage counts."""

    def __init__(self, engine: QuizEngine, store: StandingsStore, timezones: TimeZones) -> None:
        self.engine = engine
        self.store = store
        self.timezones = timezones

    async def board(
        self,
        period: Period,
        who: Participant,
        *,
        chat_id: str | None,
        zone_chat: str | None = None,
        quiz_id: str | None = None,
        limit: int = BOARD_TOP,
    ) -> PeriodBoard:
        """This period's best in chat ``chat_id`` of ``who``'s platform (None: a private
        chat, everyone everywhere, the period in ``who``'s own zone), at one quiz or all;
        the period in the zone of ``zone_chat`` (the chat's own unless given: a Discord
        channel keeps its server's)."""
        language = await self.engine.interface_language(who)
        if chat_id is None:
            zone = await self.timezones.of_user(who.platform, who.user_id)
        else:
            zone = await self.timezones.of_chat(who.platform, zone_chat or chat_id)
        since = period_start(period, self.engine.clock(), zone)
        query = StandingsQuery(
            platform=who.platform if chat_id is not None else None,
            chat_id=chat_id,
            since=since,
            quiz_id=quiz_id,
        )
        standings = await self.store.standings(query, limit)
        quiz = self.engine.catalog.get(quiz_id) if quiz_id else None
        title = prepare(quiz.title.get(language), language) if quiz else None
        lines = tuple(
            PeriodLine(rank, s.user_id, s.name, s.right, s.answered)
            for rank, s in enumerate(standings, start=1)
        )
        return PeriodBoard(period, since, zone.key, title, lines, language, chat_id is not None)
