"""Right-to-left text (Urdu) mixed with English technical terms.

Chat clients pick a paragraph's direction from its first strong character, so an Urdu line that
starts with "A." or "safetensors" is laid out left-to-right and its words come out in the wrong
order. Two Unicode controls fix that without changing what a reader sees: a right-to-left mark
at the start of each RTL paragraph, and left-to-right isolates around embedded Latin runs.
"""

from __future__ import annotations

import re

RTL_LANGUAGES = frozenset({"ar", "fa", "he", "ur", "ps", "sd", "yi"})
RLM = "\u200f"  # RIGHT-TO-LEFT MARK
LRI = "\u2066"  # LEFT-TO-RIGHT ISOLATE
PDI = "\u2069"  # POP DIRECTIONAL ISOLATE

# A run of Latin words, digits and the punctuation that joins them ("data-loader", "RNG",
# "model.safetensors.index.json", "3/8"), starting and ending with a letter or digit; a leading
# slash belongs to the run so that a command such as "/quiz" stays one (clickable) word.
_LATIN_RUN = re.compile(r"/?[A-Za-z0-9][A-Za-z0-9 ._/+\-()'%,:]*[A-Za-z0-9)%]|/?[A-Za-z0-9]")


def is_rtl(language: str) -> bool:
    """Whether ``language`` (a code such as ``ur`` or ``ur-PK``) is written right to left."""
    return language.split("-")[0].lower() in RTL_LANGUAGES


def isolate_ltr_runs(text: str) -> str:
    """Wrap Latin runs in left-to-right isolates so they keep their order inside RTL text."""
    if LRI in text:  # already prepared
        return text
    return _LATIN_RUN.sub(lambda m: f"{LRI}{m.group(0)}{PDI}", text)


def prepare(text: str, language: str) -> str:
    """Quiz or UI text ready to display in ``language`` (unchanged for LTR languages)."""
    return isolate_ltr_runs(text) if is_rtl(language) else text


def paragraph(text: str, language: str) -> str:
    """Start every line with a right-to-left mark in RTL languages, so that a line beginning
    with a letter label, emoji or digit is still laid out right to left."""
    if not is_rtl(language):
        return text
    return "\n".join(f"{RLM}{line}" if line else line for line in text.split("\n"))


def strip_controls(text: str) -> str:
    """The text without the direction controls (for comparisons and plain-text logs)."""
    return text.replace(RLM, "").replace(LRI, "").replace(PDI, "")
