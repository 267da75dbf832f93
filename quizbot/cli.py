"""The ``quizbot`` command: play in the terminal, check quizzes, see progress, run the bots."""

from __future__ import annotations

import argparse
import asyncio
import csv
import getpass
import io
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bot.i18n import DEFAULT_LANGUAGE, LANGUAGE_NAMES, SUPPORTED_LANGUAGES, t
from bot.library import Publication, QuizLibrary
from bot.library_texts import library_t
from bot.presenters import progress_lines, stats_hardest, stats_summary
from bot.quiz_check import check_quiz_files
from bot.quiz_loader import QUIZ_SUFFIXES, LoadReport, load_quiz_text
from bot.scheduling.timezones import Place, find_zone
from bot.stats import QuizStats
from bot.storage import AnswerRecord, AttemptRecord, VersionSource
from bot.text_direction import paragraph, prepare
from bot.uploads import publish_upload
from bot.views import Participant
from quizbot.assignments_cli import add_commands as add_assignment_commands
from quizbot.assignments_cli import export_assignment, list_assignments
from quizbot.assignments_cli import report as assignment_report
from quizbot.bootstrap import open_app
from quizbot.extras import MissingExtra, require_extra
from quizbot.logs import configure_logging
from quizbot.schema_check import schema_available, schema_problems
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


# The environment, read once per process by main() (Settings or the problem found).
_parsed: Settings | ConfigError | None = None


def _read_settings() -> Settings | ConfigError:
    global _parsed
    if _parsed is None:
        try:
            _parsed = Settings.from_env()
        except ConfigError as exc:
            _parsed = exc
    return _parsed


