"""The storage interface the engine depends on; every backend implements it."""

from __future__ import annotations

import abc

from bot.storage.assignments import AssignmentStore
from bot.storage.chat_members import ChatMemberStore
from bot.storage.daily import DailyStore
from bot.storage.image_store import ImageStore
from bot.storage.library import LibraryStore
from bot.storage.ports import AttemptStore, KeyValueStore, RoundStore
from bot.storage.scheduling import SchedulingStore
from bot.storage.standings import StandingsStore


class StorageError(Exception):
    """The database could not do what was asked (after any retries)."""


class StateChanged(Exception):
    """A guarded write found the database no longer as its :class:`ExpectedState` says
    (another process, or an earlier press, got there first); nothing was written."""


class Storage(
    AttemptStore,
    RoundStore,
    KeyValueStore,
    ImageStore,
    LibraryStore,
    SchedulingStore,
    AssignmentStore,
    ChatMemberStore,
    DailyStore,
    StandingsStore,
):
    """Durable state: every port (:mod:`bot.storage.ports`, and those in modules named after
    them: images, the quiz library, scheduling, assignments, chat members, the daily question,
    standings over a period) plus the connection's lifecycle.

    Every write method returns only after its change is committed, so whatever the engine
    acknowledges to a user survives a crash. Uniqueness (one answer per question, one active
    attempt per user and quiz) is enforced by the database, not by the caller.
    """

    @abc.abstractmethod
    async def open(self) -> None:
        """Connect and bring the schema up to date (forward migrations)."""

    @abc.abstractmethod
    async def close(self) -> None:
        """Finish pending writes and disconnect."""

    @abc.abstractmethod
    async def schema_version(self) -> int:
        """The schema version the database is at."""

    @abc.abstractmethod
    async def healthy(self) -> bool:
        """Whether the database answers a trivial query."""
