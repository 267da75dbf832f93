"""A small quiz with typed-answer questions, shaped like an imported Red trivia list, for the
typed-answer tests of the engine and every adapter."""

from __future__ import annotations

import textwrap
from pathlib import Path

from bot.catalog import QuizCatalog

TYPED_QUIZ_ID = "trivia"
TYPED_QUIZ = textwrap.dedent(
    """\
    id: trivia
    default_language: en
    languages: [en, ru]
    title: {en: Music and games, ru: Музыка и игры}
    shuffle: {options: false}  # the tests answer the choice question by its letter
    questions:
      - id: band
        kind: typed
        text: {en: "Which band recorded Abbey Road?", ru: "Какая группа записала Abbey Road?"}
        answers: {en: [The Beatles, Beatles], ru: [Битлз]}
      - id: franchise
        kind: typed
        text: "Pikachu is the mascot of which franchise?"
        answers: [Pokémon]
      - id: planet
        text: "Which planet is the largest?"
        correct: b
        options:
          - {id: a, text: Mars}
          - {id: b, text: Jupiter}
        explanation: "Jupiter is more than twice as massive as all the other planets together."
      - id: city
        kind: typed
        text: {en: "Which city is the capital of Russia?", ru: "Какой город — столица России?"}
        answers: {en: [Moscow], ru: [Москва]}
        explanation:
          en: "Moscow has been the capital since 1918."
          ru: "Москва — столица с 1918 года."
    """
)
RIGHT = {"band": "the beatles ", "franchise": "pokemon", "city": "МОСКВА"}
WRONG = {"band": "The Rolling Stones", "franchise": "Digimon", "city": "Saint Petersburg"}


def typed_quiz_dir(tmp_path: Path) -> Path:
    """A quiz folder holding only the typed-answer quiz."""
    folder = tmp_path / "typed-quizzes"
    folder.mkdir(exist_ok=True)
    (folder / f"{TYPED_QUIZ_ID}.yaml").write_text(TYPED_QUIZ, encoding="utf-8")
    return folder


def typed_catalog(tmp_path: Path) -> QuizCatalog:
    catalog, report = QuizCatalog.from_paths([typed_quiz_dir(tmp_path)])
    assert not report.errors, report.errors
    return catalog
