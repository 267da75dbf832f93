"""Engine views as Telegram messages: HTML text (everything escaped) and inline keyboards.

Pure functions: no network, no storage. Tags never span a line break except a code block's
``<pre>``, so a message can be cut at any line outside one; :func:`split_html` prefers to cut
before a block and closes and reopens tags when it has to cut inside a line or a block.
Code in quiz texts (:mod:`bot.markup`) becomes ``<code>`` and ``<pre>``; buttons show it plain.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from adapters.telegram import callback_data as cb
from adapters.telegram.texts import command_descriptions, tt
from bot import markup
from bot.daily.texts import daily_t
from bot.daily.views import ChatStreak
from bot.i18n import LANGUAGE_NAMES, SUPPORTED_LANGUAGES, t
from bot.presenters import chat_streak_lines, progress_lines
from bot.text_direction import RLM, is_rtl, paragraph, strip_controls
from bot.views import (
    AnswerFeedback,
    OptionView,
    ProgressReport,
    QuestionView,
    QuizResult,
    QuizSummary,
    progress_bar,
)

MAX_MESSAGE = 4096  # Telegram's limit on a message's text after entity parsing
MAX_TOAST = 200  # answerCallbackQuery text
# An option goes on its button when every option of the question is at most this long;
# longer ones are cut off on a phone, so they are listed in the message and buttons get letters.
BUTTON_OPTION_CHARS = 32
MAX_BUTTON_LABEL = 60
LETTERS_PER_ROW = 5


@dataclass(frozen=True)
class Rendered:
    """A message ready to send: HTML text and an optional inline keyboard."""

    html: str
    markup: InlineKeyboardMarkup | None = None


# -- text helpers --------------------------------------------------------------------------


def esc(text: str) -> str:
    """Quiz or UI text made safe for HTML parse mode (<, > and & as entities)."""
    return html.escape(text, quote=False)


def utf16_len(text: str) -> int:
    """Length as Telegram counts it (UTF-16 code units)."""
    return len(text.encode("utf-16-le")) // 2


_TAG = re.compile(r"<[^>]*>")


def plain_text(html_text: str) -> str:
    """What a reader sees of ``html_text``: tags removed, entities decoded."""
    return html.unescape(_TAG.sub("", html_text))


def visible_length(html_text: str) -> int:
    """The length Telegram checks against its limits (after entity parsing)."""
    return utf16_len(plain_text(html_text))


def wrap_lines(tag: str, escaped: str) -> str:
    """``<tag>`` around every non-empty line, so no tag spans a line break."""
    return "\n".join(
        f"<{tag}>{line}</{tag}>" if line.strip() else line for line in escaped.split("\n")
    )


_LANGUAGE = re.compile(r"[A-Za-z0-9_+#.-]{1,32}")


def rich(text: str, tag: str | None = None) -> str:
    """Quiz text with code as HTML: ``<code>`` inline, ``<pre>`` blocks (with the language
    when it is a plain word), everything else escaped and, with ``tag``, wrapped line by line
    in it. Code is never inside another tag: Telegram lets no entity contain code."""
    if "`" not in text:
        return wrap_lines(tag, esc(text)) if tag else esc(text)
    parts = []
    for span in markup.parse(text):
        if isinstance(span, markup.Text):
            parts.append(wrap_lines(tag, esc(span.text)) if tag else esc(span.text))
        elif isinstance(span, markup.Code):
            parts.append(f"<code>{esc(span.code)}</code>" if span.code else "")
        elif _LANGUAGE.fullmatch(span.language):
            parts.append(
                f'<pre><code class="language-{span.language}">{esc(span.code)}</code></pre>'
            )
        else:
            parts.append(f"<pre>{esc(span.code)}</pre>")
    return "".join(parts)


def direction(html_text: str, language: str) -> str:
    """Right-to-left paragraphs where the language needs them; the lines of a ``<pre>`` block
    get no mark (it would be part of the code)."""
    if not is_rtl(language) or "<pre" not in html_text:
        return paragraph(html_text, language)
    lines = []
    inside = False
    for line in html_text.split("\n"):
        opens, closes = line.count("<pre"), line.count("</pre>")
        code_line = inside or line.startswith("<pre")
        lines.append(line if code_line or not line else RLM + line)
        inside = inside + opens - closes > 0 if (opens or closes) else inside
    return "\n".join(lines)


_direction = direction


def button_label(text: str, language: str, limit: int = MAX_BUTTON_LABEL) -> str:
    """Button text: one line without markup, not empty, shortened with an ellipsis when very
    long."""
    label = " ".join(markup.plain(text).split()) or "…"
    if len(label) > limit:
        label = label[: limit - 1].rstrip() + "…"
    return paragraph(label, language)


def toast(text: str) -> str:
    """A callback answer text within Telegram's 200 characters."""
    text = text.strip()
    if utf16_len(text) <= MAX_TOAST:
        return text
    while utf16_len(text) > MAX_TOAST - 1:
        text = text[:-1]
    return text + "…"


