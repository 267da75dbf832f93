"""Images in terminal play: the question shows where its picture is and what it shows."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.images import PICTURES, write_picture_quiz
from tests.test_terminal import quizbot


def test_the_terminal_names_each_image_and_its_alt_text(tmp_path: Path) -> None:
    folder = tmp_path / "quizzes"
    write_picture_quiz(folder)
    db = tmp_path / "t.db"
    env = {"QUIZ_DIR": str(folder)}
    run = quizbot(["play", PICTURES, "--user", "kim"], db, "A\nA\nA\n", env)
    assert run.returncode == 0, run.stderr
    images = folder.resolve() / "images"
    lines = run.stdout.splitlines()
    assert f"🖼 Image: {images / 'diagram.png'} (Four shard files and an index)" in lines
    # Without alt text (the short form, image: FILE), the path alone.
    assert f"🖼 Image: {images / 'wide.png'}" in lines
    assert f"🖼 Image: {images / 'diagram.png'}" in lines  # the third question's
    # Code stays as written in the terminal, a block indented.
    assert "What does `load(index)` return for this layout? Use <b> & co:" in run.stdout
    assert '    shards = [s for s in index if s.endswith(".bin")]' in lines
    assert "Score: 3/3 (100%)" in run.stdout
    # Starting stored the quiz's images in the database, each once.
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM images").fetchone() == (2,)


def test_the_alt_text_comes_in_the_players_language(tmp_path: Path) -> None:
    folder = tmp_path / "quizzes"
    write_picture_quiz(folder)
    run = quizbot(
        ["play", PICTURES, "--user", "ivan", "--lang", "ru"],
        tmp_path / "t.db",
        "A\n",
        {"QUIZ_DIR": str(folder)},
    )
    assert run.returncode == 0, run.stderr
    diagram = folder.resolve() / "images" / "diagram.png"
    assert f"🖼 Изображение: {diagram} (Четыре файла шардов и индекс)" in run.stdout
