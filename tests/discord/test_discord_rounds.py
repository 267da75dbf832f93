"""Group rounds in a server channel, on a virtual clock: many members, timeouts, restarts."""

from __future__ import annotations

import asyncio
import itertools
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml

from adapters.discord import QuizClient
from adapters.discord.group_rounds import ROUND_MESSAGE_SCOPE, DiscordRoundDriver, RoundTiming
from adapters.discord.texts import text
from bot.catalog import QuizCatalog
from bot.engine import QuizEngine
from bot.i18n import t
from bot.quiz import Quiz
from bot.storage import RoundStatus, SQLiteStorage, StorageError
from bot.text_direction import LRI, PDI, RLM
from bot.views import progress_bar
from fakes.discord_api import CHANNEL_MESSAGE, FakeDiscord, Message
from fakes.discord_users import (
    GUILD_CHANNEL_ID,
    MANAGE_MESSAGES,
    MEMBER_PERMISSIONS,
    ClientFactory,
    Player,
    World,
    button_for,
    buttons,
    field_values,
    pick_letter,
    squash,
    text_of,
    visible,
)
from tests.conftest import SEED_QUIZ, services_beside
from tests.discord.discord_harness import VirtualClock, close_process
from tests.discord.test_discord_rendering import long_quiz, texts

TIMING = RoundTiming(pause=3.0, edit_interval=5.0, retry=5.0)
SECONDS = 30


def driver(world: World) -> DiscordRoundDriver:
    """The round driver of the world's quiz client."""
    assert isinstance(world.client, QuizClient)
    return world.client.round_driver


@pytest.fixture
def clock() -> VirtualClock:
    return VirtualClock()


@pytest.fixture
def engine(catalog: QuizCatalog, storage: SQLiteStorage, clock: VirtualClock) -> QuizEngine:
    return QuizEngine(catalog, storage, clock=clock)


@pytest.fixture
async def world(
    fake_discord: FakeDiscord, engine: QuizEngine, make_client: ClientFactory, clock: VirtualClock
) -> World:
    fake_discord.stamp = clock  # requests carry the virtual time they arrived at
    client = await make_client(engine, clock=clock, round_timing=TIMING)
    return World(fake_discord, client)


def channel(world: World) -> list[Message]:
    """The server channel's public messages, oldest first."""
    return world.fake.channel_messages(GUILD_CHANNEL_ID)


def round_buttons(message: Message) -> list[dict[str, object]]:
    return [b for b in buttons(message) if str(b["custom_id"]).startswith("qz1:r:")]


def open_question(world: World) -> Message:
    """The round question members can answer now."""
    found = [m for m in channel(world) if any(not b["disabled"] for b in round_buttons(m))]
    assert len(found) == 1, [text_of(m)[:80] for m in found]
    return found[0]


def posted_after(world: World, message: Message) -> list[Message]:
    return [m for m in channel(world) if m.id > message.id]


async def start_round(world: World, host: Player, **options: str | int) -> Message:
    """``/round`` by ``host``; the first question, once posted."""
    started = await host.command("round", quiz=SEED_QUIZ, seconds=SECONDS, **options)
    assert started.response_type == CHANNEL_MESSAGE
    announcement = started.last
    assert not announcement.ephemeral  # the channel sees that a round started
    await world.settle()
    question = open_question(world)
    assert question.id > announcement.id and question.interaction_id is None
    return question


async def press(player: Player, message: Message, letter: str) -> str:
    exchange = await player.press_letter(message, letter)
    delay = exchange.interaction.delay
    assert delay is not None and delay < 3.0
    return exchange.notice


