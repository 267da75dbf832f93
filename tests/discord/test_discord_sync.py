"""Command registration: only when the command set changed, or when asked to."""

from __future__ import annotations

import dataclasses
import io

import discord

from adapters.discord import sync_commands
from adapters.discord.commands import CALLBACKS, assignment_commands, build_tree
from adapters.discord.sync import FINGERPRINT_KEY, FINGERPRINT_SCOPE, command_payload, fingerprint
from adapters.discord.translator import QuizTranslator
from bot.engine import QuizEngine
from bot.storage import SQLiteStorage
from fakes.discord_api import FakeDiscord
from fakes.discord_users import GUILD_ID, ClientFactory, World, text_of
from quizbot.runner import discord_config, discord_sync_command
from quizbot.settings import Settings

COMMANDS = len(CALLBACKS) + len(assignment_commands())  # every top-level command


async def test_commands_sync_once_and_not_on_every_start(
    fake_discord: FakeDiscord,
    engine: QuizEngine,
    storage: SQLiteStorage,
    make_client: ClientFactory,
) -> None:
    await make_client(engine)
    assert fake_discord.command_syncs == ["global"]
    stored = await storage.get_value(FINGERPRINT_SCOPE, FINGERPRINT_KEY)
    assert stored is not None and len(stored) == 64
    for _ in range(3):  # restarts
        await make_client(engine)
    assert fake_discord.command_syncs == ["global"]


async def test_a_changed_command_set_syncs_again(
    fake_discord: FakeDiscord,
    engine: QuizEngine,
    storage: SQLiteStorage,
    make_client: ClientFactory,
) -> None:
    # What an older version of the bot registered.
    await storage.set_value(FINGERPRINT_SCOPE, FINGERPRINT_KEY, "0" * 64)
    await make_client(engine)
    assert fake_discord.command_syncs == ["global"]
    await make_client(engine)
    assert fake_discord.command_syncs == ["global"]


async def test_the_commands_as_registered(
    fake_discord: FakeDiscord, settings: Settings, storage: SQLiteStorage
) -> None:
    await sync_commands(discord_config(settings), storage)
    commands = {c["name"]: c for c in fake_discord.commands["global"]}
    assert sorted(commands) == [
        "assign",
        "assignments",
        "daily",
        "help",
        "language",
        "leaderboard",
        "progress",
        "quiz",
        "quizzes",
        "reload",
        "remind",
        "report",
        "review",
        "round",
        "stats",
        "stop",
        "timezone",
        "unpublish",
        "upload",
    ]
    quiz = commands["quiz"]
    assert quiz["name_localizations"]["ru"] == "тест"
    assert quiz["description_localizations"] == {
        "en-US": "Start or continue a quiz",
        "en-GB": "Start or continue a quiz",
        "ru": "Начать или продолжить тест",
    }
    option, tag = quiz["options"]
    assert option["autocomplete"] is True and option["required"] is False
    assert option["name_localizations"] == {"en-US": "quiz", "en-GB": "quiz", "ru": "тест"}
    assert tag["name"] == "tag" and tag["autocomplete"] is True and tag["required"] is False
    assert tag["name_localizations"] == {"en-US": "tag", "en-GB": "tag", "ru": "тег"}
    (language,) = commands["language"]["options"]
    assert [(c["name"], c["value"]) for c in language["choices"]] == [
        ("English", "en"),
        ("বাংলা", "bn"),
        ("اردو", "ur"),
        ("Русский", "ru"),
    ]
    assert {c["name_localizations"]["ru"] for c in commands.values()} == {
        "тест",
        "повтор",
        "раунд",
        "вопрос_дня",
        "рейтинг",
        "прогресс",
        "язык",
        "стоп",
        "помощь",
        "перезагрузка",
        "статистика",
        "тесты",
        "снять",
        "загрузить",
        "задание",
        "задания",
        "отчёт",
        "напоминание",
        "часовой-пояс",
    }
    assert commands["review"]["description_localizations"]["ru"] == "Повторить вопросы с ошибками"
    # Servers and bot DMs, except rounds, the daily question and assignments, which belong to
    # a server channel.
    in_servers = {"round", "daily", "assign", "assignments"}
    assert all(commands[n]["contexts"] == [0] for n in in_servers)
    assert all(c["contexts"] == [0, 1] for n, c in commands.items() if n not in in_servers)
    time, weekdays, hours, quizzes = commands["daily"]["options"]
    assert (time["type"], time["required"], weekdays["type"]) == (3, False, 5)
    assert (hours["type"], hours["min_value"], hours["max_value"]) == (4, 1, 24)
    assert quizzes["autocomplete"] is True and quizzes["name_localizations"]["ru"] == "тесты"
    _, period = commands["leaderboard"]["options"]
    assert [(c["value"], c["name_localizations"]["ru"]) for c in period["choices"]] == [
        ("week", "Эта неделя"),
        ("month", "Этот месяц"),
        ("all", "За всё время"),
    ]
    quiz_option, seconds, round_tag = commands["round"]["options"]
    assert quiz_option["autocomplete"] is True and round_tag["autocomplete"] is True
    assert (seconds["type"], seconds["min_value"], seconds["max_value"]) == (4, 5, 600)
    assert seconds["required"] is False and seconds["name_localizations"]["ru"] == "секунды"
    # Hidden from members without Administrator (the bot's admin commands) or Manage Messages
    # (the assignments' admins) by default; everyone else's are visible.
    assert {n for n, c in commands.items() if c["default_member_permissions"] is not None} == {
        "reload",
        "stats",
        "quizzes",
        "unpublish",
        "upload",
        "assign",
        "report",
    }
    file, file_format = commands["upload"]["options"]
    assert (file["name"], file["type"], file["required"]) == ("file", 11, True)  # ATTACHMENT
    assert file["name_localizations"]["ru"] == "файл"
    assert [c["value"] for c in file_format["choices"]][:2] == ["yaml", "zip"]
    assert int(commands["reload"]["default_member_permissions"]) == 8  # Administrator
    assert int(commands["stats"]["default_member_permissions"]) == 8
    assert int(commands["assign"]["default_member_permissions"]) == 1 << 13  # Manage Messages
    assert int(commands["report"]["default_member_permissions"]) == 1 << 13
    subcommands = {o["name"]: o for o in commands["assign"]["options"]}
    assert sorted(subcommands) == ["cancel", "set"]
    assert [o["name"] for o in subcommands["set"]["options"]] == ["quiz", "deadline"]
    assert subcommands["set"]["name_localizations"]["ru"] == "задать"
    (number,) = subcommands["cancel"]["options"]
    assert number["name_localizations"]["ru"] == "номер" and number["type"] == 4


