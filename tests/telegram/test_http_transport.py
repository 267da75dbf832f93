"""The aiohttp transport under python-telegram-bot: what the Bot API receives, and how failures
reach the bot (as PTB's own exceptions, like with its default httpx transport)."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from typing import Any

import pytest
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import BadRequest, NetworkError, RetryAfter, TimedOut
from telegram.request import BaseRequest, HTTPXRequest

from adapters.telegram.transport import AiohttpRequest
from bot.engine import QuizEngine
from fakes.telegram_bot_api import TOKEN, FakeBotApi
from tests.images import picture
from tests.telegram.conftest import Launch

PNG = picture()  # a real image: the fake Bot API reads what it is sent, as Telegram does


async def started(api: FakeBotApi, request: BaseRequest) -> Bot:
    bot = Bot(TOKEN, base_url=api.base_url, request=request, get_updates_request=request)
    await bot.initialize()
    return bot


@pytest.fixture
async def bot(api: FakeBotApi) -> AsyncIterator[Bot]:
    bot = await started(api, AiohttpRequest())
    yield bot
    await bot.shutdown()


async def exchange(api: FakeBotApi, bot: Bot) -> list[tuple[str, dict[str, Any]]]:
    """A few calls of every kind of body the bot makes; what the fake received."""
    mark = len(api.calls)
    user = api.user(4242, "Ana")
    chat = api.private_chat(user)
    keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("Yes", callback_data="y:1")]])
    sent = await bot.send_message(chat["id"], "<b>Hi</b> &amp; ✓", parse_mode="HTML")
    await bot.edit_message_text(
        "Again", chat_id=chat["id"], message_id=sent.message_id, reply_markup=keyboard
    )
    await bot.send_photo(chat["id"], PNG, caption="a chart")
    await bot.get_updates(timeout=0)
    return [(c.method, c.params) for c in api.calls[mark:]]


async def test_the_bot_api_receives_the_same_requests_as_over_httpx(
    api: FakeBotApi, bot: Bot
) -> None:
    over_aiohttp = await exchange(api, bot)
    reference = await started(api, HTTPXRequest())
    try:
        over_httpx = await exchange(api, reference)
    finally:
        await reference.shutdown()
    assert [m for m, _ in over_aiohttp] == [
        "sendMessage",
        "editMessageText",
        "sendPhoto",
        "getUpdates",
    ]
    # Message ids differ (new messages); everything else is sent identically.
    for (_, ours), (_, theirs) in zip(over_aiohttp, over_httpx, strict=True):
        ours, theirs = dict(ours), dict(theirs)
        if "message_id" in ours:
            ours["message_id"] = theirs["message_id"]
        assert ours == theirs


async def test_a_file_upload_arrives_whole_with_its_caption(api: FakeBotApi, bot: Bot) -> None:
    user = api.user(4243, "Bo")
    message = await bot.send_photo(api.private_chat(user)["id"], PNG, caption="the stats")
    assert api.photos == [PNG]
    assert message.caption == "the stats"


async def test_a_slow_answer_raises_timed_out(api: FakeBotApi) -> None:
    bot = await started(api, AiohttpRequest(read_timeout=0.2))
    try:
        api.delays["getMyCommands"] = 1.0
        with pytest.raises(TimedOut):
            await bot.get_my_commands()
        # A timeout given to the call wins over the default, as with httpx.
        api.delays["getMyCommands"] = 0.3
        assert await bot.get_my_commands(read_timeout=2.0) == ()
    finally:
        await bot.shutdown()


async def test_a_full_pool_raises_timed_out_without_sending(api: FakeBotApi) -> None:
    bot = await started(api, AiohttpRequest(connection_pool_size=1, pool_timeout=0.1))
    try:
        api.delays["getMyCommands"] = 0.5
        slow = asyncio.create_task(bot.get_my_commands())
        await asyncio.sleep(0.05)
        mark = len(api.calls)
        with pytest.raises(TimedOut, match="Pool timeout"):
            await bot.get_my_commands()
        assert await slow == ()
        assert len(api.calls) == mark + 1  # only the slow one reached the server
    finally:
        await bot.shutdown()


async def test_connection_refused_raises_network_error() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again at once: nothing listens there
    request = AiohttpRequest()
    bot = Bot(TOKEN, base_url=f"http://127.0.0.1:{port}/bot", request=request)
    await request.initialize()
    try:
        with pytest.raises(NetworkError, match=r"aiohttp\.ClientConnectorError") as caught:
            await bot.get_my_commands()
        assert not isinstance(caught.value, TimedOut)
    finally:
        await request.shutdown()


# PTB itself reads RetryAfter.retry_after, which warns about its future type.
@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")
async def test_429_raises_retry_after_and_400_bad_request(api: FakeBotApi, bot: Bot) -> None:
    user = api.user(4244, "Cy")
    chat_id = api.private_chat(user)["id"]
    api.fail_next("sendMessage", retry_after=7)
    with pytest.raises(RetryAfter) as caught:
        await bot.send_message(chat_id, "hello")
    assert caught.value.retry_after == 7
    with pytest.raises(BadRequest, match=r"(?i)can't parse entities"):
        await bot.send_message(chat_id, "a < b", parse_mode="HTML")


async def test_a_request_before_initialize_or_after_shutdown_is_refused(api: FakeBotApi) -> None:
    request = AiohttpRequest()
    bot = Bot(TOKEN, base_url=api.base_url, request=request)
    with pytest.raises(NetworkError, match="not initialized"):  # as over httpx
        await request.post(f"{api.base_url}{TOKEN}/getMe")
    await request.initialize()
    assert (await bot.get_me()).id == api.bot_user["id"]
    await request.shutdown()
    await request.shutdown()  # twice is harmless
    with pytest.raises(NetworkError, match="not initialized"):  # as over httpx
        await request.post(f"{api.base_url}{TOKEN}/getMe")


async def test_the_bot_talks_to_telegram_over_aiohttp(
    api: FakeBotApi, engine: QuizEngine, launch: Launch
) -> None:
    adapter = await launch(engine)
    assert adapter.application is not None
    bot = adapter.application.bot
    assert isinstance(bot.request, AiohttpRequest)
    # getUpdates has its own: a long poll never waits for a free connection.
    assert isinstance(bot._request[0], AiohttpRequest)
    assert bot._request[0] is not bot.request
    await api.wait_for("getUpdates")


def test_proxies_come_from_the_environment_like_httpx(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("http_proxy", "https_proxy", "no_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.example.org:3128")
    monkeypatch.setenv("NO_PROXY", "localhost,127.0.0.1")
    request = AiohttpRequest()
    assert request._proxy("https://api.telegram.org/bot1/getMe") == "http://proxy.example.org:3128"
    assert request._proxy("http://127.0.0.1:8081/bot1/getMe") is None
