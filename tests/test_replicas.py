"""Several replicas on one database: round leases and the round outbox (the storage contract,
on SQLite and PostgreSQL), and three real ``quizbot run`` processes sharing group rounds."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta

import pytest

from bot.storage import NewRound, RoundStatus, Storage
from bot.storage.base import OUTBOX_END, OUTBOX_REVEAL
from quizbot.settings import ConfigError, Settings
from tests.conftest import QUIZ_DIR, ROOT

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
    assert sum(results) == 1
    round_ = await any_storage.get_round(round_id)
    assert round_ is not None and round_.current == 2 and round_.deadline == deadline
    (reveal,) = await any_storage.unsent_outbox("chat")
    assert (reveal.round_id, reveal.number, reveal.kind) == (round_id, 1, OUTBOX_REVEAL)
    assert reveal.chat_id == "room" and reveal.sent_at is None
    assert not await any_storage.close_round_question(round_id, 1, T0, opens, deadline)

    assert await any_storage.close_round_question(round_id, 2, deadline, None, None)
    round_ = await any_storage.get_round(round_id)
    assert round_ is not None and round_.status is RoundStatus.FINISHED
    pending = await any_storage.unsent_outbox("chat", round_id)
    assert [(e.number, e.kind) for e in pending] == [
        (1, OUTBOX_REVEAL),
        (2, OUTBOX_REVEAL),
        (2, OUTBOX_END),
    ]
    assert await any_storage.unsent_outbox("other") == []


async def test_an_outbox_entry_is_marked_sent_once_with_its_message_id(
    any_storage: Storage,
) -> None:
    round_id = await new_round(any_storage, questions=1)
    other = await new_round(any_storage, chat="elsewhere", questions=1)
    assert await any_storage.close_round_question(round_id, 1, T0, None, None)
    assert await any_storage.close_round_question(other, 1, T0, None, None)
    reveal, end = await any_storage.unsent_outbox("chat", round_id)
    marks = await asyncio.gather(
        *(any_storage.mark_outbox_sent(reveal.id, T0, str(n)) for n in range(4))
    )
    assert sum(marks) == 1
    (sent, unsent) = await any_storage.outbox(round_id)
    assert sent.sent_at == T0 and sent.message_id == str(marks.index(True))
    assert unsent.id == end.id and unsent.sent_at is None
    assert [e.id for e in await any_storage.unsent_outbox("chat", round_id)] == [end.id]
    assert len(await any_storage.unsent_outbox("chat")) == 3  # the other round's two


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
