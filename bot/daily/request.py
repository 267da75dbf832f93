"""What ``/daily`` asks for, read from its words (Telegram's arguments; Discord's options are
joined into the same words): nothing (show the setting), ``off``, or ``HH:MM`` followed, in any
order, by ``weekdays``, how long each question stays open (``6h``, ``90m``) and quiz ids."""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta

from bot.scheduling.timezones import DeadlineError, parse_deadline, parse_local_time

DEFAULT_OPEN = timedelta(hours=12)
MIN_OPEN, MAX_OPEN = timedelta(minutes=10), timedelta(hours=24)
WEEKDAYS_WORDS = frozenset({"weekdays", "weekday", "workdays"})
OFF_WORDS = frozenset({"off", "stop"})
_EPOCH = datetime(2000, 1, 1, tzinfo=UTC)


class DailyAction(enum.StrEnum):
    SHOW = "show"
    OFF = "off"
    SET = "set"


@dataclass(frozen=True)
class DailyRequest:
    """``/daily`` read: what to do and, to set it, when, how long open, from which quizzes."""

    action: DailyAction
    at: time | None = None
    weekdays_only: bool = False
    open_for: timedelta = DEFAULT_OPEN
    quiz_ids: tuple[str, ...] = ()


class DailyRequestError(ValueError):
    """Words ``/daily`` cannot use: ``key`` is the daily string that says why, or, with
    ``unknown_quiz``, a word that is no quiz id (the engine's notice names the quizzes)."""

    def __init__(self, key: str, unknown_quiz: str | None = None) -> None:
        super().__init__(key)
        self.key = key
        self.unknown_quiz = unknown_quiz


def parse_daily(words: Sequence[str], is_quiz: Callable[[str], bool]) -> DailyRequest:
    """The request ``words`` make; :class:`DailyRequestError` when they make none."""
    words = [w for w in (word.strip() for word in words) if w]
    if not words:
        return DailyRequest(DailyAction.SHOW)
    if len(words) == 1 and words[0].lower() in OFF_WORDS:
        return DailyRequest(DailyAction.OFF)
    at = parse_local_time(words[0])
    if at is None:
        raise DailyRequestError("daily_bad_time")
    weekdays, open_for, quizzes = False, DEFAULT_OPEN, []
    for word in words[1:]:
        if word.lower() in WEEKDAYS_WORDS:
            weekdays = True
        elif is_quiz(word):
            quizzes.append(word)
        elif _looks_like_span(word):
            open_for = _span(word)
        else:
            raise DailyRequestError("daily_bad_time", unknown_quiz=word)
    return DailyRequest(DailyAction.SET, at, weekdays, open_for, tuple(dict.fromkeys(quizzes)))


def _looks_like_span(word: str) -> bool:
    return word[:1].isdigit() and word[-1:].isalpha() and "-" not in word


def _span(word: str) -> timedelta:
    """How long ``6h``, ``90m`` or ``1h30m`` is (the units of typed deadlines), between
    :data:`MIN_OPEN` and :data:`MAX_OPEN`; else :class:`DailyRequestError`."""
    try:
        span = parse_deadline(word, UTC, _EPOCH) - _EPOCH
    except DeadlineError:
        raise DailyRequestError("daily_bad_window") from None
    if not MIN_OPEN <= span <= MAX_OPEN:
        raise DailyRequestError("daily_bad_window")
    return span
