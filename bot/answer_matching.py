"""Whether a typed answer matches one of a question's accepted spellings.

Forgiving the way Red-DiscordBot's trivia is (its session lowercases both sides and accepts a
guess that contains the answer: the answer as one of the guess's words, or a multi-word answer
as a run of them), and more forgiving in what a phone keyboard or a language changes: case
(``casefold``, so ``STRASSE`` matches ``straße``), diacritics (NFKD, combining marks dropped:
``pokemon`` matches ``Pokémon``), smart quotes, punctuation and runs of white space
(``the beatles `` matches ``The Beatles``; ``spider man`` and ``spiderman`` match
``Spider-Man``). A few symbols that change meaning (``C#``, ``AT&T``, ``100%``) are kept.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

MAX_TYPED_CHARS = 200  # longer replies are cut: no accepted answer is that long
_KEPT = frozenset("#&%@+$")  # punctuation-like characters that are part of an answer
_DROPPED = frozenset("'’‘`´ʼ")  # apostrophes join: "don't" is "dont", not "don t"


def normalize(text: str) -> str:
    """``text`` folded for comparison: casefolded, without diacritics, punctuation as spaces,
    white space collapsed."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    kept: list[str] = []
    for char in decomposed:
        if unicodedata.combining(char) or char in _DROPPED:
            continue
        category = unicodedata.category(char)
        if char in _KEPT or not (category.startswith(("P", "Z", "C")) or char.isspace()):
            kept.append(char)
        else:
            kept.append(" ")
    # Casefolding after NFKD catches letters that decomposition turns into capitals.
    return " ".join("".join(kept).casefold().split())


def _contains(words: list[str], answer: list[str]) -> bool:
    """Whether ``answer``'s words appear in ``words`` one after another."""
    size = len(answer)
    return any(words[i : i + size] == answer for i in range(len(words) - size + 1))


def matches(typed: str, accepted: Iterable[str]) -> bool:
    """Whether ``typed`` is one of ``accepted`` (see the module docstring for how forgiving)."""
    guess = normalize(typed[:MAX_TYPED_CHARS])
    if not guess:
        return False
    guess_words = guess.split(" ")
    compact = guess.replace(" ", "")
    for spelling in accepted:
        answer = normalize(spelling)
        if not answer:
            continue
        if answer == guess or answer.replace(" ", "") == compact:
            return True
        if _contains(guess_words, answer.split(" ")):
            return True
    return False


def clean_typed(text: str) -> str:
    """A typed answer as it is stored and shown back: trimmed, one line, at most
    :data:`MAX_TYPED_CHARS` characters."""
    return " ".join(text.split())[:MAX_TYPED_CHARS]
