"""The PostgreSQL storage backend (asyncpg), for deployments whose disk is not durable or that
run several replicas against one database.

It has the same schema and guarantees as the SQLite backend: every write is its own committed
transaction, and uniqueness (one answer per question, one active attempt per user and quiz) is
enforced by constraints, so two processes answering the same question at once record it once.

:mod:`.pool` holds the connections; one module per port (:mod:`.attempts`, :mod:`.rounds`,
:mod:`.images`, :mod:`.library`, :mod:`.scheduling`, :mod:`.assignments`, :mod:`.chat_members`,
:mod:`.daily`, :mod:`.standings`) implements it on them. Imported only when a PostgreSQL URL
is used: SQLite users need not install asyncpg.
"""

from bot.storage.base import Storage
from bot.storage.postgres.assignments import PostgresAssignments
from bot.storage.postgres.attempts import PostgresAttempts
from bot.storage.postgres.chat_members import PostgresChatMembers
from bot.storage.postgres.daily import PostgresDaily
from bot.storage.postgres.images import PostgresImages
from bot.storage.postgres.library import PostgresLibrary
from bot.storage.postgres.pool import normalize_postgres_url
from bot.storage.postgres.rounds import PostgresRounds
from bot.storage.postgres.scheduling import PostgresScheduling
from bot.storage.postgres.standings import PostgresStandings


class PostgresStorage(
    PostgresAttempts,
    PostgresRounds,
    PostgresImages,
    PostgresLibrary,
    PostgresScheduling,
    PostgresAssignments,
    PostgresChatMembers,
    PostgresDaily,
    PostgresStandings,
    Storage,
):
    """Storage in a PostgreSQL database, through an asyncpg connection pool."""


__all__ = ["PostgresStorage", "normalize_postgres_url"]
