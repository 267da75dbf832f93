"""Recording the members the bot sees in each chat, once a day at most per member.

No platform lists a group's members to a bot, so reports count the members the bot has seen
(:class:`~bot.storage.chat_members.ChatMemberStore`). Adapters tell :class:`ChatMembers`
whenever someone acts in a group; it writes a sighting only the first time this process sees
that member in that chat on a given day, so a busy group costs one write per member a day,
not one per command.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from datetime import date, datetime

from bot.storage.chat_members import ChatMemberStore
from bot.views import Participant

REMEMBERED = 20_000  # sightings kept in memory (a bound, not a cache that must be complete)


class ChatMembers:
    """Who was seen in which chat: recorded through the storage, deduplicated in memory."""

    def __init__(self, store: ChatMemberStore, clock: Callable[[], datetime]) -> None:
        self.store = store
        self.clock = clock
        self._recorded: OrderedDict[tuple[str, str, str], date] = OrderedDict()

    async def seen(self, chat_id: str, who: Participant) -> None:
        """``who`` acted in the chat: remember them there (at most once a day per process)."""
        now = self.clock()
        key = (who.platform, chat_id, who.user_id)
        if self._recorded.get(key) == now.date():
            return
        await self.store.record_member(who.platform, chat_id, who.user_id, who.display_name, now)
        self._recorded[key] = now.date()
        self._recorded.move_to_end(key)
        while len(self._recorded) > REMEMBERED:
            self._recorded.popitem(last=False)
