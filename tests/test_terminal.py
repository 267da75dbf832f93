"""Terminal play and the CLI, end to end through the installed ``quizbot`` entry point."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.catalog import QuizCatalog
from bot.storage import AnswerRecord, NewAttempt, ReviewItem, SQLiteStorage
from bot.text_direction import strip_controls
from tests.conftest import QUIZ_DIR, ROOT, SEED_QUIZ

OPTION_LINE = re.compile(r"^\s+([A-J])\. (.+)$")


def quizbot(
    args: list[str], db: Path, stdin: str = "", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    environment = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{db}",
        "QUIZ_DIR": str(QUIZ_DIR),
        "LANG": "C.UTF-8",
        **(env or {}),
    }
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=environment,
        timeout=60,
    )


def answers_for(catalog: QuizCatalog, language: str, pattern: str) -> list[str]:
    """The option texts the player will pick: correct where ``pattern`` says "1"."""
    quiz = catalog.get(SEED_QUIZ)
    assert quiz is not None
    picks = []
    for question, right in zip(quiz.questions, pattern, strict=True):
        option_id = question.correct_option_id
        if right == "0":
            option_id = next(o.id for o in question.options if o.id != option_id)
        option = question.option(option_id)
        assert option is not None
        picks.append(option.text.get(language))
    return picks


def play_interactively(db: Path, language: str, picks: list[str]) -> str:
    """Drive ``quizbot play`` like a person: read each question, type the letter shown."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot", "play", SEED_QUIZ, "--lang", language, "--user", "kim"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "DATABASE_URL": f"sqlite:///{db}", "QUIZ_DIR": str(QUIZ_DIR)},
    )
    assert proc.stdin and proc.stdout
    transcript: list[str] = []
    options: dict[str, str] = {}
    buffer = ""
    while picks:
        char = proc.stdout.read(1)
        assert char, "quizbot ended early:\n" + "".join(transcript) + buffer
        buffer += char
        if char == "\n":
            transcript.append(buffer)
            match = OPTION_LINE.match(strip_controls(buffer.rstrip("\n")))
            if match:
                options[match.group(2)] = match.group(1)
            buffer = ""
        elif strip_controls(buffer).endswith("): "):  # the answer prompt
            transcript.append(buffer)
            buffer = ""
            proc.stdin.write(options[picks.pop(0)] + "\n")
            proc.stdin.flush()
            options = {}
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0
    return strip_controls("".join(transcript) + buffer + out)


SCORE = {
    "en": "Score: 6/8 (75%)",
    "bn": "স্কোর: 6/8 (75%)",
    "ur": "اسکور: 6/8 (75%)",
    "ru": "Результат: 6/8 (75%)",
}
WHY = {"en": "Why: ", "bn": "ব্যাখ্যা: ", "ur": "وضاحت: ", "ru": "Пояснение: "}


@pytest.mark.parametrize("language", ["en", "bn", "ur", "ru"])
def test_the_seed_quiz_plays_to_the_end_in_every_language(tmp_path, catalog, language):
    pattern = "11011101"
    transcript = play_interactively(
        tmp_path / "t.db", language, answers_for(catalog, language, pattern)
    )
    assert transcript.count(WHY[language]) == 8  # an explanation after every answer
    assert SCORE[language] in transcript
    marks = re.findall(r"^\s+([✓✗]) (\d)\.", transcript, flags=re.M)
    assert [m for m, _ in marks] == ["✓" if p == "1" else "✗" for p in pattern]
    if language != "en":
        assert "Why are large-model" not in transcript  # really translated


def test_piped_answers_work_and_bad_input_gets_a_hint(tmp_path):
    result = quizbot(["play", SEED_QUIZ, "--user", "pat"], tmp_path / "t.db", "x\n\n7\nA\n")
    assert result.returncode == 0
    out = strip_controls(result.stdout)
    assert out.count("Please type one of the letters A, B, C, D.") == 3
    assert "Question 2/8  ▰▰▱▱▱▱▱▱" in out
    assert "Progress saved. Run the same command again to continue." in out


