"""What operators rely on: configuration checks, secret-free logs, stats and exports."""

from __future__ import annotations

import csv
import io
import json
import logging
from pathlib import Path

import pytest

from bot.catalog import QuizCatalog
from bot.engine import QuizEngine
from bot.i18n import t
from bot.storage import Storage
from bot.views import Participant
from quizbot.cli import format_stats, render_export
from quizbot.logs import StructuredFormatter, configure_logging, redact
from quizbot.settings import ConfigError, Settings, ephemeral_disk_warning
from tests.conftest import QUIZ_DIR, SEED_QUIZ, services_beside

TOKEN = "123456789:AAFakeTokenForTests_abcdefghijklmnopqrs"


@pytest.fixture
def storage(any_storage):
    return any_storage


def test_defaults_need_no_configuration():
    settings = Settings.from_env({"QUIZ_DIR": str(QUIZ_DIR)})
    assert settings.database_url == "sqlite:///quizbot.db"
    assert settings.telegram_token is None and settings.discord_token is None


@pytest.mark.parametrize(
    ("env", "variable"),
    [
        ({"DATABASE_URL": "mysql://db/quiz"}, "DATABASE_URL"),
        ({"TELEGRAM_BOT_TOKEN": "not-a-token"}, "TELEGRAM_BOT_TOKEN"),
        ({"PORT": "http"}, "PORT"),
        ({"QUIZ_DIR": "/no/such/dir"}, "QUIZ_DIR"),
        ({"ADMIN_TELEGRAM_IDS": "12,bob"}, "ADMIN_TELEGRAM_IDS"),
        ({"LOG_FORMAT": "xml"}, "LOG_FORMAT"),
        ({"WEBHOOK_URL": "http://insecure.example"}, "WEBHOOK_URL"),
        ({"WEBHOOK_MAX_CONNECTIONS": "101"}, "WEBHOOK_MAX_CONNECTIONS"),
        ({"DATABASE_TIMEOUT": "soon"}, "DATABASE_TIMEOUT"),
        ({"DATABASE_TIMEOUT": "0.1"}, "DATABASE_TIMEOUT"),
        ({"ROUND_LEASE_SECONDS": "nan"}, "ROUND_LEASE_SECONDS"),
    ],
)
def test_bad_configuration_names_the_variable(env, variable):
    with pytest.raises(ConfigError) as error:
        Settings.from_env({"QUIZ_DIR": str(QUIZ_DIR), **env})
    assert error.value.variable == variable
    assert str(error.value).startswith(f"{variable}: ")


def test_the_token_never_appears_in_settings_repr_or_config_errors():
    settings = Settings.from_env({"QUIZ_DIR": str(QUIZ_DIR), "TELEGRAM_BOT_TOKEN": TOKEN})
    assert TOKEN not in repr(settings) and TOKEN not in str(settings)
    with pytest.raises(ConfigError) as error:
        Settings.from_env({"QUIZ_DIR": str(QUIZ_DIR), "TELEGRAM_BOT_TOKEN": TOKEN + "!"})
    assert TOKEN not in str(error.value)


def test_postgres_urls_are_accepted_in_both_spellings():
    for url in ("postgres://u:p@h/db", "postgresql://u:p@h/db"):
        assert Settings.from_env({"QUIZ_DIR": str(QUIZ_DIR), "DATABASE_URL": url}).database_url


@pytest.mark.parametrize(
    ("env", "url", "warns"),
    [
        ({"DYNO": "worker.1"}, "sqlite:////data/q.db", True),
        ({"RENDER": "true"}, "sqlite:///quizbot.db", True),
        ({"RENDER": "true"}, "sqlite:////var/data/quizbot.db", False),
        ({"RAILWAY_ENVIRONMENT": "production"}, "sqlite:///quizbot.db", True),
        (
            {"RAILWAY_ENVIRONMENT": "production", "RAILWAY_VOLUME_MOUNT_PATH": "/data"},
            "sqlite:////data/quizbot.db",
            False,
        ),
        ({"DYNO": "worker.1"}, "postgres://u:p@h/db", False),
        ({}, "sqlite:///quizbot.db", False),
    ],
)
def test_sqlite_on_an_ephemeral_disk_is_warned_about(env, url, warns):
    settings = Settings.from_env({"QUIZ_DIR": str(QUIZ_DIR), "DATABASE_URL": url})
    warning = ephemeral_disk_warning(settings, env)
    assert (warning is not None) is warns
    if warning is not None:
        assert "progress will be lost" in warning


