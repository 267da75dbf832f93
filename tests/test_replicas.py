"""Several replicas on one database: round leases and the round outbox (the storage contract,
on SQLite and PostgreSQL), and three real ``quizbot run`` processes sharing group rounds."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import signal
import socket
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg
import pytest
import yaml

from adapters.telegram.callback_data import RoundAnswer, decode
from bot.i18n import t
from bot.storage import NewRound, OutboxKind, RoundStatus, SQLiteStorage, Storage, StorageError
from bot.storage.schema import migrations
from bot.storage.sqlite.writer import _statements
from fakes.telegram_bot_api import (
    TOKEN,
    ApiCall,
    FakeBotApi,
    StoredMessage,
)
from fakes.telegram_chatter import clean
from quizbot.settings import ConfigError, Settings
from tests.conftest import QUIZ_DIR, ROOT, postgres_url, reset_postgres

T0 = datetime(2026, 1, 1, tzinfo=UTC)
LEASE = timedelta(seconds=15)


async def new_round(storage: Storage, chat: str = "room", questions: int = 2) -> int:
    round_, created = await storage.create_round(
        NewRound(
            platform="chat",
            chat_id=chat,
            quiz_id="quiz",
            starter_id="host",
            language="en",
            question_order=tuple(f"q{n}" for n in range(1, questions + 1)),
            option_order={},
            time_limit_seconds=10,
            started_at=T0,
        )
    )
    assert created
    return round_.id


async def test_a_lease_is_held_by_one_owner_until_it_runs_out_or_is_released(
    any_storage: Storage,
) -> None:
    round_id = await new_round(any_storage)
    assert await any_storage.claim_round(round_id, "a", T0, T0 + LEASE)
    assert not await any_storage.claim_round(round_id, "b", T0, T0 + LEASE)
    later = T0 + timedelta(seconds=10)
    assert await any_storage.claim_round(round_id, "a", later, later + LEASE)  # renewed
    assert not await any_storage.claim_round(round_id, "b", T0 + LEASE, T0 + 2 * LEASE)
    assert await any_storage.round_lease(round_id) == ("a", later + LEASE)
    gone = later + LEASE  # "a" stopped renewing: its lease ran out
    assert await any_storage.claim_round(round_id, "b", gone, gone + LEASE)
    assert not await any_storage.claim_round(round_id, "a", gone, gone + LEASE)
    await any_storage.release_round(round_id, "a")  # not a's to release any more
    assert await any_storage.round_lease(round_id) == ("b", gone + LEASE)
    await any_storage.release_round(round_id, "b")
    assert await any_storage.round_lease(round_id) is None
    assert await any_storage.claim_round(round_id, "a", gone, gone + LEASE)


async def test_concurrent_claims_grant_the_lease_to_exactly_one(any_storage: Storage) -> None:
    round_id = await new_round(any_storage)
    owners = [f"replica-{n}" for n in range(8)]
    granted = await asyncio.gather(
        *(any_storage.claim_round(round_id, o, T0, T0 + LEASE) for o in owners)
    )
    assert sum(granted) == 1
    lease = await any_storage.round_lease(round_id)
    assert lease is not None and lease[0] == owners[granted.index(True)]


async def test_a_close_queues_its_posts_in_the_same_step_and_only_one_close_wins(
    any_storage: Storage,
) -> None:
    round_id = await new_round(any_storage, questions=2)
    opens, deadline = T0 + timedelta(seconds=3), T0 + timedelta(seconds=13)
    results = await asyncio.gather(
        *(any_storage.close_round_question(round_id, 1, T0, opens, deadline) for _ in range(5))
    )
    (queued,) = [result for result in results if result]  # one close won, the rest queued none
    round_ = await any_storage.get_round(round_id)
    assert round_ is not None and round_.current == 2 and round_.deadline == deadline
    (reveal,) = await any_storage.unsent_outbox("chat")
    assert queued == (reveal,)
    assert (reveal.round_id, reveal.number, reveal.kind) == (round_id, 1, OutboxKind.REVEAL)
    assert reveal.chat_id == "room" and reveal.sent_at is None
    assert not await any_storage.close_round_question(round_id, 1, T0, opens, deadline)

    last = await any_storage.close_round_question(round_id, 2, deadline, None, None)
    round_ = await any_storage.get_round(round_id)
    assert round_ is not None and round_.status is RoundStatus.FINISHED
    pending = await any_storage.unsent_outbox("chat", round_id)
    assert last == tuple(pending[1:])  # what the close returns is what it queued, in order
    assert [(e.number, e.kind) for e in pending] == [
        (1, OutboxKind.REVEAL),
        (2, OutboxKind.REVEAL),
        (2, OutboxKind.END),
        (2, OutboxKind.HISTORY),  # only the last close owes the members' history
    ]
    assert await any_storage.unsent_outbox("other") == []


async def test_an_outbox_entry_is_marked_sent_once_with_its_message_id(
    any_storage: Storage,
) -> None:
    round_id = await new_round(any_storage, questions=1)
    other = await new_round(any_storage, chat="elsewhere", questions=1)
    assert await any_storage.close_round_question(round_id, 1, T0, None, None)
    assert await any_storage.close_round_question(other, 1, T0, None, None)
    reveal, end, history = await any_storage.unsent_outbox("chat", round_id)
    marks = await asyncio.gather(
        *(any_storage.mark_outbox_sent(reveal.id, T0, str(n)) for n in range(4))
    )
    assert sum(marks) == 1
    (sent, *unsent) = await any_storage.outbox(round_id)
    assert sent.sent_at == T0 and sent.message_id == str(marks.index(True))
    assert [e.id for e in unsent] == [end.id, history.id]
    assert all(e.sent_at is None for e in unsent)
    assert [e.id for e in await any_storage.unsent_outbox("chat", round_id)] == [end.id, history.id]
    assert len(await any_storage.unsent_outbox("chat")) == 5  # with the other round's three


async def test_a_stop_queues_the_history_copy_in_the_same_step_and_only_one_stop_wins(
    any_storage: Storage,
) -> None:
    round_id = await new_round(any_storage, questions=3)
    opens, deadline = T0 + timedelta(seconds=3), T0 + timedelta(seconds=13)
    assert await any_storage.close_round_question(round_id, 1, T0, opens, deadline)
    at = T0 + timedelta(seconds=5)
    results = await asyncio.gather(
        *(any_storage.end_round(round_id, RoundStatus.STOPPED, at) for _ in range(5))
    )
    assert sum(results) == 1
    round_ = await any_storage.get_round(round_id)
    assert round_ is not None and round_.status is RoundStatus.STOPPED
    pending = await any_storage.unsent_outbox("chat", round_id)
    assert [(e.number, e.kind, e.created_at) for e in pending] == [
        (1, OutboxKind.REVEAL, T0),
        (2, OutboxKind.HISTORY, at),  # stopped at question 2: its answers so far are history
    ]
    # A round that ended is not stopped again, and owes nothing more.
    assert not await any_storage.end_round(round_id, RoundStatus.STOPPED, at)
    finished = await new_round(any_storage, chat="elsewhere", questions=1)
    assert await any_storage.close_round_question(finished, 1, T0, None, None)
    assert not await any_storage.end_round(finished, RoundStatus.STOPPED, at)
    assert [e.kind for e in await any_storage.outbox(finished)] == [
        OutboxKind.REVEAL,
        OutboxKind.END,
        OutboxKind.HISTORY,
    ]


async def refuse_history_entries(storage: Storage) -> None:
    """Make the database refuse to queue a history copy (a trigger), as a full disk or a
    lost connection would refuse that one write."""
    if isinstance(storage, SQLiteStorage):
        conn = sqlite3.connect(storage.path)
        try:
            conn.execute(
                "CREATE TRIGGER no_history BEFORE INSERT ON round_outbox "
                "WHEN NEW.kind = 'history' BEGIN SELECT RAISE(ABORT, 'refused'); END"
            )
            conn.commit()
        finally:
            conn.close()
        return
    url = postgres_url()
    assert url is not None
    pg = await asyncpg.connect(url)
    try:
        await pg.execute(
            "CREATE FUNCTION no_history() RETURNS trigger LANGUAGE plpgsql AS "
            "$$ BEGIN RAISE EXCEPTION 'refused'; END $$; "
            "CREATE TRIGGER no_history BEFORE INSERT ON round_outbox FOR EACH ROW "
            "WHEN (NEW.kind = 'history') EXECUTE FUNCTION no_history();"
        )
    finally:
        await pg.close()


async def test_a_round_does_not_end_without_queueing_its_history_copy(
    any_storage: Storage,
) -> None:
    round_id = await new_round(any_storage, questions=1)
    stopped = await new_round(any_storage, chat="elsewhere", questions=2)
    await refuse_history_entries(any_storage)
    refused = (StorageError, sqlite3.Error, asyncpg.PostgresError)
    with pytest.raises(refused):
        await any_storage.close_round_question(round_id, 1, T0, None, None)
    with pytest.raises(refused):
        await any_storage.end_round(stopped, RoundStatus.STOPPED, T0)
    # Nothing of either was written: both rounds still run, and owe no post.
    for still in (round_id, stopped):
        round_ = await any_storage.get_round(still)
        assert round_ is not None and round_.status is RoundStatus.ACTIVE
        assert round_.current == 1
        assert await any_storage.outbox(still) == []


@pytest.mark.parametrize("dialect", ["sqlite", "postgres"])
async def test_outbox_entries_from_before_the_upgrade_are_kept_and_history_is_queued_after(
    dialect: str, db_path: Path
) -> None:
    """A database at schema version 6 (before history entries), with a round at its second
    and last question and question 1's reveal sent."""
    scripts = migrations("sqlite" if dialect == "sqlite" else "postgres")[:6]
    deadline = T0 + timedelta(seconds=10)
    round_row = ("chat", "room", "quiz", "host", "en", '["q1", "q2"]', "{}", 10, "active", 2)
    insert_round = (
        "INSERT INTO rounds (platform, chat_id, quiz_id, starter_id, language, question_order, "
        "option_order, time_limit_seconds, status, current, question_started_at, deadline, "
        "started_at) VALUES ({})"
    )
    insert_entry = (
        "INSERT INTO round_outbox (round_id, number, kind, platform, chat_id, created_at, "
        "sent_at, message_id) VALUES (1, 1, 'reveal', 'chat', 'room', {0}, {0}, '7')"
    )
    store: Storage
    if dialect == "sqlite":
        ts = [t.isoformat(timespec="microseconds") for t in (T0, deadline, T0)]
        conn = sqlite3.connect(db_path)
        try:
            conn.execute("CREATE TABLE schema_version (version INTEGER)")
            for script in scripts:
                for statement in _statements(script):
                    conn.execute(statement)
            conn.execute("INSERT INTO schema_version VALUES (6)")
            conn.execute(insert_round.format(", ".join("?" * 13)), (*round_row, *ts))
            conn.execute(insert_entry.format("?"), (ts[0], ts[0]))
            conn.commit()
        finally:
            conn.close()
        store = SQLiteStorage(db_path)
    else:
        from bot.storage.postgres import PostgresStorage

        url = postgres_url()
        assert url is not None
        await reset_postgres(url)
        pg = await asyncpg.connect(url)
        try:
            await pg.execute("CREATE TABLE schema_version (version INTEGER)")
            for script in scripts:
                await pg.execute(script)
            await pg.execute("INSERT INTO schema_version VALUES (6)")
            params = ", ".join(f"${n}" for n in range(1, 14))
            await pg.execute(insert_round.format(params), *round_row, T0, deadline, T0)
            await pg.execute(insert_entry.format("$1"), T0)
        finally:
            await pg.close()
        store = PostgresStorage(url)
    await store.open()
    try:
        assert await store.schema_version() == len(migrations("sqlite"))
        assert await store.close_round_question(1, 2, deadline, None, None)
        entries = await store.outbox(1)
        assert [(e.id, e.number, e.kind, e.message_id) for e in entries] == [
            (1, 1, OutboxKind.REVEAL, "7"),  # kept as it was, sent
            (2, 2, OutboxKind.REVEAL, None),
            (3, 2, OutboxKind.END, None),
            (4, 2, OutboxKind.HISTORY, None),
        ]
        assert entries[0].sent_at == T0
        assert [e.id for e in await store.unsent_outbox("chat")] == [2, 3, 4]
    finally:
        await store.close()


