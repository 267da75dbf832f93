"""A local stand-in for the Telegram Bot API, for end-to-end tests of the Telegram adapter.

It listens on a loopback port, answers like Telegram (``{"ok": true, "result": ...}`` with real
Message, Poll and User objects), serves updates the test injects through ``getUpdates`` (long
polling aware), records every call, and rejects what Telegram rejects: text over 4096 characters
and captions over 1024 after entity parsing, photos that are not images, over 10 MB, or past
Telegram's dimensions (width + height 10,000, one side 20 times the other), a ``file_id`` it
never issued, malformed HTML (and, stricter than Telegram, which drops them silently,
entities nested inside or around ``code``/``pre``), callback_data over 64 bytes, empty button
text, edits to identical content ("message is not modified"), poll limits, answering a callback
query twice, and more than 20 messages and edits a minute in one group (429, as Telegram does),
and documents without a file name or over the 50 MB a bot may upload.
A user who blocked the bot (:meth:`FakeBotApi.block`), deactivated their account, or never
started it (:meth:`FakeBotApi.never_started`, or any private chat the user never opened) is
refused with Telegram's 403 and its description; a blocked user's own next message to the bot
unblocks it, as on Telegram. A group the bot was removed from (:meth:`FakeBotApi.remove_bot`)
refuses whatever the bot sends there with 403 too ("bot was kicked from the supergroup chat",
or "bot is not a member of the supergroup chat" when it left).
It can answer the next calls of a method with 429 Too Many Requests and a ``retry_after``,
delay a method, and say who administers a group (``getChatMember``).

Once a webhook is set and :meth:`FakeBotApi.deliver_webhook_to` names a loopback stand-in for
its HTTPS URL, updates are POSTed there as Telegram does: with the secret token, over up to
``max_connections`` (default 40) concurrent connections, again after a failure, and a Bot API
method in a response's JSON body is carried out (recorded with ``via_webhook``).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import itertools
import json
import math
import re
import time
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from aiohttp import web
from PIL import Image, UnidentifiedImageError

TOKEN = "123456789:AAFakeTokenForTestsOnly_abcdefghijklm"
BOT_ID = 123456789
BOT_USERNAME = "quiz_test_bot"

MAX_TEXT = 4096
MAX_CAPTION = 1024
MAX_PHOTO_BYTES = 10 * 1000 * 1000  # sendPhoto: "The photo must be at most 10 MB in size"
MAX_PHOTO_SIDES = 10_000  # "width and height must not exceed 10000 in total"
MAX_PHOTO_RATIO = 20  # "Width and height ratio must be at most 20"
MAX_UPLOAD_BYTES = 50 * 1000 * 1000  # a multipart request: "50 MB for other files"
PHOTO_SIZES = (90, 320, 800, 1280, 2560)  # the longest side of each size Telegram keeps
MAX_CALLBACK_DATA = 64
MAX_CALLBACK_ANSWER = 200
MAX_PLACEHOLDER = 64  # ForceReply.input_field_placeholder
POLL_QUESTION = 300
POLL_OPTION = 100
POLL_EXPLANATION = 200
POLL_EXPLANATION_LINE_FEEDS = 2
POLL_OPTIONS = (2, 10)
GROUP_LIMIT = 20  # messages and edits per minute in one group
WEBHOOK_CONNECTIONS = 40  # setWebhook's default max_connections
MAX_WEBHOOK_CONNECTIONS = 100
WEBHOOK_ATTEMPTS = 5  # deliveries of one update before the fake gives up on it
MAX_DOWNLOAD = 20 * 1024 * 1024  # getFile: bots may download files up to 20 MB
MAX_FILENAME = 255
# What counts towards GROUP_LIMIT.
SENDING_METHODS = {
    "sendMessage",
    "editMessageText",
    "editMessageReplyMarkup",
    "sendPoll",
    "sendPhoto",
    "editMessageCaption",
    "sendDocument",
}

FILE_NAMES = "_file_names"  # in a call's params: each uploaded file's name, by parameter
DEEP_LINK = re.compile(
    r"https://t\.me/(?P<bot>[A-Za-z0-9_]{5,32})\?start=(?P<payload>[A-Za-z0-9_-]{1,64})"
)

# Parameters PTB sends JSON-encoded; every other parameter is a plain string.
JSON_PARAMS = {
    "chat_id",
    "message_id",
    "reply_markup",
    "reply_parameters",
    "options",
    "correct_option_ids",
    "is_anonymous",
    "allows_multiple_answers",
    "offset",
    "limit",
    "timeout",
    "allowed_updates",
    "commands",
    "scope",
    "link_preview_options",
    "show_alert",
    "cache_time",
    "drop_pending_updates",
    "max_connections",
    "disable_notification",
    "protect_content",
    "entities",
    "explanation_entities",
    "caption_entities",
    "show_caption_above_media",
}

HTML_TAGS = {
    "b": "bold",
    "strong": "bold",
    "i": "italic",
    "em": "italic",
    "u": "underline",
    "ins": "underline",
    "s": "strikethrough",
    "strike": "strikethrough",
    "del": "strikethrough",
    "code": "code",
    "pre": "pre",
    "a": "text_link",
    "tg-spoiler": "spoiler",
    "blockquote": "blockquote",
}
NAMED_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


class ApiError(Exception):
    def __init__(self, code: int, description: str, parameters: dict[str, Any] | None = None):
        super().__init__(description)
        self.code = code
        self.description = description
        self.parameters = parameters


def bad_request(description: str) -> ApiError:
    return ApiError(400, f"Bad Request: {description}")


_TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9-]*)(\s[^<>]*)?>")
_REFERENCE = re.compile(r"&(#[0-9]{1,7}|#x[0-9a-fA-F]{1,6}|[a-zA-Z]+);")
_SPECIAL = re.compile(r"[<&]")


def _byte_offset(source: str, index: int) -> int:
    """Where ``source[index]`` starts in UTF-8, as Telegram's error messages count."""
    return len(source[:index].encode())


def _decode_reference(source: str, i: int) -> tuple[str, int]:
    """The character an ``&...;`` reference at ``source[i]`` stands for, and where it ends."""
    match = _REFERENCE.match(source, i)
    if not match:
        raise bad_request(
            "can't parse entities: Unexpected character '&' at byte offset "
            f"{_byte_offset(source, i)}"
        )
    ref = match.group(1)
    if ref.startswith("#x"):
        return chr(int(ref[2:], 16)), match.end()
    if ref.startswith("#"):
        return chr(int(ref[1:])), match.end()
    if ref in NAMED_ENTITIES:
        return NAMED_ENTITIES[ref], match.end()
    raise bad_request(f'can\'t parse entities: Unsupported HTML entity "&{ref};"')


