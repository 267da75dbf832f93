"""The PostgreSQL storage backend (asyncpg), for deployments whose disk is not durable or that
run several replicas against one database.

It has the same schema and guarantees as the SQLite backend: every write is its own committed
transaction, and uniqueness (one answer per question, one active attempt per user and quiz) is
enforced by constraints, so two processes answering the same question at once record it once.

:mod:`.pool` holds the connections; :mod:`.attempts` and :mod:`.rounds` implement the ports
on them. Imported only when a PostgreSQL URL is used: SQLite users need not install asyncpg.
"""

from bot.storage.base import Storage
from bot.storage.postgres.attempts import PostgresAttempts
from bot.storage.postgres.daily import PostgresDaily
from bot.storage.postgres.pool import normalize_postgres_url
from bot.storage.postgres.rounds import PostgresRounds
from bot.storage.postgres.scheduling import PostgresScheduling
from bot.storage.postgres.standings import PostgresStandings


class PostgresStorage(
    PostgresAttempts, PostgresRounds, PostgresScheduling, PostgresDaily, PostgresStandings, Storage
):
    """Storage in a PostgreSQL database, through an asyncpg connection pool."""


__all__ = ["PostgresStorage", "normalize_postgres_url"]