# -- configuration --------------------------------------------------------------------------


def test_shards_and_the_round_lease_come_from_the_environment() -> None:
    base = {"QUIZ_DIR": str(QUIZ_DIR)}
    default = Settings.from_env(base)
    assert (default.shard_count, default.shard_ids, default.round_lease_seconds) == (None, None, 15)
    some = Settings.from_env(
        base | {"SHARD_COUNT": "4", "SHARD_IDS": "0, 2", "ROUND_LEASE_SECONDS": "6"}
    )
    assert (some.shard_count, some.shard_ids, some.round_lease_seconds) == (4, (0, 2), 6)
    assert Settings.from_env(base | {"SHARD_COUNT": "2"}).shard_ids is None


@pytest.mark.parametrize(
    ("env", "variable"),
    [
        ({"SHARD_COUNT": "0"}, "SHARD_COUNT"),
        ({"SHARD_COUNT": "two"}, "SHARD_COUNT"),
        ({"SHARD_IDS": "0"}, "SHARD_IDS"),  # without SHARD_COUNT
        ({"SHARD_COUNT": "2", "SHARD_IDS": "2"}, "SHARD_IDS"),  # out of range
        ({"SHARD_COUNT": "2", "SHARD_IDS": "1,1"}, "SHARD_IDS"),
        ({"SHARD_COUNT": "2", "SHARD_IDS": "a"}, "SHARD_IDS"),
        ({"ROUND_LEASE_SECONDS": "1"}, "ROUND_LEASE_SECONDS"),
        ({"ROUND_LEASE_SECONDS": "soon"}, "ROUND_LEASE_SECONDS"),
    ],
)
def test_bad_shard_or_lease_settings_stop_quizbot_with_exit_code_2(
    env: dict[str, str], variable: str
) -> None:
    with pytest.raises(ConfigError) as error:
        Settings.from_env({"QUIZ_DIR": str(QUIZ_DIR), **env})
    assert error.value.variable == variable