async def test_fifty_members_answer_and_the_reveal_counts_them(
    world: World, clock: VirtualClock, quiz: Quiz
) -> None:
    host = world.user("Host")
    question = await start_round(world, host)
    shown = text_of(question)
    assert visible(t("question_progress", "en", number=1, total=8)) in shown
    assert "Answers: 0" in shown and "⏳ Closes <t:" in shown
    assert not any(b["disabled"] for b in round_buttons(question))
    right = pick_letter(quiz, question, "en", correct=True)
    wrong = pick_letter(quiz, question, "en", correct=False)
    members = [world.user(f"Member {n:02d}") for n in range(50)]
    exchange = await world.feed(
        *(
            m.press_payload(question, button_for(question, right if n < 30 else wrong)["custom_id"])
            for n, m in enumerate(members)
        )
    )
    # Every press answered at once, privately, by the engine's notice.
    for interaction in exchange.interactions:
        assert interaction.response_type == CHANNEL_MESSAGE
        assert interaction.delay is not None and interaction.delay < 3.0
    notes = [m for m in exchange.new_messages if m.ephemeral]
    assert len(notes) == 50
    assert {visible(m.content) for m in notes} == {visible(t("round_answer_taken", "en"))}
    await world.settle()
    assert world.fake.channel_edits(question.id) == []  # the count waits for the interval
    await world.advance(clock, 5)
    assert len(world.fake.channel_edits(question.id)) == 1  # 50 answers, one edit
    assert "Answers: 50" in text_of(world.fake.messages[question.id])
    await world.advance(clock, SECONDS - 5)  # time is up
    closed = world.fake.messages[question.id]
    assert "Answers: 50" in text_of(closed) and visible(t("round_closed", "en")) in text_of(closed)
    assert round_buttons(closed) and all(b["disabled"] for b in round_buttons(closed))
    assert [b["style"] for b in round_buttons(closed)].count(3) == 1  # the right one, green
    assert button_for(closed, right)["style"] == 3
    (reveal,) = posted_after(world, question)
    shown = text_of(reveal)
    assert visible(t("correct_answer", "en", answer=right)) in shown
    assert f"{progress_bar(30, 50, width=10)} 30" in shown
    assert f"{progress_bar(20, 50, width=10)} 20" in shown
    assert shown.count(f"{progress_bar(0, 50, width=10)} 0") == 2
    explanation = quiz.questions[0].explanation.get("en")
    assert visible(explanation[:60]) in shown
    # The scoreboard: the 30 right answers (ties by name), top ten shown.
    assert "🥇 Member 00 — 1/1" in shown and "🥉 Member 02 — 1/1" in shown
    assert "10. Member 09 — 1/1" in shown and "Member 10" not in shown
    assert visible(t("round_more", "en", count=40)) in shown
    # After the pause, the next question, below the reveal.
    await world.advance(clock, TIMING.pause - 1)
    assert posted_after(world, question) == [reveal]
    await world.advance(clock, 1)
    second = open_question(world)
    assert second.id > reveal.id
    assert visible(t("question_progress", "en", number=2, total=8)) in text_of(second)


async def test_a_second_answer_is_not_counted(
    world: World, clock: VirtualClock, quiz: Quiz
) -> None:
    question = await start_round(world, world.user("Host"))
    ana = world.user("Ana", "ru")
    right = pick_letter(quiz, question, "en", correct=True)
    wrong = pick_letter(quiz, question, "en", correct=False)
    assert await press(ana, question, wrong) == visible(t("round_answer_taken", "ru"))
    assert await press(ana, question, right) == visible(t("round_first_counts", "ru"))
    assert await press(ana, question, wrong) == visible(t("round_first_counts", "ru"))
    await world.advance(clock, SECONDS)
    (reveal,) = posted_after(world, question)
    shown = text_of(reveal)
    assert f"{progress_bar(1, 1, width=10)} 1" in shown  # her first answer, once
    assert f"{progress_bar(0, 1, width=10)} 0" in shown.split("✅")[1]  # not the right one
    assert "🥇 Ana — 0/1" in shown


async def test_time_up_closes_the_question_and_late_presses_are_refused(
    world: World, clock: VirtualClock, quiz: Quiz
) -> None:
    question = await start_round(world, world.user("Host"))
    await world.advance(clock, SECONDS - 1)
    assert posted_after(world, question) == []  # not yet
    late = world.user("Late")
    await world.advance(clock, 1)
    (reveal,) = posted_after(world, question)
    assert visible(text("round_no_answers", "en")) in text_of(reveal)
    # A press from a client that still shows the open question.
    assert await press(late, question, "A") == visible(t("round_closed", "en"))
    assert "Answers: 0" in text_of(world.fake.messages[question.id])


