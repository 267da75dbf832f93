"""Time zones: the zone of a user or a chat, the next local HH:MM after a moment, and deadlines.

Every wall-clock computation of the bot is here, done with :mod:`zoneinfo` (the ``tzdata``
package provides the zone database where the system has none). Moments are always aware
datetimes; what is stored and scheduled is UTC.

The daylight-saving rule, for every local time the bot is asked to keep (a reminder, a daily
post, a deadline):

- a local time that does not exist that day (clocks spring forward over it, e.g. 02:30 in
  Europe/Berlin on the last Sunday of March) happens once, at the end of the gap: the first
  moment that exists after it (03:00 there);
- a local time that happens twice (clocks fall back over it) happens once, at its first
  occurrence (the earlier moment, ``fold=0``).
"""

from __future__ import annotations

import functools
import re
import zoneinfo
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo

from bot.i18n import t
from bot.local_time import UTC_ZONE, local_text
from bot.storage.ports import KeyValueStore

__all__ = [
    "DEFAULT_ZONE",
    "DeadlineError",
    "Place",
    "TimeZones",
    "at_local",
    "find_zone",
    "local_text",
    "next_local_time",
    "parse_deadline",
    "parse_local_time",
    "zone_names",
]

DEFAULT_ZONE = UTC_ZONE
ZONE_EXAMPLE = "Europe/Berlin"  # what a bad name's message suggests
USER_ZONE_SCOPE = "timezone:user"  # key-value scope: "<platform>:<user id>" -> IANA name
CHAT_ZONE_SCOPE = "timezone:chat"  # key-value scope: "<platform>:<chat id>" -> IANA name
SATURDAY = 5

_LOCAL_TIME = re.compile(r"([01]?[0-9]|2[0-3]):([0-5][0-9])")
_DATE = r"(?P<year>[0-9]{4})-(?P<month>[0-9]{1,2})-(?P<day>[0-9]{1,2})"
_DATE_TIME = re.compile(_DATE + r"(?:[ t](?P<hour>[0-9]{1,2}):(?P<minute>[0-9]{2}))?")
_SPAN_PART = re.compile(r"([0-9]{1,4})\s*([wdhm])")
_SPAN = re.compile(r"(?:[0-9]{1,4}\s*[wdhm]\s*)+")
SPAN_UNITS = {"w": timedelta(weeks=1), "d": timedelta(days=1), "h": timedelta(hours=1)}
SPAN_UNITS["m"] = timedelta(minutes=1)
MAX_DEADLINE = timedelta(days=366)  # a deadline further away is a typo
END_OF_DAY = time(23, 59)  # a deadline given as a date alone: the end of that local day


@functools.cache
def _zone_names() -> dict[str, str]:
    """Every IANA zone name the zone database has, by its lowercase form."""
    return {name.lower(): name for name in zoneinfo.available_timezones()}


def zone_names() -> list[str]:
    """Every IANA zone name, sorted (for autocompletion)."""
    return sorted(_zone_names().values())


def find_zone(name: str) -> zoneinfo.ZoneInfo | None:
    """The zone an IANA name (``Europe/Berlin``; any letter case; ``UTC``) names, else None."""
    cleaned = name.strip()
    if not cleaned or len(cleaned) > 64:
        return None
    exact = _zone_names().get(cleaned.lower())
    return zoneinfo.ZoneInfo(exact) if exact else None


def parse_local_time(text: str) -> time | None:
    """``HH:MM`` (00:00 to 23:59; ``8:30`` too) as a time of day, else None."""
    match = _LOCAL_TIME.fullmatch(text.strip())
    return time(int(match.group(1)), int(match.group(2))) if match else None


def _exists(wall: datetime, zone: tzinfo) -> bool:
    """Whether the naive local time ``wall`` exists in ``zone`` (it is not in a gap)."""
    back = wall.replace(tzinfo=zone).astimezone(UTC).astimezone(zone)
    return back.replace(tzinfo=None) == wall


def _end_of_gap(wall: datetime, zone: tzinfo) -> datetime:
    """The moment clocks jumped over the non-existent local time ``wall``: the first moment
    after the gap. Found between the two readings of ``wall`` (before and after the jump)."""
    early = wall.replace(tzinfo=zone, fold=1).astimezone(UTC)  # read with the later offset
    late = wall.replace(tzinfo=zone, fold=0).astimezone(UTC)  # read with the earlier offset
    lo, hi = min(early, late), max(early, late)
    after = hi.astimezone(zone).utcoffset()
    while hi - lo > timedelta(seconds=1):
        middle = lo + (hi - lo) / 2
        if middle.astimezone(zone).utcoffset() == after:
            hi = middle
        else:
            lo = middle
    return hi.replace(microsecond=0) if hi.microsecond else hi


