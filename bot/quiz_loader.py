"""Loading and validating quiz files.

Quiz files are YAML read with PyYAML's SafeLoader (what ``yaml.safe_load`` uses), extended only
to remember the line of every key and list item so that each problem can be reported as
``path:line: problem``. Every problem in a file is collected, not just the first; a broken file
is skipped and never takes the other quizzes down.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import yaml

from bot import image_files, markup
from bot.answer_matching import MAX_TYPED_CHARS, normalize
from bot.quiz import (
    CHOICE,
    LEVELS,
    TYPED,
    AcceptedAnswers,
    LocalizedText,
    Option,
    Question,
    Quiz,
    QuizImage,
    Shuffle,
)
from bot.quoting import printable, quote


class ValidatedFiles(Protocol):
    """Where reports of files validated before are kept (:class:`bot.quiz_cache.QuizCache`):
    a file unchanged since is not parsed again."""

    def load(
        self, path: Path, shown: str, validate: Callable[[bytes], LoadReport]
    ) -> LoadReport | None:
        """The file's report, from the store or ``validate(content)``; None if unreadable."""


MAX_FILE_BYTES = 1024 * 1024
QUIZ_SUFFIXES = (".yaml", ".yml")  # what a folder's quiz files are named
MAX_QUESTIONS = 500
MIN_OPTIONS, MAX_OPTIONS = 2, 10
MAX_TEXT_CHARS = 10_000
MAX_NESTING = 50
ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
LANGUAGE_PATTERN = re.compile(r"^[a-z]{2,3}(-[a-z0-9]{2,8})?$")
# Tags are typed by players (``/quiz QUIZ #tag``): short, lowercase, and a Telegram hashtag.
TAG_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_]{0,23}$")
MAX_TAGS = 10  # per question

QUIZ_KEYS = {
    "id",
    "title",
    "description",
    "level",
    "guide",
    "default_language",
    "languages",
    "shuffle",
    "native_polls",
    "pick",
    "questions",
}
QUESTION_KEYS = {
    "id",
    "kind",
    "text",
    "options",
    "correct",
    "answers",
    "explanation",
    "tags",
    "image",
    "explanation_image",
}
QUESTION_KINDS = (CHOICE, TYPED)
MAX_SPELLINGS = 100  # accepted spellings of a typed answer, per language
OPTION_KEYS = {"id", "text", "note"}
SHUFFLE_KEYS = {"questions", "options"}
IMAGE_KEYS = {"file", "alt"}
MAX_ALT_CHARS = 1000  # Discord's attachment description holds 1024


@dataclass(frozen=True, order=True)
class QuizProblem:
    """One problem found in a quiz file, printable as ``path:line: message``."""

    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{printable(self.path)}:{self.line}: {self.message}"


@dataclass
class LoadReport:
    """What loading some quiz files produced: the valid quizzes, errors and warnings."""

    quizzes: list[Quiz] = field(default_factory=list)
    errors: list[QuizProblem] = field(default_factory=list)
    warnings: list[QuizProblem] = field(default_factory=list)
    # The image files the quiz files name (absolute path -> image_files.fingerprint), read or
    # not: a cached report holds only while each is as it was.
    image_files: dict[str, str] = field(default_factory=dict)


class _Map(dict[Any, Any]):
    """A YAML mapping that remembers its own line and the line of each key."""

    line: int = 0
    key_lines: dict[Any, int]


class _List(list[Any]):
    """A YAML sequence that remembers its own line and the line of each item."""

    line: int = 0
    item_lines: list[int]


class _YamlProblem(Exception):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


if TYPE_CHECKING:
    _FastSafeLoader = yaml.SafeLoader
else:  # libyaml's parser is several times faster; the pure-Python one is the fallback
    _FastSafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


# YAML also breaks lines at U+0085, U+2028 and U+2029, which editors show inside a line.
_YAML_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")
_UNUSUAL_BREAK = re.compile("[\x85\u2028\u2029]")


class _Mark(Protocol):
    """Where PyYAML or libyaml found something (their marks are different classes)."""

    @property
    def line(self) -> int: ...


class _FileLines:
    """Line numbers as an editor shows them, from YAML's (0-based) line numbers."""

    def __init__(self, text: str) -> None:
        self._lines: list[int] | None = None  # the file's line of each YAML line
        if _UNUSUAL_BREAK.search(text):
            lines = [1]
            for found in _YAML_BREAK.finditer(text):
                lines.append(lines[-1] + (not _UNUSUAL_BREAK.fullmatch(found.group())))
            self._lines = lines

    def of(self, mark: _Mark | None) -> int:
        """The 1-based line of ``mark`` in the file (1 without a mark)."""
        if mark is None:
            return 1
        if self._lines is None:
            return mark.line + 1
        return self._lines[min(mark.line, len(self._lines) - 1)]


