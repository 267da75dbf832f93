"""Figures, the printed table and the JSON file with machine information.

A *figure* is one measured value next to the baseline measured in the same run, with their
ratio (``value / baseline``) and, where the issue sets one, a target and whether it is met.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import platform
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from bench import RESULTS_SCHEMA, ROOT

Json = dict[str, Any]

STATUS_OK = "ok"
STATUS_SKIPPED = "skipped"
STATUS_NOT_MEASURED = "not measured yet"
STATUS_ERROR = "error"


def percentile(values: Sequence[float], q: float) -> float:
    """The nearest-rank ``q`` percentile (0-100) of ``values``; NaN when there are none."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def ratio(value: float | None, baseline: float | None) -> float | None:
    if value is None or baseline is None or baseline == 0 or math.isnan(value + baseline):
        return None
    return value / baseline


def figure(
    name: str,
    label: str,
    unit: str,
    value: float | None,
    baseline: float | None,
    baseline_label: str,
    *,
    higher_is_better: bool,
    target: str | None = None,
    met: bool | None = None,
    verdict: str | None = None,
) -> Json:
    """One figure; ``ratio`` is always ``value / baseline`` whichever way is better."""
    return {
        "name": name,
        "label": label,
        "unit": unit,
        "value": value,
        "baseline": baseline,
        "baseline_label": baseline_label,
        "ratio": ratio(value, baseline),
        "higher_is_better": higher_is_better,
        "target": target,
        "met": met,
        "verdict": verdict,
    }


def section(
    bench_id: str,
    title: str,
    status: str,
    *,
    note: str = "",
    figures: Sequence[Json] = (),
    details: Json | None = None,
    checks: Sequence[Json] = (),
) -> Json:
    """One benchmark's result. ``checks`` are correctness checks (``ok`` must be true)."""
    return {
        "id": bench_id,
        "title": title,
        "status": status,
        "note": note,
        "figures": list(figures),
        "checks": list(checks),
        "details": details or {},
    }


def check(name: str, expected: int, actual: int) -> Json:
    return {"name": name, "expected": expected, "actual": actual, "ok": expected == actual}


@contextlib.contextmanager
def scratch_dir(prefix: str, tmp_root: str | None) -> Iterator[Path]:
    """A fresh working directory under ``tmp_root`` (the system's default when None), removed
    with everything in it when the block ends, however it ends."""
    with tempfile.TemporaryDirectory(prefix=prefix, dir=tmp_root, ignore_cleanup_errors=True) as d:
        yield Path(d)


# -- machine information -------------------------------------------------------------------


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def _git_commit() -> str | None:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def _load_average() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def machine_info() -> Json:
    import yaml

    try:
        usable_cpus: int | None = len(os.sched_getaffinity(0))
    except AttributeError:
        usable_cpus = None
    return {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "cpu_count": os.cpu_count(),
        "usable_cpus": usable_cpus,
        "load_average_at_start": _load_average(),
        "sqlite_version": sqlite3.sqlite_version,
        "aiosqlite": _version("aiosqlite"),
        "asyncpg": _version("asyncpg"),
        "pyyaml": _version("PyYAML"),
        "pyyaml_libyaml": bool(getattr(yaml, "__with_libyaml__", False)),
        "git_commit": _git_commit(),
        "executable": sys.executable,
    }


# -- output ----------------------------------------------------------------------------------


def build(mode: str, args: Json, sections: Sequence[Json], machine: Json) -> Json:
    machine = {**machine, "load_average_at_end": _load_average()}
    targets = [
        {
            "benchmark": s["id"],
            "figure": f["name"],
            "target": f["target"],
            "met": f["met"],
            "verdict": f["verdict"],
        }
        for s in sections
        for f in s["figures"]
        if f["target"]
    ]
    return {
        "schema": RESULTS_SCHEMA,
        "mode": mode,
        "args": args,
        "machine": machine,
        "benchmarks": {s["id"]: s for s in sections},
        "targets": targets,
        "correct": all(c["ok"] for s in sections for c in s["checks"]),
    }


def write_json(path: Path, data: Json) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n")
    tmp.replace(path)