def at_local(day: date, at: time, zone: tzinfo) -> datetime:
    """The moment (UTC) the clocks of ``zone`` show ``at`` on ``day``, by the rule above: a
    time skipped by a spring-forward is the end of the gap, a repeated one its first time."""
    wall = datetime.combine(day, at)
    if not _exists(wall, zone):
        return _end_of_gap(wall, zone)
    return wall.replace(tzinfo=zone, fold=0).astimezone(UTC)


def next_local_time(
    after: datetime, at: time, zone: tzinfo, *, weekdays_only: bool = False
) -> datetime:
    """The first moment strictly after ``after`` when the clocks of ``zone`` show ``at``
    (Monday to Friday only, with ``weekdays_only``), by the daylight-saving rule above."""
    day = after.astimezone(zone).date()
    while True:
        if not (weekdays_only and day.weekday() >= SATURDAY):
            moment = at_local(day, at, zone)
            if moment > after:
                return moment
        day += timedelta(days=1)


class DeadlineError(ValueError):
    """A deadline that cannot be used; ``key`` is the i18n string that explains why."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def parse_deadline(text: str, zone: tzinfo, now: datetime) -> datetime:
    """A deadline (UTC) from what a user typed, local times read in ``zone``:

    - ``2026-12-10``: the end of that day (23:59 local);
    - ``2026-12-10 18:00``: that local time;
    - ``3d``, ``12h``, ``90m``, ``1w``, or several (``1d 12h``): that long from ``now``.

    Raises :class:`DeadlineError` (``deadline_invalid``: not one of these forms, or no such
    date; ``deadline_past``: not after ``now``; ``deadline_too_far``: over a year away).
    """
    cleaned = " ".join(text.lower().split())
    if _SPAN.fullmatch(cleaned):
        span = sum(
            (int(n) * SPAN_UNITS[unit] for n, unit in _SPAN_PART.findall(cleaned)), timedelta()
        )
        deadline = now + span
    else:
        deadline = _local_deadline(cleaned, zone)
    if deadline <= now:
        raise DeadlineError("deadline_past")
    if deadline - now > MAX_DEADLINE:
        raise DeadlineError("deadline_too_far")
    return deadline


def _local_deadline(text: str, zone: tzinfo) -> datetime:
    match = _DATE_TIME.fullmatch(text)
    if match is None:
        raise DeadlineError("deadline_invalid")
    try:
        day = date(int(match["year"]), int(match["month"]), int(match["day"]))
        at = END_OF_DAY if match["hour"] is None else time(int(match["hour"]), int(match["minute"]))
    except ValueError:  # 2026-02-30, 25:00
        raise DeadlineError("deadline_invalid") from None
    return at_local(day, at, zone)


@dataclass(frozen=True)
class Place:
    """Whose time zone: a user (their private chat) or a chat (a group, a Discord server)."""

    platform: str
    id: str
    chat: bool = False

    @property
    def scope(self) -> str:
        return CHAT_ZONE_SCOPE if self.chat else USER_ZONE_SCOPE

    @property
    def key(self) -> str:
        return f"{self.platform}:{self.id}"


class TimeZones:
    """The zone of each user and chat, kept in the key-value store; UTC until one is set."""

    def __init__(self, store: KeyValueStore) -> None:
        self.store = store

    async def zone(self, place: Place) -> zoneinfo.ZoneInfo:
        """The zone set for ``place``, else UTC (also when a stored name is not known any
        more, say after a zone database without it)."""
        name = await self.store.get_value(place.scope, place.key)
        return (find_zone(name) if name else None) or DEFAULT_ZONE

    async def of_user(self, platform: str, user_id: str) -> zoneinfo.ZoneInfo:
        return await self.zone(Place(platform, user_id))

    async def of_chat(self, platform: str, chat_id: str) -> zoneinfo.ZoneInfo:
        return await self.zone(Place(platform, chat_id, chat=True))

    async def set_zone(self, place: Place, zone: zoneinfo.ZoneInfo | None) -> None:
        """Set ``place``'s zone (None: back to UTC)."""
        await self.store.set_value(place.scope, place.key, zone.key if zone else None)

    async def command(
        self,
        place: Place,
        argument: str | None,
        language: str,
        now: datetime,
        *,
        may_change: bool = True,
    ) -> tuple[str, bool]:
        """``/timezone`` on any platform: a name sets ``place``'s zone (refused unless
        ``may_change``: a chat's zone is its admins'), nothing shows it. The reply in
        ``language``, and whether the zone changed."""
        whose = "chat" if place.chat else "user"
        name = (argument or "").strip()
        if not name:
            current = await self.zone(place)
            shown = f"{now.astimezone(current):%H:%M}"
            return t(f"timezone_current_{whose}", language, zone=current.key, time=shown), False
        zone = find_zone(name)
        if zone is None:
            return t("timezone_unknown", language, name=name[:64]), False
        if not may_change:
            return t("timezone_admins_only", language), False
        await self.set_zone(place, zone)
        shown = f"{now.astimezone(zone):%H:%M}"
        return t(f"timezone_set_{whose}", language, zone=zone.key, time=shown), True