@pytest.fixture
def restore_logging():
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    for handler in list(root.handlers):
        root.removeHandler(handler)
    for handler in handlers:
        root.addHandler(handler)
    root.setLevel(level)
    logging.getLogger("httpx").setLevel(logging.NOTSET)
    logging.getLogger("httpcore").setLevel(logging.NOTSET)


def test_log_lines_never_contain_tokens(capsys, restore_logging):
    configure_logging("DEBUG", "kv", [TOKEN])
    log = logging.getLogger("telegram.test")
    log.info("POST https://api.telegram.org/bot%s/getUpdates", TOKEN)
    log.info("unknown token shape 987654321:%s", "B" * 35)
    try:
        raise RuntimeError(f"failed calling /bot{TOKEN}/sendMessage")
    except RuntimeError:
        log.exception("request failed", extra={"chat": 42})
    logging.getLogger("httpx").info("HTTP Request: POST .../bot%s/getMe", TOKEN)
    err = capsys.readouterr().err
    assert TOKEN not in err and "B" * 35 not in err
    assert err.count("<redacted>") >= 3
    assert "chat=42" in err and "level=ERROR" in err
    assert "HTTP Request" not in err  # httpx's request log is turned down


def test_json_log_format_is_one_object_per_line():
    formatter = StructuredFormatter("json", [TOKEN])
    record = logging.makeLogRecord(
        {"name": "quizbot", "levelname": "INFO", "msg": "adapter started", "adapter": "x"}
    )
    line = json.loads(formatter.format(record))
    assert line["event"] == "adapter started" and line["adapter"] == "x"
    assert redact(f"a {TOKEN} b") == "a <redacted> b"


async def play(engine: QuizEngine, who: Participant, picks: list[int]) -> None:
    question = (await engine.start(who, SEED_QUIZ)).question
    for index in picks:
        assert question is not None
        feedback = await engine.answer_by_position(who, question.attempt_id, question.number, index)
        question = feedback.next_question


def correct_positions(catalog: QuizCatalog, engine: QuizEngine, storage: Storage):
    async def positions(who: Participant) -> list[int]:
        quiz = catalog.get(SEED_QUIZ)
        start = await engine.start(who, SEED_QUIZ)
        assert start.question is not None
        attempt = await storage.get_attempt(start.question.attempt_id)
        assert attempt is not None and quiz is not None
        return [list(attempt.option_order[q.id]).index(q.correct_option_id) for q in quiz.questions]

    return positions


async def test_stats_count_attempts_scores_and_option_picks(catalog, engine, storage):
    positions = correct_positions(catalog, engine, storage)
    ann, bob, cat = (Participant("t", n) for n in ("ann", "bob", "cat"))
    right = await positions(ann)
    await play(engine, ann, right)  # 8/8
    wrong_first = await positions(bob)
    await play(engine, bob, [(wrong_first[0] + 1) % 4, *wrong_first[1:]])  # 7/8
    await engine.start(cat, SEED_QUIZ)  # started, never answered
    (stats,) = await engine.stats(SEED_QUIZ)
    assert (stats.attempts, stats.completed, stats.average_score) == (3, 2, 7.5)
    first = stats.questions[0]
    assert (first.answered, first.correct, first.percent_correct) == (2, 1, 50.0)
    assert stats.hardest is first
    assert sum(o.picks for o in first.options) == 2
    assert first.median_seconds is not None and first.median_seconds > 0
    report = format_stats(stats)
    assert t("stats_summary", "en", attempts=3, completed=2, average="7.5/8") in report
    hardest = t("stats_hardest", "en", number=1, text=first.text, percent=50)
    assert " ".join(hardest.split()) in " ".join(report.split())


async def test_exports_hold_every_attempt_and_answer(catalog, engine, storage):
    await play(engine, Participant("t", "ann"), [0, 1, 2])
    await engine.start(Participant("t", "bob"), SEED_QUIZ)
    attempts = await storage.attempts_for_quiz(None)
    answers = await storage.answers_for_quiz(SEED_QUIZ)
    text = render_export(attempts, answers, "csv")
    assert text.splitlines()[0] == (  # a stable header: new columns come at the end
        "attempt_id,platform,user_id,quiz_id,status,started_at,finished_at,"
        "question_id,option_id,correct,answered_at,kind,quiz_version"
    )
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == 4  # three answers of ann, one empty row for bob's attempt
    assert [r["question_id"] for r in rows[:3]] == ["why-shard", "resume-state", "resume-benefit"]
    assert rows[3]["user_id"] == "bob" and rows[3]["question_id"] == ""
    assert {r["quiz_version"] for r in rows} == {"1"}
    document = json.loads(render_export(attempts, answers, "json"))
    assert len(document["attempts"]) == 2 and len(document["answers"]) == 3


