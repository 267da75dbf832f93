"""The daily question, its reveal and streaks, ``/daily`` and the leaderboards over a period as
Telegram messages.

Pure functions like :mod:`adapters.telegram.round_rendering`. Telegram has no timestamps that
each client shows in its own zone, so times are written in the chat's zone and named
(``2026-03-02 21:00 Europe/Berlin``, as :func:`bot.local_time.local_text` writes them).

A daily question is open for hours, so its message shows when it closes instead of a
countdown: it changes only with the answer count, and the round driver refreshes it at most
every quarter of an hour (the group's budget is 20 messages a minute).
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from adapters.telegram.rendering import (
    MAX_MESSAGE,
    direction,
    esc,
    option_line,
    options_fit_buttons,
    rich,
    visible_length,
    wrap_lines,
)
from adapters.telegram.round_rendering import reveal_body
from bot.daily.texts import daily_t
from bot.daily.views import DailyReply
from bot.i18n import t
from bot.leaderboard_periods import PeriodBoard
from bot.local_time import UTC_ZONE, local_text
from bot.presenters import (
    daily_right_lines,
    daily_status_lines,
    period_lines,
    period_title,
)
from bot.rounds import RoundQuestion, RoundReveal
from bot.scheduling.timezones import find_zone


def zone_named(name: str) -> ZoneInfo:
    """The zone ``name`` names (UTC should the zone database no longer know it)."""
    return find_zone(name) or UTC_ZONE


def local_date(moment: datetime, zone: str) -> str:
    """``2026-03-02``: the date the clocks of ``zone`` show at ``moment``."""
    return f"{moment.astimezone(zone_named(zone)):%Y-%m-%d}"


# -- the question --------------------------------------------------------------------------


def daily_body(question: RoundQuestion) -> str:
    """The heading, the question and (when the buttons carry only letters) the options."""
    lang = question.language
    heading = f"{daily_t('daily_title', lang)} · {question.quiz_title}"
    lines = [rich(heading, "b"), "", rich(question.text, "b")]
    if not options_fit_buttons(question.options):
        lines.append("")
        lines.extend(rich(option_line(o)) for o in question.options)
    return "\n".join(lines)


def daily_status(question: RoundQuestion, answered: int, *, closed: bool) -> str:
    """``🕘 Open until 2026-03-02 21:00 Europe/Berlin · Answers: 3``, the closed line after."""
    lang = question.language
    count = t("round_answers_count", lang, count=answered)
    if closed:
        return esc(f"⌛ {t('round_closed', lang)} · {count}")
    until = local_text(question.deadline, zone_named(question.time_zone))
    return esc(f"{daily_t('daily_open_until', lang, time=until)} · {count}")


def daily_live_fits(question: RoundQuestion) -> bool:
    """Whether the question and its status fit one message (else the status and the buttons
    go in a short message of their own after it)."""
    sample = daily_body(question) + "\n\n" + daily_status(question, 10**6, closed=False)
    return visible_length(sample) <= MAX_MESSAGE


def daily_live(question: RoundQuestion, answered: int, *, closed: bool, with_body: bool) -> str:
    """The message with the status and the buttons (the one edited)."""
    lang = question.language
    head = daily_body(question) if with_body else rich(daily_t("daily_title", lang), "b")
    return direction(head + "\n\n" + daily_status(question, answered, closed=closed), lang)


# -- the reveal ----------------------------------------------------------------------------


def daily_reveal(reveal: RoundReveal) -> str:
    """The closed daily question: its answer and why, how many chose what, and who got it
    right with their streaks."""
    lang = reveal.language
    lines = [wrap_lines("b", esc(daily_t("daily_reveal", lang))), *reveal_body(reveal), ""]
    right = daily_right_lines(reveal, lang)
    if len(right) > 1:  # a heading, then the members
        lines.append(wrap_lines("b", esc(right[0])))
        right = right[1:]
    lines += map(esc, right)
    return direction("\n".join(lines), lang)


# -- /daily --------------------------------------------------------------------------------


def daily_reply(reply: DailyReply) -> str:
    """What ``/daily`` did: a notice and, when the chat has one, its setting."""
    lang = reply.language
    lines = [esc(reply.notice)] if reply.notice else []
    status = reply.status
    if status is not None:

        def when(moment: datetime) -> str:
            return local_text(moment, zone_named(status.zone))

        lines += [""] if lines else []
        lines.append(wrap_lines("b", esc(daily_t("daily_title", lang))))
        lines += [esc(line) for line in daily_status_lines(status, lang, when=when)]
    return direction("\n".join(lines), lang)


# -- leaderboards over a period ------------------------------------------------------------


def period_board_message(board: PeriodBoard) -> str:
    """A leaderboard over a period: its heading, then the best members."""

    def when(moment: datetime) -> str:
        return f"{local_date(moment, board.zone)} {board.zone}"

    title, *rest = period_title(board, when=when)
    lines = [wrap_lines("b", esc(title)), *map(esc, rest), ""]
    lines += map(esc, period_lines(board))
    return direction("\n".join(lines), board.language)
