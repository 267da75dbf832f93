"""`quizbot publish FILE...`: quiz files checked as `quizbot validate` checks them and
published to DATABASE_URL's library, other formats as an upload would be; a file with
problems publishes nothing."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.storage import SQLiteStorage, VersionSource
from quizbot import cli
from tests.images import PICTURES, write_picture_quiz
from tests.library_quizzes import EDITED, FIRST, write_quiz


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    quiz_dir = write_quiz(tmp_path / "quizzes", FIRST).parent
    monkeypatch.setenv("QUIZ_DIR", str(quiz_dir))
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'q.db'}")
    monkeypatch.setenv("QUIZ_CACHE_DIR", "")
    return tmp_path


def versions(db: Path) -> list[tuple[str, int, VersionSource]]:
    async def read() -> list[tuple[str, int, VersionSource]]:
        storage = SQLiteStorage(db)
        await storage.open()
        try:
            return [(v.quiz_id, v.version, v.source) for v in await storage.current_quiz_versions()]
        finally:
            await storage.close()

    return asyncio.run(read())


def test_publish_makes_the_next_version(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edited = write_quiz(env / "drafts", EDITED)
    assert cli.main(["publish", str(edited)]) == 0
    out = capsys.readouterr().out
    assert "Published quiz library-quiz, version 2, 2 questions." in out
    assert versions(env / "q.db") == [("library-quiz", 2, VersionSource.PUBLISH)]
    aiken = env / "sums.txt"
    aiken.write_text("2 + 2?\nA. 4\nB. 5\nANSWER: A\n", encoding="utf-8")
    assert cli.main(["publish", str(aiken)]) == 0
    assert "Published quiz sums, version 1, 1 question." in capsys.readouterr().out


def test_a_file_with_problems_publishes_nothing(
    env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = write_quiz(env / "drafts", EDITED.replace("correct: b", "correct: z"))
    assert cli.main(["publish", str(broken), str(env / "missing.yaml")]) == 1
    err = capsys.readouterr().err
    assert f"{broken}:5: " in err and "missing.yaml: no such file or directory" in err
    assert "nothing published" in err
    assert versions(env / "q.db") == [("library-quiz", 1, VersionSource.FILE)]


def test_a_quiz_file_named_in_capitals_is_published_in_place(
    env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``PICTURES.YAML`` is a quiz file like ``pictures.yaml``: checked where it lies, so the
    images beside it are found (as an upload, its bytes alone, they would not be)."""
    lower = write_picture_quiz(env / "drafts")
    upper = lower.rename(lower.with_name(lower.name.upper()))
    assert cli.main(["publish", str(upper)]) == 0
    assert f"Published quiz {PICTURES}, version 1" in capsys.readouterr().out
    assert (PICTURES, 1, VersionSource.PUBLISH) in versions(env / "q.db")
