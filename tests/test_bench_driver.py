"""The Telegram benchmark's driver starts every burst from the same state (fast: no bots)."""

from __future__ import annotations

import asyncio

import aiohttp

from bench.telegram import Side, _idle
from fakes.telegram_bot_api import TOKEN, FakeBotApi


async def _get_me(api: FakeBotApi, http: aiohttp.ClientSession) -> None:
    async with http.post(f"{api.base_url}{TOKEN}/getMe") as response:
        assert response.status == 200
        await response.read()


async def test_a_burst_waits_until_its_bot_holds_no_connection_but_the_long_polls() -> None:
    """A client's pool keeps idle connections 5-10 s: a burst must not find them warm."""
    api = FakeBotApi()
    await api.start()
    try:
        side = Side("ours", api)  # idle since long ago: only the connections count
        async with aiohttp.ClientSession() as long_poll:
            await _get_me(api, long_poll)
            async with aiohttp.ClientSession() as requests:
                await asyncio.gather(*(_get_me(api, requests) for _ in range(3)))
                assert api.open_connections == 4  # kept alive, idle
                waiting = asyncio.create_task(_idle(side, 0.0))
                await asyncio.sleep(0.3)
                assert not waiting.done()
            await asyncio.wait_for(waiting, 5)  # closed: only the long poll's is left
            assert api.open_connections == 1
    finally:
        await api.close()