def test_an_interrupted_run_resumes_at_the_next_unanswered_question(tmp_path):
    db = tmp_path / "t.db"
    first = quizbot(["play", SEED_QUIZ, "--user", "sam"], db, "A\nB\nC\n")
    assert first.returncode == 0
    assert "Question 4/8" in first.stdout
    second = quizbot(["play", "--user", "sam"], db, "")
    out = strip_controls(second.stdout)
    assert "Welcome back: continuing where you stopped." in out
    assert "Question 4/8  ▰▰▰▰▱▱▱▱" in out and "Question 1/8" not in out
    progress = quizbot(["progress", "--user", "sam"], db)
    assert "in progress, 3/8 answered" in progress.stdout
    other = quizbot(["progress", "--user", "someone-else"], db)
    assert "You have not taken a quiz yet" in other.stdout


@pytest.mark.parametrize(
    ("locale", "says"),
    [
        ("en_GB.UTF-8", "You have not taken a quiz yet. Run `quizbot play` to start a quiz."),
        ("ru_RU.UTF-8", "Вы ещё не проходили тесты. Запустите `quizbot play`, чтобы начать тест."),
    ],
)
def test_progress_of_a_new_player_names_the_terminal_command(tmp_path, locale, says):
    result = quizbot(["progress", "--user", "new"], tmp_path / "t.db", env={"LC_ALL": locale})
    assert result.returncode == 0
    out = strip_controls(result.stdout).strip()
    assert out == says  # not the chat wording ("Send /quiz")


def test_every_terminal_string_has_every_language():
    from adapters.terminal import TERMINAL_STRINGS
    from bot.i18n import SUPPORTED_LANGUAGES

    for key, by_language in TERMINAL_STRINGS.items():
        assert set(by_language) == set(SUPPORTED_LANGUAGES), key


@pytest.mark.parametrize("source", ["devnull", "file"])
def test_input_from_dev_null_or_a_file_is_read_to_its_end(tmp_path, source):
    answers = tmp_path / "answers.txt"
    answers.write_text("A\nB", encoding="utf-8")  # the last line without its newline
    with open(os.devnull if source == "devnull" else answers, "rb") as stdin:
        result = subprocess.run(
            [sys.executable, "-m", "bot", "play", SEED_QUIZ, "--user", "dn"],
            stdin=stdin,
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 't.db'}"},
            timeout=60,
        )
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert "Progress saved" in result.stdout
    assert ("Question 3/8" in result.stdout) is (source == "file")


def test_ctrl_c_saves_and_exits_without_a_traceback(tmp_path):
    import signal
    import time

    proc = subprocess.Popen(
        [sys.executable, "-m", "bot", "play", SEED_QUIZ, "--user", "cc"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 't.db'}"},
    )
    assert proc.stdout and proc.stdin
    proc.stdin.write("A\n")
    proc.stdin.flush()
    deadline = time.monotonic() + 30
    seen = ""
    while "Question 2/8" not in seen and time.monotonic() < deadline:
        seen += proc.stdout.readline()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130
    assert "Traceback" not in err
    assert "Progress saved" in out
    resumed = quizbot(["play", "--user", "cc"], tmp_path / "t.db", "")
    assert "Question 2/8" in resumed.stdout


def test_list_shows_the_quizzes(tmp_path):
    result = quizbot(["list", "--lang", "ru"], tmp_path / "t.db")
    assert result.returncode == 0
    assert "checkpoint-sharding: Шардирование чекпойнтов" in result.stdout
    assert "— 8 вопросов" in result.stdout


def test_validate_passes_on_the_bundled_quizzes(tmp_path):
    result = quizbot(["validate", "quizzes/"], tmp_path / "t.db")
    assert result.returncode == 0, result.stderr
    assert "ok: quizzes/checkpoint-sharding.yaml" in result.stdout


def test_validate_reports_file_line_errors_and_exits_1(tmp_path):
    seed = (QUIZ_DIR / f"{SEED_QUIZ}.yaml").read_text(encoding="utf-8")
    (tmp_path / "key.yaml").write_text(seed.replace("correct: d", "correct: e", 1), "utf-8")
    (tmp_path / "dupe.yaml").write_text(seed.replace("id: resume-state", "id: why-shard"), "utf-8")
    (tmp_path / "bad.yaml").write_text("title: [unclosed\n", encoding="utf-8")
    result = quizbot(["validate", str(tmp_path)], tmp_path / "t.db")
    assert result.returncode == 1
    errors = result.stderr.splitlines()
    assert (
        f'{tmp_path / "key.yaml"}:20: question "why-shard": correct option "e" is not one of '
        "a, b, c, d" in errors
    )
    assert any(
        e.startswith(f"{tmp_path / 'dupe.yaml'}:") and 'duplicate question id "why-shard"' in e
        for e in errors
    )
    assert any(e.startswith(f"{tmp_path / 'bad.yaml'}:2: invalid YAML") for e in errors)


