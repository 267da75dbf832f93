"""Red-DiscordBot trivia lists: ``AUTHOR``, ``DESCRIPTION``, ``CONFIG``, ``Question?: [answers]``.

Red's answers are all right answers (spellings the bot accepts); it has no wrong options. Each
question becomes a typed-answer question (``kind: typed``) that accepts every listed spelling,
as Red does. With ``choices`` (``quizbot import --choices N``) questions become multiple choice
instead, with wrong options drawn from the other questions' answers in the same list.

Red reads a list with ``yaml.safe_load``: a repeated question keeps its last answers and a
boolean answer (``yes``, ``off``) accepts its whole family (True, Yes, On). The same is done
here, with the line of every item that is reported.
"""

from __future__ import annotations

import random
import re
import zlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

import yaml

from bot.answer_matching import normalize
from bot.importers.base import (
    DraftOption,
    DraftQuestion,
    ImportResult,
    QuizBuilder,
    QuizImportError,
    QuizMeta,
    restate,
)
from bot.quoting import printable, quote

if TYPE_CHECKING:
    _Loader = yaml.SafeLoader
else:  # libyaml composes a large list many times faster; the pure-Python loader is the fallback
    _Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_NULL = "tag:yaml.org,2002:null"
_BOOL = "tag:yaml.org,2002:bool"
_METADATA = {"AUTHOR", "DESCRIPTION"}
_IGNORED = {"CONFIG", "$SCHEMA"}  # Red's settings and the editor's schema link
_BOOLEANS = {  # what Red accepts for a YAML boolean answer (trivia session._parse_answers)
    True: ("True", "Yes", "On"),
    False: ("False", "No", "Off"),
}
_NUMBER = re.compile(r"[\d\s.,:/%$€£+-]+")


@dataclass
class _Item:
    line: int
    text: str
    answers: list[str]


def _scalar(node: yaml.Node) -> str | None:
    """A scalar's text as written; Red's author meant ``1.0`` or ``0x1F``, not 1 or 31."""
    if isinstance(node, yaml.ScalarNode) and node.tag != _NULL:
        return str(node.value)
    return None


def _answers(node: yaml.Node) -> list[str]:
    """The accepted spellings of one answer node; [] for nothing usable."""
    text = _scalar(node)
    if text is None:
        return []
    if node.tag == _BOOL and isinstance(node, yaml.ScalarNode) and not node.style:
        truth = yaml.SafeLoader.bool_values.get(text.lower())
        if truth is not None:
            return [text, *_BOOLEANS[truth]]
    return [text]


def _compose(text: str) -> yaml.Node | None:
    # Composing (not constructing) keeps every line and never builds aliased data; only the
    # top two levels are read, so even a file of anchors costs nothing.
    try:
        loader = _Loader(text)
    except yaml.reader.ReaderError as exc:  # the pure-Python reader checks characters here
        raise _bad_character(text, exc) from None
    try:
        return loader.get_single_node()
    except yaml.reader.ReaderError as exc:
        raise _bad_character(text, exc) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 1
        raise QuizImportError(
            line, f"not valid YAML: {printable(exc.problem or exc.context)}"
        ) from None
    except yaml.YAMLError as exc:
        raise QuizImportError(1, f"not valid YAML: {printable(exc)}") from None
    except RecursionError:
        raise QuizImportError(1, "not valid YAML: nesting is too deep") from None
    finally:
        loader.dispose()


def _bad_character(text: str, exc: yaml.reader.ReaderError) -> QuizImportError:
    line = text.count("\n", 0, exc.position) + 1
    code = exc.character if isinstance(exc.character, int) else ord(exc.character)
    return QuizImportError(line, f"not valid YAML: character U+{code:04X} is not allowed")


def import_red(text: str, meta: QuizMeta) -> ImportResult:
    """Convert a Red trivia list into typed-answer (or, with ``meta.choices``, multiple-choice)
    questions."""
    root = _compose(text)
    if not isinstance(root, yaml.MappingNode):
        line = root.start_mark.line + 1 if root is not None else 1
        raise QuizImportError(line, "a Red trivia list is a mapping of question: [answers]")
    builder = QuizBuilder(meta, each_missing_explanation=False, keep_repeats=True)
    metadata: dict[str, str] = {}
    items: dict[str, _Item] = {}
    for key_node, value_node in root.value:
        line = key_node.start_mark.line + 1
        question = _scalar(key_node)
        if question is None:
            builder.problem(line, "a question must be text; skipped")
            continue
        if question.upper() in _IGNORED:
            continue
        if question.upper() in _METADATA and not isinstance(value_node, yaml.SequenceNode):
            value = _scalar(value_node)
            if value is not None and value.strip():
                metadata[question.upper()] = value.strip()
            continue
        if isinstance(value_node, yaml.MappingNode):
            builder.problem(line, f"{quote(_short(question))} holds settings, not answers; skipped")
            continue
        answers = _item_answers(builder, value_node)
        earlier = items.pop(question, None)
        if earlier is not None:
            builder.problem(
                earlier.line,
                f"question {quote(_short(question))} is asked again on line {line}; the answers "
                "there are kept, as Red does",
            )
        if not answers:
            builder.problem(line, "question has no answers; skipped")
            continue
        items[question] = _Item(line, question, answers)

    ordered = sorted(items.values(), key=lambda item: item.line)
    chooser = _Chooser(ordered, meta.choices, builder) if meta.choices else None
    for item in ordered:
        draft = chooser.draft(item) if chooser else None
        builder.add(draft or DraftQuestion(item.line, item.text, [], 0, answers=item.answers))
    description = metadata.get("DESCRIPTION")
    if description is None and "AUTHOR" in metadata:
        description = f"Red trivia list by {metadata['AUTHOR']}."
    return builder.result(description=description)