class _LineLoader(_FastSafeLoader):
    """SafeLoader (on libyaml when available) that keeps line numbers and refuses aliases."""

    def __init__(self, text: str, lines: _FileLines) -> None:
        super().__init__(text)
        self.claimed: set[int] = set()
        self.lines = lines

    def claim(self, node: yaml.Node, line: int) -> None:
        """Refuse a node met twice: only an alias (*name) can do that, and aliases can
        multiply a small file into a huge structure (a YAML bomb)."""
        if id(node) in self.claimed:
            raise _YamlProblem(
                line, "YAML aliases (*name) are not allowed in quiz files; write the text out"
            )
        self.claimed.add(id(node))


def _check_nesting(text: str, lines: _FileLines) -> None:
    """Refuse deep nesting before building anything: the parser's event stream is flat, while
    composing nested nodes recurses (and libyaml's composer would crash on it)."""
    depth = 0
    for event in yaml.parse(text, Loader=_FastSafeLoader):
        if isinstance(event, yaml.SequenceStartEvent | yaml.MappingStartEvent):
            depth += 1
            if depth > MAX_NESTING:
                raise _YamlProblem(
                    lines.of(event.start_mark), f"nesting deeper than {MAX_NESTING} levels"
                )
        elif isinstance(event, yaml.SequenceEndEvent | yaml.MappingEndEvent):
            depth -= 1


def _construct_map(loader: _LineLoader, node: yaml.MappingNode) -> Any:
    data = _Map()
    data.line = loader.lines.of(node.start_mark)
    data.key_lines = {}
    yield data
    for key_node, value_node in node.value:
        line = loader.lines.of(key_node.start_mark)
        loader.claim(key_node, line)
        loader.claim(value_node, line)
        key = loader.construct_object(key_node, deep=True)
        try:
            hash(key)
        except TypeError:
            raise _YamlProblem(line, "a mapping key must be plain text") from None
        if key in data:
            raise _YamlProblem(line, f"duplicate key {quote(key)}")
        data[key] = loader.construct_object(value_node, deep=True)
        data.key_lines[key] = line


def _construct_list(loader: _LineLoader, node: yaml.SequenceNode) -> Any:
    data = _List()
    data.line = loader.lines.of(node.start_mark)
    data.item_lines = []
    yield data
    for item in node.value:
        loader.claim(item, data.line)
        data.append(loader.construct_object(item, deep=True))
        data.item_lines.append(loader.lines.of(item.start_mark))


# Dates stay text: a title such as "2001-13-01" is not a (broken) timestamp.
_LineLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_LineLoader.add_constructor("tag:yaml.org,2002:map", _construct_map)
_LineLoader.add_constructor("tag:yaml.org,2002:seq", _construct_list)


def parse_yaml(text: str) -> Any:
    """Parse YAML text safely, keeping line numbers; raises ``_YamlProblem``."""
    loader: _LineLoader | None = None
    lines = _FileLines(text)
    try:
        _check_nesting(text, lines)
        loader = _LineLoader(text, lines)  # the reader already checks characters here
        return loader.get_single_data()
    except yaml.reader.ReaderError as exc:
        line = text.count("\n", 0, exc.position) + 1
        raise _YamlProblem(
            line, f"invalid YAML: character {exc.character!r} is not allowed in YAML text"
        ) from None
    except yaml.MarkedYAMLError as exc:
        line = lines.of(exc.problem_mark or exc.context_mark)
        problem = exc.problem or exc.context or "invalid YAML"
        raise _YamlProblem(line, f"invalid YAML: {printable(problem)}") from None
    except yaml.YAMLError as exc:
        raise _YamlProblem(1, f"invalid YAML: {printable(exc)}") from None
    except RecursionError:
        raise _YamlProblem(1, "invalid YAML: nesting is too deep") from None
    except ValueError as exc:  # a constructor refusing a value (e.g. an explicit !!timestamp)
        raise _YamlProblem(1, f"invalid YAML value: {printable(exc)}") from None
    finally:
        if loader is not None:
            loader.dispose()


