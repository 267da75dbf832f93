"""The PostgreSQL backend's daily question settings and posts."""

from __future__ import annotations

import json
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
from bot.storage.postgres.pool import PostgresPool, retrying
from bot.storage.postgres.rounds import insert_round
from bot.storage.records import NewRound, RoundKind, RoundRecord
from bot.storage.rows import round_from

# The latest posted days of a chat up to a day, newest first, whether each is open, and the
# answers of the members asked about (user id -> right), in one statement (one snapshot).
DAILY_HISTORY = """
SELECT p.day, p.round_id, r.status = 'active' AS open,
    (SELECT coalesce(jsonb_object_agg(a.user_id, a.correct), '{}')
        FROM round_answers a
        WHERE a.round_id = p.round_id AND a.user_id = ANY($5::text[])) AS answers
FROM daily_posts p JOIN rounds r ON r.id = p.round_id
WHERE p.platform = $1 AND p.chat_id = $2 AND p.day <= $3
ORDER BY p.day DESC
LIMIT $4
"""


class PostgresDaily(PostgresPool, DailyStore):
    """:class:`DailyStore` in PostgreSQL."""

    @retrying
    async def set_daily(self, setting: DailySetting) -> None:
        async with self._acquire() as conn:
            await conn.execute(
                "INSERT INTO daily_settings (platform, chat_id, enabled, local_time, "
                "weekdays_only, quiz_ids, close_minutes, language, chat_title, zone_chat, "
                "set_by, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) "
                "ON CONFLICT (platform, chat_id) DO UPDATE SET enabled = EXCLUDED.enabled, "
                "local_time = EXCLUDED.local_time, weekdays_only = EXCLUDED.weekdays_only, "
                "quiz_ids = EXCLUDED.quiz_ids, close_minutes = EXCLUDED.close_minutes, "
                "language = EXCLUDED.language, "
                "chat_title = coalesce(EXCLUDED.chat_title, daily_settings.chat_title), "
                "zone_chat = EXCLUDED.zone_chat, "
                "set_by = EXCLUDED.set_by, updated_at = EXCLUDED.updated_at",
                *daily_setting_values(setting),
                setting.updated_at,
            )

    @retrying
    async def daily_setting(self, platform: str, chat_id: str) -> DailySetting | None:
        rows = await self._fetch(
            "SELECT * FROM daily_settings WHERE platform = $1 AND chat_id = $2", platform, chat_id
        )
        return daily_setting_from(rows[0]) if rows else None

    @retrying
    async def daily_settings(self, platform: str) -> list[DailySetting]:
        rows = await self._fetch(
            "SELECT * FROM daily_settings WHERE platform = $1 ORDER BY chat_id", platform
        )
        return [daily_setting_from(r) for r in rows]

    @retrying
    async def daily_cycle(self, platform: str, chat_id: str) -> tuple[int, list[tuple[str, str]]]:
        rows = await self._fetch(
            "SELECT cycle, quiz_id, question_id FROM daily_posts WHERE platform = $1 "
            "AND chat_id = $2 AND cycle = (SELECT max(cycle) FROM daily_posts "
            "WHERE platform = $1 AND chat_id = $2) ORDER BY day",
            platform,
            chat_id,
        )
        if not rows:
            return 0, []
        return rows[0]["cycle"], [(r["quiz_id"], r["question_id"]) for r in rows]

    @retrying
    async def daily_post(self, platform: str, chat_id: str, day: date) -> DailyPost | None:
        rows = await self._fetch(
            "SELECT * FROM daily_posts WHERE platform = $1 AND chat_id = $2 AND day = $3",
            platform,
            chat_id,
            day.isoformat(),
        )
        return daily_post_from(rows[0]) if rows else None

    @retrying
    async def open_daily_post(
        self, post: NewDailyPost, round_: NewRound
    ) -> tuple[DailyPost, RoundRecord, bool]:
        assert round_.kind is RoundKind.DAILY
        async with self._acquire() as conn, conn.transaction():
            found = await conn.fetchrow(
                "SELECT * FROM daily_posts WHERE platform = $1 AND chat_id = $2 AND day = $3",
                post.platform,
                post.chat_id,
                post.day.isoformat(),
            )
            if found is not None:
                posted = daily_post_from(found)
                row = await conn.fetchrow("SELECT * FROM rounds WHERE id = $1", posted.round_id)
                return posted, round_from(row), False
            record, created = await insert_round(conn, round_)
            if not created:
                # The previous day's round is still open (or another replica is posting this
                # day right now): nothing is written; asking again finds what it left.
                raise StorageError("the chat's previous daily question is still open")
            row = await conn.fetchrow(
                "INSERT INTO daily_posts (platform, chat_id, day, cycle, quiz_id, question_id, "
                "round_id, due_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *",
                post.platform,
                post.chat_id,
                post.day.isoformat(),
                post.cycle,
                post.quiz_id,
                post.question_id,
                record.id,
                post.due_at,
            )
            return daily_post_from(row), record, True

    @retrying
    async def daily_history(
        self,
        platform: str,
        chat_id: str,
        up_to: date,
        limit: int,
        user_ids: Sequence[str],
    ) -> list[DailyDay]:
        rows = await self._fetch(
            DAILY_HISTORY, platform, chat_id, up_to.isoformat(), limit, list(user_ids)
        )
        return [
            DailyDay(
                date.fromisoformat(r["day"]),
                r["round_id"],
                r["open"],
                {user: bool(right) for user, right in json.loads(r["answers"]).items()},
            )
            for r in rows
        ]

    @retrying
    async def daily_chats(self, platform: str, user_id: str) -> list[DailySetting]:
        rows = await self._fetch(
            "SELECT s.* FROM daily_settings s WHERE s.platform = $1 AND EXISTS ("
            "SELECT 1 FROM daily_posts p JOIN round_answers a ON a.round_id = p.round_id "
            "WHERE p.platform = s.platform AND p.chat_id = s.chat_id AND a.user_id = $2) "
            "ORDER BY s.chat_id",
            platform,
            user_id,
        )
        return [daily_setting_from(r) for r in rows]
