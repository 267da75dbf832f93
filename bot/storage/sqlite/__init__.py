"""The aiosqlite storage backend: WAL mode, forward migrations, group commit.

:mod:`.writer` holds the connections: writes from concurrent users are queued and committed
together in one transaction (each in its own SAVEPOINT, so one failing write does not undo
the others), every caller answered only after that commit; reads use a second connection and
so only see committed data. One module per port (:mod:`.attempts`, :mod:`.rounds`,
:mod:`.images`, :mod:`.library`, :mod:`.scheduling`, :mod:`.assignments`, :mod:`.chat_members`,
:mod:`.daily`, :mod:`.standings`) implements it over them.
"""

from bot.storage.base import Storage
from bot.storage.sqlite.assignments import SQLiteAssignments
from bot.storage.sqlite.attempts import SQLiteAttempts
from bot.storage.sqlite.chat_members import SQLiteChatMembers
from bot.storage.sqlite.daily import SQLiteDaily
from bot.storage.sqlite.images import SQLiteImages
from bot.storage.sqlite.library import SQLiteLibrary
from bot.storage.sqlite.rounds import SQLiteRounds
from bot.storage.sqlite.scheduling import SQLiteScheduling
from bot.storage.sqlite.standings import SQLiteStandings
from bot.storage.sqlite.writer import sqlite_path_from_url


class SQLiteStorage(
    SQLiteAttempts,
    SQLiteRounds,
    SQLiteImages,
    SQLiteLibrary,
    SQLiteScheduling,
    SQLiteAssignments,
    SQLiteChatMembers,
    SQLiteDaily,
    SQLiteStandings,
    Storage,
):
    """Storage in one SQLite file (or ``:memory:`` for throwaway use): one store per port over
    one writer and reader (:mod:`.writer`)."""


__all__ = ["SQLiteStorage", "sqlite_path_from_url"]