def _item_answers(builder: QuizBuilder, value_node: yaml.Node) -> list[str]:
    """A question's answers; an answer that is not text is reported and left out."""
    if isinstance(value_node, yaml.SequenceNode):
        nodes = value_node.value
    else:  # Red wants a list; a single answer or nothing at all is still understood
        nodes = [] if value_node.tag == _NULL else [value_node]
    answers: list[str] = []
    for node in nodes:
        spellings = [s for s in _answers(node) if s.strip()]
        if not spellings:
            what = "a list or mapping" if isinstance(node, yaml.CollectionNode) else "empty"
            builder.problem(
                node.start_mark.line + 1, f"an answer is {what}, not text; it was left out"
            )
        answers.extend(spellings)
    return answers


def _key(answer: str) -> str:
    """Answers that a typed reply could not tell apart have the same key."""
    return normalize(answer).replace(" ", "")


def _short(text: str) -> str:
    return text if len(text) <= 60 else text[:59] + "…"


class _Chooser:
    """Wrong options for a question from the first answers of the list's other questions.

    A numeric answer gets numeric wrong options and a word answer words, when the list has
    enough of them; the pick is seeded by the question text, so an import is repeatable.
    """

    def __init__(self, items: list[_Item], count: int, builder: QuizBuilder) -> None:
        self.count = count
        self.builder = builder
        pool: dict[str, str] = {}
        for item in items:
            pool.setdefault(_key(item.answers[0]), item.answers[0])
        pool.pop("", None)
        self.pool = list(pool.items())
        self.alike = {
            numeric: [e for e in self.pool if bool(_NUMBER.fullmatch(e[1])) == numeric]
            for numeric in (True, False)
        }
        self.enabled = len(self.pool) >= count
        if not self.enabled and items:
            builder.problem(
                items[0].line,
                f"the list has {len(self.pool)} different answers, too few for {count} "
                "options; its questions are typed-answer questions",
            )

    def draft(self, item: _Item) -> DraftQuestion | None:
        if not self.enabled:
            return None
        accepted = {_key(answer) for answer in item.answers}
        rng = random.Random(zlib.crc32(item.text.encode("utf-8", "surrogatepass")))
        alike = self.alike[bool(_NUMBER.fullmatch(item.answers[0]))]
        wrong = _pick(rng, alike, accepted, self.count - 1)
        if wrong is None:
            wrong = _pick(rng, self.pool, accepted, self.count - 1)
        if wrong is None:
            self.builder.problem(
                item.line,
                f"too few other answers to make {self.count} options; kept as a typed question",
            )
            return None
        correct = rng.randrange(self.count)
        texts = [*wrong[:correct], item.answers[0], *wrong[correct:]]
        others = item.answers[1:]
        explanation = None
        if others and sum(map(len, others)) < 1000:
            also = self.builder.word("also", item.line).format(spellings=", ".join(others))
            explanation = restate(f"{item.answers[0]} ({also})", self.builder.meta.language)
        return DraftQuestion(
            item.line,
            item.text,
            [DraftOption(text) for text in texts],
            correct,
            explanation=explanation,
        )


def _pick(
    rng: random.Random, entries: list[tuple[str, str]], accepted: set[str], count: int
) -> list[str] | None:
    """``count`` texts of ``entries`` whose keys are not ``accepted``, or None when too few.

    Random draws find them at once in a list of any size; the exhaustive pass is for the
    small lists where draws keep meeting the accepted answers.
    """
    chosen: dict[str, str] = {}
    for _ in range(20 * count):
        if not entries or len(chosen) == count:
            break
        key, text = entries[rng.randrange(len(entries))]
        if key not in accepted:
            chosen.setdefault(key, text)
    if len(chosen) < count:
        rest = [e for e in entries if e[0] not in accepted and e[0] not in chosen]
        if len(chosen) + len(rest) < count:
            return None
        chosen.update(rng.sample(rest, count - len(chosen)))
    return list(chosen.values())
