"""The slash commands: ``/quiz [quiz] [tag]``, ``/review [quiz]``, ``/remind [time]``,
``/timezone [zone]``, ``/round [quiz] [seconds] [tag]``,
``/daily [time] [weekdays] [hours] [quizzes]``, ``/leaderboard [quiz] [period]``,
``/progress``, ``/language``, ``/stop``, ``/help``, for bot admins ``/reload``,
``/stats [quiz]``, ``/quizzes``, ``/unpublish quiz`` and ``/upload file [format]``, and the
assignments' ``/assign set quiz deadline``, ``/assign cancel id``, ``/assignments`` and
``/report [which]``.

``/round`` is a command of its own rather than an option of ``/quiz``: it is found in the
command list under its own description, takes its own options (the time per question, which
Discord checks against its range), and only exists in servers. The admin commands are
registered with ``default_member_permissions`` set to Administrator, so servers show them to
administrators only (servers may change that; the handlers check the admin ids).

The callbacks are thin: they find the :class:`~adapters.discord.handlers.QuizHandlers` of the
client that received the interaction and hand over. :func:`build_tree` makes fresh command
objects for each tree, so a process may hold several clients (the runner and
``discord-sync``, or tests simulating a restart).
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from adapters.discord.handlers import QuizHandlers
from adapters.discord.timezone_commands import zone_choices
from adapters.discord.translator import description, name
from bot.i18n import LANGUAGE_NAMES, SUPPORTED_LANGUAGES
from bot.leaderboard_periods import Period
from bot.rounds import MAX_TIME_LIMIT, MIN_TIME_LIMIT
from bot.uploads import UPLOAD_FORMATS


def handlers_for(interaction: discord.Interaction[Any]) -> QuizHandlers:
    """The handlers of the client that received ``interaction``."""
    handlers = getattr(interaction.client, "quiz_handlers", None)
    if not isinstance(handlers, QuizHandlers):
        raise RuntimeError("this client does not handle quiz commands")
    return handlers


async def quiz_autocomplete(
    interaction: discord.Interaction[Any], current: str
) -> list[app_commands.Choice[str]]:
    return await handlers_for(interaction).quiz_choices(interaction, current)


async def tag_autocomplete(
    interaction: discord.Interaction[Any], current: str
) -> list[app_commands.Choice[str]]:
    return await handlers_for(interaction).tag_choices(interaction, current)


@app_commands.describe(quiz=description("cmd_quiz_option"), tag=description("cmd_quiz_tag_option"))
@app_commands.rename(quiz=name("quiz.quiz"), tag=name("quiz.tag"))
@app_commands.autocomplete(quiz=quiz_autocomplete, tag=tag_autocomplete)
async def quiz_callback(
    interaction: discord.Interaction[Any], quiz: str | None = None, tag: str | None = None
) -> None:
    await handlers_for(interaction).quiz(interaction, quiz, tag)


@app_commands.describe(quiz=description("cmd_quiz_option"))
@app_commands.rename(quiz=name("review.quiz"))
@app_commands.autocomplete(quiz=quiz_autocomplete)
async def review_callback(interaction: discord.Interaction[Any], quiz: str | None = None) -> None:
    await handlers_for(interaction).review(interaction, quiz)


async def zone_autocomplete(
    interaction: discord.Interaction[Any], current: str
) -> list[app_commands.Choice[str]]:
    return zone_choices(current)


@app_commands.describe(time=description("cmd_remind_option"))
@app_commands.rename(time=name("remind.time"))
async def remind_callback(interaction: discord.Interaction[Any], time: str | None = None) -> None:
    await handlers_for(interaction).remind(interaction, time)


@app_commands.describe(zone=description("cmd_timezone_option"))
@app_commands.rename(zone=name("timezone.zone"))
@app_commands.autocomplete(zone=zone_autocomplete)
async def timezone_callback(interaction: discord.Interaction[Any], zone: str | None = None) -> None:
    await handlers_for(interaction).timezone(interaction, zone)


Seconds = app_commands.Range[int, MIN_TIME_LIMIT, MAX_TIME_LIMIT]


@app_commands.describe(
    quiz=description("cmd_quiz_option"),
    seconds=description("cmd_round_seconds"),
    tag=description("cmd_quiz_tag_option"),
)
@app_commands.rename(quiz=name("round.quiz"), seconds=name("round.seconds"), tag=name("round.tag"))
@app_commands.autocomplete(quiz=quiz_autocomplete, tag=tag_autocomplete)
async def round_callback(
    interaction: discord.Interaction[Any],
    quiz: str | None = None,
    seconds: Seconds | None = None,
    tag: str | None = None,
) -> None:
    await handlers_for(interaction).round(interaction, quiz, seconds, tag)


def _period(value: str) -> app_commands.Choice[str]:
    label = description(f"period_choice_{value}")
    return app_commands.Choice(name=label, value=value)


@app_commands.describe(
    quiz=description("cmd_quiz_option"), period=description("cmd_leaderboard_period")
)
@app_commands.rename(quiz=name("leaderboard.quiz"), period=name("leaderboard.period"))
@app_commands.autocomplete(quiz=quiz_autocomplete)
@app_commands.choices(period=[_period(period.value) for period in Period])
async def leaderboard_callback(
    interaction: discord.Interaction[Any],
    quiz: str | None = None,
    period: app_commands.Choice[str] | None = None,
) -> None:
    chosen = Period(period.value) if period is not None else None
    await handlers_for(interaction).leaderboard(interaction, quiz, chosen)


async def quizzes_autocomplete(
    interaction: discord.Interaction[Any], current: str
) -> list[app_commands.Choice[str]]:
    return await handlers_for(interaction).quiz_list_choices(interaction, current)


Hours = app_commands.Range[int, 1, 24]


@app_commands.describe(
    time=description("cmd_daily_time"),
    weekdays=description("cmd_daily_weekdays"),
    hours=description("cmd_daily_hours"),
    quizzes=description("cmd_daily_quizzes"),
)
@app_commands.rename(
    time=name("daily.time"),
    weekdays=name("daily.weekdays"),
    hours=name("daily.hours"),
    quizzes=name("daily.quizzes"),
)
@app_commands.autocomplete(quizzes=quizzes_autocomplete)
async def daily_callback(
    interaction: discord.Interaction[Any],
    time: str | None = None,
    weekdays: bool = False,
    hours: Hours | None = None,
    quizzes: str | None = None,
) -> None:
    await handlers_for(interaction).daily(interaction, time, weekdays, hours, quizzes)


@app_commands.default_permissions(administrator=True)
async def reload_callback(interaction: discord.Interaction[Any]) -> None:
    await handlers_for(interaction).reload(interaction)


@app_commands.default_permissions(administrator=True)
@app_commands.describe(quiz=description("cmd_quiz_option"))
@app_commands.rename(quiz=name("stats.quiz"))
@app_commands.autocomplete(quiz=quiz_autocomplete)
async def stats_callback(interaction: discord.Interaction[Any], quiz: str | None = None) -> None:
    await handlers_for(interaction).stats(interaction, quiz)


@app_commands.default_permissions(administrator=True)
@app_commands.describe(file=description("cmd_upload_file"), format=description("cmd_upload_format"))
@app_commands.rename(file=name("upload.file"), format=name("upload.format"))
@app_commands.choices(format=[app_commands.Choice(name=fmt, value=fmt) for fmt in UPLOAD_FORMATS])
async def upload_callback(
    interaction: discord.Interaction[Any],
    file: discord.Attachment,
    format: app_commands.Choice[str] | None = None,
) -> None:
    await handlers_for(interaction).upload(interaction, file, format.value if format else None)


@app_commands.default_permissions(administrator=True)
async def quizzes_callback(interaction: discord.Interaction[Any]) -> None:
    await handlers_for(interaction).quizzes(interaction)


@app_commands.default_permissions(administrator=True)
@app_commands.describe(quiz=description("cmd_unpublish_quiz"))
@app_commands.rename(quiz=name("unpublish.quiz"))
@app_commands.autocomplete(quiz=quiz_autocomplete)
async def unpublish_callback(interaction: discord.Interaction[Any], quiz: str) -> None:
    await handlers_for(interaction).unpublish(interaction, quiz)


async def progress_callback(interaction: discord.Interaction[Any]) -> None:
    await handlers_for(interaction).progress(interaction)


@app_commands.describe(language=description("cmd_language_option"))
@app_commands.rename(language=name("language.language"))
@app_commands.choices(
    language=[
        app_commands.Choice(name=LANGUAGE_NAMES[code], value=code) for code in SUPPORTED_LANGUAGES
    ]
)
async def language_callback(
    interaction: discord.Interaction[Any], language: app_commands.Choice[str]
) -> None:
    await handlers_for(interaction).language(interaction, language.value)


async def stop_callback(interaction: discord.Interaction[Any]) -> None:
    await handlers_for(interaction).stop(interaction)


async def help_callback(interaction: discord.Interaction[Any]) -> None:
    await handlers_for(interaction).help(interaction)


@app_commands.describe(
    quiz=description("cmd_quiz_option"), deadline=description("cmd_assign_deadline")
)
@app_commands.rename(quiz=name("assign.set.quiz"), deadline=name("assign.set.deadline"))
@app_commands.autocomplete(quiz=quiz_autocomplete)
async def assign_set_callback(
    interaction: discord.Interaction[Any], quiz: str, deadline: str
) -> None:
    await handlers_for(interaction).assign(interaction, quiz, deadline)


AssignmentNumber = app_commands.Range[int, 1, 2**53]


@app_commands.describe(number=description("cmd_assign_id"))
@app_commands.rename(number=name("assign.cancel.id"))
async def assign_cancel_callback(
    interaction: discord.Interaction[Any], number: AssignmentNumber
) -> None:
    await handlers_for(interaction).cancel_assignment(interaction, number)


async def assignments_callback(interaction: discord.Interaction[Any]) -> None:
    await handlers_for(interaction).list_assignments(interaction)


@app_commands.default_permissions(manage_messages=True)
@app_commands.describe(which=description("cmd_report_which"))
@app_commands.rename(which=name("report.which"))
@app_commands.autocomplete(which=quiz_autocomplete)
async def report_callback(interaction: discord.Interaction[Any], which: str | None = None) -> None:
    await handlers_for(interaction).report(interaction, which)


def assignment_commands() -> list[app_commands.Command[Any, ..., None] | app_commands.Group]:
    """``/assign set|cancel`` (hidden from members who cannot manage messages, by default),
    ``/assignments`` (in servers) and ``/report``."""
    assign = app_commands.Group(
        name=name("assign"),
        description=description("cmd_assign"),
        allowed_contexts=app_commands.AppCommandContext(guild=True, dm_channel=False),
        default_permissions=discord.Permissions(manage_messages=True),
    )
    for key, callback in (("set", assign_set_callback), ("cancel", assign_cancel_callback)):
        assign.add_command(
            app_commands.Command(
                name=name(f"assign.{key}"),
                description=description(f"cmd_assign_{key}"),
                callback=callback,
            )
        )
    return [
        assign,
        app_commands.Command(
            name=name("assignments"),
            description=description("cmd_assignments"),
            callback=assignments_callback,
            allowed_contexts=app_commands.AppCommandContext(guild=True, dm_channel=False),
        ),
        app_commands.Command(
            name=name("report"), description=description("cmd_report"), callback=report_callback
        ),
    ]


CALLBACKS: dict[str, Any] = {
    "quiz": quiz_callback,
    "review": review_callback,
    "remind": remind_callback,
    "timezone": timezone_callback,
    "round": round_callback,
    "daily": daily_callback,
    "leaderboard": leaderboard_callback,
    "progress": progress_callback,
    "language": language_callback,
    "stop": stop_callback,
    "help": help_callback,
    "reload": reload_callback,
    "stats": stats_callback,
    "quizzes": quizzes_callback,
    "unpublish": unpublish_callback,
    "upload": upload_callback,
}

# Commands that make sense in servers only (the tree allows servers and DMs with the bot).
SERVER_ONLY = {
    command: app_commands.AppCommandContext(guild=True, dm_channel=False)
    for command in ("round", "daily")
}


def make_commands() -> list[app_commands.Command[Any, ..., None]]:
    """Fresh command objects, names and descriptions marked for the translator."""
    return [
        app_commands.Command(
            name=name(command),
            description=description(f"cmd_{command}"),
            callback=callback,
            allowed_contexts=SERVER_ONLY.get(command),
        )
        for command, callback in CALLBACKS.items()
    ]


def build_tree(client: discord.Client) -> app_commands.CommandTree[Any]:
    """A command tree with our commands (the assignments' included), usable in servers and
    in DMs with the bot.

    Call ``await tree.set_translator(QuizTranslator())`` before syncing (it is async).
    """
    tree: app_commands.CommandTree[Any] = app_commands.CommandTree(
        client,
        allowed_contexts=app_commands.AppCommandContext(guild=True, dm_channel=True),
        allowed_installs=app_commands.AppInstallationType(guild=True),
    )
    for command in make_commands():
        tree.add_command(command)
    for extra in assignment_commands():
        tree.add_command(extra)
    return tree
