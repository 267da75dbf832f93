"""What every importer shares: its result, its problems, and the builder of our quiz dict.

An importer parses its format into :class:`DraftQuestion` values and hands them to a
:class:`QuizBuilder`, which applies the loader's rules (ids, 2-10 options, text limits) so that
the written file validates, and reports what it had to skip or fill in as
:class:`ImportProblem` values with the source line.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.answer_matching import normalize
from bot.quiz_loader import ID_PATTERN, MAX_OPTIONS, MAX_TEXT_CHARS, MIN_OPTIONS
from bot.quoting import quote

OPTION_IDS = "abcdefghij"
MAX_SPELLINGS = 100  # the loader's limits on a typed answer's accepted spellings
MAX_SPELLING_CHARS = 200
assert len(OPTION_IDS) == MAX_OPTIONS


@dataclass(frozen=True, order=True)
class ImportProblem:
    """An item of the source that was skipped or needs the author's attention."""

    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


class QuizImportError(ValueError):
    """The input cannot be imported at all: unreadable, malformed, or without any question.

    ``problems`` holds what was reported about the individual items before giving up.
    """

    def __init__(self, line: int, message: str, problems: Sequence[ImportProblem] = ()) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.message = message
        self.problems = list(problems)


@dataclass(frozen=True)
class ImportResult:
    """A quiz as a plain dict in our format (for ``yaml.safe_dump``) and what to tell the author."""

    quiz: dict[str, Any]
    problems: list[ImportProblem] = field(default_factory=list)


@dataclass(frozen=True)
class QuizMeta:
    """The quiz-level facts that come from the caller, not from the source."""

    quiz_id: str
    title: str
    language: str
    choices: int | None = None  # Red: make multiple-choice questions of this many options


@dataclass
class DraftOption:
    text: str
    note: str | None = None


@dataclass
class DraftQuestion:
    """One question as parsed from a source, before ids and limits are applied."""

    line: int
    text: str
    options: list[DraftOption]
    correct: int
    explanation: str | None = None
    name: str | None = None  # a title in the source to derive a readable id from
    answers: list[str] | None = None  # a typed-answer question: the accepted spellings


