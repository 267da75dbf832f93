"""The fake Bot API refuses what Telegram refuses, so the other tests can rely on it."""

from __future__ import annotations

import json
from typing import Any

import aiohttp

from fakes.telegram_bot_api import TOKEN, FakeBotApi


async def call(api: FakeBotApi, method: str, **params: Any) -> dict[str, Any]:
    form = {k: v if isinstance(v, str) else json.dumps(v) for k, v in params.items()}
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{api.base_url}{TOKEN}/{method}", data=form) as response,
    ):
        body: dict[str, Any] = await response.json()
        return body


async def test_limits_and_unmodified_edits_are_refused(api: FakeBotApi) -> None:
    user = api.user(9001, "Zed")
    chat = api.private_chat(user)["id"]
    assert (await call(api, "sendMessage", chat_id=chat, text="x" * 4097))["ok"] is False
    assert (await call(api, "sendMessage", chat_id=chat, text="x" * 4096))["ok"] is True
    # Counted after entity parsing: markup does not count, entities count as one character.
    long_html = "<b>" + "&amp;" * 4096 + "</b>"
    assert (await call(api, "sendMessage", chat_id=chat, text=long_html, parse_mode="HTML"))[
        "ok"
    ] is True
    for bad in ("a < b", "a & b", "<x>y</x>", "<b>open"):
        sent = await call(api, "sendMessage", chat_id=chat, text=bad, parse_mode="HTML")
        assert sent["ok"] is False and "can't parse entities" in sent["description"], bad
    keyboard = {"inline_keyboard": [[{"text": "A", "callback_data": "x" * 65}]]}
    sent = await call(api, "sendMessage", chat_id=chat, text="q", reply_markup=keyboard)
    assert sent["description"] == "Bad Request: BUTTON_DATA_INVALID"
    keyboard = {"inline_keyboard": [[{"text": "A", "callback_data": "x" * 64}]]}
    sent = await call(api, "sendMessage", chat_id=chat, text="q", reply_markup=keyboard)
    message_id = sent["result"]["message_id"]
    same = await call(
        api,
        "editMessageText",
        chat_id=chat,
        message_id=message_id,
        text="q",
        reply_markup=keyboard,
    )
    assert same["ok"] is False and "message is not modified" in same["description"]
    changed = await call(api, "editMessageText", chat_id=chat, message_id=message_id, text="q")
    assert changed["ok"] is True and "reply_markup" not in changed["result"]


async def test_poll_limits_are_refused(api: FakeBotApi) -> None:
    chat = api.private_chat(api.user(9002, "Yan"))["id"]

    async def poll(**params: Any) -> dict[str, Any]:
        base: dict[str, Any] = {
            "chat_id": chat,
            "question": "Q?",
            "options": [{"text": "a"}, {"text": "b"}],
            "type": "quiz",
            "is_anonymous": False,
            "correct_option_ids": [0],
        }
        return await call(api, "sendPoll", **{**base, **params})

    assert (await poll())["ok"] is True
    assert (await poll(question="q" * 301))["ok"] is False
    assert (await poll(options=[{"text": "x" * 101}, {"text": "b"}]))["ok"] is False
    assert (await poll(options=[{"text": "a"}]))["ok"] is False
    assert (await poll(options=[{"text": str(i)} for i in range(11)]))["ok"] is False
    assert (await poll(explanation="e" * 201))["ok"] is False
    assert (await poll(explanation="a\nb\nc\nd"))["ok"] is False
    assert (await poll(correct_option_ids=[]))["ok"] is False


async def test_rate_limit_injection(api: FakeBotApi) -> None:
    chat = api.private_chat(api.user(9003, "Xia"))["id"]
    api.fail_next("sendMessage", times=2, retry_after=3)
    for _ in range(2):
        refused = await call(api, "sendMessage", chat_id=chat, text="hi")
        assert refused["error_code"] == 429 and refused["parameters"] == {"retry_after": 3}
    assert (await call(api, "sendMessage", chat_id=chat, text="hi"))["ok"] is True
