"""Under Telegram's 30 messages a second: presses are acknowledged at once, follow-up messages
are shared fairly between chats, and in webhook mode a press is acknowledged in the webhook's
own HTTP response."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import aiohttp
import pytest

from adapters.telegram.budget import FairPacer
from adapters.telegram.callbacks import AcknowledgeFirst
from bot.catalog import QuizCatalog
from bot.engine import QuizEngine
from bot.i18n import t
from fakes.telegram_bot_api import FakeBotApi
from fakes.telegram_chatter import button_for, clean
from tests.conftest import SEED_QUIZ
from tests.telegram.conftest import Launch, chatter
from tests.telegram.test_transport import free_port, webhook_settings


# PTB itself reads RetryAfter.retry_after, which warns about its future type.
@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")
async def test_a_press_is_acknowledged_while_follow_ups_wait_out_a_429(
    api: FakeBotApi, engine: QuizEngine, catalog: QuizCatalog, launch: Launch
) -> None:
    """A 429 pauses every message for retry_after; the spinner of the next press still stops
    at once."""
    await launch(engine)
    quiz = catalog.get(SEED_QUIZ)
    assert quiz is not None
    ann, ben = chatter(api, 6101, "Ann"), chatter(api, 6102, "Ben")
    ann.send(f"/quiz {SEED_QUIZ}")
    ben.send(f"/quiz {SEED_QUIZ}")
    asked_ann, asked_ben = await ann.question(), await ben.question()
    api.fail_next("editMessageText", retry_after=3)
    ann.press(asked_ann, button_for(asked_ann, quiz, "en", True))
    for _ in range(500):
        if refused_edits := api.calls_of("editMessageText", ok=False):
            break
        await asyncio.sleep(0.01)
    (refused,) = refused_edits
    query = ben.press(asked_ben, button_for(asked_ben, quiz, "en", False))
    assert await ben.toast(query) == clean(t("wrong", "en"))
    # The paused follow-ups then go out: Ann's edit again, after retry_after; Ben's spinner
    # had stopped before it, not after the 3 s pause.
    edit = await ann.edit_of(asked_ann, refused.index + 1)
    assert edit.at - refused.at >= 3.0
    (ack,) = [
        c
        for c in api.calls_of("answerCallbackQuery", after=refused.index)
        if c.params.get("callback_query_id") == query
    ]
    assert ack.index < edit.index
    assert api.failed_calls() == []


async def test_acknowledgements_do_not_queue_behind_paced_follow_ups(
    api: FakeBotApi, engine: QuizEngine, catalog: QuizCatalog, launch: Launch
) -> None:
    """60 presses at once cost 120 follow-ups (4 s at 30 a second); their acknowledgements
    all arrive before the follow-ups are half done."""
    await launch(engine)
    quiz = catalog.get(SEED_QUIZ)
    assert quiz is not None
    people = [chatter(api, 6200 + i, f"P{i}") for i in range(60)]
    for person in people:
        person.send(f"/quiz {SEED_QUIZ}")
    asked = [await p.question(within=15) for p in people]
    await asyncio.sleep(1.1)  # the limiter's burst allowance is back
    mark = len(api.calls)
    queries = [
        p.press(m, button_for(m, quiz, "en", True)) for p, m in zip(people, asked, strict=True)
    ]
    for person, query in zip(people, queries, strict=True):
        await person.toast(query)
    acked = max(c.at for c in api.calls_of("answerCallbackQuery", after=mark))
    follow_ups = [
        c.at for c in api.calls[mark:] if c.ok and c.method in ("editMessageText", "sendMessage")
    ]
    assert len(follow_ups) < 60  # acknowledged before half the follow-ups went out
    await api.wait_for(
        "sendMessage",
        lambda c: int(c.params["chat_id"]) == people[-1].chat_id and c.index > mark,
        after=mark,
        within=20,
    )
    done = [c for c in api.calls[mark:] if c.ok and c.method in ("editMessageText", "sendMessage")]
    assert acked < sorted(c.at for c in done)[len(done) // 2]


async def test_one_busy_chat_does_not_starve_the_others(
    api: FakeBotApi, engine: QuizEngine, launch: Launch
) -> None:
    """40 messages queued for one chat, then one for another: the other one goes out in the
    next slot, not after the 40; and each chat's own messages keep their order."""
    adapter = await launch(engine)
    assert adapter.application is not None
    bot = adapter.application.bot
    busy, other = chatter(api, 6301, "Busy"), chatter(api, 6302, "Other")
    await asyncio.sleep(1.1)  # the limiter's burst allowance is full

    async def in_order(chat_id: int, texts: list[str]) -> None:
        for text in texts:  # one after the other, like a long text split into messages
            await bot.send_message(chat_id, text)

    mark = len(api.calls)
    flood = [asyncio.create_task(bot.send_message(busy.chat_id, f"b{i}")) for i in range(40)]
    await asyncio.sleep(0)  # the flood is queued first
    others = asyncio.create_task(in_order(other.chat_id, [f"o{i}" for i in range(5)]))
    await asyncio.gather(*flood, others)
    sent = [c.params["text"] for c in api.calls_of("sendMessage", after=mark)]
    mine = [text for text in sent if text.startswith("o")]
    assert mine == [f"o{i}" for i in range(5)]
    # The flood's burst (30) goes at once; after that the chats take turns.
    assert sent.index("o0") <= 31
    assert sent.index("o4") <= 31 + 2 * 4