# -- splitting long messages -----------------------------------------------------------------

_TOKEN = re.compile(r"<[^>]*>|&#?[A-Za-z0-9]+;|.", re.S)
_OPEN = re.compile(r"<([A-Za-z][A-Za-z0-9-]*)[^>]*>")
_CLOSE = re.compile(r"</([A-Za-z][A-Za-z0-9-]*)\s*>")
_BREAKS = ("block", "\n\n", "\n", " ", "pre")


def split_html(html_text: str, limit: int = MAX_MESSAGE) -> list[str]:
    """Cut ``html_text`` into messages of at most ``limit`` visible characters.

    Cuts before a code block or at the last paragraph break, else line break, else space
    outside a block that leaves the chunk at least half full; else at a line break inside a
    block; a single word longer than ``limit`` is cut anywhere outside a tag or entity. Tags
    open at a cut are closed at its end and reopened in the next chunk; a block cut in two
    keeps its language, indentation and blank lines in both halves.
    """
    text = html_text.strip()
    if visible_length(text) <= limit:
        return [text] if text else []
    tokens = _TOKEN.findall(text)
    weights = [0 if tok.startswith("<") else utf16_len(html.unescape(tok)) for tok in tokens]
    in_pre = _inside_pre(tokens)
    chunks: list[tuple[int, int]] = []
    start = _chunk_start(tokens, in_pre, 0)
    while start < len(tokens):
        end = _chunk_end(tokens, weights, in_pre, start, limit)
        chunks.append((start, end))
        start = _chunk_start(tokens, in_pre, end)
    pieces = []
    for first, stop in chunks:
        chunk = "".join(tokens[first:stop])
        if not in_pre[first]:
            chunk = chunk.lstrip()
        if not in_pre[stop - 1]:
            chunk = chunk.rstrip()
        if chunk.strip():
            pieces.append(chunk)
    return _balance_tags(pieces)


def _inside_pre(tokens: Sequence[str]) -> list[bool]:
    """Whether each token is inside a <pre> block."""
    in_pre = []
    depth = 0
    for token in tokens:
        if token.startswith("</pre"):
            depth -= 1
        in_pre.append(depth > 0)
        if token.startswith("<pre"):
            depth += 1
    return in_pre


def _chunk_start(tokens: Sequence[str], in_pre: Sequence[bool], start: int) -> int:
    """Past the whitespace a cut leaves at the start of the next chunk (one line break inside
    a block, where indentation is part of the code)."""
    if start < len(tokens) and in_pre[start] and tokens[start] == "\n":
        start += 1
    while start < len(tokens) and not in_pre[start] and tokens[start] in ("\n", " "):
        start += 1
    return start