def _close_tag(
    stack: list[tuple[str, int, str]],
    name: str,
    offset: int,
    at: int,
    entities: list[dict[str, Any]],
) -> None:
    """A closing tag at byte offset ``at``: pop its opening tag and add its entity."""
    if not stack or stack[-1][0] != name:
        expected = stack[-1][0] if stack else ""
        raise bad_request(
            f"can't parse entities: Unmatched end tag at byte offset {at}, "
            f'expected "</{expected}>", found "</{name}>"'
        )
    _, start, attributes = stack.pop()
    language = re.search(r'class="language-([^"]+)"', attributes)
    if name == "code" and stack and stack[-1][0] == "pre":
        if language:  # the language of the enclosing pre; no entity of its own
            stack[-1] = (*stack[-1][:2], f'language="{language.group(1)}"')
    elif offset > start:
        entity: dict[str, Any] = {
            "type": HTML_TAGS[name],
            "offset": start,
            "length": offset - start,
        }
        known = re.search(r'language="([^"]+)"', attributes)
        if name == "pre" and known:
            entity["language"] = known.group(1)
        entities.append(entity)


def _tag(source: str, i: int) -> tuple[bool, str, str, int]:
    """The tag at ``source[i]``: whether it closes, its name, its attributes, its end."""
    match = _TAG.match(source, i)
    if not match:
        raise bad_request(
            "can't parse entities: Unexpected character '<' at byte offset "
            f"{_byte_offset(source, i)}"
        )
    closing, name = match.group(1) == "/", match.group(2).lower()
    if name not in HTML_TAGS:
        raise bad_request(
            f'can\'t parse entities: Unsupported start tag "{name}" at byte offset '
            f"{_byte_offset(source, i)}"
        )
    return closing, name, match.group(3) or "", match.end()


def parse_html(source: str) -> tuple[str, list[dict[str, Any]]]:
    """Text and entities as Telegram derives them from HTML parse mode; strict about bare
    ``<`` and ``&`` and unbalanced or unsupported tags, like Telegram. ``<pre><code
    class="language-x">`` gives one ``pre`` entity with its language. Code and pre may neither
    contain nor be part of another entity (Telegram's rule; it would drop one of them)."""
    out: list[str] = []
    offset = 0  # UTF-16 position in the output
    stack: list[tuple[str, int, str]] = []  # (tag, output offset, attributes)
    entities: list[dict[str, Any]] = []
    i = 0
    while i < len(source):
        char = source[i]
        if char == "<":
            closing, name, attributes, end = _tag(source, i)
            if closing:
                _close_tag(stack, name, offset, _byte_offset(source, i), entities)
            else:
                _check_code_nesting(stack, name, _byte_offset(source, i))
                stack.append((name, offset, attributes))
            i = end
            continue
        if char == "&":
            decoded, i = _decode_reference(source, i)
        else:
            special = _SPECIAL.search(source, i)
            end = special.start() if special else len(source)
            decoded = source[i:end]  # up to the next tag or reference, taken whole
            i = end
        out.append(decoded)
        offset += utf16_len(decoded)
    if stack:
        raise bad_request(
            "can't parse entities: Can't find end tag corresponding to start tag "
            f'"{stack[-1][0]}"'
        )
    entities.sort(key=lambda e: (e["offset"], -e["length"]))
    return "".join(out), entities


def _check_poll_texts(question: str, options: list[str]) -> None:
    """Telegram's limits on a poll's question and options."""
    if not question.strip():
        raise bad_request("poll question must be non-empty")
    if utf16_len(question) > POLL_QUESTION:
        raise bad_request(f"poll question length must not exceed {POLL_QUESTION}")
    if len(options) < POLL_OPTIONS[0]:
        raise bad_request("poll must have at least 2 option")
    if len(options) > POLL_OPTIONS[1]:
        raise bad_request(f"poll can't have more than {POLL_OPTIONS[1]} options")
    for option in options:
        if not option.strip():
            raise bad_request("poll options must be non-empty")
        if utf16_len(option) > POLL_OPTION:
            raise bad_request(f"poll options length must not exceed {POLL_OPTION}")


def _photo_dimensions(data: bytes) -> tuple[int, int]:
    """Width and height of an uploaded photo, as Telegram's image processing reads it."""
    try:
        with Image.open(io.BytesIO(data)) as image:
            return image.size
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError):
        raise bad_request("IMAGE_PROCESS_FAILED") from None


def _check_code_nesting(stack: list[tuple[str, int, str]], name: str, byte: int) -> None:
    code_like = {"code", "pre"}
    open_tags = [tag for tag, _, _ in stack]
    code_in_pre = name == "code" and open_tags[-1:] == ["pre"]
    if code_in_pre:
        return
    if any(tag in code_like for tag in open_tags) or (name in code_like and open_tags):
        raise bad_request(
            f'can\'t parse entities: "{name}" can\'t be nested with "{open_tags[-1]}" '
            f"at byte offset {byte}"
        )


@dataclass
class ApiCall:
    """One request the bot made, with what the fake answered."""

    index: int
    method: str
    params: dict[str, Any]
    ok: bool
    result: Any = None
    error_code: int | None = None
    description: str | None = None
    at: float = field(default_factory=time.monotonic)
    via_webhook: bool = False  # made in the response to a webhook call, not as a request


