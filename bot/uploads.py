"""Quizzes that admins upload in chat (or name to ``quizbot publish``), checked and published.

An upload is a quiz file (``.yaml``), a file of another quiz tool (GIFT, Aiken, Open Trivia
DB, Red trivia: converted by :mod:`bot.importers` exactly as ``quizbot import`` converts it),
or a ``.zip`` of a quiz with its images. It is unpacked into a temporary folder and checked
there exactly as ``quizbot validate`` checks files (:func:`bot.quiz_check.check_quiz_files`),
so a quiz's image paths resolve as they do beside a quiz in QUIZ_DIR. Any problem publishes
nothing: the live version stays.

Sizes are bounded before anything is downloaded (:func:`size_problem`, from the size the
platform states) and again on the bytes; a zip's entries are checked before one is unpacked
(no absolute paths, no ``..``, no links, only quiz files and images, a bounded count and
declared size) and unpacking stops at the bound whatever the entries declared.
"""

from __future__ import annotations

import asyncio
import io
import re
import stat
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from bot.importers import FORMATS, MAX_INPUT_BYTES, QuizImportError, import_quiz, quiz_parts
from bot.library import Publication, QuizLibrary
from bot.library_texts import library_t
from bot.quiz_check import check_quiz_files
from bot.quiz_loader import (
    LANGUAGE_PATTERN,
    MAX_FILE_BYTES,
    QUIZ_SUFFIXES,
    LoadReport,
    QuizProblem,
)
from bot.quoting import quote
from bot.storage import VersionSource

KB = 1024
MAX_ZIP_BYTES = 20 * 1024 * KB  # what Telegram lets a bot download; Discord allows more
MAX_IMPORT_BYTES = MAX_INPUT_BYTES  # what bot.importers converts at most
MAX_ZIP_ENTRIES = 200
MAX_UNPACKED_BYTES = 50 * 1024 * KB
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp")
ZIP, YAML = "zip", "yaml"  # besides bot.importers.FORMATS
UPLOAD_FORMATS = (YAML, ZIP, *FORMATS)
CHUNK = 64 * KB
SHOWN_NAME_CHARS = 60
SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


class UploadRefused(Exception):
    """An upload refused before it was checked as a quiz: a library string and its values."""

    def __init__(self, key: str, **values: object) -> None:
        super().__init__(key)
        self.key = key
        self.values = values

    def text(self, language: str) -> str:
        return library_t(self.key, language, **self.values)


@dataclass
class UploadOutcome:
    """What an upload did, for the reply: ``lines`` to show, the problems (``file:line:
    problem``) when nothing was published, and the publications when it was."""

    language: str
    lines: list[str]
    problems: list[str] = field(default_factory=list)
    publications: list[Publication] = field(default_factory=list)

    @property
    def published(self) -> bool:
        return bool(self.publications)


def shown_name(filename: str) -> str:
    """The uploaded file's name as replies quote it: its last part, shortened."""
    name = PurePosixPath(filename.replace("\\", "/")).name or "upload"
    return quote(name[:SHOWN_NAME_CHARS])


def _limit(fmt: str) -> tuple[int, str]:
    """The size limit of an upload of format ``fmt``, and the kind named in the refusal."""
    if fmt == ZIP:
        return MAX_ZIP_BYTES, ".zip"
    if fmt == YAML:
        return MAX_FILE_BYTES, "quiz (.yaml)"
    return MAX_IMPORT_BYTES, fmt