def _chunk_end(
    tokens: Sequence[str], weights: Sequence[int], in_pre: Sequence[bool], start: int, limit: int
) -> int:
    """Where the chunk beginning at ``start`` ends: the best break within ``limit``."""
    used = 0
    end = start
    last_break: dict[str, tuple[int, int]] = {}  # separator -> (token index, visible used)
    while end < len(tokens) and used + weights[end] <= limit:
        token = tokens[end]
        if in_pre[end]:
            if token == "\n":
                last_break["pre"] = (end, used)
        elif token.startswith("<pre") and end > start:
            last_break["block"] = (end, used)
        elif token == "\n":
            double = end > start and tokens[end - 1] == "\n"
            last_break["\n\n" if double else "\n"] = (end - 1 if double else end, used)
        elif token == " ":
            last_break[" "] = (end, used)
        used += weights[end]
        end += 1
    if end == len(tokens):
        return end
    cut = next(
        (
            last_break[sep][0]
            for sep in _BREAKS
            if sep in last_break and last_break[sep][1] >= limit // 2
        ),
        max((pos for pos, _ in last_break.values()), default=end),
    )
    return max(cut, start + 1)


def _balance_tags(chunks: Sequence[str]) -> list[str]:
    balanced = []
    carried: list[tuple[str, str]] = []  # (tag name, opening tag) open at the previous cut
    for chunk in chunks:
        stack = list(carried)
        for match in re.finditer(r"<[^>]*>", chunk):
            tag = match.group(0)
            if close := _CLOSE.fullmatch(tag):
                if stack and stack[-1][0] == close.group(1):
                    stack.pop()
            elif opening := _OPEN.fullmatch(tag):
                stack.append((opening.group(1), tag))
        prefix = "".join(tag for _, tag in carried)
        suffix = "".join(f"</{name}>" for name, _ in reversed(stack))
        balanced.append(prefix + chunk + suffix)
        carried = stack
    return balanced


# -- questions ----------------------------------------------------------------------------


def options_fit_buttons(options: Sequence[OptionView]) -> bool:
    """Whether every option fits comfortably on a button of its own."""
    return all(
        len(strip_controls(o.text)) <= BUTTON_OPTION_CHARS and "```" not in o.text for o in options
    )


def options_on_buttons(question: QuestionView) -> bool:
    return options_fit_buttons(question.options)


def progress_line(question: QuestionView) -> str:
    bar = progress_bar(question.number, question.total)
    label = t("question_progress", question.language, number=question.number, total=question.total)
    return f"{label} {bar}"


def _head(question: QuestionView, owner: str | None) -> list[str]:
    lines = [esc(progress_line(question))]
    if owner:
        lines.append(esc(tt("owner_line", question.language, name=owner)))
    return [*lines, "", rich(question.text, "b")]


def option_line(option: OptionView) -> str:
    return f"{option.letter}. {option.text}"


def question_message(question: QuestionView, owner: str | None = None) -> Rendered:
    """Progress, question and options; buttons carry the options or their letters.

    ``owner`` (shown in groups) names whose attempt this is.
    """
    lines = _head(question, owner)
    rows: list[list[InlineKeyboardButton]] = []
    if options_on_buttons(question):
        for index, option in enumerate(question.options):
            data = cb.encode(cb.Answer(question.attempt_id, question.number, index))
            label = button_label(option_line(option), question.language)
            rows.append([InlineKeyboardButton(label, callback_data=data)])
    else:
        lines.append("")
        lines.extend(rich(option_line(o)) for o in question.options)
        buttons = [
            InlineKeyboardButton(
                option.letter,
                callback_data=cb.encode(cb.Answer(question.attempt_id, question.number, index)),
            )
            for index, option in enumerate(question.options)
        ]
        rows = [buttons[i : i + LETTERS_PER_ROW] for i in range(0, len(buttons), LETTERS_PER_ROW)]
    text = _direction("\n".join(lines), question.language)
    return Rendered(text, InlineKeyboardMarkup(rows))


def feedback_lines(feedback: AnswerFeedback) -> list[str]:
    """Verdict, chosen and correct option, the note on a wrong choice and the explanation."""
    lang = feedback.language
    lines = [esc(feedback.notice if feedback.correct is None else _verdict(feedback))]
    if feedback.chosen is not None:
        lines.append(rich(t("your_answer", lang, answer=option_line(feedback.chosen))))
    if not feedback.correct and feedback.correct_option is not None:
        answer = option_line(feedback.correct_option)
        lines.append(rich(t("correct_answer", lang, answer=answer), "b"))
    if not feedback.correct and feedback.wrong_note:
        lines.append(rich(feedback.wrong_note, "i"))
    if feedback.explanation:
        lines += ["", f"<b>{esc(t('explanation', lang))}:</b> {rich(feedback.explanation)}"]
    return lines


