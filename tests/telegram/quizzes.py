"""Extra quiz files the Telegram tests write next to the seed quiz."""

from __future__ import annotations

from pathlib import Path

import yaml

from bot.catalog import QuizCatalog
from tests.conftest import QUIZ_DIR, SEED_QUIZ

TRICKY = "tricky"
LONG_OPTION = "checkpoint-sharding-long"
TRICKY_QUESTION = "Is <b>this</b> bold & is __init__ or *args markup?"
# Over 9,000 characters: paragraphs, and one paragraph longer than a whole message.
LONG_EXPLANATION = "\n\n".join(
    [
        "Telegram parses <b>, <i> and &amp; in HTML mode, so quiz text must be escaped: "
        "x < y && y > z is plain text here." + " More detail follows." * 40,
        " ".join(f"word{i}_<&>" for i in range(700)),  # ~ 8,000 characters, no line break
        "The end: *stars* and _underscores_ stay as they are.",
    ]
)


def write_tricky(directory: Path) -> None:
    """A quiz whose text is full of HTML and Markdown characters, with short options (they go
    on the buttons) and an explanation longer than two messages."""
    quiz = {
        "id": TRICKY,
        "default_language": "en",
        "languages": ["en"],
        "title": {"en": "Tricky <markup> & friends"},
        "description": {"en": "Escaping & splitting."},
        "questions": [
            {
                "id": "markup",
                "correct": "a",
                "text": {"en": TRICKY_QUESTION},
                "options": [
                    {"id": "a", "text": {"en": "x < y & z"}},
                    {"id": "b", "text": {"en": "<i>never</i>"}},
                    {"id": "c", "text": {"en": "__init__ *args*"}},
                ],
                "explanation": {"en": LONG_EXPLANATION},
            },
            {
                "id": "second",
                "correct": "b",
                "text": {"en": "Second & last?"},
                "options": [
                    {"id": "a", "text": {"en": "No"}},
                    {"id": "b", "text": {"en": "Yes"}},
                ],
                "explanation": {"en": "Short & sweet."},
            },
        ],
    }
    directory.mkdir(parents=True, exist_ok=True)
    (directory / f"{TRICKY}.yaml").write_text(yaml.safe_dump(quiz, allow_unicode=True))


def write_long_option(directory: Path) -> str:
    """The seed quiz with one Russian option longer than a poll option may be (100
    characters); returns that question's id."""
    data = yaml.safe_load((QUIZ_DIR / f"{SEED_QUIZ}.yaml").read_text(encoding="utf-8"))
    data["id"] = LONG_OPTION
    question = data["questions"][1]
    option = next(o for o in question["options"] if o["id"] == question["correct"])
    option["text"]["ru"] += " — всё это нужно сохранить вместе с весами, чтобы продолжить обучение"
    assert len(option["text"]["ru"]) > 100
    directory.mkdir(parents=True, exist_ok=True)
    (directory / f"{LONG_OPTION}.yaml").write_text(yaml.safe_dump(data, allow_unicode=True))
    return str(question["id"])


def catalog_of(*directories: Path) -> QuizCatalog:
    catalog, report = QuizCatalog.from_paths([QUIZ_DIR, *directories])
    assert not report.errors, report.errors
    return catalog
