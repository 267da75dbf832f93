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
    truncate,
    with_status,
)
from adapters.discord.texts import text
from bot import markup
from bot.i18n import t
from bot.presenters import MEDALS, duration, leaderboard_lines
from bot.rounds import Leaderboard, RoundEnd, RoundQuestion, RoundReveal, ScoreLine
from bot.text_direction import LRI, PDI, is_rtl, paragraph
from bot.views import progress_bar

SCOREBOARD_TOP = 10  # lines of the scoreboard under each reveal
RANKING_TOP = 50  # lines of the final ranking
MAX_NAME = 64
_SLOT = "\ue000"  # stands for a timestamp while the text around it is prepared


def member_name(name: str) -> str:
    """A member's display name on one line, not absurdly long, shown literally."""
    flat = " ".join(name.split()) or "?"
    return md(truncate(flat, MAX_NAME))


def relative_time(when: datetime, language: str) -> str:
    """A Discord timestamp shown as "in 25 seconds" in the reader's client language."""
    stamp = f"<t:{int(when.timestamp())}:R>"
    return f"{LRI}{stamp}{PDI}" if is_rtl(language) else stamp


def closes_text(question: RoundQuestion) -> str:
    """The status line of an open question: when it closes."""
    lang = question.language
    # Filled in after text() prepares the line: prepare() would isolate the timestamp's
    # Latin letters and break its markup.
    return text("round_closes", lang, when=_SLOT).replace(
        _SLOT, relative_time(question.deadline, lang)
    )


def round_question_pages(question: RoundQuestion, answered: int, status: str) -> list[Page]:
    """A round's question for the whole channel; ``status`` under the answer count (when it
    closes, or that it closed). The last page is the message with the buttons."""
    lang = question.language
    options = "\n".join(f"**{o.letter}.** {mdx(o.text)}" for o in question.options)
    progress = t("question_progress", lang, number=question.number, total=question.total)
    heading = f"{progress}  {progress_bar(question.number - 1, question.total)}"
    pages = pack(
        [Section(paragraph(mdx(question.text), lang)), Section(paragraph(options, lang))],
        colour=QUESTION_COLOUR,
        title=paragraph(heading, lang),
        author=markup.plain(question.quiz_title),
        rtl=question.rtl,
    )
    name = paragraph(t("round_answers_count", lang, count=answered), lang)
    return with_status(pages, name, paragraph(status, lang), QUESTION_COLOUR)


def _score_lines(scoreboard: Sequence[ScoreLine], lang: str, out_of: int, top: int) -> str:
    lines = []
    for line in scoreboard[:top]:
        rank = MEDALS.get(line.rank, f"{line.rank}.")
        lines.append(f"{rank} {member_name(line.name)} — {line.score}/{out_of}")
    if len(scoreboard) > top:
        lines.append(text("round_more", lang, count=len(scoreboard) - top))
    return "\n".join(lines)


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
    scores = (
        _score_lines(reveal.scoreboard, lang, reveal.number, SCOREBOARD_TOP)
        if reveal.scoreboard
        else text("round_no_answers", lang)
    )
    sections.append(Section(paragraph(scores, lang), paragraph(t("scoreboard", lang), lang)))
    progress = t("question_progress", lang, number=reveal.number, total=reveal.total)
    answer = t("correct_answer", lang, answer=reveal.correct_option.letter)
    return pack(
        sections,
        colour=RIGHT_COLOUR,
        title=paragraph(f"{progress} · {answer}", lang),
        rtl=reveal.rtl,
    )


def ending_pages(end: RoundEnd) -> list[Page]:
    """The final ranking (of a finished round, or of one stopped early)."""
    lang = end.language
    if end.scoreboard:
        lines = []
        for line in end.scoreboard[:RANKING_TOP]:
            rank = MEDALS.get(line.rank, f"{line.rank}.")
            lines.append(
                f"{rank} {member_name(line.name)} — {line.score}/{end.total} · "
                f"⏱ {duration(line.total_ms / 1000)}"
            )
        if len(end.scoreboard) > RANKING_TOP:
            lines.append(text("round_more", lang, count=len(end.scoreboard) - RANKING_TOP))
        body = "\n".join(lines)
    else:
        body = text("round_no_answers", lang)
    return pack(
        [Section(paragraph(body, lang))],
        colour=RESULT_COLOUR,
        title=paragraph(end.notice, lang),
        rtl=is_rtl(lang),
    )


def _board_lines(board: Leaderboard | None, lang: str) -> str:
    return "\n".join(leaderboard_lines(board, lang, name=member_name))


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
