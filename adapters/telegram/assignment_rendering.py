"""Assignments as Telegram messages: the post with its Start button, the list of open ones,
the reports. Pure functions like :mod:`adapters.telegram.rendering` (HTML, everything
escaped, right-to-left paragraphs where the language needs them); the wording is
:mod:`bot.assignments.presenters`'."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from adapters.telegram import callback_data as cb
from adapters.telegram.rendering import Rendered, button_label, direction, esc, rich
from bot.assignments import AssignmentPost, AssignmentReport
from bot.assignments.messages import recap_lines, reminder_line, summary_lines
from bot.assignments.presenters import (
    intro_line,
    local_deadline,
    open_lines,
    post_lines,
    report_lines,
)
from bot.assignments.reminders import RECAP, REMINDER, SUMMARY
from bot.assignments.texts import assignment_t
from bot.catalog import QuizCatalog
from bot.scheduling import OutgoingMessage

DEEP_LINK_PREFIX = "A"  # /start A<id>: quiz ids are lowercase, so it is never a quiz's


def deep_link(bot_username: str, assignment_id: int) -> str:
    """``https://t.me/<bot>?start=A<id>``: opens the bot's private chat, starting the
    assignment's quiz there."""
    return f"https://t.me/{bot_username}?start={DEEP_LINK_PREFIX}{assignment_id}"


def deep_link_payload(payload: str) -> int | None:
    """The assignment a ``/start`` payload names (``A<id>``), if it names one."""
    digits = payload.removeprefix(DEEP_LINK_PREFIX)
    if payload == digits or not digits.isdigit() or len(digits) > 18:
        return None
    return int(digits)


def start_keyboard(
    assignment_id: int, language: str, key: str = "assignment_start"
) -> InlineKeyboardMarkup:
    """The one button that starts (``key``: or continues) the assignment's quiz."""
    label = button_label(assignment_t(key, language), language)
    data = cb.encode(cb.StartAssignment(assignment_id))
    return InlineKeyboardMarkup([[InlineKeyboardButton(label, callback_data=data)]])


def assignment_message(post: AssignmentPost) -> Rendered:
    """The assignment as posted in its group: quiz, questions, deadline, Start."""
    first, *rest = post_lines(post, post.local_deadline, "assignment_hint_private")
    lines = [rich(first, "b"), *(esc(line) for line in rest)]
    keyboard = start_keyboard(post.assignment_id, post.language)
    return Rendered(direction("\n".join(lines), post.language), keyboard)


def intro_message(post: AssignmentPost) -> str:
    """The line above a quiz started from an assignment, in the member's language."""
    return direction(rich(intro_line(post, post.local_deadline), "b"), post.language)


def open_message(posts: Sequence[AssignmentPost], language: str) -> str:
    """``/assignments``: the chat's open assignments, soonest deadline first."""
    first, *rest = open_lines(posts, language, local_deadline)
    lines = [rich(first, "b") if posts else esc(first), *(rich(line) for line in rest)]
    return direction("\n".join(lines), language)


def report_message(reports: Sequence[AssignmentReport], more: str | None = None) -> str:
    """``/report``: one block per assignment; ``more`` says how many older ones matched."""
    blocks = []
    for report in reports:
        language = report.post.language
        first, *rest = report_lines(report, report.post.local_deadline)
        lines = [rich(first, "b"), *(rich(line) for line in rest)]
        blocks.append(direction("\n".join(lines), language))
    if more:
        language = reports[0].post.language if reports else "en"
        blocks.append(direction(esc(more), language))
    return "\n\n".join(blocks)


# -- the outbox's messages (bot.assignments.reminders) ------------------------------------------


class AssignmentMessages:
    """The renderers of the assignments' outbox messages, on the catalog of quiz titles."""

    def __init__(self, catalog: QuizCatalog) -> None:
        self.catalog = catalog

    def renderers(self) -> dict[str, Callable[[OutgoingMessage, str], Sequence[Rendered]]]:
        return {REMINDER: self.reminder, RECAP: self.recap, SUMMARY: self.summary}

    def reminder(self, message: OutgoingMessage, language: str) -> list[Rendered]:
        """To a member who has not finished: the deadline, how far they got, Continue."""
        payload = message.payload
        line = reminder_line(payload, language, self.catalog, str(payload["local"]))
        keyboard = start_keyboard(int(payload["assignment"]), language, "assignment_continue")
        return [Rendered(direction(rich(line), language), keyboard)]

    def recap(self, message: OutgoingMessage, language: str) -> list[Rendered]:
        """In the group: how long is left, who did what, Start for the others."""
        first, *rest = recap_lines(message.payload, language, self.catalog)
        html = "\n".join([rich(first, "b"), *(esc(line) for line in rest)])
        keyboard = start_keyboard(int(message.payload["assignment"]), language)
        return [Rendered(direction(html, language), keyboard)]

    def summary(self, message: OutgoingMessage, language: str) -> list[Rendered]:
        """In the group at the deadline: completion, average, hardest question."""
        first, *rest = summary_lines(message.payload, language, self.catalog)
        html = "\n".join([rich(first, "b"), *(rich(line) for line in rest)])
        return [Rendered(direction(html, language))]
