"""A cache of validated quiz files, so that a restart does not parse and validate again.

One entry per quiz file, holding the :class:`~bot.quiz_loader.LoadReport` that validating it
produced. An entry is used only when the file's size, modification time and content hash
(BLAKE2b of its bytes) all match, and when it was written by the same loader code (a digest
of the modules that validate); anything else -- a missing, mismatched, truncated or corrupt
entry -- is ignored and the file is validated again, so the cache is never served stale.

Entries are pickles, so the directory is created private to its owner (0700): whoever can
write it can run code as the bot. A cache that cannot be written is silently skipped.
"""

from __future__ import annotations

import contextlib
import copyreg
import hashlib
import io
import logging
import os
import pickle
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.quiz_loader import LoadReport

log = logging.getLogger(__name__)

FORMAT = b"quizbot-quiz-cache-1"
ENV_VAR = "QUIZ_CACHE_DIR"


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
    import bot.quiz
    import bot.quiz_loader

    digest = hashlib.blake2b(FORMAT, digest_size=16)
    for module in (bot.quiz, bot.quiz_loader, bot.answer_matching):
        source = module.__file__
        digest.update(Path(source).read_bytes() if source else module.__name__.encode())
    return digest.digest()


def _mappingproxy(items: dict[Any, Any]) -> MappingProxyType[Any, Any]:
    return MappingProxyType(items)


def _reduce_mappingproxy(
    proxy: MappingProxyType[Any, Any],
) -> tuple[Callable[[dict[Any, Any]], MappingProxyType[Any, Any]], tuple[dict[Any, Any]]]:
    return _mappingproxy, (dict(proxy),)


class _Pickler(pickle.Pickler):
    def __init__(self, file: io.BytesIO) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        # The quiz model's read-only mappings; registered for this pickler, not process-wide.
        self.dispatch_table = {**copyreg.dispatch_table, MappingProxyType: _reduce_mappingproxy}


class QuizCache:
    """Validated quiz files in ``directory``, one entry per file."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._code = _code_digest()
        self.hits = 0
        self.misses = 0

    def _entry(self, shown: str, path: Path) -> Path:
        key = hashlib.blake2b(f"{path.resolve()}\0{shown}".encode(), digest_size=16)
        return self.directory / f"{key.hexdigest()}.pickle"

    def load(
        self, path: Path, shown: str, validate: Callable[[bytes], LoadReport]
    ) -> LoadReport | None:
        """The file's report: from the cache when valid, else ``validate(content)`` (stored).

        Returns None when the file cannot be read (the caller reports that itself).
        """
        try:
            stat = path.stat()
            content = path.read_bytes()
        except OSError:
            return None
        content_hash = hashlib.blake2b(content, digest_size=32).digest()
        key = (self._code, shown, stat.st_size, stat.st_mtime_ns, content_hash)
        entry = self._entry(shown, path)
        cached = self._read(entry, key)
        if cached is not None:
            self.hits += 1
            return cached
        self.misses += 1
        report = validate(content)
        self._write(entry, key, report)
        return report

    def _read(self, entry: Path, key: tuple[Any, ...]) -> LoadReport | None:
        from bot.quiz_loader import LoadReport

        try:
            data = entry.read_bytes()
        except OSError:
            return None
        try:
            stored_key, report = pickle.loads(data)
        except Exception:  # truncated, corrupt or from another version: validate again
            log.debug("ignoring unreadable quiz cache entry %s", entry)
            return None
        if stored_key != key or not isinstance(report, LoadReport):
            return None
        return report

    def _write(self, entry: Path, key: tuple[Any, ...], report: LoadReport) -> None:
        buffer = io.BytesIO()
        try:
            _Pickler(buffer).dump((key, report))
            self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            # Written aside and renamed: a reader never sees half an entry.
            fd, tmp = tempfile.mkstemp(dir=self.directory, suffix=".tmp")
            try:
                with os.fdopen(fd, "wb") as out:
                    out.write(buffer.getvalue())
                os.replace(tmp, entry)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
        except (OSError, pickle.PicklingError, TypeError, AttributeError) as exc:
            log.debug("quiz cache not written (%s): %s", entry, exc)