def test_quizbot_run_names_a_bad_shard_setting_and_exits_2(tmp_path) -> None:
    env = {
        k: v for k, v in os.environ.items() if k not in ("TELEGRAM_BOT_TOKEN", "DISCORD_BOT_TOKEN")
    }
    env |= {
        "QUIZ_DIR": str(QUIZ_DIR),
        "SHARD_COUNT": "3",
        "SHARD_IDS": "3",
        "PYTHONPATH": str(ROOT),
    }
    done = subprocess.run(
        [sys.executable, "-m", "quizbot", "run"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "SHARD_IDS" in done.stderr and "0 to 2" in done.stderr


# -- three real replicas ----------------------------------------------------------------------

REPLICAS = 3
MEMBERS = 6
SECONDS_PER_QUESTION = 5  # the shortest a round allows
LEASE_SECONDS = 3  # the shortest ROUND_LEASE_SECONDS allows: a quick takeover
GROUP = -100_777
SECRET = "replica-test-secret"
WEBHOOK_PATH = "/telegram"


def three_question_quiz(directory: Path) -> str:
    """A quiz short enough for a real-time round (each question shows for 5 s)."""
    questions = [
        {
            "id": f"q{n}",
            "correct": "a",
            "text": {"en": f"Question number {n}?"},
            "options": [{"id": o, "text": {"en": f"Option {o}{n}"}} for o in "abc"],
            "explanation": {"en": f"Because of {n}."},
        }
        for n in (1, 2, 3)
    ]
    quiz = {
        "id": "replicas",
        "default_language": "en",
        "languages": ["en"],
        "title": {"en": "Replicas"},
        "description": {"en": "Three questions."},
        "questions": questions,
    }
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "replicas.yaml").write_text(yaml.safe_dump(quiz))
    return "replicas"


class Replica:
    """One ``quizbot run`` process in webhook mode, behind the test's "load balancer"."""

    def __init__(
        self, api: FakeBotApi, process: asyncio.subprocess.Process, port: int, log: Path
    ) -> None:
        self.api, self.process, self.port, self.log = api, process, port, log

    @property
    def alive(self) -> bool:
        return self.process.returncode is None

    async def post(self, http: aiohttp.ClientSession, update: dict[str, Any]) -> None:
        url = f"http://127.0.0.1:{self.port}{WEBHOOK_PATH}"
        headers = {"X-Telegram-Bot-Api-Secret-Token": SECRET}
        async with http.post(url, json=update, headers=headers) as response:
            assert response.status == 200, await response.text()
            raw = await response.read()
        # As Telegram does: a press may be acknowledged in the response itself.
        await self.api.carry_out_webhook_reply(raw)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def start_replica(
    api: FakeBotApi, url: str, quiz_dir: Path, log: Path, extra_env: dict[str, str] | None = None
) -> Replica:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DISCORD_BOT_TOKEN",)}
    env |= {
        "TELEGRAM_BOT_TOKEN": TOKEN,
        "TELEGRAM_API_BASE_URL": api.base_url,
        "WEBHOOK_URL": f"https://quiz.example{WEBHOOK_PATH}",
        "WEBHOOK_SECRET": SECRET,
        "PORT": str(port),
        "DATABASE_URL": url,
        "QUIZ_DIR": str(quiz_dir),
        "ROUND_LEASE_SECONDS": str(LEASE_SECONDS),
        "LOG_LEVEL": "INFO",
        "PYTHONPATH": str(ROOT),
    } | (extra_env or {})
    with log.open("wb") as out:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "quizbot", "run", cwd=ROOT, env=env, stdout=out, stderr=out
        )
    return Replica(api, process, port, log)


