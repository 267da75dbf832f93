"""Red-DiscordBot trivia lists: ``AUTHOR``, ``CONFIG`` and ``Question?: [answer, ...]``.

Red's answers are all right answers (spellings the bot accepts); it has no wrong options. The
first answer becomes the only option, and every question is reported as needing wrong options:
the written file then fails validation, listing each question until its author has added them.
"""

from __future__ import annotations

import yaml

from bot.importers.base import (
    DraftOption,
    DraftQuestion,
    ImportResult,
    QuizBuilder,
    QuizImportError,
    QuizMeta,
)
from bot.quiz_loader import MAX_OPTIONS

_NULL = "tag:yaml.org,2002:null"
_IGNORED = ("AUTHOR", "CONFIG")  # Red's own settings, not questions


def _scalar(node: yaml.Node) -> str | None:
    """A scalar's text as written; Red's author meant ``yes`` or ``1.0``, not True or 1."""
    if isinstance(node, yaml.ScalarNode) and node.tag != _NULL:
        return str(node.value)
    return None


def _compose(text: str) -> yaml.Node | None:
    # Composing (not constructing) keeps every line and never builds aliased data; only the
    # top two levels are read, so even a file of anchors costs nothing.
    try:
        loader = yaml.SafeLoader(text)  # checks the whole text for forbidden characters at once
    except yaml.reader.ReaderError as exc:
        line = text.count("\n", 0, exc.position) + 1
        code = exc.character if isinstance(exc.character, int) else ord(exc.character)
        message = f"not valid YAML: character U+{code:04X} is not allowed"
        raise QuizImportError(line, message) from None
    try:
        return loader.get_single_node()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 1
        raise QuizImportError(line, f"not valid YAML: {exc.problem or exc.context}") from None
    except yaml.YAMLError as exc:
        raise QuizImportError(1, f"not valid YAML: {exc}") from None
    except RecursionError:
        raise QuizImportError(1, "not valid YAML: nesting is too deep") from None
    finally:
        loader.dispose()


def import_red(text: str, meta: QuizMeta) -> ImportResult:
    """Convert a Red trivia list; each question is written with its one right option."""
    root = _compose(text)
    if not isinstance(root, yaml.MappingNode):
        line = root.start_mark.line + 1 if root is not None else 1
        raise QuizImportError(line, "a Red trivia list is a mapping of question: [answers]")
    builder = QuizBuilder(meta, min_options=1)
    author = None
    for key_node, value_node in root.value:
        line = key_node.start_mark.line + 1
        question = _scalar(key_node)
        if question in _IGNORED:
            author = _scalar(value_node) if question == "AUTHOR" else author
            continue
        if question is None:
            builder.problem(line, "a question must be text; skipped")
            continue
        if isinstance(value_node, yaml.SequenceNode):
            nodes = value_node.value
        else:  # Red wants a list; a single answer or nothing at all is still understood
            nodes = [] if value_node.tag == _NULL else [value_node]
        answers = [_scalar(node) for node in nodes]
        if not answers:
            builder.problem(line, "question has no answers; skipped")
            continue
        if None in answers:
            builder.problem(line, "the answers must be a list of texts, as in [Paris]; skipped")
            continue
        right, *others = (answer for answer in answers if answer is not None)
        question_id = builder.add(
            DraftQuestion(line=line, text=question, options=[DraftOption(right)], correct=0)
        )
        if question_id is None:
            continue
        quoted = ", ".join(f'"{other}"' for other in others)
        spellings = f" ({quoted}: other spellings of it)" if others else ""
        builder.problem(
            line,
            f'question "{question_id}" needs wrong options: Red lists only the right answer, '
            f'"{right}"{spellings}; add 1 to {MAX_OPTIONS - 1} wrong options',
        )
    description = f"Red trivia list by {author}." if author and author.strip() else None
    return builder.result(description=description)
