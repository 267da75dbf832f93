"""The PostgreSQL backend's standings (leaderboards over a period)."""

from __future__ import annotations

from bot.storage.postgres.pool import PostgresPool, retrying
from bot.storage.standings import (
    Standing,
    StandingsQuery,
    StandingsStore,
    standing_from,
    standings_sql,
)


class PostgresStandings(PostgresPool, StandingsStore):
    """:class:`StandingsStore` in PostgreSQL."""

    @retrying
    async def standings(self, query: StandingsQuery, limit: int) -> list[Standing]:
        sql, params = standings_sql(query, limit, numbered=True, moment=lambda when: when)
        return [standing_from(r) for r in await self._fetch(sql, *params)]