async def test_the_pacer_serves_chats_in_turn_and_each_chat_in_order() -> None:
    pacer = FairPacer(max_rate=1, period=0.01)
    granted: list[tuple[str, int]] = []

    async def send(chat: str, n: int) -> None:
        await pacer.wait(chat)
        granted.append((chat, n))

    tasks = [asyncio.create_task(send("a", n)) for n in range(4)]
    tasks += [asyncio.create_task(send("b", n)) for n in range(2)]
    tasks += [asyncio.create_task(send("c", 0))]
    await asyncio.gather(*tasks)
    assert granted == [("a", 0), ("a", 1), ("b", 0), ("c", 0), ("a", 2), ("b", 1), ("a", 3)]
    # A waiter that gives up loses its turn and takes no slot.
    waiter = asyncio.create_task(pacer.wait("d"))
    await asyncio.sleep(0)
    waiter.cancel()
    started = asyncio.get_running_loop().time()
    await pacer.wait("e")
    assert asyncio.get_running_loop().time() - started < 0.05


async def test_a_webhook_press_is_acknowledged_in_the_webhook_response(
    api: FakeBotApi, engine: QuizEngine, catalog: QuizCatalog, launch: Launch
) -> None:
    port = free_port()
    await launch(engine, webhook_settings(api, port))
    api.deliver_webhook_to(f"http://127.0.0.1:{port}/telegram/hook")
    quiz = catalog.get(SEED_QUIZ)
    assert quiz is not None
    me = chatter(api, 6401, "Web")
    me.send(f"/quiz {SEED_QUIZ}")
    asked = await me.question()
    query = me.press(asked, button_for(asked, quiz, "en", True))
    assert await me.toast(query) == clean(t("correct", "en"))
    acks = api.calls_of("answerCallbackQuery", ok=None)
    assert [(c.ok, c.via_webhook) for c in acks] == [(True, True)]  # no request of its own
    await me.edit_of(asked, me.mark)
    await me.question()  # the follow-ups still come, as requests
    assert api.failed_calls() == [] and api.undelivered == []


async def test_the_fake_delivers_webhook_updates_over_at_most_max_connections(
    api: FakeBotApi,
) -> None:
    """Telegram's default is 40 connections at once; a slow bot sees no more than that."""
    in_flight = peak = 0
    release = asyncio.Event()

    async def slow(request: aiohttp.web.Request) -> aiohttp.web.Response:
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        await release.wait()
        in_flight -= 1
        return aiohttp.web.Response()

    app = aiohttp.web.Application()
    app.router.add_post("/hook", slow)
    runner = aiohttp.web.AppRunner(app)
    await runner.setup()
    port = free_port()
    await aiohttp.web.TCPSite(runner, "127.0.0.1", port).start()
    try:
        api.api_setWebhook({"url": "https://bot.example.org/hook"})
        api.deliver_webhook_to(f"http://127.0.0.1:{port}/hook")
        user = api.user(6501, "Many")
        for n in range(60):
            api.send_text(user, api.private_chat(user), f"hi {n}")
        for _ in range(200):
            if peak >= 40:
                break
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.1)
        assert peak == 40
        release.set()
        for _ in range(200):
            if not api.updates and in_flight == 0:
                break
            await asyncio.sleep(0.01)
        assert api.updates == [] and api.undelivered == []
    finally:
        release.set()
        await runner.cleanup()