def size_problem(filename: str, size: int, hint: str | None = None) -> UploadRefused | None:
    """Why a file of ``size`` bytes cannot be taken (None: it can be downloaded): checked
    against the size the platform states, before downloading anything."""
    try:
        fmt = upload_format(filename, b"", hint)
    except UploadRefused as refused:
        return refused
    limit, kind = _limit(fmt)
    if size > limit:
        return UploadRefused(
            "too_big",
            name=shown_name(filename),
            size=-(-size // KB),
            kind=kind,
            limit=limit // KB,
        )
    return None


def parse_hint(text: str | None) -> tuple[str | None, str]:
    """The format and language a caption (or command option) names: ``gift``, ``red ru``,
    ``aiken lang:bn``...; (None, "en") when it names neither."""
    fmt, language = None, "en"
    for word in (text or "").lower().replace("lang:", " ").split():
        word = word.strip("#,.;")
        if word in UPLOAD_FORMATS:
            fmt = word
        elif LANGUAGE_PATTERN.fullmatch(word) and word not in ("the", "and"):
            language = word
    return fmt, language


def upload_format(filename: str, data: bytes, hint: str | None = None) -> str:
    """The upload's format: ``hint`` when given, else from its extension (and, for a YAML or
    text file whose bytes are at hand, its content)."""
    if hint is not None:
        if hint not in UPLOAD_FORMATS:
            raise UploadRefused("wrong_type", name=shown_name(filename))
        return hint
    suffix = PurePosixPath(filename.lower()).suffix
    if suffix == ".zip":
        return ZIP
    if suffix == ".gift":
        return "gift"
    if suffix == ".json":
        return "opentdb"
    if suffix == ".txt":  # Aiken, unless GIFT's braces say otherwise
        return "gift" if re.search(rb"\{[^}]*[=~]", data) else "aiken"
    if suffix in QUIZ_SUFFIXES:  # ours has questions:, a Red list maps questions to answers
        return YAML if not data or re.search(rb"(?m)^questions\s*:", data) else "red"
    raise UploadRefused("wrong_type", name=shown_name(filename))


async def publish_upload(
    library: QuizLibrary,
    filename: str,
    data: bytes,
    *,
    by: str,
    language: str,
    caption: str | None = None,
    source: VersionSource = VersionSource.UPLOAD,
) -> UploadOutcome:
    """Check the uploaded file and publish its quizzes (all of them, or none when anything is
    wrong); the outcome's lines say what happened in ``language``.

    May raise :class:`~bot.storage.StorageError` when the database fails (nothing, or only
    some of the file's quizzes, were published: publishing again completes it)."""
    hint, import_language = parse_hint(caption)
    try:
        fmt = upload_format(filename, data, hint)
        refused = size_problem(filename, len(data), fmt)
        if refused is not None:
            raise refused
        with tempfile.TemporaryDirectory(prefix="quizbot-upload-") as tmp:
            report = await asyncio.to_thread(
                _unpack_and_check, library, Path(tmp), filename, data, fmt, import_language
            )
            if report.errors:
                return _problems(report, language)
            publications = (await library.publish(report, source, by)).publications
    except UploadRefused as refused:
        return UploadOutcome(
            language, [library_t("upload_refused", language, reason=refused.text(language))]
        )
    lines = [_publication_line(p, language) for p in publications]
    if report.warnings:
        lines += ["", library_t("upload_notes", language), *(str(w) for w in report.warnings)]
    return UploadOutcome(language, lines, publications=publications)


def _publication_line(publication: Publication, language: str) -> str:
    version = publication.version
    return library_t(
        "published" if publication.new else "unchanged",
        language,
        quiz=version.quiz_id,
        version=version.version,
        count=version.question_count,
    )


def _problems(report: LoadReport, language: str) -> UploadOutcome:
    problems = [str(p) for p in sorted(report.errors)]
    header = library_t("upload_problems", language, count=len(problems))
    return UploadOutcome(language, [header], problems=problems)


def _unpack_and_check(
    library: QuizLibrary, folder: Path, filename: str, data: bytes, fmt: str, language: str
) -> LoadReport:
    """Lay the upload out in ``folder`` as quiz files (blocking work: run in a thread) and
    check them as ``quizbot validate`` does; returns the report (import notes come back as
    its warnings)."""
    name = _safe_name(filename)
    notes: list[QuizProblem] = []
    if fmt == ZIP:
        folder = unpack_zip(data, folder, name)
    elif fmt == YAML:
        if PurePosixPath(name).suffix.lower() not in QUIZ_SUFFIXES:
            name += ".yaml"  # named by a caption: the loader reads .yaml files
        (folder / name).write_bytes(data)
    else:
        try:
            notes = _import(folder, name, data, fmt, language)
        except QuizImportError as exc:  # nothing could be converted: its problems say why
            errors = [QuizProblem(name, p.line, p.message) for p in exc.problems]
            errors.append(QuizProblem(name, exc.line, exc.message))
            return LoadReport(errors=errors)
        except ValueError as exc:  # a language the importers refuse
            return LoadReport(errors=[QuizProblem(name, 1, str(exc))])
    report = check_quiz_files([folder], extra=library.file_check, base=folder)
    report.warnings = notes  # missing translations are the author's business, not an upload's
    return report


def _import(folder: Path, name: str, data: bytes, fmt: str, language: str) -> list[QuizProblem]:
    """Convert the file as ``quizbot import`` does, writing its quiz files into ``folder``;
    returns its notes (what was skipped or needs the author). Raises QuizImportError when
    nothing could be converted."""
    source = folder / "source" / name
    source.parent.mkdir()
    source.write_bytes(data)
    result = import_quiz(source, fmt, language=language)
    for part, text in quiz_parts(result.quiz):
        (folder / f"{part['id']}.yaml").write_text(text, encoding="utf-8")
    return [QuizProblem(name, p.line, p.message) for p in result.problems]


def _safe_name(filename: str) -> str:
    """A file name for the upload in its temporary folder: its last part, plain characters."""
    name = SAFE_NAME.sub("-", PurePosixPath(filename.replace("\\", "/")).name).strip(".-")
    return name[:100] or "upload"


# -- zips -------------------------------------------------------------------------------------


def unpack_zip(data: bytes, folder: Path, name: str = "upload.zip") -> Path:
    """Unpack a quiz's zip into ``folder`` after checking every entry; returns the folder
    that holds its quiz files (the zip's top, or its one top folder). Raises
    :class:`UploadRefused` with the reason."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        entries = archive.infolist()
    except (zipfile.BadZipFile, ValueError, OSError):
        raise UploadRefused("zip_unreadable", name=quote(name)) from None
    with archive:
        _check_entries(entries, name)
        budget = MAX_UNPACKED_BYTES
        for entry in entries:
            if not entry.is_dir():
                budget = _extract(archive, entry, folder, budget, name)
    return _quiz_folder(folder)


def _check_entries(entries: list[zipfile.ZipInfo], name: str) -> None:
    if len(entries) > MAX_ZIP_ENTRIES:
        raise UploadRefused("zip_too_many", limit=MAX_ZIP_ENTRIES)
    if sum(e.file_size for e in entries) > MAX_UNPACKED_BYTES:
        raise UploadRefused("zip_too_big", limit=MAX_UNPACKED_BYTES // KB)
    for entry in entries:
        shown = quote(entry.filename[:SHOWN_NAME_CHARS])
        path = PurePosixPath(entry.filename)
        if (
            entry.filename.startswith(("/", "\\"))
            or "\\" in entry.filename
            or re.match(r"^[A-Za-z]:", entry.filename)
            or ".." in path.parts
            or "\x00" in entry.filename
        ):
            raise UploadRefused("zip_unsafe_path", entry=shown)
        if stat.S_ISLNK(entry.external_attr >> 16):
            raise UploadRefused("zip_symlink", entry=shown)
        if entry.flag_bits & 0x1:  # encrypted: nothing here can read it
            raise UploadRefused("zip_unreadable", name=quote(name))
        if not entry.is_dir() and path.suffix.lower() not in (*QUIZ_SUFFIXES, *IMAGE_SUFFIXES):
            raise UploadRefused("zip_wrong_type", entry=shown)


def _extract(
    archive: zipfile.ZipFile, entry: zipfile.ZipInfo, folder: Path, budget: int, name: str
) -> int:
    """Write one checked entry under ``folder``, reading no more than it declared nor than
    ``budget`` (a bomb's entries lie about their size); returns the budget left."""
    target = folder.joinpath(*PurePosixPath(entry.filename).parts)
    if not target.resolve().is_relative_to(folder.resolve()):
        raise UploadRefused("zip_unsafe_path", entry=quote(entry.filename[:SHOWN_NAME_CHARS]))
    target.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    try:
        with archive.open(entry) as source, target.open("xb") as out:
            while chunk := source.read(CHUNK):
                written += len(chunk)
                if written > entry.file_size or written > budget:
                    raise UploadRefused("zip_too_big", limit=MAX_UNPACKED_BYTES // KB)
                out.write(chunk)
    except (zipfile.BadZipFile, OSError, EOFError, ValueError, RuntimeError):
        raise UploadRefused("zip_unreadable", name=quote(name)) from None
    return budget - written


def _quiz_folder(folder: Path) -> Path:
    """Where the unpacked quiz files lie: ``folder`` itself, or its only subfolder (a zip
    made of a folder)."""
    if any(p.suffix.lower() in QUIZ_SUFFIXES for p in folder.iterdir() if p.is_file()):
        return folder
    children = [p for p in folder.iterdir()]
    if len(children) == 1 and children[0].is_dir():
        inner = children[0]
        if any(p.suffix.lower() in QUIZ_SUFFIXES for p in inner.iterdir() if p.is_file()):
            return inner
    raise UploadRefused("zip_no_quiz")
