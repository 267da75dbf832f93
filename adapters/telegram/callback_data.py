"""Compact, versioned ``callback_data`` for inline buttons.

Everything a press needs travels in the button itself (Telegram gives us at most 64 bytes), so a
freshly restarted process understands presses on messages sent before it started: no in-memory
callback cache. Every kind names whose button it is (an attempt, or a user id), so a press by
someone else in a group can be refused.

Forms (``v1`` is the version; a new layout gets ``v2`` and old buttons decode to None)::

    v1:a:<attempt>:<question number>:<option index>   answer
    v1:q:<quiz id>:<user id>                          pick a quiz from a picker shown to user
    v1:r:<attempt>                                    retry the quiz of a finished attempt
    v1:o:<attempt>                                    show the picker after a finished attempt
    v1:l:<language>:<user id>                         choose the interface language
    v1:s:<attempt>:<1|0>                              confirm or cancel stopping an attempt
    v1:m:<p|b>                                        this chat's question mode: polls or buttons
    v1:g:<round>:<question number>:<option index>     answer in a group round (any member)
    v1:p:<quiz id>:<user id>                          pick the quiz of a group round user asked for
    v1:v                                              start a review (a reminder's button)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_BYTES = 64
VERSION = "v1"

# Bounds keep every form under 64 bytes: ids are SQLite rowids (< 2**63), Telegram user ids
# fit in 52 bits (< 10**16), quiz ids follow the quiz file format (at most 40 characters).
MAX_ID = 2**63 - 1
MAX_USER_ID = 10**16 - 1
MAX_QUESTION_NUMBER = 9999
MAX_OPTION_INDEX = 99
QUIZ_ID = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")
LANGUAGE = re.compile(r"[a-z]{2,3}")
_NUMBER = re.compile(r"0|[1-9][0-9]{0,18}")


@dataclass(frozen=True)
class Answer:
    attempt_id: int
    question_number: int  # 1-based, in the attempt's order
    option_index: int  # 0-based, in the order the attempt shows


@dataclass(frozen=True)
class PickQuiz:
    quiz_id: str
    user_id: int  # who the picker was shown to


@dataclass(frozen=True)
class Retry:
    attempt_id: int


@dataclass(frozen=True)
class OtherQuiz:
    attempt_id: int


@dataclass(frozen=True)
class ChooseLanguage:
    language: str
    user_id: int


@dataclass(frozen=True)
class StopConfirm:
    attempt_id: int
    confirm: bool


@dataclass(frozen=True)
class SetMode:
    poll: bool


@dataclass(frozen=True)
class RoundAnswer:
    round_id: int
    question_number: int  # 1-based, in the round's order
    option_index: int  # 0-based, in the order the round shows


@dataclass(frozen=True)
class PickRound:
    quiz_id: str
    user_id: int  # who asked for the round (the picker is theirs)


@dataclass(frozen=True)
class StartReview:
    """Start (or resume) the presser's review: the button of a review reminder."""


CallbackData = (
    Answer
    | PickQuiz
    | Retry
    | OtherQuiz
    | ChooseLanguage
    | StopConfirm
    | SetMode
    | RoundAnswer
    | PickRound
    | StartReview
)