def _settings() -> Settings:
    """The settings, or exit 2 naming the bad variable (commands that need no settings, such
    as ``validate PATH`` and ``import``, never ask)."""
    parsed = _read_settings()
    if isinstance(parsed, ConfigError):
        print(f"quizbot: configuration error: {parsed}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE) from None
    return parsed


async def _play(args: argparse.Namespace) -> int:
    from adapters.terminal import CtrlC, TerminalPlayer

    settings = _settings()
    who = _terminal_user(args.user)
    # Around the whole run: a Ctrl-C while the database opens ends play at its first prompt.
    with CtrlC.caught() as ctrl_c:
        async with open_app(settings) as app:
            if args.lang and await app.services.engine.set_language(who, args.lang) is None:
                choices = ", ".join(SUPPORTED_LANGUAGES)
                print(
                    f"quizbot: unknown language {args.lang!r}; choose one of {choices}",
                    file=sys.stderr,
                )
                return EXIT_USAGE
            zones, place = app.services.scheduling.timezones, Place(who.platform, who.user_id)
            if getattr(args, "tz", None):  # `quizbot review --tz ZONE`: remembered
                chosen = find_zone(args.tz)
                if chosen is None:
                    print(f"quizbot: {t('timezone_unknown', 'en', name=args.tz)}", file=sys.stderr)
                    return EXIT_USAGE
                await zones.set_zone(place, chosen)
            player = TerminalPlayer(app.services.engine, who, sys.stdin, sys.stdout, ctrl_c)
            tag = getattr(args, "tag", None)  # `review` has no --tag
            review = args.command == "review"
            zone = await zones.zone(place)
            return await player.play(args.quiz, review=review, tag=tag, zone=zone)


async def _list(args: argparse.Namespace) -> int:
    settings = _settings()
    async with open_app(settings) as app:
        who = _terminal_user(None)
        language = args.lang or await app.services.engine.interface_language(who)
        summaries = app.services.engine.quizzes(language)
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


def _checked(paths: list[Path]) -> LoadReport:
    """What `quizbot validate` finds in ``paths`` (also the check `quizbot import` makes)."""
    if schema_available():
        # The loader's messages are the precise ones; the schema adds what it alone notices.
        return check_quiz_files(paths, extra=schema_problems)
    # Only a broken install lacks it; say so rather than claim a check that did not run.
    print("note: schema/quiz.schema.json is missing from this install: not checked against it")
    return check_quiz_files(paths)


def _validate(args: argparse.Namespace) -> int:
    paths = [Path(p) for p in args.paths] or [_settings().quiz_dir]
    missing = [p for p in paths if not p.exists()]
    for path in missing:
        print(f"{path}: no such file or directory", file=sys.stderr)
    report = _checked(paths)
    for problem in sorted(report.errors):
        print(f"{problem}", file=sys.stderr)
    if args.warnings:
        for problem in sorted(report.warnings):
            print(f"{problem} (warning)", file=sys.stderr)
    for quiz in report.quizzes:
        bank = f", {quiz.pick} per attempt" if quiz.pick is not None else ""
        tags = f", tags: {', '.join(quiz.tags)}" if quiz.tags else ""
        count = len(quiz.images)
        images = f", {count} image{'s' if count != 1 else ''}" if count else ""
        print(
            f"ok: {quiz.source}: {quiz.id} ({len(quiz.questions)} questions{bank}, "
            f"{', '.join(quiz.languages)}{tags}{images})"
        )
    if report.warnings and not args.warnings:
        print(f"{len(report.warnings)} missing translations (shown with --warnings)")
    return 1 if report.errors or missing else 0


async def _progress(args: argparse.Namespace) -> int:
    from adapters.terminal import terminal_t

    settings = _settings()
    who = _terminal_user(args.user)
    async with open_app(settings) as app:
        report = await app.services.engine.progress(who)
        lang = report.language
        if not report.quizzes:
            print(paragraph(terminal_t("no_progress_terminal", lang), lang))
            return 0
        print(paragraph(t("progress_title", lang), lang))
        for line in progress_lines(report):
            print(paragraph("  " + line, lang))
    return 0


def _import(args: argparse.Namespace) -> int:
    from bot.importers import QuizImportError, import_quiz, quiz_parts
    from bot.quoting import printable

    source = Path(args.file)
    shown = printable(source)  # problems print as file:line: problem, one line each
    out = Path(args.out) if args.out else None
    wrong_out = _out_problem(out, source, args.force) if out is not None else None
    if wrong_out is not None:  # before the work: a wrong --out is a usage error
        print(f"quizbot import: {wrong_out}", file=sys.stderr)
        return EXIT_USAGE
    try:
        result = import_quiz(
            source, args.source_format, quiz_id=args.id, language=args.lang, choices=args.choices
        )
    except QuizImportError as exc:  # before ValueError: it is a subclass
        for problem in exc.problems:
            print(f"{shown}:{problem.line}: {problem.message}", file=sys.stderr)
        print(f"{shown}:{exc.line}: {exc.message}", file=sys.stderr)
        return 1
    except ValueError as exc:  # a bad --id, --lang or --choices
        print(f"quizbot import: {exc}", file=sys.stderr)
        return EXIT_USAGE
    for problem in result.problems:
        print(f"{shown}:{problem.line}: {problem.message}", file=sys.stderr)
    split = quiz_parts(result.quiz)
    parts, texts = [part for part, _ in split], [text for _, text in split]
    if out is None:
        return _import_to_stdout(result.quiz, parts, texts)
    return _import_to_files(out, parts, texts, len(result.problems), force=args.force)


async def _publish(args: argparse.Namespace) -> int:
    """Publish quiz files (checked as `validate` checks them, in place, so the files beside
    them resolve) and other formats or zips (as an upload in chat would be) to the library
    of ``DATABASE_URL``; every replica serves them within seconds. Any problem publishes
    nothing of that file."""
    settings = _settings()
    paths = [Path(p) for p in args.paths]
    missing = [p for p in paths if not p.exists()]
    for path in missing:
        print(f"{path}: no such file or directory", file=sys.stderr)
    quiz_files = [
        p for p in paths if p.exists() and (p.is_dir() or p.suffix.lower() in QUIZ_SUFFIXES)
    ]
    others = [p for p in paths if p.exists() and p not in quiz_files]
    by = getpass.getuser()
    failed = bool(missing)
    async with open_app(settings) as app:
        if quiz_files:
            report = await asyncio.to_thread(_checked, quiz_files)
            for problem in sorted(report.errors):
                print(str(problem), file=sys.stderr)
            if report.errors:
                print("nothing published: fix the problems above", file=sys.stderr)
                failed = True
            else:
                done = await app.services.engine.library.publish(report, VersionSource.PUBLISH, by)
                for publication in done.publications:
                    print(_publication_line(publication))
        for path in others:
            failed |= not await _publish_other(app.services.engine.library, path, args, by)
    return 1 if failed else 0


async def _publish_other(
    library: QuizLibrary, path: Path, args: argparse.Namespace, by: str
) -> bool:
    """Publish a file of another format, or a zip, as an upload; False on any problem."""
    caption = " ".join(filter(None, [args.source_format, args.lang]))
    data = await asyncio.to_thread(path.read_bytes)
    outcome = await publish_upload(
        library,
        path.name,
        data,
        by=by,
        language="en",
        caption=caption,
        source=VersionSource.PUBLISH,
    )
    for line in outcome.lines:
        print(f"{path}: {line}" if line else "")
    for problem in outcome.problems:
        print(problem, file=sys.stderr)
    return outcome.published


def _publication_line(publication: Publication) -> str:
    version = publication.version
    key = "published" if publication.new else "unchanged"
    return library_t(
        key, "en", quiz=version.quiz_id, version=version.version, count=version.question_count
    )


def _out_problem(out: Path, source: Path, force: bool) -> str | None:
    """What is wrong with ``--out`` before anything is converted, or None."""
    if out.is_dir():
        example = out / (source.stem or "quiz")
        return f"--out {out} is a folder; name the file, e.g. {example}.yaml"
    if not out.parent.is_dir():
        return f"the folder {out.parent} does not exist"
    if out.exists() and not force:
        return f"{out} exists; use --force to replace it"
    return None


def _import_to_stdout(quiz: dict[str, Any], parts: list[dict[str, Any]], texts: list[str]) -> int:
    """Print the one converted quiz file; a quiz too big for one file needs ``--out``."""
    if len(parts) > 1:
        print(
            f"quizbot import: {len(quiz['questions'])} questions make {len(parts)} "
            "quiz files (a quiz holds at most 500 questions and 1 MiB); give --out FILE",
            file=sys.stderr,
        )
        return EXIT_USAGE
    report = load_quiz_text(texts[0], "<stdout>", quiz["id"])
    for error in report.errors:
        print(str(error), file=sys.stderr)
    sys.stdout.write(texts[0])
    return 1 if report.errors else 0


def _import_to_files(
    out: Path, parts: list[dict[str, Any]], texts: list[str], to_review: int, *, force: bool
) -> int:
    """Write the quiz file(s) (``out``, then ``out-2``...) and check them as validate does."""
    targets = [out] + [
        out.with_name(f"{out.stem}-{number}{out.suffix}") for number in range(2, len(parts) + 1)
    ]
    existing = [target for target in targets if target.exists()]
    if existing and not force:
        names = ", ".join(str(target) for target in existing)
        print(f"quizbot import: {names} exists; use --force to replace it", file=sys.stderr)
        return EXIT_USAGE
    for target, text in zip(targets, texts, strict=True):
        try:
            _write_file(target, text)
        except OSError as exc:
            print(f"quizbot import: cannot write {target}: {exc.strerror or exc}", file=sys.stderr)
            return 1
    report = _checked(targets)  # exactly what `quizbot validate` would say about them
    for error in sorted(report.errors):
        print(str(error), file=sys.stderr)
    for target, part in zip(targets, parts, strict=True):
        print(f"wrote {target}: {len(part['questions'])} questions")
    print(
        f"{to_review} to review, {len(report.errors)} errors"
        + ("" if not report.errors else " (the file is written; fix it, then `quizbot validate`)")
    )
    return 1 if report.errors else 0


async def _stats(args: argparse.Namespace) -> int:
    settings = _settings()
    async with open_app(settings) as app:
        if args.quiz and app.catalog.get(args.quiz) is None:
            print(f"quizbot: no quiz {args.quiz!r} (see `quizbot list`)", file=sys.stderr)
            return EXIT_USAGE
        all_stats = await app.services.engine.stats(args.quiz, args.lang)
    for stats in all_stats:
        print(format_stats(stats, args.lang))
    if args.png:
        if len({stats.quiz_id for stats in all_stats}) != 1:
            print("quizbot: --png needs one quiz: quizbot stats QUIZ --png FILE", file=sys.stderr)
            return EXIT_USAGE
        from quizbot.charts import ChartsUnavailable, render_stats_png

        try:
            _write_bytes(Path(args.png), render_stats_png(all_stats[0]))
        except ChartsUnavailable as exc:
            print(f"quizbot: {exc}", file=sys.stderr)
            return EXIT_USAGE
        print(f"chart written to {args.png}")
    return 0


OPTION_TEXT_WIDTH = 50  # characters of an option's text in `quizbot stats`


def _shorten(text: str, width: int) -> str:
    """``text`` on one line, cut after a whole word to at most ``width`` characters."""
    flat = " ".join(text.split())
    if len(flat) <= width:
        return flat
    cut = flat[: width - 1]
    if " " in cut[width // 2 :]:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,;:—-") + "…"


def format_stats(stats: QuizStats, language: str = DEFAULT_LANGUAGE) -> str:
    """A plain-text report of one quiz's statistics. Options are named by their id in the
    quiz file and their text: letters would mislead, as every attempt shuffles the options."""
    lines = [
        f"{stats.quiz_id}: {stats.title}",
        paragraph("  " + stats_summary(stats, language), language),
        paragraph("  " + stats_hardest(stats, language), language),
    ]
    for question in stats.questions:
        percent = (
            f"{question.percent_correct:3.0f}%" if question.percent_correct is not None else "   -"
        )
        median = (
            f"  median {question.median_seconds:.0f}s"
            if question.median_seconds is not None
            else ""
        )
        lines.append(
            f"  Q{question.number:<2} {percent} correct of {question.answered:<4}{median}".rstrip()
        )
        id_width = max((len(o.option_id) for o in question.options), default=0)
        for option in question.options:
            mark = "✓" if option.correct else " "
            text = prepare(_shorten(option.text, OPTION_TEXT_WIDTH), language)
            line = f"      {option.option_id:<{id_width}} {option.picks:>4} {mark} {text}"
            lines.append(paragraph(line, language))
    return "\n".join(lines)


EXPORT_COLUMNS = [
    "attempt_id",
    "platform",
    "user_id",
    "quiz_id",
    "status",
    "started_at",
    "finished_at",
    "question_id",
    "option_id",
    "correct",
    "answered_at",
    "kind",  # quiz, review (spaced-repetition practice) or round (a member's share of one)
    "quiz_version",  # the version of the quiz the attempt played (its questions, its key)
]


async def _export(args: argparse.Namespace) -> int:
    settings = _settings()
    out = Path(args.out) if args.out else None
    if out is not None and (out.is_dir() or not out.parent.is_dir()):
        where = f"{out} is a folder" if out.is_dir() else f"the folder {out.parent} does not exist"
        print(f"quizbot export: --out {where}; name a file, e.g. answers.csv", file=sys.stderr)
        return EXIT_USAGE
    if args.assignment is not None:
        return await _export_assignment(settings, args.assignment, out)
    async with open_app(settings) as app:
        attempts, answers = await app.services.engine.export(args.quiz)
        if args.quiz and not attempts and app.catalog.get(args.quiz) is None:
            # A quiz whose file is gone may still have attempts: only a wholly unknown id is
            # an error (an empty header would look like "nobody played it").
            everything, _ = await app.services.engine.export(None)
            known = sorted({q.id for q in app.catalog.all()} | {a.quiz_id for a in everything})
            print(
                f"quizbot export: no quiz {args.quiz!r}; known quizzes: "
                + (", ".join(known) or "none"),
                file=sys.stderr,
            )
            return EXIT_USAGE
    answers_noun = "answer" if len(answers) == 1 else "answers"
    attempts_noun = "attempt" if len(attempts) == 1 else "attempts"
    what = f"{len(answers)} {answers_noun} of {len(attempts)} {attempts_noun}"
    return _export_to(out, render_export(attempts, answers, args.format), what)


def _export_to(out: Path | None, text: str, what: str) -> int:
    """Write an export to ``out`` (saying on stderr that ``what`` was written), else stdout."""
    if out is None:
        sys.stdout.write(text)
        return 0
    try:
        _write_file(out, text)
    except OSError as exc:
        print(f"quizbot export: cannot write {out}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(f"wrote {what} to {out}", file=sys.stderr)
    return 0


async def _export_assignment(settings: Settings, number: str, out: Path | None) -> int:
    """``quizbot export --assignment ID``: one row per member of the assignment's chat."""
    text, problem = await export_assignment(settings, number)
    if text is None:
        print(problem, file=sys.stderr)
        return EXIT_USAGE
    return _export_to(out, text, f"assignment {number}")


async def _assignments(args: argparse.Namespace) -> int:
    return await list_assignments(_settings(), args)


async def _report(args: argparse.Namespace) -> int:
    return await assignment_report(_settings(), args)


def _write_bytes(path: Path, data: bytes) -> None:
    path.write_bytes(data)


def _write_file(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8", newline="")


def render_export(
    attempts: Sequence[AttemptRecord], answers: Sequence[AnswerRecord], fmt: str
) -> str:
    """Attempts and answers as JSON, or as CSV with one row per answer (and per attempt
    without answers) carrying its attempt's columns, ready for a spreadsheet."""
    if fmt == "json":
        document = {
            "attempts": [_attempt_row(a) for a in attempts],
            "answers": [_answer_row(a) for a in answers],
        }
        return json.dumps(document, ensure_ascii=False, indent=2) + "\n"
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=EXPORT_COLUMNS)
    writer.writeheader()
    by_attempt: dict[int, list[AnswerRecord]] = {}
    for answer in answers:
        by_attempt.setdefault(answer.attempt_id, []).append(answer)
    for attempt in attempts:
        rows = by_attempt.get(attempt.id)
        if not rows:
            writer.writerow(_attempt_row(attempt))
        for answer in rows or ():
            writer.writerow({**_attempt_row(attempt), **_answer_row(answer)})
    return buffer.getvalue()


def _attempt_row(attempt: AttemptRecord) -> dict[str, object]:
    return {
        "attempt_id": attempt.id,
        "platform": attempt.platform,
        "user_id": attempt.user_id,
        "quiz_id": attempt.quiz_id,
        "status": attempt.status.value,
        "started_at": attempt.started_at.isoformat(),
        "finished_at": attempt.finished_at.isoformat() if attempt.finished_at else "",
        "kind": attempt.kind.value,
        "quiz_version": attempt.quiz_version,
    }


def _answer_row(answer: AnswerRecord) -> dict[str, object]:
    return {
        "attempt_id": answer.attempt_id,
        "question_id": answer.question_id,
        "option_id": answer.option_id,
        "correct": int(answer.correct),
        "answered_at": answer.answered_at.isoformat(),
    }


async def _discord_sync(args: argparse.Namespace) -> int:
    settings = _settings()
    require_extra("discord", "discord-sync needs discord.py")
    from quizbot.runner import discord_sync_command

    return await discord_sync_command(settings, args.guild)


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
    # Before anything starts: a web process would otherwise bind PORT, then fail on import.
    if settings.telegram_token:
        require_extra("telegram", "TELEGRAM_BOT_TOKEN is set")
    if settings.discord_token:
        require_extra("discord", "DISCORD_BOT_TOKEN is set")
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
    play.add_argument("--tag", help="play only the quiz's questions with this tag")

    review = commands.add_parser("review", help="practise the questions you missed")
    review.add_argument("quiz", nargs="?", help="one quiz (default: the one with most due)")
    review.add_argument("--lang", help="language (remembered)")
    review.add_argument("--user", help="whose progress to use (default: your login name)")
    review.add_argument(
        "--tz", help="your time zone, an IANA name like Europe/Berlin (remembered; default UTC)"
    )

    listing = commands.add_parser("list", help="list the quizzes")
    listing.add_argument("--lang", choices=SUPPORTED_LANGUAGES)

    validate = commands.add_parser("validate", help="check quiz files; exit 1 on errors")
    validate.add_argument("paths", nargs="*", help="files or directories (default: QUIZ_DIR)")
    validate.add_argument("--warnings", action="store_true", help="list missing translations")

    progress = commands.add_parser("progress", help="show your attempts and scores")
    progress.add_argument("--user", help="whose progress (default: your login name)")

    stats = commands.add_parser("stats", help="attempts, scores and per-question figures")
    stats.add_argument("quiz", nargs="?", help="one quiz (default: all)")
    stats.add_argument("--lang", default="en", choices=SUPPORTED_LANGUAGES)
    stats.add_argument("--png", metavar="FILE", help="also draw the option picks as a PNG chart")

    export = commands.add_parser("export", help="attempts and answers as CSV or JSON")
    export.add_argument("--format", choices=["csv", "json"], default="csv")
    export.add_argument("--quiz", help="one quiz (default: all)")
    export.add_argument(
        "--assignment", metavar="ID", help="instead: one assignment, a row per member (CSV)"
    )
    export.add_argument("--out", help="write to this file (default: standard output)")

    importer = commands.add_parser(
        "import", help="convert a GIFT, Aiken, Open Trivia DB or Red trivia file to a quiz"
    )
    importer.add_argument("file")
    importer.add_argument(
        "--from", dest="source_format", required=True, choices=["gift", "aiken", "opentdb", "red"]
    )
    importer.add_argument("--out", help="write here, e.g. quizzes/NAME.yaml (default: stdout)")
    importer.add_argument("--id", help="quiz id (default: from the file name)")
    importer.add_argument("--lang", default="en", help="language of the texts (default: en)")
    importer.add_argument("--force", action="store_true", help="replace an existing --out file")
    importer.add_argument(
        "--choices",
        type=int,
        metavar="N",
        help="Red: multiple-choice questions of N options, the wrong ones drawn from the "
        "list's other answers (default: typed answers)",
    )

    publish = commands.add_parser(
        "publish", help="publish quiz files (or other formats, or a zip) to the database"
    )
    publish.add_argument("paths", nargs="+", metavar="FILE", help="quiz files, folders or zips")
    publish.add_argument(
        "--from",
        dest="source_format",
        choices=["gift", "aiken", "opentdb", "red"],
        help="the format of files that are not quizzes (default: from the extension)",
    )
    publish.add_argument("--lang", help="the language of an imported file's texts (default: en)")

    sync = commands.add_parser("discord-sync", help="register the Discord slash commands now")
    sync.add_argument(
        "--guild",
        type=int,
        metavar="ID",
        help="only in this server, at once (default: DISCORD_GUILD_ID; else global)",
    )

    add_assignment_commands(commands)

    commands.add_parser("run", help="run the Telegram and/or Discord bot (needs tokens)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    global _parsed
    _parsed = None  # read the environment of this run (main may be called more than once)
    parsed = _read_settings()
    default_level = "INFO" if args.command == "run" else "WARNING"
    if isinstance(parsed, ConfigError):  # reported by the commands that need settings
        configure_logging(default_level)
    else:
        configure_logging(parsed.log_level or default_level, parsed.log_format, parsed.secrets)
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    if args.command == "validate":
        return _validate(args)
    if args.command == "import":
        return _import(args)
    handler = {
        "play": _play,
        "review": _play,
        "list": _list,
        "progress": _progress,
        "stats": _stats,
        "export": _export,
        "publish": _publish,
        "assignments": _assignments,
        "report": _report,
        "discord-sync": _discord_sync,
        "run": _run,
    }[args.command]
    try:
        return asyncio.run(handler(args))
    except (MissingExtra, ConfigError) as exc:  # ConfigError: found only when used (a database)
        print(f"quizbot: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # output piped into `head` and the like: not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (KeyboardInterrupt, asyncio.CancelledError):  # a second Ctrl-C cancels `play`
        if args.command in ("play", "review"):  # the other commands have nothing to resume
            print("\n" + t("saved_and_exit", "en"))
        return 130
