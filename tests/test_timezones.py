"""Time zones: finding a zone by name, the next local HH:MM across daylight-saving changes,
deadlines typed by users, and the zone kept per user and per chat."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest

from bot.scheduling.timezones import (
    DEFAULT_ZONE,
    DeadlineError,
    Place,
    TimeZones,
    at_local,
    find_zone,
    local_text,
    next_local_time,
    parse_deadline,
    parse_local_time,
)
from bot.storage import Storage

BERLIN = ZoneInfo("Europe/Berlin")
NEW_YORK = ZoneInfo("America/New_York")
KOLKATA = ZoneInfo("Asia/Kolkata")


def utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=UTC)


def test_zones_are_found_by_their_iana_name_in_any_letter_case() -> None:
    assert find_zone("Europe/Berlin") == BERLIN
    assert find_zone("  europe/berlin ") == BERLIN
    assert find_zone("UTC") == DEFAULT_ZONE
    assert find_zone("asia/dhaka") == ZoneInfo("Asia/Dhaka")
    for bad in ("", "Berlin", "Europe/Atlantis", "../../etc/passwd", "x" * 100, "GMT+25"):
        assert find_zone(bad) is None, bad


def test_local_times_of_day_are_hh_mm() -> None:
    assert parse_local_time("08:30") == time(8, 30)
    assert parse_local_time("8:05") == time(8, 5)
    assert parse_local_time("23:59") == time(23, 59)
    for bad in ("24:00", "8", "8:5", "08:60", "noon", "-1:00", "08:30:00"):
        assert parse_local_time(bad) is None, bad


def test_the_next_local_time_is_later_today_or_tomorrow_in_the_zone() -> None:
    # 07:00 UTC is 08:00 in Berlin (winter): 08:30 is still ahead today, 07:30 tomorrow.
    now = utc(2026, 1, 15, 7, 0)
    assert next_local_time(now, time(8, 30), BERLIN) == utc(2026, 1, 15, 7, 30)
    assert next_local_time(now, time(7, 30), BERLIN) == utc(2026, 1, 16, 6, 30)
    # Exactly at the time: the next one is a day later.
    assert next_local_time(utc(2026, 1, 15, 7, 30), time(8, 30), BERLIN) == utc(2026, 1, 16, 7, 30)
    # A zone ahead of UTC by 5:30 is already on the next date.
    assert next_local_time(utc(2026, 1, 15, 20, 0), time(6, 0), KOLKATA) == utc(2026, 1, 16, 0, 30)


def test_weekdays_only_skips_saturday_and_sunday_in_local_time() -> None:
    friday_evening = utc(2026, 1, 16, 18, 0)  # Friday 2026-01-16, 19:00 in Berlin
    monday = next_local_time(friday_evening, time(9, 0), BERLIN, weekdays_only=True)
    assert monday == utc(2026, 1, 19, 8, 0)
    assert monday.astimezone(BERLIN).strftime("%A") == "Monday"
    saturday = next_local_time(friday_evening, time(9, 0), BERLIN)
    assert saturday.astimezone(BERLIN).strftime("%A") == "Saturday"


def test_a_time_skipped_by_spring_forward_happens_once_at_the_end_of_the_gap() -> None:
    """Berlin, 2026-03-29: clocks go from 02:00 to 03:00. 02:30 happens at 03:00 local."""
    assert at_local(date(2026, 3, 29), time(2, 30), BERLIN) == utc(2026, 3, 29, 1, 0)
    before = utc(2026, 3, 28, 2, 0)  # Saturday 03:00 local, after that day's 02:30
    first = next_local_time(before, time(2, 30), BERLIN)
    assert first == utc(2026, 3, 29, 1, 0)
    assert first.astimezone(BERLIN).strftime("%H:%M %Z") == "03:00 CEST"
    # Once: the next is Monday's 02:30 (CEST), not a second one on Sunday.
    second = next_local_time(first, time(2, 30), BERLIN)
    assert second == utc(2026, 3, 30, 0, 30)
    # New York springs forward at 02:00 too (2026-03-08).
    assert at_local(date(2026, 3, 8), time(2, 30), NEW_YORK) == utc(2026, 3, 8, 7, 0)


def test_a_time_repeated_by_fall_back_happens_once_at_its_first_occurrence() -> None:
    """Berlin, 2026-10-25: clocks go from 03:00 back to 02:00; 02:30 comes twice."""
    first = next_local_time(utc(2026, 10, 24, 12, 0), time(2, 30), BERLIN)
    assert first == utc(2026, 10, 25, 0, 30)  # 02:30 CEST, the first
    assert first.astimezone(BERLIN).strftime("%H:%M %Z") == "02:30 CEST"
    again = next_local_time(first, time(2, 30), BERLIN)
    assert again == utc(2026, 10, 26, 1, 30)  # not 01:30 UTC the same night (02:30 CET)
    # A day of 25 hours: a daily 09:00 stays at 09:00 local on either side.
    assert next_local_time(utc(2026, 10, 24, 8, 0), time(9, 0), BERLIN) == utc(2026, 10, 25, 8, 0)


NOW = utc(2026, 12, 1, 12, 0)  # 13:00 in Berlin


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-12-10", utc(2026, 12, 10, 22, 59)),  # the end of that day, 23:59 in Berlin
        ("2026-12-10 18:00", utc(2026, 12, 10, 17, 0)),
        ("2026-12-10T18:00", utc(2026, 12, 10, 17, 0)),
        ("2026-12-1 14:00", utc(2026, 12, 1, 13, 0)),
        ("3d", NOW + timedelta(days=3)),
        ("12h", NOW + timedelta(hours=12)),
        ("90m", NOW + timedelta(minutes=90)),
        ("1w", NOW + timedelta(weeks=1)),
        ("1d 12h", NOW + timedelta(days=1, hours=12)),
        (" 2D ", NOW + timedelta(days=2)),
    ],
)
def test_deadlines_are_dates_local_times_or_spans(text: str, expected: datetime) -> None:
    assert parse_deadline(text, BERLIN, NOW) == expected


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("tomorrow", "deadline_invalid"),
        ("2026-02-30", "deadline_invalid"),
        ("2026-12-10 25:00", "deadline_invalid"),
        ("10.12.2026", "deadline_invalid"),
        ("", "deadline_invalid"),
        ("3", "deadline_invalid"),
        ("0h", "deadline_past"),
        ("2026-12-01 12:00", "deadline_past"),  # 12:00 in Berlin was an hour ago
        ("2025-06-01", "deadline_past"),
        ("400d", "deadline_too_far"),
    ],
)
def test_a_deadline_that_cannot_be_used_says_why(text: str, key: str) -> None:
    with pytest.raises(DeadlineError) as error:
        parse_deadline(text, BERLIN, NOW)
    assert error.value.key == key


def test_a_deadline_in_a_spring_forward_gap_is_the_end_of_the_gap() -> None:
    before = utc(2026, 3, 20, 12, 0)
    assert parse_deadline("2026-03-29 02:30", BERLIN, before) == utc(2026, 3, 29, 1, 0)


def test_local_text_names_the_zone() -> None:
    assert local_text(utc(2026, 12, 10, 17, 0), BERLIN) == "2026-12-10 18:00 Europe/Berlin"
    assert local_text(utc(2026, 12, 10, 17, 0), DEFAULT_ZONE) == "2026-12-10 17:00 UTC"


async def test_each_user_and_chat_has_a_zone_utc_until_set(any_storage: Storage) -> None:
    zones = TimeZones(any_storage)
    user, chat = Place("telegram", "42"), Place("telegram", "42", chat=True)
    assert await zones.zone(user) == DEFAULT_ZONE
    await zones.set_zone(user, BERLIN)
    assert await zones.of_user("telegram", "42") == BERLIN
    assert await zones.of_chat("telegram", "42") == DEFAULT_ZONE  # a chat is not its user
    assert await zones.of_user("discord", "42") == DEFAULT_ZONE  # nor another platform's
    await zones.set_zone(chat, KOLKATA)
    assert await zones.of_chat("telegram", "42") == KOLKATA
    await zones.set_zone(user, None)
    assert await zones.of_user("telegram", "42") == DEFAULT_ZONE
    # A stored name the zone database does not know (any more) reads as UTC.
    await any_storage.set_value(user.scope, user.key, "Mars/Olympus_Mons")
    assert await zones.zone(user) == DEFAULT_ZONE