def line_at(doc: Any, path: Iterable[Any]) -> int:
    """The line of the value at ``path`` (keys and list indexes) in a parsed document, or of
    the deepest part of the path that exists."""
    line = getattr(doc, "line", 1)
    node = doc
    for step in path:
        if isinstance(node, _Map) and step in node:
            line = node.key_lines.get(step, line)
            node = node[step]
        elif isinstance(node, _List) and isinstance(step, int) and 0 <= step < len(node):
            line = node.item_lines[step]
            node = node[step]
        else:
            break
    return line


class _Validator:
    """Turns one parsed quiz document into a :class:`Quiz`, collecting every problem."""

    def __init__(self, path: str, default_id: str, folder: Path | None = None) -> None:
        self.path = path
        self.default_id = default_id
        self.folder = folder  # where the images it names are (None: it may name none)
        self.errors: list[QuizProblem] = []
        self.warnings: list[QuizProblem] = []
        self.default_language = "en"
        self.languages: tuple[str, ...] = ("en",)
        # Each image file once: its facts, or why it cannot be shown.
        self.images_read: dict[Path, image_files.ImageFacts | str] = {}
        self.image_files: dict[str, str] = {}  # see LoadReport.image_files

    def error(self, line: int, message: str) -> None:
        self.errors.append(QuizProblem(self.path, line, message))

    def warn(self, line: int, message: str) -> None:
        self.warnings.append(QuizProblem(self.path, line, message))

    @staticmethod
    def line_of(container: Any, key: Any, fallback: int) -> int:
        if isinstance(container, _Map):
            return container.key_lines.get(key, container.line)
        if isinstance(container, _List) and isinstance(key, int) and key < len(container):
            return container.item_lines[key]
        return fallback

    def unknown_keys(self, mapping: _Map, allowed: set[str], where: str) -> None:
        for key in mapping:
            if key not in allowed:
                expected = ", ".join(sorted(allowed))
                self.error(
                    mapping.key_lines[key],
                    f"{where}unknown key {quote(key)} (expected one of: {expected})",
                )

    def ident(self, mapping: _Map, key: str, where: str, what: str) -> str | None:
        value = mapping.get(key)
        line = self.line_of(mapping, key, mapping.line)
        if value is None:
            self.error(line, f"{where}{what} has no {key}")
            return None
        if isinstance(value, bool) or not isinstance(value, str | int):
            self.error(line, f"{where}{key} must be a short text, not {type(value).__name__}")
            return None
        value = str(value)
        if not ID_PATTERN.fullmatch(value):
            self.error(
                line,
                f'{where}{key} {quote(value)} must be 1-40 lowercase letters, digits, "-" or "_"',
            )
            return None
        return value

    def text(
        self, mapping: _Map, key: str, where: str, *, required: bool = True
    ) -> LocalizedText | None:
        """A localized text: a mapping of language to text, or plain text in the default."""
        line = self.line_of(mapping, key, mapping.line)
        value = mapping.get(key)
        if value is None:
            if required:
                self.error(line, f"{where}{key} is missing")
            return None
        if isinstance(value, str):
            value = {self.default_language: value}
            lines = {self.default_language: line}
        elif isinstance(value, _Map):
            lines = value.key_lines
        else:
            self.error(line, f"{where}{key} must be text or a mapping of language to text")
            return None
        texts: dict[str, str] = {}
        for language, text in value.items():
            problem = self._text_problem(f"{where}{key}", language, text)
            if problem is not None:
                self.error(lines.get(language, line), problem)
                continue
            texts[language] = text.strip()
        if self.default_language not in texts:
            if self.default_language not in value:  # otherwise its problem is reported above
                self.error(line, f"{where}{key} has no {self.default_language} text (the default)")
            return None
        for language in self.languages:
            if language not in texts and language not in value:
                self.warn(
                    line,
                    f"{where}{key} has no {quote(language)} translation "
                    f"(shown in {self.default_language})",
                )
        return LocalizedText(texts, self.default_language)

    def _text_problem(self, label: str, language: str, text: object) -> str | None:
        """Why one language's text of ``label`` cannot be used, or None when it can."""
        if language not in self.languages:
            listed = ", ".join(self.languages)
            return f"{label}: language {quote(language)} is not in languages ({listed})"
        if not isinstance(text, str):
            return (
                f"{label} ({language}) must be text, not {type(text).__name__} (put it in quotes)"
            )
        if not text.strip():
            return f"{label} ({language}) is empty"
        if len(text) > MAX_TEXT_CHARS:
            return f"{label} ({language}) is {len(text)} characters; the limit is {MAX_TEXT_CHARS}"
        if markup.unclosed_fence(text):
            return (
                f"{label} ({language}) opens a code block (```) that is never closed:"
                " end it with a line of ```"
            )
        return None

    def quiz(self, doc: Any) -> Quiz | None:
        if not isinstance(doc, _Map):
            self.error(getattr(doc, "line", 1), "a quiz file must be a mapping (key: value)")
            return None
        self.unknown_keys(doc, QUIZ_KEYS, "")
        self.languages_of(doc)
        quiz_id = self.default_id
        if "id" in doc:
            quiz_id = self.ident(doc, "id", "", "the quiz") or quiz_id
        elif not ID_PATTERN.fullmatch(quiz_id):
            self.error(1, f'the file name gives the quiz id {quote(quiz_id)}; set a valid "id:"')
        title = self.text(doc, "title", "")
        description = self.text(doc, "description", "", required=False)
        level = doc.get("level")
        if level is not None and level not in LEVELS:
            self.error(
                self.line_of(doc, "level", 1),
                f"level {quote(level)} is not one of {', '.join(LEVELS)}",
            )
            level = None
        guide = doc.get("guide")
        if guide is not None and not (
            isinstance(guide, str) and guide.startswith(("https://", "http://"))
        ):
            self.error(self.line_of(doc, "guide", 1), "guide must be an http(s) link")
            guide = None
        shuffle = self.shuffle(doc)
        native_polls = doc.get("native_polls", False)
        if not isinstance(native_polls, bool):
            self.error(self.line_of(doc, "native_polls", 1), "native_polls must be true or false")
            native_polls = False
        questions = self.questions(doc)
        pick = self.pick(doc)
        if self.errors or title is None:
            return None
        return Quiz(
            id=quiz_id,
            title=title,
            description=description,
            level=level,
            guide_url=guide,
            default_language=self.default_language,
            languages=self.languages,
            questions=tuple(questions),
            shuffle=shuffle,
            native_polls=native_polls,
            source=self.path,
            pick=pick,
        )

    def pick(self, doc: _Map) -> int | None:
        """``pick: N``: draw N of the questions for each attempt (1 to the number of them)."""
        value = doc.get("pick")
        if value is None:
            return None
        items = doc.get("questions")
        count = len(items) if isinstance(items, list) else 0
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= count:
            self.error(
                self.line_of(doc, "pick", 1),
                f"pick {quote(value)} must be a whole number from 1 to {count} "
                "(the number of questions)",
            )
            return None
        return value

    def languages_of(self, doc: _Map) -> None:
        default = doc.get("default_language", "en")
        line = self.line_of(doc, "default_language", 1)
        if not isinstance(default, str) or not LANGUAGE_PATTERN.fullmatch(default):
            self.error(
                line, f'default_language {quote(default)} is not a language code such as "en"'
            )
            default = "en"
        self.default_language = default
        languages = doc.get("languages", [default])
        line = self.line_of(doc, "languages", 1)
        if not isinstance(languages, list) or not languages:
            self.error(line, "languages must be a list of language codes, e.g. [en, ru]")
            languages = [default]
        valid: list[str] = []
        for index, language in enumerate(languages):
            item_line = self.line_of(languages, index, line)
            if not isinstance(language, str) or not LANGUAGE_PATTERN.fullmatch(language):
                self.error(item_line, f'{quote(language)} is not a language code such as "en"')
            elif language in valid:
                self.error(item_line, f"language {quote(language)} is listed twice")
            else:
                valid.append(language)
        if default not in valid:
            self.error(line, f"languages must include the default language {quote(default)}")
            valid.insert(0, default)
        self.languages = tuple(valid)

    def shuffle(self, doc: _Map) -> Shuffle:
        value = doc.get("shuffle")
        if value is None:
            return Shuffle()  # the default: options shuffled, questions in order
        line = self.line_of(doc, "shuffle", 1)
        if isinstance(value, bool):
            return Shuffle(questions=value, options=value)
        if not isinstance(value, _Map):
            self.error(line, "shuffle must be true/false or {questions: bool, options: bool}")
            return Shuffle()
        self.unknown_keys(value, SHUFFLE_KEYS, "shuffle: ")
        defaults = Shuffle()
        flags: dict[str, bool] = {}
        for key in SHUFFLE_KEYS:
            flag = value.get(key, getattr(defaults, key))
            if not isinstance(flag, bool):
                self.error(self.line_of(value, key, line), f"shuffle.{key} must be true or false")
                flag = getattr(defaults, key)
            flags[key] = flag
        return Shuffle(**flags)

    def questions(self, doc: _Map) -> list[Question]:
        items = doc.get("questions")
        line = self.line_of(doc, "questions", 1)
        if not isinstance(items, list) or not items:
            self.error(line, "questions must be a non-empty list")
            return []
        if len(items) > MAX_QUESTIONS:
            self.error(line, f"{len(items)} questions; the limit is {MAX_QUESTIONS}")
            return []
        questions: list[Question] = []
        seen: dict[str, int] = {}
        for index, item in enumerate(items):
            item_line = self.line_of(items, index, line)
            if not isinstance(item, _Map):
                self.error(item_line, f"question {index + 1} must be a mapping")
                continue
            question_id = self.ident(item, "id", f"question {index + 1}: ", "the question")
            if question_id is not None and question_id in seen:
                self.error(
                    self.line_of(item, "id", item_line),
                    f"duplicate question id {quote(question_id)} (first used on line "
                    f"{seen[question_id]})",
                )
                question_id = None
            if question_id is not None:
                seen[question_id] = self.line_of(item, "id", item_line)
            question = self.question(item, question_id or str(index + 1), valid=bool(question_id))
            if question is not None:
                questions.append(question)
        return questions

    def question(self, item: _Map, question_id: str, *, valid: bool) -> Question | None:
        where = f"question {quote(question_id)}: "
        kind = item.get("kind", CHOICE)
        if kind not in QUESTION_KINDS:
            self.error(
                self.line_of(item, "kind", item.line),
                f"{where}kind {quote(kind)} is not one of {', '.join(QUESTION_KINDS)}",
            )
            return None
        if kind == TYPED:
            return self.typed_question(item, question_id, valid=valid)
        errors_before = len(self.errors)
        self.unknown_keys(item, QUESTION_KEYS - {"answers"}, where)
        text = self.text(item, "text", where)
        explanation = self.text(item, "explanation", where)
        options = self.options(item, where)
        correct = item.get("correct")
        correct_line = self.line_of(item, "correct", item.line)
        option_ids = [o.id for o in options]
        if correct is None:
            self.error(correct_line, f"{where}has no correct option (correct: <option id>)")
        elif str(correct) not in option_ids:
            self.error(
                correct_line,
                f"{where}correct option {quote(correct)} is not one of {', '.join(option_ids)}",
            )
        else:
            correct_option = options[option_ids.index(str(correct))]
            if correct_option.note is not None:
                self.error(
                    correct_line,
                    f"{where}the correct option {quote(correct)} has a note; "
                    "notes explain wrong options, put this in the explanation",
                )
        if len(self.errors) == errors_before:
            self.indistinguishable(options, str(correct), correct_line, where)
        tags = self.tags(item, where)
        image = self.image(item, where)
        explanation_image = self.image(item, where, "explanation_image")
        if len(self.errors) > errors_before or not valid:
            return None
        assert text is not None and explanation is not None
        return Question(
            question_id,
            text,
            tuple(options),
            str(correct),
            explanation,
            tags=tags,
            image=image,
            explanation_image=explanation_image,
        )

    def tags(self, item: _Map, where: str) -> tuple[str, ...]:
        """``tags``: a list of short lowercase names (one tag need not be a list)."""
        value = item.get("tags")
        if value is None:
            return ()
        line = self.line_of(item, "tags", item.line)
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list):
            self.error(line, f"{where}tags must be a list of names, e.g. [grammar, verbs]")
            return ()
        if len(value) > MAX_TAGS:
            self.error(line, f"{where}{len(value)} tags; the limit is {MAX_TAGS}")
            return ()
        tags: list[str] = []
        for index, tag in enumerate(value):
            tag_line = self.line_of(value, index, line)
            if not isinstance(tag, str) or not TAG_PATTERN.fullmatch(tag):
                self.error(
                    tag_line,
                    f"{where}tag {quote(tag)} must be lowercase letters, digits and _ "
                    '(at most 24, starting with a letter or digit), e.g. "grammar"',
                )
            elif tag in tags:
                self.error(tag_line, f"{where}tag {quote(tag)} is listed twice")
            else:
                tags.append(tag)
        return tuple(tags)

    def indistinguishable(self, options: list[Option], correct: str, line: int, where: str) -> None:
        """Refuse a correct option that reads like a wrong one (case and spacing aside) in
        some language: a player cannot tell which of the two to pick."""
        right = next(option for option in options if option.id == correct)
        for language in self.languages:
            shown = right.text.get(language)
            shown = shown if len(shown) <= 60 else shown[:59] + "…"
            mine = " ".join(right.text.get(language).casefold().split())
            for option in options:
                if (
                    option.id != correct
                    and " ".join(option.text.get(language).casefold().split()) == mine
                ):
                    self.error(
                        line,
                        f"{where}the correct option {quote(correct)} reads the same as option "
                        f"{quote(option.id)} ({language}: {quote(shown)}); "
                        "players cannot tell which is right",
                    )
                    return

    def typed_question(self, item: _Map, question_id: str, *, valid: bool) -> Question | None:
        """A ``kind: typed`` question: accepted spellings instead of options; the explanation
        is optional (imported trivia lists have none: the accepted answer is shown instead)."""
        where = f"question {quote(question_id)}: "
        errors_before = len(self.errors)
        self.unknown_keys(item, QUESTION_KEYS - {"options", "correct"}, where)
        text = self.text(item, "text", where)
        explanation = self.text(item, "explanation", where, required=False)
        answers = self.accepted_answers(item, where)
        tags = self.tags(item, where)
        image = self.image(item, where)
        explanation_image = self.image(item, where, "explanation_image")
        if len(self.errors) > errors_before or not valid:
            return None
        assert text is not None and answers is not None
        if explanation is None:
            explanation = LocalizedText({self.default_language: ""}, self.default_language)
        return Question(
            question_id,
            text,
            (),
            "",
            explanation,
            kind=TYPED,
            answers=answers,
            tags=tags,
            image=image,
            explanation_image=explanation_image,
        )

    def image(self, item: _Map, where: str, key: str = "image") -> QuizImage | None:
        """``image`` (or ``explanation_image``, the same way): a file beside the quiz
        (``image: diagram.png``), or ``{file: ..., alt: <text>}`` with what it shows in
        words, checked with Pillow."""
        value = item.get(key)
        if value is None:
            return None
        line = self.line_of(item, key, item.line)
        alt = None
        if isinstance(value, _Map):
            self.unknown_keys(value, IMAGE_KEYS, f"{where}{key}: ")
            alt = self.alt_text(value, where, key)
            line = self.line_of(value, "file", value.line)
            value = value.get("file")
            if value is None:
                self.error(line, f"{where}{key} has no file ({key}: {{file: picture.png}})")
                return None
        if not isinstance(value, str) or not value.strip():
            self.error(line, f"{where}{key} must name a file, e.g. {key}: diagram.png")
            return None
        path = self.image_path(value, line, f"{where}{key}")
        if path is None:
            return None
        facts = self.image_facts(path)
        if isinstance(facts, str):
            self.error(line, f"{where}{key} {quote(value)}: {facts}")
            return None
        return QuizImage(
            file=value,
            sha256=facts.sha256,
            media_type=facts.media_type,
            size=facts.size,
            width=facts.width,
            height=facts.height,
            path=str(path),
            alt=alt,
        )

    def alt_text(self, image: _Map, where: str, key: str) -> LocalizedText | None:
        alt = self.text(image, "alt", f"{where}{key} ", required=False)
        if alt is None:
            return None
        for language, text in alt.by_language.items():
            if len(text) > MAX_ALT_CHARS:
                self.error(
                    self.line_of(image, "alt", image.line),
                    f"{where}{key} alt ({language}) is {len(text)} characters; "
                    f"the limit is {MAX_ALT_CHARS}",
                )
        return alt

    def image_path(self, name: str, line: int, what: str) -> Path | None:
        """Where the image ``name`` is: in the quiz file's folder or below it, never
        outside (no absolute path, no "..", no link leading out). ``what`` names the entry
        in messages (``question "q1": image``)."""
        if self.folder is None:
            self.error(line, f"{what} {quote(name)}: images need a quiz file in a folder")
            return None
        relative = Path(name.replace("\0", ""))
        folder = self.folder.resolve()
        path = (folder / relative).resolve()
        outside = relative.is_absolute() or ".." in relative.parts
        if "\0" in name or outside or not path.is_relative_to(folder):
            self.error(
                line,
                f"{what} {quote(name)} must be a file in the quiz file's folder or "
                "below it (a relative path without ..)",
            )
            return None
        return path

    def image_facts(self, path: Path) -> image_files.ImageFacts | str:
        """What the image file at ``path`` is, or why it cannot be shown (each file once)."""
        known = self.images_read.get(path)
        if known is not None:
            return known
        facts: image_files.ImageFacts | str
        try:
            data = image_files.read_image_file(path)
        except image_files.ImageProblem as problem:
            facts = str(problem)
            self.image_files[str(path)] = image_files.unread_fingerprint(problem)
        else:
            try:
                facts = image_files.inspect_image(data)
                self.image_files[str(path)] = facts.sha256  # its bytes, hashed once
            except image_files.ImageProblem as problem:
                facts = str(problem)
                self.image_files[str(path)] = image_files.sha256_of(data)
        self.images_read[path] = facts
        return facts

    def accepted_answers(self, item: _Map, where: str) -> AcceptedAnswers | None:
        """``answers``: a mapping of language to a list of spellings (a plain list is the
        default language's). Whole numbers are taken as text (trivia lists have years)."""
        line = self.line_of(item, "answers", item.line)
        value = item.get("answers")
        if value is None:
            self.error(line, f"{where}a typed question needs answers: {{<language>: [...]}}")
            return None
        if isinstance(value, _List):
            value, lines = {self.default_language: value}, {self.default_language: line}
        elif isinstance(value, _Map):
            lines = value.key_lines
        else:
            self.error(line, f"{where}answers must be a list or a mapping of language to list")
            return None
        by_language: dict[str, tuple[str, ...]] = {}
        for language, spellings in value.items():
            list_line = lines.get(language, line)
            label = f"{where}answers ({printable(language)})"
            if language not in self.languages:
                listed = ", ".join(self.languages)
                self.error(
                    list_line,
                    f"{where}answers: language {quote(language)} is not in languages ({listed})",
                )
                continue
            if isinstance(spellings, str | int) and not isinstance(spellings, bool):
                spellings = [spellings]  # one spelling need not be a list
            if not isinstance(spellings, list) or not spellings:
                self.error(list_line, f"{label} must be a non-empty list of accepted spellings")
                continue
            if len(spellings) > MAX_SPELLINGS:
                self.error(
                    list_line, f"{label}: {len(spellings)} spellings; the limit is {MAX_SPELLINGS}"
                )
                continue
            kept = self._spellings(spellings, label, list_line)
            if kept:
                by_language[language] = tuple(kept)
        if self.default_language not in by_language:
            if self.default_language not in value:
                self.error(
                    line, f"{where}answers has no {self.default_language} spellings (the default)"
                )
            return None
        return AcceptedAnswers(by_language, self.default_language)

    def _spellings(self, spellings: list[Any], label: str, list_line: int) -> list[str]:
        """One language's accepted spellings, stripped and without repeats; a bad one is
        reported and left out."""
        kept: list[str] = []
        for index, spelling in enumerate(spellings):
            spelling_line = self.line_of(spellings, index, list_line)
            if isinstance(spelling, int) and not isinstance(spelling, bool):
                spelling = str(spelling)
            if not isinstance(spelling, str):
                self.error(
                    spelling_line,
                    f"{label} must be text, not {type(spelling).__name__} (put it in quotes)",
                )
            elif not normalize(spelling):
                self.error(
                    spelling_line,
                    f"{label}: {quote(spelling)} has no letters or digits to match",
                )
            elif len(spelling) > MAX_TYPED_CHARS:
                self.error(
                    spelling_line,
                    f"{label} is {len(spelling)} characters; the limit is {MAX_TYPED_CHARS}",
                )
            elif spelling.strip() not in kept:
                kept.append(spelling.strip())
        return kept

    def options(self, item: _Map, where: str) -> list[Option]:
        items = item.get("options")
        line = self.line_of(item, "options", item.line)
        if not isinstance(items, list):
            self.error(line, f"{where}options must be a list")
            return []
        if not MIN_OPTIONS <= len(items) <= MAX_OPTIONS:
            self.error(
                line,
                f"{where}has {len(items)} options; a question needs {MIN_OPTIONS} to {MAX_OPTIONS}",
            )
        options: list[Option] = []
        seen: set[str] = set()
        for index, entry in enumerate(items):
            entry_line = self.line_of(items, index, line)
            if not isinstance(entry, _Map):
                self.error(
                    entry_line, f"{where}option {index + 1} must be a mapping with id and text"
                )
                continue
            self.unknown_keys(entry, OPTION_KEYS, where)
            option_id = self.ident(entry, "id", where, f"option {index + 1}")
            if option_id is not None and option_id in seen:
                self.error(
                    self.line_of(entry, "id", entry_line),
                    f"{where}duplicate option id {quote(option_id)}",
                )
                continue
            label = f"{where}option {quote(option_id)} " if option_id else where
            text = self.text(entry, "text", label)
            note = self.text(entry, "note", label, required=False)
            if option_id is not None and text is not None:
                seen.add(option_id)
                options.append(Option(option_id, text, note))
        return options


