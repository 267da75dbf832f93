"""Registering the slash commands with Discord only when they changed.

Discord limits how many commands an application may create per day, so syncing on every
start is wasteful and can lock a bot out. The translated command payload (everything Discord
would store) is hashed together with the application id and the target; the hash of the last
successful sync is kept in the storage's small key-value table. A start syncs only when the
hash differs; ``quizbot discord-sync`` (:func:`sync_commands`) syncs unconditionally.

With ``DISCORD_GUILD_ID`` the commands go to that server only, where Discord applies them at
once (global commands can take a while to show up): meant for development.
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass
from typing import Any, Protocol

import discord
from discord import app_commands

from adapters.discord.commands import build_tree
from adapters.discord.config import DiscordConfig
from adapters.discord.translator import QuizTranslator

log = logging.getLogger("quizbot.discord")

FINGERPRINT_SCOPE = "discord"
FINGERPRINT_KEY = "command-fingerprint"


class KeyValues(Protocol):
    """Where the fingerprint is kept: the engine (``get_value``/``set_value``) in a running
    bot, the storage the wiring opened for ``quizbot discord-sync``."""

    async def get_value(self, scope: str, key: str) -> str | None: ...

    async def set_value(self, scope: str, key: str, value: str | None) -> None: ...


@dataclass(frozen=True)
class SyncResult:
    """What a sync check did."""

    synced: bool
    target: str  # "global" or "guild <id>"
    commands: int
    fingerprint: str


def fingerprint_key(guild_id: int | None) -> str:
    """The storage key for the fingerprint of one target (global or one server)."""
    return FINGERPRINT_KEY if guild_id is None else f"{FINGERPRINT_KEY}:guild:{guild_id}"


async def command_payload(
    tree: app_commands.CommandTree[Any], guild: discord.abc.Snowflake | None
) -> list[dict[str, Any]]:
    """The commands exactly as :meth:`~discord.app_commands.CommandTree.sync` sends them."""
    translator = tree.translator
    payload = []
    for command in tree.get_commands(guild=guild):
        if translator is not None:
            payload.append(await command.get_translated_payload(tree, translator))
        else:
            payload.append(command.to_dict(tree))
    return payload


def fingerprint(payload: list[dict[str, Any]], application_id: int | None, target: str) -> str:
    """A stable hash of what would be registered, for whom and where."""
    material = {"application": application_id, "target": target, "commands": payload}
    encoded = json.dumps(material, sort_keys=True, ensure_ascii=False).encode()
    return hashlib.sha256(encoded).hexdigest()


async def sync_if_changed(
    tree: app_commands.CommandTree[Any],
    storage: KeyValues,
    guild_id: int | None,
    *,
    force: bool = False,
) -> SyncResult:
    """Sync the tree's commands to ``guild_id`` (or globally) when they differ from the last
    sync recorded in ``storage``, or always with ``force``. The client must be logged in."""
    guild = discord.Object(id=guild_id) if guild_id is not None else None
    if guild is not None:
        tree.copy_global_to(guild=guild)
    target = "global" if guild_id is None else f"guild {guild_id}"
    payload = await command_payload(tree, guild)
    digest = fingerprint(payload, tree.client.application_id, target)
    key = fingerprint_key(guild_id)
    if not force and await storage.get_value(FINGERPRINT_SCOPE, key) == digest:
        log.info("Discord commands unchanged (%s): not syncing", target)
        return SyncResult(False, target, len(payload), digest)
    synced = await tree.sync(guild=guild)
    await storage.set_value(FINGERPRINT_SCOPE, key, digest)
    log.info("Discord commands synced (%s): %d commands", target, len(synced))
    return SyncResult(True, target, len(synced), digest)


async def sync_commands(
    config: DiscordConfig, storage: KeyValues, guild_id: int | None = None
) -> SyncResult:
    """Register the commands now, whatever the fingerprint says (``quizbot discord-sync``).

    ``guild_id`` defaults to ``config.guild_id``; with neither, the commands are registered
    globally. Logs in over HTTP only (no gateway connection). The fingerprint goes to
    ``storage``, so that the next ``quizbot run`` does not sync again.
    """
    target = guild_id if guild_id is not None else config.guild_id
    client = discord.Client(intents=discord.Intents(guilds=True))
    try:
        tree = build_tree(client)
        await tree.set_translator(QuizTranslator())
        await client.login(config.token)
        return await sync_if_changed(tree, storage, target, force=True)
    finally:
        await client.close()