async def healthy(http: aiohttp.ClientSession, replica: Replica, within: float = 60) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while True:
        assert replica.alive, replica.log.read_text()
        with contextlib.suppress(aiohttp.ClientError):
            async with http.get(f"http://127.0.0.1:{replica.port}/healthz") as response:
                if response.status == 200:
                    return
        assert loop.time() < deadline, "a replica did not become healthy"
        await asyncio.sleep(0.1)


async def round_question(api: FakeBotApi, number: int, within: float = 30) -> StoredMessage:
    def is_it(call: ApiCall) -> bool:
        if int(call.params.get("chat_id", 0)) != GROUP:
            return False
        for button in api.message_of(call).buttons:
            decoded = decode(str(button.get("callback_data", "")))
            if isinstance(decoded, RoundAnswer) and decoded.question_number == number:
                return True
        return False

    return api.message_of(await api.wait_for("sendMessage", is_it, within=within))


def group_texts(api: FakeBotApi) -> list[str]:
    return [
        clean(api.message_of(c).text)
        for c in api.calls_of("sendMessage")
        if int(c.params.get("chat_id", 0)) == GROUP
    ]


@pytest.mark.slow
# Complexity 15: one scenario, kill -9 and recovery told step by step, reads best as one story.
class KillNine:
    """Three ``quizbot run`` replicas behind a load balancer, members pressing, and the
    replica that drives the round killed mid-question."""

    def __init__(self, api: FakeBotApi, url: str, quizzes: Path, logs: Path) -> None:
        self.api, self.url, self.quizzes, self.logs = api, url, quizzes, logs
        self.replicas: list[Replica] = []
        self.acknowledged: set[tuple[int, str]] = set()  # (question, user) the bot confirmed
        self.http = aiohttp.ClientSession()
        self._spread = itertools.count()

    async def deliver(self, update: dict[str, Any]) -> None:
        """The load balancer: each update to the next live replica."""
        live = [r for r in self.replicas if r.alive]
        await live[next(self._spread) % len(live)].post(self.http, update)

    async def answer(self, number: int, who: list[dict[str, Any]]) -> None:
        """``who`` press an option of question ``number``; remember which the bot confirmed."""
        message = await round_question(self.api, number)
        queries = []
        for user in who:
            data = str(message.buttons[int(user["id"]) % 3]["callback_data"])
            query_id, update = self.api.press_update(user, message, data, f"{user['id']}-{data}")
            await self.deliver(update)
            queries.append((query_id, user))
        taken = clean(t("round_answer_taken", "en"))
        for query_id, user in queries:
            call = await self.api.wait_for(
                "answerCallbackQuery",
                lambda c, q=query_id: c.params.get("callback_query_id") == q,
                within=20,
            )
            if clean(call.params.get("text")) == taken:
                self.acknowledged.add((number, str(user["id"])))

    async def start(self) -> None:
        for n in range(REPLICAS):
            self.replicas.append(
                await start_replica(self.api, self.url, self.quizzes, self.logs / f"r{n}.log")
            )
        for replica in self.replicas:
            await healthy(self.http, replica)

    async def kill_the_driver(self) -> None:
        """kill -9 of the replica holding the round's lease."""
        conn = await asyncpg.connect(self.url)
        try:
            owner = await conn.fetchval("SELECT owner FROM round_leases")
        finally:
            await conn.close()
        pid = int(str(owner).split(":")[1])
        (driver,) = [r for r in self.replicas if r.process.pid == pid]
        driver.process.send_signal(signal.SIGKILL)
        await driver.process.wait()

    async def stop(self) -> None:
        for replica in self.replicas:
            if replica.alive:
                replica.process.send_signal(signal.SIGTERM)
        for replica in self.replicas:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(replica.process.wait(), 20)
            if replica.alive:
                replica.process.kill()
                await replica.process.wait()
        await self.http.close()


