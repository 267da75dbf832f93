"""Right-to-left text (Urdu) mixed with English technical terms.

Chat clients pick a paragraph's direction from its first strong character, so an Urdu line that
starts with "A." or "safetensors" is laid out left-to-right and its words come out in the wrong
order. Two Unicode controls fix that without changing what a reader sees: a right-to-left mark
at the start of each RTL paragraph, and left-to-right isolates around embedded Latin runs.

A bracket pair is never split by an isolate: in right-to-left text the bidi algorithm mirrors a
bracket outside an isolate but not one inside it, so "(RNG)" isolated as "(" + [RNG)] would show
as "RNG))". A parenthesised group with no right-to-left letters is part of the Latin run next to
it ("(RNG)", "(p-1)/m", "scaler.step(optimizer)"); one that contains Urdu keeps both brackets
outside, in the surrounding right-to-left text, and only the Latin words inside are isolated.

Code (see :mod:`bot.markup`) is never changed: inline code is isolated as a whole, backticks
and all, and the lines of a fenced block get no marks (they would be copied with the code).
"""

from __future__ import annotations

import functools
import re

from bot import markup

RTL_LANGUAGES = frozenset({"ar", "fa", "he", "ur", "ps", "sd", "yi"})
RLM = "\u200f"  # RIGHT-TO-LEFT MARK
LRI = "\u2066"  # LEFT-TO-RIGHT ISOLATE
PDI = "\u2069"  # POP DIRECTIONAL ISOLATE

# Hebrew, Arabic (with Urdu), Syriac, Thaana, NKo and the Arabic presentation forms.
_RTL_LETTERS = "\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc"
_INNER = rf"[^(){_RTL_LETTERS}\n]"
# "( ... )" without right-to-left letters, with at most one level of nested brackets.
_GROUP = rf"\((?:{_INNER}|\({_INNER}*\))*\)"
_ATOM = rf"(?:[A-Za-z0-9]++|{_GROUP})"
# What joins Latin words and numbers into one run: "data-loader", "3/8", "4 × 8 = 32", "5–600",
# "model.safetensors.index.json", "E4M3, E5M2". Atomic, so a trailing ". " is given back whole.
_JOIN = r"(?>[ ._/+\-'%,:×=–]*)"
# A leading slash keeps a command such as "/quiz" one (clickable) word; a leading dot keeps a
# file extension such as ".bin" whole.
_LATIN_RUN = re.compile(rf"[/.]?{_ATOM}(?:{_JOIN}{_ATOM})*[%+]?")
_LATIN = re.compile(r"[A-Za-z0-9]")


@functools.lru_cache(maxsize=256)  # a handful of language codes
def is_rtl(language: str) -> bool:
    """Whether ``language`` (a code such as ``ur`` or ``ur-PK``) is written right to left."""
    return language.split("-")[0].lower() in RTL_LANGUAGES


def _isolate(match: re.Match[str]) -> str:
    run = match.group(0)
    return f"{LRI}{run}{PDI}" if _LATIN.search(run) else run


# Pure and called for the same interface and quiz texts over and over: remembered (bounded).
@functools.lru_cache(maxsize=4096)
def isolate_ltr_runs(text: str) -> str:
    """Wrap Latin runs, with the bracket pairs that belong to them, in left-to-right isolates
    so they keep their order inside RTL text."""
    if LRI in text:  # already prepared
        return text
    if "`" not in text:
        return _LATIN_RUN.sub(_isolate, text)
    parts = []
    for span in markup.parse(text):
        if isinstance(span, markup.Text):
            parts.append(_LATIN_RUN.sub(_isolate, span.text))
        elif isinstance(span, markup.Code):
            parts.append(f"{LRI}{markup.inline_source(span.code)}{PDI}")
        else:
            parts.append(markup.source([span]))
    return "".join(parts)


def prepare(text: str, language: str) -> str:
    """Quiz or UI text ready to display in ``language`` (unchanged for LTR languages)."""
    return isolate_ltr_runs(text) if is_rtl(language) else text


def paragraph(text: str, language: str) -> str:
    """Start every line with a right-to-left mark in RTL languages, so that a line beginning
    with a letter label, emoji or digit is still laid out right to left."""
    if not is_rtl(language):
        return text
    lines = text.split("\n")
    code = block_lines(text) if "```" in text else frozenset()
    return "\n".join(
        f"{RLM}{line}" if line and index not in code else line for index, line in enumerate(lines)
    )


def block_lines(text: str) -> frozenset[int]:
    """The numbers of the lines of ``text`` inside a fenced code block: its code and closing
    fence, and its opening fence when nothing comes before it on its line."""
    numbers: set[int] = set()
    for start, end in markup.block_ranges(text):
        first = text.count("\n", 0, start)
        last = first + text.count("\n", start, end)
        line_start = text.rfind("\n", 0, start) + 1
        numbers.update(range(first if not text[line_start:start].strip() else first + 1, last + 1))
    return frozenset(numbers)


def strip_controls(text: str) -> str:
    """The text without the direction controls (for comparisons and plain-text logs)."""
    return text.replace(RLM, "").replace(LRI, "").replace(PDI, "")