async def test_the_count_is_edited_at_most_every_interval_and_only_when_it_changed(
    world: World, clock: VirtualClock, quiz: Quiz
) -> None:
    question = await start_round(world, world.user("Host"))
    posted_at = clock.now
    for number in range(6):
        await press(world.user(f"P{number}"), question, "A")
        await world.advance(clock, 2)  # an answer every 2 seconds, for 12 seconds
    await world.advance(clock, 10)  # then quiet: nothing new to show
    edits = world.fake.channel_edits(question.id)
    # Answers at 0, 2, 4 s: one edit at 6 s (the first tick after 5 s) showing 3; answers at
    # 6, 8, 10 s: one edit at 12 s showing 6; then nothing changed, so nothing is edited.
    stamps = [posted_at] + [e.stamp for e in edits]
    assert [(s - posted_at).total_seconds() for s in stamps] == [0, 6, 12]
    interval = timedelta(seconds=TIMING.edit_interval)
    assert all(b - a >= interval for a, b in itertools.pairwise(stamps))
    counts = [e.body["embeds"][-1]["fields"][-1]["name"] for e in edits]
    assert counts == ["Answers: 3", "Answers: 6"]


async def test_a_question_closes_early_once_everyone_answered(
    world: World, clock: VirtualClock, quiz: Quiz
) -> None:
    question = await start_round(world, world.user("Host"))
    players = [world.user(name) for name in ("Ana", "Ben", "Cy")]
    for player in players:
        await press(player, question, "A")
    await world.settle()
    assert posted_after(world, question) == []  # question 1 waits for latecomers
    await world.advance(clock, SECONDS)
    await world.advance(clock, TIMING.pause)
    second = open_question(world)
    for player in players[:2]:
        await press(player, second, "B")
    await world.settle()
    assert posted_after(world, second) == []
    await press(players[2], second, "B")  # the last of the three
    await world.settle()
    (reveal,) = posted_after(world, second)
    closed = text_of(world.fake.messages[second.id])
    assert "Answers: 3" in closed and visible(text("round_everyone_answered", "en")) in closed
    assert visible(t("question_progress", "en", number=2, total=8)) in text_of(reveal)


async def test_a_whole_round_ends_with_the_ranking_and_counts_on_the_leaderboard(
    world: World, clock: VirtualClock, quiz: Quiz
) -> None:
    host = world.user("Host", "ru")
    question = await start_round(world, host)
    ana, ben = world.user("Ana"), world.user("Ben")
    for number in range(1, 9):
        if number > 1:
            question = open_question(world)
        right = pick_letter(quiz, question, "ru", correct=True)
        wrong = pick_letter(quiz, question, "ru", correct=False)
        await press(ana, question, right)
        await press(ben, question, right if number % 2 else wrong)
        if number == 1:
            await world.advance(clock, SECONDS)
        await world.advance(clock, TIMING.pause)
    ending = channel(world)[-1]
    shown = text_of(ending)
    title = quiz.title.get("ru")
    assert visible(t("round_finished", "ru", title=title)) in shown
    assert "🥇 Ana — 8/8" in shown and "🥈 Ben — 4/8" in shown
    assert not any(not b["disabled"] for m in channel(world) for b in round_buttons(m))
    assert await driver(world).store.get_value(ROUND_MESSAGE_SCOPE, "1") is None
    # Everyone's history has it, and the channel's leaderboard too (in Ben's language).
    board = await ben.command("leaderboard", quiz=SEED_QUIZ)
    assert not board.last.ephemeral
    fields = {f["name"]: f["value"] for f in board.last.embeds[0]["fields"]}
    here, everyone = text("leaderboard_here", "en"), text("leaderboard_everyone", "en")
    assert set(fields) == {here, everyone}
    assert "🥇 Ana — 8/8" in visible(fields[here])
    assert "🥈 Ben — 4/8" in visible(fields[everyone])
    dm = await world.user("Dee", dm=True).command("leaderboard")
    names = [f["name"] for e in dm.last.embeds for f in e["fields"]]
    assert names == [everyone]  # a DM has no channel board; only quizzes anyone completed
    progress = await ben.command("progress")
    assert "1 attempt, best 4/8, last 4/8" in text_of(progress.last)


