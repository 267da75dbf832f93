"""Typed answers match the way a player expects (and as Red-DiscordBot's trivia does)."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from bot.answer_matching import clean_typed, matches, normalize


@pytest.mark.parametrize(
    ("typed", "accepted"),
    [
        ("pokemon", ["Pokémon"]),
        ("POKÉMON", ["Pokemon"]),
        ("the beatles ", ["The Beatles"]),
        ("  The   Beatles!", ["the beatles"]),
        ("beatles", ["The Beatles", "Beatles"]),
        ("Beyonce", ["Beyoncé"]),
        ("strasse", ["Straße"]),  # casefold: ß is ss
        ("spiderman", ["Spider-Man"]),
        ("spider man", ["Spider-Man"]),
        ("dont stop me now", ["Don't Stop Me Now"]),
        ("don’t stop me now", ["Don't Stop Me Now"]),  # a phone's curly apostrophe
        ("it's paris", ["Paris"]),  # Red: the answer as one of the guess's words
        ("I think new york", ["New York"]),  # Red: a multi-word answer inside the guess
        ("москва", ["Москва"]),
        ("ёлка", ["Елка"]),  # ё is е with a diaeresis
        ("1969", ["1969"]),
        ("ｐｏｋｅｍｏｎ", ["Pokémon"]),  # full-width letters (NFKD)
        ("c#", ["C#"]),
    ],
)
def test_accepted_spellings_match(typed: str, accepted: list[str]) -> None:
    assert matches(typed, accepted)


@pytest.mark.parametrize(
    ("typed", "accepted"),
    [
        ("digimon", ["Pokémon"]),
        ("york", ["New York"]),  # part of a multi-word answer is not the answer
        ("parisian", ["Paris"]),  # a word containing the answer is not the answer
        ("c", ["C#"]),
        ("", ["Paris"]),
        ("?!", ["Paris"]),
        ("1968", ["1969"]),
    ],
)
def test_other_answers_do_not_match(typed: str, accepted: list[str]) -> None:
    assert not matches(typed, accepted)


def test_normalize_folds_case_marks_punctuation_and_spaces() -> None:
    assert normalize("  Pokémon:  Gotta   catch 'em all! ") == "pokemon gotta catch em all"


def test_clean_typed_keeps_one_trimmed_line_of_bounded_length() -> None:
    assert clean_typed("  the\n beatles \t") == "the beatles"
    assert len(clean_typed("x" * 1000)) == 200


@given(st.text(min_size=1, max_size=60))
def test_every_answer_matches_itself_whatever_the_case_and_spacing(answer: str) -> None:
    assume(normalize(answer))
    assert matches(answer, [answer])
    assert matches("  " + "   ".join(answer.split()) + "\n", [answer])
    swapped = answer.swapcase()
    assume(swapped.casefold() == answer.casefold())  # a few letters change under swapcase
    assert matches(swapped, [answer])