async def test_the_fingerprint_changes_when_a_command_is_added(
    fake_discord: FakeDiscord, settings: Settings, storage: SQLiteStorage
) -> None:
    client = discord.Client(intents=discord.Intents.none())
    tree = build_tree(client)
    await tree.set_translator(QuizTranslator())
    payload = await command_payload(tree, None)
    fewer = [c for c in payload if c["name"] != "round"]
    assert fingerprint(payload, 1, "global") != fingerprint(fewer, 1, "global")
    assert fingerprint(payload, 1, "global") == fingerprint(list(payload), 1, "global")


async def test_discord_sync_command_always_syncs(
    fake_discord: FakeDiscord,
    engine: QuizEngine,
    storage: SQLiteStorage,
    settings: Settings,
    make_client: ClientFactory,
) -> None:
    await make_client(engine)
    # `quizbot discord-sync`: opens the database of the settings itself.
    assert await discord_sync_command(settings, out=io.StringIO()) == 0
    result = await sync_commands(discord_config(settings), storage)
    assert result.synced and result.target == "global" and result.commands == COMMANDS
    guild = await sync_commands(discord_config(settings), storage, GUILD_ID)
    assert guild.target == f"guild {GUILD_ID}"
    assert fake_discord.command_syncs == ["global", "global", "global", f"guild {GUILD_ID}"]
    # The fingerprints it recorded spare the next start a sync.
    await make_client(engine)
    await make_client(engine, settings=dataclasses.replace(settings, discord_guild_id=GUILD_ID))
    assert len(fake_discord.command_syncs) == 4
    assert await storage.get_value(FINGERPRINT_SCOPE, f"{FINGERPRINT_KEY}:guild:{GUILD_ID}")


async def test_a_development_guild_gets_the_commands_at_once(
    fake_discord: FakeDiscord, engine: QuizEngine, settings: Settings, make_client: ClientFactory
) -> None:
    dev = dataclasses.replace(settings, discord_guild_id=GUILD_ID)
    client = await make_client(engine, settings=dev)
    assert fake_discord.command_syncs == [f"guild {GUILD_ID}"]
    assert "global" not in fake_discord.commands
    await make_client(engine, settings=dev)
    assert fake_discord.command_syncs == [f"guild {GUILD_ID}"]
    # Guild commands are invoked with the guild's id in the interaction data.
    world = World(fake_discord, client)
    alice = world.user("Alice")
    payload = alice.command_payload("help")
    payload["data"]["guild_id"] = str(GUILD_ID)
    exchange = await world.feed(payload)
    assert "/quiz" in text_of(exchange.last)


async def test_quizbot_discord_sync_reports_what_it_did(
    fake_discord: FakeDiscord, settings: Settings, storage: SQLiteStorage
) -> None:
    out, err = io.StringIO(), io.StringIO()
    assert await discord_sync_command(settings, out=out, err=err) == 0
    assert out.getvalue() == (
        f"Registered {COMMANDS} slash commands globally (may take a while to appear).\n"
    )
    out = io.StringIO()
    assert await discord_sync_command(settings, GUILD_ID, out=out, err=err) == 0
    assert out.getvalue() == (
        f"Registered {COMMANDS} slash commands in server {GUILD_ID} (available now).\n"
    )
    assert err.getvalue() == ""
    # A server the bot is not in; a wrong token; no token.
    assert await discord_sync_command(settings, 42, out=out, err=err) == 1
    assert "Missing Access" in err.getvalue()
    wrong = dataclasses.replace(settings, discord_token="not-the-token")
    assert await discord_sync_command(wrong, out=out, err=err) == 1
    assert "did not accept DISCORD_BOT_TOKEN" in err.getvalue()
    assert "not-the-token" not in err.getvalue() + out.getvalue()
    none = dataclasses.replace(settings, discord_token=None)
    assert await discord_sync_command(none, out=out, err=err) == 2
    assert fake_discord.command_syncs == ["global", f"guild {GUILD_ID}"]


async def test_a_failed_sync_does_not_stop_the_bot(
    fake_discord: FakeDiscord,
    engine: QuizEngine,
    storage: SQLiteStorage,
    settings: Settings,
    make_client: ClientFactory,
) -> None:
    elsewhere = dataclasses.replace(settings, discord_guild_id=42)  # a server the bot left
    client = await make_client(engine, settings=elsewhere)
    assert fake_discord.command_syncs == []
    assert await storage.get_value(FINGERPRINT_SCOPE, f"{FINGERPRINT_KEY}:guild:42") is None
    world = World(fake_discord, client)
    assert "/quiz" in text_of((await world.user("Alice").command("help")).last)