async def test_the_starter_or_a_moderator_stops_a_round(
    world: World, clock: VirtualClock, quiz: Quiz
) -> None:
    host = world.user("Host")
    question = await start_round(world, host)
    ana = world.user("Ana")
    await press(ana, question, pick_letter(quiz, question, "en", correct=True))
    refused = await world.user("Bob").command("stop")
    assert refused.notice == visible(t("round_not_starter", "en"))
    # Someone with a quiz of their own going: /stop is about that quiz.
    cy = world.user("Cy")
    await cy.command("quiz", quiz=SEED_QUIZ)
    own = await cy.command("stop")
    assert visible(own.last.content) == visible(t("stopped", "en", title=quiz.title.get("en")))
    mod = world.user("Mod", permissions=MEMBER_PERMISSIONS | MANAGE_MESSAGES)
    stopped = await mod.command("stop")
    assert stopped.response_type == CHANNEL_MESSAGE and not stopped.last.ephemeral
    shown = text_of(stopped.last)
    assert visible(t("round_stopped", "en", title=quiz.title.get("en"))) in shown
    assert "🥇 Ana — 1/8" in shown
    await world.settle()
    closed = world.fake.messages[question.id]
    assert round_buttons(closed) and all(b["disabled"] for b in round_buttons(closed))
    assert visible(t("round_stopped", "en", title=quiz.title.get("en"))) in text_of(closed)
    before = len(world.fake.messages)
    await world.advance(clock, 10 * SECONDS)  # no timer is left
    assert len(world.fake.messages) == before
    none = await host.command("stop")
    assert visible(none.last.content) == visible(t("nothing_to_stop", "en"))
    again = await start_round(world, host)  # the channel is free again
    assert again.id > question.id


async def test_the_starter_stops_their_own_round(world: World, clock: VirtualClock) -> None:
    host = world.user("Host")
    await start_round(world, host)
    stopped = await host.command("stop")
    assert visible(text("round_no_answers", "en")) in text_of(stopped.last)
    round_ = await driver(world).store.get_round(1)
    assert round_ is not None and round_.status is RoundStatus.STOPPED


async def test_a_round_continues_after_a_restart(
    fake_discord: FakeDiscord,
    catalog: QuizCatalog,
    storage: SQLiteStorage,
    db_path: Path,
    make_client: ClientFactory,
    clock: VirtualClock,
    quiz: Quiz,
) -> None:
    world = World(
        fake_discord,
        await make_client(
            QuizEngine(catalog, storage, clock=clock), clock=clock, round_timing=TIMING
        ),
    )
    question = await start_round(world, world.user("Host"))
    right = pick_letter(quiz, question, "en", correct=True)
    ana, ben = world.user("Ana"), world.user("Ben")
    await press(ana, question, right)
    await world.advance(clock, 10)
    assert "Answers: 1" in text_of(fake_discord.messages[question.id])
    # The process ends mid-question; a new one starts on the same database.
    assert world.client is not None
    await close_process(world.client)
    await storage.close()
    reopened = SQLiteStorage(db_path)
    await reopened.open()
    try:
        engine = QuizEngine(catalog, reopened, clock=clock)
        world.client = await make_client(engine, clock=clock, round_timing=TIMING)
        await world.settle()
        assert open_question(world).id == question.id  # not posted again
        await press(ben, question, right)
        await world.advance(clock, 5)
        assert "Answers: 2" in text_of(fake_discord.messages[question.id])
        await world.advance(clock, SECONDS - 15)
        (reveal,) = posted_after(world, question)
        assert f"{progress_bar(2, 2, width=10)} 2" in text_of(reveal)  # both answers count
        await world.advance(clock, TIMING.pause)
        assert visible(t("question_progress", "en", number=2, total=8)) in text_of(
            open_question(world)
        )
    finally:
        await close_process(world.client)
        await reopened.close()


async def test_a_question_that_ran_out_while_down_is_revealed_at_start(
    fake_discord: FakeDiscord,
    engine: QuizEngine,
    make_client: ClientFactory,
    clock: VirtualClock,
    quiz: Quiz,
) -> None:
    world = World(fake_discord, await make_client(engine, clock=clock, round_timing=TIMING))
    question = await start_round(world, world.user("Host"))
    await press(world.user("Ana"), question, "A")
    assert world.client is not None
    await close_process(world.client)
    clock.advance(5 * SECONDS)  # down for a while
    assert [rid for rid, _ in await services_beside(engine).rounds.due()] == [1]
    world.client = await make_client(engine, clock=clock, round_timing=TIMING)
    await world.settle()
    assert await services_beside(engine).rounds.due() == []
    (reveal,) = posted_after(world, question)
    assert "Answers: 1" in text_of(fake_discord.messages[question.id])
    assert all(b["disabled"] for b in round_buttons(fake_discord.messages[question.id]))
    assert visible(t("question_progress", "en", number=1, total=8)) in text_of(reveal)
    await world.advance(clock, TIMING.pause)
    assert open_question(world).id > reveal.id


