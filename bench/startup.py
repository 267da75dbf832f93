"""(d) Start-up: loading and validating many generated quizzes, vs. a libyaml parse.

Quiz files are generated into a temporary directory: valid quizzes in the four languages of
the seed quiz (en, bn, ur, ru), four options per question, with the seed quiz's own texts
(cycled, so each question has realistic lengths and scripts: a question with its options,
notes and explanation is about 7 kB of YAML, and a 100-question quiz about 0.7 MB, under the
loader's 1 MiB limit). The files are written before anything is timed, so they are read from
the page cache (a warm start).

For each size (10, 100 and 1,000 quizzes of 100 questions; ``--quick``: 5, 20, 50 of 10) a
fresh subprocess times :meth:`QuizCatalog.from_paths` on a directory holding that many files
(hard links to one generated set), with a quiz cache directory of its own that starts empty:
the *first start* validates every file and fills the cache; then a second fresh subprocess
times a *restart* (every file unchanged, so every file is read, hashed and taken from the
cache); for the larger sizes two more fresh subprocesses time the restart alone, and the
median of the three is the figure. The restart is the figure judged against the target, as
restarts and deploys are what users wait for; the first start is reported beside it. Side by
side, in the same subprocess, the baseline reads the same files and parses them with PyYAML's C
parser (``yaml.load(text, CSafeLoader)``, or the pure-Python ``SafeLoader`` when libyaml is
missing): the cost of the YAML alone, without line tracking or validation. For the smallest size
the pure-Python ``yaml.safe_load`` is timed as well, for reference.

Linearity is ``(time(largest) / time(middle)) / (largest / middle)``: 1.0 is linear.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import yaml

from bench import QUIZ_DIR, ROOT, SEED_QUIZ
from bench.report import STATUS_OK, Json, check, figure, scratch_dir, section
from bot.quiz import LocalizedText, Quiz

TARGET_QUIZZES = 100
TARGET_QUESTIONS = 100
TARGET_SECONDS = 2.0
LINEARITY_LIMIT = 1.25  # allowance for noise around 1.0 (linear)

FULL_SIZES = (10, 100, 1000)
QUICK_SIZES = (5, 20, 50)


def _q(text: str) -> str:
    """A YAML double-quoted scalar (JSON strings are valid YAML)."""
    return json.dumps(text, ensure_ascii=False)


def _texts(text: LocalizedText, indent: str, prefix: str = "") -> str:
    return "".join(f"\n{indent}{lang}: {_q(prefix + v)}" for lang, v in text.by_language.items())


def seed_quiz() -> Quiz:
    from bot.catalog import QuizCatalog

    catalog, report = QuizCatalog.from_paths([QUIZ_DIR])
    quiz = catalog.get(SEED_QUIZ)
    if quiz is None:
        raise RuntimeError(f"the seed quiz does not load: {report.errors}")
    return quiz


def quiz_body(seed: Quiz, questions: int) -> str:
    """The questions part of a generated quiz (the same for every generated file)."""
    lines = ["questions:"]
    for n in range(questions):
        source = seed.questions[n % len(seed.questions)]
        number = f"({n + 1}) "
        lines.append(f"  - id: q{n + 1:03d}")
        lines.append(f"    correct: {source.correct_option_id}")
        lines.append("    text:" + _texts(source.text, "      ", number))
        lines.append("    options:")
        for option in source.options:
            lines.append(f"      - id: {option.id}")
            lines.append("        text:" + _texts(option.text, "          "))
            if option.note is not None:
                lines.append("        note:" + _texts(option.note, "          "))
        lines.append("    explanation:" + _texts(source.explanation, "      "))
    return "\n".join(lines) + "\n"


def quiz_head(seed: Quiz, index: int) -> str:
    languages = ", ".join(seed.languages)
    head = [
        f"id: generated-{index:04d}",
        f"default_language: {seed.default_language}",
        f"languages: [{languages}]",
        "level: intermediate",
        "shuffle: {questions: false, options: true}",
        "title:" + _texts(seed.title, "  ", f"#{index} "),
    ]
    if seed.description is not None:
        head.append("description:" + _texts(seed.description, "  "))
    return "\n".join(head) + "\n"


def generate(directory: Path, count: int, questions: int) -> int:
    """Write ``count`` quiz files into ``directory``; returns the size of one file in bytes."""
    seed = seed_quiz()
    if len(seed.languages) != 4 or any(len(q.options) != 4 for q in seed.questions):
        raise RuntimeError("the seed quiz no longer has 4 languages and 4 options per question")
    body = quiz_body(seed, questions)
    size = 0
    for index in range(count):
        text = quiz_head(seed, index) + body
        path = directory / f"generated-{index:04d}.yaml"
        path.write_text(text, encoding="utf-8")
        size = len(text.encode())
    return size


def _link_subset(source: Path, target: Path, count: int) -> None:
    target.mkdir()
    for path in sorted(source.iterdir())[:count]:
        try:
            os.link(path, target / path.name)
        except OSError:
            shutil.copyfile(path, target / path.name)


# -- the worker (one fresh process per size) ------------------------------------------------


def _parse_all(paths: Sequence[Path], loader: type) -> float:
    t0 = time.perf_counter()
    for path in paths:
        yaml.load(path.read_text(encoding="utf-8"), Loader=loader)
    return time.perf_counter() - t0


def _worker(
    directory: Path,
    repeats: int,
    with_safe_load: bool,
    cache_dir: Path | None,
    *,
    baseline: bool = True,
) -> Json:
    from bot.catalog import QuizCatalog

    paths = sorted(directory.glob("*.yaml"))
    fast_loader: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    loader_s: list[float] = []
    loader_cpu_s: list[float] = []
    baseline_s: list[float] = []
    loaded = errors = hits = 0
    for r in range(repeats):
        steps: list[Callable[[], None]] = []

        def load() -> None:
            nonlocal loaded, errors, hits
            t0, c0 = time.perf_counter(), time.process_time()
            catalog, report = QuizCatalog.from_paths([directory], cache_dir=cache_dir)
            loader_s.append(time.perf_counter() - t0)
            loader_cpu_s.append(time.process_time() - c0)
            loaded, errors = len(catalog), len(report.errors)
            hits = catalog.cache.hits if catalog.cache is not None else 0

        def parse() -> None:
            baseline_s.append(_parse_all(paths, fast_loader))

        steps = [load, parse] if r % 2 == 0 else [parse, load]
        if not baseline:
            steps = [load]
        for step in steps:
            step()
    result: Json = {
        "quizzes": len(paths),
        "loader_s": statistics.median(loader_s),
        "baseline_s": statistics.median(baseline_s) if baseline_s else None,
        "loader_runs_s": loader_s,
        "loader_cpu_s": statistics.median(loader_cpu_s),
        "baseline_runs_s": baseline_s,
        "baseline_parser": fast_loader.__name__,
        "loaded": loaded,
        "errors": errors,
        "cache_hits": hits,
        "bytes": sum(p.stat().st_size for p in paths),
    }
    if with_safe_load:
        result["pure_python_safe_load_s"] = _parse_all(paths, yaml.SafeLoader)
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                result["peak_rss_mb"] = int(line.split()[1]) / 1024
    return result


def worker_main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.startup")
    parser.add_argument("--dir", type=Path, required=True)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--safe-load", action="store_true")
    parser.add_argument("--cache-dir", type=Path, default=None)
    parser.add_argument("--no-baseline", action="store_true", help="time the loader only")
    args = parser.parse_args(argv)
    result = _worker(
        args.dir, args.repeats, args.safe_load, args.cache_dir, baseline=not args.no_baseline
    )
    print(json.dumps(result))


def _spawn(
    directory: Path, repeats: int, safe_load: bool, cache_dir: Path, *, baseline: bool = True
) -> Json:
    command = [sys.executable, "-m", "bench.startup", "--dir", str(directory)]
    command += ["--cache-dir", str(cache_dir)]
    command += ["--repeats", str(repeats)] + (["--safe-load"] if safe_load else [])
    command += [] if baseline else ["--no-baseline"]
    out = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, check=False, timeout=3600
    )
    if out.returncode != 0:
        raise RuntimeError(f"the start-up worker failed ({out.returncode}):\n{out.stderr}")
    result: Json = json.loads(out.stdout.strip().splitlines()[-1])
    return result


# -- the benchmark --------------------------------------------------------------------------


def run(
    quick: bool,
    progress: Callable[[str], None],
    sizes: Sequence[int] | None = None,
    questions: int | None = None,
    tmp_root: str | None = None,
) -> Json:
    counts = tuple(sorted(sizes or (QUICK_SIZES if quick else FULL_SIZES)))
    per_quiz = questions or (10 if quick else TARGET_QUESTIONS)
    results: list[Json] = []
    with scratch_dir("quizbot-bench-startup-", tmp_root) as tmp:
        every = tmp / "all"
        every.mkdir()
        progress(f"start-up: generating {counts[-1]:,} quizzes of {per_quiz} questions")
        file_bytes = generate(every, counts[-1], per_quiz)
        for index, count in enumerate(counts):
            directory = tmp / f"quizzes-{count}"
            _link_subset(every, directory, count)
            cache_dir = tmp / f"cache-{count}"
            progress(f"start-up: loading {count:,} quizzes, first start (empty cache)")
            cold = _spawn(directory, 1, safe_load=index == 0, cache_dir=cache_dir)
            progress(f"start-up: loading {count:,} quizzes, restart (cache filled)")
            repeats = 3 if index == 0 else 1
            result = _spawn(directory, repeats, safe_load=False, cache_dir=cache_dir)
            if repeats == 1:
                # Each restart in a process of its own, as a real restart is: the median of
                # three, so that one slow process does not decide the linearity figure.
                progress(f"start-up: loading {count:,} quizzes, two more restarts")
                runs = list(result["loader_runs_s"])
                cpu = [result["loader_cpu_s"]]
                for _ in range(2):
                    again = _spawn(
                        directory, 1, safe_load=False, cache_dir=cache_dir, baseline=False
                    )
                    runs += again["loader_runs_s"]
                    cpu.append(again["loader_cpu_s"])
                result["loader_runs_s"] = runs
                result["loader_s"] = statistics.median(runs)
                result["loader_cpu_s"] = statistics.median(cpu)
            result["first_start"] = cold
            results.append(result)
    figures: list[Json] = []
    for result in results:
        count = result["quizzes"]
        at_target = count == TARGET_QUIZZES and per_quiz == TARGET_QUESTIONS
        seconds = result["loader_s"]
        verdict = None
        if at_target:
            verdict = (
                "MET"
                if seconds < TARGET_SECONDS
                else f"MISSED by {seconds - TARGET_SECONDS:.1f} s "
                f"({seconds / TARGET_SECONDS:.1f}x the target)"
            )
        figures.append(
            figure(
                f"startup.quizzes_{count}.seconds",
                f"{count:,} quizzes x {per_quiz} questions: load + validate",
                "s",
                seconds,
                result["baseline_s"],
                f"parse only ({result['baseline_parser']})",
                higher_is_better=False,
                target=f"< {TARGET_SECONDS:.0f} s" if at_target else None,
                met=(seconds < TARGET_SECONDS) if at_target else None,
                verdict=verdict,
            )
        )
        cold = result["first_start"]
        figures.append(
            figure(
                f"startup.quizzes_{count}.first_start_seconds",
                f"{count:,} quizzes: first start (validates all, fills the cache)",
                "s",
                cold["loader_s"],
                cold["baseline_s"],
                f"parse only ({cold['baseline_parser']})",
                higher_is_better=False,
            )
        )
        figures.append(
            figure(
                f"startup.quizzes_{count}.ms_per_quiz",
                f"{count:,} quizzes: per quiz",
                "ms",
                seconds * 1000 / count,
                result["baseline_s"] * 1000 / count,
                f"parse only ({result['baseline_parser']})",
                higher_is_better=False,
            )
        )
    middle, largest = results[-2], results[-1]
    scale = largest["quizzes"] / middle["quizzes"]
    growth = largest["loader_s"] / middle["loader_s"] / scale
    baseline_growth = largest["baseline_s"] / middle["baseline_s"] / scale
    linear = growth <= LINEARITY_LIMIT
    figures.append(
        figure(
            "startup.linearity",
            f"growth ({largest['quizzes']:,} vs {middle['quizzes']:,} quizzes), 1.0 = linear",
            "x",
            growth,
            baseline_growth,
            "same for the parse",
            higher_is_better=False,
            target=f"<= {LINEARITY_LIMIT} (linear)",
            met=linear,
            verdict="MET" if linear else f"MISSED: {growth:.2f}, worse than linear",
        )
    )
    smallest = results[0]["first_start"]
    note = (
        "load + validate = a restart with the quiz cache filled by the first start; "
        f"one file = {file_bytes / 1024:,.0f} kB of YAML; pure-Python yaml.safe_load of the "
        f"{smallest['quizzes']} smallest-size files: {smallest['pure_python_safe_load_s']:.2f} s "
        f"vs loader (first start) {smallest['loader_s']:.2f} s; restart CPU time: "
        + ", ".join(f"{r['quizzes']:,}: {r['loader_cpu_s']:.2f} s" for r in results)
    )
    if per_quiz != TARGET_QUESTIONS or TARGET_QUIZZES not in counts:
        note += f"; the < 2 s target is judged at {TARGET_QUIZZES} x {TARGET_QUESTIONS} only"
    return section(
        "d",
        "Start-up: generated quizzes, 4 languages (baseline: libyaml parse of the same files)",
        STATUS_OK,
        note=note,
        figures=figures,
        details={"questions_per_quiz": per_quiz, "file_bytes": file_bytes, "sizes": results},
        checks=[
            check(f"start-up {r['quizzes']}: quizzes loaded", r["quizzes"], r["loaded"])
            for r in results
        ]
        + [check(f"start-up {r['quizzes']}: no errors", 0, r["errors"]) for r in results]
        + [
            check(
                f"start-up {r['quizzes']}: every file from the cache", r["quizzes"], r["cache_hits"]
            )
            for r in results
        ]
        + [
            check(
                f"start-up {r['quizzes']}: first start loads the same",
                r["loaded"],
                r["first_start"]["loaded"],
            )
            for r in results
        ],
    )


if __name__ == "__main__":
    worker_main()
