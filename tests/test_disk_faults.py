"""A database the disk will not let us write: a read-only file or directory and a full disk.

At start each is one line naming DATABASE_URL and the path, exit code 2, never a traceback;
at run time a commit the disk refuses is never acknowledged, and reads keep working.

Root ignores permission bits, so as root (CI) read-only means a read-only bind mount and a
full disk a small tmpfs; as another user, permission bits do the former and the tmpfs tests
skip (mounting needs root).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.engine import QuizEngine
from bot.storage import SQLiteStorage
from bot.views import AnswerOutcome, Participant
from tests.conftest import QUIZ_DIR, SEED_QUIZ, FakeClock

ROOT = os.geteuid() == 0
ZOE = Participant("terminal", "zoe", "Zoe", "en")


def _mount(*args: str) -> None:
    done = subprocess.run(["mount", *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"mount {' '.join(args)} is not permitted here: {done.stderr.strip()}")


@contextlib.contextmanager
def read_only(path: Path) -> Iterator[None]:
    """``path`` (a file or a directory) read-only for this process."""
    if not ROOT:
        mode = path.stat().st_mode
        path.chmod(0o555 if path.is_dir() else 0o444)
        try:
            yield
        finally:
            path.chmod(mode)
        return
    _mount("--bind", str(path), str(path))
    try:
        _mount("-o", "remount,bind,ro", str(path))
        yield
    finally:
        subprocess.run(["umount", str(path)], check=True)


@contextlib.contextmanager
def tmpfs(path: Path, size: str = "2m") -> Iterator[Path]:
    if not ROOT:
        pytest.skip("mounting a tmpfs (a disk that can be filled) needs root; CI runs as root")
    path.mkdir()
    _mount("-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path))
    try:
        yield path
    finally:
        subprocess.run(["umount", str(path)], check=True)


def fill(directory: Path) -> Path:
    """Write a file into ``directory`` until its disk is full."""
    filler = directory / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for chunk in (65536, 4096, 1):
            with contextlib.suppress(OSError):
                while True:
                    os.write(fd, b"\0" * chunk)
    finally:
        os.close(fd)
    return filler


def quizbot(database: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{database}",
        "QUIZ_DIR": str(QUIZ_DIR),
        "QUIZ_CACHE_DIR": "",
    }
    return subprocess.run(
        [sys.executable, "-m", "quizbot", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def assert_one_clear_line(done: subprocess.CompletedProcess[str], database: Path, why: str):
    assert done.returncode == 2, done
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "DATABASE_URL" in lines[0] and str(database) in lines[0] and why in lines[0]


def make_database(path: Path) -> None:
    assert quizbot(path, "progress", "--user", "zoe").returncode == 0


def test_a_read_only_database_file_is_one_clear_message_at_start(tmp_path):
    database = tmp_path / "quizbot.db"
    make_database(database)
    with read_only(database):
        done = quizbot(database, "progress", "--user", "zoe")
    assert_one_clear_line(done, database, "readonly")


@pytest.mark.parametrize("exists", [True, False], ids=["existing-file", "new-file"])
def test_a_read_only_database_directory_is_one_clear_message_at_start(tmp_path, exists):
    directory = tmp_path / "data"
    directory.mkdir()
    database = directory / "quizbot.db"
    if exists:
        make_database(database)
    with read_only(directory):
        done = quizbot(database, "progress", "--user", "zoe")
    assert_one_clear_line(done, database, "cannot use the SQLite database")


@pytest.mark.parametrize("exists", [True, False], ids=["existing-file", "new-file"])
def test_a_full_disk_is_one_clear_message_at_start(tmp_path, exists):
    with tmpfs(tmp_path / "disk") as disk:
        database = disk / "quizbot.db"
        if exists:
            make_database(database)
        fill(disk)
        done = quizbot(database, "progress", "--user", "zoe")
    assert_one_clear_line(done, database, "full")


async def test_a_commit_the_full_disk_refuses_is_never_acknowledged_and_reads_go_on(
    catalog, tmp_path
):
    with tmpfs(tmp_path / "disk") as disk:
        storage = SQLiteStorage(disk / "quizbot.db")
        await storage.open()
        try:
            engine = QuizEngine(catalog, storage, clock=FakeClock())
            question = (await engine.start(ZOE, SEED_QUIZ)).question
            assert question is not None
            first = await engine.answer_by_position(ZOE, question.attempt_id, 1, 0)
            assert first.outcome is AnswerOutcome.ACCEPTED
            filler = fill(disk)
            failed = await engine.answer_by_position(ZOE, question.attempt_id, 2, 0)
            assert failed.outcome is AnswerOutcome.FAILED
            assert failed.notice == "Could not save that just now — please press again."
            # Reads still work, and show only what was committed.
            assert len(await storage.answers(question.attempt_id)) == 1
            progress = await engine.progress(ZOE)
            assert [q.quiz_id for q in progress.quizzes] == [SEED_QUIZ]
            assert await engine.healthy()
            filler.unlink()  # the operator frees space: the same press now counts
            again = await engine.answer_by_position(ZOE, question.attempt_id, 2, 0)
            assert again.outcome is AnswerOutcome.ACCEPTED, again
            assert len(await storage.answers(question.attempt_id)) == 2
        finally:
            await storage.close()