async def test_round_picker_starts_a_round_of_the_chosen_quiz(
    world: World, clock: VirtualClock, catalog: QuizCatalog
) -> None:
    host = world.user("Host")
    unknown = await world.user("Ben").command("round", quiz="knitting")
    assert 'There is no quiz "knitting"' in text_of(unknown.last) and unknown.last.ephemeral
    assert {b["custom_id"] for b in buttons(unknown.last)} == {
        f"qz1:g:{q.id}" for q in catalog.all()
    }
    picker = await host.command("round")
    assert picker.last.ephemeral
    assert visible(text("round_choose", "en")) in text_of(picker.last)
    picks = {b["custom_id"] for b in buttons(picker.last)}
    assert picks == {f"qz1:g:{q.id}" for q in catalog.all()}
    started = await host.press(picker.last, f"qz1:g:{SEED_QUIZ}")
    assert started.response_type == CHANNEL_MESSAGE and not started.last.ephemeral
    await world.settle()
    assert visible(t("question_progress", "en", number=1, total=8)) in text_of(open_question(world))
    running = await world.user("Ana").command("round", quiz=SEED_QUIZ)
    assert running.notice == visible(t("round_running", "en"))


async def test_seconds_choose_the_time_per_question(world: World, clock: VirtualClock) -> None:
    host = world.user("Host")
    await host.command("round", quiz=SEED_QUIZ, seconds=10)
    await world.settle()
    question = open_question(world)
    await world.advance(clock, 10)
    assert len(posted_after(world, question)) == 1


async def test_rounds_need_a_server_channel_and_permission_to_post(
    world: World, clock: VirtualClock
) -> None:
    dm = await world.user("Dee", dm=True).command("round", quiz=SEED_QUIZ)
    assert dm.notice == visible(text("round_server_only", "en"))
    world.app_permissions = MEMBER_PERMISSIONS & ~(1 << 14)  # no Embed Links
    refused = await world.user("Host", "ru").command("round", quiz=SEED_QUIZ)
    assert refused.notice == visible(text("round_no_permission", "ru"))
    assert channel(world) == []
    assert await driver(world).store.active_round("discord", str(GUILD_CHANNEL_ID)) is None


async def test_a_round_that_may_no_longer_post_is_ended(
    world: World, storage: SQLiteStorage, clock: VirtualClock, quiz: Quiz
) -> None:
    question = await start_round(world, world.user("Host"))
    world.fake.forbidden_channels.add(GUILD_CHANNEL_ID)  # permissions taken away
    await world.advance(clock, SECONDS)
    round_ = await storage.get_round(1)
    assert round_ is not None and round_.status is not RoundStatus.ACTIVE
    assert posted_after(world, question) == []
    assert not driver(world).running(1)


async def test_a_deleted_question_does_not_stop_the_round(
    world: World, clock: VirtualClock, quiz: Quiz
) -> None:
    question = await start_round(world, world.user("Host"))
    await press(world.user("Ana"), question, "A")
    world.fake.delete_message(question.id)
    await world.advance(clock, SECONDS)
    (reveal,) = posted_after(world, question)
    assert visible(t("question_progress", "en", number=1, total=8)) in text_of(reveal)
    await world.advance(clock, TIMING.pause)
    assert open_question(world).id > reveal.id


async def test_a_round_in_russian_for_a_russian_starter(
    world: World, clock: VirtualClock, quiz: Quiz
) -> None:
    question = await start_round(world, world.user("Иван", "ru"))
    shown = text_of(question)
    assert visible(quiz.questions[0].text.get("ru")) in shown
    assert "Ответов: 0" in shown and "⏳ Закроется <t:" in shown
    await world.advance(clock, SECONDS)
    assert "Правильный ответ" in text_of(posted_after(world, question)[0])