def test_run_without_tokens_explains_what_to_set(tmp_path):
    result = quizbot(
        ["run"], tmp_path / "t.db", env={"TELEGRAM_BOT_TOKEN": "", "DISCORD_BOT_TOKEN": ""}
    )
    assert result.returncode == 2
    assert "TELEGRAM_BOT_TOKEN" in result.stderr and "DISCORD_BOT_TOKEN" in result.stderr


def test_bad_configuration_exits_2_naming_the_variable(tmp_path):
    result = quizbot(["play"], tmp_path / "t.db", env={"DATABASE_URL": "mysql://x/y"})
    assert result.returncode == 2
    assert "DATABASE_URL" in result.stderr and "Traceback" not in result.stderr


def test_with_several_quizzes_play_offers_a_choice(tmp_path):
    quizzes = tmp_path / "quizzes"
    quizzes.mkdir()
    seed = (QUIZ_DIR / f"{SEED_QUIZ}.yaml").read_text(encoding="utf-8")
    (quizzes / "alpha.yaml").write_text(
        seed.replace("id: checkpoint-sharding", "id: alpha"), "utf-8"
    )
    (quizzes / "beta.yaml").write_text(seed.replace("id: checkpoint-sharding", "id: beta"), "utf-8")
    result = quizbot(
        ["play", "--user", "ch"], tmp_path / "t.db", "3\n2\nA\n", {"QUIZ_DIR": str(quizzes)}
    )
    out = strip_controls(result.stdout)
    assert "Choose a quiz:" in out
    assert "1. Checkpoint sharding and resumable training — 8 questions  [alpha]" in out
    assert "Question 2/8" in out  # "3" was refused, "2" chose beta, "A" answered question 1
    progress = quizbot(
        ["export", "--format", "json"], tmp_path / "t.db", env={"QUIZ_DIR": str(quizzes)}
    )
    assert '"quiz_id": "beta"' in progress.stdout


def test_review_brings_back_missed_questions(tmp_path, catalog):
    db = tmp_path / "t.db"
    quiz = catalog.get(SEED_QUIZ)
    nothing = quizbot(["review", "--user", "rv"], db)
    assert "Nothing to review yet" in nothing.stdout
    # Always answering "A" misses some questions (options are shuffled per attempt).
    played = strip_controls(quizbot(["play", SEED_QUIZ, "--user", "rv"], db, "A\n" * 8).stdout)
    missed = played.count("❌ Not quite")
    assert missed == played.count("Correct answer:")  # every miss shows the right option
    assert played.count("✅ Correct") + missed == len(quiz.questions)
    review = strip_controls(quizbot(["review", "--user", "rv"], db, "A\n" * missed).stdout)
    if missed:
        noun = "question" if missed == 1 else "questions"
        assert f"🔁 Review: {missed} {noun} to practise again." in review
        assert f"Question {missed}/{missed}" in review


def test_review_says_when_the_next_review_is_in_the_users_time_zone(tmp_path):
    db = tmp_path / "t.db"

    async def schedule() -> None:
        storage = SQLiteStorage(db)
        await storage.open()
        try:
            await storage.touch_user("terminal", "tz", None)
            due = datetime(2099, 6, 1, 6, 0, tzinfo=UTC)  # 11:30 in Kolkata
            new = NewAttempt("terminal", "tz", None, SEED_QUIZ, ("why-shard",), {}, due)
            attempt, _ = await storage.create_attempt(new)
            item = ReviewItem("terminal", "tz", SEED_QUIZ, "why-shard", 2, due, None)
            answer = AnswerRecord(attempt.id, "why-shard", "a", True, due)
            await storage.record_answer(answer, finishes=False, review=item)
        finally:
            await storage.close()

    asyncio.run(schedule())
    bad = quizbot(["review", "--user", "tz", "--tz", "Mars/Base"], db)
    assert bad.returncode == 2 and "Mars/Base" in bad.stderr and "Europe/Berlin" in bad.stderr
    later = strip_controls(quizbot(["review", "--user", "tz", "--tz", "asia/kolkata"], db).stdout)
    assert later.strip() == "Nothing due now — next review: 2099-06-01 11:30 Asia/Kolkata."
    kept = strip_controls(quizbot(["review", "--user", "tz"], db).stdout)  # the zone is kept
    assert kept == later
