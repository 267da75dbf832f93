"""Typed-answer questions in the terminal: type the answer and Enter, through ``quizbot play``."""

from __future__ import annotations

from pathlib import Path

from tests.test_terminal import quizbot
from tests.typed_quiz import RIGHT, TYPED_QUIZ_ID, WRONG, typed_quiz_dir


def test_a_typed_quiz_is_played_by_typing_answers(tmp_path: Path) -> None:
    db = tmp_path / "q.db"
    env = {"QUIZ_DIR": str(typed_quiz_dir(tmp_path))}
    # An empty line is asked again; the choice question in between takes a letter.
    stdin = "\n".join(["", RIGHT["band"], WRONG["franchise"], "B", "moscow"]) + "\n"
    run = quizbot(["play", TYPED_QUIZ_ID, "--user", "kim"], db, stdin, env)
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "Which band recorded Abbey Road?" in out
    assert "✍️ Type your answer." in out
    assert "Please type an answer (letters or digits)." in out  # after the empty line
    assert out.count("✅ Correct") == 3
    assert "❌ Not quite" in out
    assert "Correct answer: Pokémon" in out
    assert "Why: Moscow has been the capital since 1918." in out
    assert "Score: 3/4 (75%)" in out


def test_stopping_mid_quiz_keeps_typed_answers_and_resumes_after_them(tmp_path: Path) -> None:
    db = tmp_path / "q.db"
    env = {"QUIZ_DIR": str(typed_quiz_dir(tmp_path))}
    first = quizbot(["play", TYPED_QUIZ_ID, "--user", "kim", "--lang", "ru"], db, "битлз\n", env)
    assert first.returncode == 0, first.stderr
    assert "Какая группа записала Abbey Road?" in first.stdout
    assert "✅ Верно" in first.stdout
    second = quizbot(["play", TYPED_QUIZ_ID, "--user", "kim"], db, "Pokemon\nA\nMoscow\n", env)
    assert second.returncode == 0, second.stderr
    assert "Вопрос 1/4" not in second.stdout and "Вопрос 2/4" in second.stdout  # resumed
    assert "Результат: 3/4 (75%)" in second.stdout  # the remembered language


def test_stats_and_export_show_typed_answers(tmp_path: Path) -> None:
    db = tmp_path / "q.db"
    env = {"QUIZ_DIR": str(typed_quiz_dir(tmp_path))}
    stdin = "\n".join([RIGHT["band"], WRONG["franchise"], "B", "moscow"]) + "\n"
    assert quizbot(["play", TYPED_QUIZ_ID, "--user", "kim"], db, stdin, env).returncode == 0
    stats = quizbot(["stats", TYPED_QUIZ_ID], db, env=env)
    assert stats.returncode == 0, stats.stderr
    assert "Hardest question: 2. Pikachu" in stats.stdout
    assert "Q1  100% correct of 1" in stats.stdout
    export = quizbot(["export", "--format", "json", "--quiz", TYPED_QUIZ_ID], db, env=env)
    assert export.returncode == 0, export.stderr
    assert '"Digimon"' in export.stdout and '"the beatles"' in export.stdout
