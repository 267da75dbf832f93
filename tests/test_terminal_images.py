"""Images in terminal play: the question shows where its picture is and what it shows."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.images import EXPLAINED, PICTURES, write_explained_quiz, write_picture_quiz
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


def test_the_explanation_names_its_image_after_every_answer(tmp_path: Path) -> None:
    folder = tmp_path / "quizzes"
    write_explained_quiz(folder)
    db = tmp_path / "t.db"
    run = quizbot(
        ["play", EXPLAINED, "--user", "kim"], db, "B\nA\nA\nindex\n", {"QUIZ_DIR": str(folder)}
    )
    assert run.returncode == 0, run.stderr
    images = folder.resolve() / "images"
    lines = run.stdout.splitlines()
    answer = f"🖼 Image: {images / 'answer.png'}"
    # A wrong answer: the right one, the explanation, then the picture that explains it.
    wrong = lines.index("Why: It maps every tensor name to its shard file.")
    assert lines[wrong + 1] == f"{answer} (Arrows from the index to each shard)"
    right = lines.index("Why: The index, then the shards it names.")
    assert lines[right + 1] == answer  # the short form: the path alone
    assert f"🖼 Image: {images / 'wide.png'}" in lines
    # A typed question without an explanation still shows its explanation's picture.
    assert lines.count(answer) == 2
    assert "Score: 3/4 (75%)" in run.stdout
    # Starting stored every image, the explanations' too, each once.
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM images").fetchone() == (3,)


def test_the_explanation_image_comes_in_the_players_language(tmp_path: Path) -> None:
    folder = tmp_path / "quizzes"
    write_explained_quiz(folder)
    run = quizbot(
        ["play", EXPLAINED, "--user", "ivan", "--lang", "ru"],
        tmp_path / "t.db",
        "A\n",
        {"QUIZ_DIR": str(folder)},
    )
    assert run.returncode == 0, run.stderr
    answer = folder.resolve() / "images" / "answer.png"
    assert f"🖼 Изображение: {answer} (Стрелки от индекса к шардам)" in run.stdout