def _verdict(feedback: AnswerFeedback) -> str:
    return t("correct" if feedback.correct else "wrong", feedback.language)


def answered_question(
    feedback: AnswerFeedback, owner: str | None = None, *, with_feedback: bool = True
) -> str:
    """The question message after its answer: the question, then the feedback (unless it
    goes in a message of its own); no buttons."""
    assert feedback.question is not None
    lines = _head(feedback.question, owner)
    if not options_on_buttons(feedback.question):
        lines.append("")
        lines.extend(rich(option_line(o)) for o in feedback.question.options)
    if with_feedback:
        lines += ["", *feedback_lines(feedback)]
    return _direction("\n".join(lines), feedback.language)


def feedback_message(feedback: AnswerFeedback) -> str:
    """The feedback alone, as a message of its own (after a quiz poll, or as the caption of
    the explanation's image)."""
    return _direction("\n".join(feedback_lines(feedback)), feedback.language)


# -- results, pickers, menus ----------------------------------------------------------------


def result_message(result: QuizResult, owner: str | None = None) -> Rendered:
    """Score and per-question marks, with buttons to retry (not after a review) or to pick
    another quiz."""
    lang = result.language
    lines = ["🏁 " + rich(t("result_title", lang, title=result.quiz_title), "b")]
    if owner:
        lines.append(esc(tt("owner_line", lang, name=owner)))
    score = t("score", lang, correct=result.correct, total=result.total, percent=result.percent)
    lines += [
        f"<b>{esc(score)}</b>",
        progress_bar(result.correct, result.total),
        "",
    ]
    for mark in result.marks:
        sign = "✓" if mark.correct else ("✗" if mark.correct is False else "·")
        lines.append(rich(f"{sign} {mark.number}. {markup.one_line(mark.text)}"))
    row = [
        InlineKeyboardButton(
            button_label(t("other_quiz", lang), lang),
            callback_data=cb.encode(cb.OtherQuiz(result.attempt_id)),
        )
    ]
    if not result.review:  # "Try again" restarts the whole quiz: not what a review promises
        retry = InlineKeyboardButton(
            button_label(t("retry", lang), lang),
            callback_data=cb.encode(cb.Retry(result.attempt_id)),
        )
        row.insert(0, retry)
    keyboard = InlineKeyboardMarkup([row])
    return Rendered(_direction("\n".join(lines), lang), keyboard)


def _level(summary: QuizSummary, language: str) -> str | None:
    return t(f"level_{summary.level}", language) if summary.level else None


def _quiz_buttons(
    quizzes: Sequence[QuizSummary], language: str, user_id: int, *, play: bool
) -> InlineKeyboardMarkup:
    rows = []
    for quiz in quizzes:
        label = tt("play_button", language, title=quiz.title) if play else quiz.title
        data = cb.encode(cb.PickQuiz(quiz.id, user_id))
        rows.append([InlineKeyboardButton(button_label(label, language), callback_data=data)])
    return InlineKeyboardMarkup(rows)


def picker_message(
    quizzes: Sequence[QuizSummary], language: str, user_id: int, notice: str | None = None
) -> Rendered:
    """A notice (e.g. "Choose a quiz:") and one button per quiz, for ``user_id``."""
    lines = [esc(notice or t("choose_quiz", language)), ""]
    for number, quiz in enumerate(quizzes, start=1):
        summary = t("quiz_summary", language, title=quiz.title, count=quiz.question_count)
        level = _level(quiz, language)
        lines.append(f"{number}. {rich(summary)}" + (f" · {esc(level)}" if level else ""))
    keyboard = _quiz_buttons(quizzes, language, user_id, play=False)
    return Rendered(_direction("\n".join(lines), language), keyboard)