async def test_a_long_quiz_in_urdu_stays_within_the_limits(
    fake_discord: FakeDiscord,
    tmp_path: Path,
    storage: SQLiteStorage,
    make_client: ClientFactory,
    clock: VirtualClock,
) -> None:
    directory = tmp_path / "long"
    directory.mkdir()
    (directory / "long.yaml").write_text(
        yaml.safe_dump(long_quiz(), allow_unicode=True), encoding="utf-8"
    )
    catalog, report = QuizCatalog.from_paths([directory])
    assert not report.errors
    engine = QuizEngine(catalog, storage, clock=clock)
    world = World(fake_discord, await make_client(engine, clock=clock, round_timing=TIMING))
    host = world.user("Ali")
    await host.command("language", language="ur")
    await host.command("round", quiz="long", seconds=SECONDS)
    await world.settle()
    pages = channel(world)[1:]  # after the announcement
    assert len(pages) > 1  # too long for one message
    question = open_question(world)
    assert question is pages[-1]  # the buttons and the status come last
    assert len(round_buttons(question)) == 10 and len(question.components) == 5
    loaded = catalog.get("long")
    assert loaded is not None
    giant = loaded.question("giant")
    assert giant is not None
    assert squash(giant.text.get("ur")) in squash("".join(text_of(m) for m in pages))
    await press(world.user("Bea"), question, "A")
    await world.advance(clock, SECONDS)
    reveal = posted_after(world, question)
    assert len(reveal) > 1
    assert squash(giant.explanation.get("ur")) in squash(field_values(*reveal))
    assert all(b["disabled"] for b in round_buttons(fake_discord.messages[question.id]))
    for message in [*pages, fake_discord.messages[question.id], *reveal]:
        for piece in texts(message):  # every piece reads right to left, isolates balanced
            assert piece.startswith(RLM), piece[:40]
            assert piece.count(LRI) == piece.count(PDI), piece[:40]


class FlakyRounds(SQLiteStorage):
    """A database that fails to move rounds on while ``failures`` lasts."""

    failures = 0

    async def close_round_question(self, *args: Any, **kwargs: Any) -> Any:
        if self.failures:
            self.failures -= 1
            raise StorageError("database is locked")
        return await super().close_round_question(*args, **kwargs)


async def test_a_round_carries_on_after_a_database_failure(
    fake_discord: FakeDiscord,
    catalog: QuizCatalog,
    tmp_path: Path,
    make_client: ClientFactory,
    clock: VirtualClock,
) -> None:
    flaky = FlakyRounds(tmp_path / "flaky.db")
    await flaky.open()
    try:
        engine = QuizEngine(catalog, flaky, clock=clock)
        client = await make_client(engine, clock=clock, round_timing=TIMING)
        world = World(fake_discord, client)
        question = await start_round(world, world.user("Host"))
        await press(world.user("Ana"), question, "A")
        flaky.failures = 1
        await world.advance(clock, SECONDS)  # the reveal fails: logged, retried later
        assert posted_after(world, question) == []
        await world.advance(clock, TIMING.retry)
        (reveal,) = posted_after(world, question)
        assert "Answers: 1" in text_of(fake_discord.messages[question.id])
        await world.advance(clock, TIMING.pause)
        assert open_question(world).id > reveal.id
    finally:
        await flaky.close()


class DiesBeforeRecordingTheQuestion(SQLiteStorage):
    """Stops for good (as a process killed at that moment) when the round driver records
    which message shows the open question, right after Discord created it."""

    stuck = False

    async def set_value(self, scope: str, key: str, value: str | None) -> None:
        if scope == ROUND_MESSAGE_SCOPE and value is not None:
            self.stuck = True
            await asyncio.Event().wait()
        await super().set_value(scope, key, value)


async def test_a_question_posted_by_a_process_that_died_before_recording_it_shows_once(
    fake_discord: FakeDiscord,
    catalog: QuizCatalog,
    db_path: Path,
    make_client: ClientFactory,
    clock: VirtualClock,
) -> None:
    dying = DiesBeforeRecordingTheQuestion(db_path)
    await dying.open()
    world = World(
        fake_discord,
        await make_client(
            QuizEngine(catalog, dying, clock=clock), clock=clock, round_timing=TIMING
        ),
    )
    await world.user("Host").command("round", quiz=SEED_QUIZ, seconds=SECONDS)
    for _ in range(2000):  # until Discord created the question and the process "died"
        if dying.stuck:
            break
        await asyncio.sleep(0.005)
    assert dying.stuck
    (posted,) = [m for m in channel(world) if round_buttons(m)]
    assert world.client is not None
    await close_process(world.client)
    await dying.close()
    # The next process finds no record of that message and posts the question again.
    restarted = SQLiteStorage(db_path)
    await restarted.open()
    try:
        world.client = await make_client(
            QuizEngine(catalog, restarted, clock=clock), clock=clock, round_timing=TIMING
        )
        await world.settle()
        assert open_question(world).id == posted.id  # Discord returned it: shown once
        assert [m.id for m in channel(world) if round_buttons(m)] == [posted.id]
        await press(world.user("Ana"), posted, "A")
        await world.advance(clock, SECONDS)
        assert "Answers: 1" in text_of(fake_discord.messages[posted.id])
    finally:
        await close_process(world.client)
        await restarted.close()
