"""Quiz files for the library's tests: a first version, and an edit of it that removes,
renames and re-keys questions (what must never break an attempt started on the first)."""

from __future__ import annotations

import textwrap
from pathlib import Path


def question(qid: str, correct: str, text: str) -> str:
    return textwrap.indent(
        textwrap.dedent(
            f"""\
            - id: {qid}
              correct: {correct}
              text: {{en: "{text}"}}
              options:
                - id: a
                  text: {{en: "alpha"}}
                - id: b
                  text: {{en: "beta"}}
                - id: c
                  text: {{en: "gamma"}}
              explanation: {{en: "Because."}}
            """
        ),
        "  ",
    )


def quiz_yaml(title: str, *questions: str) -> str:
    head = f'title: {{en: "{title}"}}\nshuffle: {{options: false}}\nquestions:\n'
    return head + "".join(questions)


# Version 1: three questions.
FIRST = quiz_yaml(
    "Library quiz",
    question("q1", "a", "First?"),
    question("q2", "b", "Second?"),
    question("q3", "c", "Third?"),
)
# Version 2: q1 re-keyed (b is right now), q2 removed, q3 renamed to q3-new.
EDITED = quiz_yaml(
    "Library quiz, edited",
    question("q1", "b", "First, edited?"),
    question("q3-new", "a", "Third, renamed?"),
)


def write_quiz(folder: Path, text: str, name: str = "library-quiz.yaml") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path