def load_quiz_text(
    text: str, path: str, default_id: str, *, folder: Path | None = None
) -> LoadReport:
    """Validate the YAML text of one quiz file (``path`` is only used in messages); the
    images it names are files in ``folder`` (None: it may name none)."""
    report = LoadReport()
    try:
        doc = parse_yaml(text)
    except _YamlProblem as problem:
        report.errors.append(QuizProblem(path, problem.line, problem.message))
        return report
    validator = _Validator(path, default_id, folder)
    quiz = validator.quiz(doc)
    report.errors.extend(validator.errors)
    report.warnings.extend(validator.warnings)
    report.image_files.update(validator.image_files)
    if quiz is not None:
        report.quizzes.append(quiz)
    return report


def load_quiz_file(path: Path, display_path: str | None = None) -> LoadReport:
    """Read and validate one quiz file, refusing files over :data:`MAX_FILE_BYTES`."""
    shown = display_path or str(path)
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            return _too_big(shown, size)
        content = path.read_bytes()
    except OSError as exc:
        return LoadReport(errors=[QuizProblem(shown, 1, f"cannot read the file: {exc.strerror}")])
    return load_quiz_bytes(content, shown, path.stem, folder=path.parent)


def _too_big(shown: str, size: int) -> LoadReport:
    problem = f"the file is {size} bytes; the limit is {MAX_FILE_BYTES}"
    return LoadReport(errors=[QuizProblem(shown, 1, problem)])