async def test_exports_say_whether_an_attempt_was_a_quiz_a_review_or_a_round(
    catalog, engine, storage
):
    ann = Participant("telegram", "ann", "Ann", "en")
    right = await correct_positions(catalog, engine, storage)(ann)
    await play(engine, ann, [(right[0] + 1) % 4, *right[1:]])  # misses question 1
    review = await engine.start_review(ann)
    assert review.question is not None
    await engine.answer_by_position(ann, review.question.attempt_id, 1, 0)
    question = (
        await services_beside(engine).rounds.start("telegram", "-100", ann, SEED_QUIZ)
    ).question
    while question is not None:  # a group round, which each member's history gets a copy of
        await services_beside(engine).rounds.answer(question.round_id, ann, question.number, 0)
        reveal = await services_beside(engine).rounds.close(question.round_id, question.number)
        assert reveal is not None
        question = reveal.next_question
    attempts, answers = await engine.export(SEED_QUIZ)
    rows = list(csv.DictReader(io.StringIO(render_export(attempts, answers, "csv"))))
    kinds = {row["attempt_id"]: row["kind"] for row in rows}
    assert sorted(kinds.values()) == ["quiz", "review", "round"]
    assert [row["kind"] for row in rows].count("round") == 8  # one row per round answer
    document = json.loads(render_export(attempts, answers, "json"))
    assert [a["kind"] for a in document["attempts"]] == ["quiz", "review", "round"]


def test_stats_and_export_commands(tmp_path: Path):
    from tests.test_terminal import quizbot

    db = tmp_path / "t.db"
    quizbot(["play", SEED_QUIZ, "--user", "zed"], db, "A\nB\n")
    stats = quizbot(["stats"], db)
    assert stats.returncode == 0 and "Attempts: 1 · completed: 0" in stats.stdout
    out = tmp_path / "export.csv"
    written = quizbot(["export", "--out", str(out)], db)
    assert written.returncode == 0
    assert written.stderr == f"wrote 2 answers of 1 attempt to {out}\n"
    assert len(out.read_text(encoding="utf-8").splitlines()) == 3
    assert quizbot(["stats", "nope"], db).returncode == 2


def test_stats_name_the_picked_option_by_its_id_and_text_not_a_shuffled_letter(
    tmp_path: Path, catalog
):
    import re

    from bot.text_direction import strip_controls
    from tests.test_terminal import OPTION_LINE, quizbot

    db = tmp_path / "t.db"
    played = strip_controls(quizbot(["play", SEED_QUIZ, "--user", "zed"], db, "B\n").stdout)
    quiz = catalog.get(SEED_QUIZ)
    assert quiz is not None
    question = quiz.questions[0]
    matches = [m for m in map(OPTION_LINE.match, played.splitlines()) if m]
    shown = {m.group(1): m.group(2) for m in matches[: len(question.options)]}  # question 1's
    assert question.text.get("en") in played
    picked = next(o for o in question.options if o.text.get("en") == shown["B"])
    report = quizbot(["stats", SEED_QUIZ], db).stdout.splitlines()
    first = report[report.index(next(line for line in report if line.startswith("  Q1 "))) + 1 :]
    options = first[: len(question.options)]
    assert [line.split()[0] for line in options] == [o.id for o in question.options]
    (line,) = [line for line in options if re.match(r"\s+\S+\s+1 ", line)]
    assert line.split()[0] == picked.id
    assert (
        line.split(None, 2)[2].lstrip("✓ ").rstrip("…").split()[:4]
        == (picked.text.get("en").split()[:4])
    )


