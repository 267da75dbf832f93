"""Slash command names and descriptions in the Discord client locales we speak.

Discord shows a command in the client's locale when the command carries a localization for
it. Of our languages only English (en-US, en-GB) and Russian exist as Discord locales; Bengali
and Urdu users pick their language with ``/language`` instead, and the engine remembers it.

Interactions always carry the default (English) names, so dispatch never depends on this; the
translated names matter only for what users see and type, and for texts that mention a
command (:func:`localize_commands`).
"""

from __future__ import annotations

import re

import discord
from discord import app_commands

from adapters.discord.texts import templates

# Everyone's commands, in the order /help lists them; then the bot admins' commands.
COMMANDS = (
    "quiz",
    "review",
    "remind",
    "timezone",
    "round",
    "daily",
    "leaderboard",
    "progress",
    "language",
    "stop",
    "help",
)
ADMIN_COMMANDS = ("reload", "stats", "quizzes", "unpublish", "upload")
# Assignments: set and reported by a channel's admins, listed for everyone.
ASSIGNMENT_COMMANDS = ("assign", "assignments", "report")

# Discord locale -> our language code.
LOCALE_LANGUAGES: dict[discord.Locale, str] = {
    discord.Locale.american_english: "en",
    discord.Locale.british_english: "en",
    discord.Locale.russian: "ru",
}

# Command and option names: lowercase, at most 32 characters, letters/digits/-/_ only.
NAMES: dict[str, dict[str, str]] = {
    "quiz": {"en": "quiz", "ru": "тест"},
    "progress": {"en": "progress", "ru": "прогресс"},
    "language": {"en": "language", "ru": "язык"},
    "stop": {"en": "stop", "ru": "стоп"},
    "help": {"en": "help", "ru": "помощь"},
    "review": {"en": "review", "ru": "повтор"},
    "round": {"en": "round", "ru": "раунд"},
    "leaderboard": {"en": "leaderboard", "ru": "рейтинг"},
    "reload": {"en": "reload", "ru": "перезагрузка"},
    "stats": {"en": "stats", "ru": "статистика"},
    "quizzes": {"en": "quizzes", "ru": "тесты"},
    "unpublish": {"en": "unpublish", "ru": "снять"},
    "upload": {"en": "upload", "ru": "загрузить"},
    "upload.file": {"en": "file", "ru": "файл"},
    "upload.format": {"en": "format", "ru": "формат"},
    "unpublish.quiz": {"en": "quiz", "ru": "тест"},
    "remind": {"en": "remind", "ru": "напоминание"},
    "timezone": {"en": "timezone", "ru": "часовой-пояс"},
    "remind.time": {"en": "time", "ru": "время"},
    "timezone.zone": {"en": "zone", "ru": "пояс"},
    "quiz.quiz": {"en": "quiz", "ru": "тест"},
    "quiz.tag": {"en": "tag", "ru": "тег"},
    "language.language": {"en": "language", "ru": "язык"},
    "review.quiz": {"en": "quiz", "ru": "тест"},
    "round.quiz": {"en": "quiz", "ru": "тест"},
    "round.seconds": {"en": "seconds", "ru": "секунды"},
    "round.tag": {"en": "tag", "ru": "тег"},
    "leaderboard.quiz": {"en": "quiz", "ru": "тест"},
    "leaderboard.period": {"en": "period", "ru": "период"},
    "daily": {"en": "daily", "ru": "вопрос_дня"},
    "daily.time": {"en": "time", "ru": "время"},
    "daily.weekdays": {"en": "weekdays", "ru": "будни"},
    "daily.hours": {"en": "hours", "ru": "часы"},
    "daily.quizzes": {"en": "quizzes", "ru": "тесты"},
    "stats.quiz": {"en": "quiz", "ru": "тест"},
    "assign": {"en": "assign", "ru": "задание"},
    "assign.set": {"en": "set", "ru": "задать"},
    "assign.set.quiz": {"en": "quiz", "ru": "тест"},
    "assign.set.deadline": {"en": "deadline", "ru": "срок"},
    "assign.cancel": {"en": "cancel", "ru": "отменить"},
    "assign.cancel.id": {"en": "id", "ru": "номер"},
    "assignments": {"en": "assignments", "ru": "задания"},
    "report": {"en": "report", "ru": "отчёт"},
    "report.which": {"en": "which", "ru": "что"},
}


def name(key: str) -> app_commands.locale_str:
    """A translatable command or option name (its English default and lookup key)."""
    return app_commands.locale_str(NAMES[key]["en"], key=f"name:{key}")


def description(key: str) -> app_commands.locale_str:
    """A translatable description (its English text and lookup key)."""
    by_language = templates(key)
    assert by_language is not None, key
    return app_commands.locale_str(by_language["en"], key=f"text:{key}")


def lookup(key: str, language: str) -> str | None:
    """The translation behind a ``name:``/``text:`` key, or None."""
    kind, _, inner = key.partition(":")
    by_language = (
        NAMES.get(inner) if kind == "name" else templates(inner) if kind == "text" else None
    )
    return by_language.get(language) if by_language is not None else None


class QuizTranslator(app_commands.Translator):
    """Translates the strings marked with a ``key`` for en-US, en-GB and ru."""

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        key = string.extras.get("key")
        language = LOCALE_LANGUAGES.get(locale)
        if not isinstance(key, str) or language is None:
            return None
        return lookup(key, language)


def locale_language(locale: discord.Locale | str | None) -> str | None:
    """Our language for a Discord locale (``ru``, ``en-US``...), None for the others."""
    if isinstance(locale, str) and not isinstance(locale, discord.Locale):
        try:
            locale = discord.Locale(locale)
        except ValueError:
            return None
    return LOCALE_LANGUAGES.get(locale) if locale is not None else None


def command_name(command: str, locale: discord.Locale | str | None) -> str:
    """The name a client in ``locale`` shows for ``command``."""
    names = NAMES[command]
    return names.get(locale_language(locale) or "en") or names["en"]


# "/quiz" in interface text, also with the Urdu left-to-right isolates around "quiz".
_MENTION = re.compile(
    r"(?<![\w/])/(\u2066?)("
    + "|".join(COMMANDS + ADMIN_COMMANDS + ASSIGNMENT_COMMANDS)
    + r")(\u2069?)(?![\w-])"
)


def localize_commands(text: str, locale: discord.Locale | str | None) -> str:
    """Rewrite ``/quiz`` and friends to the names the user's client shows."""
    if locale_language(locale) in (None, "en"):
        return text
    return _MENTION.sub(lambda m: f"/{m[1]}{command_name(m[2], locale)}{m[3]}", text)
