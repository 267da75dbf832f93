"""Importers from other quiz formats (Moodle GIFT, Aiken, Open Trivia DB, Red trivia) to ours.

``import_quiz`` reads a file and returns an :class:`ImportResult`: the quiz as a plain dict in
our format and the :class:`ImportProblem` list of what was skipped or needs the author.
``dump_quiz_yaml`` writes the dict as YAML that ``bot.quiz_loader`` reads. Input that cannot be
read at all raises :class:`QuizImportError`; a bad argument raises ``ValueError``.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from bot.importers.aiken import import_aiken
from bot.importers.base import (
    ImportProblem,
    ImportResult,
    QuizImportError,
    QuizMeta,
    humanize,
    slugify,
)
from bot.importers.gift import import_gift
from bot.importers.opentdb import import_opentdb
from bot.importers.red import import_red
from bot.quiz_loader import (
    ID_PATTERN,
    LANGUAGE_PATTERN,
    MAX_FILE_BYTES,
    MAX_OPTIONS,
    MAX_QUESTIONS,
    MIN_OPTIONS,
)
from bot.quoting import printable, quote

__all__ = [
    "FORMATS",
    "MAX_INPUT_BYTES",
    "SCHEMA_COMMENT",
    "ImportProblem",
    "ImportResult",
    "QuizImportError",
    "decode",
    "dump_quiz_yaml",
    "import_quiz",
    "import_text",
    "quiz_parts",
]

_IMPORTERS: dict[str, Callable[[str, QuizMeta], ImportResult]] = {
    "gift": import_gift,
    "aiken": import_aiken,
    "opentdb": import_opentdb,
    "red": import_red,
}
FORMATS = tuple(_IMPORTERS)
MAX_INPUT_BYTES = 8 * 1024 * 1024
SCHEMA_COMMENT = "# yaml-language-server: $schema=../schema/quiz.schema.json"


def import_text(
    text: str,
    fmt: str,
    *,
    quiz_id: str | None = None,
    name: str = "imported",
    language: str = "en",
    choices: int | None = None,
) -> ImportResult:
    """Import ``text`` in format ``fmt``; the title comes from ``quiz_id``, else from ``name``
    (a file stem), which also gives the id when ``quiz_id`` is None. ``choices`` (Red only)
    makes multiple-choice questions of that many options instead of typed-answer ones."""
    if fmt not in _IMPORTERS:
        raise ValueError(f"unknown format {quote(fmt)} (expected one of: {', '.join(FORMATS)})")
    if choices is not None and fmt != "red":
        raise ValueError("--choices is for Red trivia lists (the other formats have options)")
    if choices is not None and not MIN_OPTIONS <= choices <= MAX_OPTIONS:
        raise ValueError(f"--choices must be {MIN_OPTIONS} to {MAX_OPTIONS}, not {choices}")
    if quiz_id is not None and not ID_PATTERN.fullmatch(quiz_id):
        raise ValueError(f"quiz id {quote(quiz_id)} must be 1-40 lowercase letters, digits, - or _")
    if not LANGUAGE_PATTERN.fullmatch(language):
        raise ValueError(f'{quote(language)} is not a language code such as "en"')
    if len(text) > MAX_INPUT_BYTES:
        raise QuizImportError(1, f"the input is over {MAX_INPUT_BYTES} characters")
    meta = QuizMeta(
        quiz_id=quiz_id or slugify(name) or "imported",
        title=humanize(quiz_id or name) or "Imported quiz",
        language=language,
        choices=choices,
    )
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        raise QuizImportError(
            line, "the text contains NUL characters: a binary file, or UTF-16 without a BOM?"
        )
    return _IMPORTERS[fmt](text.removeprefix("\ufeff"), meta)


def import_quiz(
    path: Path,
    fmt: str,
    *,
    quiz_id: str | None = None,
    language: str = "en",
    choices: int | None = None,
) -> ImportResult:
    """Import the file at ``path``; its stem gives the quiz id and title unless ``quiz_id``."""
    if fmt not in _IMPORTERS:  # before touching the file: a usage error, not a file error
        raise ValueError(f"unknown format {quote(fmt)} (expected one of: {', '.join(FORMATS)})")
    try:
        if path.stat().st_size > MAX_INPUT_BYTES:
            raise QuizImportError(1, f"the file is over {MAX_INPUT_BYTES} bytes")
        data = path.read_bytes()
    except OSError as exc:
        raise QuizImportError(1, f"cannot read {printable(path)}: {exc.strerror or exc}") from None
    text = decode(data)
    return import_text(
        text, fmt, quiz_id=quiz_id, name=path.stem, language=language, choices=choices
    )


def decode(data: bytes) -> str:
    """The text of a file: UTF-8 (with or without a BOM) or UTF-16/32 with a BOM.

    UTF-16 without a BOM is refused by name: its NUL bytes would otherwise read as text.
    """
    for bom, codec in ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32")):
        if data.startswith(bom):
            return _decode(data, codec)
    for bom, codec in ((codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16")):
        if data.startswith(bom):
            return _decode(data, codec)
    if b"\x00" in data:
        head = data[:4096]
        even, odd = head[0::2].count(0), head[1::2].count(0)
        line = data.count(b"\n", 0, data.index(b"\x00")) + 1
        if max(even, odd) > len(head) // 4 and min(even, odd) < max(even, odd) // 4:
            raise QuizImportError(
                1, "the file looks like UTF-16 without a byte order mark; save it as UTF-8"
            )
        raise QuizImportError(line, "the file contains NUL bytes: it is not a text file")
    return _decode(data, "utf-8-sig")


def _decode(data: bytes, codec: str) -> str:
    try:
        return data.decode(codec)
    except UnicodeDecodeError as exc:
        line = data[: exc.start].decode(codec, "replace").count("\n") + 1
        name = "UTF-8" if codec == "utf-8-sig" else codec.upper()
        raise QuizImportError(line, f"not {name} text ({exc.reason}); save it as UTF-8") from None


def quiz_parts(quiz: dict[str, Any]) -> list[tuple[dict[str, Any], str]]:
    """``quiz`` as one or more quizzes, each with its YAML, that each fit the loader's limits
    (question count and file size); part 2 on get the ids ``ID-2``, ``ID-3``, and every part
    a numbered title."""
    chunks: list[list[dict[str, Any]]] = [[]]
    size = 0
    for question in quiz["questions"]:
        length = _estimate(question)
        if chunks[-1] and (len(chunks[-1]) >= MAX_QUESTIONS or size + length > _BUDGET):
            chunks.append([])
            size = 0
        chunks[-1].append(question)
        size += length
    if len(chunks) == 1:
        return _fitted(quiz, fast=False)
    parts: list[tuple[dict[str, Any], str]] = []
    for number, chunk in enumerate(chunks, start=1):
        suffix = f"-{number}" if number > 1 else ""
        part = {**quiz, "questions": chunk}
        part["id"] = quiz["id"][: 40 - len(suffix)] + suffix
        count, titles = len(chunks), quiz["title"].items()
        part["title"] = {lang: f"{title} ({number}/{count})" for lang, title in titles}
        parts.extend(_fitted(part, fast=True))  # thousands of questions: libyaml's pace
    return parts


_BUDGET = MAX_FILE_BYTES * 3 // 4  # the estimate is close; a part that is not fits is halved


def _estimate(value: Any) -> int:
    """About how many bytes ``value`` takes in the dumped YAML (keys, indents, quotes)."""
    if isinstance(value, str):
        return len(value.encode("utf-8", "surrogatepass")) + 8
    if isinstance(value, dict):
        return sum(len(key) + 8 + _estimate(item) for key, item in value.items())
    if isinstance(value, list):
        return sum(_estimate(item) + 4 for item in value)
    return 16


def _fitted(part: dict[str, Any], *, fast: bool) -> list[tuple[dict[str, Any], str]]:
    text = dump_quiz_yaml(part, fast=fast)
    questions = part["questions"]
    if len(text.encode("utf-8")) <= MAX_FILE_BYTES or len(questions) < 2:
        return [(part, text)]
    half = len(questions) // 2  # rare: texts that YAML escapes heavily
    first, second = {**part, "questions": questions[:half]}, {**part, "questions": questions[half:]}
    second["id"] = part["id"][:37] + "-b"
    return [*_fitted(first, fast=fast), *_fitted(second, fast=fast)]


class _Dumper(yaml.SafeDumper):
    """Safe dumping in the layout of our quiz files: indented lists, multi-line text as ``|``."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)