def test_export_of_an_unknown_quiz_names_it_and_the_known_ones(tmp_path: Path):
    from tests.test_terminal import quizbot

    db = tmp_path / "t.db"
    result = quizbot(["export", "--quiz", "nope"], db)
    assert result.returncode == 2
    assert result.stdout == ""  # not an empty CSV, which would read as "nobody played it"
    known = ", ".join(sorted(p.stem for p in QUIZ_DIR.glob("*.yaml")))
    assert result.stderr == f"quizbot export: no quiz 'nope'; known quizzes: {known}\n"
    folder = quizbot(["export", "--out", str(tmp_path / "no" / "such.csv")], db)
    assert folder.returncode == 2 and "does not exist" in folder.stderr


async def test_the_stats_chart_is_a_png_of_the_expected_size(engine):
    import struct

    from quizbot.charts import chart_size, render_stats_png

    await play(engine, Participant("t", "ann"), [0, 1, 2, 3, 0, 1, 2, 3])
    (stats,) = await engine.stats(SEED_QUIZ)
    png = render_stats_png(stats)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])  # the IHDR chunk
    assert (width, height) == chart_size(stats) == (1000, 550)


def test_stats_png_command_writes_the_chart(tmp_path: Path):
    from tests.test_terminal import quizbot

    db = tmp_path / "t.db"
    quizbot(["play", SEED_QUIZ, "--user", "zed"], db, "A\nB\n")
    chart = tmp_path / "chart.png"
    result = quizbot(["stats", SEED_QUIZ, "--png", str(chart)], db)
    assert result.returncode == 0, result.stderr
    assert chart.read_bytes()[:4] == b"\x89PNG"


def test_the_webhook_secret_is_redacted_like_the_tokens(
    tmp_path, monkeypatch, capsys, restore_logging
):
    """The CLI configures logging from the one parsed Settings, whose secrets include
    WEBHOOK_SECRET: a log line quoting it shows <redacted>."""
    from quizbot import cli

    secret = "webhook-secret-that-must-not-leak-42"
    monkeypatch.setenv("WEBHOOK_SECRET", secret)
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", TOKEN)
    monkeypatch.setenv("QUIZ_DIR", str(QUIZ_DIR))
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'q.db'}")
    monkeypatch.setenv("LOG_LEVEL", "INFO")  # not the default of `list` (WARNING)
    assert cli.main(["list"]) == 0
    log = logging.getLogger("quizbot.test")
    log.info("webhook called with secret %s", secret)
    log.info("token %s", TOKEN)
    err = capsys.readouterr().err
    assert err.count("level=INFO") >= 2  # LOG_LEVEL came from the parsed Settings
    assert secret not in err and TOKEN not in err
    assert err.count("<redacted>") >= 2


def test_export_still_gives_the_attempts_of_a_quiz_whose_file_was_removed(tmp_path: Path):
    from tests.test_terminal import quizbot

    db, quizzes = tmp_path / "t.db", tmp_path / "quizzes"
    quizzes.mkdir()
    (quizzes / "old.yaml").write_text(
        (QUIZ_DIR / f"{SEED_QUIZ}.yaml")
        .read_text(encoding="utf-8")
        .replace(f"id: {SEED_QUIZ}", "id: old"),
        "utf-8",
    )
    env = {"QUIZ_DIR": str(quizzes)}
    assert quizbot(["play", "old", "--user", "zed"], db, "A\n", env).returncode == 0
    (quizzes / "old.yaml").unlink()
    (quizzes / "new.yaml").write_text(
        (QUIZ_DIR / f"{SEED_QUIZ}.yaml").read_text(encoding="utf-8"), "utf-8"
    )
    kept = quizbot(["export", "--quiz", "old"], db, env=env)
    assert kept.returncode == 0, kept.stderr
    assert len(kept.stdout.splitlines()) == 2  # the header and the one answer
    unknown = quizbot(["export", "--quiz", "nope"], db, env=env)
    assert unknown.stderr.endswith(f"known quizzes: {SEED_QUIZ}, old\n")


@pytest.mark.parametrize("fmt", ["kv", "json"])
@pytest.mark.parametrize("name", ["Eve\nlevel=ERROR forged", "Eve\u2028x", "Eve\x85x", "Eve\rx"])
def test_a_user_value_with_a_line_break_stays_on_one_log_line(fmt: str, name: str) -> None:
    from quizbot.logs import StructuredFormatter

    record = logging.makeLogRecord({"msg": "joined", "levelname": "INFO", "user": name})
    line = StructuredFormatter(fmt).format(record)
    assert len(line.splitlines()) == 1, line
    if fmt == "json":
        assert json.loads(line)["user"] == name
