"""The engine prepares a quiz's texts once per quiz object: a reload is never served stale."""

from __future__ import annotations

import textwrap
from pathlib import Path

from bot.catalog import QuizCatalog
from bot.engine import QuizEngine
from bot.storage.sqlite import SQLiteStorage
from bot.text_direction import LRI
from bot.views import AnswerOutcome, Participant

QUIZ = textwrap.dedent(
    """\
    title:
      en: Tiny quiz
      ur: "چھوٹا کوئز API"
    languages: [en, ur]
    shuffle: {options: false}  # the options are compared in the file's order
    questions:
      - id: q1
        correct: b
        text:
          en: "Which is 2 + 2?"
          ur: "2 + 2 کتنے ہیں؟"
        options:
          - id: a
            text: {en: "three", ur: "تین"}
          - id: b
            text: {en: "four", ur: "چار"}
        explanation:
          en: Two and two make four.
          ur: "دو اور دو چار GPU"
      - id: q2
        correct: a
        text:
          en: "Which is 1 + 1?"
          ur: "1 + 1 کتنے ہیں؟"
        options:
          - id: a
            text: {en: "two", ur: "دو"}
          - id: b
            text: {en: "one", ur: "ایک"}
        explanation:
          en: One and one make two.
          ur: "ایک اور ایک دو"
    """
)


def changed(text: str) -> str:
    """The same quiz, every English text and the Urdu title edited."""
    for old, new in [
        ("Tiny quiz", "Tiny quiz v2"),
        ("چھوٹا کوئز API", "نیا کوئز SDK"),
        ("Which is 2 + 2?", "What is 2 + 2?"),
        ("Two and two make four.", "2 + 2 = 4."),
        ('"three"', '"THREE"'),
        ('"four"', '"FOUR"'),
        ("Which is 1 + 1?", "What is 1 + 1?"),
    ]:
        assert old in text
        text = text.replace(old, new)
    return text


async def test_a_reloaded_quiz_is_shown_with_its_new_texts(
    tmp_path: Path, storage: SQLiteStorage
) -> None:
    path = tmp_path / "quizzes" / "tiny.yaml"
    path.parent.mkdir()
    path.write_text(QUIZ, encoding="utf-8")
    catalog, report = QuizCatalog.from_paths([path.parent])
    assert not report.errors
    engine = QuizEngine(catalog, storage)
    en = Participant("test", "en-user", language_tag="en")
    ur = Participant("test", "ur-user", language_tag="ur")

    # Fill the engine's prepared texts for both languages from the first version.
    started = await engine.start(en, "tiny")
    assert started.question is not None and started.question.text == "Which is 2 + 2?"
    started_ur = await engine.start(ur, "tiny")
    assert started_ur.question is not None
    assert started_ur.question.quiz_title == f"چھوٹا کوئز {LRI}API\u2069"
    old_quiz = catalog.get("tiny")

    path.write_text(changed(QUIZ), encoding="utf-8")
    assert not catalog.reload().errors
    assert catalog.get("tiny") is not old_quiz

    current = await engine.current_question(en, started.question.attempt_id)
    assert current is not None
    assert (current.quiz_title, current.text) == ("Tiny quiz v2", "What is 2 + 2?")
    assert [o.text for o in current.options] == ["THREE", "FOUR"]

    feedback = await engine.answer_by_position(en, started.question.attempt_id, 1, 1)
    assert feedback.outcome is AnswerOutcome.ACCEPTED
    assert feedback.question is not None and feedback.question.text == "What is 2 + 2?"
    assert feedback.chosen is not None and feedback.chosen.text == "FOUR"
    assert feedback.explanation == "2 + 2 = 4."
    assert feedback.next_question is not None
    assert feedback.next_question.quiz_title == "Tiny quiz v2"
    assert feedback.next_question.text == "What is 1 + 1?"

    # A redelivery of the same press gets the same, new, feedback.
    again = await engine.answer_by_position(en, started.question.attempt_id, 1, 1)
    assert again.outcome is AnswerOutcome.DUPLICATE
    assert again.question == feedback.question and again.explanation == feedback.explanation

    done = await engine.answer_by_position(en, started.question.attempt_id, 2, 0)
    assert done.result is not None and done.result.quiz_title == "Tiny quiz v2"
    assert [m.text for m in done.result.marks] == ["What is 2 + 2?", "What is 1 + 1?"]

    # Only the quiz objects the catalog serves now keep prepared texts.
    assert engine._texts and all(
        texts.quiz is catalog.get(quiz_id) for (quiz_id, _, _), texts in engine._texts.items()
    )

    feedback_ur = await engine.answer_by_position(ur, started_ur.question.attempt_id, 1, 1)
    assert feedback_ur.question is not None
    assert feedback_ur.question.quiz_title == f"نیا کوئز {LRI}SDK\u2069"
