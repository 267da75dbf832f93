"""Presses that must change nothing, presses after a restart, and slow answers."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from adapters.discord.texts import text
from bot.catalog import QuizCatalog
from bot.engine import QuizEngine
from bot.i18n import t
from bot.quiz import Quiz
from bot.storage import SQLiteStorage, StorageError
from fakes.discord_api import (
    CHANNEL_MESSAGE,
    DEFERRED_CHANNEL_MESSAGE,
    DEFERRED_UPDATE_MESSAGE,
    UPDATE_MESSAGE,
    FakeDiscord,
)
from fakes.discord_users import (
    ClientFactory,
    World,
    button_for,
    buttons,
    field_values,
    find_question,
    pick_letter,
    squash,
    text_of,
    visible,
)
from tests.conftest import SEED_QUIZ
from tests.discord.discord_harness import SlowStorage, close_process


def unchanged(fake: FakeDiscord, message_id: int, edits: int) -> bool:
    return fake.messages[message_id].edits == edits


async def test_a_second_press_of_the_same_button_changes_nothing(world: World, quiz: Quiz) -> None:
    alice = world.user("Alice")
    message = (await alice.command("quiz", quiz=SEED_QUIZ)).last
    custom_id = button_for(message, pick_letter(quiz, message, "en", correct=True))["custom_id"]
    # Two presses delivered together (a double click): one answer, one notice.
    exchange = await world.feed(
        alice.press_payload(message, custom_id), alice.press_payload(message, custom_id)
    )
    kinds = sorted(i.response_type or 0 for i in exchange.interactions)
    assert kinds == [CHANNEL_MESSAGE, UPDATE_MESSAGE]
    questions = [m for m in exchange.new_messages if m.embeds]
    assert len(questions) == 1  # exactly one next question
    assert visible(t("question_progress", "en", number=2, total=8)) in text_of(questions[0])
    assert exchange.notice == visible(t("already_answered", "en"))
    assert world.fake.messages[message.id].edits == 1


async def test_a_stale_press_on_an_answered_question_says_so(world: World, quiz: Quiz) -> None:
    alice = world.user("Alice")
    message = (await alice.command("quiz", quiz=SEED_QUIZ)).last
    before = world.fake.messages[message.id]
    snapshot = copy.deepcopy(before)  # the message as the user's client still shows it
    right = pick_letter(quiz, message, "en", correct=True)
    wrong = pick_letter(quiz, message, "en", correct=False)
    await alice.press_letter(message, right)
    edits = world.fake.messages[message.id].edits
    messages = len(world.fake.messages)
    stale = await alice.press_letter(snapshot, wrong)
    assert stale.notice == visible(t("already_answered", "en"))
    assert unchanged(world.fake, message.id, edits)
    assert len(world.fake.messages) == messages + 1  # only the ephemeral notice
    progress = await alice.command("progress")
    assert "1/8" in text_of(progress.last)


async def test_a_press_on_a_stopped_quiz_says_it_is_closed(world: World, quiz: Quiz) -> None:
    alice = world.user("Alice")
    message = (await alice.command("quiz", quiz=SEED_QUIZ)).last
    stopped = await alice.command("stop")
    assert visible(t("stopped", "en", title=quiz.title.get("en"))) == visible(stopped.last.content)
    press = await alice.press_letter(message, "A")
    assert press.notice == visible(t("stale", "en"))
    assert unchanged(world.fake, message.id, 0)
    nothing = await alice.command("stop")
    assert visible(nothing.last.content) == visible(t("nothing_to_stop", "en"))


async def test_someone_elses_quiz_gets_start_your_own(world: World, quiz: Quiz) -> None:
    alice = world.user("Alice", dm=True)
    bob = world.user("Bob", "ru")
    message = (await alice.command("quiz", quiz=SEED_QUIZ)).last
    right = pick_letter(quiz, message, "en", correct=True)
    press = await bob.press_letter(message, right)
    # In Bob's language, naming the owner, with the command as Bob's client names it.
    assert press.notice == visible(t("not_yours", "ru", name="Alice")).replace("/quiz", "/тест")
    assert unchanged(world.fake, message.id, 0)
    mine = await alice.press_letter(message, right)  # Alice's answer is still open
    assert mine.response_type == UPDATE_MESSAGE


async def test_someone_elses_retry_button_is_refused(world: World, quiz: Quiz) -> None:
    alice = world.user("Alice", dm=True)
    bob = world.user("Bob")
    message = (await alice.command("quiz", quiz=SEED_QUIZ)).last
    for _ in range(8):
        message = (
            await alice.press_letter(message, pick_letter(quiz, message, "en", correct=True))
        ).last
    retry = next(b for b in buttons(message) if b["custom_id"].startswith("qz1:s:"))
    refused = await bob.press(message, retry["custom_id"])
    assert "start your own with /quiz" in refused.notice
    assert unchanged(world.fake, message.id, 0)


async def test_junk_presses_get_a_short_notice(world: World, quiz: Quiz) -> None:
    alice = world.user("Alice", dm=True)
    await alice.command("quiz", quiz=SEED_QUIZ)  # attempt 1 exists and is Alice's
    # Buttons of an older bot version, of a reset database, of a question number that the
    # attempt does not have, and garbage.
    junk_ids = ["hello", "qz0:a:1:1:0", "qz1:a:x:1:0", "qz1:a:999999:1:0", "qz1:a:1:99:0"]
    old = world.fake.old_message(alice.dm_channel_id, junk_ids, viewer=None)
    messages = len(world.fake.messages)
    for custom_id in junk_ids:
        junk = await alice.press(old, custom_id)
        assert junk.notice == visible(t("invalid_button", "en")), custom_id
    assert unchanged(world.fake, old.id, 0)
    assert len(world.fake.messages) == messages + len(junk_ids)


async def test_buttons_keep_working_after_a_restart(
    world: World,
    quiz: Quiz,
    catalog: QuizCatalog,
    storage: SQLiteStorage,
    db_path: Path,
    make_client: ClientFactory,
) -> None:
    alice = world.user("Alice", "ru")
    message = (await alice.command("quiz", quiz=SEED_QUIZ)).last
    message = (
        await alice.press_letter(message, pick_letter(quiz, message, "ru", correct=True))
    ).last
    # The process ends: client and database closed. A new one starts on the same database.
    assert world.client is not None
    await close_process(world.client)
    await storage.close()
    reopened = SQLiteStorage(db_path)
    await reopened.open()
    try:
        world.client = await make_client(QuizEngine(catalog, reopened))
        question = find_question(quiz, message, "ru")
        exchange = await alice.press_letter(message, pick_letter(quiz, message, "ru", correct=True))
        assert exchange.response_type == UPDATE_MESSAGE
        assert squash(question.explanation.get("ru")) in squash(
            field_values(world.fake.messages[message.id])
        )
        assert visible(t("question_progress", "ru", number=3, total=8)) in text_of(exchange.last)
        assert world.fake.command_syncs == ["global"]  # the restart did not sync again
    finally:
        assert world.client is not None
        await close_process(world.client)
        await reopened.close()


async def test_slow_work_is_deferred_within_the_window(
    fake_discord: FakeDiscord,
    quiz: Quiz,
    catalog: QuizCatalog,
    tmp_path: Path,
    make_client: ClientFactory,
) -> None:
    slow = SlowStorage(tmp_path / "slow.db")
    await slow.open()
    try:
        client = await make_client(QuizEngine(catalog, slow), defer_after=0.2)
        world = World(fake_discord, client)
        alice = world.user("Alice")
        started = await alice.command("quiz", quiz=SEED_QUIZ)
        # Acknowledged with "thinking…" in time, then the placeholder becomes the question.
        assert started.response_type == DEFERRED_CHANNEL_MESSAGE
        delay = started.interaction.delay
        assert delay is not None and 0.2 <= delay < 3.0
        message = started.last
        assert message.ephemeral and buttons(message)
        assert visible(quiz.questions[0].text.get("en")) in text_of(message)
        answered = await alice.press_letter(message, pick_letter(quiz, message, "en", correct=True))
        assert answered.response_type == DEFERRED_UPDATE_MESSAGE
        patches = [r for r in answered.requests if r.method == "PATCH"]
        assert len(patches) == 1 and patches[0].path.endswith("/messages/@original")
        edited = fake_discord.messages[message.id]
        assert buttons(edited) and all(b["disabled"] for b in buttons(edited))
        assert squash(quiz.questions[0].explanation.get("en")) in squash(field_values(edited))
        assert visible(t("question_progress", "en", number=2, total=8)) in text_of(answered.last)
        # A wrong second press of the answered question: deferred too, then a private notice.
        stale = await alice.press_letter(message, "A")
        assert stale.response_type in (CHANNEL_MESSAGE, DEFERRED_UPDATE_MESSAGE)
        assert stale.notice == visible(t("already_answered", "en"))
        assert fake_discord.messages[message.id].edits == edited.edits
    finally:
        await slow.close()


class FlakyStorage(SQLiteStorage):
    """A database that fails (after its own retries) while ``down`` is set."""

    down = False

    async def record_answer(self, *args: Any, **kwargs: Any) -> Any:
        if self.down:
            raise StorageError("database is locked")
        return await super().record_answer(*args, **kwargs)

    async def attempt_summaries(self, *args: Any, **kwargs: Any) -> Any:
        if self.down:
            raise StorageError("database is locked")
        return await super().attempt_summaries(*args, **kwargs)


async def test_database_failures_are_reported_and_can_be_retried(
    fake_discord: FakeDiscord,
    quiz: Quiz,
    catalog: QuizCatalog,
    tmp_path: Path,
    make_client: ClientFactory,
) -> None:
    flaky = FlakyStorage(tmp_path / "flaky.db")
    await flaky.open()
    try:
        world = World(fake_discord, await make_client(QuizEngine(catalog, flaky)))
        ivan = world.user("Ivan", "ru")
        message = (await ivan.command("quiz", quiz=SEED_QUIZ)).last
        letter = pick_letter(quiz, message, "ru", correct=True)
        flaky.down = True
        failed = await ivan.press_letter(message, letter)
        assert failed.notice == visible(t("try_again", "ru"))  # the engine's FAILED outcome
        assert unchanged(fake_discord, message.id, 0)
        broken = await ivan.command("progress")  # an error the engine does not handle
        assert broken.notice == visible(text("error", "ru"))
        flaky.down = False
        again = await ivan.press_letter(message, letter)
        assert again.response_type == UPDATE_MESSAGE
    finally:
        await flaky.close()
