"""A quiz with code in every text, for the rendering tests of all three platforms.

Inline code and fenced blocks in the title, description, questions, options, notes and
explanations; HTML and Markdown characters (``<``, ``&``, ``*``, ``_``) inside and outside
code; a backtick inside inline code; indented and blank code lines; Urdu text around code; and
an explanation whose code block is longer than a Telegram message and a Discord field.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from bot.catalog import QuizCatalog
from tests.conftest import QUIZ_DIR

CODE_QUIZ = "code-in-texts"
SNIPPET = (
    'def f(xs):\n    if len(xs) < 2 and "&" in xs:\n\n        return xs[::-1]  # <b>\n'
    "    return `x`"
)
# About 9,000 characters of code: more than two Telegram messages, many Discord fields.
LONG_CODE = "\n".join(
    f"    step_{i:03} = model(batch[{i}]) if a < b && c > d else None  # <&>" for i in range(140)
)
BLOCK_QUESTION = f"What does `f` return here?\n```python\n{SNIPPET}\n```\nPick one."
BLOCK_QUESTION_UR = f"یہاں `f` کیا لوٹاتا ہے؟\n```python\n{SNIPPET}\n```\nایک چنیں۔"
RIGHT_LINE, WRONG_LINE = "```py\nprint('<tag>')\n```", "```py\nprint(<tag>)\n```"
LONG_EXPLANATION = f"The loop, written out:\n```py\n{LONG_CODE}\n```\nSo `step_139` is last."
LONG_EXPLANATION_UR = f"پورا لوپ:\n```py\n{LONG_CODE}\n```\nاس لیے `step_139` آخری ہے۔"


def _text(en: str, ur: str) -> dict[str, str]:
    return {"en": en, "ur": ur}


def code_quiz() -> dict[str, object]:
    return {
        "id": CODE_QUIZ,
        "default_language": "en",
        "languages": ["en", "ur"],
        # The tests read the buttons in the file's order (options shuffle by default).
        "shuffle": {"options": False},
        "title": _text("Code `<&>` quiz", "کوڈ `<&>` کوئز"),
        "description": _text("Reading `x < y && z` and blocks.", "`x < y && z` اور بلاک پڑھنا۔"),
        "questions": [
            {
                "id": "inline",
                "correct": "a",
                "text": _text(
                    'What is `len("<a&b>")` in *Python*?',
                    'پائتھن میں `len("<a&b>")` کیا ہے؟',
                ),
                "options": [
                    {"id": "a", "text": _text("`5`", "`5`")},
                    {
                        "id": "b",
                        "text": _text("`` `7` ``", "`` `7` ``"),
                        "note": _text(
                            "Backticks `` ` `` are not counted.", "`` ` `` گنے نہیں جاتے۔"
                        ),
                    },
                    {"id": "c", "text": _text("__init__ `*`", "__init__ `*`")},
                ],
                "explanation": _text(
                    'The string `"<a&b>"` has 5 characters: `<`, `a`, `&`, `b`, `>`.',
                    'سٹرنگ `"<a&b>"` میں 5 حروف ہیں: `<`، `a`، `&`، `b`، `>`۔',
                ),
            },
            {
                "id": "block",
                "correct": "b",
                "text": _text(BLOCK_QUESTION, BLOCK_QUESTION_UR),
                "options": [
                    {
                        "id": "a",
                        "text": _text(
                            "The list `xs` unchanged, whatever it holds",
                            "فہرست `xs` جوں کی توں، جو بھی ہو",
                        ),
                        "note": _text(
                            "Look at the `return` inside the `if`:\n```\nreturn xs[::-1]\n```",
                            "`if` کے اندر `return` دیکھیں:\n```\nreturn xs[::-1]\n```",
                        ),
                    },
                    {
                        "id": "b",
                        "text": _text(
                            "`xs[::-1]` when `len(xs) < 2` and it holds `&`",
                            "`xs[::-1]` جب `len(xs) < 2` ہو اور اس میں `&` ہو",
                        ),
                    },
                ],
                "explanation": _text(LONG_EXPLANATION, LONG_EXPLANATION_UR),
            },
            {
                "id": "block-option",
                "correct": "a",
                "text": _text("Which line prints `<tag>`?", "کون سی لائن `<tag>` چھاپتی ہے؟"),
                "options": [
                    {"id": "a", "text": _text(RIGHT_LINE, RIGHT_LINE)},
                    {"id": "b", "text": _text(WRONG_LINE, WRONG_LINE)},
                ],
                "explanation": _text("Only `'<tag>'` is a string.", "صرف `'<tag>'` سٹرنگ ہے۔"),
            },
        ],
    }


def write_code_quiz(directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    data = yaml.safe_dump(code_quiz(), allow_unicode=True, sort_keys=False)
    (directory / f"{CODE_QUIZ}.yaml").write_text(data, encoding="utf-8")


def code_catalog(directory: Path) -> QuizCatalog:
    """The bundled quizzes and the code quiz (which must load without errors)."""
    write_code_quiz(directory)
    catalog, report = QuizCatalog.from_paths([QUIZ_DIR, directory])
    assert not report.errors, report.errors
    return catalog
