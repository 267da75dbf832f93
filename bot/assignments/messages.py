"""The outbox messages of assignments worded once for every platform, from their payloads
(:mod:`bot.assignments.reminders`), in the language they are sent in.

The quiz's title and the hardest question's text are looked up in the catalog in that
language (the payload's title stands in for a quiz no longer served). A deadline is passed in
as the platform shows it, as in :mod:`bot.assignments.presenters`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.assignments.presenters import quiz_title, shorten_hardest
from bot.assignments.texts import assignment_t
from bot.catalog import QuizCatalog
from bot.presenters import hardest_line, member_name
from bot.text_direction import prepare

Payload = Mapping[str, Any]


def title(payload: Payload, language: str, catalog: QuizCatalog) -> str:
    """The assignment's quiz title in ``language`` (its default language's when missing)."""
    quiz = catalog.get(str(payload.get("quiz")))
    if quiz is None:
        return str(payload.get("title") or payload.get("quiz"))
    return quiz_title(quiz, language)


def reminder_line(payload: Payload, language: str, catalog: QuizCatalog, deadline: str) -> str:
    """To a member who started and has not finished, in their private chat: which chat's
    assignment it is (when its title was known), when it is due, how far they got."""
    values = {
        "title": title(payload, language, catalog),
        "id": payload["assignment"],
        "deadline": deadline,
        "answered": payload["answered"],
        "total": payload["total"],
    }
    chat = payload.get("chat")
    if isinstance(chat, str) and chat.strip():
        where = prepare(member_name(chat), language)
        return assignment_t("reminder_in_chat", language, chat=where, **values)
    return assignment_t("reminder", language, **values)


def recap_lines(payload: Payload, language: str, catalog: QuizCatalog) -> list[str]:
    """In the chat, with each reminder: how long is left, who did what so far."""
    minutes = int(payload["minutes"])
    values = {"title": title(payload, language, catalog), "id": payload["assignment"]}
    if minutes >= 60:
        left = assignment_t("recap_hours", language, count=round(minutes / 60), **values)
    else:
        left = assignment_t("recap_minutes", language, count=minutes, **values)
    counts = assignment_t(
        "recap_counts",
        language,
        done=payload["done"],
        going=payload["going"],
        waiting=payload["waiting"],
    )
    return [left, counts]


def summary_lines(payload: Payload, language: str, catalog: QuizCatalog) -> list[str]:
    """In the chat at the deadline: completion, average score, hardest question."""
    done, members = int(payload["done"]), int(payload["members"])
    percent = round(100 * done / members) if members else 0
    average = payload.get("average")
    shown = "–" if average is None else f"{float(average):.1f}/{payload['total']}"
    lines = [
        assignment_t(
            "summary_heading",
            language,
            id=payload["assignment"],
            title=title(payload, language, catalog),
        ),
        assignment_t("summary_completion", language, done=done, members=members, percent=percent),
        assignment_t("summary_average", language, average=shown),
    ]
    hardest = payload.get("hardest")
    if isinstance(hardest, Mapping):
        lines.append(_hardest(payload, hardest, language, catalog))
    return lines


def _hardest(
    payload: Payload, hardest: Mapping[str, Any], language: str, catalog: QuizCatalog
) -> str:
    quiz = catalog.get(str(payload.get("quiz")))
    question = quiz.question(str(hardest.get("question"))) if quiz else None
    text = ""
    if quiz is not None and question is not None:
        lang = quiz.shown_language(language)
        text = question.text.get(lang)
    number, percent = hardest["number"], hardest["percent"]
    return hardest_line(number, text, percent, language, shorten=shorten_hardest)
