"""A cache of validated quiz files, so that a restart does not parse and validate again.

One entry per quiz file, holding the :class:`~bot.quiz_loader.LoadReport` that validating it
produced, as JSON. An entry is used only when the file's size, modification time and content
hash (BLAKE2b of its bytes) all match, and when it was written by the same loader code (a
digest of the modules that validate); anything else -- a missing, mismatched, truncated or
corrupt entry -- is ignored and the file is validated again, so the cache is never served
stale.

Entries are plain data, rebuilt through the quiz model's constructors with every field's type
checked, so an entry someone else wrote can at worst be refused: it never runs code. A cache
directory or entry not owned by this process's user, or writable by group or others, is not
used, with a warning naming it. A cache that cannot be written is silently skipped.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import stat
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot import image_files
from bot.quiz import AcceptedAnswers, LocalizedText, Option, Question, Quiz, QuizImage, Shuffle

if TYPE_CHECKING:
    from bot.quiz_loader import LoadReport, QuizProblem

log = logging.getLogger(__name__)

FORMAT = b"quizbot-quiz-cache-5"  # 3: tags and pick; 4: images; 5: explanation images
ENV_VAR = "QUIZ_CACHE_DIR"
# Where the images are in a question's fields (the question's, then its explanation's, when it
# has one), and where the file it was read from is in an image's.
_IMAGE, _EXPLANATION_IMAGE = 8, 9
_IMAGE_PATH = 6
SUFFIX = ".json"


def default_cache_dir(env: Mapping[str, str]) -> Path | None:
    """The cache directory an environment asks for: ``$QUIZ_CACHE_DIR`` (empty: no cache),
    else ``$XDG_CACHE_HOME/quizbot/quizzes``, else ``~/.cache/quizbot/quizzes``."""
    configured = env.get(ENV_VAR)
    if configured is not None:
        return Path(configured) if configured.strip() else None
    base = env.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "quizbot" / "quizzes"


def _code_digest() -> bytes:
    """A digest of the code that validates quizzes: changing it invalidates every entry."""
    import bot.answer_matching
    import bot.image_files
    import bot.quiz
    import bot.quiz_cache
    import bot.quiz_loader

    digest = hashlib.blake2b(FORMAT, digest_size=16)
    modules = (bot.quiz, bot.quiz_loader, bot.answer_matching, bot.quiz_cache, bot.image_files)
    for module in modules:
        source = module.__file__
        digest.update(Path(source).read_bytes() if source else module.__name__.encode())
    return digest.digest()


def _unsafe(info: os.stat_result) -> str | None:
    """Why a file or directory with this status must not be trusted (None: it may)."""
    if info.st_uid != os.geteuid():
        return f"it is owned by uid {info.st_uid}, not by this process's user ({os.geteuid()})"
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"it is writable by group or others (mode {stat.S_IMODE(info.st_mode):o})"
    return None


class BadEntry(ValueError):
    """A cache entry that is not what this code writes."""


def _need(value: Any, kind: type | tuple[type, ...]) -> Any:
    # bool is an int in Python: an int field must not accept it, nor a bool field an int.
    if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _kinds(kind)):
        raise BadEntry(f"expected {kind}, got {type(value).__name__}")
    return value


def _kinds(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def _text(value: Any) -> LocalizedText:
    by_language, default = _need(value, list)
    texts = {_need(k, str): _need(v, str) for k, v in _need(by_language, dict).items()}
    if _need(default, str) not in texts:
        raise BadEntry("a text lacks its default language")
    return LocalizedText(texts, default)


def _optional_text(value: Any) -> LocalizedText | None:
    return None if value is None else _text(value)


def _answers(value: Any) -> AcceptedAnswers | None:
    if value is None:
        return None
    by_language, default = _need(value, list)
    spellings = {
        _need(k, str): tuple(_need(s, str) for s in _need(v, list))
        for k, v in _need(by_language, dict).items()
    }
    if not spellings.get(_need(default, str)):
        raise BadEntry("accepted answers lack their default language")
    return AcceptedAnswers(spellings, default)


def _option(value: Any) -> Option:
    option_id, text, note = _need(value, list)
    return Option(_need(option_id, str), _text(text), _optional_text(note))


def _image(value: Any) -> QuizImage | None:
    if value is None:
        return None
    file, sha256, media_type, size, width, height, path, alt = _need(value, list)
    return QuizImage(
        file=_need(file, str),
        sha256=_need(sha256, str),
        media_type=_need(media_type, str),
        size=_need(size, int),
        width=_need(width, int),
        height=_need(height, int),
        path=_need(path, str),
        alt=_optional_text(alt),
    )


def _question(value: Any) -> Question:
    fields = _need(value, list)
    # A question without an explanation image has nine fields, as before there were any.
    if len(fields) not in (_EXPLANATION_IMAGE, _EXPLANATION_IMAGE + 1):
        raise BadEntry(f"a question of {len(fields)} fields")
    q_id, text, options, correct, explanation, kind, answers, tags, image = fields[:9]
    explanation_image = fields[_EXPLANATION_IMAGE] if len(fields) > _EXPLANATION_IMAGE else None
    return Question(
        _need(q_id, str),
        _text(text),
        tuple(_option(o) for o in _need(options, list)),
        _need(correct, str),
        _text(explanation),
        kind=_need(kind, str),
        answers=_answers(answers),
        tags=tuple(_need(tag, str) for tag in _need(tags, list)),
        image=_image(image),
        explanation_image=_image(explanation_image),
    )


def _quiz(value: Any) -> Quiz:
    fields = _need(value, dict)
    shuffle = _need(fields["shuffle"], list)
    return Quiz(
        id=_need(fields["id"], str),
        title=_text(fields["title"]),
        description=_optional_text(fields["description"]),
        level=_need(fields["level"], (str, type(None))),
        guide_url=_need(fields["guide_url"], (str, type(None))),
        default_language=_need(fields["default_language"], str),
        languages=tuple(_need(lang, str) for lang in _need(fields["languages"], list)),
        questions=tuple(_question(q) for q in _need(fields["questions"], list)),
        shuffle=Shuffle(questions=_need(shuffle[0], bool), options=_need(shuffle[1], bool)),
        native_polls=_need(fields["native_polls"], bool),
        source=_need(fields["source"], str),
        pick=_need(fields["pick"], (int, type(None))),
    )


def _problem(value: Any) -> QuizProblem:
    from bot.quiz_loader import QuizProblem

    path, line, message = _need(value, list)
    return QuizProblem(_need(path, str), _need(line, int), _need(message, str))


def _text_data(text: LocalizedText | None) -> list[Any] | None:
    return None if text is None else [dict(text.by_language), text.default_language]


def _image_data(image: QuizImage | None) -> list[Any] | None:
    if image is None:
        return None
    return [
        image.file,
        image.sha256,
        image.media_type,
        image.size,
        image.width,
        image.height,
        image.path,
        _text_data(image.alt),
    ]


def _question_data(q: Question) -> list[Any]:
    data = [
        q.id,
        _text_data(q.text),
        [[o.id, _text_data(o.text), _text_data(o.note)] for o in q.options],
        q.correct_option_id,
        _text_data(q.explanation),
        q.kind,
        None
        if q.answers is None
        else [{k: list(v) for k, v in q.answers.by_language.items()}, q.answers.default_language],
        list(q.tags),
        _image_data(q.image),
    ]
    # Only when there is one: content stored without it stays what it was (the same hash, so
    # an upgrade publishes no new versions) and readable by a replica not yet upgraded.
    if q.explanation_image is not None:
        data.append(_image_data(q.explanation_image))
    return data


def _quiz_data(quiz: Quiz) -> dict[str, Any]:
    return {
        "id": quiz.id,
        "title": _text_data(quiz.title),
        "description": _text_data(quiz.description),
        "level": quiz.level,
        "guide_url": quiz.guide_url,
        "default_language": quiz.default_language,
        "languages": list(quiz.languages),
        "questions": [_question_data(q) for q in quiz.questions],
        "shuffle": [quiz.shuffle.questions, quiz.shuffle.options],
        "native_polls": quiz.native_polls,
        "source": quiz.source,
        "pick": quiz.pick,
    }


def encode_quiz(quiz: Quiz) -> str:
    """A validated quiz as the JSON this module caches and the quiz library stores (its
    library version is not part of it)."""
    return json.dumps(_quiz_data(quiz), ensure_ascii=False, separators=(",", ":"))


def quiz_content_hash(quiz: Quiz) -> str:
    """A hash of what the quiz says (not of the file it came from): equal for equal content."""
    data = _quiz_data(quiz)
    del data["source"]
    for question in data["questions"]:  # an image is its bytes (sha256), not where it was read
        for image in question[_IMAGE:]:
            if image is not None:
                image[_IMAGE_PATH] = None
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return hashlib.blake2b(text.encode(), digest_size=32).hexdigest()


def decode_quiz(text: str) -> Quiz:
    """The quiz :func:`encode_quiz` wrote. Raises :class:`BadEntry` (or ValueError) for
    anything else."""
    try:
        return _quiz(json.loads(text))
    except (KeyError, TypeError, IndexError) as exc:
        raise BadEntry(str(exc)) from exc


def encode_report(key: list[Any], report: LoadReport) -> bytes:
    """An entry: the key it is valid for and the report, as JSON."""
    return json.dumps(
        {
            "key": key,
            "quizzes": [_quiz_data(q) for q in report.quizzes],
            "errors": [[p.path, p.line, p.message] for p in report.errors],
            "warnings": [[p.path, p.line, p.message] for p in report.warnings],
            "image_files": report.image_files,
        },
        ensure_ascii=False,
        separators=(",", ":"),
    ).encode()


def decode_report(data: bytes, key: list[Any]) -> LoadReport | None:
    """The report in an entry written for ``key`` (None: written for another key, or an
    image file the quiz names is not what it was).

    Raises :class:`BadEntry` (or ValueError) for anything this code does not write."""
    from bot.quiz_loader import LoadReport

    entry = _need(json.loads(data), dict)
    if entry.get("key") != key:
        return None
    try:
        images = {
            _need(path, str): _need(fingerprint, str)
            for path, fingerprint in _need(entry["image_files"], dict).items()
        }
        if any(image_files.fingerprint(Path(path)) != fp for path, fp in images.items()):
            return None  # an image it names was changed, added or removed since
        return LoadReport(
            quizzes=[_quiz(q) for q in _need(entry["quizzes"], list)],
            errors=[_problem(p) for p in _need(entry["errors"], list)],
            warnings=[_problem(p) for p in _need(entry["warnings"], list)],
            image_files=images,
        )
    except (KeyError, TypeError, IndexError) as exc:  # a field missing or of the wrong shape
        raise BadEntry(str(exc)) from exc


class QuizCache:
    """Validated quiz files in ``directory``, one entry per file."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._code = _code_digest().hex()
        self._usable: bool | None = None  # decided at the first load
        self.hits = 0
        self.misses = 0

    def _entry(self, shown: str, path: Path) -> Path:
        key = hashlib.blake2b(f"{path.resolve()}\0{shown}".encode(), digest_size=16)
        return self.directory / f"{key.hexdigest()}{SUFFIX}"

    def usable(self) -> bool:
        """Whether the directory is this user's alone (created so when missing); a directory
        others could write is refused once, with a warning, and the cache goes unused."""
        if self._usable is None:
            with contextlib.suppress(OSError):
                self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            try:
                info = os.lstat(self.directory)
            except OSError:
                self._usable = False  # cannot be created: no cache, as before
                return False
            problem = _unsafe(info)
            if problem is None and not stat.S_ISDIR(info.st_mode):
                problem = "it is not a directory"
            if problem is not None:
                log.warning(
                    "quiz cache directory %s is not used: %s (set %s to a directory only "
                    "this user can write, or to empty for no cache)",
                    self.directory,
                    problem,
                    ENV_VAR,
                )
            self._usable = problem is None
        return self._usable

    def load(
        self, path: Path, shown: str, validate: Callable[[bytes], LoadReport]
    ) -> LoadReport | None:
        """The file's report: from the cache when valid, else ``validate(content)`` (stored).

        Returns None when the file cannot be read (the caller reports that itself).
        """
        try:
            info = path.stat()
            content = path.read_bytes()
        except OSError:
            return None
        if not self.usable():
            return validate(content)
        content_hash = hashlib.blake2b(content, digest_size=32).hexdigest()
        key = [self._code, shown, info.st_size, info.st_mtime_ns, content_hash]
        entry = self._entry(shown, path)
        cached = self._read(entry, key)
        if cached is not None:
            self.hits += 1
            return cached
        self.misses += 1
        report = validate(content)
        self._write(entry, key, report)
        return report

    def _read(self, entry: Path, key: list[Any]) -> LoadReport | None:
        try:
            fd = os.open(entry, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            return None
        with os.fdopen(fd, "rb") as file:
            try:
                info = os.fstat(fd)
                problem = _unsafe(info) or (None if stat.S_ISREG(info.st_mode) else "not a file")
                if problem is not None:
                    log.warning("quiz cache entry %s is not used: %s", entry, problem)
                    return None
                data = file.read()
            except OSError:
                return None
        try:
            return decode_report(data, key)
        except ValueError:  # truncated, corrupt or not ours: validate again
            log.debug("ignoring unreadable quiz cache entry %s", entry)
            return None

    def _write(self, entry: Path, key: list[Any], report: LoadReport) -> None:
        try:
            data = encode_report(key, report)
            # Written aside and renamed: a reader never sees half an entry.
            fd, tmp = tempfile.mkstemp(dir=self.directory, suffix=".tmp")
            try:
                with os.fdopen(fd, "wb") as out:
                    out.write(data)
                os.replace(tmp, entry)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
        except (OSError, TypeError, ValueError) as exc:
            log.debug("quiz cache not written (%s): %s", entry, exc)
