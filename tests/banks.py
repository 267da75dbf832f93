"""A question bank for the tests: 30 questions tagged by topic, of which each attempt draws 5."""

from __future__ import annotations

from pathlib import Path

BANK = "bank"
BANK_SIZE, BANK_PICK = 30, 5


def topic(number: int) -> str:
    """The tag of question ``number`` (1-based): 1-10 alpha, 11-20 beta, 21-30 gamma."""
    return ("alpha", "beta", "gamma")[(number - 1) // 10]


def bank_yaml(*, pick: object = BANK_PICK, extra: str = "") -> str:
    lines = [
        f"id: {BANK}",
        "title: Question bank",
        f"pick: {pick}",
        *([extra] if extra else []),
        "questions:",
    ]
    for n in range(1, BANK_SIZE + 1):
        tags = [topic(n)] + (["even"] if n % 2 == 0 else [])
        lines += [
            f"  - id: q{n}",
            f"    text: Bank question {n}?",
            f"    tags: [{', '.join(tags)}]",
            "    options:",
            f"      - {{id: a, text: Right {n}}}",
            f"      - {{id: b, text: Wrong {n}}}",
            f"      - {{id: c, text: Other {n}}}",
            "    correct: a",
            f"    explanation: Question {n} is answered by its right option.",
        ]
    return "\n".join(lines) + "\n"


def write_bank(directory: Path, *, pick: object = BANK_PICK, extra: str = "") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{BANK}.yaml"
    path.write_text(bank_yaml(pick=pick, extra=extra), encoding="utf-8")
    return path
