"""Fuzzed input from chat users: button payloads, command arguments and locale tags.

Whatever arrives, the engine answers with a clear outcome and keeps serving everyone else.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adapters.discord.buttons import is_known_custom_id
from adapters.telegram.callback_data import Answer, decode
from bot.engine import QuizEngine
from bot.views import AnswerOutcome, Participant, StartOutcome
from tests.conftest import SEED_QUIZ

FUZZ = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
payloads = st.one_of(
    st.text(max_size=120),
    st.from_regex(r"v1:a:-?[0-9]{0,25}:-?[0-9]{0,6}:-?[0-9]{0,4}", fullmatch=True),
    st.from_regex(r"qz1:a:[0-9]{1,20}:[0-9]{1,5}:[0-9]{1,3}", fullmatch=True),
)


@FUZZ
@given(payloads)
def test_button_payloads_decode_to_something_valid_or_nothing(raw):
    decoded = decode(raw)
    if isinstance(decoded, Answer):
        assert decoded.attempt_id >= 0 and decoded.question_number >= 1
        assert decoded.option_index >= 0
    assert isinstance(is_known_custom_id(raw), bool)


@FUZZ
@given(
    attempt=st.integers(-(2**70), 2**70),
    number=st.integers(-5, 10**6),
    option=st.integers(-5, 10**3),
    tag=st.one_of(st.none(), st.text(max_size=40)),
)
async def test_any_answer_position_gets_an_outcome_never_an_exception(
    engine: QuizEngine, attempt, number, option, tag
):
    who = Participant("telegram", "fuzzer", "Fuzz", tag)
    feedback = await engine.answer_by_position(who, attempt, number, option)
    assert feedback.outcome in set(AnswerOutcome)
    assert feedback.notice


@FUZZ
@given(argument=st.text(max_size=200), language=st.text(max_size=30))
async def test_command_arguments_and_language_choices_never_raise(engine, argument, language):
    who = Participant("discord", "fuzzer", argument[:50] or None, language)
    start = await engine.start(who, argument or None)
    assert start.outcome in set(StartOutcome)
    assert start.notice or start.question is not None
    chosen = await engine.set_language(who, language)
    assert chosen in (None, "en", "bn", "ur", "ru")
    assert (await engine.start_review(who, argument or None)).notice
    assert isinstance(await engine.stop(who), str)


async def test_the_bot_keeps_serving_others_after_junk(engine, catalog):
    for junk in ("", "v1:a:1:1:99", "💥" * 50, "v1:a:99999999999:1:0"):
        decoded = decode(junk)
        if isinstance(decoded, Answer):
            await engine.answer_by_position(Participant("t", "x"), *vars(decoded).values())
    who = Participant("telegram", "regular", "Reg", "en")
    question = (await engine.start(who, SEED_QUIZ)).question
    feedback = await engine.answer_by_position(who, question.attempt_id, 1, 0)
    assert feedback.outcome is AnswerOutcome.ACCEPTED
