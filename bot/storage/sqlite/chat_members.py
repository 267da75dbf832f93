"""The SQLite backend's chat members."""

from __future__ import annotations

import sqlite3
from datetime import datetime

from bot.storage.assignment_rows import chat_member_from
from bot.storage.chat_members import CHAT_MEMBERS, ChatMember, ChatMemberStore
from bot.storage.sqlite.writer import SQLiteWriter, _ts

CHAT_MEMBERS_SQL = CHAT_MEMBERS.format(platform="?1", chat="?2")


class SQLiteChatMembers(SQLiteWriter, ChatMemberStore):
    """:class:`ChatMemberStore` in SQLite."""

    async def record_member(
        self, platform: str, chat_id: str, user_id: str, display_name: str | None, at: datetime
    ) -> None:
        def op(conn: sqlite3.Connection) -> None:
            conn.execute(
                "INSERT INTO chat_members (platform, chat_id, user_id, display_name, first_seen, "
                "last_seen) VALUES (?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (platform, chat_id, user_id) DO UPDATE SET "
                "display_name = COALESCE(excluded.display_name, chat_members.display_name), "
                "last_seen = MAX(chat_members.last_seen, excluded.last_seen)",
                (platform, chat_id, user_id, display_name, _ts(at), _ts(at)),
            )

        await self._write(op)

    async def chat_members(self, platform: str, chat_id: str) -> list[ChatMember]:
        rows = await self._fetchall(CHAT_MEMBERS_SQL, (platform, chat_id))
        return [chat_member_from(r, platform, chat_id) for r in rows]
