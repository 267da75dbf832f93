"""Engine views as Discord embeds, always within Discord's limits.

Pure functions: nothing here talks to Discord. Every builder returns *pages*: one list of
embeds per message. Quiz texts may be long (the loader allows 10,000 characters per text), so
text is split at paragraph, line or word boundaries into a description (4096) and fields
(1024), embeds hold at most 25 fields and a message at most 10 embeds and 6000 characters in
all; whatever does not fit continues in the next embed or the next message.

Quiz texts are escaped for Markdown (a ``data_loader`` must not turn italic), their code
(:mod:`bot.markup`) becomes inline code and fenced blocks, and a block cut by a split is closed
and opened again with its language in the next piece; right-to-left
text gets a right-to-left mark at the start of every line and of every split piece, and
left-to-right isolates are kept balanced across splits.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import discord

from adapters.discord.texts import text
from adapters.discord.translator import (
    ADMIN_COMMANDS,
    ASSIGNMENT_COMMANDS,
    COMMANDS,
    command_name,
    localize_commands,
)
from bot import markup
from bot.daily.texts import daily_t
from bot.daily.views import ChatStreak
from bot.i18n import t
from bot.presenters import chat_streak_lines, progress_lines
from bot.text_direction import LRI, PDI, RLM, is_rtl, paragraph
from bot.views import (
    AnswerFeedback,
    ProgressReport,
    QuestionView,
    QuizResult,
    QuizSummary,
    progress_bar,
)

# Discord's limits (characters are Unicode code points).
CONTENT_LIMIT = 2000
TITLE_LIMIT = 256
AUTHOR_LIMIT = 256
DESCRIPTION_LIMIT = 4096
FIELD_NAME_LIMIT = 256
FIELD_VALUE_LIMIT = 1024
FIELDS_PER_EMBED = 25
EMBED_TOTAL_LIMIT = 6000  # per embed, and for all embeds of one message together
EMBEDS_PER_MESSAGE = 10
CHOICE_NAME_LIMIT = 100
CHOICES_LIMIT = 25

QUESTION_COLOUR = discord.Colour.blurple()
RIGHT_COLOUR = discord.Colour.green()
WRONG_COLOUR = discord.Colour.red()
RESULT_COLOUR = discord.Colour.gold()
INFO_COLOUR = discord.Colour.dark_grey()

Page = list[discord.Embed]


@dataclass(frozen=True)
class Section:
    """A block of text: description text when ``name`` is None, else a titled field."""

    text: str
    name: str | None = None


def md(value: str) -> str:
    """Quiz text shown literally, not as Markdown."""
    return discord.utils.escape_markdown(value)


_LANGUAGE = re.compile(r"[A-Za-z0-9_+#.-]{1,32}")
ZWSP = "\u200b"  # breaks a backtick run that would end the code early; Discord has no escape


def mdx(value: str) -> str:
    """Quiz text as Markdown: text shown literally, code as inline code or a fenced block."""
    if "`" not in value:
        return md(value)
    parts = []
    for span in markup.parse(value):
        if isinstance(span, markup.Text):
            parts.append(md(span.text))
        elif isinstance(span, markup.Code):
            parts.append(inline_code(span.code))
        else:
            language = span.language if _LANGUAGE.fullmatch(span.language) else ""
            code = span.code.replace("```", f"``{ZWSP}`")
            parts.append(f"```{language}\n{code}\n```")
    return "".join(parts)


def inline_code(code: str) -> str:
    """``code`` as Discord inline code: in single backticks, or in double ones with a space
    inside each end when it holds a backtick."""
    if not code.strip():
        return code
    if "`" not in code:
        return f"`{code}`"
    while "``" in code:
        code = code.replace("``", f"`{ZWSP}`")
    return f"`` {code} ``"


def truncate(value: str, limit: int) -> str:
    """``value`` cut to ``limit`` characters with an ellipsis, isolates kept balanced."""
    if len(value) <= limit:
        return value
    cut = value[: limit - 2].rstrip()
    if cut.count(LRI) > cut.count(PDI):
        cut += PDI
    return cut + "…"


def notice(value: str) -> str:
    """Text for a message's content (at most 2000 characters)."""
    return truncate(value, CONTENT_LIMIT)


_CLOSE = "\n```"


