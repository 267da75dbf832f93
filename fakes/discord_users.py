"""Discord users that type slash commands and press buttons, as raw Discord interaction payloads.

A :class:`World` feeds INTERACTION_CREATE payloads into a real client's connection state
(``parse_interaction_create``, what the gateway would call), waits for the handling discord.py
starts to finish, and reports what happened at the fake API: the callback, edits and
followups, and the messages a user now sees.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

import discord

from bot.quiz import Question, Quiz
from bot.text_direction import strip_controls
from fakes.discord_api import (
    APPLICATION_COMMAND,
    AUTOCOMPLETE,
    MESSAGE_COMPONENT,
    MODAL_SUBMIT,
    FakeDiscord,
    Interaction,
    Message,
    Recorded,
)

ClientFactory = Callable[..., Awaitable[discord.Client]]


class ManualTime(Protocol):
    """A clock that moves only when told (the tests' virtual clock)."""

    def advance(self, seconds: float) -> None: ...


GUILD_ID = 1_200_000_000_000_000_001
GUILD_CHANNEL_ID = 1_200_000_000_000_000_002
MEMBER_PERMISSIONS = 2248473465835073  # what Discord sends for an ordinary member
MANAGE_MESSAGES = 1 << 13
ADMINISTRATOR = 1 << 3


def visible(text: str) -> str:
    """Roughly what a reader sees: no direction marks, no Markdown escapes or bold."""
    text = strip_controls(text)
    text = re.sub(r"\\([\\*_`~|>#\-\[\]()])", r"\1", text)
    return text.replace("**", "")


def squash(text: str) -> str:
    """Text without any whitespace, to compare texts that were split at spaces."""
    return "".join(visible(text).split())


def embed_texts(message: Message) -> list[str]:
    parts = [message.content]
    for embed in message.embeds:
        parts += [
            (embed.get("author") or {}).get("name", ""),
            embed.get("title") or "",
            embed.get("description") or "",
        ]
        for item in embed.get("fields") or []:
            parts += [item["name"], item["value"]]
    return [p for p in parts if p]


def text_of(*messages: Message) -> str:
    """All the text of some messages, as a reader would see it."""
    return visible("\n".join(part for m in messages for part in embed_texts(m)))


def field_values(*messages: Message) -> str:
    return "\n".join(
        item["value"] for m in messages for e in m.embeds for item in e.get("fields") or []
    )


def buttons(message: Message) -> list[dict[str, Any]]:
    return [item for row in message.components for item in row.get("components", [])]


def options_shown(message: Message) -> dict[str, str]:
    """Letter -> option text, from the lettered lines of a question's description."""
    found = {}
    for line in visible("\n".join(e.get("description") or "" for e in message.embeds)).split("\n"):
        match = re.match(r"^(?:[✅❌▫️]+\s*)?([A-J])\. (.+)$", line.strip())
        if match:
            found[match[1]] = match[2].strip()
    return found


def find_question(quiz: Quiz, message: Message, language: str) -> Question:
    """The quiz question a message shows (by its text in ``language``)."""
    shown = squash(text_of(message))
    matches = [q for q in quiz.questions if squash(q.text.get(language)) in shown]
    assert len(matches) == 1, f"cannot tell which question is shown: {text_of(message)[:300]}"
    return matches[0]


def pick_letter(quiz: Quiz, message: Message, language: str, *, correct: bool) -> str:
    """The letter of the correct option (or of some wrong one), matched by option text."""
    question = find_question(quiz, message, language)
    right = question.option(question.correct_option_id)
    assert right is not None
    right_text = visible(right.text.get(language))
    shown = options_shown(message)
    assert len(shown) == len(question.options), shown
    for letter, option_text in shown.items():
        if (option_text == right_text) == correct:
            return letter
    raise AssertionError(f"no {'right' if correct else 'wrong'} option in {shown}")


def button_for(message: Message, letter: str) -> dict[str, Any]:
    for item in buttons(message):
        label = item.get("label", "")
        if label == letter or label.startswith(f"{letter}. "):
            return item
    raise AssertionError(f"no button {letter} on {[b.get('label') for b in buttons(message)]}")


@dataclass
class Exchange:
    """What one interaction (or several fed together) made the bot do."""

    fake: FakeDiscord
    interactions: list[Interaction]
    messages_before: set[int]

    @property
    def interaction(self) -> Interaction:
        return self.interactions[0]

    @property
    def requests(self) -> list[Recorded]:
        ids = {i.id for i in self.interactions}
        return [r for r in self.fake.requests if r.interaction_id in ids]

    @property
    def callback(self) -> Recorded:
        found = [r for r in self.requests if r.path.endswith("/callback")]
        assert len(found) == 1, f"expected one callback, got {len(found)}: {self.requests}"
        return found[0]

    @property
    def response_type(self) -> int | None:
        return self.interaction.response_type

    @property
    def new_messages(self) -> list[Message]:
        """Messages created while handling, in order."""
        return [m for i, m in self.fake.messages.items() if i not in self.messages_before]

    @property
    def notice(self) -> str:
        """The content of the one ephemeral notice this exchange produced."""
        notes = [m for m in self.new_messages if m.ephemeral and not m.embeds]
        assert len(notes) == 1, f"expected one notice, got {self.new_messages}"
        return visible(notes[0].content)

    @property
    def last(self) -> Message:
        """The newest message (the next question or the result)."""
        assert self.new_messages, "the bot sent no new message"
        return self.new_messages[-1]


class World:
    """Discord as the bot sees it: one server channel and DMs, users and their presses."""

    def __init__(self, fake: FakeDiscord, client: discord.Client | None) -> None:
        self.fake = fake
        self.client = client
        self._users = 0
        self.app_permissions = MEMBER_PERMISSIONS  # the bot's, in the server channel
        fake.channels.setdefault(GUILD_CHANNEL_ID, GUILD_ID)

    def user(
        self,
        name: str,
        locale: str = "en-US",
        *,
        dm: bool = False,
        permissions: int = MEMBER_PERMISSIONS,
    ) -> Player:
        self._users += 1
        return Player(self, self.fake.new_id(), name, locale, dm=dm, permissions=permissions)

    async def settle(self, seconds: float = 10.0) -> None:
        """Wait until every group round waits for the (virtual) clock with nothing to do."""
        rounds = getattr(self.client, "round_driver", None)
        assert rounds is not None, "a world without a quiz client"
        deadline = time.monotonic() + seconds
        calm = 0
        while calm < 2:  # twice in a row: nothing woke up in between
            await asyncio.sleep(0.005)
            calm = calm + 1 if rounds.settled() else 0
            assert time.monotonic() < deadline, "the rounds did not settle"

    async def advance(self, clock: ManualTime, seconds: float) -> None:
        """Let what is due now happen, then ``seconds`` of virtual time pass, and the rounds
        do what falls due."""
        await self.settle()
        clock.advance(seconds)
        await self.settle()

    async def feed(self, *payloads: dict[str, Any]) -> Exchange:
        """Deliver interactions as the gateway would, and wait until they are handled."""
        before = set(self.fake.messages)
        tasks_before = asyncio.all_tasks()
        fed = [self.deliver(payload) for payload in payloads]
        started = asyncio.all_tasks() - tasks_before
        await asyncio.wait_for(asyncio.gather(*started), timeout=15)
        return Exchange(self.fake, fed, before)

    def deliver(self, payload: dict[str, Any]) -> Interaction:
        """Deliver one interaction as the gateway would, without waiting for the bot."""
        assert self.client is not None, "a world without a bot"
        interaction = Interaction(
            id=int(payload["id"]),
            token=payload["token"],
            type=payload["type"],
            user_id=int((payload.get("member") or payload)["user"]["id"]),
            channel_id=int(payload["channel_id"]),
            guild_id=int(payload["guild_id"]) if payload.get("guild_id") else None,
            fed_at=time.monotonic(),
            message_id=int(payload["message"]["id"]) if payload.get("message") else None,
        )
        self.fake.expect(interaction)
        # What the gateway would call: discord.py has no public way to inject an event.
        self.client._connection.parse_interaction_create(payload)  # type: ignore[arg-type]  # noqa: SLF001
        return interaction


class Player:
    """A Discord user in the server channel (or in a DM with the bot)."""

    def __init__(
        self,
        world: World,
        user_id: int,
        name: str,
        locale: str,
        *,
        dm: bool,
        permissions: int = MEMBER_PERMISSIONS,
    ) -> None:
        self.world = world
        self.id = user_id
        self.name = name
        self.locale = locale
        self.dm = dm
        self.permissions = permissions  # in the server channel
        self.dm_channel_id = world.fake.new_id()
        world.fake.channels[self.dm_channel_id] = None
        world.fake.dm_channels[user_id] = self.dm_channel_id  # what opening a DM returns

    @property
    def fake(self) -> FakeDiscord:
        return self.world.fake

    @property
    def user_payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "username": self.name.lower(),
            "discriminator": "0",
            "global_name": self.name,
            "avatar": None,
        }

    def payload(
        self, kind: int, data: dict[str, Any], message: Message | None = None
    ) -> dict[str, Any]:
        interaction_id = self.fake.new_id()
        payload: dict[str, Any] = {
            "id": str(interaction_id),
            "application_id": str(self.fake.app_id),
            "type": kind,
            "token": f"token-{interaction_id}",
            "version": 1,
            "data": data,
            "locale": self.locale,
            "app_permissions": str(MEMBER_PERMISSIONS),
            "entitlements": [],
            "attachment_size_limit": 10_485_760,
        }
        if self.dm:
            payload |= {
                "channel_id": str(self.dm_channel_id),
                "channel": {
                    "id": str(self.dm_channel_id),
                    "type": 1,
                    "recipients": [self.user_payload],
                    "last_message_id": None,
                    "flags": 0,
                },
                "user": self.user_payload,
                "context": 1,
                "authorizing_integration_owners": {"0": "0"},
            }
        else:
            payload |= {
                "guild_id": str(GUILD_ID),
                "guild": {"id": str(GUILD_ID), "locale": "en-US", "features": []},
                "guild_locale": "en-US",
                "app_permissions": str(self.world.app_permissions),
                "channel_id": str(GUILD_CHANNEL_ID),
                "channel": {
                    "id": str(GUILD_CHANNEL_ID),
                    "type": 0,
                    "guild_id": str(GUILD_ID),
                    "name": "general",
                    "position": 0,
                    "permission_overwrites": [],
                    "nsfw": False,
                    "parent_id": None,
                    "topic": None,
                    "last_message_id": None,
                    "rate_limit_per_user": 0,
                    "flags": 0,
                },
                "member": {
                    "user": self.user_payload,
                    "roles": [],
                    "joined_at": "2025-01-01T00:00:00+00:00",
                    "deaf": False,
                    "mute": False,
                    "flags": 0,
                    "pending": False,
                    "nick": None,
                    "avatar": None,
                    "permissions": str(self.permissions),
                },
                "context": 0,
                "authorizing_integration_owners": {"0": str(GUILD_ID)},
            }
        if message is not None:
            payload["message"] = self.fake.message_payload(message)
        return payload

    def command_payload(self, name: str, **options: str | int) -> dict[str, Any]:
        data = {
            "id": str(self.fake.new_id()),
            "name": name,
            "type": 1,
            "options": [
                {"name": k, "type": _option_type(v), "value": v} for k, v in options.items()
            ],
        }
        return self.payload(APPLICATION_COMMAND, data)

    def upload_payload(
        self, filename: str, data: bytes, fmt: str | None = None, **attachment: Any
    ) -> dict[str, Any]:
        """``/upload file:<filename> [format:<fmt>]``: the attachment option carries the id of
        a file in ``resolved``, as Discord sends it."""
        attached = self.fake.user_attachment(filename, data, **attachment)
        payload = self.command_payload("upload", **({} if fmt is None else {"format": fmt}))
        command = payload["data"]
        command["options"].insert(0, {"name": "file", "type": 11, "value": attached["id"]})
        command["resolved"] = {"attachments": {attached["id"]: attached}}
        return payload

    async def upload(
        self, filename: str, data: bytes, fmt: str | None = None, **attachment: Any
    ) -> Exchange:
        """Run ``/upload`` with a file attached."""
        return await self.world.feed(self.upload_payload(filename, data, fmt, **attachment))

    async def send_dm(
        self, content: str, files: list[tuple[str, bytes]], **attachment: Any
    ) -> list[Message]:
        """Send the bot a DM with files attached (a MESSAGE_CREATE from the gateway); returns
        the messages the bot posted in the DM while handling it."""
        world = self.world
        assert world.client is not None, "a world without a bot"
        payload = {
            "id": str(self.fake.new_id()),
            "channel_id": str(self.dm_channel_id),
            "type": 0,
            "content": content,
            "author": self.user_payload,
            "attachments": [
                self.fake.user_attachment(name, data, **attachment) for name, data in files
            ],
            "embeds": [],
            "mentions": [],
            "mention_roles": [],
            "mention_everyone": False,
            "pinned": False,
            "tts": False,
            "timestamp": "2026-01-01T00:00:00.000000+00:00",
            "edited_timestamp": None,
            "flags": 0,
            "components": [],
        }
        before = set(self.fake.messages)
        tasks_before = asyncio.all_tasks()
        # What the gateway would call: discord.py has no public way to inject an event.
        world.client._connection.parse_message_create(payload)  # type: ignore[arg-type]  # noqa: SLF001
        started = asyncio.all_tasks() - tasks_before
        await asyncio.wait_for(asyncio.gather(*started), timeout=15)
        return [
            m
            for i, m in self.fake.messages.items()
            if i not in before and m.channel_id == self.dm_channel_id
        ]

    async def command(self, name: str, **options: str | int) -> Exchange:
        """Type ``/name option:value`` (options by their default English names)."""
        return await self.world.feed(self.command_payload(name, **options))

    async def subcommand(self, name: str, sub: str, **options: str | int) -> Exchange:
        """Type ``/name sub option:value``: a command of a group, as Discord sends it (the
        group's name, the subcommand as its one option, the options inside)."""
        payload = self.command_payload(name, **options)
        command = payload["data"]
        command["options"] = [{"name": sub, "type": 1, "options": command["options"]}]
        return await self.world.feed(payload)

    async def autocomplete(self, name: str, option: str, value: str) -> list[dict[str, Any]]:
        """Type into an autocompleted option; returns the choices shown."""
        data = {
            "id": str(self.fake.new_id()),
            "name": name,
            "type": 1,
            "options": [{"name": option, "type": 3, "value": value, "focused": True}],
        }
        exchange = await self.world.feed(self.payload(AUTOCOMPLETE, data))
        assert exchange.interaction.choices is not None, "no autocomplete answer"
        return exchange.interaction.choices

    def press_payload(self, message: Message, custom_id: str) -> dict[str, Any]:
        data = {"custom_id": custom_id, "component_type": 2}
        return self.payload(MESSAGE_COMPONENT, data, message)

    async def press(self, message: Message, custom_id: str) -> Exchange:
        return await self.world.feed(self.press_payload(message, custom_id))

    async def submit(self, opened: Exchange, value: str) -> Exchange:
        """Type ``value`` into the modal the bot opened in answer to ``opened`` and submit it
        (as Discord sends it: the modal's custom id, the field's, the message it came from)."""
        modal = opened.interaction.modal
        assert modal is not None, "the bot opened no modal"
        field = modal["components"][0]["components"][0]
        typed = {"type": 4, "custom_id": field["custom_id"], "value": value}
        data = {"custom_id": modal["custom_id"], "components": [{"type": 1, "components": [typed]}]}
        message_id = opened.interaction.message_id
        message = self.fake.messages[message_id] if message_id is not None else None
        return await self.world.feed(self.payload(MODAL_SUBMIT, data, message))

    async def press_letter(self, message: Message, letter: str) -> Exchange:
        return await self.press(message, button_for(message, letter)["custom_id"])


def _option_type(value: str | int) -> int:
    """The application command option type Discord sends for a value: boolean (5),
    integer (4) or string (3)."""
    if isinstance(value, bool):
        return 5
    return 4 if isinstance(value, int) else 3
