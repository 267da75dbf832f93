"""The daily question's port: each chat's setting, and the questions posted day by day.

A post is a row per chat and local day, made in the same transaction as the daily round that
asks it, so a day is posted at most once however many replicas (or retries) try; the rows of
a chat, in day order, are what its streaks are counted on and what keeps a question from being
asked again before every other one was (each post belongs to a ``cycle`` through the pool).
"""

from __future__ import annotations

import abc
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, time
from typing import Protocol

from bot.storage.records import NewRound, RoundRecord
from bot.storage.rows import Row, timestamp


@dataclass(frozen=True)
class DailySetting:
    """A chat's daily question: when it is posted (local time, in the chat's time zone), from
    which quizzes (none: every quiz), how long it stays open, and in which language."""

    platform: str
    chat_id: str
    enabled: bool
    at: time  # local time of day, to the minute
    weekdays_only: bool
    quiz_ids: tuple[str, ...]
    close_minutes: int
    language: str
    chat_title: str | None  # the chat's name when it was set, to name it in /progress
    set_by: str  # the user id of the admin who set it last
    updated_at: datetime
    # The chat whose time zone it keeps: itself, or its Discord server.
    zone_chat: str = ""

    @property
    def zone_place(self) -> str:
        return self.zone_chat or self.chat_id


@dataclass(frozen=True)
class NewDailyPost:
    """The day's question about to be posted in a chat (with its round)."""

    platform: str
    chat_id: str
    day: date  # the chat's local date it is for
    cycle: int  # which pass through the question pool it belongs to
    quiz_id: str
    question_id: str
    due_at: datetime  # when it was scheduled (the posted time is its round's start)


@dataclass(frozen=True)
class DailyPost:
    """A day's question in a chat, and the round that asks it."""

    id: int
    platform: str
    chat_id: str
    day: date
    cycle: int
    quiz_id: str
    question_id: str
    round_id: int
    due_at: datetime


@dataclass(frozen=True)
class DailyDay:
    """One posted day of a chat, for streaks: whether its question is still open, and the
    answers (user id -> right or not) of the members asked about."""

    day: date
    round_id: int
    open: bool
    answers: dict[str, bool]


class DailyStore(Protocol):
    """Daily question settings and posts."""

    @abc.abstractmethod
    async def set_daily(self, setting: DailySetting) -> None:
        """Create or replace the chat's setting (an ``enabled`` False one turns it off and
        keeps the rest, the chat's title included)."""

    @abc.abstractmethod
    async def daily_setting(self, platform: str, chat_id: str) -> DailySetting | None: ...

    @abc.abstractmethod
    async def daily_settings(self, platform: str) -> list[DailySetting]:
        """Every chat's setting on ``platform``, on or off."""

    @abc.abstractmethod
    async def daily_cycle(self, platform: str, chat_id: str) -> tuple[int, list[tuple[str, str]]]:
        """The chat's latest cycle (0 before any post) and the (quiz id, question id) asked in
        it, oldest first."""

    @abc.abstractmethod
    async def daily_post(self, platform: str, chat_id: str, day: date) -> DailyPost | None: ...

    @abc.abstractmethod
    async def open_daily_post(
        self, post: NewDailyPost, round_: NewRound
    ) -> tuple[DailyPost, RoundRecord, bool]:
        """Record the day's post and start its round (``round_``, a daily round) in one
        transaction; or, when the day was posted already, return that post and its round
        (created False), writing nothing. Raises :class:`~bot.storage.base.StorageError`,
        writing nothing, while the chat's previous daily round is still active."""

    @abc.abstractmethod
    async def daily_history(
        self,
        platform: str,
        chat_id: str,
        up_to: date,
        limit: int,
        user_ids: Sequence[str],
    ) -> list[DailyDay]:
        """The chat's latest ``limit`` posted days up to ``up_to`` (included), newest first,
        each with the answers of ``user_ids``; one round trip (one snapshot)."""

    @abc.abstractmethod
    async def daily_chats(self, platform: str, user_id: str) -> list[DailySetting]:
        """The settings (on or off) of the chats whose daily questions the user answered."""


# -- rows (both backends) -----------------------------------------------------------------


def daily_setting_from(row: Row) -> DailySetting:
    return DailySetting(
        platform=row["platform"],
        chat_id=row["chat_id"],
        enabled=bool(row["enabled"]),
        at=time.fromisoformat(row["local_time"]),
        weekdays_only=bool(row["weekdays_only"]),
        quiz_ids=tuple(json.loads(row["quiz_ids"])),
        close_minutes=row["close_minutes"],
        language=row["language"],
        chat_title=row["chat_title"],
        set_by=row["set_by"],
        updated_at=timestamp(row["updated_at"]),
        zone_chat=row["zone_chat"],
    )


def daily_post_from(row: Row) -> DailyPost:
    return DailyPost(
        id=row["id"],
        platform=row["platform"],
        chat_id=row["chat_id"],
        day=date.fromisoformat(row["day"]),
        cycle=row["cycle"],
        quiz_id=row["quiz_id"],
        question_id=row["question_id"],
        round_id=row["round_id"],
        due_at=timestamp(row["due_at"]),
    )


def daily_setting_values(setting: DailySetting) -> tuple[object, ...]:
    """The setting's columns in table order, but for ``updated_at`` (dialect-typed)."""
    return (
        setting.platform,
        setting.chat_id,
        setting.enabled,
        setting.at.strftime("%H:%M"),
        setting.weekdays_only,
        json.dumps(list(setting.quiz_ids)),
        setting.close_minutes,
        setting.language,
        setting.chat_title,
        setting.zone_place,
        setting.set_by,
    )