def _cut_point(value: str, budget: int) -> int:
    window = value[: budget + 1]
    for separator in ("\n\n", "\n", ". ", " "):
        index = window.rfind(separator)
        if index >= budget // 2:
            return index + 1 if separator == ". " else index
    cut = budget
    while cut > 1 and value[cut - 1] == "\\":  # never strand a Markdown escape
        cut -= 1
    return cut


def _blocks(value: str) -> list[tuple[int, int, str]]:
    """Where the fenced blocks of Markdown ``value`` are: (start, end, language)."""
    if "```" not in value:
        return []
    languages = [s.language for s in markup.parse(value) if isinstance(s, markup.Block)]
    ranges = markup.block_ranges(value)
    return [(a, b, lang) for (a, b), lang in zip(ranges, languages, strict=True)]


def split_text(value: str, limit: int, *, rtl: bool = False) -> list[str]:
    """``value`` in pieces of at most ``limit`` characters, cut at the widest boundary that
    leaves a piece at least half full: before a code block, paragraph, line, sentence, word,
    else anywhere. A block cut in two is closed at the cut and opened again after it."""
    budget = limit - 3 if rtl else limit  # room for a mark and a re-opened/closed isolate
    pieces = []
    rest = value.strip()
    while len(rest) > budget:
        blocks = _blocks(rest)
        before = [a for a, _, _ in blocks if budget // 2 <= a <= budget and rest[a - 1] == "\n"]
        room = budget - len(_CLOSE) if blocks else budget
        cut = before[-1] if before else _cut_point(rest, room)
        inside = next(((a, lang) for a, b, lang in blocks if a < cut < b), None)
        if inside is not None and cut > inside[0] + len(f"```{inside[1]}\n"):
            pieces.append(rest[:cut].rstrip("\n") + _CLOSE)
            rest = f"```{inside[1]}\n" + rest[cut:].removeprefix("\n")
            continue
        if inside is not None and inside[0] > 0:  # a cut in the opening fence: before it
            cut = inside[0]
        pieces.append(rest[:cut].rstrip())
        rest = rest[cut:].lstrip()
    if rest:
        pieces.append(rest)
    return _fix_direction(pieces) if rtl else pieces


def _fix_direction(pieces: list[str]) -> list[str]:
    # Every piece is its own paragraph for the client: it needs its own right-to-left mark,
    # and an isolate cut in two is closed at the cut and re-opened in the next piece. (Our
    # texts never nest isolates; one level is all that is carried over, which also bounds
    # what is added to the three characters split_text() keeps free.)
    fixed = []
    carried = False
    for piece in pieces:
        if carried:
            piece = LRI + piece
        depth = 0
        for char in piece:
            if char == LRI:
                depth += 1
            elif char == PDI and depth:
                depth -= 1
        carried = depth > 0
        if carried:
            piece += PDI
        fixed.append(piece if piece.startswith(RLM) else RLM + piece)
    return fixed


def pack(
    sections: Sequence[Section],
    *,
    colour: discord.Colour,
    title: str | None = None,
    author: str | None = None,
    rtl: bool = False,
) -> list[Page]:
    """Lay ``sections`` out as embeds and messages within Discord's limits.

    The description sections come first (joined by blank lines), then one field per named
    section, or several numbered ``Name (2/3)`` fields when its text is longer than a field.
    """
    pieces: list[tuple[str | None, str]] = []
    description = "\n\n".join(s.text.strip() for s in sections if s.name is None and s.text)
    pieces += [(None, chunk) for chunk in split_text(description, DESCRIPTION_LIMIT, rtl=rtl)]
    for section in sections:
        if section.name is None or not section.text.strip():
            continue
        parts = split_text(section.text, FIELD_VALUE_LIMIT, rtl=rtl)
        for number, part in enumerate(parts, start=1):
            label = section.name if len(parts) == 1 else f"{section.name} ({number}/{len(parts)})"
            pieces.append((truncate(label, FIELD_NAME_LIMIT), part))

    first = discord.Embed(colour=colour)
    if title:
        first.title = truncate(title, TITLE_LIMIT)
    if author:
        first.set_author(name=truncate(author, AUTHOR_LIMIT))
    pages: list[Page] = []
    page: Page = [first]
    page_size = len(first)
    embed = first
    for name, value in pieces:
        size = len(value) + len(name or "")
        if name is None:
            fits = not embed.description and not embed.fields
        else:
            fits = len(embed.fields) < FIELDS_PER_EMBED
        fits = fits and len(embed) + size <= EMBED_TOTAL_LIMIT
        if not fits or page_size + size > EMBED_TOTAL_LIMIT:
            if len(page) == EMBEDS_PER_MESSAGE or page_size + size > EMBED_TOTAL_LIMIT:
                pages.append(page)
                page, page_size = [], 0
            embed = discord.Embed(colour=colour)
            page.append(embed)
        if name is None:
            embed.description = value
        else:
            embed.add_field(name=name, value=value, inline=False)
        page_size += size
    pages.append(page)
    return pages


def page_size(page: Page) -> int:
    return sum(len(embed) for embed in page)


def merge_pages(pages: Sequence[Page]) -> list[Page]:
    """Consecutive pages joined into as few messages as the limits allow."""
    merged: list[Page] = []
    for page in pages:
        if (
            merged
            and len(merged[-1]) + len(page) <= EMBEDS_PER_MESSAGE
            and page_size(merged[-1]) + page_size(page) <= EMBED_TOTAL_LIMIT
        ):
            merged[-1] = merged[-1] + page
        else:
            merged.append(list(page))
    return merged


STATUS_NAME_LIMIT = 60
STATUS_VALUE_LIMIT = 140
STATUS_RESERVE = STATUS_NAME_LIMIT + STATUS_VALUE_LIMIT


def with_status(pages: list[Page], name: str, value: str, colour: discord.Colour) -> list[Page]:
    """``pages`` with a short titled line at the very end, where it is edited in place.

    Where it goes depends only on ``pages`` (room is measured against the longest status),
    so re-rendering with another status never moves it to another message.
    """
    name = truncate(name, STATUS_NAME_LIMIT)
    value = truncate(value, STATUS_VALUE_LIMIT)
    last_page = pages[-1]
    last = last_page[-1]
    room = page_size(last_page) + STATUS_RESERVE <= EMBED_TOTAL_LIMIT
    if room and len(last.fields) < FIELDS_PER_EMBED:
        last.add_field(name=name, value=value, inline=False)
        return pages
    extra = discord.Embed(colour=colour).add_field(name=name, value=value, inline=False)
    if room and len(last_page) < EMBEDS_PER_MESSAGE:
        last_page.append(extra)
    else:
        pages.append([extra])
    return pages


def _heading(question: QuestionView, *, answered: bool = False) -> str:
    number, total = question.number, question.total
    progress = t("question_progress", question.language, number=number, total=total)
    return f"{progress}  {progress_bar(number if answered else number - 1, total)}"


def question_pages(question: QuestionView) -> list[Page]:
    """The question with its options lettered in the description."""
    lang = question.language
    options = "\n".join(f"**{o.letter}.** {mdx(o.text)}" for o in question.options)
    sections = [
        Section(paragraph(mdx(question.text), lang)),
        Section(paragraph(options, lang)),
    ]
    return pack(
        sections,
        colour=QUESTION_COLOUR,
        title=paragraph(_heading(question), lang),
        author=markup.plain(question.quiz_title),
        rtl=question.rtl,
    )


def feedback_pages(feedback: AnswerFeedback) -> list[Page]:
    """The answered question: right or wrong, the correct option and the explanation."""
    question = feedback.question
    assert question is not None, "feedback without a question has nothing to show"
    lang = question.language
    right = feedback.correct_option
    chosen = feedback.chosen
    lines = []
    for option in question.options:
        if right is not None and option.id == right.id:
            mark = "✅"
        elif chosen is not None and option.id == chosen.id:
            mark = "❌"
        else:
            mark = "▫️"
        lines.append(f"{mark} **{option.letter}.** {mdx(option.text)}")
    sections = [
        Section(paragraph(mdx(question.text), lang)),
        Section(paragraph("\n".join(lines), lang)),
    ]
    if not feedback.correct and chosen is not None:
        yours = mdx(chosen.text)
        if feedback.wrong_note:
            yours += "\n\n" + mdx(feedback.wrong_note)
        name = t("your_answer", lang, answer=chosen.letter)
        sections.append(Section(paragraph(yours, lang), paragraph(name, lang)))
    if right is not None:
        name = t("correct_answer", lang, answer=right.letter)
        sections.append(Section(paragraph(mdx(right.text), lang), paragraph(name, lang)))
    if feedback.explanation:
        name = t("explanation", lang)
        sections.append(Section(paragraph(mdx(feedback.explanation), lang), paragraph(name, lang)))
    return pack(
        sections,
        colour=RIGHT_COLOUR if feedback.correct else WRONG_COLOUR,
        title=paragraph(f"{_heading(question, answered=True)} · {feedback.notice}", lang),
        author=markup.plain(question.quiz_title),
        rtl=question.rtl,
    )


def mark_text(value: str, limit: int = 120) -> str:
    """A question on one line of a list, at most about ``limit`` characters, code kept."""
    flat = markup.one_line(value)
    if len(markup.plain(flat)) <= limit:
        return mdx(flat)
    return md(truncate(" ".join(markup.plain(flat).split()), limit))


def _mark(correct: bool | None) -> str:
    return "✓" if correct else "✗" if correct is False else "–"


def result_pages(result: QuizResult) -> list[Page]:
    """The score and a ✓/✗ line per question."""
    lang = result.language
    score = t("score", lang, correct=result.correct, total=result.total, percent=result.percent)
    lines = [f"{_mark(m.correct)} {m.number}. {mark_text(m.text)}" for m in result.marks]
    sections = [
        Section(paragraph(f"**{score}**\n{progress_bar(result.correct, result.total)}", lang)),
        Section(paragraph("\n".join(lines), lang)),
    ]
    return pack(
        sections,
        colour=RESULT_COLOUR,
        title=paragraph(markup.plain(t("result_title", lang, title=result.quiz_title)), lang),
        rtl=result.rtl,
    )


def progress_pages(report: ProgressReport, streaks: Sequence[ChatStreak] = ()) -> list[Page]:
    """Per quiz: attempts, best and last score, and any attempt in progress (or that there is
    none yet); then the streaks in the daily questions of each channel answered in."""
    lang = report.language
    lines = progress_lines(report) or [t("no_progress", lang)]
    body = "\n".join(f"• {md(line)}" for line in lines)
    sections = [Section(paragraph(body, lang))]
    if streaks:
        streak_lines = "\n".join(f"• {md(line)}" for line in chat_streak_lines(streaks, lang))
        name = paragraph(daily_t("streaks_title", lang), lang)
        sections.append(Section(paragraph(streak_lines, lang), name))
    return pack(
        sections,
        colour=INFO_COLOUR,
        title=paragraph(t("progress_title", lang), lang),
        rtl=is_rtl(lang),
    )


def choose_pages(
    quizzes: Sequence[QuizSummary], language: str, heading: str, *, shown: int
) -> list[Page]:
    """A list of quizzes to pick from (the buttons carry the first ``shown``)."""
    lines = []
    for quiz in quizzes:
        title = f"**{mdx(quiz.title)}**"
        line = t("quiz_summary", language, title=title, count=quiz.question_count)
        if quiz.level:
            line += f" · {t(f'level_{quiz.level}', language)}"
        lines.append(line)
    sections = [
        Section(paragraph(md(heading), language)),
        Section(paragraph("\n".join(lines), language)),
    ]
    if shown < len(quizzes):
        hint = text("more_quizzes", language, shown=shown, total=len(quizzes))
        sections.append(Section(paragraph(hint, language)))
    return pack(sections, colour=INFO_COLOUR, rtl=is_rtl(language))


def help_pages(
    language: str, locale: discord.Locale | str | None, *, admin: bool = False
) -> list[Page]:
    """What the bot does and its commands, named as the user's client names them (the admin
    commands only for bot admins)."""
    commands = COMMANDS + ASSIGNMENT_COMMANDS + (ADMIN_COMMANDS if admin else ())
    lines = [f"/{command_name(c, locale)} — {text('cmd_' + c, language)}" for c in commands]
    sections = [
        Section(paragraph(t("welcome", language), language)),
        Section(paragraph("\n".join(lines), language)),
        Section(paragraph(localize_commands(text("language_hint", language), locale), language)),
    ]
    return pack(sections, colour=INFO_COLOUR, rtl=is_rtl(language))
