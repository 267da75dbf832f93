"""The fake Bot API refuses what Telegram refuses, so the other tests can rely on it."""

from __future__ import annotations

import json
from typing import Any

import aiohttp

from fakes.telegram_bot_api import TOKEN, FakeBotApi
from tests.images import picture


def _field(value: Any) -> str:
    """A parameter as PTB sends it: strings as they are, everything else JSON-encoded."""
    return value if isinstance(value, str) else json.dumps(value)


async def _post(api: FakeBotApi, method: str, form: aiohttp.FormData | dict[str, str]) -> Any:
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{api.base_url}{TOKEN}/{method}", data=form) as response,
    ):
        return await response.json()


async def call(api: FakeBotApi, method: str, **params: Any) -> dict[str, Any]:
    body: dict[str, Any] = await _post(api, method, {k: _field(v) for k, v in params.items()})
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


async def upload(api: FakeBotApi, method: str, photo: bytes, **params: Any) -> dict[str, Any]:
    """A multipart request with ``photo`` as a file part, as PTB sends an upload."""
    form = aiohttp.FormData()
    for key, value in params.items():
        form.add_field(key, _field(value))
    form.add_field("photo", photo, filename="photo.png", content_type="image/png")
    body: dict[str, Any] = await _post(api, method, form)
    return body


async def test_photos_are_uploaded_then_sent_again_by_file_id(api: FakeBotApi) -> None:
    chat = api.private_chat(api.user(9010, "Pia"))["id"]
    sent = await upload(api, "sendPhoto", picture(1600, 900), chat_id=chat, caption="<b>Hi</b>")
    assert sent["ok"] is True
    sizes = sent["result"]["photo"]
    # The sizes Telegram keeps: thumbnails up to the photo itself, the largest last.
    assert [(s["width"], s["height"]) for s in sizes] == [
        (90, 51),
        (320, 180),
        (800, 450),
        (1280, 720),
        (1600, 900),
    ]
    assert sent["result"]["caption"] == "<b>Hi</b>"  # no parse_mode: the text as written
    again = await call(
        api,
        "sendPhoto",
        chat_id=chat,
        photo=sizes[-1]["file_id"],
        caption="<b>Hi</b>",
        parse_mode="HTML",
    )
    assert again["ok"] is True and again["result"]["caption"] == "Hi"
    assert again["result"]["caption_entities"] == [{"type": "bold", "offset": 0, "length": 2}]
    assert len(api.photos) == 1  # the second send uploaded nothing
    unknown = await call(api, "sendPhoto", chat_id=chat, photo="AgACnot-ours")
    assert unknown["description"] == "Bad Request: wrong file identifier/HTTP URL specified"


async def test_photo_and_caption_limits_are_refused(api: FakeBotApi) -> None:
    chat = api.private_chat(api.user(9011, "Quin"))["id"]

    async def refused(photo: bytes, **params: Any) -> str:
        sent = await upload(api, "sendPhoto", photo, chat_id=chat, **params)
        assert sent["ok"] is False
        return str(sent["description"])

    assert await refused(b"GIF89a, or so it says") == "Bad Request: IMAGE_PROCESS_FAILED"
    assert await refused(picture(9000, 1001)) == "Bad Request: PHOTO_INVALID_DIMENSIONS"
    assert await refused(picture(2100, 100)) == "Bad Request: PHOTO_INVALID_DIMENSIONS"
    assert await refused(b"\x89PNG" + bytes(10_000_000)) == "Bad Request: PHOTO_SAVE_FILE_INVALID"
    # 1024 characters after entity parsing: the tags do not count, each entity is one.
    fits = "<code>" + "&lt;" * 1024 + "</code>"
    assert (
        await upload(api, "sendPhoto", picture(), chat_id=chat, caption=fits, parse_mode="HTML")
    )["ok"]
    too_long = "<code>" + "&lt;" * 1025 + "</code>"
    assert await refused(picture(), caption=too_long, parse_mode="HTML") == (
        "Bad Request: message caption is too long"
    )


async def test_captions_are_edited_and_text_edits_refused_on_photos(api: FakeBotApi) -> None:
    chat = api.private_chat(api.user(9012, "Ria"))["id"]
    keyboard = {"inline_keyboard": [[{"text": "A", "callback_data": "a"}]]}
    sent = await upload(
        api, "sendPhoto", picture(), chat_id=chat, caption="Q?", reply_markup=keyboard
    )
    message_id = sent["result"]["message_id"]
    assert sent["result"]["reply_markup"] == keyboard
    text_edit = await call(api, "editMessageText", chat_id=chat, message_id=message_id, text="x")
    assert text_edit["description"] == "Bad Request: there is no text in the message to edit"
    same = await call(
        api,
        "editMessageCaption",
        chat_id=chat,
        message_id=message_id,
        caption="Q?",
        reply_markup=keyboard,
    )
    assert "message is not modified" in same["description"]
    edited = await call(
        api,
        "editMessageCaption",
        chat_id=chat,
        message_id=message_id,
        caption="Q? <i>answered</i>",
        parse_mode="HTML",
    )
    assert edited["ok"] is True and edited["result"]["caption"] == "Q? answered"
    assert "reply_markup" not in edited["result"]
    text = await call(api, "sendMessage", chat_id=chat, text="plain")
    no_caption = await call(
        api,
        "editMessageCaption",
        chat_id=chat,
        message_id=text["result"]["message_id"],
        caption="x",
    )
    assert no_caption["description"] == "Bad Request: there is no caption in the message to edit"


async def test_a_photo_replies_to_a_message_of_its_chat_as_a_text_does(api: FakeBotApi) -> None:
    chat = api.private_chat(api.user(9013, "Sol"))["id"]
    said = await call(api, "sendMessage", chat_id=chat, text="paris")
    asked = {"message_id": said["result"]["message_id"]}
    sent = await upload(api, "sendPhoto", picture(), chat_id=chat, reply_parameters=asked)
    assert sent["ok"] is True and sent["result"]["reply_to_message"]["text"] == "paris"
    gone = await upload(
        api, "sendPhoto", picture(), chat_id=chat, reply_parameters={"message_id": 999_999}
    )
    assert gone["description"] == "Bad Request: message to be replied not found"
