"""The operators' assignment commands in the terminal: ``quizbot assignments``, ``quizbot
report`` (with ``--png``) and ``quizbot export --assignment``, on a database the bots wrote."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.assignments import Assignments
from bot.catalog import QuizCatalog
from bot.engine import QuizEngine
from bot.scheduling import Scheduling
from bot.storage import SQLiteStorage
from bot.views import Participant
from fakes.clock import ManualClock
from tests.conftest import SEED_QUIZ
from tests.test_assignments import play
from tests.test_terminal import quizbot

GROUP = "-1001"
LEAD = Participant("telegram", "lead", "Lead", "en")
TITLE = "Checkpoint sharding and resumable training"


async def two_assignments(db: Path, catalog: QuizCatalog) -> None:
    """#1 closed a week ago (Asha finished it, Ben did not), #2 open for three more days."""
    storage = SQLiteStorage(db)
    await storage.open()
    try:
        clock = ManualClock(datetime.now(UTC) - timedelta(days=10))
        engine = QuizEngine(catalog, storage, clock=clock)
        assignments = Assignments(engine, Scheduling(storage, clock))
        first = await assignments.assign(GROUP, LEAD, SEED_QUIZ, "3d", in_group=True, allowed=True)
        assert first.post is not None
        for name, count in (("Asha", 8), ("Ben", 3)):
            who = Participant("telegram", name.lower(), name, "en")
            started = await assignments.start(first.post.assignment_id, who, chat_id=who.user_id)
            assert started.start is not None and started.start.question is not None
            await play(engine, who, started.start.question, count)
        clock.advance(10 * 86400)
        second = await assignments.assign(GROUP, LEAD, SEED_QUIZ, "3d", in_group=True, allowed=True)
        assert second.post is not None
    finally:
        await storage.close()


async def test_operators_list_report_and_export_assignments(tmp_path: Path, catalog):
    db = tmp_path / "t.db"
    await two_assignments(db, catalog)
    listed = quizbot(["assignments"], db)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert lines[0] == f"#2 telegram:{GROUP} {SEED_QUIZ}: {TITLE}"
    assert lines[1].startswith("    Due ") and lines[1].endswith(
        "Done: 0 · in progress: 0 · not started: 2"
    )
    assert len(lines) == 2  # the closed one is not open
    everything = quizbot(["assignments", "--all"], db).stdout.splitlines()
    assert everything[0] == f"#1 telegram:{GROUP} {SEED_QUIZ}: {TITLE}"
    assert "Was due" in everything[1] and everything[1].endswith(
        "Done: 1 · in progress: 1 · not started: 0"
    )

    report = quizbot(["report", "1"], db)
    assert report.returncode == 0, report.stderr
    assert report.stdout.splitlines()[:4] == [
        f"📊 Report · assignment #1: {TITLE}",
        report.stdout.splitlines()[1],
        "✅ Asha — 7/8 · ⏱ 0:00",
        "⏳ Ben — in progress 3/8",
    ]
    assert report.stdout.splitlines()[1].startswith("Was due ")
    russian = quizbot(["report", SEED_QUIZ, "--lang", "ru"], db).stdout
    assert "📊 Отчёт · задание #2" in russian and "📊 Отчёт · задание #1" in russian
    unknown = quizbot(["report", "7"], db)
    assert unknown.returncode == 2 and "There is no assignment #7" in unknown.stderr
    chart = tmp_path / "chart.png"
    drawn = quizbot(["report", "1", "--png", str(chart)], db)
    assert drawn.returncode == 0, drawn.stderr
    assert chart.read_bytes()[:4] == b"\x89PNG"
    assert quizbot(["report", "--png", str(chart)], db).returncode == 2  # two assignments

    out = tmp_path / "assignment.csv"
    exported = quizbot(["export", "--assignment", "1", "--out", str(out)], db)
    assert exported.returncode == 0, exported.stderr
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    assert [(r["name"], r["status"], r["correct"], r["total"]) for r in rows] == [
        ("Asha", "done", "7", "8"),
        ("Ben", "in_progress", "2", "8"),
    ]
    missing = quizbot(["export", "--assignment", "9"], db)
    assert missing.returncode == 2 and missing.stdout == ""
    assert "no assignment '9'" in missing.stderr
