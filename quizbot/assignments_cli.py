"""The operators' assignment commands: ``quizbot assignments``, ``quizbot report`` and
``quizbot export --assignment ID``, reading what the bots read (through
:class:`~bot.assignments.Assignments`), worded as in the chats."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bot.assignments import AssignmentReport, MemberStatus, parse_id
from bot.assignments.export import assignment_csv
from bot.assignments.presenters import local_deadline, report_lines
from bot.assignments.texts import assignment_t
from bot.i18n import SUPPORTED_LANGUAGES
from bot.text_direction import paragraph
from bot.views import Participant
from quizbot.bootstrap import open_app
from quizbot.settings import Settings

EXIT_USAGE = 2
OPERATOR = "operator"  # the terminal's participant: their language is --lang


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``quizbot assignments`` and ``quizbot report`` (``export --assignment`` is export's)."""
    listing = commands.add_parser("assignments", help="the open assignments of every chat")
    listing.add_argument("--all", action="store_true", help="closed and cancelled ones too")
    listing.add_argument("--lang", default="en", choices=SUPPORTED_LANGUAGES)
    report = commands.add_parser("report", help="who did what in assignments, per member")
    report.add_argument("which", nargs="?", metavar="ID|QUIZ", help="one assignment, or a quiz's")
    report.add_argument("--lang", default="en", choices=SUPPORTED_LANGUAGES)
    report.add_argument("--png", metavar="FILE", help="also draw one assignment's answers")


def _operator(language: str) -> Participant:
    return Participant("terminal", OPERATOR, language_tag=language)


def overview_lines(report: AssignmentReport) -> list[str]:
    """One assignment in ``quizbot assignments``: where, what, its deadline and counts."""
    post = report.post
    lang = post.language
    if post.cancelled:
        state = assignment_t("report_cancelled", lang)
    elif post.open:
        state = assignment_t("report_due", lang, deadline=local_deadline(post))
    else:
        state = assignment_t("report_was_due", lang, deadline=local_deadline(post))
    counts = assignment_t(
        "recap_counts",
        lang,
        done=report.count(MemberStatus.DONE) + report.count(MemberStatus.LATE),
        going=report.count(MemberStatus.IN_PROGRESS),
        waiting=report.count(MemberStatus.NOT_STARTED),
    )
    head = f"#{post.assignment_id} {post.platform}:{post.chat_id} {post.quiz_id}: {post.title}"
    return [paragraph(head, lang), paragraph(f"    {state} · {counts}", lang)]


async def list_assignments(settings: Settings, args: argparse.Namespace) -> int:
    async with open_app(settings) as app:
        reports = await app.services.assignments.overview(args.lang, everything=args.all)
    if not reports:
        print(assignment_t("assignments_none", args.lang))
        return 0
    for report in reports:
        print("\n".join(overview_lines(report)))
    return 0


async def report(settings: Settings, args: argparse.Namespace) -> int:
    async with open_app(settings) as app:
        found = await app.services.assignments.reports(
            None, None, _operator(args.lang), args.which, limit=None
        )
    if not found.reports:
        print(found.notice, file=sys.stderr)
        return EXIT_USAGE if args.which else 0
    blocks = [report_lines(r, local_deadline(r.post)) for r in found.reports]
    print("\n\n".join("\n".join(paragraph(line, args.lang) for line in b) for b in blocks))
    if args.png:
        return _chart(found.reports, Path(args.png))
    return 0


def _chart(reports: tuple[AssignmentReport, ...], out: Path) -> int:
    """``--png``: one assignment's per-question chart, as ``quizbot stats --png`` draws."""
    from quizbot.charts import ChartsUnavailable, render_stats_png

    if len(reports) != 1:
        print("quizbot: --png needs one assignment: quizbot report ID --png FILE", file=sys.stderr)
        return EXIT_USAGE
    stats = reports[0].stats
    if stats is None:
        print("quizbot: nobody has answered it yet: no chart", file=sys.stderr)
        return 1
    try:
        out.write_bytes(render_stats_png(stats))
    except ChartsUnavailable as exc:
        print(f"quizbot: {exc}", file=sys.stderr)
        return EXIT_USAGE
    print(f"chart written to {out}", file=sys.stderr)
    return 0


async def export_assignment(settings: Settings, number: str) -> tuple[str | None, str]:
    """The CSV of one assignment, or None and why not."""
    assignment_id = parse_id(number)
    async with open_app(settings) as app:
        found = None
        if assignment_id is not None:
            found = await app.services.assignments.report_of(assignment_id, "en")
    if found is None:
        return None, f"quizbot export: no assignment {number!r} (see `quizbot assignments --all`)"
    return assignment_csv([found]), ""
