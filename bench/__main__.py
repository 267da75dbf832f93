"""``python -m bench``: run the benchmarks, print the table, write the JSON.

``--quick`` is the CI size (well under a minute on two cores); without it the full sizes of
the issue are run, which takes several minutes.
"""

from __future__ import annotations

import argparse
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path

from bench import (
    ROOT,
    answers,
    closed_loop,
    discord,
    discord_reminders,
    group,
    memory,
    reminders,
    startup,
    telegram,
)
from bench.report import (
    STATUS_ERROR,
    Json,
    build,
    clean,
    machine_info,
    render_table,
    section,
    write_json,
    write_readme,
)

ALL = ("a", "b", "c", "d", "e", "f", "g", "h", "i", "j")
TITLES = {
    "a": "Engine + SQLite: answers",
    "b": telegram.TITLE,
    "c": "Memory",
    "d": "Start-up",
    "e": "Engine + PostgreSQL: answers",
    "f": closed_loop.TITLE,
    "g": discord.TITLE,
    "h": group.TITLE,
    "i": reminders.TITLE,
    "j": discord_reminders.TITLE,
}


def _ints(text: str) -> tuple[int, ...]:
    try:
        values = tuple(int(x.replace("_", "")) for x in text.split(",") if x.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a comma-separated list of numbers: {text}") from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"expected positive numbers: {text}")
    return values


def _positive(text: str) -> int:
    if "," in text:
        raise argparse.ArgumentTypeError(f"expected one positive number: {text}")
    (value,) = _ints(text)
    return value


def _only(text: str) -> tuple[str, ...]:
    chosen = tuple(x.strip().lower() for x in text.split(",") if x.strip())
    unknown = [x for x in chosen if x not in ALL]
    if unknown or not chosen:
        raise argparse.ArgumentTypeError(f"choose among {','.join(ALL)}, got {text}")
    return tuple(x for x in ALL if x in chosen)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m bench",
        description="quizbot benchmarks; every figure is a ratio to a baseline run alongside.",
    )
    p.add_argument("--quick", action="store_true", help="small sizes, for CI")
    p.add_argument("--only", type=_only, default=ALL, metavar="a,b,...,j", help="benchmarks to run")
    p.add_argument(
        "--out",
        type=Path,
        default=ROOT / "bench" / "results" / "latest.json",
        help="JSON output (default: bench/results/latest.json)",
    )
    p.add_argument(
        "--users",
        type=_ints,
        default=None,
        metavar="1,100,1000",
        help="concurrency levels for a and e (default 1,100,1000; quick 1,10,100)",
    )
    p.add_argument(
        "--rounds", type=int, default=None, help="rounds per level for a and e (3; quick 1)"
    )
    p.add_argument(
        "--think",
        type=float,
        default=None,
        metavar="SECONDS",
        help="mean pause before each answer in the paced run of a and e (2; quick 0.25; 0: off)",
    )
    p.add_argument(
        "--quizzes",
        type=_ints,
        default=None,
        metavar="10,100,1000",
        help="quiz counts for d (default 10,100,1000; quick 5,20,50)",
    )
    p.add_argument("--questions", type=int, default=None, help="questions per generated quiz for d")
    p.add_argument(
        "--telegram-users",
        type=_positive,
        default=None,
        metavar="N",
        help="users pressing at once in b (default 500; quick 50)",
    )
    p.add_argument(
        "--loop-users",
        type=_positive,
        default=None,
        metavar="N",
        help="users in f's runs with the limiter off (default 1000; quick 100)",
    )
    p.add_argument(
        "--discord-users",
        type=_positive,
        default=None,
        metavar="N",
        help="members pressing at once in g (default 500; quick 50)",
    )
    p.add_argument(
        "--group-users",
        type=_positive,
        default=None,
        metavar="N",
        help="members pressing one round question at once in h (default 200; quick 30)",
    )
    p.add_argument(
        "--reminder-users",
        type=_positive,
        default=None,
        metavar="N",
        help="review reminders falling due at once in i (default 1000; quick 90)",
    )
    p.add_argument(
        "--discord-reminder-users",
        type=_positive,
        default=None,
        metavar="N",
        help="review reminders falling due at once as Discord DMs in j (default 1000; quick 50)",
    )
    p.add_argument(
        "--profile",
        type=Path,
        default=None,
        metavar="FILE",
        help="write a cProfile of b's bot process during the bursts to FILE",
    )
    p.add_argument("--tmp-dir", default=None, help="where databases and quiz files are made")
    p.add_argument(
        "--write-results",
        "--write-readme",  # its former name, when the table was in the README
        dest="write_readme",
        nargs="?",
        type=Path,
        const=ROOT / "docs" / "benchmarks.md",
        default=None,
        metavar="FILE",
        help="rewrite the results table between FILE's markers (default docs/benchmarks.md; "
        "full size)",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    return p


def main(argv: list[str] | None = None) -> int:
    cli = parser()
    args = cli.parse_args(argv)
    if args.write_readme is not None and args.quick:
        cli.error("--write-results records full-size runs only; drop --quick")
    began = time.perf_counter()

    def progress(message: str) -> None:
        if not args.quiet:
            print(f"[{time.perf_counter() - began:6.1f}s] {message}", file=sys.stderr, flush=True)

    size = answers.sizes(args.quick, args.users, args.rounds, args.think)
    runners: dict[str, Callable[[], Json]] = {
        "a": lambda: answers.run_sqlite(size, progress, args.tmp_dir),
        "b": lambda: telegram.run(
            args.quick, progress, args.tmp_dir, args.telegram_users, profile=args.profile
        ),
        "c": lambda: memory.run(args.quick, progress, args.tmp_dir),
        "d": lambda: startup.run(args.quick, progress, args.quizzes, args.questions, args.tmp_dir),
        "e": lambda: answers.run_postgres(size, progress),
        "f": lambda: closed_loop.run(args.quick, progress, args.tmp_dir, args.loop_users),
        "g": lambda: discord.run(args.quick, progress, args.tmp_dir, args.discord_users),
        "h": lambda: group.run(args.quick, progress, args.tmp_dir, args.group_users),
        "i": lambda: reminders.run(args.quick, progress, args.tmp_dir, args.reminder_users),
        "j": lambda: discord_reminders.run(
            args.quick, progress, args.tmp_dir, args.discord_reminder_users
        ),
    }
    machine = machine_info()
    sections: list[Json] = []
    for bench_id in args.only:
        try:
            sections.append(runners[bench_id]())
        except Exception as exc:  # report the others; the failure is in the table and JSON
            traceback.print_exc()
            sections.append(
                section(
                    bench_id,
                    TITLES[bench_id],
                    STATUS_ERROR,
                    note=f"{type(exc).__name__}: {exc}",
                    checks=[{"name": "ran", "expected": 1, "actual": 0, "ok": False}],
                )
            )
    mode = "quick" if args.quick else "full"
    data = clean(
        build(
            mode,
            {
                "only": list(args.only),
                "users": list(size.levels),
                "rounds": size.rounds,
                "min_answers": size.min_answers,
                "think_s": size.think_s,
                "telegram_users": telegram.sizes(args.quick, args.telegram_users).users,
                "discord_users": discord.sizes(args.quick, args.discord_users).users,
                "group_users": group.sizes(args.quick, args.group_users).users,
                "reminder_users": reminders.sizes(args.quick, args.reminder_users),
                "discord_reminder_users": discord_reminders.sizes(
                    args.quick, args.discord_reminder_users
                ),
                "seconds": round(time.perf_counter() - began, 1),
            },
            sections,
            machine,
        )
    )
    print(render_table(data))
    write_json(args.out, data)
    print(f"\nwrote {args.out}")
    if args.write_readme is not None:
        write_readme(args.write_readme, data)
        print(f"rewrote the results table in {args.write_readme}")
    return 0 if data["correct"] else 1


if __name__ == "__main__":
    sys.exit(main())
