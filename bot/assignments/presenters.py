"""Assignments as localized plain text, written once for every platform.

Each function returns plain lines in the post's or report's language; adapters add their
markup (HTML in Telegram, Markdown embeds in Discord) and escape them. A deadline is passed
in as the platform shows it: local time with its zone in Telegram and the terminal, Discord's
own timestamp markup there (each reader's clock).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bot.assignments.texts import assignment_t
from bot.assignments.views import AssignmentPost, AssignmentReport, MemberLine, MemberStatus
from bot.presenters import duration, member_name, stats_hardest
from bot.quiz import Quiz
from bot.text_direction import prepare

Deadline = Callable[[AssignmentPost], str]  # how a platform shows a post's deadline
HARDEST_TEXT = 160  # characters of the hardest question's text in a report or summary


def quiz_title(quiz: Quiz, language: str) -> str:
    """The quiz's title in ``language``, or in its default language when not translated."""
    lang = quiz.shown_language(language)
    return prepare(quiz.title.get(lang), lang)


def local_deadline(post: AssignmentPost) -> str:
    """The deadline as the chat's local time, with its zone (not Discord's markup)."""
    return post.local_deadline


def post_lines(post: AssignmentPost, deadline: str, hint: str) -> list[str]:
    """The assignment as posted in its chat: quiz, question count, deadline, what to press."""
    lang = post.language
    count = assignment_t("assignment_questions", lang, count=post.question_count)
    due = assignment_t("assignment_due", lang, deadline=deadline)
    return [
        assignment_t("assignment_title", lang, id=post.assignment_id, title=post.title),
        f"{count} · {due}",
        assignment_t(hint, lang),
    ]


def intro_line(post: AssignmentPost, deadline: str) -> str:
    """What a member reads above the quiz they start from an assignment."""
    return assignment_t(
        "assignment_intro",
        post.language,
        id=post.assignment_id,
        title=post.title,
        deadline=deadline,
    )


def open_lines(posts: Sequence[AssignmentPost], language: str, deadline: Deadline) -> list[str]:
    """``/assignments``: one line per open assignment, or that there is none."""
    if not posts:
        return [assignment_t("assignments_none", language)]
    lines = [assignment_t("assignments_heading", language)]
    for post in posts:
        lines.append(
            assignment_t(
                "assignments_line",
                language,
                id=post.assignment_id,
                title=post.title,
                deadline=deadline(post),
            )
        )
    return lines


def member_line(line: MemberLine, language: str, *, name: Callable[[str], str] = str) -> str:
    """``✅ Asha — 7/8 · ⏱ 12:05``, ``⌛ Ben — late: 5/8 · ⏱ 1:02:00`` or ``⏳ Cleo — in
    progress 3/8``; ``name`` escapes the member's name (on one line and shortened)."""
    shown = name(member_name(line.name))
    if line.status is MemberStatus.IN_PROGRESS:
        return assignment_t(
            "report_in_progress", language, name=shown, answered=line.answered, total=line.total
        )
    key = "report_done" if line.status is MemberStatus.DONE else "report_late"
    return assignment_t(
        key,
        language,
        name=shown,
        correct=line.correct,
        total=line.total,
        time=duration(line.seconds or 0.0),
    )


def report_lines(
    report: AssignmentReport, deadline: str, *, name: Callable[[str], str] = str
) -> list[str]:
    """One assignment's report: its heading and deadline, each member who started it with
    their status, how many known members have not started, and its hardest question."""
    post = report.post
    lang = post.language
    lines = [assignment_t("report_heading", lang, id=post.assignment_id, title=post.title)]
    if post.cancelled:
        lines.append(assignment_t("report_cancelled", lang))
    elif post.open:
        lines.append(assignment_t("report_due", lang, deadline=deadline))
    else:
        lines.append(assignment_t("report_was_due", lang, deadline=deadline))
    lines += [member_line(line, lang, name=name) for line in report.started]
    if not report.started:
        lines.append(assignment_t("report_nobody", lang))
    if report.waiting:
        lines.append(
            assignment_t("report_not_started", lang, count=len(report.waiting), known=report.known)
        )
    if report.stats is not None:
        lines.append(stats_hardest(report.stats, lang, shorten=shorten_hardest))
    return lines


def shorten_hardest(text: str) -> str:
    """The hardest question's text as reports and summaries show it (shortened)."""
    return text if len(text) <= HARDEST_TEXT else text[: HARDEST_TEXT - 1] + "…"
