"""Group rounds and leaderboards as Discord embeds, within Discord's limits.

Pure functions like :mod:`adapters.discord.rendering`. A round's question message ends with a
status field (how many answered, when it closes) that the round runner edits in place; the
countdown itself is a Discord timestamp (``<t:…:R>``) that every client shows as "in 25
seconds" and counts down live, so the message is edited only when the answer count changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from adapters.discord.rendering import (
    QUESTION_COLOUR,
    RESULT_COLOUR,
    RIGHT_COLOUR,
    Page,
    Section,
    md,
    mdx,
    merge_pages,
    pack,
    with_status,
)
from adapters.discord.texts import text
from bot import markup
from bot.daily.texts import daily_t
from bot.i18n import t
from bot.presenters import SCOREBOARD_TOP, daily_right_lines, leaderboard_lines, score_lines
from bot.rounds import Leaderboard, RoundEnd, RoundQuestion, RoundReveal
from bot.storage import RoundKind
from bot.text_direction import LRI, PDI, is_rtl, paragraph
from bot.views import progress_bar

RANKING_TOP = 50  # lines of the final ranking
SLOT = "\ue000"  # stands for a timestamp while the text around it is prepared


def timestamp(when: datetime, language: str, style: str = "R") -> str:
    """A Discord timestamp each client shows in its own zone and language: ``R`` "in 25
    seconds" (live), ``t`` "21:00", ``F`` "Monday, 2 March 2026 09:00", ``D`` the date."""
    stamp = f"<t:{int(when.timestamp())}:{style}>"
    return f"{LRI}{stamp}{PDI}" if is_rtl(language) else stamp


def relative_time(when: datetime, language: str) -> str:
    """A Discord timestamp shown as "in 25 seconds" in the reader's client language."""
    return timestamp(when, language)


def with_stamp(prepared: str, stamp: str) -> str:
    """A text prepared with :data:`SLOT` in place of a timestamp, the timestamp put in: done
    after the text is prepared, since prepare() would isolate the timestamp's Latin letters
    and break its markup."""
    return prepared.replace(SLOT, stamp)


def closes_text(question: RoundQuestion) -> str:
    """The status line of an open question: when it closes (a daily question: the local
    time, and how long until then)."""
    lang = question.language
    deadline = question.deadline
    if question.kind is RoundKind.DAILY:
        until = f"{timestamp(deadline, lang, 't')} ({timestamp(deadline, lang)})"
        return with_stamp(daily_t("daily_open_until", lang, time=SLOT), until)
    return with_stamp(text("round_closes", lang, when=SLOT), relative_time(deadline, lang))


def round_question_pages(question: RoundQuestion, answered: int, status: str) -> list[Page]:
    """A round's question for the whole channel; ``status`` under the answer count (when it
    closes, or that it closed). The last page is the message with the buttons."""
    lang = question.language
    options = "\n".join(f"**{o.letter}.** {mdx(o.text)}" for o in question.options)
    progress = t("question_progress", lang, number=question.number, total=question.total)
    heading = f"{progress}  {progress_bar(question.number - 1, question.total)}"
    if question.kind is RoundKind.DAILY:
        heading = daily_t("daily_title", lang)
    pages = pack(
        [Section(paragraph(mdx(question.text), lang)), Section(paragraph(options, lang))],
        colour=QUESTION_COLOUR,
        title=paragraph(heading, lang),
        author=markup.plain(question.quiz_title),
        rtl=question.rtl,
    )
    name = paragraph(t("round_answers_count", lang, count=answered), lang)
    return with_status(pages, name, paragraph(status, lang), QUESTION_COLOUR)


def reveal_pages(reveal: RoundReveal) -> list[Page]:
    """A closed question: the correct option, how many chose each option, why, and the
    scoreboard so far."""
    lang = reveal.language
    answered = sum(c.count for c in reveal.counts)
    lines = []
    for count in reveal.counts:
        mark = "✅" if count.correct else "▫️"
        bar = progress_bar(count.count, answered, width=10) if answered else "▱" * 10
        lines.append(f"{mark} **{count.option.letter}.** {mdx(count.option.text)}")
        lines.append(f"{bar} {count.count}")
    sections = [
        Section(paragraph(mdx(reveal.question_text), lang)),
        Section(paragraph("\n".join(lines), lang)),
    ]
    if reveal.explanation:
        sections.append(
            Section(
                paragraph(mdx(reveal.explanation), lang), paragraph(t("explanation", lang), lang)
            )
        )
    answer = t("correct_answer", lang, answer=reveal.correct_option.letter)
    if reveal.kind is RoundKind.DAILY:  # who got it right, with their streaks
        heading, *right = daily_right_lines(reveal, lang, name=md)
        body = "\n".join(right) if right else heading
        sections.append(Section(paragraph(body, lang), paragraph(heading, lang) if right else None))
        title = paragraph(f"{daily_t('daily_reveal', lang)} · {answer}", lang)
        return pack(sections, colour=RIGHT_COLOUR, title=title, rtl=reveal.rtl)
    scores = "\n".join(
        score_lines(reveal.scoreboard, lang, out_of=reveal.number, top=SCOREBOARD_TOP, name=md)
    )
    sections.append(Section(paragraph(scores, lang), paragraph(t("scoreboard", lang), lang)))
    progress = t("question_progress", lang, number=reveal.number, total=reveal.total)
    return pack(
        sections,
        colour=RIGHT_COLOUR,
        title=paragraph(f"{progress} · {answer}", lang),
        rtl=reveal.rtl,
    )


def ending_pages(end: RoundEnd) -> list[Page]:
    """The final ranking (of a finished round, or of one stopped early)."""
    lang = end.language
    body = "\n".join(
        score_lines(end.scoreboard, lang, out_of=end.total, top=RANKING_TOP, timed=True, name=md)
    )
    return pack(
        [Section(paragraph(body, lang))],
        colour=RESULT_COLOUR,
        title=paragraph(end.notice, lang),
        rtl=is_rtl(lang),
    )


def _board_lines(board: Leaderboard | None, lang: str) -> str:
    return "\n".join(leaderboard_lines(board, lang, name=md))


def leaderboard_pages(
    boards: Sequence[tuple[Leaderboard | None, Leaderboard]], language: str
) -> list[Page]:
    """Per quiz, this channel's best members (when asked in a server channel) and
    everyone's: best score first, then the fastest."""
    pages: list[Page] = []
    for here, everyone in boards:
        lang = everyone.language
        sections = []
        if here is not None:
            name = paragraph(text("leaderboard_here", language), language)
            sections.append(Section(paragraph(_board_lines(here, lang), lang), name))
        name = paragraph(text("leaderboard_everyone", language), language)
        sections.append(Section(paragraph(_board_lines(everyone, lang), lang), name))
        title = markup.plain(t("leaderboard_title", lang, title=everyone.quiz_title))
        pages += pack(
            sections, colour=RESULT_COLOUR, title=paragraph(title, lang), rtl=is_rtl(lang)
        )
    return merge_pages(pages)


def announcement(question: RoundQuestion, notice: str) -> str:
    """What the channel sees when a round starts (before its first question)."""
    return f"**{mdx(question.quiz_title)}**\n{notice}"
