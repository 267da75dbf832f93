"""What the daily question shows: a chat's setting and its next post, the outcome of ``/daily``,
and a member's streaks. Plain values; adapters lay them out (times in the chat's zone)."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime, time

from bot.rounds.views import MemberStreak


@dataclass(frozen=True)
class DailyStatus:
    """A chat's daily question as set: when (local time in ``zone``), from which quizzes (their
    titles; empty: every quiz), open how long, and when the next one is posted and closes."""

    at: time
    weekdays_only: bool
    zone: str  # IANA name
    quiz_titles: tuple[str, ...]
    close_minutes: int
    next_post: datetime
    next_close: datetime


class DailyOutcome(enum.StrEnum):
    SHOWN = "shown"  # the setting (``status``), or that there is none
    TURNED_ON = "turned_on"  # set now (``status`` is the new setting)
    TURNED_OFF = "turned_off"
    REFUSED = "refused"  # not a chat admin, or bad input: ``notice`` says why, nothing changed


@dataclass(frozen=True)
class DailyReply:
    """What ``/daily`` did: a notice (when there is no status to show, or why nothing changed),
    and the chat's setting, when there is one."""

    outcome: DailyOutcome
    language: str
    notice: str = ""
    status: DailyStatus | None = None
    # The daily string the notice is (empty: another notice), so that a platform whose
    # commands are typed otherwise can say it in its own words.
    key: str = ""


@dataclass(frozen=True)
class ChatStreak:
    """A member's streak in one chat's daily questions (for ``/progress``)."""

    chat_id: str
    chat_title: str | None
    streak: MemberStreak
