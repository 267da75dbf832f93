"""The SQLite backend's standings (leaderboards over a period)."""

from __future__ import annotations

from bot.storage.sqlite.writer import SQLiteWriter, _ts
from bot.storage.standings import (
    Standing,
    StandingsQuery,
    StandingsStore,
    standing_from,
    standings_sql,
)


class SQLiteStandings(SQLiteWriter, StandingsStore):
    """:class:`StandingsStore` in SQLite."""

    async def standings(self, query: StandingsQuery, limit: int) -> list[Standing]:
        sql, params = standings_sql(query, limit, numbered=False, moment=_ts)
        return [standing_from(r) for r in await self._fetchall(sql, tuple(params))]
