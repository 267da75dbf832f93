"""Group rounds, leaderboards and the admin reports as Telegram messages.

Pure functions like :mod:`adapters.telegram.rendering`: HTML with everything escaped, code in
quiz texts as ``<code>``/``<pre>``, tags that never span a line break outside a code block,
right-to-left paragraphs where the language needs them.
"""

from __future__ import annotations

from collections.abc import Sequence

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from adapters.telegram import callback_data as cb
from adapters.telegram.rendering import (
    LETTERS_PER_ROW,
    MAX_MESSAGE,
    Rendered,
    button_label,
    direction,
    esc,
    option_line,
    options_fit_buttons,
    rich,
    visible_length,
    wrap_lines,
)
from adapters.telegram.texts import tt
from bot.i18n import t
from bot.presenters import (
    SCOREBOARD_TOP,
    leaderboard_lines,
    score_lines,
    stats_hardest,
    stats_summary,
)
from bot.quiz_loader import LoadReport
from bot.rounds import Leaderboard, RoundEnd, RoundQuestion, RoundReveal
from bot.stats import QuizStats
from bot.text_direction import prepare
from bot.views import QuizSummary, progress_bar

# -- the question message ------------------------------------------------------------------


def round_keyboard(question: RoundQuestion) -> InlineKeyboardMarkup:
    """One button per option: the option itself when all are short, else its letter."""

    def data(index: int) -> str:
        return cb.encode(cb.RoundAnswer(question.round_id, question.number, index))

    if options_fit_buttons(question.options):
        return InlineKeyboardMarkup(
            [
                [
                    InlineKeyboardButton(
                        button_label(option_line(o), question.language), callback_data=data(i)
                    )
                ]
                for i, o in enumerate(question.options)
            ]
        )
    buttons = [
        InlineKeyboardButton(o.letter, callback_data=data(i))
        for i, o in enumerate(question.options)
    ]
    return InlineKeyboardMarkup(
        [buttons[i : i + LETTERS_PER_ROW] for i in range(0, len(buttons), LETTERS_PER_ROW)]
    )


def _progress(question: RoundQuestion) -> str:
    label = t("question_progress", question.language, number=question.number, total=question.total)
    return esc(f"👥 {label} {progress_bar(question.number, question.total)}")


def round_body(question: RoundQuestion) -> str:
    """Progress, question and (when the buttons carry only letters) the options."""
    lines = [_progress(question), "", rich(question.text, "b")]
    if not options_fit_buttons(question.options):
        lines.append("")
        lines.extend(rich(option_line(o)) for o in question.options)
    return "\n".join(lines)


def round_status(question: RoundQuestion, answered: int, seconds_left: int | None) -> str:
    """``⏳ 25 s left · Answers: 3`` while open (``seconds_left``), the closed line after."""
    lang = question.language
    count = t("round_answers_count", lang, count=answered)
    if seconds_left is None:
        return esc(f"⌛ {t('round_closed', lang)} · {count}")
    return esc(f"{t('round_time_left', lang, seconds=seconds_left)} · {count}")


def round_live_fits(question: RoundQuestion) -> bool:
    """Whether the question and its status fit one message (else the status and the buttons
    go in a short message of their own after the question, and only that one is edited)."""
    sample = round_body(question) + "\n\n" + round_status(question, 10**6, 10**4)
    return visible_length(sample) <= MAX_MESSAGE


def round_live(
    question: RoundQuestion, answered: int, seconds_left: int | None, *, with_body: bool
) -> str:
    """The message that shows the countdown and the answer count (and is edited)."""
    head = round_body(question) if with_body else _progress(question)
    html = head + "\n\n" + round_status(question, answered, seconds_left)
    return direction(html, question.language)


# -- reveal and ending -----------------------------------------------------------------------