def encode(data: CallbackData) -> str:
    """The button payload for ``data``; raises ValueError for values out of bounds."""
    match data:
        case Answer(attempt_id, number, index):
            _check(0 <= attempt_id <= MAX_ID, "attempt id")
            _check(1 <= number <= MAX_QUESTION_NUMBER, "question number")
            _check(0 <= index <= MAX_OPTION_INDEX, "option index")
            text = f"{VERSION}:a:{attempt_id}:{number}:{index}"
        case PickQuiz(quiz_id, user_id):
            _check(QUIZ_ID.fullmatch(quiz_id) is not None, "quiz id")
            _check(0 <= user_id <= MAX_USER_ID, "user id")
            text = f"{VERSION}:q:{quiz_id}:{user_id}"
        case Retry(attempt_id):
            _check(0 <= attempt_id <= MAX_ID, "attempt id")
            text = f"{VERSION}:r:{attempt_id}"
        case OtherQuiz(attempt_id):
            _check(0 <= attempt_id <= MAX_ID, "attempt id")
            text = f"{VERSION}:o:{attempt_id}"
        case ChooseLanguage(language, user_id):
            _check(LANGUAGE.fullmatch(language) is not None, "language")
            _check(0 <= user_id <= MAX_USER_ID, "user id")
            text = f"{VERSION}:l:{language}:{user_id}"
        case StopConfirm(attempt_id, confirm):
            _check(0 <= attempt_id <= MAX_ID, "attempt id")
            text = f"{VERSION}:s:{attempt_id}:{1 if confirm else 0}"
        case SetMode(poll):
            text = f"{VERSION}:m:{'p' if poll else 'b'}"
        case RoundAnswer(round_id, number, index):
            _check(0 <= round_id <= MAX_ID, "round id")
            _check(1 <= number <= MAX_QUESTION_NUMBER, "question number")
            _check(0 <= index <= MAX_OPTION_INDEX, "option index")
            text = f"{VERSION}:g:{round_id}:{number}:{index}"
        case PickRound(quiz_id, user_id):
            _check(QUIZ_ID.fullmatch(quiz_id) is not None, "quiz id")
            _check(0 <= user_id <= MAX_USER_ID, "user id")
            text = f"{VERSION}:p:{quiz_id}:{user_id}"
        case StartReview():
            text = f"{VERSION}:v"
    if len(text.encode()) > MAX_BYTES:  # cannot happen within the bounds above; never send it
        raise ValueError(f"callback_data over {MAX_BYTES} bytes: {text!r}")
    return text


def decode(raw: str | None) -> CallbackData | None:
    """The payload of a button, or None for anything this version did not produce."""
    if not raw or len(raw.encode()) > MAX_BYTES:
        return None
    parts = raw.split(":")
    if parts == [VERSION, "v"]:
        return StartReview()
    if len(parts) < 3 or parts[0] != VERSION:
        return None
    try:
        return _parse(parts[1], parts[2:])
    except ValueError:  # a number out of its bounds
        return None


def _parse(kind: str, args: list[str]) -> CallbackData | None:
    """The payload of one kind from its fields; None for an unknown kind or shape."""
    match kind, args:
        case "a", [attempt, number, index]:
            return Answer(
                _int(attempt, MAX_ID),
                _int(number, MAX_QUESTION_NUMBER, low=1),
                _int(index, MAX_OPTION_INDEX),
            )
        case "q", [quiz_id, user_id] if QUIZ_ID.fullmatch(quiz_id):
            return PickQuiz(quiz_id, _int(user_id, MAX_USER_ID))
        case "r", [attempt]:
            return Retry(_int(attempt, MAX_ID))
        case "o", [attempt]:
            return OtherQuiz(_int(attempt, MAX_ID))
        case "l", [language, user_id] if LANGUAGE.fullmatch(language):
            return ChooseLanguage(language, _int(user_id, MAX_USER_ID))
        case "s", [attempt, ("1" | "0") as flag]:
            return StopConfirm(_int(attempt, MAX_ID), flag == "1")
        case "m", [("p" | "b") as mode]:
            return SetMode(mode == "p")
        case "g", [round_id, number, index]:
            return RoundAnswer(
                _int(round_id, MAX_ID),
                _int(number, MAX_QUESTION_NUMBER, low=1),
                _int(index, MAX_OPTION_INDEX),
            )
        case "p", [quiz_id, user_id] if QUIZ_ID.fullmatch(quiz_id):
            return PickRound(quiz_id, _int(user_id, MAX_USER_ID))
    return None


def _int(text: str, high: int, *, low: int = 0) -> int:
    """A canonical decimal (no sign, no leading zeros) within bounds, else ValueError."""
    if not _NUMBER.fullmatch(text):
        raise ValueError(text)
    value = int(text)
    if not low <= value <= high:
        raise ValueError(text)
    return value


def _check(ok: bool, what: str) -> None:
    if not ok:
        raise ValueError(f"{what} out of range for callback_data")