async def play_through_a_kill(world: KillNine, group: dict[str, Any], quiz_id: str) -> None:
    """A three-question round: everyone answers 1, the driver dies during 2, the rest of 2
    and all of 3 go to the survivors; until the final ranking is posted."""
    api, members = world.api, [world.api.user(80_000 + n, f"Member{n}") for n in range(MEMBERS)]
    await world.start()
    await world.replicas[0].post(
        world.http,
        api.text_update(members[0], group, f"/quiz group {quiz_id} {SECONDS_PER_QUESTION}"),
    )
    await world.answer(1, members)
    await world.answer(2, members[:3])
    await world.kill_the_driver()
    await world.answer(2, members[3:])  # taken by the survivors: counted by the next driver
    await world.answer(3, members)
    await api.wait_for(
        "sendMessage",
        lambda c: (
            int(c.params.get("chat_id", 0)) == GROUP
            and clean(api.message_of(c).text).startswith("🏁")
        ),
        within=60,
    )


async def test_three_replicas_survive_kill_9_of_the_round_driver(tmp_path: Path) -> None:
    url = postgres_url()
    assert url is not None
    await reset_postgres(url)
    quiz_id = three_question_quiz(tmp_path / "quizzes")
    api = FakeBotApi()
    await api.start()
    group = api.group_chat(GROUP, "Replicated group")
    world = KillNine(api, url, tmp_path / "quizzes", tmp_path)
    try:
        await asyncio.wait_for(play_through_a_kill(world, group, quiz_id), 180)
        await asyncio.sleep(2 * LEASE_SECONDS)  # time for a doubled post to show, if any
    finally:
        await world.stop()
        await api.close()
    await assert_every_question_revealed_once(api, url, world.acknowledged)


