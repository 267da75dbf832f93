"""A local stand-in for Discord's REST API and gateway that enforces Discord's rules.

discord.py is pointed at it by patching ``discord.http.Route.BASE`` (and the gateway URL),
which is discord.py's own configuration; everything else runs unchanged. The fake keeps
the messages the bot creates and edits so tests can read what a user would see, records every
request with its arrival time, and answers like Discord does when the bot breaks a rule: a
400 for a payload over a limit, an "Unknown interaction" for a reply later than 3 seconds, an
"already acknowledged" for a second reply. Every such breach is also appended to
:attr:`FakeDiscord.violations`, which the fixtures require to be empty.

Bots also post and edit through channel endpoints (group rounds do): a channel the bot may not
post in answers 403 "Missing Permissions", a channel of a server the bot was removed from
(:meth:`FakeDiscord.remove_bot`) 403 50001 "Missing Access", a deleted channel
(:meth:`FakeDiscord.delete_channel`) 404 10003 "Unknown Channel", a deleted message 404, and
an edit that would leave a message exactly as it was counts as a violation (it wastes a
rate-limited call).

Direct messages: ``POST /users/@me/channels`` opens (or returns) the DM channel with a user, as
Discord does; a user who does not accept direct messages from the bot (blocked it, closed DMs
from server members: :attr:`FakeDiscord.closed_dms`) makes a post there fail with 403 and
Discord's code 50007, "Cannot send messages to this user". Discord also refuses to open DMs
too fast (403 40003, at a pace it does not publish): :attr:`FakeDiscord.refuse_dm_opens` makes
the next openings answer that.

The global rate limit: Discord lets a bot make 50 requests a second, interaction endpoints
(callbacks and their webhooks) apart. Past it the fake answers as Discord does: 429 with
``retry_after`` and ``"global": true`` in the body and ``Retry-After``, ``X-RateLimit-Global``
and ``X-RateLimit-Scope: global`` headers (and the ``Via`` header discord.py looks for to tell
Discord from a Cloudflare ban), which discord.py waits out before it tries again. Each such
answer is kept in :attr:`FakeDiscord.rate_limited`.

Messages with files arrive as multipart/form-data (``payload_json`` plus ``files[n]``, as
discord.py sends them), in interaction replies and channel posts and edits alike; the fake keeps
each message's attachments (with their descriptions, the alt text) and refuses more than
:data:`MAX_ATTACHMENTS` files, a file over :data:`MAX_FILE_BYTES`, over :data:`MAX_UPLOAD_BYTES`
in one request, a description over :data:`MAX_DESCRIPTION`, and an embed image naming an
``attachment://`` file the message does not have, as Discord does.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import math
import re
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import discord
from aiohttp import BodyPartReader, WSMsgType, web

API = "/api/v10"
TOKEN = "fake-bot-token"
RESPONSE_WINDOW = 3.0
MAX_ATTACHMENTS = 10  # files per message
MAX_UPLOAD_BYTES = 25 * 1024 * 1024  # all the files of one request together
MAX_FILE_BYTES = 10 * 1024 * 1024  # one file, in a server without boosts (bots included)
MAX_DESCRIPTION = 1024  # an attachment's description (its alt text)
USER_ATTACHMENT_LIMIT = 10 * 1024 * 1024  # what a user without Nitro may attach
GLOBAL_LIMIT = 50  # requests a bot may make in any second ("Global Rate Limit")
GLOBAL_WINDOW = 1.0
# Not bound to the global rate limit: interaction callbacks and their webhooks.
UNLIMITED = re.compile(rf"^{API}/(interactions|webhooks)/")

# Interaction callback types.
CHANNEL_MESSAGE = 4
DEFERRED_CHANNEL_MESSAGE = 5
DEFERRED_UPDATE_MESSAGE = 6
UPDATE_MESSAGE = 7
AUTOCOMPLETE_RESULT = 8
MODAL = 9

# Interaction types.
APPLICATION_COMMAND = 2
MESSAGE_COMPONENT = 3
AUTOCOMPLETE = 4
MODAL_SUBMIT = 5

ALLOWED_CALLBACKS = {
    APPLICATION_COMMAND: {CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE},
    MESSAGE_COMPONENT: {
        CHANNEL_MESSAGE,
        DEFERRED_CHANNEL_MESSAGE,
        DEFERRED_UPDATE_MESSAGE,
        UPDATE_MESSAGE,
        MODAL,
    },
    AUTOCOMPLETE: {AUTOCOMPLETE_RESULT},
    # Updating the message only when the modal was opened from one (checked below).
    MODAL_SUBMIT: {
        CHANNEL_MESSAGE,
        DEFERRED_CHANNEL_MESSAGE,
        DEFERRED_UPDATE_MESSAGE,
        UPDATE_MESSAGE,
    },
}

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

EPHEMERAL = 1 << 6
LOADING = 1 << 7
LOCALES = {locale.value for locale in discord.Locale}
COMMAND_NAME = re.compile(r"^[-_'\w]{1,32}$")
FILE_PART = re.compile(r"^files\[(\d+)\]$")


@dataclass
class Recorded:
    """One request as the fake received it."""

    method: str
    path: str
    body: Any
    at: float
    interaction_id: int | None = None
    status: int = 200
    stamp: Any = None  # FakeDiscord.stamp() on arrival (a test's virtual time)
    files: list[Upload] = field(default_factory=list)  # multipart ``files[n]`` parts


@dataclass
class Upload:
    """One ``files[n]`` part of a multipart request."""

    index: int
    filename: str
    data: bytes


@dataclass
class Attachment:
    """A file on a stored message."""

    id: int
    filename: str
    data: bytes
    description: str | None = None  # the alt text


@dataclass
class Message:
    """A message as Discord stores it (only the parts the bot uses)."""

    id: int
    channel_id: int
    guild_id: int | None
    flags: int
    content: str = ""
    embeds: list[dict[str, Any]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    viewer: int | None = None  # ephemeral: the one user who sees it
    interaction_id: int | None = None
    edits: int = 0
    attachments: list[Attachment] = field(default_factory=list)

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    def shown(self) -> tuple[str, list[dict[str, Any]], list[dict[str, Any]]]:
        return self.content, self.embeds, self.components

    def apply(self, body: dict[str, Any], added: list[Attachment] | None = None) -> None:
        """An edit: the fields present replace the old ones. ``attachments`` lists the files
        to keep (existing ids) besides the new ones; without it, new files are added."""
        self.attachments = kept_attachments(self, body) + (added or [])
        if "content" in body:
            self.content = body["content"] or ""
        if "embeds" in body:
            self.embeds = body["embeds"] or []
        if "components" in body:
            self.components = body["components"] or []
        self.flags &= ~LOADING
        self.edits += 1


def kept_attachments(message: Message | None, body: dict[str, Any]) -> list[Attachment]:
    """The attachments a message keeps through an edit (none for a new message)."""
    if message is None:
        return []
    if "attachments" not in body:
        return list(message.attachments)
    keep = {str(a.get("id")) for a in body["attachments"] or []}
    return [a for a in message.attachments if str(a.id) in keep]


def attachments_after(
    message: Message | None, body: dict[str, Any], files: list[Upload]
) -> list[Attachment]:
    """A message's attachments once the request is applied (new ones without ids yet)."""
    return kept_attachments(message, body) + [Attachment(0, u.filename, u.data) for u in files]