def reveal_body(reveal: RoundReveal) -> list[str]:
    """A closed question's lines under its heading: the question, its answer and why, how
    many chose each option (a group round's reveal and a daily question's share them)."""
    lang = reveal.language
    answer = t("correct_answer", lang, answer=option_line(reveal.correct_option))
    lines = [rich(reveal.question_text), "", rich(answer, "b")]
    if reveal.explanation:
        lines.append(f"<b>{esc(t('explanation', lang))}:</b> {rich(reveal.explanation)}")
    lines.append("")
    answered = sum(c.count for c in reveal.counts)
    lines.append(esc(t("round_answers_count", lang, count=answered)))
    for count in reveal.counts:
        mark = "✅" if count.correct else "▫️"
        lines.append(rich(f"{mark} {option_line(count.option)} — {count.count}"))
    return lines


def round_reveal(reveal: RoundReveal, top: int = SCOREBOARD_TOP) -> str:
    """The closed question: its answer and why, how many chose each option, the top 10."""
    lang = reveal.language
    label = t("question_progress", lang, number=reveal.number, total=reveal.total)
    lines = [wrap_lines("b", esc(f"📣 {label}")), *reveal_body(reveal)]
    lines += ["", f"<b>{esc(t('scoreboard', lang))}</b>"]
    lines += map(esc, score_lines(reveal.scoreboard, lang, out_of=reveal.number, top=top))
    return direction("\n".join(lines), lang)


def round_end(end: RoundEnd) -> str:
    """The final ranking: everyone who answered, best first."""
    lang = end.language
    lines = [wrap_lines("b", esc(end.notice)), ""]
    lines += map(esc, score_lines(end.scoreboard, lang, out_of=end.total, timed=True))
    return direction("\n".join(lines), lang)


def round_picker(
    quizzes: Sequence[QuizSummary], language: str, user_id: int, notice: str | None = None
) -> Rendered:
    """Which quiz the group plays; the buttons are for whoever asked for the round."""
    lines = [esc(notice or tt("round_choose", language)), ""]
    rows = []
    for number, quiz in enumerate(quizzes, start=1):
        summary = t("quiz_summary", language, title=quiz.title, count=quiz.question_count)
        lines.append(f"{number}. {rich(summary)}")
        data = cb.encode(cb.PickRound(quiz.id, user_id))
        rows.append([InlineKeyboardButton(button_label(quiz.title, language), callback_data=data)])
    return Rendered(direction("\n".join(lines), language), InlineKeyboardMarkup(rows))


# -- leaderboards ----------------------------------------------------------------------------


def leaderboard_message(boards: Sequence[Leaderboard], language: str, *, here: bool) -> str:
    """Each quiz's best members (score, then time); ``here``: of this chat, else everyone."""
    scope = tt("leaderboard_here" if here else "leaderboard_everyone", language)
    blocks = []
    for board in boards:
        lang = board.language
        title = t("leaderboard_title", lang, title=board.quiz_title)
        lines = [rich(title, "b"), esc(f"({scope})")]
        lines += [esc(line) for line in leaderboard_lines(board, lang)]
        blocks.append(direction("\n".join(lines), lang))
    if not blocks:
        return direction(esc(t("no_quizzes", language)), language)
    return "\n\n".join(blocks)


# -- admin reports ---------------------------------------------------------------------------


def reload_report(report: LoadReport, live: int, language: str) -> str:
    """How many quizzes are live after /reload, and every error as ``file:line: problem``."""
    lines = [esc(tt("reload_done", language, count=live))]
    if report.errors:
        lines += ["", esc(tt("reload_problems", language, count=len(report.errors)))]
        lines += [f"<code>{esc(' '.join(str(p).split()))}</code>" for p in report.errors]
    else:
        lines.append(esc(tt("reload_clean", language)))
    return direction("\n".join(lines), language)


def stats_report(stats: Sequence[QuizStats], language: str) -> str:
    """Per quiz: attempts, completions, average score and the hardest question."""
    lines = [wrap_lines("b", esc(tt("stats_title", language)))]
    if not stats:
        lines.append(esc(t("no_quizzes", language)))
    for quiz in stats:
        lines += [
            "",
            rich(prepare(quiz.title, language), "b"),
            esc(stats_summary(quiz, language)),
            esc(stats_hardest(quiz, language)),
        ]
    return direction("\n".join(lines), language)