def _represent_str(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
    style = "|" if "\n" in data else None  # PyYAML falls back to quotes where | cannot hold it
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


def _represent_list(dumper: yaml.SafeDumper, data: list[Any]) -> yaml.SequenceNode:
    # A list of plain values reads best on one line, as in `languages: [en, ru]`.
    flow = all(isinstance(item, str) and "\n" not in item for item in data)
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=flow)


_Dumper.add_representer(str, _represent_str)
_Dumper.add_representer(list, _represent_list)

if TYPE_CHECKING:
    _FastBase = yaml.SafeDumper
else:  # libyaml's emitter, several times faster; it cannot indent lists inside mappings
    _FastBase = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class _FastDumper(_FastBase):
    """For sources split into several quizzes: the same YAML, lists at their key's indent."""


_FastDumper.add_representer(str, _represent_str)
_FastDumper.add_representer(list, _represent_list)


def dump_quiz_yaml(
    quiz: dict[str, Any], *, schema_comment: str = SCHEMA_COMMENT, fast: bool = False
) -> str:
    """``quiz`` as the YAML of a quiz file, headed by the editor's schema comment.

    The default comment points at the schema from a file in ``quizzes/``. ``fast`` uses
    libyaml's emitter (when installed), whose layout differs only in list indentation.
    """
    body = yaml.dump(
        quiz,
        Dumper=_FastDumper if fast else _Dumper,
        allow_unicode=True,
        sort_keys=False,
        default_flow_style=False,
        width=100,
    )
    return f"{schema_comment}\n{body}" if schema_comment else body