async def test_a_burst_of_presses_is_acknowledged_before_the_follow_ups_go_out(
    api: FakeBotApi, engine: QuizEngine, catalog: QuizCatalog, launch: Launch
) -> None:
    """Even with nothing pacing the follow-ups (limiter off), 150 presses at once stop their
    spinners before any of them gets its edit and next question: they share one event loop."""
    await launch(engine, message_rate=0)
    quiz = catalog.get(SEED_QUIZ)
    assert quiz is not None
    people = [chatter(api, 6600 + i, f"Q{i}") for i in range(150)]
    for person in people:
        person.send(f"/quiz {SEED_QUIZ}")
    asked = [await p.question(within=15) for p in people]
    mark = len(api.calls)
    for person, message in zip(people, asked, strict=True):
        person.press(message, button_for(message, quiz, "en", True))
    await api.wait_for(
        "sendMessage",
        lambda c: int(c.params["chat_id"]) == people[-1].chat_id and c.index > mark,
        after=mark,
        within=20,
    )
    for person in people:
        await person.question(within=20)
    calls = [c for c in api.calls[mark:] if c.ok]
    acks = [c.index for c in calls if c.method == "answerCallbackQuery"]
    follow_ups = [c.index for c in calls if c.method in ("editMessageText", "sendMessage")]
    assert len(acks) == 150 and len(follow_ups) == 300
    assert max(acks) < min(follow_ups)


class _Started:
    """Follow-ups as :class:`AcknowledgeFirst` sees them: callbacks; which have run, when."""

    def __init__(self) -> None:
        self.at: dict[str, float] = {}
        self._changed = asyncio.Event()

    def __call__(self, name: str) -> Callable[[], None]:
        loop = asyncio.get_running_loop()

        def start() -> None:
            self.at.setdefault(name, loop.time())
            self._changed.set()

        return start

    async def until(self, *names: str, within: float) -> None:
        async with asyncio.timeout(within):
            while not all(name in self.at for name in names):
                self._changed.clear()
                await self._changed.wait()


async def test_follow_ups_wait_for_pending_acknowledgements_but_never_starve() -> None:
    """A follow-up waits while a press awaits its acknowledgement; when presses keep coming,
    the waiting follow-ups go on after max_wait anyway, and later ones wait again."""
    first = AcknowledgeFirst(max_wait=0.05)
    started = _Started()
    first.when_acknowledged(started("alone"))
    assert "alone" in started.at  # nothing pending: at once
    with first.acknowledging():
        for name in ("a", "b", "c"):
            first.when_acknowledged(started(name))
        await asyncio.sleep(0)
        assert started.at.keys() == {"alone"}
        await started.until("a", "b", "c", within=5)  # released by max_wait
        first.when_acknowledged(started("late"))
        await asyncio.sleep(0.01)
        assert "late" not in started.at  # the press is still pending: it waits again
    assert "late" in started.at  # the press was acknowledged: it goes on at once


async def test_with_settle_follow_ups_wait_for_a_lull_in_presses() -> None:
    """Webhook mode: when the last pending press is acknowledged, the waiting follow-ups go on
    only once no new press came for ``settle``; a press within it keeps them waiting (up to
    max_wait). A follow-up that waits for nobody goes on at once."""
    first = AcknowledgeFirst(max_wait=5.0, settle=0.2)
    started = _Started()
    first.when_acknowledged(started("alone"))
    assert "alone" in started.at  # nothing pending: no settle either
    loop = asyncio.get_running_loop()
    with first.acknowledging():
        first.when_acknowledged(started("waiting"))
    lull = loop.time()
    await asyncio.sleep(0.1)
    with first.acknowledging():  # the next press arrives within the settle time
        await asyncio.sleep(0.1)
        assert "waiting" not in started.at
    await asyncio.sleep(0.1)
    assert "waiting" not in started.at  # 0.1 s after the second press: still settling
    await started.until("waiting", within=1)
    assert started.at["waiting"] - lull >= 0.4  # 0.1 + 0.1 of press + the full 0.2 of settle
    first.when_acknowledged(started("settled"))
    assert "settled" in started.at  # settled: at once again