@dataclass
class StoredMessage:
    chat: dict[str, Any]
    message_id: int
    sender: dict[str, Any]
    date: int
    text: str | None = None
    entities: list[dict[str, Any]] = field(default_factory=list)
    reply_markup: dict[str, Any] | None = None
    poll: dict[str, Any] | None = None
    photo: list[dict[str, Any]] | None = None
    document: dict[str, Any] | None = None
    caption: str | None = None
    caption_entities: list[dict[str, Any]] = field(default_factory=list)
    edit_date: int | None = None
    reply_to: StoredMessage | None = None  # the message this one replies to

    @property
    def chat_id(self) -> int:
        return int(self.chat["id"])

    @property
    def buttons(self) -> list[dict[str, Any]]:
        if not self.reply_markup or "inline_keyboard" not in self.reply_markup:
            return []
        return [button for row in self.reply_markup["inline_keyboard"] for button in row]

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "message_id": self.message_id,
            "date": self.date,
            "chat": self.chat,
            "from": self.sender,
        }
        if self.text is not None:
            data["text"] = self.text
            if self.entities:
                data["entities"] = self.entities
        if self.poll is not None:
            data["poll"] = self.poll
        if self.photo is not None:
            data["photo"] = self.photo
        if self.document is not None:
            data["document"] = self.document
        if self.caption is not None:
            data["caption"] = self.caption
            if self.caption_entities:
                data["caption_entities"] = self.caption_entities
        if self.reply_markup is not None and "inline_keyboard" in self.reply_markup:
            data["reply_markup"] = self.reply_markup  # Telegram returns inline keyboards only
        if self.edit_date is not None:
            data["edit_date"] = self.edit_date
        if self.reply_to is not None:  # one level deep, as Telegram sends it
            replied = self.reply_to.to_dict()
            replied.pop("reply_to_message", None)
            data["reply_to_message"] = replied
        return data


@dataclass
class CallbackQueryState:
    id: str
    data: str
    answered: bool = False
    text: str | None = None
    url: str | None = None  # a deep link the client opens (answerCallbackQuery's url)


NOT_MODIFIED = (
    "message is not modified: specified new message content and reply markup are "
    "exactly the same as a current content and reply markup of the message"
)


def _edited(message: StoredMessage, **changes: Any) -> dict[str, Any]:
    """``message`` after an edit's ``changes`` (its fields' new values), as the edit returns
    it; refused, as Telegram refuses it, when they change nothing."""
    if all(getattr(message, name) == value for name, value in changes.items()):
        raise bad_request(NOT_MODIFIED)
    for name, value in changes.items():
        setattr(message, name, value)
    message.edit_date = int(time.time())
    return message.to_dict()


