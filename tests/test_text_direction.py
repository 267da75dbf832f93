"""Urdu text with English terms shows its brackets the right way round.

In right-to-left text the Unicode bidi algorithm mirrors a bracket at an odd (right-to-left)
embedding level and leaves one at an even level alone, so a pair split by an isolate, such as
"(" outside and "RNG)" inside, is shown as "RNG))". Two checks on every Urdu quiz and interface
string: structurally, no bracket pair is split across an isolate boundary; and as displayed by
the bidi algorithm itself (python-bidi, the Rust unicode-bidi crate), the brackets read as
balanced pairs from left to right.
"""

from __future__ import annotations

import contextlib
import importlib
import re
import string
from collections.abc import Iterator, Mapping

import pytest
from bidi import get_display

from bot import i18n
from bot.quiz_loader import load_quizzes
from bot.text_direction import LRI, PDI, RLM, paragraph, prepare, strip_controls
from tests.conftest import QUIZ_DIR

OPENING, CLOSING = "([{", ")]}"
MIRROR = str.maketrans("()[]{}<>", ")(][}{><")


# --- what the user sees --------------------------------------------------------------------


def _levels_and_classes(line: str) -> tuple[list[int], list[str]]:
    """Embedding levels and bidi classes of each character of ``line`` in a right-to-left
    paragraph, as the Rust implementation resolves them (it reports them per UTF-8 byte)."""
    info = get_display(line, base_dir="R", debug=True)
    levels_part = info[info.index("levels:") : info.index("paragraphs:")]
    classes_part = info[info.index("original_classes:") : info.index("levels:")]
    byte_levels = [int(n) for n in re.findall(r"Level\(\s*(\d+),?\s*\)", levels_part)]
    byte_classes = re.findall(r"\b([A-Z]{1,3})\b", classes_part.split("[", 1)[1])
    assert len(byte_levels) == len(byte_classes) == len(line.encode())
    levels, classes, offset = [], [], 0
    for char in line:
        levels.append(byte_levels[offset])
        classes.append(byte_classes[offset])
        offset += len(char.encode())
    return levels, classes


def display(text: str) -> str:
    """``text`` as a right-to-left paragraph is shown, left to right, with mirrored glyphs."""
    shown = []
    for line in text.split("\n"):
        levels, classes = _levels_and_classes(line)
        # L1: trailing whitespace and isolate controls take the paragraph level.
        end = len(line)
        while end and classes[end - 1] in {"WS", "LRI", "RLI", "FSI", "PDI", "BN"}:
            end -= 1
        levels[end:] = [1] * (len(line) - end)
        # L2: reverse every run at or above each level, from the highest down to the lowest odd.
        order = list(range(len(line)))
        for level in range(max(levels, default=1), 0, -1):
            i = 0
            while i < len(order):
                if levels[order[i]] >= level:
                    j = i
                    while j < len(order) and levels[order[j]] >= level:
                        j += 1
                    order[i:j] = reversed(order[i:j])
                    i = j
                else:
                    i += 1
        visual = "".join(line[k] for k in order)
        assert visual == get_display(line, base_dir="R")  # our reordering is the library's
        # L4: a mirrored character at an odd level is drawn as its mirror image.
        shown.append(
            "".join(line[k].translate(MIRROR) if levels[k] % 2 else line[k] for k in order)
        )
    return "\n".join(strip_controls(line) for line in shown)


def brackets_read_balanced(shown: str) -> bool:
    depth = 0
    for char in shown:
        if char in OPENING:
            depth += 1
        elif char in CLOSING:
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


# --- how the text is marked up -------------------------------------------------------------


def split_brackets(prepared: str) -> list[str]:
    """The problems of ``prepared``: unbalanced isolates, and bracket pairs of the text whose two
    halves are not in the same isolate (or both outside every isolate)."""
    problems, isolates, stack = [], [], []
    current: int | None = None
    count = 0
    for position, char in enumerate(prepared):
        if char == LRI:
            if current is not None:
                problems.append(f"nested isolate at {position}")
            count += 1
            current = count
        elif char == PDI:
            if current is None:
                problems.append(f"PDI without LRI at {position}")
            current = None
        elif char in OPENING:
            stack.append((char, current, position))
        elif char in CLOSING:
            if not stack:
                if current is not None:
                    problems.append(f"unmatched {char!r} inside an isolate at {position}")
                continue
            _, isolate, start = stack.pop()
            if isolate != current:
                problems.append(f"brackets split by an isolate: {prepared[start : position + 1]!r}")
        isolates.append(current)
    if current is not None:
        problems.append("isolate left open")
    problems += [f"unmatched {c!r} inside an isolate" for c, iso, _ in stack if iso is not None]
    return problems


# --- the strings ---------------------------------------------------------------------------


def _urdu_quiz_strings() -> Iterator[tuple[str, str]]:
    for quiz in load_quizzes([QUIZ_DIR]).quizzes:
        if "ur" not in quiz.languages:
            continue
        texts = [("title", quiz.title), ("description", quiz.description)]
        for question in quiz.questions:
            texts += [
                (question.id, question.text),
                (f"{question.id} explanation", question.explanation),
            ]
            for option in getattr(question, "options", ()):
                texts += [(f"{question.id}/{option.id}", option.text)]
                texts += [(f"{question.id}/{option.id} note", option.note)]
        for where, text in texts:
            if text is not None and text.has("ur"):
                yield f"{quiz.id}: {where}", text.get("ur")


