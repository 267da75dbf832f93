"""The standings port: who answered most questions right, in a chat or everywhere, since a
moment (a leaderboard's period) or ever.

Counted are the answers of quiz attempts, of group rounds and of daily questions (a round's
answers once it ended and was copied into its members' history); reviews are practice and do
not count.
"""

from __future__ import annotations

import abc
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from bot.storage.records import AttemptKind
from bot.storage.rows import Row

COUNTED_KINDS = (AttemptKind.QUIZ, AttemptKind.ROUND, AttemptKind.DAILY)


@dataclass(frozen=True)
class Standing:
    """A member's right answers (and answers in all) in a period."""

    platform: str
    user_id: str
    name: str  # the name last seen, else the user id
    right: int
    answered: int


@dataclass(frozen=True)
class StandingsQuery:
    """Whose answers count: on one platform and in one chat (None: everywhere), given since
    ``since`` (None: ever), at one quiz (None: any)."""

    platform: str | None = None
    chat_id: str | None = None
    since: datetime | None = None
    quiz_id: str | None = None


class StandingsStore(Protocol):
    """Standings over the answers every attempt holds."""

    @abc.abstractmethod
    async def standings(self, query: StandingsQuery, limit: int) -> list[Standing]:
        """The best ``limit`` members: most right answers first, then fewest answers (the
        more accurate), then by name and user id; one round trip."""


def standings_sql(
    query: StandingsQuery, limit: int, *, numbered: bool, moment: Callable[[datetime], object]
) -> tuple[str, list[object]]:
    """The statement for ``query`` and its parameters, for both dialects (``numbered``:
    PostgreSQL's ``$1`` placeholders, else SQLite's ``?``; ``moment`` turns a time into the
    dialect's value), with only the conditions asked for, so each can use its index."""
    params: list[object] = []

    def param(value: object) -> str:
        params.append(value)
        return f"${len(params)}" if numbered else "?"

    kinds = ", ".join(param(kind.value) for kind in COUNTED_KINDS)
    conditions = [f"t.kind IN ({kinds})"]
    if query.platform is not None:
        conditions.append(f"t.platform = {param(query.platform)}")
    if query.chat_id is not None:
        conditions.append(f"t.chat_id = {param(query.chat_id)}")
    if query.quiz_id is not None:
        conditions.append(f"t.quiz_id = {param(query.quiz_id)}")
    if query.since is not None:
        conditions.append(f"n.answered_at >= {param(moment(query.since))}")
    sql = (
        "SELECT t.platform, t.user_id, coalesce(u.display_name, t.user_id) AS name, "
        "sum(CASE WHEN n.correct THEN 1 ELSE 0 END) AS right_count, count(*) AS answered_count "
        "FROM answers n JOIN attempts t ON t.id = n.attempt_id "
        "LEFT JOIN users u ON u.platform = t.platform AND u.user_id = t.user_id "
        f"WHERE {' AND '.join(conditions)} "
        "GROUP BY t.platform, t.user_id, u.display_name "
        "ORDER BY right_count DESC, answered_count, name, t.platform, t.user_id "
        f"LIMIT {param(limit)}"
    )
    return sql, params


def standing_from(row: Row) -> Standing:
    return Standing(
        row["platform"],
        row["user_id"],
        row["name"],
        int(row["right_count"]),
        int(row["answered_count"]),
    )
