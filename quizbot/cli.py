"""The ``quizbot`` command: play in the terminal, check quizzes, see progress, run the bots."""

from __future__ import annotations

import argparse
import asyncio
import getpass
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from bot.i18n import LANGUAGE_NAMES, SUPPORTED_LANGUAGES, t
from bot.quiz_loader import load_quizzes
from bot.text_direction import paragraph
from bot.views import Participant
from quizbot.bootstrap import open_app
from quizbot.settings import ConfigError, Settings

EXIT_USAGE = 2


def _terminal_user(name: str | None) -> Participant:
    if not name:
        try:
            name = getpass.getuser()
        except (KeyError, OSError):
            name = "player"
    tag = os.environ.get("LC_ALL") or os.environ.get("LC_MESSAGES") or os.environ.get("LANG")
    return Participant("terminal", name, display_name=name, language_tag=tag)


def _settings() -> Settings:
    try:
        return Settings.from_env()
    except ConfigError as exc:
        print(f"quizbot: configuration error: {exc}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE) from None


async def _play(args: argparse.Namespace) -> int:
    from adapters.terminal import TerminalPlayer

    settings = _settings()
    who = _terminal_user(args.user)
    async with open_app(settings) as app:
        if args.lang and await app.engine.set_language(who, args.lang) is None:
            choices = ", ".join(SUPPORTED_LANGUAGES)
            print(
                f"quizbot: unknown language {args.lang!r}; choose one of {choices}",
                file=sys.stderr,
            )
            return EXIT_USAGE
        player = TerminalPlayer(app.engine, who, sys.stdin, sys.stdout)
        return await player.play(args.quiz)


async def _list(args: argparse.Namespace) -> int:
    settings = _settings()
    async with open_app(settings) as app:
        who = _terminal_user(None)
        language = args.lang or await app.engine.interface_language(who)
        summaries = app.engine.quizzes(language)
        if not summaries:
            print(t("no_quizzes", language))
            return 1
        for quiz in summaries:
            level = t(f"level_{quiz.level}", language) if quiz.level else ""
            line = t("quiz_summary", language, title=quiz.title, count=quiz.question_count)
            langs = ", ".join(quiz.languages)
            print(
                paragraph(f"{quiz.id}: {line} · {level} · {langs}".replace(" ·  ·", " ·"), language)
            )
    return 0


def _validate(args: argparse.Namespace) -> int:
    paths = [Path(p) for p in args.paths] or [_settings().quiz_dir]
    missing = [p for p in paths if not p.exists()]
    for path in missing:
        print(f"{path}: no such file or directory", file=sys.stderr)
    report = load_quizzes([p for p in paths if p.exists()])
    for problem in sorted(report.errors):
        print(f"{problem}", file=sys.stderr)
    if args.warnings:
        for problem in sorted(report.warnings):
            print(f"{problem} (warning)", file=sys.stderr)
    for quiz in report.quizzes:
        print(
            f"ok: {quiz.source}: {quiz.id} ({len(quiz.questions)} questions, "
            f"{', '.join(quiz.languages)})"
        )
    if report.warnings and not args.warnings:
        print(f"{len(report.warnings)} missing translations (shown with --warnings)")
    return 1 if report.errors or missing else 0


async def _progress(args: argparse.Namespace) -> int:
    settings = _settings()
    who = _terminal_user(args.user)
    async with open_app(settings) as app:
        report = await app.engine.progress(who)
        lang = report.language
        if not report.quizzes:
            print(paragraph(t("no_progress", lang).replace("/quiz", "quizbot play"), lang))
            return 0
        print(paragraph(t("progress_title", lang), lang))
        for item in report.quizzes:
            if item.completed_attempts:
                print(
                    paragraph(
                        "  "
                        + t(
                            "progress_line",
                            lang,
                            title=item.title,
                            attempts=item.completed_attempts,
                            best=item.best,
                            last=item.last,
                            total=item.total,
                        ),
                        lang,
                    )
                )
            if item.in_progress_answered is not None:
                print(
                    paragraph(
                        "  "
                        + t(
                            "progress_in_progress",
                            lang,
                            title=item.title,
                            answered=item.in_progress_answered,
                            total=item.total,
                        ),
                        lang,
                    )
                )
    return 0


async def _run(args: argparse.Namespace) -> int:
    settings = _settings()
    if not settings.telegram_token and not settings.discord_token:
        print(
            "quizbot run: no bot token is set. Set TELEGRAM_BOT_TOKEN (from @BotFather) "
            "and/or DISCORD_BOT_TOKEN (from the Discord developer portal), or try "
            "`quizbot play` to play in this terminal.",
            file=sys.stderr,
        )
        return EXIT_USAGE
    from quizbot.runner import run_bots

    return await run_bots(settings)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="quizbot",
        description="Quizzes with explanations, in the terminal, Telegram and Discord.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    play = commands.add_parser("play", help="play a quiz in this terminal")
    play.add_argument("quiz", nargs="?", help="quiz id (see `quizbot list`)")
    play.add_argument("--lang", help=f"language: {', '.join(LANGUAGE_NAMES)} (remembered)")
    play.add_argument("--user", help="whose progress to use (default: your login name)")

    listing = commands.add_parser("list", help="list the quizzes")
    listing.add_argument("--lang", choices=SUPPORTED_LANGUAGES)

    validate = commands.add_parser("validate", help="check quiz files; exit 1 on errors")
    validate.add_argument("paths", nargs="*", help="files or directories (default: QUIZ_DIR)")
    validate.add_argument("--warnings", action="store_true", help="list missing translations")

    progress = commands.add_parser("progress", help="show your attempts and scores")
    progress.add_argument("--user", help="whose progress (default: your login name)")

    commands.add_parser("run", help="run the Telegram and/or Discord bot (needs tokens)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=os.environ.get("LOG_LEVEL", "WARNING").upper()
        if args.command != "run"
        else os.environ.get("LOG_LEVEL", "INFO").upper(),
        format="%(asctime)s %(levelname)s %(name)s %(message)s",
    )
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    if args.command == "validate":
        return _validate(args)
    handler = {"play": _play, "list": _list, "progress": _progress, "run": _run}[args.command]
    try:
        return asyncio.run(handler(args))
    except KeyboardInterrupt:
        print("\n" + t("saved_and_exit", "en"))
        return 130
