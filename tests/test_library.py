"""The quiz library: QUIZ_DIR published to the database, versions pinned by the attempts and
rounds that started on them, replicas serving what another one published, unpublishing, and
a broken file never replacing the live version. On SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.catalog import QuizCatalog
from bot.engine import QuizEngine
from bot.library import QuizLibrary
from bot.rounds import GroupRounds
from bot.storage import AttemptKind, Storage, VersionSource
from bot.views import AnswerOutcome, Participant, StartOutcome
from tests.conftest import FakeClock, OpenStorage
from tests.library_quizzes import EDITED, FIRST, write_quiz

ANNA = Participant("test", "anna", "Anna", "en")
BORIS = Participant("test", "boris", "Boris", "en")


async def replica(storage: Storage, quiz_dir: Path) -> QuizEngine:
    """An engine as ``quizbot run`` builds one: the catalog filled from the library after
    QUIZ_DIR is published."""
    engine = QuizEngine(QuizCatalog(paths=[quiz_dir]), storage, clock=FakeClock())
    await engine.library.publish_quiz_dir()
    return engine


@pytest.fixture
def quiz_dir(tmp_path: Path) -> Path:
    write_quiz(tmp_path / "quizzes", FIRST)
    return tmp_path / "quizzes"


async def test_quiz_dir_is_published_once_and_an_edit_becomes_the_next_version(
    any_storage: Storage, quiz_dir: Path
) -> None:
    engine = await replica(any_storage, quiz_dir)
    quiz = engine.catalog.get("library-quiz")
    assert quiz is not None and quiz.version == 1
    again = await engine.library.publish_quiz_dir()  # nothing new: no new version
    assert [(p.version.version, p.new) for p in again.publications] == [(1, False)]
    write_quiz(quiz_dir, EDITED)
    edited = await engine.library.publish_quiz_dir()
    [publication] = edited.publications
    assert (publication.version.version, publication.new) == (2, True)
    assert publication.version.source is VersionSource.FILE
    assert publication.version.question_count == 2
    served = engine.catalog.get("library-quiz")
    assert served is not None and served.version == 2
    assert [q.id for q in served.questions] == ["q1", "q3-new"]


async def test_an_attempt_started_on_v1_finishes_on_v1_after_v2_is_published(
    open_storage: OpenStorage, quiz_dir: Path
) -> None:
    storage = await open_storage()
    engine = await replica(storage, quiz_dir)
    started = await engine.start(ANNA, "library-quiz")
    assert started.question is not None and started.question.quiz_version == 1
    attempt_id = started.question.attempt_id
    first = await engine.answer_by_position(ANNA, attempt_id, 1, 0)  # "a": right in v1
    assert first.outcome is AnswerOutcome.ACCEPTED and first.correct

    write_quiz(quiz_dir, EDITED)  # q1 re-keyed, q2 removed, q3 renamed
    assert (await engine.library.publish_quiz_dir()).publications[0].version.version == 2

    # The old message's buttons (question 2, option b) still answer the attempt, graded by
    # v1: q2 is gone from v2 but not from the attempt.
    second = await engine.answer_by_position(ANNA, attempt_id, 2, 1)
    assert second.outcome is AnswerOutcome.ACCEPTED and second.correct
    assert second.question is not None and second.question.text == "Second?"
    assert second.next_question is not None and second.next_question.text == "Third?"
    # Another replica, which never held v1 in memory, reads it from the library.
    other = await replica(await open_storage(), quiz_dir)
    third = await other.answer_by_position(ANNA, attempt_id, 3, 2)  # "c": right in v1
    assert third.outcome is AnswerOutcome.ACCEPTED and third.correct
    assert third.result is not None and (third.result.correct, third.result.total) == (3, 3)
    assert third.result.quiz_title == "Library quiz"

    # A new attempt plays v2.
    fresh = await engine.start(BORIS, "library-quiz")
    assert fresh.question is not None and fresh.question.quiz_version == 2
    assert fresh.question.text == "First, edited?" and fresh.question.total == 2
    regraded = await engine.answer_by_position(BORIS, fresh.question.attempt_id, 1, 0)
    assert not regraded.correct  # "a" is wrong in v2
    attempts = await storage.attempts_for_quiz("library-quiz")
    assert [(a.user_id, a.quiz_version) for a in attempts] == [("anna", 1), ("boris", 2)]


async def test_resuming_an_attempt_keeps_its_version(any_storage: Storage, quiz_dir: Path):
    engine = await replica(any_storage, quiz_dir)
    started = await engine.start(ANNA, "library-quiz")
    assert started.question is not None
    write_quiz(quiz_dir, EDITED)
    await engine.library.publish_quiz_dir()
    resumed = await engine.start(ANNA, "library-quiz")
    assert resumed.outcome is StartOutcome.RESUMED
    assert resumed.question is not None
    assert (resumed.question.quiz_version, resumed.question.text) == (1, "First?")
    assert resumed.question.total == 3


async def test_a_round_started_on_v1_reveals_and_ends_on_v1(any_storage: Storage, quiz_dir):
    engine = await replica(any_storage, quiz_dir)
    rounds = GroupRounds(engine, any_storage)
    start = await rounds.start("test", "room", ANNA, "library-quiz")
    assert start.question is not None
    round_id = start.question.round_id
    write_quiz(quiz_dir, EDITED)
    await engine.library.publish_quiz_dir()
    await rounds.answer(round_id, BORIS, 1, 1)
    assert await rounds.close(round_id, 1) is not None
    await rounds.answer(round_id, BORIS, 2, 1)
    reveal = await rounds.close(round_id, 2)  # q2: gone from v2, still in the round
    assert reveal is not None and reveal.question_text == "Second?"
    assert reveal.correct_option.id == "b"
    assert [c.count for c in reveal.counts if c.correct] == [1]
    last = await rounds.close(round_id, 3)
    assert last is not None and last.finished
    history = [
        a for a in await any_storage.attempts_for_quiz("library-quiz") if a.user_id == "boris"
    ]
    assert [(a.kind, a.quiz_version) for a in history] == [(AttemptKind.ROUND, 1)]


async def test_a_replica_serves_what_another_published_within_its_poll(
    open_storage: OpenStorage, quiz_dir: Path, tmp_path: Path
) -> None:
    first = await replica(await open_storage(), quiz_dir)
    # The second replica runs an older checkout: its QUIZ_DIR never rolls the quiz back.
    old_checkout = tmp_path / "old-checkout"
    write_quiz(old_checkout, FIRST)
    second = await replica(await open_storage(), old_checkout)
    watching = asyncio.create_task(second.library.watch(interval=0.01))
    try:
        write_quiz(quiz_dir, EDITED)
        await first.library.publish_quiz_dir()
        for _ in range(1000):  # the watch's polls, ten seconds at most
            served = second.catalog.get("library-quiz")
            if served is not None and served.version == 2:
                break
            await asyncio.sleep(0.01)
    finally:
        watching.cancel()
    assert served is not None and [q.id for q in served.questions] == ["q1", "q3-new"]
    again = await second.library.publish_quiz_dir()  # /reload on the older checkout
    assert not again.publications[0].new
    assert second.catalog.get("library-quiz") is served  # still version 2


async def test_a_broken_file_never_replaces_the_live_version(any_storage: Storage, quiz_dir):
    engine = await replica(any_storage, quiz_dir)
    write_quiz(quiz_dir, FIRST.replace("correct: b", "correct: z"))
    report = await engine.library.publish_quiz_dir()
    assert report.load.errors and not report.publications
    assert "correct option" in str(report.load.errors[0])
    served = engine.catalog.get("library-quiz")
    assert served is not None and served.version == 1
    restarted = await replica(any_storage, quiz_dir)  # a restart with the broken file
    assert restarted.catalog.get("library-quiz") is not None


async def test_unpublishing_hides_a_quiz_while_attempts_in_progress_finish(
    open_storage: OpenStorage, quiz_dir: Path
) -> None:
    engine = await replica(await open_storage(), quiz_dir)
    started = await engine.start(ANNA, "library-quiz")
    assert started.question is not None
    assert await engine.library.unpublish("library-quiz")
    assert not await engine.library.unpublish("library-quiz")
    assert engine.catalog.get("library-quiz") is None and engine.quizzes("en") == []
    refused = await engine.start(BORIS, "library-quiz")
    assert refused.outcome is StartOutcome.NO_QUIZZES
    answered = await engine.answer_by_position(ANNA, started.question.attempt_id, 1, 0)
    assert answered.outcome is AnswerOutcome.ACCEPTED and answered.next_question is not None
    # A restart does not bring it back from QUIZ_DIR, nor does another replica serve it.
    other = await replica(await open_storage(), quiz_dir)
    assert other.catalog.get("library-quiz") is None
    assert await other.library.listing() == []


async def test_a_catalog_made_from_files_keeps_serving_until_the_first_publish(
    any_storage: Storage, quiz_dir: Path
) -> None:
    catalog, _ = QuizCatalog.from_paths([quiz_dir])
    library = QuizLibrary(catalog, any_storage)
    assert not await library.refresh()  # an empty library does not empty the catalog
    assert catalog.get("library-quiz") is not None
    write_quiz(quiz_dir, EDITED.replace("correct: b", "correct: z"))  # broken
    await library.publish_quiz_dir()
    kept = catalog.get("library-quiz")  # adopted: the broken edit keeps the one served
    assert kept is not None and [q.id for q in kept.questions] == ["q1", "q2", "q3"]


async def test_stats_and_exports_say_which_version_an_answer_belongs_to(
    any_storage: Storage, quiz_dir: Path
) -> None:
    from quizbot.cli import render_export

    engine = await replica(any_storage, quiz_dir)
    first = await engine.start(ANNA, "library-quiz")
    assert first.question is not None
    await engine.answer_by_position(ANNA, first.question.attempt_id, 1, 1)  # "b": wrong in v1
    write_quiz(quiz_dir, EDITED)
    await engine.library.publish_quiz_dir()
    second = await engine.start(BORIS, "library-quiz")
    assert second.question is not None
    await engine.answer_by_position(BORIS, second.question.attempt_id, 1, 1)  # "b": right in v2
    current, older = await engine.stats("library-quiz")
    assert (current.version, current.attempts, current.total_questions) == (2, 1, 2)
    assert (older.version, older.attempts, older.total_questions) == (1, 1, 3)
    assert current.questions[0].correct == 1 and older.questions[0].correct == 0
    assert [q.text for q in older.questions] == ["First?", "Second?", "Third?"]
    attempts, answers = await engine.export("library-quiz")
    rows = render_export(attempts, answers, "csv").splitlines()
    assert rows[0].endswith(",kind,quiz_version")
    assert [row.rsplit(",", 1)[1] for row in rows[1:]] == ["1", "2"]