def start_message(quizzes: Sequence[QuizSummary], language: str, user_id: int) -> Rendered:
    """Welcome: what the bot does, the quizzes with their descriptions, how to begin."""
    lines = [esc(t("welcome", language)), ""]
    if quizzes:
        lines.append(f"<b>{esc(tt('quizzes_heading', language))}</b>")
        for quiz in quizzes:
            summary = t("quiz_summary", language, title=quiz.title, count=quiz.question_count)
            level = _level(quiz, language)
            lines.append("• " + rich(summary, "b") + (f" · {esc(level)}" if level else ""))
            if quiz.description:
                lines.append(rich(quiz.description, "i"))
        lines.append("")
        lines.append(esc(tt("start_hint", language)))
    else:
        lines.append(esc(t("no_quizzes", language)))
    keyboard = _quiz_buttons(quizzes, language, user_id, play=True) if quizzes else None
    return Rendered(_direction("\n".join(lines), language), keyboard)


def help_message(language: str, *, admin: bool = False) -> str:
    """What the bot does, every command, and how group rounds start; admins also see theirs
    (and everyone those of groups' admins: they say so)."""
    lines = [esc(t("welcome", language)), "", f"<b>{esc(tt('commands_heading', language))}</b>"]
    commands = command_descriptions(language, admin=admin, chat_admin=True)
    lines += [f"/{command} — {esc(text)}" for command, text in commands]
    lines += ["", esc(tt("help_group", language))]
    return _direction("\n".join(lines), language)


def progress_message(report: ProgressReport, streaks: Sequence[ChatStreak] = ()) -> str:
    """Per quiz: completed attempts with best and last score, and an attempt in progress;
    then the streaks in daily questions, if any."""
    lang = report.language
    if not report.quizzes:
        shown = _direction(esc(t("no_progress", lang)), lang)
    else:
        lines = [f"<b>{esc(t('progress_title', lang))}</b>", ""]
        lines += ["• " + esc(line) for line in progress_lines(report)]
        shown = _direction("\n".join(lines), lang)
    if not streaks:
        return shown
    lines = [f"<b>{esc(daily_t('streaks_title', lang))}</b>"]
    lines += ["• " + esc(line) for line in chat_streak_lines(streaks, lang)]
    return shown + "\n\n" + _direction("\n".join(lines), lang)


def language_picker(language: str, user_id: int) -> Rendered:
    """The four languages, each named in itself."""
    buttons = [
        InlineKeyboardButton(
            LANGUAGE_NAMES[code], callback_data=cb.encode(cb.ChooseLanguage(code, user_id))
        )
        for code in SUPPORTED_LANGUAGES
    ]
    rows = [buttons[i : i + 2] for i in range(0, len(buttons), 2)]
    text = _direction(esc(t("choose_language", language)), language)
    return Rendered(text, InlineKeyboardMarkup(rows))


def stop_confirmation(title: str, attempt_id: int, language: str) -> Rendered:
    keyboard = InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(
                    button_label(t("stop_yes", language), language),
                    callback_data=cb.encode(cb.StopConfirm(attempt_id, True)),
                ),
                InlineKeyboardButton(
                    button_label(t("stop_no", language), language),
                    callback_data=cb.encode(cb.StopConfirm(attempt_id, False)),
                ),
            ]
        ]
    )
    text = _direction(rich(t("stop_confirm", language, title=title)), language)
    return Rendered(text, keyboard)


def mode_name(poll: bool, language: str) -> str:
    return tt("mode_poll" if poll else "mode_buttons", language)


def mode_picker(poll: bool, language: str) -> Rendered:
    keyboard = InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(
                    mode_name(True, language), callback_data=cb.encode(cb.SetMode(True))
                ),
                InlineKeyboardButton(
                    mode_name(False, language), callback_data=cb.encode(cb.SetMode(False))
                ),
            ]
        ]
    )
    text = esc(tt("mode_prompt", language, mode=mode_name(poll, language)))
    return Rendered(_direction(text, language), keyboard)


def notice(text: str, language: str) -> str:
    """A plain localized sentence as message HTML."""
    return _direction(esc(text), language)
