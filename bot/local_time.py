"""A moment as a zone's clocks show it, written the same in every language."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

UTC_ZONE = ZoneInfo("UTC")


def local_text(moment: datetime, zone: ZoneInfo) -> str:
    """``moment`` as the clocks of ``zone`` show it, named: ``2026-12-10 18:00 Europe/Berlin``
    (digits only, so it reads the same in every language)."""
    return f"{moment.astimezone(zone):%Y-%m-%d %H:%M} {zone.key}"
