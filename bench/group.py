"""(h) Telegram group round: N members pressing one round's question at once, against the same
press on a solo quiz, in the same run.

What is measured
    The real bot (:class:`~adapters.telegram.TelegramAdapter` in its own process, as in
    :mod:`bench.telegram`, production rate limiter, a temporary SQLite database) long-polling
    the fake Bot API of ``fakes/telegram_bot_api.py``. Group side: a member starts
    ``/quiz group checkpoint-sharding 60`` in a group; when the round's first question is
    posted, all N members press an answer on it at the same moment (half of them right). Solo
    side: N users each have the first question of their own quiz in a private chat and press
    at the same moment. Per side: acknowledgements/s (presses / first press .. last
    ``answerCallbackQuery``) and the p95 from a press being queued to its acknowledgement at
    the fake. Each burst starts after the bot has been idle past the transport's keep-alive,
    so both start from the same connection pool state.

Baseline
    The solo press, same bot process, same run: the ratio says what a round press costs over a
    solo one (a round press records the answer in the round and may close the question).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench import SEED_QUIZ
from bench.report import STATUS_OK, Json, check, figure, percentile, scratch_dir, section
from bench.telegram import MAX_POLL_WAIT, BenchError, BotProcess, _quiet_s

TITLE = "Telegram group round: members pressing one question at once (baseline: solo quiz)"
FIRST_MEMBER_ID = 700_000
GROUP_ID = -1_002_000_000_001
LANGUAGE = "en"
ROUND_SECONDS = 60  # long enough that the question stays open through the burst
CAP = 30.0  # the production rate limiter's messages a second
P95_TARGET_MS = 1000.0  # issue 24's press-to-acknowledge target


@dataclass(frozen=True)
class Size:
    users: int


def sizes(quick: bool, users: int | None = None) -> Size:
    return Size(users or (30 if quick else 200))


async def _burst(api: Any, presses: list[tuple[dict[str, Any], Any, str]]) -> Json:
    """Everyone presses at once; when each press was acknowledged."""
    from fakes.telegram_chatter import clean

    acked: dict[str, asyncio.Future[float]] = {}
    said: Counter[str] = Counter()
    loop = asyncio.get_running_loop()

    def seen(call: Any) -> None:
        if call.ok and call.method == "answerCallbackQuery":
            future = acked.get(str(call.params.get("callback_query_id")))
            if future is not None and not future.done():
                future.set_result(call.at)
                said[clean(call.params.get("text"))] += 1

    api.listeners.append(seen)
    try:
        queued = []
        for user, message, data in presses:
            query_id, update = api.press_update(user, message, data)
            acked[query_id] = loop.create_future()
            queued.append((query_id, time.monotonic()))
            api.enqueue(update)
        within = 30.0 + len(presses) / 5
        done = await asyncio.wait_for(asyncio.gather(*acked.values()), within)
    finally:
        api.listeners.remove(seen)
    delays = [(at - pressed) * 1000 for (_, pressed), at in zip(queued, done, strict=True)]
    wall = max(done) - queued[0][1]
    return {
        "presses": len(presses),
        "acknowledged": len(done),
        "acks_per_s": len(done) / wall if wall > 0 else 0.0,
        "p50_ms": percentile(delays, 50),
        "p95_ms": percentile(delays, 95),
        "max_ms": max(delays),
        "said": dict(said),
    }


async def _measure(users: int, workdir: Path, progress: Callable[[str], None]) -> Json:
    from bench.answers import seed_catalog
    from fakes.telegram_bot_api import FakeBotApi
    from fakes.telegram_chatter import button_for, is_question, is_round_question

    quiz = seed_catalog().get(SEED_QUIZ)
    assert quiz is not None
    api = FakeBotApi(max_poll_wait=MAX_POLL_WAIT)
    await api.start()
    bot = BotProcess("ours", api.base_url, workdir, None, extra=["--message-rate", str(CAP)])
    try:
        await bot.start()
        members = [api.user(FIRST_MEMBER_ID + i, f"Member {i}", LANGUAGE) for i in range(2 * users)]
        group = api.group_chat(GROUP_ID, "Study group")
        progress(f"group: {users} users start solo quizzes")
        solo_users = members[users:]
        chats = {int(api.private_chat(u)["id"]): u for u in solo_users}
        mark = len(api.calls)
        for user in solo_users:
            api.send_text(user, api.private_chat(user), f"/quiz {SEED_QUIZ}")
        firsts: dict[int, Any] = {}
        deadline = time.monotonic() + 30.0 + users / 10
        while len(firsts) < users:
            if time.monotonic() > deadline:
                raise BenchError(f"only {len(firsts)} of {users} solo quizzes started")
            call = await api.wait_for("sendMessage", after=mark, within=10.0)
            mark = call.index + 1
            message = api.message_of(call)
            if message.chat_id in chats and is_question(message):
                firsts[message.chat_id] = message
        progress(f"group: a round of {users} members starts")
        mark = len(api.calls)
        api.send_text(members[0], group, f"/quiz group {SEED_QUIZ} {ROUND_SECONDS}")
        asked = await api.wait_for(
            "sendMessage",
            lambda c: (
                int(c.params.get("chat_id", 0)) == GROUP_ID and is_round_question(api.message_of(c))
            ),
            after=mark,
            within=60.0,
        )
        question = api.message_of(asked)
        await asyncio.sleep(_quiet_s())
        progress(f"group: {users} members press the round's question at once")
        group_presses = [
            (user, question, button_for(question, quiz, LANGUAGE, n % 2 == 0))
            for n, user in enumerate(members[:users])
        ]
        in_group = await _burst(api, group_presses)
        await asyncio.sleep(_quiet_s())
        progress(f"group: {users} users press their solo question at once")
        solo_presses = [
            (chats[chat_id], message, button_for(message, quiz, LANGUAGE, n % 2 == 0))
            for n, (chat_id, message) in enumerate(sorted(firsts.items()))
        ]
        solo = await _burst(api, solo_presses)
        failed = sum(1 for c in api.calls if not c.ok and c.error_code != 429)
        await bot.stop()
    finally:
        with contextlib.suppress(BenchError):
            await bot.stop()
        await api.close()
    return {"users": users, "group": in_group, "solo": solo, "failed_calls": failed}


def run(
    quick: bool,
    progress: Callable[[str], None],
    tmp_root: str | None = None,
    users: int | None = None,
) -> Json:
    size = sizes(quick, users)
    with scratch_dir("quizbot-bench-group-", tmp_root) as workdir:
        r = asyncio.run(_measure(size.users, workdir, progress))
    group, solo = r["group"], r["solo"]
    who = f"{r['users']} members pressing one round question at once"
    figures = [
        figure(
            "group.acks_per_s",
            f"{who}: acknowledgements/s",
            "presses/s",
            group["acks_per_s"],
            solo["acks_per_s"],
            "the same press on a solo quiz",
            higher_is_better=True,
        ),
        figure(
            "group.p95_ms",
            f"{who}: p95 press-to-ack",
            "ms",
            group["p95_ms"],
            solo["p95_ms"],
            "the same press on a solo quiz",
            higher_is_better=False,
            target=f"<= {P95_TARGET_MS:,.0f} ms",
            met=group["p95_ms"] <= P95_TARGET_MS,
            verdict="met" if group["p95_ms"] <= P95_TARGET_MS else "MISSED",
        ),
    ]
    from bot.i18n import t
    from fakes.telegram_chatter import clean

    taken = group["said"].get(clean(t("round_answer_taken", LANGUAGE)), 0)
    checks = [
        check("group: every round press acknowledged", group["presses"], group["acknowledged"]),
        check("group: every round press taken as an answer", group["presses"], taken),
        check("group: every solo press acknowledged", solo["presses"], solo["acknowledged"]),
        check("group: no call the fake refused", 0, r["failed_calls"]),
    ]
    note = "one bot process (production rate limiter) for both sides; the round burst first"
    return section("h", TITLE, STATUS_OK, note=note, figures=figures, details=r, checks=checks)