def check_sent_message(
    body: dict[str, Any], files: list[Upload], edited: Message | None, *, creating: bool
) -> list[str]:
    """Everything Discord would refuse in a request that creates or edits a message:
    :func:`check_message` on the payload and its files, :func:`check_attachments` on the
    attachments the message ends with (``edited``: the message before, None when new)."""
    problems = check_message(body, creating=creating, files=files)
    return problems + check_attachments(body, attachments_after(edited, body, files))


@dataclass
class Interaction:
    """An interaction the test fed to the bot, and how the bot answered it."""

    id: int
    token: str
    type: int
    user_id: int
    channel_id: int
    guild_id: int | None
    fed_at: float
    message_id: int | None = None  # the message a pressed component is on
    response_type: int | None = None
    responded_at: float | None = None
    original_id: int | None = None  # the message "@original" refers to
    choices: list[dict[str, Any]] | None = None
    modal: dict[str, Any] | None = None  # the modal the bot opened in answer

    @property
    def delay(self) -> float | None:
        return None if self.responded_at is None else self.responded_at - self.fed_at


def _json(data: Any, status: int = 200) -> web.Response:
    # discord.py parses a body as JSON only for exactly "application/json", as Discord sends.
    return web.Response(
        body=json.dumps(data).encode(), status=status, headers={"Content-Type": "application/json"}
    )