def slugify(text: str) -> str:
    """A valid id made of ``text``'s ASCII letters and digits, or "" when none are left."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9_]+", "-", ascii_text.lower()).strip("-_")[:40].rstrip("-_")
    return slug if ID_PATTERN.fullmatch(slug) else ""


def humanize(name: str) -> str:
    """A title from a file stem: ``world_capitals-2024`` -> ``World capitals 2024``."""
    words = re.sub(r"[-_\s]+", " ", name).strip()
    return words[:1].upper() + words[1:]


# The texts an importer writes itself, in the languages the bot speaks; a quiz in another
# language gets the English ones and a problem that says so.
GENERATED: dict[str, dict[str, str]] = {
    "en": {
        "true": "True",
        "false": "False",
        "answer": "The answer is: {answer}",
        "unquoted": "The answer is the correct option.",
        "also": "also written: {spellings}",
        "stop": ".",
    },
    "ru": {
        "true": "Верно",
        "false": "Неверно",
        "answer": "Ответ: {answer}",
        "unquoted": "Ответ — правильный вариант.",
        "also": "также пишут: {spellings}",
        "stop": ".",
    },
    "bn": {
        "true": "সত্য",
        "false": "মিথ্যা",
        "answer": "উত্তর: {answer}",
        "unquoted": "উত্তর হলো সঠিক বিকল্পটি।",
        "also": "অন্য বানান: {spellings}",
        "stop": "।",
    },
    "ur": {
        "true": "درست",
        "false": "غلط",
        "answer": "جواب: {answer}",
        "unquoted": "جواب درست آپشن ہے۔",
        "also": "دوسرے ہجے: {spellings}",
        "stop": "۔",
    },
}
_ENDINGS = (".", "!", "?", "…", "।", "۔", "؟")


def generated(language: str) -> dict[str, str] | None:
    """The generated texts for ``language`` (``pt-br`` falls back to ``pt``), or None."""
    return GENERATED.get(language) or GENERATED.get(language.split("-")[0])


def restate(answer: str, language: str = "en") -> str:
    """The stand-in explanation for a question whose source has none."""
    words = generated(language) or GENERATED["en"]
    text = words["answer"].format(answer=answer)
    text = text if text.endswith(_ENDINGS) else text + words["stop"]
    # An answer near the text limit cannot be quoted in full; the loader would refuse it.
    return text if len(text) <= MAX_TEXT_CHARS else words["unquoted"]


def same_text_key(text: str) -> str:
    """Texts a player could not tell apart (case and spacing aside) have the same key."""
    return " ".join(text.casefold().split())


_ASCII_MATCHABLE = re.compile(r"[A-Za-z0-9#&%@+$^=|~<>]")


def _matchable(text: str) -> bool:
    """Whether ``normalize(text)`` keeps anything (ASCII is answered without normalizing)."""
    return bool(_ASCII_MATCHABLE.search(text)) if text.isascii() else bool(normalize(text))


def clean(text: str) -> str:
    """Normalize line breaks and trim, as the loader trims every text it reads."""
    return text.replace("\r\n", "\n").replace("\r", "\n").strip()


def _text_problem(text: str, what: str) -> str | None:
    if not text:
        return f"{what} is empty"
    if len(text) > MAX_TEXT_CHARS:
        return f"{what} is {len(text)} characters; the limit is {MAX_TEXT_CHARS}"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates, e.g. from JSON "\ud800" escapes
        return f"{what} contains characters that are not valid Unicode"
    return None


class QuizBuilder:
    """Collects draft questions into our quiz dict, checking them against the loader's rules."""

    def __init__(
        self, meta: QuizMeta, *, each_missing_explanation: bool = True, keep_repeats: bool = False
    ) -> None:
        self.meta = meta
        # Red asks questions that differ only in case as two; the other formats' repeats are
        # copies (a download made twice, a question pasted again) and are skipped.
        self.keep_repeats = keep_repeats
        # A source format without explanations (Red, Aiken, Open Trivia DB) gets one summary
        # instead of one per question.
        self.each_missing_explanation = each_missing_explanation
        self.problems: list[ImportProblem] = []
        self.questions: list[dict[str, Any]] = []
        self._ids: set[str] = set()
        self._unexplained: list[int] = []
        self._english_used: int | None = None  # the first line given English generated text
        # question text key -> (line, what it asks for), to report questions asked twice
        self._asked: dict[str, tuple[int, tuple[Any, ...]]] = {}

    def problem(self, line: int, message: str) -> None:
        self.problems.append(ImportProblem(line, message))

    def word(self, key: str, line: int) -> str:
        """A generated text ("true", "false", ...) in the quiz's language, or in English."""
        words = generated(self.meta.language)
        if words is None:
            if self._english_used is None:
                self._english_used = line
            words = GENERATED["en"]
        return words[key]

    def _repeated(self, line: int, text: str, asks: tuple[Any, ...]) -> bool:
        """Report a question whose text was seen before; True when it is an exact repeat
        (same answers too), which is then skipped."""
        key = same_text_key(text)
        earlier = self._asked.get(key)
        if earlier is None:
            self._asked[key] = (line, asks)
            return False
        if earlier[1] == asks:
            if self.keep_repeats:
                self.problem(line, f"the same question as on line {earlier[0]}; kept, as Red does")
                return False
            self.problem(line, f"the same question as on line {earlier[0]}; skipped")
            return True
        self.problem(
            line,
            f"the question on line {earlier[0]} has the same text with other answers; "
            "both are kept: check which is right",
        )
        return False

    def add(self, draft: DraftQuestion) -> str | None:
        """Add a question; its id, or None when it was skipped (and reported)."""
        text = clean(draft.text)
        if draft.answers is not None:
            return self._add_typed(draft, text)
        options = [DraftOption(clean(o.text), clean(o.note or "") or None) for o in draft.options]
        explanation = clean(draft.explanation or "") or None
        if not MIN_OPTIONS <= len(options) <= MAX_OPTIONS:
            self.problem(
                draft.line,
                f"question has {len(options)} options; a quiz question needs "
                f"{MIN_OPTIONS} to {MAX_OPTIONS}; skipped",
            )
            return None
        if not 0 <= draft.correct < len(options):
            self.problem(draft.line, "question has no valid correct answer; skipped")
            return None
        right = options[draft.correct]
        if right.note:  # notes explain wrong options only; the loader refuses one on the right
            explanation = f"{explanation}\n\n{right.note}" if explanation else right.note
            right.note = None
        found = _choice_problems(text, options, explanation)
        if found:
            self.problem(draft.line, f"{'; '.join(found)}; skipped")
            return None
        distinct = self._unrepeated(draft.line, options, draft.correct)
        if distinct is None:
            return None
        options, correct = distinct, distinct.index(right)
        texts = tuple(sorted(same_text_key(option.text) for option in options))
        asks = ("choice", same_text_key(right.text), texts)
        if self._repeated(draft.line, text, asks):
            return None

        question_id = self._new_id(draft.name)
        if explanation is None:
            explanation = self._stand_in(draft.line, question_id, right.text)
        language = self.meta.language
        self.questions.append(
            {
                "id": question_id,
                "correct": OPTION_IDS[correct],
                "text": {language: text},
                "options": _option_entries(options, language),
                "explanation": {language: explanation},
            }
        )
        return question_id

    def _unrepeated(
        self, line: int, options: list[DraftOption], correct: int
    ) -> list[DraftOption] | None:
        """``options`` without repeated wrong ones, or None (reported) when the question cannot
        be answered: every option reads the same, or the right one's text is also wrong."""
        keys = [same_text_key(option.text) for option in options]
        right = options[correct]
        if len(set(keys)) == 1:
            self.problem(
                line,
                f"all {len(options)} options read {quote(_short(right.text))}: nobody can "
                "tell the right one; skipped",
            )
            return None
        for index, key in enumerate(keys):
            if index != correct and key == keys[correct]:
                self.problem(
                    line,
                    f"the right answer {quote(_short(right.text))} is also option {index + 1}, "
                    "a wrong one: nobody can tell which to pick; skipped",
                )
                return None
        kept: list[DraftOption] = []
        first: dict[str, int] = {}
        for index, (option, key) in enumerate(zip(options, keys, strict=True)):
            if key in first:
                self.problem(
                    line, f"option {index + 1} repeats option {first[key] + 1}; it was left out"
                )
                continue
            first[key] = index
            kept.append(option)
        return kept

    def _add_typed(self, draft: DraftQuestion, text: str) -> str | None:
        answers: list[str] = []
        seen: set[str] = set()
        for answer in (clean(a) for a in draft.answers or ()):
            if not answer or answer.casefold() in seen:
                continue
            seen.add(answer.casefold())
            if not _matchable(answer):
                self.problem(
                    draft.line, f"answer {quote(_short(answer))} has no letters or digits; left out"
                )
            elif len(answer) > MAX_SPELLING_CHARS:
                self.problem(
                    draft.line,
                    f"an answer is {len(answer)} characters; the limit is "
                    f"{MAX_SPELLING_CHARS}; left out",
                )
            else:
                answers.append(answer)
        if len(answers) > MAX_SPELLINGS:
            self.problem(
                draft.line,
                f"{len(answers)} accepted spellings; the first {MAX_SPELLINGS} are kept",
            )
            answers = answers[:MAX_SPELLINGS]
        explanation = clean(draft.explanation or "") or None
        checks = [_text_problem(text, "question text")]
        if not answers:
            checks.append("question has no usable answer")
        if explanation is not None:
            checks.append(_text_problem(explanation, "explanation"))
        found = [c for c in checks if c is not None]
        if found:
            self.problem(draft.line, f"{'; '.join(found)}; skipped")
            return None
        if self._repeated(draft.line, text, ("typed", tuple(sorted(map(same_text_key, answers))))):
            return None
        question_id = self._new_id(draft.name)
        language = self.meta.language
        question: dict[str, Any] = {
            "id": question_id,
            "kind": "typed",
            "text": {language: text},
            "answers": {language: answers},
        }
        if explanation is not None:  # optional: after an answer the accepted one is shown
            question["explanation"] = {language: explanation}
        self.questions.append(question)
        return question_id

    def _stand_in(self, line: int, question_id: str, answer: str) -> str:
        if generated(self.meta.language) is None:
            self.word("answer", line)  # notes that English was written
        explanation = restate(answer, self.meta.language)
        if self.each_missing_explanation:
            self.problem(
                line,
                f"question {quote(question_id)} has no explanation; it says "
                f"{quote(_short(explanation, 80))} for now: write why the answer is right",
            )
        else:
            self._unexplained.append(line)
        return explanation

    def _new_id(self, name: str | None) -> str:
        base = (slugify(name) if name else "") or f"q{len(self.questions) + 1}"
        candidate, number = base, 2
        while candidate in self._ids:
            suffix = f"-{number}"
            candidate = base[: 40 - len(suffix)] + suffix
            number += 1
        self._ids.add(candidate)
        return candidate

    def result(
        self,
        *,
        level: str | None = None,
        description: str | None = None,
        shuffle_options: bool = False,
    ) -> ImportResult:
        """The finished quiz; raises :class:`QuizImportError` when no question made it.

        ``shuffle_options`` (for sources whose author placed the right answer, often first)
        writes ``shuffle: {options: true}``."""
        if self._unexplained:
            count = len(self._unexplained)
            stand_in = restate("...", self.meta.language)
            self.problem(
                self._unexplained[0],
                f"{count} question{'s have' if count > 1 else ' has'} no explanation (the "
                f"source has none); each says {quote(stand_in)} for now",
            )
            self._unexplained = []
        if self._english_used is not None:
            self.problem(
                self._english_used,
                f"texts the importer wrote (True, False, {quote(restate('...'))}) are in "
                f"English: there are none in {quote(self.meta.language)} yet; translate them",
            )
            self._english_used = None
        problems = sorted(self.problems, key=lambda p: p.line)
        if not self.questions:
            line = problems[0].line if problems else 1
            count = len(problems)
            detail = f" ({count} problem{'s' if count > 1 else ''} reported)" if count else ""
            raise QuizImportError(line, f"no question could be imported{detail}", problems)
        language = self.meta.language
        quiz: dict[str, Any] = {
            "id": self.meta.quiz_id,
            "default_language": language,
            "languages": [language],
        }
        if level is not None:
            quiz["level"] = level
        quiz["title"] = {language: self.meta.title}
        if description:
            quiz["description"] = {language: description}
        if shuffle_options:
            quiz["shuffle"] = {"options": True}
        quiz["questions"] = self.questions
        return ImportResult(quiz, problems)


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _choice_problems(text: str, options: list[DraftOption], explanation: str | None) -> list[str]:
    """What keeps a multiple-choice question's texts out of a quiz file, one entry a text."""
    checks = [_text_problem(text, "question text")]
    for index, option in enumerate(options):
        checks.append(_text_problem(option.text, f"option {index + 1}"))
        if option.note is not None:
            checks.append(_text_problem(option.note, f"feedback of option {index + 1}"))
    if explanation is not None:
        checks.append(_text_problem(explanation, "explanation"))
    return [c for c in checks if c is not None]


def _option_entries(options: list[DraftOption], language: str) -> list[dict[str, Any]]:
    """The quiz file's option entries, with ids a, b, ... in order."""
    entries: list[dict[str, Any]] = []
    for option_id, option in zip(OPTION_IDS, options, strict=False):
        entry: dict[str, Any] = {"id": option_id, "text": {language: option.text}}
        if option.note is not None:
            entry["note"] = {language: option.note}
        entries.append(entry)
    return entries