def _filled(template: str) -> str:
    """A UI template with every placeholder filled the way the bots fill it (a number)."""
    parts = string.Formatter().parse(template)
    return "".join(literal + ("7" if field is not None else "") for literal, field, _, _ in parts)


def _urdu_in(table: object) -> Iterator[str]:
    # Plural forms may nest one level deeper; collect every Urdu string wherever it sits.
    if isinstance(table, Mapping):
        for key, value in table.items():
            if key == "ur" and isinstance(value, str):
                yield value
            elif key == "ur" and isinstance(value, Mapping):
                yield from (v for v in value.values() if isinstance(v, str))
            else:
                yield from _urdu_in(value)


def _urdu_ui_strings() -> Iterator[tuple[str, str]]:
    modules = [i18n]
    for name in ("adapters.telegram.texts", "adapters.discord.texts"):
        with contextlib.suppress(ModuleNotFoundError):  # the tables may all be in bot/i18n.py
            modules.append(importlib.import_module(name))
    for module in modules:
        for name, table in vars(module).items():
            if name.isupper() and isinstance(table, Mapping):
                for text in _urdu_in(table):
                    yield f"{module.__name__}.{name}", _filled(text)


URDU_QUIZ = list(_urdu_quiz_strings())
URDU_UI = list(_urdu_ui_strings())
ALL_URDU = [pytest.param(t, id=f"{w}#{i}") for i, (w, t) in enumerate(URDU_QUIZ + URDU_UI)]


def test_there_are_urdu_strings_with_latin_in_brackets_to_check() -> None:
    with_brackets = [t for _, t in URDU_QUIZ + URDU_UI if re.search(r"\([^)]*[A-Za-z0-9]", t)]
    assert len(with_brackets) >= 15
    assert len(URDU_UI) > 50


@pytest.mark.parametrize("text", ALL_URDU)
def test_no_bracket_pair_is_split_by_an_isolate(text: str) -> None:
    prepared = prepare(text, "ur")
    assert strip_controls(prepared) == text
    assert split_brackets(prepared) == []


@pytest.mark.parametrize("text", ALL_URDU)
def test_brackets_are_shown_the_right_way_round(text: str) -> None:
    if brackets_read_balanced(text):  # the text itself pairs its brackets
        assert brackets_read_balanced(display(paragraph(prepare(text, "ur"), "ur")))


@pytest.mark.parametrize(
    ("text", "isolated"),
    [
        ("رینڈم نمبر جنریٹر (RNG) کی اسٹیٹ", ["(RNG)"]),
        ("لاگت تقریباً (p-1)/m ہے", ["(p-1)/m"]),
        ("pickle پر مبنی .pt/.bin فائلیں", ["pickle", ".pt/.bin"]),
        ("آپ کا جواب (A/B/C/D): ", ["(A/B/C/D)"]),
        ("مسائل (3)؛ خراب فائل", ["(3)"]),
        ("ہر سوال کے لیے سیکنڈ (5–600، طے شدہ 30)", ["5–600", "30"]),
        ("اسٹیٹس (Python، NumPy، torch، CUDA) اور", ["Python", "NumPy", "torch", "CUDA"]),
        ("پہلے scaler.step(optimizer) چلائیں", ["scaler.step(optimizer)"]),
        ("گلوبل بیچ 4 × 8 × 16 = 512 ہے", ["4 × 8 × 16 = 512"]),
        ("یہ DDP. پھر", ["DDP"]),
        ("اپنا کوئز شروع کرنے کے لیے /quiz بھیجیں", ["/quiz"]),
    ],
)
def test_latin_runs_are_isolated_with_their_brackets(text: str, isolated: list[str]) -> None:
    prepared = prepare(text, "ur")
    assert re.findall(f"{LRI}(.*?){PDI}", prepared) == isolated
    assert split_brackets(prepared) == []
    shown = display(paragraph(prepared, "ur"))
    for run in isolated:
        assert run in shown  # an isolated run reads left to right, brackets as written


def test_a_split_pair_is_caught_and_shows_doubled_brackets() -> None:
    split = f"جنریٹر ({LRI}RNG){PDI} کی"  # how the old rule marked "(RNG)" up
    assert split_brackets(split) != []
    shown = display(paragraph(split, "ur"))
    assert "RNG))" in shown and not brackets_read_balanced(shown)
    fixed = prepare("جنریٹر (RNG) کی", "ur")
    assert "(RNG)" in display(paragraph(fixed, "ur"))


def test_prepared_text_is_left_alone_the_second_time_and_ltr_untouched() -> None:
    once = prepare("جنریٹر (RNG) کی", "ur")
    assert prepare(once, "ur") == once
    assert prepare("generator (RNG)", "ru") == "generator (RNG)"
    assert paragraph(once, "ur").startswith(RLM)