async def assert_every_question_revealed_once(
    api: FakeBotApi, url: str, acknowledged: set[tuple[int, str]]
) -> None:
    """Every question revealed exactly once, in order, one final ranking, every acknowledged
    answer stored and counted, and the outbox fully sent."""
    texts = group_texts(api)
    reveals = [text for text in texts if text.startswith("📣")]
    assert [text.split()[2] for text in reveals] == ["1/3", "2/3", "3/3"], reveals
    assert len([text for text in texts if text.startswith("🏁")]) == 1
    conn = await asyncpg.connect(url)
    try:
        stored = {
            (row["number"], row["user_id"])
            for row in await conn.fetch("SELECT number, user_id FROM round_answers")
        }
        outbox = await conn.fetch("SELECT number, kind, sent_at FROM round_outbox ORDER BY id")
        status = await conn.fetchval("SELECT status FROM rounds")
    finally:
        await conn.close()
    assert status == "finished"
    assert acknowledged <= stored, f"acknowledged answers lost: {acknowledged - stored}"
    assert {number for number, _ in acknowledged} == {1, 2, 3}
    assert [(r["number"], r["kind"]) for r in outbox] == [
        (1, "reveal"),
        (2, "reveal"),
        (3, "reveal"),
        (3, "end"),
        (3, "history"),
    ]
    assert all(r["sent_at"] is not None for r in outbox)
    for number, reveal in enumerate(reveals, start=1):  # each reveal counts every answer
        count = sum(1 for n, _ in stored if n == number)
        assert clean(t("round_answers_count", "en", count=count)) in reveal