class FakeBotApi:
    """The fake server. ``await start()``, point PTB's ``base_url`` at :attr:`base_url`."""

    def __init__(self, token: str = TOKEN, max_poll_wait: float = 1.0) -> None:
        self.token = token
        self.max_poll_wait = max_poll_wait
        self.bot_user = {
            "id": BOT_ID,
            "is_bot": True,
            "first_name": "Quiz Test Bot",
            "username": BOT_USERNAME,
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": False,
        }
        self.calls: list[ApiCall] = []
        self.updates: list[dict[str, Any]] = []
        self.chats: dict[int, dict[str, Any]] = {}
        self.messages: dict[tuple[int, int], StoredMessage] = {}
        self.polls: dict[str, tuple[int, int]] = {}  # poll id -> (chat id, message id)
        self.callback_queries: dict[str, CallbackQueryState] = {}
        self.commands: dict[tuple[str, str], list[dict[str, str]]] = {}
        self.webhook: dict[str, Any] = {}
        self.faults: dict[str, deque[int]] = defaultdict(deque)
        self.delays: dict[str, float] = {}  # method -> seconds before it is answered
        self.chat_admins: dict[int, dict[int, str]] = defaultdict(dict)  # chat -> user -> status
        self.photos: list[bytes] = []  # every photo uploaded (not those sent by file_id)
        # Files by file_id, as getFile serves them: those users sent (documents) and the
        # photos the bot uploaded: (unique id, declared size, bytes); and the file_path
        # getFile gave each, for the download endpoint.
        self.files: dict[str, tuple[str, int, bytes]] = {}
        self.file_paths: dict[str, str] = {}
        self.downloads: list[str] = []  # file paths downloaded, in order
        self.documents: list[tuple[str, bytes]] = []  # (file name, bytes) the bot sent
        # Private chats Telegram refuses to deliver to: chat id -> the 403's description.
        self.refusing: dict[int, str] = {}
        # Telegram's per-group limit, over a window of ``stamp()`` seconds: tests on a virtual
        # clock stamp calls with its time, so the window is a minute of that clock.
        self.group_limit = GROUP_LIMIT
        self.rate_window = 60.0
        self.stamp: Callable[[], float] = time.monotonic  # when a call arrived (ApiCall.at)
        self._group_sends: dict[int, deque[float]] = defaultdict(deque)
        self._update_ids = itertools.count(1)
        self._message_ids: dict[int, itertools.count[int]] = {}
        self._ids = itertools.count(1)
        self._update_event = asyncio.Event()
        self._call_event = asyncio.Event()
        self._closing = False
        self._runner: web.AppRunner | None = None
        self.listeners: list[Callable[[ApiCall], None]] = []  # told of every call, as made
        self.webhook_target: str | None = None  # where webhook updates are POSTed
        self.undelivered: list[dict[str, Any]] = []  # webhook updates given up on
        self.webhook_peak = 0  # most webhook calls in flight at once
        self._webhook_in_flight = 0
        self._webhook_event = asyncio.Event()
        self._deliverers: list[asyncio.Task[None]] = []
        self._webhook_http: aiohttp.ClientSession | None = None
        self.port = 0

    # -- server ------------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/bot"

    async def start(self) -> None:
        app = web.Application(client_max_size=MAX_UPLOAD_BYTES)
        app.router.add_route("*", "/bot{token}/{method}", self._handle)
        app.router.add_get("/file/bot{token}/{path:.+}", self._download)
        self._runner = web.AppRunner(app, handle_signals=False, shutdown_timeout=0.5)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = int(self._runner.addresses[0][1])

    @property
    def open_connections(self) -> int:
        """The HTTP connections clients hold open to this server now, idle ones included."""
        server = self._runner.server if self._runner is not None else None
        return len(server.connections) if server is not None else 0

    async def close(self) -> None:
        self._closing = True
        self._update_event.set()
        self._webhook_event.set()
        for task in self._deliverers:
            task.cancel()
        for task in self._deliverers:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if self._webhook_http is not None:
            await self._webhook_http.close()
        if self._runner is not None:
            await self._runner.cleanup()

    async def _handle(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        if request.match_info["token"] != self.token:
            return web.json_response(
                {"ok": False, "error_code": 401, "description": "Unauthorized"}, status=401
            )
        params = await self._params(request)
        status, body = await self._call(method, params)
        return web.json_response(body, status=status)

    async def _download(self, request: web.Request) -> web.Response:
        """``GET /file/bot<token>/<file_path>``: a file's bytes, for a path getFile gave."""
        if request.match_info["token"] != self.token:
            return web.Response(status=401, text="Unauthorized")
        path = request.match_info["path"]
        file_id = self.file_paths.get(path)
        if file_id is None:
            return web.Response(status=404, text="Not Found")
        self.downloads.append(path)
        return web.Response(body=self.files[file_id][2])

    async def _call(
        self, method: str, params: dict[str, Any], *, via_webhook: bool = False
    ) -> tuple[int, dict[str, Any]]:
        """Carry out one Bot API call; its HTTP status and JSON body."""
        if method in self.delays:
            await asyncio.sleep(self.delays[method])
        call = ApiCall(
            index=len(self.calls),
            method=method,
            params=params,
            ok=False,
            at=self.stamp(),
            via_webhook=via_webhook,
        )
        try:
            self._check_refusal(method, params)
            self._check_group_rate(method, params)
            if self.faults[method]:
                retry_after = self.faults[method].popleft()
                raise ApiError(
                    429,
                    f"Too Many Requests: retry after {retry_after}",
                    {"retry_after": retry_after},
                )
            handler = getattr(self, f"api_{method}", None)
            if handler is None:
                raise ApiError(404, "Not Found: method not found")
            result = await handler(params) if method == "getUpdates" else handler(params)
        except ApiError as error:
            call.error_code, call.description = error.code, error.description
            self._record(call)
            body: dict[str, Any] = {
                "ok": False,
                "error_code": error.code,
                "description": error.description,
            }
            if error.parameters:
                body["parameters"] = error.parameters
            return error.code, body
        call.ok, call.result = True, result
        self._record(call)
        group = self._group_id(params)
        if method in SENDING_METHODS and group is not None:
            self._group_sends[group].append(call.at)
        return 200, {"ok": True, "result": result}

    # -- webhook delivery -----------------------------------------------------------------------

    def deliver_webhook_to(self, url: str) -> None:
        """POST updates to ``url`` (loopback) while a webhook is set, as Telegram would to the
        webhook's URL."""
        self.webhook_target = url
        if not self._deliverers:
            self._deliverers = [
                asyncio.create_task(self._deliverer(slot))
                for slot in range(MAX_WEBHOOK_CONNECTIONS)
            ]

    def _webhook_connections(self) -> int:
        try:
            wanted = int(self.webhook.get("max_connections") or WEBHOOK_CONNECTIONS)
        except (TypeError, ValueError):
            wanted = WEBHOOK_CONNECTIONS
        return max(1, min(wanted, MAX_WEBHOOK_CONNECTIONS))

    async def _deliverer(self, slot: int) -> None:
        """One of Telegram's connections to the bot: takes the oldest undelivered update."""
        attempts: dict[int, int] = {}
        while not self._closing:
            target = self.webhook_target
            if (
                not target
                or not self.webhook.get("url")
                or not self.updates
                or slot >= self._webhook_connections()
            ):
                self._webhook_event.clear()
                await self._webhook_event.wait()
                continue
            update = self.updates.pop(0)
            self._webhook_in_flight += 1
            self.webhook_peak = max(self.webhook_peak, self._webhook_in_flight)
            try:
                delivered = await self._post_update(target, update)
            finally:
                self._webhook_in_flight -= 1
            if delivered:
                continue
            update_id = int(update["update_id"])
            attempts[update_id] = attempts.get(update_id, 0) + 1
            if attempts[update_id] >= WEBHOOK_ATTEMPTS:
                self.undelivered.append(update)
                continue
            self.updates.insert(0, update)
            await asyncio.sleep(0.1)

    async def _post_update(self, target: str, update: dict[str, Any]) -> bool:
        if self._webhook_http is None:
            self._webhook_http = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=MAX_WEBHOOK_CONNECTIONS)
            )
        headers = {}
        if self.webhook.get("secret_token"):
            headers["X-Telegram-Bot-Api-Secret-Token"] = str(self.webhook["secret_token"])
        try:
            async with self._webhook_http.post(
                target, json=update, headers=headers, timeout=aiohttp.ClientTimeout(total=60)
            ) as response:
                if not 200 <= response.status < 300:
                    return False
                raw = await response.read()
        except (aiohttp.ClientError, TimeoutError):
            return False
        await self.carry_out_webhook_reply(raw)
        return True

    async def carry_out_webhook_reply(self, raw: bytes) -> None:
        """Do what Telegram does with the body of a 2xx answer to a webhook call: carry out
        the Bot API method it names (for tests that post updates to the bot themselves)."""
        if not raw.strip():
            return
        try:
            reply = json.loads(raw)
        except ValueError:
            return  # Telegram ignores a body it cannot read
        if isinstance(reply, dict) and isinstance(reply.get("method"), str):
            params = {k: v for k, v in reply.items() if k != "method"}
            await self._call(reply["method"], params, via_webhook=True)

    @staticmethod
    def _group_id(params: dict[str, Any]) -> int | None:
        try:
            chat_id = int(params.get("chat_id", 0))
        except (TypeError, ValueError):
            return None
        return chat_id if chat_id < 0 else None

    def _check_group_rate(self, method: str, params: dict[str, Any]) -> None:
        chat_id = self._group_id(params)
        if method not in SENDING_METHODS or chat_id is None:
            return
        sent = self._group_sends[chat_id]
        now = self.stamp()
        while sent and sent[0] <= now - self.rate_window:
            sent.popleft()
        if len(sent) >= self.group_limit:
            retry_after = max(1, math.ceil(sent[0] + self.rate_window - now))
            raise ApiError(
                429, f"Too Many Requests: retry after {retry_after}", {"retry_after": retry_after}
            )

    def busiest_window(self, chat_id: int, window: float | None = None) -> int:
        """The most messages and edits the bot made in ``chat_id`` within any ``window``
        seconds (default: the rate window)."""
        window = self.rate_window if window is None else window
        times = sorted(
            c.at
            for c in self.calls
            if c.ok and c.method in SENDING_METHODS and self._group_id(c.params) == chat_id
        )
        best = 0
        start = 0
        for end, at in enumerate(times):
            while times[start] <= at - window:
                start += 1
            best = max(best, end - start + 1)
        return best

    async def _params(self, request: web.Request) -> dict[str, Any]:
        if request.content_type == "application/json":
            data = await request.json()
            return dict(data) if isinstance(data, dict) else {}
        form = await request.post()
        params: dict[str, Any] = {}
        for key, value in form.items():
            if isinstance(value, web.FileField):  # an uploaded file (multipart)
                params[key] = value.file.read()
                params.setdefault(FILE_NAMES, {})[key] = value.filename  # the name sent under
                continue
            text = value if isinstance(value, str) else str(value)
            if key in JSON_PARAMS:
                try:
                    params[key] = json.loads(text)
                    continue
                except ValueError:
                    pass
            params[key] = text
        return params

    def _record(self, call: ApiCall) -> None:
        self.calls.append(call)
        self._call_event.set()
        for listener in self.listeners:
            listener(call)

    # -- test side: users, chats and updates -----------------------------------------------------

    def user(
        self, user_id: int, first_name: str, language_code: str | None = "en", **extra: Any
    ) -> dict[str, Any]:
        user = {"id": user_id, "is_bot": False, "first_name": first_name, **extra}
        if language_code:
            user["language_code"] = language_code
        return user

    def private_chat(self, user: dict[str, Any]) -> dict[str, Any]:
        chat = {"id": user["id"], "type": "private", "first_name": user["first_name"]}
        self.chats[user["id"]] = chat
        return chat

    def group_chat(self, chat_id: int, title: str) -> dict[str, Any]:
        chat = {"id": chat_id, "type": "supergroup", "title": title}
        self.chats[chat_id] = chat
        return chat

    def _new_message(self, chat: dict[str, Any], sender: dict[str, Any]) -> StoredMessage:
        counter = self._message_ids.setdefault(chat["id"], itertools.count(1))
        message = StoredMessage(
            chat=chat, message_id=next(counter), sender=sender, date=int(time.time())
        )
        self.messages[(chat["id"], message.message_id)] = message
        return message

    def block(self, user: dict[str, Any], why: str = "bot was blocked by the user") -> None:
        """The user blocks the bot (or, with ``why="user is deactivated"``, deleted their
        account): sending to them is refused with 403 until they write to the bot again."""
        self.refusing[int(user["id"])] = f"Forbidden: {why}"

    def remove_bot(self, chat: dict[str, Any], *, kicked: bool = True) -> None:
        """The bot is removed from a group (``kicked``) or leaves it: sending there is refused
        with Telegram's 403 from now on."""
        kind = "supergroup" if chat.get("type") == "supergroup" else chat.get("type", "group")
        why = "bot was kicked from the" if kicked else "bot is not a member of the"
        self.refusing[int(chat["id"])] = f"Forbidden: {why} {kind} chat"

    def never_started(self, user: dict[str, Any]) -> None:
        """A user the bot knows (from a group) who never opened a chat with it."""
        self.chats.pop(int(user["id"]), None)
        self.refusing[int(user["id"])] = "Forbidden: bot can't initiate conversation with a user"

    def _check_refusal(self, method: str, params: dict[str, Any]) -> None:
        if method not in SENDING_METHODS:
            return
        with contextlib.suppress(KeyError, ValueError, TypeError):
            refused = self.refusing.get(int(params["chat_id"]))
            if refused is not None:
                raise ApiError(403, refused)

    def text_update(
        self,
        user: dict[str, Any],
        chat: dict[str, Any],
        text: str,
        reply_to: StoredMessage | None = None,
    ) -> dict[str, Any]:
        """A user's message (``reply_to``: as a reply to that message) as an update (not
        queued: see :meth:`send_text`)."""
        self.chats[chat["id"]] = chat
        if chat["id"] == user["id"]:  # writing to the bot unblocks it (and starts the chat)
            self.refusing.pop(int(user["id"]), None)
        message = self._new_message(chat, user)
        message.text = text
        message.reply_to = reply_to
        if text.startswith("/"):
            command = text.split()[0]
            message.entities = [{"type": "bot_command", "offset": 0, "length": utf16_len(command)}]
        return {"update_id": next(self._update_ids), "message": message.to_dict()}

    def document_update(
        self,
        user: dict[str, Any],
        chat: dict[str, Any],
        file_name: str,
        data: bytes,
        *,
        caption: str | None = None,
        mime_type: str = "application/octet-stream",
        declared_size: int | None = None,
    ) -> dict[str, Any]:
        """A user's message carrying a file (a document), as an update (not queued: see
        :meth:`send_document`). ``declared_size``: the ``file_size`` Telegram states, when a
        test stands a small file in for a big one."""
        self.chats[chat["id"]] = chat
        message = self._new_message(chat, user)
        file_id = f"BQACAgIAAxkBAAI{len(self.files) + 1:06d}"
        unique_id = f"AgAD{len(self.files) + 1:04d}"
        size = len(data) if declared_size is None else declared_size
        self.files[file_id] = (unique_id, size, data)
        message.document = {
            "file_id": file_id,
            "file_unique_id": unique_id,
            "file_name": file_name,
            "mime_type": mime_type,
            "file_size": size,
        }
        if caption is not None:
            message.caption = caption
        return {"update_id": next(self._update_ids), "message": message.to_dict()}

    def send_document(
        self,
        user: dict[str, Any],
        chat: dict[str, Any],
        file_name: str,
        data: bytes,
        **options: Any,
    ) -> None:
        """The user sends a file in ``chat``; the bot gets it through getUpdates."""
        self.enqueue(self.document_update(user, chat, file_name, data, **options))

    def open_deep_link(self, user: dict[str, Any], url: str) -> dict[str, Any]:
        """The user opens a deep link to the bot and presses Start, as Telegram's clients
        do: the private chat opens and the bot gets ``/start <payload>`` there. Returns that
        chat."""
        payload = self.start_payload(url)
        assert payload is not None, f"not a deep link to this bot: {url}"
        chat = self.private_chat(user)
        self.send_text(user, chat, f"/start {payload}")
        return chat

    def enqueue(self, update: dict[str, Any]) -> None:
        self.updates.append(update)
        self._update_event.set()
        self._webhook_event.set()

    def send_text(
        self,
        user: dict[str, Any],
        chat: dict[str, Any],
        text: str,
        reply_to: StoredMessage | None = None,
    ) -> None:
        """The user sends ``text`` in ``chat`` (as a reply to ``reply_to``); the bot gets it
        through getUpdates."""
        self.enqueue(self.text_update(user, chat, text, reply_to))

    def press(self, user: dict[str, Any], message: StoredMessage, data: str) -> str:
        """The user presses a button (or any ``data``) of ``message``; returns the query id."""
        query_id, update = self.press_update(user, message, data)
        self.enqueue(update)
        return query_id

    def press_update(
        self, user: dict[str, Any], message: StoredMessage, data: str, query_id: str | None = None
    ) -> tuple[str, dict[str, Any]]:
        """The update Telegram makes of a press (not queued: a webhook test delivers it); the
        query is registered so that its answer can be checked."""
        query_id = query_id or str(next(self._ids) * 7919)
        self.callback_queries[query_id] = CallbackQueryState(query_id, data)
        query = {
            "id": query_id,
            "from": user,
            "message": message.to_dict(),
            "chat_instance": f"ci{message.chat_id}",
            "data": data,
        }
        return query_id, {"update_id": next(self._update_ids), "callback_query": query}

    def answer_poll(self, user: dict[str, Any], poll_id: str, option_ids: list[int]) -> None:
        chat_id, message_id = self.polls[poll_id]
        poll = self.messages[(chat_id, message_id)].poll
        assert poll is not None
        for index in option_ids:
            poll["options"][index]["voter_count"] += 1
        poll["total_voter_count"] += 1
        answer = {
            "poll_id": poll_id,
            "user": user,
            "option_ids": option_ids,
            "option_persistent_ids": [poll["options"][i]["persistent_id"] for i in option_ids],
        }
        self.enqueue({"update_id": next(self._update_ids), "poll_answer": answer})

    def fail_next(self, method: str, times: int = 1, retry_after: int = 1) -> None:
        """Answer the next ``times`` calls of ``method`` with 429 and ``retry_after``."""
        self.faults[method].extend([retry_after] * times)

    # -- test side: looking at what happened ------------------------------------------------------

    def calls_of(self, method: str, *, after: int = 0, ok: bool | None = True) -> list[ApiCall]:
        return [c for c in self.calls[after:] if c.method == method and (ok is None or c.ok == ok)]

    def failed_calls(self, *, after: int = 0) -> list[ApiCall]:
        """Calls Telegram would have refused (429s injected on purpose excluded)."""
        return [c for c in self.calls[after:] if not c.ok and c.error_code != 429]

    def message_of(self, call: ApiCall) -> StoredMessage:
        result = call.result
        return self.messages[(int(result["chat"]["id"]), int(result["message_id"]))]

    async def wait_for(
        self,
        method: str | tuple[str, ...],
        predicate: Any = None,
        *,
        after: int = 0,
        within: float = 5.0,
    ) -> ApiCall:
        """The first successful call of ``method`` (or one of several) at or after index
        ``after`` matching ``predicate``; waits for it up to ``within`` seconds."""
        methods = (method,) if isinstance(method, str) else method
        loop = asyncio.get_running_loop()
        deadline = loop.time() + within
        while True:
            for call in self.calls[after:]:
                if call.method in methods and call.ok and (predicate is None or predicate(call)):
                    return call
            remaining = deadline - loop.time()
            if remaining <= 0:
                recent = [(c.method, c.ok, c.description) for c in self.calls[after:]][-15:]
                raise AssertionError(f"no {method} call arrived; calls since: {recent}")
            self._call_event.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._call_event.wait(), remaining)

    # -- validation helpers ------------------------------------------------------------------------

    def _chat(self, params: dict[str, Any]) -> dict[str, Any]:
        try:
            chat_id = int(params["chat_id"])
        except (KeyError, ValueError, TypeError):
            raise bad_request("chat_id is empty") from None
        chat = self.chats.get(chat_id)
        if chat is None:
            if chat_id > 0:  # a user's private chat, which only the user can open
                raise ApiError(403, "Forbidden: bot can't initiate conversation with a user")
            raise bad_request("chat not found")
        return chat

    def _message(self, params: dict[str, Any]) -> StoredMessage:
        chat = self._chat(params)
        message = self.messages.get((chat["id"], int(params.get("message_id", 0))))
        if message is None:
            raise bad_request("message to edit not found")
        if message.sender["id"] != BOT_ID:
            raise bad_request("message can't be edited")
        return message

    @staticmethod
    def _text(params: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
        raw = params.get("text")
        if not isinstance(raw, str):
            raise bad_request("message text is empty")
        mode = str(params.get("parse_mode", "")).lower()
        text, entities = parse_html(raw) if mode == "html" else (raw, [])
        if not text.strip():
            raise bad_request("message text is empty")
        if utf16_len(text) > MAX_TEXT:
            raise bad_request("message is too long")
        return text, entities

    @staticmethod
    def _markup(params: dict[str, Any]) -> dict[str, Any] | None:
        markup = params.get("reply_markup")
        if markup is None:
            return None
        if isinstance(markup, dict) and "force_reply" in markup:
            if markup["force_reply"] is not True:
                raise bad_request("can't parse reply keyboard markup JSON object")
            placeholder = markup.get("input_field_placeholder")
            if placeholder is not None and not 1 <= len(str(placeholder)) <= MAX_PLACEHOLDER:
                raise bad_request("can't parse reply keyboard markup JSON object")
            return dict(markup)
        if not isinstance(markup, dict) or "inline_keyboard" not in markup:
            raise bad_request("can't parse reply keyboard markup JSON object")
        rows = markup["inline_keyboard"]
        for row in rows:
            for button in row:
                if not str(button.get("text", "")).strip():
                    raise bad_request("text buttons are unallowed in the inline keyboard")
                data = button.get("callback_data")
                if data is not None and not 1 <= len(str(data).encode()) <= MAX_CALLBACK_DATA:
                    raise bad_request("BUTTON_DATA_INVALID")
                if data is None and "url" not in button:
                    raise bad_request('can\'t find field "callback_data"')
        return {"inline_keyboard": rows} if any(rows) else None

    # -- Bot API methods -------------------------------------------------------------------------

    def api_getMe(self, params: dict[str, Any]) -> Any:
        return self.bot_user

    def api_logOut(self, params: dict[str, Any]) -> Any:
        return True

    async def api_getUpdates(self, params: dict[str, Any]) -> Any:
        if self.webhook.get("url"):
            raise ApiError(
                409,
                "Conflict: can't use getUpdates method while webhook is active; "
                "use deleteWebhook to delete the webhook first",
            )
        offset = int(params.get("offset") or 0)
        limit = int(params.get("limit") or 100)
        timeout = min(float(params.get("timeout") or 0), self.max_poll_wait)
        allowed = params.get("allowed_updates") or None
        if offset:
            self.updates = [u for u in self.updates if u["update_id"] >= offset]

        def pending() -> list[dict[str, Any]]:
            return [
                u for u in self.updates if allowed is None or any(kind in u for kind in allowed)
            ][:limit]

        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not (ready := pending()) and not self._closing:
            remaining = deadline - loop.time()
            if remaining <= 0:
                break
            self._update_event.clear()
            try:
                await asyncio.wait_for(self._update_event.wait(), remaining)
            except TimeoutError:
                break
        return ready

    def api_sendMessage(self, params: dict[str, Any]) -> Any:
        chat = self._chat(params)
        text, entities = self._text(params)
        markup = self._markup(params)
        replied = self._replied(chat, params)
        message = self._new_message(chat, self.bot_user)
        message.text, message.entities, message.reply_markup = text, entities, markup
        message.reply_to = replied
        return message.to_dict()

    def _replied(self, chat: dict[str, Any], params: dict[str, Any]) -> StoredMessage | None:
        """The message a send replies to (``reply_parameters``), refused when not found."""
        reply = params.get("reply_parameters")
        if isinstance(reply, str):
            reply = json.loads(reply)
        if not reply:
            return None
        replied = self.messages.get((chat["id"], int(reply.get("message_id", 0))))
        if replied is None:
            raise bad_request("message to be replied not found")
        return replied

    def api_editMessageText(self, params: dict[str, Any]) -> Any:
        message = self._message(params)
        if message.text is None:
            raise bad_request("there is no text in the message to edit")
        text, entities = self._text(params)
        markup = self._markup(params)
        return _edited(message, text=text, entities=entities, reply_markup=markup)

    def api_editMessageReplyMarkup(self, params: dict[str, Any]) -> Any:
        message = self._message(params)
        return _edited(message, reply_markup=self._markup(params))

    def api_answerCallbackQuery(self, params: dict[str, Any]) -> Any:
        query = self.callback_queries.get(str(params.get("callback_query_id")))
        if query is None or query.answered:
            raise bad_request(
                "query is too old and response timeout expired or query ID is invalid"
            )
        text = params.get("text")
        if text is not None and utf16_len(str(text)) > MAX_CALLBACK_ANSWER:
            raise bad_request("MESSAGE_TOO_LONG")
        url = params.get("url")
        if url is not None and self.start_payload(str(url)) is None:
            raise bad_request("URL_INVALID")  # only a t.me link to this bot, outside games
        query.answered, query.text, query.url = True, text, url
        return True

    def start_payload(self, url: str) -> str | None:
        """The start parameter of a deep link to this bot (``https://t.me/<bot>?start=X``,
        X of 1 to 64 letters, digits, ``_`` or ``-``), else None."""
        match = DEEP_LINK.fullmatch(url)
        if match is None or match["bot"].lower() != BOT_USERNAME.lower():
            return None
        return match["payload"]

    def api_sendPoll(self, params: dict[str, Any]) -> Any:
        chat = self._chat(params)
        question = str(params.get("question", ""))
        options = [o["text"] if isinstance(o, dict) else str(o) for o in params.get("options", [])]
        _check_poll_texts(question, options)
        kind = params.get("type") or "regular"
        correct = params.get("correct_option_ids")
        if kind == "quiz" and (not correct or any(not 0 <= i < len(options) for i in correct)):
            raise bad_request("wrong correct option ids specified")
        explanation = params.get("explanation")
        if explanation is not None:
            if utf16_len(explanation) > POLL_EXPLANATION:
                raise bad_request("explanation is too long")
            if explanation.count("\n") > POLL_EXPLANATION_LINE_FEEDS:
                raise bad_request("explanation can't contain more than 2 line feeds")
        poll_id = str(5_000_000_000 + next(self._ids))
        poll: dict[str, Any] = {
            "id": poll_id,
            "question": question,
            "options": [
                {"text": text, "voter_count": 0, "persistent_id": f"o{i}"}
                for i, text in enumerate(options)
            ],
            "total_voter_count": 0,
            "is_closed": False,
            "is_anonymous": params.get("is_anonymous", True),
            "type": kind,
            "allows_multiple_answers": bool(params.get("allows_multiple_answers", False)),
            "allows_revoting": False,
            "members_only": False,
        }
        if kind == "quiz":
            poll["correct_option_ids"] = correct
        if explanation:
            poll["explanation"] = explanation
        message = self._new_message(chat, self.bot_user)
        message.poll = poll
        message.reply_markup = self._markup(params)
        self.polls[poll_id] = (chat["id"], message.message_id)
        return message.to_dict()

    def api_stopPoll(self, params: dict[str, Any]) -> Any:
        message = self._message(params)
        if message.poll is None:
            raise bad_request("message with poll to stop not found")
        if message.poll["is_closed"]:
            raise bad_request("poll has already been closed")
        message.poll["is_closed"] = True
        return message.poll

    def api_sendPhoto(self, params: dict[str, Any]) -> Any:
        chat = self._chat(params)
        sizes = self._photo(params.get("photo"))
        caption, entities = self._caption(params)
        markup = self._markup(params)
        replied = self._replied(chat, params)
        message = self._new_message(chat, self.bot_user)
        message.photo, message.reply_markup = sizes, markup
        message.caption, message.caption_entities = caption, entities
        message.reply_to = replied
        return message.to_dict()

    def _photo(self, photo: Any) -> list[dict[str, Any]]:
        """The sizes Telegram keeps of a photo: uploaded (multipart bytes) or named by a
        ``file_id`` this bot was given; refused as Telegram refuses it."""
        if isinstance(photo, str):
            known = self.files.get(photo)
            if known is None:  # Telegram would also fetch an HTTP URL; the fake never does
                raise bad_request("wrong file identifier/HTTP URL specified")
            data = known[2]
        elif isinstance(photo, bytes) and photo:
            data = photo
            if len(data) > MAX_PHOTO_BYTES:
                raise bad_request("PHOTO_SAVE_FILE_INVALID")
            self.photos.append(data)
        else:
            raise bad_request("there is no photo in the request")
        width, height = _photo_dimensions(data)
        if width + height > MAX_PHOTO_SIDES or max(width, height) > MAX_PHOTO_RATIO * min(
            width, height
        ):
            raise bad_request("PHOTO_INVALID_DIMENSIONS")
        sizes: list[dict[str, Any]] = []
        for longest in PHOTO_SIZES:
            scale = min(1.0, longest / max(width, height))
            size = (max(1, round(width * scale)), max(1, round(height * scale)))
            if sizes and (sizes[-1]["width"], sizes[-1]["height"]) == size:
                break
            file_id = f"AgAC{BOT_ID}-{len(self.files) + 1}"
            unique_id = f"AQAD{len(self.files) + 1}"
            self.files[file_id] = (unique_id, len(data), data)
            sizes.append(
                {
                    "file_id": file_id,
                    "file_unique_id": unique_id,
                    "width": size[0],
                    "height": size[1],
                    "file_size": len(data),
                }
            )
        return sizes

    @staticmethod
    def _caption(params: dict[str, Any]) -> tuple[str | None, list[dict[str, Any]]]:
        """A media message's caption and its entities, at most 1024 characters after entity
        parsing (an empty caption is none)."""
        raw = params.get("caption")
        if raw is None or raw == "":
            return None, []
        mode = str(params.get("parse_mode", "")).lower()
        caption, entities = parse_html(str(raw)) if mode == "html" else (str(raw), [])
        if utf16_len(caption) > MAX_CAPTION:
            raise bad_request("message caption is too long")
        return (caption or None), entities

    def api_editMessageCaption(self, params: dict[str, Any]) -> Any:
        message = self._message(params)
        if message.photo is None:
            raise bad_request("there is no caption in the message to edit")
        caption, entities = self._caption(params)
        markup = self._markup(params)
        return _edited(message, caption=caption, caption_entities=entities, reply_markup=markup)

    def api_getFile(self, params: dict[str, Any]) -> Any:
        file_id = str(params.get("file_id", ""))
        if file_id not in self.files:
            raise bad_request("invalid file_id")
        unique_id, size, _ = self.files[file_id]
        if size > MAX_DOWNLOAD:
            raise bad_request("file is too big")
        path = self.file_paths_by_id().get(file_id)
        if path is None:
            path = f"documents/file_{len(self.file_paths)}"
            self.file_paths[path] = file_id
        return {
            "file_id": file_id,
            "file_unique_id": unique_id,
            "file_size": size,
            "file_path": path,
        }

    def file_paths_by_id(self) -> dict[str, str]:
        return {file_id: path for path, file_id in self.file_paths.items()}

    def api_sendDocument(self, params: dict[str, Any]) -> Any:
        chat = self._chat(params)
        document = params.get("document")
        if not isinstance(document, bytes) or not document:
            raise bad_request("wrong file identifier/HTTP URL specified")
        if len(document) > MAX_UPLOAD_BYTES:
            raise ApiError(413, "Request Entity Too Large")
        name = str(params.get(FILE_NAMES, {}).get("document") or "")
        if not name or len(name) > MAX_FILENAME:
            raise bad_request("file name is invalid")
        caption, entities = self._caption(params)
        self.documents.append((name, document))
        message = self._new_message(chat, self.bot_user)
        file_id = f"BQACAgIAAxkBAAJ{len(self.files) + 1:06d}"
        unique_id = f"AgAD{len(self.files) + 1:04d}"
        self.files[file_id] = (unique_id, len(document), document)  # getFile serves it too
        message.document = {
            "file_id": file_id,
            "file_unique_id": unique_id,
            "file_name": name,
            "file_size": len(document),
        }
        message.caption, message.caption_entities = caption, entities
        return message.to_dict()

    def api_getChatMember(self, params: dict[str, Any]) -> Any:
        chat = self._chat(params)
        user_id = int(params.get("user_id", 0))
        user = {"id": user_id, "is_bot": False, "first_name": f"User {user_id}"}
        status = self.chat_admins[chat["id"]].get(user_id, "member")
        member: dict[str, Any] = {"status": status, "user": user}
        if status == "creator":
            member["is_anonymous"] = False
        elif status == "administrator":
            member |= {
                "can_be_edited": False,
                "is_anonymous": False,
                "can_manage_chat": True,
                "can_delete_messages": True,
                "can_manage_video_chats": True,
                "can_restrict_members": True,
                "can_promote_members": False,
                "can_change_info": True,
                "can_invite_users": True,
                "can_post_stories": False,
                "can_edit_stories": False,
                "can_delete_stories": False,
            }
        return member

    def api_setMyCommands(self, params: dict[str, Any]) -> Any:
        commands = params.get("commands")
        if not isinstance(commands, list) or len(commands) > 100:
            raise bad_request("commands are invalid")
        for command in commands:
            if not re.fullmatch(r"[a-z0-9_]{1,32}", str(command.get("command", ""))):
                raise bad_request("BOT_COMMAND_INVALID")
            if not 1 <= len(str(command.get("description", "")).strip()) <= 256:
                raise bad_request("BOT_COMMAND_DESCRIPTION_INVALID")
        scope = json.dumps(params.get("scope") or {"type": "default"}, sort_keys=True)
        self.commands[(scope, str(params.get("language_code") or ""))] = commands
        return True

    def api_deleteMyCommands(self, params: dict[str, Any]) -> Any:
        scope = json.dumps(params.get("scope") or {"type": "default"}, sort_keys=True)
        self.commands.pop((scope, str(params.get("language_code") or "")), None)
        return True

    def api_getMyCommands(self, params: dict[str, Any]) -> Any:
        scope = json.dumps(params.get("scope") or {"type": "default"}, sort_keys=True)
        return self.commands.get((scope, str(params.get("language_code") or "")), [])

    def api_setWebhook(self, params: dict[str, Any]) -> Any:
        url = str(params.get("url", ""))
        secret = params.get("secret_token")
        if secret is not None and not re.fullmatch(r"[A-Za-z0-9_-]{1,256}", str(secret)):
            raise bad_request("secret token contains unallowed characters")
        if url and not url.startswith("https://"):
            raise bad_request("bad webhook: An HTTPS URL must be provided for webhook")
        if params.get("drop_pending_updates"):
            self.updates.clear()
        self.webhook = {"url": url, "secret_token": secret, **params}
        self._webhook_event.set()
        return True

    def api_deleteWebhook(self, params: dict[str, Any]) -> Any:
        if params.get("drop_pending_updates"):
            self.updates.clear()
        self.webhook = {}
        return True

    def api_getWebhookInfo(self, params: dict[str, Any]) -> Any:
        return {
            "url": self.webhook.get("url", ""),
            "has_custom_certificate": False,
            "pending_update_count": len(self.updates),
        }