class DiscordError(Exception):
    def __init__(self, status: int, code: int, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def _check_embed(embed: dict[str, Any], where: str) -> tuple[list[str], int]:
    problems = []
    size = 0

    def limit(value: str | None, most: int, what: str, *, required: bool = False) -> None:
        nonlocal size
        if value is None:
            if required:
                problems.append(f"{where}: {what} is missing")
            return
        if not isinstance(value, str):
            problems.append(f"{where}: {what} is not a string")
            return
        if required and not value.strip():
            problems.append(f"{where}: {what} is empty")
        if len(value) > most:
            problems.append(f"{where}: {what} has {len(value)} characters (limit {most})")
        size += len(value)

    limit(embed.get("title"), 256, "title")
    limit(embed.get("description"), 4096, "description")
    limit((embed.get("author") or {}).get("name"), 256, "author name")
    limit((embed.get("footer") or {}).get("text"), 2048, "footer")
    fields = embed.get("fields") or []
    if len(fields) > 25:
        problems.append(f"{where}: {len(fields)} fields (limit 25)")
    for number, item in enumerate(fields):
        limit(item.get("name"), 256, f"field {number} name", required=True)
        limit(item.get("value"), 1024, f"field {number} value", required=True)
    if size > 6000:
        problems.append(f"{where}: embed has {size} characters (limit 6000)")
    return problems, size


def check_modal(data: dict[str, Any]) -> list[str]:
    """What Discord refuses in a modal: its title, custom ids and text inputs' limits."""
    problems = []
    if not 1 <= len(data.get("title") or "") <= 45:
        problems.append(f"modal title of {len(data.get('title') or '')} characters (1-45)")
    if not 1 <= len(data.get("custom_id") or "") <= 100:
        problems.append("modal custom_id must be 1-100 characters")
    rows = data.get("components") or []
    if not 1 <= len(rows) <= 5:
        problems.append(f"{len(rows)} modal components (1-5)")
    for row in rows:
        for item in row.get("components") or []:
            if item.get("type") != 4:
                problems.append(f"modal component of type {item.get('type')}")
                continue
            if not 1 <= len(item.get("label") or "") <= 45:
                problems.append(f"text input label of {len(item.get('label') or '')} characters")
            if len(item.get("placeholder") or "") > 100:
                problems.append("text input placeholder over 100 characters")
            if not 1 <= int(item.get("max_length", 4000)) <= 4000:
                problems.append("text input max_length out of 1-4000")
            if not 1 <= len(item.get("custom_id") or "") <= 100:
                problems.append("text input custom_id must be 1-100 characters")
    return problems


def check_uploads(body: dict[str, Any], files: list[Upload]) -> list[str]:
    """What Discord would refuse in a request's files (before they reach a message)."""
    problems = []
    if len(files) > MAX_ATTACHMENTS:
        problems.append(f"{len(files)} files (limit {MAX_ATTACHMENTS})")
    described = {str(a.get("id")) for a in body.get("attachments") or []}
    for upload in files:
        if not upload.filename:
            problems.append(f"files[{upload.index}] without a filename")
        if described and str(upload.index) not in described:
            problems.append(f"files[{upload.index}] is not in attachments")
    for item in body.get("attachments") or []:
        if len(item.get("description") or "") > MAX_DESCRIPTION:
            problems.append(
                f"attachment {item.get('id')} description over {MAX_DESCRIPTION} characters"
            )
    return problems


def check_attachments(body: dict[str, Any], attachments: list[Attachment]) -> list[str]:
    """A message's attachments after a request: how many, and what its embeds refer to."""
    problems = []
    if len(attachments) > MAX_ATTACHMENTS:
        problems.append(f"{len(attachments)} attachments (limit {MAX_ATTACHMENTS})")
    names = {a.filename for a in attachments}
    for number, embed in enumerate(body.get("embeds") or []):
        for part in ("image", "thumbnail"):
            url = (embed.get(part) or {}).get("url") or ""
            if url.startswith("attachment://") and url.removeprefix("attachment://") not in names:
                problems.append(f"embed {number} {part} refers to a missing {url}")
    return problems


def check_message(
    body: dict[str, Any], *, creating: bool, files: list[Upload] | None = None
) -> list[str]:
    """Everything in a message payload (and its files) that Discord would refuse."""
    problems = check_uploads(body, files or [])
    content = body.get("content")
    if content is not None and len(content) > 2000:
        problems.append(f"content has {len(content)} characters (limit 2000)")
    embeds = body.get("embeds") or []
    if len(embeds) > 10:
        problems.append(f"{len(embeds)} embeds (limit 10)")
    total = 0
    for number, embed in enumerate(embeds):
        found, size = _check_embed(embed, f"embed {number}")
        problems += found
        total += size
    if total > 6000:
        problems.append(f"embeds have {total} characters in all (limit 6000)")
    rows = body.get("components") or []
    problems += _check_components(rows)
    if creating and not (content or embeds or rows or files):
        problems.append("cannot send an empty message")
    return problems


def _check_components(rows: list[dict[str, Any]]) -> list[str]:
    """What Discord would refuse in a message's rows of buttons."""
    problems = []
    if len(rows) > 5:
        problems.append(f"{len(rows)} component rows (limit 5)")
    custom_ids: list[str] = []
    for row_number, row in enumerate(rows):
        if row.get("type") != 1:
            problems.append(f"row {row_number} is not an action row")
            continue
        items = row.get("components") or []
        if not 1 <= len(items) <= 5:
            problems.append(f"row {row_number} has {len(items)} buttons (1 to 5)")
        for item in items:
            if item.get("type") == 2:
                problems += _check_button(item, custom_ids)
    if len(custom_ids) != len(set(custom_ids)):
        problems.append("duplicate custom_id in one message")
    return problems


def _check_button(item: dict[str, Any], custom_ids: list[str]) -> list[str]:
    """What Discord would refuse in one button; its custom id is added to ``custom_ids``."""
    problems = []
    label = item.get("label")
    if label is not None and len(label) > 80:
        problems.append(f"button label has {len(label)} characters (limit 80)")
    if not label and not item.get("emoji"):
        problems.append("button without label or emoji")
    if item.get("style") in (1, 2, 3, 4):
        custom_id = item.get("custom_id")
        if not custom_id:
            problems.append("button without custom_id")
        elif len(custom_id) > 100:
            problems.append(f"custom_id has {len(custom_id)} characters (limit 100)")
        else:
            custom_ids.append(custom_id)
    return problems


def _check_choices(choices: list[dict[str, Any]]) -> list[str]:
    """What Discord would refuse in autocomplete choices."""
    problems = []
    if len(choices) > 25:
        problems.append(f"{len(choices)} choices (limit 25)")
    for choice in choices:
        if not 1 <= len(choice.get("name", "")) <= 100:
            problems.append(f"choice name of {len(choice.get('name', ''))} characters")
        if len(str(choice.get("value", ""))) > 100:
            problems.append("choice value over 100 characters")
    return problems


def _check_localizations(value: Any, where: str, *, name: bool) -> list[str]:
    problems = []
    for locale, text in (value or {}).items():
        if locale not in LOCALES:
            problems.append(f"{where}: unknown locale {locale!r}")
        if name and (not COMMAND_NAME.match(text) or text != text.lower()):
            problems.append(f"{where}: invalid localized name {text!r}")
        if not name and not 1 <= len(text) <= 100:
            problems.append(f"{where}: localized description of {len(text)} characters")
    return problems


def check_commands(commands: list[dict[str, Any]]) -> list[str]:
    """What Discord would refuse in a bulk overwrite of application commands."""
    problems = []
    if len(commands) > 100:
        problems.append("more than 100 commands")
    for command in commands:
        where = f"command {command.get('name')!r}"
        name = command.get("name", "")
        if not COMMAND_NAME.match(name) or name != name.lower():
            problems.append(f"{where}: invalid name")
        if not 1 <= len(command.get("description", "")) <= 100:
            problems.append(f"{where}: description must have 1 to 100 characters")
        problems += _check_localizations(command.get("name_localizations"), where, name=True)
        problems += _check_localizations(
            command.get("description_localizations"), where, name=False
        )
        options = command.get("options") or []
        if len(options) > 25:
            problems.append(f"{where}: more than 25 options")
        for option in options:
            owhere = f"{where} option {option.get('name')!r}"
            oname = option.get("name", "")
            if not COMMAND_NAME.match(oname) or oname != oname.lower():
                problems.append(f"{owhere}: invalid name")
            if not 1 <= len(option.get("description", "")) <= 100:
                problems.append(f"{owhere}: description must have 1 to 100 characters")
            problems += _check_localizations(option.get("name_localizations"), owhere, name=True)
            problems += _check_localizations(
                option.get("description_localizations"), owhere, name=False
            )
            choices = option.get("choices") or []
            if len(choices) > 25:
                problems.append(f"{owhere}: more than 25 choices")
            if choices and option.get("autocomplete"):
                problems.append(f"{owhere}: choices and autocomplete together")
    return problems


class FakeDiscord:
    """The fake server. ``await start()`` returns its base URL; ``await close()`` stops it."""

    def __init__(self) -> None:
        self._ids = itertools.count(1_300_000_000_000_000_000)
        self.app_id = next(self._ids)
        self.bot_user = {
            "id": str(self.app_id),
            "username": "quizbot",
            "discriminator": "0",
            "global_name": "Quiz Bot",
            "avatar": None,
            "bot": True,
        }
        self.requests: list[Recorded] = []
        self.violations: list[str] = []
        self.messages: dict[int, Message] = {}
        self.interactions: dict[int, Interaction] = {}
        self._by_token: dict[str, Interaction] = {}
        self.commands: dict[str, list[dict[str, Any]]] = {}
        self.command_syncs: list[str] = []  # the target of every bulk overwrite
        self.guilds: set[int] = set()  # servers the bot is a member of
        self.channels: dict[int, int | None] = {}  # channel id -> its server (None: a DM)
        self.forbidden_channels: set[int] = set()  # the bot may not post there
        self.removed_from: set[int] = set()  # servers the bot was kicked from (or left)
        self.deleted_channels: set[int] = set()
        self.dm_channels: dict[int, int] = {}  # user id -> their DM channel with the bot
        self.closed_dms: set[int] = set()  # users who do not accept the bot's direct messages
        self.deleted_messages: set[int] = set()
        self.user_files: dict[int, Attachment] = {}  # files users attached, by attachment id
        self.file_reads: list[int] = []  # attachment ids read from the CDN, in order
        self.nonces: dict[tuple[int, str], int] = {}  # (channel, nonce) -> message created
        self.stamp: Callable[[], Any] | None = None
        self.global_limit = GLOBAL_LIMIT  # requests a second (None: no limit)
        self._limited: deque[float] = deque()  # when the requests of the last second came
        self.rate_limited: list[Recorded] = []  # requests answered 429 (the global limit)
        self.refuse_dm_opens = 0  # the next DM openings answer 403 40003
        self.gateway_identifies = 0
        self.gateway_shards: list[list[int] | None] = []  # the shard of every identify
        self.recommended_shards = 1  # what GET /gateway/bot recommends
        self.revoked = False  # the token was reset: the gateway closes with 4004
        self.gateway_close_codes: list[int | None] = []
        self.identified = asyncio.Event()
        self._sockets: list[web.WebSocketResponse] = []
        self._socket_shards: dict[int, list[int]] = {}  # id(socket) -> [shard id, shards]
        self._sequence = itertools.count(2)
        self._runner: web.AppRunner | None = None
        self.base_url = ""

    # -- lifecycle ------------------------------------------------------------------------

    async def start(self) -> str:
        app = web.Application(
            client_max_size=MAX_UPLOAD_BYTES + 1024 * 1024, middlewares=[self._global_rate_limit]
        )
        app.router.add_get(f"{API}/users/@me", self._users_me)
        app.router.add_post(f"{API}/users/@me/channels", self._open_dm)
        app.router.add_get(f"{API}/oauth2/applications/@me", self._application)
        app.router.add_put(f"{API}/applications/{{app}}/commands", self._put_commands)
        app.router.add_put(
            f"{API}/applications/{{app}}/guilds/{{guild}}/commands", self._put_commands
        )
        app.router.add_post(f"{API}/interactions/{{iid}}/{{token}}/callback", self._callback)
        app.router.add_route(
            "*", f"{API}/webhooks/{{app}}/{{token}}/messages/{{message}}", self._webhook_message
        )
        app.router.add_post(f"{API}/webhooks/{{app}}/{{token}}", self._followup)
        app.router.add_post(f"{API}/channels/{{channel}}/messages", self._channel_post)
        app.router.add_patch(f"{API}/channels/{{channel}}/messages/{{message}}", self._channel_edit)
        app.router.add_get(f"{API}/gateway/bot", self._gateway_bot)
        app.router.add_get("/attachments/{attachment}/{filename}", self._attachment)
        app.router.add_get("/gateway/", self._gateway)
        app.router.add_route("*", "/{tail:.*}", self._unknown)
        self._runner = web.AppRunner(app, shutdown_timeout=0.5)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = self._runner.addresses[0][1]
        self.base_url = f"http://127.0.0.1:{port}"
        return self.base_url

    async def close(self) -> None:
        for socket in list(self._sockets):
            await socket.close()
        if self._runner is not None:
            await self._runner.cleanup()

    # -- what tests use -------------------------------------------------------------------

    def new_id(self) -> int:
        return next(self._ids)

    def expect(self, interaction: Interaction) -> None:
        """Register an interaction about to be fed to the bot (its clock starts now)."""
        self.interactions[interaction.id] = interaction
        self._by_token[interaction.token] = interaction

    def user_attachment(
        self,
        filename: str,
        data: bytes,
        *,
        content_type: str = "application/octet-stream",
        declared_size: int | None = None,
    ) -> dict[str, Any]:
        """A file a user attaches (to a message or a command's attachment option): stored
        for the CDN, and its attachment object as Discord sends it. ``declared_size``: the
        size Discord states, when a test stands a small file in for a big one."""
        size = len(data) if declared_size is None else declared_size
        if size > USER_ATTACHMENT_LIMIT:
            raise ValueError(f"Discord lets a user attach at most {USER_ATTACHMENT_LIMIT} bytes")
        attachment = Attachment(self.new_id(), filename, data)
        self.user_files[attachment.id] = attachment
        url = f"{self.base_url}/attachments/{attachment.id}/{filename}"
        return {
            "id": str(attachment.id),
            "filename": filename,
            "size": size,
            "url": url,
            "proxy_url": url,
            "content_type": content_type,
        }

    async def _attachment(self, request: web.Request) -> web.Response:
        """The CDN: an attached file's bytes (a user's, or one the bot sent)."""
        attachment_id = int(request.match_info["attachment"])
        found = self.user_files.get(attachment_id)
        if found is None:
            sent = (a for m in self.messages.values() for a in m.attachments)
            found = next((a for a in sent if a.id == attachment_id), None)
        if found is None or found.filename != request.match_info["filename"]:
            return web.Response(status=404, text="Not Found")
        self.file_reads.append(attachment_id)
        return web.Response(body=found.data)

    def message_payload(self, message: Message) -> dict[str, Any]:
        return {
            "id": str(message.id),
            "channel_id": str(message.channel_id),
            "type": 20 if message.interaction_id else 0,
            "content": message.content,
            "author": self.bot_user,
            "embeds": message.embeds,
            "components": message.components,
            "flags": message.flags,
            "timestamp": "2026-01-01T00:00:00.000000+00:00",
            "edited_timestamp": None,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [
                {
                    "id": str(a.id),
                    "filename": a.filename,
                    "size": len(a.data),
                    "url": f"{self.base_url}/attachments/{a.id}/{a.filename}",
                    "proxy_url": f"{self.base_url}/attachments/{a.id}/{a.filename}",
                    **({"description": a.description} if a.description else {}),
                }
                for a in message.attachments
            ],
            "pinned": False,
            "application_id": str(self.app_id),
            "webhook_id": str(self.app_id),
        }

    def old_message(self, channel_id: int, custom_ids: list[str], *, viewer: int | None) -> Message:
        """A message the bot sent long ago (another version, a database since reset)."""
        rows = [
            {"type": 1, "components": [{"type": 2, "style": 1, "label": f"{n}", "custom_id": c}]}
            for n, c in enumerate(custom_ids)
        ]
        message = Message(
            id=self.new_id(),
            channel_id=channel_id,
            guild_id=None,
            flags=EPHEMERAL if viewer else 0,
            embeds=[{"description": "An old question"}],
            components=rows,
            viewer=viewer,
        )
        self.messages[message.id] = message
        return message

    def channel_messages(self, channel_id: int) -> list[Message]:
        """The public messages of a channel, oldest first."""
        return [m for m in self.messages.values() if m.channel_id == channel_id and not m.ephemeral]

    def channel_edits(self, message_id: int) -> list[Recorded]:
        """The successful channel-endpoint edits of one message, in order."""
        return [
            r
            for r in self.requests
            if r.method == "PATCH" and r.path.endswith(f"/messages/{message_id}") and r.status < 300
        ]

    def remove_bot(self, guild_id: int) -> None:
        """The bot is kicked from a server (or leaves it): its channels refuse the bot's posts
        and edits with 403 50001 "Missing Access", as Discord does."""
        self.guilds.discard(guild_id)
        self.removed_from.add(guild_id)

    def delete_channel(self, channel_id: int) -> None:
        """A moderator deletes a channel: requests to it answer 404 10003 "Unknown Channel"."""
        self.deleted_channels.add(channel_id)

    def delete_message(self, message_id: int) -> None:
        """A moderator deletes a message."""
        del self.messages[message_id]
        self.deleted_messages.add(message_id)

    async def dispatch(self, event: str, data: dict[str, Any]) -> None:
        """Send a gateway event to every connected client; with shards, only to the shard of
        the event's server (``(guild_id >> 22) % shards``, DMs on shard 0), as Discord does."""
        guild = data.get("guild_id")
        for socket in self._sockets:
            shard = self._socket_shards.get(id(socket))
            if shard is not None:
                wanted = (int(guild) >> 22) % shard[1] if guild else 0
                if shard[0] != wanted:
                    continue
            await socket.send_json({"op": 0, "t": event, "s": next(self._sequence), "d": data})

    # -- helpers --------------------------------------------------------------------------

    @web.middleware
    async def _global_rate_limit(
        self, request: web.Request, handler: Handler
    ) -> web.StreamResponse:
        """Discord's global rate limit: past 50 requests in a second, a 429 saying how long
        to wait (in real time: discord.py sleeps for it)."""
        path = request.path
        if self.global_limit is None or not path.startswith(API) or UNLIMITED.match(path):
            return await handler(request)
        now = time.monotonic()
        while self._limited and self._limited[0] <= now - GLOBAL_WINDOW:
            self._limited.popleft()
        if len(self._limited) < self.global_limit:
            self._limited.append(now)
            return await handler(request)
        wait = round(self._limited[0] + GLOBAL_WINDOW - now, 3)
        recorded = Recorded(request.method, path, None, now, status=429)
        self.requests.append(recorded)
        self.rate_limited.append(recorded)
        headers = {
            "Retry-After": str(max(1, math.ceil(wait))),
            "X-RateLimit-Global": "true",
            "X-RateLimit-Scope": "global",
            "Via": "1.1 google",
        }
        body = {"message": "You are being rate limited.", "retry_after": wait, "global": True}
        response = _json(body, status=429)
        response.headers.update(headers)
        return response

    def _violation(self, problem: str) -> None:
        self.violations.append(problem)

    async def _record(self, request: web.Request) -> Recorded:
        body: Any = None
        files: list[Upload] = []
        if request.content_type == "multipart/form-data":
            body, files = await self._read_multipart(request)
        elif request.can_read_body:
            text = await request.text()
            body = json.loads(text) if text else None
        recorded = Recorded(request.method, request.path, body, time.monotonic(), files=files)
        if self.stamp is not None:
            recorded.stamp = self.stamp()
        self.requests.append(recorded)
        return recorded

    @staticmethod
    async def _read_multipart(request: web.Request) -> tuple[Any, list[Upload]]:
        """``payload_json`` (the JSON body) and the ``files[n]`` parts of a multipart body."""
        body: Any = None
        files: list[Upload] = []
        async for part in await request.multipart():
            assert isinstance(part, BodyPartReader), "nested multipart"
            data = bytes(await part.read())
            if part.name == "payload_json":
                body = json.loads(data) if data else None
            elif (found := FILE_PART.match(part.name or "")) is not None:
                files.append(Upload(int(found[1]), part.filename or "", data))
            else:
                raise ValueError(f"unexpected multipart field {part.name!r}")
        return body, files

    def _uploaded(self, recorded: Recorded) -> list[Attachment]:
        """The request's files as attachments of a message (with new ids and the
        descriptions the request gives them)."""
        body = recorded.body if isinstance(recorded.body, dict) else {}
        if isinstance(body.get("data"), dict):  # an interaction callback's message
            body = body["data"]
        described = {str(a.get("id")): a for a in body.get("attachments") or []}
        return [
            Attachment(
                self.new_id(),
                u.filename,
                u.data,
                described.get(str(u.index), {}).get("description") or None,
            )
            for u in recorded.files
        ]

    def _too_large(self, recorded: Recorded) -> web.Response | None:
        """Discord's answer to a request whose files are over the upload limits (else None)."""
        total = sum(len(u.data) for u in recorded.files)
        largest = max((len(u.data) for u in recorded.files), default=0)
        if total <= MAX_UPLOAD_BYTES and largest <= MAX_FILE_BYTES:
            return None
        self._violation(f"{recorded.method} {recorded.path}: {total} bytes of files")
        recorded.status = 413
        return self._error(DiscordError(413, 40005, "Request entity too large"))

    @staticmethod
    def _error(error: DiscordError) -> web.Response:
        return _json({"code": error.code, "message": error.message}, status=error.status)

    def _refuse(self, recorded: Recorded, problems: list[str], what: str) -> web.Response:
        for problem in problems:
            self._violation(f"{what}: {problem}")
        recorded.status = 400
        return _json(
            {
                "code": 50035,
                "message": "Invalid Form Body",
                "errors": {
                    "_errors": [{"code": "BASE_TYPE_INVALID", "message": p} for p in problems]
                },
            },
            status=400,
        )

    def _authorized(self, request: web.Request) -> bool:
        return request.headers.get("Authorization") == f"Bot {TOKEN}"

    def _new_message(
        self,
        interaction: Interaction,
        body: dict[str, Any],
        flags: int,
        attachments: list[Attachment] | None = None,
    ) -> Message:
        ephemeral = bool(flags & EPHEMERAL)
        message = Message(
            id=self.new_id(),
            channel_id=interaction.channel_id,
            guild_id=interaction.guild_id,
            flags=flags,
            content=body.get("content") or "",
            embeds=body.get("embeds") or [],
            components=body.get("components") or [],
            viewer=interaction.user_id if ephemeral else None,
            interaction_id=interaction.id,
            attachments=attachments or [],
        )
        self.messages[message.id] = message
        return message

    # -- routes ---------------------------------------------------------------------------

    async def _unknown(self, request: web.Request) -> web.Response:
        recorded = await self._record(request)
        recorded.status = 404
        self._violation(f"unexpected request {request.method} {request.path}")
        return _json({"code": 0, "message": "404: Not Found"}, status=404)

    async def _users_me(self, request: web.Request) -> web.Response:
        await self._record(request)
        if not self._authorized(request):
            return _json({"code": 0, "message": "401: Unauthorized"}, status=401)
        return _json(self.bot_user)

    async def _open_dm(self, request: web.Request) -> web.Response:
        recorded = await self._record(request)
        if not self._authorized(request):
            return _json({"code": 0, "message": "401: Unauthorized"}, status=401)
        user_id = int((recorded.body or {}).get("recipient_id", 0))
        if self.refuse_dm_opens > 0:
            self.refuse_dm_opens -= 1
            recorded.status = 403
            too_fast = DiscordError(403, 40003, "You are opening direct messages too fast.")
            return self._error(too_fast)
        channel_id = self.dm_channels.get(user_id)
        if channel_id is None:
            channel_id = self.dm_channels[user_id] = self.new_id()
            self.channels[channel_id] = None
        user = {
            "id": str(user_id),
            "username": f"user{user_id}",
            "discriminator": "0",
            "global_name": None,
            "avatar": None,
        }
        return _json({"id": str(channel_id), "type": 1, "recipients": [user]})

    def dm_messages(self, user_id: int) -> list[Message]:
        """The bot's direct messages to ``user_id``, oldest first."""
        channel_id = self.dm_channels.get(user_id)
        return [] if channel_id is None else self.channel_messages(channel_id)

    async def _application(self, request: web.Request) -> web.Response:
        await self._record(request)
        return _json(
            {
                "id": str(self.app_id),
                "name": "Quiz Bot",
                "icon": None,
                "description": "",
                "rpc_origins": [],
                "bot_public": True,
                "bot_require_code_grant": False,
                "owner": {**self.bot_user, "id": "1", "bot": False, "username": "owner"},
                "summary": "",
                "verify_key": "0" * 64,
                "team": None,
                "flags": 0,
            }
        )

    async def _put_commands(self, request: web.Request) -> web.Response:
        recorded = await self._record(request)
        if not self._authorized(request) or request.match_info["app"] != str(self.app_id):
            self._violation(f"command sync for the wrong application: {request.path}")
            return _json({"code": 0, "message": "401: Unauthorized"}, status=401)
        guild = request.match_info.get("guild")
        target = "global" if guild is None else f"guild {guild}"
        if guild is not None and int(guild) not in self.guilds:
            recorded.status = 403  # the bot is not in that server: Discord's usual answer
            return _json({"code": 50001, "message": "Missing Access"}, status=403)
        commands = recorded.body or []
        problems = check_commands(commands)
        if problems:
            return self._refuse(recorded, problems, f"sync {target}")
        stored = []
        for command in commands:
            stored.append(
                {
                    **command,
                    "id": str(self.new_id()),
                    "application_id": str(self.app_id),
                    "version": str(self.new_id()),
                    **({"guild_id": guild} if guild else {}),
                }
            )
        self.commands[target] = stored
        self.command_syncs.append(target)
        return _json(stored)

    async def _callback(self, request: web.Request) -> web.Response:
        recorded = await self._record(request)
        interaction = self._callback_interaction(request, recorded)
        if isinstance(interaction, web.Response):
            return interaction
        body = recorded.body or {}
        kind = body.get("type")
        data = body.get("data") or {}
        refused = self._refuse_callback(interaction, recorded, kind, data)
        if refused is not None:
            return refused
        if kind == MODAL:
            interaction.modal = data
        if kind == AUTOCOMPLETE_RESULT:
            interaction.choices = data.get("choices") or []
        message = self._apply_callback(interaction, recorded, kind, data)
        interaction.response_type = kind
        interaction.responded_at = recorded.at
        interaction.original_id = message.id if message else None
        response: dict[str, Any] = {
            "interaction": {
                "id": str(interaction.id),
                "type": interaction.type,
                "response_message_loading": kind == DEFERRED_CHANNEL_MESSAGE,
                "response_message_ephemeral": bool(message and message.ephemeral),
                **({"response_message_id": str(message.id)} if message else {}),
            }
        }
        if message is not None and kind != DEFERRED_UPDATE_MESSAGE:
            response["resource"] = {"type": kind, "message": self.message_payload(message)}
        return _json(response)

    def _callback_interaction(
        self, request: web.Request, recorded: Recorded
    ) -> Interaction | web.Response:
        """The interaction a callback answers, or Discord's error: unknown, late, twice."""
        now = recorded.at
        interaction = self.interactions.get(int(request.match_info["iid"]))
        if interaction is None or interaction.token != request.match_info["token"]:
            self._violation(f"callback for an unknown interaction {request.path}")
            return self._error(DiscordError(404, 10062, "Unknown interaction"))
        recorded.interaction_id = interaction.id
        if now - interaction.fed_at > RESPONSE_WINDOW:
            self._violation(
                f"interaction {interaction.id} answered after {now - interaction.fed_at:.2f}s"
            )
            return self._error(DiscordError(404, 10062, "Unknown interaction"))
        if interaction.response_type is not None:
            self._violation(f"interaction {interaction.id} answered twice")
            return self._error(
                DiscordError(400, 40060, "Interaction has already been acknowledged.")
            )
        return interaction

    def _refuse_callback(
        self, interaction: Interaction, recorded: Recorded, kind: Any, data: dict[str, Any]
    ) -> web.Response | None:
        """Discord's 400 for a callback it would refuse, else None."""
        if kind not in ALLOWED_CALLBACKS.get(interaction.type, set()):
            return self._refuse(
                recorded, [f"callback type {kind} for interaction type {interaction.type}"], "reply"
            )
        if kind in (UPDATE_MESSAGE, DEFERRED_UPDATE_MESSAGE) and interaction.message_id is None:
            return self._refuse(recorded, [f"callback type {kind} without a message"], "reply")
        if kind == MODAL and (problems := check_modal(data)):
            return self._refuse(recorded, problems, "modal")
        if (too_large := self._too_large(recorded)) is not None:
            return too_large
        if recorded.files and kind not in (CHANNEL_MESSAGE, UPDATE_MESSAGE):
            return self._refuse(recorded, [f"files with callback type {kind}"], "reply")
        if kind in (CHANNEL_MESSAGE, UPDATE_MESSAGE):
            edited = None
            if kind == UPDATE_MESSAGE and interaction.message_id is not None:
                edited = self.messages.get(interaction.message_id)
            creating = kind == CHANNEL_MESSAGE
            problems = check_sent_message(data, recorded.files, edited, creating=creating)
            if problems:
                return self._refuse(recorded, problems, "reply")
        if kind == AUTOCOMPLETE_RESULT and (problems := _check_choices(data.get("choices") or [])):
            return self._refuse(recorded, problems, "autocomplete")
        return None

    def _apply_callback(
        self, interaction: Interaction, recorded: Recorded, kind: Any, data: dict[str, Any]
    ) -> Message | None:
        """The message a callback creates or updates (None for the other kinds)."""
        flags = data.get("flags", 0) or 0
        if kind == CHANNEL_MESSAGE:
            return self._new_message(interaction, data, flags & EPHEMERAL, self._uploaded(recorded))
        if kind == DEFERRED_CHANNEL_MESSAGE:
            return self._new_message(interaction, {}, (flags & EPHEMERAL) | LOADING)
        if kind in (UPDATE_MESSAGE, DEFERRED_UPDATE_MESSAGE):
            assert interaction.message_id is not None
            message = self.messages[interaction.message_id]
            if kind == UPDATE_MESSAGE:
                message.apply(data, self._uploaded(recorded))
            return message
        return None

    def _webhook_interaction(self, request: web.Request, recorded: Recorded) -> Interaction:
        if request.match_info["app"] != str(self.app_id):
            raise DiscordError(404, 10015, "Unknown Webhook")
        interaction = self._by_token.get(request.match_info["token"])
        if interaction is None:
            raise DiscordError(404, 10015, "Unknown Webhook")
        recorded.interaction_id = interaction.id
        if interaction.response_type is None:
            # Discord knows the token only once the interaction was acknowledged.
            raise DiscordError(404, 10015, "Unknown Webhook")
        return interaction

    async def _webhook_message(self, request: web.Request) -> web.Response:
        recorded = await self._record(request)
        try:
            interaction = self._webhook_interaction(request, recorded)
        except DiscordError as error:
            self._violation(f"{request.method} {request.path}: {error.message}")
            return self._error(error)
        which = request.match_info["message"]
        message_id = interaction.original_id if which == "@original" else int(which)
        message = self.messages.get(message_id) if message_id is not None else None
        if message is None:
            self._violation(f"{request.method} {request.path}: unknown message")
            return self._error(DiscordError(404, 10008, "Unknown Message"))
        if request.method == "PATCH":
            if (too_large := self._too_large(recorded)) is not None:
                return too_large
            body = recorded.body or {}
            problems = check_sent_message(body, recorded.files, message, creating=False)
            if problems:
                return self._refuse(recorded, problems, "edit")
            message.apply(body, self._uploaded(recorded))
        elif request.method == "DELETE":
            del self.messages[message.id]
            return web.Response(status=204)
        return _json(self.message_payload(message))

    async def _followup(self, request: web.Request) -> web.Response:
        recorded = await self._record(request)
        try:
            interaction = self._webhook_interaction(request, recorded)
        except DiscordError as error:
            self._violation(f"{request.method} {request.path}: {error.message}")
            return self._error(error)
        if (too_large := self._too_large(recorded)) is not None:
            return too_large
        body = recorded.body or {}
        problems = check_sent_message(body, recorded.files, None, creating=True)
        if problems:
            return self._refuse(recorded, problems, "followup")
        flags = (body.get("flags") or 0) & EPHEMERAL
        message = self._new_message(interaction, body, flags, self._uploaded(recorded))
        return _json(self.message_payload(message))

    def _channel(self, request: web.Request, recorded: Recorded) -> int:
        if not self._authorized(request):
            raise DiscordError(401, 0, "401: Unauthorized")
        channel_id = int(request.match_info["channel"])
        if channel_id in self.deleted_channels:
            recorded.status = 404
            raise DiscordError(404, 10003, "Unknown Channel")
        if channel_id not in self.channels:
            self._violation(f"{request.method} {request.path}: a channel the bot cannot see")
            raise DiscordError(404, 10003, "Unknown Channel")
        if self.channels[channel_id] in self.removed_from:
            recorded.status = 403
            raise DiscordError(403, 50001, "Missing Access")
        if channel_id in self.forbidden_channels:
            recorded.status = 403
            raise DiscordError(403, 50013, "Missing Permissions")
        closed = [user for user, dm in self.dm_channels.items() if dm == channel_id]
        if closed and closed[0] in self.closed_dms and request.method == "POST":
            recorded.status = 403
            raise DiscordError(403, 50007, "Cannot send messages to this user")
        return channel_id

    async def _channel_post(self, request: web.Request) -> web.Response:
        recorded = await self._record(request)
        try:
            channel_id = self._channel(request, recorded)
        except DiscordError as error:
            return self._error(error)
        if (too_large := self._too_large(recorded)) is not None:
            return too_large
        body = recorded.body or {}
        problems = check_sent_message(body, recorded.files, None, creating=True)
        nonce = body.get("nonce")
        if nonce is not None and len(str(nonce)) > 25:
            problems.append(f"nonce longer than 25 characters: {nonce!r}")
        if problems:
            return self._refuse(recorded, problems, "channel message")
        # Discord: with enforce_nonce, a nonce the author used in the channel in the past few
        # minutes returns that message instead of creating another (the fake never forgets).
        key = (channel_id, str(nonce))
        if nonce is not None and body.get("enforce_nonce") and key in self.nonces:
            earlier = self.messages.get(self.nonces[key])
            if earlier is not None:
                return _json(self.message_payload(earlier))
        message = Message(
            id=self.new_id(),
            channel_id=channel_id,
            guild_id=self.channels[channel_id],
            flags=0,
            content=body.get("content") or "",
            embeds=body.get("embeds") or [],
            components=body.get("components") or [],
            attachments=self._uploaded(recorded),
        )
        self.messages[message.id] = message
        if nonce is not None:
            self.nonces[key] = message.id
        return _json(self.message_payload(message))

    async def _channel_edit(self, request: web.Request) -> web.Response:
        recorded = await self._record(request)
        try:
            channel_id = self._channel(request, recorded)
        except DiscordError as error:
            return self._error(error)
        message_id = int(request.match_info["message"])
        message = self.messages.get(message_id)
        if message is None or message.channel_id != channel_id or message.ephemeral:
            if message_id not in self.deleted_messages:
                self._violation(f"PATCH {request.path}: not a message of this channel")
            recorded.status = 404
            return self._error(DiscordError(404, 10008, "Unknown Message"))
        body = recorded.body or {}
        if (too_large := self._too_large(recorded)) is not None:
            return too_large
        problems = check_sent_message(body, recorded.files, message, creating=False)
        if problems:
            return self._refuse(recorded, problems, "channel edit")
        before = json.dumps(message.shown(), sort_keys=True)
        message.apply(body, self._uploaded(recorded))
        if json.dumps(message.shown(), sort_keys=True) == before:
            self._violation(f"PATCH {request.path}: an edit that changes nothing")
        return _json(self.message_payload(message))

    async def _gateway_bot(self, request: web.Request) -> web.Response:
        await self._record(request)
        if not self._authorized(request) or self.revoked:
            return _json({"code": 0, "message": "401: Unauthorized"}, status=401)
        limit = {"total": 1000, "remaining": 1000, "reset_after": 0, "max_concurrency": 1}
        url = f"{self.base_url.replace('http', 'ws')}/gateway/"
        return _json({"url": url, "shards": self.recommended_shards, "session_start_limit": limit})

    async def revoke(self) -> None:
        """The token is reset: every gateway session closes with 4004 ("authentication
        failed") and new ones are refused, as Discord does."""
        self.revoked = True
        for socket in list(self._sockets):
            await socket.close(code=4004)

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        socket = web.WebSocketResponse()
        await socket.prepare(request)
        self._sockets.append(socket)
        await socket.send_json(
            {"op": 10, "d": {"heartbeat_interval": 45_000}, "s": None, "t": None}
        )
        async for frame in socket:
            if frame.type is not WSMsgType.TEXT:
                continue
            payload = json.loads(frame.data)
            if payload.get("op") == 1:
                await socket.send_json({"op": 11, "d": None, "s": None, "t": None})
            elif payload.get("op") == 2:
                if payload["d"].get("token") != TOKEN or self.revoked:
                    await socket.close(code=4004)
                    break
                self.gateway_identifies += 1
                shard = payload["d"].get("shard")
                self.gateway_shards.append(shard)
                if shard is not None:
                    self._socket_shards[id(socket)] = shard
                ready = {
                    "v": 10,
                    "user": self.bot_user,
                    "guilds": [],
                    "session_id": "fake-session",
                    "resume_gateway_url": f"{self.base_url.replace('http', 'ws')}/gateway/",
                    "application": {"id": str(self.app_id), "flags": 0},
                    "private_channels": [],
                    "relationships": [],
                }
                if shard is not None:
                    ready["shard"] = shard
                await socket.send_json({"op": 0, "t": "READY", "s": 1, "d": ready})
                self.identified.set()
        self._sockets.remove(socket)
        self._socket_shards.pop(id(socket), None)
        self.gateway_close_codes.append(socket.close_code)
        return socket