def load_quiz_bytes(
    content: bytes, path: str, default_id: str, *, folder: Path | None = None
) -> LoadReport:
    """Validate the bytes of one quiz file (``path`` is only used in messages; images are
    looked for in ``folder``)."""
    if len(content) > MAX_FILE_BYTES:
        return _too_big(path, len(content))
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError as exc:
        return LoadReport(errors=[QuizProblem(path, 1, f"not UTF-8 text ({exc.reason})")])
    return load_quiz_text(text, path, default_id, folder=folder)


def quiz_files(paths: Iterable[Path]) -> list[Path]:
    """The quiz files named by ``paths``: files as given, directories' ``*.yaml``/``*.yml``
    (in any case: ``QUIZ.YAML`` from a zip made on Windows too)."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(sorted(p for p in path.iterdir() if p.suffix.lower() in QUIZ_SUFFIXES))
        else:
            found.append(path)
    return found


def load_quizzes(
    paths: Iterable[Path], *, base: Path | None = None, cache: ValidatedFiles | None = None
) -> LoadReport:
    """Load every quiz file under ``paths``; quiz ids must be unique across files.

    With ``cache``, files unchanged since they were last validated are not parsed again.
    """
    report = LoadReport()
    owners: dict[str, str] = {}
    # Loading builds many small objects and no reference cycles: without pausing the cyclic
    # collector it rescans the growing heap again and again, and start-up grows superlinearly.
    collecting = gc.isenabled()
    gc.disable()
    try:
        for path in quiz_files(paths):
            shown = str(path)
            if base is not None:
                with contextlib.suppress(ValueError):
                    shown = str(path.resolve().relative_to(base.resolve()))
            single = None
            if cache is not None and _small_enough(path):
                validate = functools.partial(
                    _validate_as, shown=shown, stem=path.stem, folder=path.parent
                )
                single = cache.load(path, shown, validate)
            if single is None:
                single = load_quiz_file(path, shown)
            report.errors.extend(single.errors)
            report.warnings.extend(single.warnings)
            report.image_files.update(single.image_files)
            for quiz in single.quizzes:
                if quiz.id in owners:
                    report.errors.append(
                        QuizProblem(
                            shown,
                            1,
                            f"quiz id {quote(quiz.id)} is already used by "
                            f"{printable(owners[quiz.id])}",
                        )
                    )
                    continue
                owners[quiz.id] = shown
                report.quizzes.append(quiz)
    finally:
        if collecting:
            # The quizzes live as long as the process and hold no cycles: move everything
            # alive now out of the collector's sight, or its first full pass after loading
            # rescans millions of objects (seconds at a thousand quizzes), and again later.
            gc.freeze()
            gc.enable()
    return report


def _validate_as(content: bytes, *, shown: str, stem: str, folder: Path) -> LoadReport:
    return load_quiz_bytes(content, shown, stem, folder=folder)


def _small_enough(path: Path) -> bool:
    try:
        return path.stat().st_size <= MAX_FILE_BYTES
    except OSError:
        return False
