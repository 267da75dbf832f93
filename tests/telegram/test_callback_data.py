"""callback_data: compact, versioned, at most 64 bytes, and junk decodes to nothing."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from adapters.telegram import callback_data as cb

ids = st.integers(min_value=0, max_value=cb.MAX_ID)
user_ids = st.integers(min_value=0, max_value=cb.MAX_USER_ID)
quiz_ids = st.from_regex(cb.QUIZ_ID, fullmatch=True)
payloads = st.one_of(
    st.builds(
        cb.Answer,
        ids,
        st.integers(min_value=1, max_value=cb.MAX_QUESTION_NUMBER),
        st.integers(min_value=0, max_value=cb.MAX_OPTION_INDEX),
    ),
    st.builds(cb.PickQuiz, quiz_ids, user_ids),
    st.builds(cb.Retry, ids),
    st.builds(cb.OtherQuiz, ids),
    st.builds(cb.ChooseLanguage, st.sampled_from(["en", "bn", "ur", "ru"]), user_ids),
    st.builds(cb.StopConfirm, ids, st.booleans()),
    st.builds(cb.SetMode, st.booleans()),
    st.builds(
        cb.RoundAnswer,
        ids,
        st.integers(min_value=1, max_value=cb.MAX_QUESTION_NUMBER),
        st.integers(min_value=0, max_value=cb.MAX_OPTION_INDEX),
    ),
    st.builds(cb.PickRound, quiz_ids, user_ids),
    st.builds(cb.StartAssignment, ids),
)


@given(payloads)
def test_every_payload_fits_and_round_trips(data: cb.CallbackData) -> None:
    encoded = cb.encode(data)
    assert len(encoded.encode()) <= cb.MAX_BYTES
    assert encoded.startswith("v1:")
    assert cb.decode(encoded) == data


@given(st.text(max_size=80))
def test_junk_never_raises(raw: str) -> None:
    decoded = cb.decode(raw)
    if decoded is not None:  # only what encode could have produced is understood
        assert cb.decode(cb.encode(decoded)) == decoded
        assert cb.encode(decoded) == raw


def test_forged_or_old_payloads_decode_to_none() -> None:
    for raw in [
        None,
        "",
        "v1",
        "v1:a",
        "v1:a:1:1",
        "v1:a:1:1:0:extra",
        "v1:a:-1:1:0",
        "v1:a:+1:1:0",
        "v1:a:1:0:0",  # question numbers start at 1
        "v1:a:1:1:100",
        "v1:a:99999999999999999999:1:0",
        "v1:q:Bad_Quiz:1",
        "v1:q:quiz",
        "v1:l:english:1",
        "v1:s:1:yes",
        "v1:m:x",
        "v1:g:1:1",
        "v1:g:1:0:0",
        "v1:g:x:1:0",
        "v1:p:Bad_Quiz:1",
        "v1:p:quiz",
        "v1:as",
        "v1:as:x",
        "v1:as:1:2",
        "v0:a:1:1:0",
        "v2:a:1:1:0",
        "v1:a:1:1:0" + "0" * 60,
    ]:
        assert cb.decode(raw) is None, raw


def test_out_of_range_values_are_not_encoded() -> None:
    cases: list[cb.CallbackData] = [
        cb.Answer(-1, 1, 0),
        cb.Answer(1, 0, 0),
        cb.PickQuiz("No Spaces", 1),
        cb.PickQuiz("x" * 41, 1),
        cb.ChooseLanguage("en", cb.MAX_USER_ID + 1),
        cb.RoundAnswer(1, 1, cb.MAX_OPTION_INDEX + 1),
        cb.PickRound("x" * 41, 1),
        cb.StartAssignment(-1),
    ]
    for data in cases:
        try:
            cb.encode(data)
        except ValueError:
            continue
        raise AssertionError(f"{data} was encoded")