def clean(value: Any) -> Any:
    """The JSON form of ``value``: NaN and infinities become null (strict JSON has none)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clean(v) for v in value]
    return value


def fmt(value: float | None, unit: str) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if unit in ("answers/s", "presses/s"):
        return f"{value:,.0f}/s"
    if unit == "ms":
        return f"{value:.1f} ms" if value < 100 else f"{value:,.0f} ms"
    if unit == "MB":
        return f"{value:,.1f} MB"
    if unit == "s":
        return f"{value:.2f} s" if value < 100 else f"{value:,.0f} s"
    if unit == "x":
        return f"{value:.2f}"
    if unit == "%":
        return f"{value:.1f}%"
    if float(value).is_integer():  # a count: 1,000 users, not 1e+03
        return f"{value:,.0f} {unit}"
    return f"{value:,.3g} {unit}"


def _ratio_text(f: Json) -> str:
    r = f["ratio"]
    return "-" if r is None else f"{r:.2f}x"


def render_table(data: Json) -> str:
    headers = ("figure", "measured", "baseline", "ratio", "target", "verdict")
    blocks: list[tuple[str, list[tuple[str, ...]], list[str]]] = []
    for bench_id, s in data["benchmarks"].items():
        rows: list[tuple[str, ...]] = []
        notes: list[str] = []
        if s["status"] != STATUS_OK:
            notes.append(s["status"].upper() + (f": {s['note']}" if s["note"] else ""))
        else:
            usual = s["figures"][0]["baseline_label"] if s["figures"] else ""
            for f in s["figures"]:
                base = fmt(f["baseline"], f["unit"])
                if f["baseline_label"] != usual:  # the usual one is named in the title
                    base += f" ({f['baseline_label']})"
                rows.append(
                    (
                        f["label"],
                        fmt(f["value"], f["unit"]),
                        base,
                        _ratio_text(f),
                        f["target"] or "",
                        f["verdict"] or "",
                    )
                )
            if s["note"]:
                notes.append(f"note: {s['note']}")
        for c in s["checks"]:
            if not c["ok"]:
                notes.append(f"CHECK FAILED: {c['name']}: {c['actual']}, expected {c['expected']}")
        blocks.append((f"({bench_id}) {s['title']}", rows, notes))
    widths = [len(h) for h in headers]
    for _, rows, _ in blocks:
        for row in rows:
            widths = [max(w, len(cell)) for w, cell in zip(widths, row, strict=True)]

    def line(cells: tuple[str, ...]) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()

    out = ["  " + line(headers), "  " + "  ".join("-" * w for w in widths)]
    for title, rows, notes in blocks:
        out.append(title)
        out.extend("  " + line(row) for row in rows)
        out.extend(f"  {n}" for n in notes)
    machine = data["machine"]
    out.append("")
    out.append(
        f"mode {data['mode']}; {machine['python']}; {machine['cpu_count']} CPUs; "
        f"SQLite {machine['sqlite_version']}; load average {machine['load_average_at_start']} "
        f"-> {machine['load_average_at_end']}; {machine['date']}"
    )
    out.append("ratio = measured / baseline, both measured in this run.")
    return "\n".join(out)


# -- the results table of docs/benchmarks.md (formerly the README's) ------------------------

README_START = "<!-- bench:results:start (written by python -m bench --write-results) -->"
README_END = "<!-- bench:results:end -->"
# Figures without a target that the README shows too.
README_EXTRA = (
    "startup.quizzes_100.first_start_seconds",
    "startup.quizzes_1000.seconds",
    "telegram.cpu_ms_per_press",
)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def readme_rows(data: Json) -> list[str]:
    """One Markdown table row per judged figure, each starting with its benchmark's id."""
    rows: list[str] = []
    for bench_id, s in data["benchmarks"].items():
        if s["status"] != STATUS_OK:
            rows.append(f"| ({bench_id}) {_cell(s['title'])} | - | - | - | {s['status']} |")
            continue
        for f in s["figures"]:
            if not f["target"] and f["name"] not in README_EXTRA:
                continue
            judged = ""
            if f["target"]:
                verdict = f["verdict"] or ("MET" if f["met"] else "MISSED")
                judged = f"{f['target']}: " + ("met" if f["met"] else f"**{verdict}**")
            rows.append(
                f"| ({bench_id}) {_cell(f['label'])} | {fmt(f['value'], f['unit'])} | "
                f"{fmt(f['baseline'], f['unit'])} {_cell(f['baseline_label'])} | "
                f"{_ratio_text(f)} | {_cell(judged)} |"
            )
    return rows


def write_readme(path: Path, data: Json) -> None:
    """Rewrite the results table between the README's markers with this run's figures.

    Rows of benchmarks this run did not include (``--only``) are kept from the table.
    """
    text = path.read_text(encoding="utf-8")
    if README_START not in text or README_END not in text:
        raise ValueError(f"{path} has no results markers ({README_START} ... {README_END})")
    head, rest = text.split(README_START, 1)
    old, tail = rest.split(README_END, 1)
    ran = set(data["benchmarks"])

    def bench_of(line: str) -> str | None:
        # Rows start "| (a) ", run lines "- (a) ": both are owned by benchmark a.
        for prefix in ("| (", "- ("):
            if line.startswith(prefix) and ")" in line:
                return line[len(prefix) : line.index(")")]
        return None

    kept = [line for line in old.splitlines() if bench_of(line) not in (None, *ran)]
    machine = data["machine"]
    pg = data["benchmarks"].get("e", {}).get("note", "")
    runs = [
        f"- ({bench_id}) run of {machine['date'][:16].replace('T', ' ')} UTC, {data['mode']} "
        f"size: {machine['cpu_count']} CPUs, {machine['python']}, SQLite "
        f"{machine['sqlite_version']}"
        + (f", {pg.split(';')[0]}" if bench_id == "e" and pg.startswith("PostgreSQL") else "")
        + f"; load average {machine['load_average_at_start']} at the start"
        for bench_id in sorted(ran)
    ]
    rows = sorted(
        [line for line in kept if line.startswith("| (")] + readme_rows(data),
        key=lambda line: bench_of(line) or "",
    )
    run_lines = sorted(
        [line for line in kept if line.startswith("- (")] + runs,
        key=lambda line: bench_of(line) or "",
    )
    table = [
        "| figure | ours | baseline | ratio | target |",
        "|---|---|---|---|---|",
        *rows,
        "",
        "Runs (each row's ratio is measured within its run):",
        "",
        *run_lines,
    ]
    path.write_text(
        head + README_START + "\n" + "\n".join(table) + "\n" + README_END + tail, encoding="utf-8"
    )
