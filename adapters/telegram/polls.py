"""Questions as native Telegram quiz polls, and the durable link from a poll to its question.

A poll answer (``poll_answer`` update) names only the poll and the option index, so each sent
poll is linked, in storage, to the attempt, question and option order it shows. The link
survives a restart: a poll answered after the bot restarted still counts.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from adapters.telegram.rendering import progress_line, utf16_len
from bot import markup
from bot.text_direction import paragraph
from bot.views import QuestionView

POLL_SCOPE = "telegram:poll"  # storage scope: poll id -> PollLink JSON
MAX_QUESTION = 300
MAX_OPTION = 100
MAX_EXPLANATION = 200
MAX_EXPLANATION_LINE_FEEDS = 2
MIN_OPTIONS = 2
MAX_OPTIONS = 10


@dataclass(frozen=True)
class PollPlan:
    """What to send as a quiz poll; ``explanation_complete`` is False when it was shortened
    to fit, so the full explanation must follow the answer as a message."""

    question: str
    options: tuple[str, ...]
    correct_index: int
    explanation: str
    explanation_complete: bool


def plan_poll(question: QuestionView, correct_option_id: str, explanation: str) -> PollPlan | None:
    """The quiz poll for ``question``, or None when it does not fit Telegram's poll limits
    (then the question goes out with buttons). A poll shows no formatting: inline code is
    shown plain, and a question or option with a code block goes out with buttons, where the
    block keeps its lines."""
    lang = question.language
    texts = (question.text, *(o.text for o in question.options))
    if any(isinstance(s, markup.Block) for text in texts for s in markup.parse(text)):
        return None
    options = tuple(paragraph(markup.plain(o.text), lang) for o in question.options)
    if not MIN_OPTIONS <= len(options) <= MAX_OPTIONS:
        return None
    if any(not o.strip() or utf16_len(o) > MAX_OPTION for o in options):
        return None
    index = next((i for i, o in enumerate(question.options) if o.id == correct_option_id), None)
    if index is None:
        return None
    plain_text = markup.plain(question.text)
    candidates = (
        f"{progress_line(question)}\n{plain_text}",
        f"{question.number}/{question.total}. {plain_text}",
    )
    text = next(
        (paragraph(c, lang) for c in candidates if utf16_len(paragraph(c, lang)) <= MAX_QUESTION),
        None,
    )
    if text is None:
        return None
    short, complete = shorten_explanation(explanation, lang)
    return PollPlan(text, options, index, short, complete)


def shorten_explanation(text: str, language: str) -> tuple[str, bool]:
    """The explanation within the poll limits (200 characters, 2 line feeds), and whether it
    is complete. A shortened one ends at a word with an ellipsis. Code is shown plain; one with
    a code block counts as shortened, so the full one, formatted, follows the answer."""
    has_block = any(isinstance(s, markup.Block) for s in markup.parse(text))
    text = markup.plain(text).strip()
    full = paragraph(text, language)
    fits = utf16_len(full) <= MAX_EXPLANATION and text.count("\n") <= MAX_EXPLANATION_LINE_FEEDS
    if fits and not has_block:
        return full, True
    flat = " ".join(text.split())
    cut = flat[:MAX_EXPLANATION]
    while cut and utf16_len(paragraph(cut + "…", language)) > MAX_EXPLANATION:
        cut = cut[:-1]
    if " " in cut[len(cut) // 2 :]:
        cut = cut[: cut.rindex(" ")]
    return paragraph(cut.rstrip(" ,;:—-") + "…", language), False


@dataclass(frozen=True)
class PollLink:
    """The question a sent poll shows, stored under its poll id."""

    attempt_id: int
    question_id: str
    question_number: int
    option_ids: tuple[str, ...]  # in poll option order
    chat_id: int
    explanation_complete: bool

    def dumps(self) -> str:
        return json.dumps(
            {
                "v": 1,
                "attempt": self.attempt_id,
                "question": self.question_id,
                "number": self.question_number,
                "options": list(self.option_ids),
                "chat": self.chat_id,
                "complete": self.explanation_complete,
            },
            separators=(",", ":"),
        )

    @classmethod
    def loads(cls, raw: str | None) -> PollLink | None:
        """The link, or None when missing or unreadable."""
        if not raw:
            return None
        try:
            data = json.loads(raw)
            return cls(
                attempt_id=int(data["attempt"]),
                question_id=str(data["question"]),
                question_number=int(data["number"]),
                option_ids=tuple(str(o) for o in data["options"]),
                chat_id=int(data["chat"]),
                explanation_complete=bool(data["complete"]),
            )
        except (ValueError, KeyError, TypeError):
            return None
