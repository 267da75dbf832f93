"""The quiz library's storage contract (bot/storage/library.py) on SQLite and PostgreSQL:
versions numbered per quiz, a republished identical content is no new version, hiding, the
revision replicas poll, and the version attempts and rounds pin."""

from __future__ import annotations

import asyncio
import dataclasses
from datetime import UTC, datetime

from bot.storage import NewAttempt, NewQuizVersion, Storage, VersionSource
from tests.conftest import OpenStorage

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def version_of(quiz_id: str, content: str, source: VersionSource = VersionSource.FILE):
    return NewQuizVersion(
        quiz_id=quiz_id,
        content=content,
        content_hash=f"hash-of-{content}",
        question_count=len(content),
        source=source,
        published_by=None if source is VersionSource.FILE else "telegram:7",
        published_at=T0,
    )


async def test_versions_are_numbered_per_quiz_and_identical_content_is_not_a_new_one(
    any_storage: Storage,
) -> None:
    first, created = await any_storage.publish_quiz_version(version_of("a", "one"), explicit=False)
    assert (first.version, created) == (1, True)
    again, created = await any_storage.publish_quiz_version(version_of("a", "one"), explicit=False)
    assert (again.version, created) == (1, False)
    second, created = await any_storage.publish_quiz_version(
        version_of("a", "two", VersionSource.UPLOAD), explicit=False
    )
    assert (second.version, created) == (2, True)
    other, _ = await any_storage.publish_quiz_version(version_of("b", "x"), explicit=False)
    assert other.version == 1
    current = await any_storage.current_quiz_versions()
    assert [(v.quiz_id, v.version, v.content) for v in current] == [("a", 2, "two"), ("b", 1, "x")]
    assert current[0].source is VersionSource.UPLOAD
    assert current[0].published_by == "telegram:7"
    assert current[0].published_at == T0
    old = await any_storage.quiz_version("a", 1)
    assert old is not None and old.content == "one" and old.source is VersionSource.FILE
    assert await any_storage.quiz_version("a", 3) is None


async def test_quiz_dir_never_rolls_back_while_an_explicit_publish_may(any_storage: Storage):
    for content in ("one", "two", "one"):  # a replica with an older checkout starts
        await any_storage.publish_quiz_version(version_of("a", content), explicit=False)
    [current] = await any_storage.current_quiz_versions()
    assert (current.version, current.content) == (2, "two")
    back, created = await any_storage.publish_quiz_version(version_of("a", "one"), explicit=True)
    assert created and (back.version, back.content) == (3, "one")


async def test_unpublishing_hides_a_quiz_until_it_is_published_again(any_storage: Storage):
    await any_storage.publish_quiz_version(version_of("a", "one"), explicit=False)
    assert await any_storage.unpublish_quiz("a")
    assert not await any_storage.unpublish_quiz("a")  # hidden already
    assert not await any_storage.unpublish_quiz("nope")
    [hidden] = await any_storage.current_quiz_versions()
    assert hidden.hidden
    # The same content again from QUIZ_DIR (not explicit) leaves it hidden ...
    same, created = await any_storage.publish_quiz_version(version_of("a", "one"), explicit=False)
    assert same.hidden and not created
    # ... an explicit publish of it shows it again, and new content always does.
    shown, created = await any_storage.publish_quiz_version(version_of("a", "one"), explicit=True)
    assert not shown.hidden and not created and shown.version == 1
    await any_storage.unpublish_quiz("a")
    newer, created = await any_storage.publish_quiz_version(version_of("a", "two"), explicit=False)
    assert created and not newer.hidden and newer.version == 2
    old = await any_storage.quiz_version("a", 1)  # still readable, for attempts pinned to it
    assert old is not None and old.content == "one"


async def test_every_change_moves_the_revision_and_nothing_else_does(any_storage: Storage):
    start = await any_storage.library_revision()
    await any_storage.publish_quiz_version(version_of("a", "one"), explicit=False)
    after_publish = await any_storage.library_revision()
    assert after_publish != start
    await any_storage.publish_quiz_version(version_of("a", "one"), explicit=False)
    assert await any_storage.library_revision() == after_publish  # nothing new
    await any_storage.unpublish_quiz("a")
    after_hide = await any_storage.library_revision()
    assert after_hide != after_publish
    await any_storage.unpublish_quiz("a")
    assert await any_storage.library_revision() == after_hide


async def test_replicas_publishing_at_once_get_distinct_versions(open_storage: OpenStorage):
    one, two = await open_storage(), await open_storage()
    results = await asyncio.gather(
        *(
            store.publish_quiz_version(version_of("a", f"content {n} of {i}"), explicit=False)
            for n in range(6)
            for i, store in enumerate((one, two))
        )
    )
    assert sorted(r.version for r, _ in results) == list(range(1, 13))
    [current] = await two.current_quiz_versions()
    assert current.version == 12


async def test_attempts_and_rounds_keep_the_version_they_started_on(any_storage: Storage):
    from tests.test_replicas import new_round

    new = NewAttempt("test", "u1", None, "q", ("q1",), {}, T0, quiz_version=4)
    attempt, _ = await any_storage.create_attempt(new)
    assert attempt.quiz_version == 4
    stored = await any_storage.get_attempt(attempt.id)
    assert stored is not None and stored.quiz_version == 4
    state = await any_storage.answer_state(attempt.id, "test", "u1")
    assert state.attempt is not None and state.attempt.quiz_version == 4
    round_id = await new_round(any_storage)
    round_ = await any_storage.get_round(round_id)
    assert round_ is not None and round_.quiz_version == 1  # new_round's default
    pinned = dataclasses.replace(new, user_id="u2", quiz_version=2)
    assert (await any_storage.create_attempt(pinned))[0].quiz_version == 2
