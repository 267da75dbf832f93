"""The SQLite backend's daily question settings and posts."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import date

from bot.storage.base import StorageError
from bot.storage.daily import (
    DailyDay,
    DailyPost,
    DailySetting,
    DailyStore,
    NewDailyPost,
    daily_post_from,
    daily_setting_from,
    daily_setting_values,
)
from bot.storage.records import NewRound, RoundKind, RoundRecord
from bot.storage.rows import round_from
from bot.storage.sqlite.rounds import insert_round
from bot.storage.sqlite.writer import SQLiteWriter, _ts

MEMBERS_PER_READ = 500  # user ids per statement (SQLite bounds a statement's parameters)

# The latest posted days of a chat up to a day, newest first, with whether each is open.
DAYS = (
    "SELECT p.day, p.round_id, r.status = 'active' AS open FROM daily_posts p "
    "JOIN rounds r ON r.id = p.round_id "
    "WHERE p.platform = ? AND p.chat_id = ? AND p.day <= ? ORDER BY p.day DESC LIMIT ?"
)


class SQLiteDaily(SQLiteWriter, DailyStore):
    """:class:`DailyStore` in SQLite."""

    async def set_daily(self, setting: DailySetting) -> None:
        def op(conn: sqlite3.Connection) -> None:
            conn.execute(
                "INSERT INTO daily_settings (platform, chat_id, enabled, local_time, "
                "weekdays_only, quiz_ids, close_minutes, language, chat_title, zone_chat, "
                "set_by, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (platform, chat_id) DO UPDATE SET enabled = excluded.enabled, "
                "local_time = excluded.local_time, weekdays_only = excluded.weekdays_only, "
                "quiz_ids = excluded.quiz_ids, close_minutes = excluded.close_minutes, "
                "language = excluded.language, "
                "chat_title = coalesce(excluded.chat_title, daily_settings.chat_title), "
                "zone_chat = excluded.zone_chat, "
                "set_by = excluded.set_by, updated_at = excluded.updated_at",
                (*daily_setting_values(setting), _ts(setting.updated_at)),
            )

        await self._write(op)

    async def daily_setting(self, platform: str, chat_id: str) -> DailySetting | None:
        rows = await self._fetchall(
            "SELECT * FROM daily_settings WHERE platform = ? AND chat_id = ?", (platform, chat_id)
        )
        return daily_setting_from(rows[0]) if rows else None

    async def daily_settings(self, platform: str) -> list[DailySetting]:
        rows = await self._fetchall(
            "SELECT * FROM daily_settings WHERE platform = ? ORDER BY chat_id", (platform,)
        )
        return [daily_setting_from(r) for r in rows]

    async def daily_cycle(self, platform: str, chat_id: str) -> tuple[int, list[tuple[str, str]]]:
        rows = await self._fetchall(
            "SELECT cycle, quiz_id, question_id FROM daily_posts WHERE platform = ? "
            "AND chat_id = ? AND cycle = (SELECT max(cycle) FROM daily_posts "
            "WHERE platform = ? AND chat_id = ?) ORDER BY day",
            (platform, chat_id, platform, chat_id),
        )
        if not rows:
            return 0, []
        return rows[0]["cycle"], [(r["quiz_id"], r["question_id"]) for r in rows]

    async def daily_post(self, platform: str, chat_id: str, day: date) -> DailyPost | None:
        rows = await self._fetchall(
            "SELECT * FROM daily_posts WHERE platform = ? AND chat_id = ? AND day = ?",
            (platform, chat_id, day.isoformat()),
        )
        return daily_post_from(rows[0]) if rows else None

    async def open_daily_post(
        self, post: NewDailyPost, round_: NewRound
    ) -> tuple[DailyPost, RoundRecord, bool]:
        def op(conn: sqlite3.Connection) -> tuple[DailyPost, RoundRecord, bool]:
            found = conn.execute(
                "SELECT * FROM daily_posts WHERE platform = ? AND chat_id = ? AND day = ?",
                (post.platform, post.chat_id, post.day.isoformat()),
            ).fetchone()
            if found is not None:
                posted = daily_post_from(found)
                row = conn.execute("SELECT * FROM rounds WHERE id = ?", (posted.round_id,))
                return posted, round_from(row.fetchone()), False
            assert round_.kind is RoundKind.DAILY
            record, created = insert_round(conn, round_)
            if not created:
                raise StorageError("the chat's previous daily question is still open")
            row = conn.execute(
                "INSERT INTO daily_posts (platform, chat_id, day, cycle, quiz_id, question_id, "
                "round_id, due_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *",
                (
                    post.platform,
                    post.chat_id,
                    post.day.isoformat(),
                    post.cycle,
                    post.quiz_id,
                    post.question_id,
                    record.id,
                    _ts(post.due_at),
                ),
            ).fetchone()
            return daily_post_from(row), record, True

        result: tuple[DailyPost, RoundRecord, bool] = await self._write(op)
        return result

    async def daily_history(
        self,
        platform: str,
        chat_id: str,
        up_to: date,
        limit: int,
        user_ids: Sequence[str],
    ) -> list[DailyDay]:
        wanted = list(dict.fromkeys(user_ids))

        def read(conn: sqlite3.Connection) -> list[DailyDay]:
            conn.execute("BEGIN")  # one snapshot for the days and their answers
            try:
                found = conn.execute(DAYS, (platform, chat_id, up_to.isoformat(), limit))
                days = found.fetchall()
                answers: dict[int, dict[str, bool]] = {r["round_id"]: {} for r in days}
                rounds = ", ".join("?" * len(answers))
                for start in range(0, len(wanted) if days else 0, MEMBERS_PER_READ):
                    some = wanted[start : start + MEMBERS_PER_READ]
                    members = ", ".join("?" * len(some))
                    rows = conn.execute(
                        "SELECT round_id, user_id, correct FROM round_answers "
                        f"WHERE round_id IN ({rounds}) AND user_id IN ({members})",
                        (*answers, *some),
                    )
                    for row in rows:
                        answers[row["round_id"]][row["user_id"]] = bool(row["correct"])
            finally:
                conn.execute("COMMIT")
            return [
                DailyDay(
                    date.fromisoformat(r["day"]),
                    r["round_id"],
                    bool(r["open"]),
                    answers[r["round_id"]],
                )
                for r in days
            ]

        return await self._read(read)

    async def daily_chats(self, platform: str, user_id: str) -> list[DailySetting]:
        rows = await self._fetchall(
            "SELECT s.* FROM daily_settings s WHERE s.platform = ? AND EXISTS ("
            "SELECT 1 FROM daily_posts p JOIN round_answers a ON a.round_id = p.round_id "
            "WHERE p.platform = s.platform AND p.chat_id = s.chat_id AND a.user_id = ?) "
            "ORDER BY s.chat_id",
            (platform, user_id),
        )
        return [daily_setting_from(r) for r in rows]
