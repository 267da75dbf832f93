"""The chat members port: who the bot has seen in each group chat or channel.

No platform lists a group's members to a bot (the Telegram Bot API has no such call), so the
bot keeps the members it sees: those who send it a command there or press its assignment
buttons (:meth:`ChatMemberStore.record_member`), and those who played a group round or a
quiz of their own there (read from the rounds and attempts the database already holds).
"""

from __future__ import annotations

import abc
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol


@dataclass(frozen=True)
class ChatMember:
    """A member seen in one chat, with the name last seen for them (None: never given)."""

    platform: str
    chat_id: str
    user_id: str
    display_name: str | None


class ChatMemberStore(Protocol):
    """The members seen in each chat."""

    @abc.abstractmethod
    async def record_member(
        self, platform: str, chat_id: str, user_id: str, display_name: str | None, at: datetime
    ) -> None:
        """Remember that the user was seen in the chat at ``at`` (and their name, when
        given)."""

    @abc.abstractmethod
    async def chat_members(self, platform: str, chat_id: str) -> list[ChatMember]:
        """Every member seen in the chat: recorded ones, round players and those who played
        a quiz of their own there, by user id; one round trip. Names come from the users'
        records, else from where they were seen."""


# Everyone seen in a chat: recorded, round players, players of their own quiz there;
# ``{platform}`` and ``{chat}``: the dialect's placeholders for the chat's platform and id.
CHAT_MEMBERS = """
WITH seen (user_id, display_name) AS (
    SELECT user_id, display_name FROM chat_members
    WHERE platform = {platform} AND chat_id = {chat}
    UNION ALL
    SELECT a.user_id, a.display_name FROM round_answers a JOIN rounds r ON r.id = a.round_id
    WHERE r.platform = {platform} AND r.chat_id = {chat}
    UNION ALL
    SELECT user_id, NULL FROM attempts WHERE platform = {platform} AND chat_id = {chat}
)
SELECT s.user_id, COALESCE(max(u.display_name), max(s.display_name)) AS display_name
FROM seen s LEFT JOIN users u ON u.platform = {platform} AND u.user_id = s.user_id
GROUP BY s.user_id ORDER BY s.user_id
"""
