"""The command menu: setMyCommands per language, once per change of the lists.

Telegram shows each user the menu in their client's language; admins get, in their own chat,
a menu with the admin commands too, and groups' administrators one with /assign and /report.
A fingerprint of what was registered is kept through the engine, so a restart does not
register everything again.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Collection

from telegram import (
    Bot,
    BotCommand,
    BotCommandScope,
    BotCommandScopeAllChatAdministrators,
    BotCommandScopeChat,
)
from telegram.error import TelegramError

from adapters.telegram.texts import command_descriptions
from bot.engine import QuizEngine
from bot.i18n import SUPPORTED_LANGUAGES

log = logging.getLogger("quizbot.telegram")

COMMANDS_SCOPE = "telegram:commands"  # bot id -> fingerprint of the last setMyCommands


async def sync_commands(bot: Bot, engine: QuizEngine, admin_ids: Collection[str]) -> None:
    """setMyCommands for every language, for groups' administrators a menu with theirs, and
    for each admin's own chat a menu with the admin commands; once per change of the lists."""
    admins = sorted(admin_ids)
    menus = {lang: command_descriptions(lang) for lang in SUPPORTED_LANGUAGES}
    admin_menus = {lang: command_descriptions(lang, admin=True) for lang in SUPPORTED_LANGUAGES}
    chat_admin_menus = {
        lang: command_descriptions(lang, chat_admin=True) for lang in SUPPORTED_LANGUAGES
    }
    wanted = {
        "menus": menus,
        "admin_menus": admin_menus,
        "admins": admins,
        "chat_admin_menus": chat_admin_menus,
    }
    fingerprint = hashlib.sha256(json.dumps(wanted, sort_keys=True).encode()).hexdigest()
    key = str(bot.id)
    admins_key = f"{key}:admins"
    if await engine.get_value(COMMANDS_SCOPE, key) == fingerprint:
        return
    try:
        await _set_menus(bot, menus)
        # Outranks the default menu for groups' administrators.
        await _set_menus(bot, chat_admin_menus, BotCommandScopeAllChatAdministrators())
    except TelegramError:
        log.warning("telegram: could not register the command menu", exc_info=True)
        return
    complete = True
    for admin in admins:
        scope = BotCommandScopeChat(int(admin))
        try:
            # Chat-scoped menus outrank the default ones, so every language needs one.
            await bot.set_my_commands([BotCommand(c, d) for c, d in admin_menus["en"]], scope=scope)
            for lang, menu in admin_menus.items():
                await bot.set_my_commands(
                    [BotCommand(c, d) for c, d in menu], scope=scope, language_code=lang
                )
        except TelegramError as error:  # e.g. an admin who never opened the bot's chat
            log.warning("telegram: no admin command menu for %s (%s)", admin, error)
            complete = False
    before = json.loads(await engine.get_value(COMMANDS_SCOPE, admins_key) or "[]")
    for former in set(before) - set(admins):
        scope = BotCommandScopeChat(int(former))
        try:
            await bot.delete_my_commands(scope=scope)
            for lang in SUPPORTED_LANGUAGES:
                await bot.delete_my_commands(scope=scope, language_code=lang)
        except TelegramError as error:
            log.warning("telegram: could not remove the admin menu of %s (%s)", former, error)
            complete = False
    await engine.set_value(COMMANDS_SCOPE, admins_key, json.dumps(admins))
    if complete:  # else the next start tries again
        await engine.set_value(COMMANDS_SCOPE, key, fingerprint)


async def _set_menus(
    bot: Bot, menus: dict[str, list[tuple[str, str]]], scope: BotCommandScope | None = None
) -> None:
    """A menu for every language in ``scope``, and English for clients in any other."""
    await bot.set_my_commands([BotCommand(c, d) for c, d in menus["en"]], scope=scope)
    for lang, menu in menus.items():
        await bot.set_my_commands(
            [BotCommand(c, d) for c, d in menu], scope=scope, language_code=lang
        )
