"""Deadlines as admins type them, and as members read them.

``2026-12-10`` (the end of that day), ``2026-12-10 18:00``, ``3d`` (three days from now) or
``12h`` (twelve hours from now), in the chat's time zone; shown back as local time with the
zone's name. (A small parser of its own until the scheduling foundation's lands.)
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

RELATIVE = re.compile(r"([1-9][0-9]{0,2})\s*([dh])", re.IGNORECASE)
DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
DATE_TIME = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})[ T]([0-9]{1,2}):([0-9]{2})")
END_OF_DAY = time(23, 59)
UNITS = {"d": timedelta(days=1), "h": timedelta(hours=1)}


def parse_deadline(text: str, now: datetime, zone: ZoneInfo) -> datetime | None:
    """The moment ``text`` names (in UTC), read in ``zone``; None when it names none."""
    text = " ".join(text.split())
    if match := RELATIVE.fullmatch(text):
        return (now + int(match[1]) * UNITS[match[2].lower()]).astimezone(UTC)
    try:
        if match := DATE_TIME.fullmatch(text):
            year, month, day, hour, minute = (int(part) for part in match.groups())
            local = datetime(year, month, day, hour, minute, tzinfo=zone)
        elif match := DATE.fullmatch(text):
            year, month, day = (int(part) for part in match.groups())
            local = datetime.combine(datetime(year, month, day).date(), END_OF_DAY, zone)
        else:
            return None
    except ValueError:  # 2026-02-30, 25:00
        return None
    return local.astimezone(UTC)


def local_time(at: datetime, zone: ZoneInfo) -> str:
    """``2026-12-10 18:00 (Europe/Berlin)``; ``… UTC`` in UTC. Digits read the same in
    every language the bot speaks, so the moment needs no translation."""
    local = at.astimezone(zone)
    name = zone.key
    shown = local.strftime("%Y-%m-%d %H:%M")
    return f"{shown} UTC" if name in ("UTC", "Etc/UTC") else f"{shown} ({name})"
