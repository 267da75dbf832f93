"""The PostgreSQL backend's chat members."""

from __future__ import annotations

from datetime import datetime

from bot.storage.assignment_rows import chat_member_from
from bot.storage.chat_members import ChatMember, ChatMemberStore
from bot.storage.postgres.pool import PostgresPool, retrying

# Everyone seen in chat ($1, $2): recorded, round players, players of their own quiz there.
CHAT_MEMBERS = """
WITH seen (user_id, display_name) AS (
    SELECT user_id, display_name FROM chat_members WHERE platform = $1 AND chat_id = $2
    UNION ALL
    SELECT a.user_id, a.display_name FROM round_answers a JOIN rounds r ON r.id = a.round_id
    WHERE r.platform = $1 AND r.chat_id = $2
    UNION ALL
    SELECT user_id, NULL FROM attempts WHERE platform = $1 AND chat_id = $2
)
SELECT s.user_id, COALESCE(max(u.display_name), max(s.display_name)) AS display_name
FROM seen s LEFT JOIN users u ON u.platform = $1 AND u.user_id = s.user_id
GROUP BY s.user_id ORDER BY s.user_id
"""


class PostgresChatMembers(PostgresPool, ChatMemberStore):
    """:class:`ChatMemberStore` in PostgreSQL."""

    @retrying
    async def record_member(
        self, platform: str, chat_id: str, user_id: str, display_name: str | None, at: datetime
    ) -> None:
        async with self._acquire() as conn:
            await conn.execute(
                "INSERT INTO chat_members (platform, chat_id, user_id, display_name, first_seen, "
                "last_seen) VALUES ($1, $2, $3, $4, $5, $5) "
                "ON CONFLICT (platform, chat_id, user_id) DO UPDATE SET "
                "display_name = COALESCE(excluded.display_name, chat_members.display_name), "
                "last_seen = greatest(chat_members.last_seen, excluded.last_seen)",
                platform,
                chat_id,
                user_id,
                display_name,
                at,
            )

    @retrying
    async def chat_members(self, platform: str, chat_id: str) -> list[ChatMember]:
        rows = await self._fetch(CHAT_MEMBERS, platform, chat_id)
        return [chat_member_from(r, platform, chat_id) for r in rows]
