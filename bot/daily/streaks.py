"""Streaks: how many of a chat's daily questions in a row a member answered right, and how many
in a row they answered at all, counted back from a day.

The days are the chat's posted days: a day the question was not posted (a weekend with the
weekdays-only option, a day skipped because the bot was down past the question's window)
breaks no streak. A posted question the member did not answer breaks both; a wrong answer
breaks the first. Today's question, while still open and not yet answered, breaks nothing yet.

Streaks are counted from the posts and answers themselves (nothing kept alongside that could
drift from them): the latest days are read in one round trip, and more only for a member whose
streak reaches past them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from bot.daily.views import ChatStreak
from bot.local_time import UTC_ZONE
from bot.rounds.views import MemberStreak
from bot.scheduling.timezones import find_zone
from bot.storage import RoundRecord
from bot.storage.daily import DailyDay, DailyStore

FIRST_READ = 64  # days read at first; a longer streak reads four times as many, and so on
LAST_DAY = date(9999, 12, 31)


@dataclass
class _Count:
    right: int = 0
    answered: int = 0
    right_over: bool = False
    answered_over: bool = False

    @property
    def over(self) -> bool:
        return self.right_over and self.answered_over

    def add(self, day: DailyDay, user_id: str) -> None:
        answer = day.answers.get(user_id)
        if day.open and answer is None:
            return  # still open, not answered yet: nothing broken
        if not self.answered_over:
            if answer is None:
                self.answered_over = True
            else:
                self.answered += 1
        if not self.right_over:
            if answer:
                self.right += 1
            else:
                self.right_over = True


def count_streaks(days: Sequence[DailyDay], user_ids: Sequence[str]) -> dict[str, _Count]:
    """Each member's streaks over ``days`` (newest first); a count not ``over`` may reach
    past the oldest day."""
    counts = {user: _Count() for user in user_ids}
    for user, count in counts.items():
        for day in days:
            count.add(day, user)
            if count.over:
                break
    return counts


class DailyStreaks:
    """The members' streaks in a chat's daily questions, from the daily store; what a daily
    question's reveal shows (:class:`~bot.rounds.service.StreakSource`) and ``/progress``."""

    def __init__(self, store: DailyStore) -> None:
        self.store = store

    async def streaks(
        self, platform: str, chat_id: str, up_to: date, user_ids: Sequence[str]
    ) -> dict[str, MemberStreak]:
        """The streaks of ``user_ids`` counted back from ``up_to`` (included)."""
        members = list(dict.fromkeys(user_ids))
        limit = FIRST_READ
        while True:
            days = await self.store.daily_history(platform, chat_id, up_to, limit, members)
            counts = count_streaks(days, members)
            if len(days) < limit or all(c.over for c in counts.values()):
                return {u: MemberStreak(u, c.right, c.answered) for u, c in counts.items()}
            limit *= 4

    async def streaks_at(
        self, round_: RoundRecord, user_ids: Sequence[str]
    ) -> tuple[MemberStreak, ...]:
        """The streaks up to the daily question ``round_`` (later days left out, so a reveal
        posted late reads as it did when the question closed)."""
        zone = find_zone(round_.time_zone or "UTC") or UTC_ZONE
        # The question's day is its scheduled one, at most a window before it opened.
        up_to = (round_.question_started_at.astimezone(zone) + timedelta(days=1)).date()
        members = list(dict.fromkeys(user_ids))
        days = await self.store.daily_history(
            round_.platform, round_.chat_id, up_to, FIRST_READ, members
        )
        index = next((i for i, day in enumerate(days) if day.round_id == round_.id), None)
        if index is None:
            return ()
        counts = count_streaks(days[index:], members)
        if len(days) == FIRST_READ and not all(c.over for c in counts.values()):
            longer = await self.streaks(round_.platform, round_.chat_id, days[index].day, members)
            return tuple(longer[user] for user in members)
        return tuple(MemberStreak(u, counts[u].right, counts[u].answered) for u in members)

    async def of_member(
        self, platform: str, user_id: str, chat_id: str | None = None
    ) -> list[ChatStreak]:
        """The member's current streaks in each chat whose daily questions they answered (in
        ``chat_id`` only, when given)."""
        found = []
        for setting in await self.store.daily_chats(platform, user_id):
            if chat_id is not None and setting.chat_id != chat_id:
                continue
            streak = await self.streaks(platform, setting.chat_id, LAST_DAY, [user_id])
            found.append(ChatStreak(setting.chat_id, setting.chat_title, streak[user_id]))
        return found
