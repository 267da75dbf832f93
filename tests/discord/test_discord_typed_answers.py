"""Typed-answer questions on Discord: a button opens a modal, its submit answers the question
(real discord.py against the fake Discord)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.engine import QuizEngine
from fakes.discord_api import CHANNEL_MESSAGE, MODAL, UPDATE_MESSAGE, Message
from fakes.discord_users import ClientFactory, Exchange, Player, World, buttons, text_of
from tests.conftest import FakeClock
from tests.discord.discord_harness import close_process
from tests.typed_quiz import RIGHT, TYPED_QUIZ_ID, WRONG, typed_catalog


@pytest.fixture
async def typed_world(
    fake_discord: Any, storage: Any, make_client: ClientFactory, tmp_path: Path
) -> World:
    engine = QuizEngine(typed_catalog(tmp_path), storage, clock=FakeClock())
    return World(fake_discord, await make_client(engine))


async def open_modal(player: Player, message: Message) -> Exchange:
    (button,) = buttons(message)
    assert button["custom_id"].startswith("qz1:t:")
    opened = await player.press(message, button["custom_id"])
    assert opened.response_type == MODAL
    return opened


async def answer(player: Player, message: Message, typed: str) -> Exchange:
    submitted = await player.submit(await open_modal(player, message), typed)
    # The submit edits the question into its feedback at once, as an option press does.
    assert submitted.response_type == UPDATE_MESSAGE
    assert submitted.interaction.delay is not None and submitted.interaction.delay < 3.0
    return submitted


@pytest.mark.parametrize("dm", [False, True])
async def test_a_typed_quiz_is_played_through_the_answer_modal(
    typed_world: World, dm: bool
) -> None:
    alice = typed_world.user("Alice", "en-US", dm=dm)
    started = await alice.command("quiz", quiz=TYPED_QUIZ_ID)
    assert started.response_type == CHANNEL_MESSAGE
    question = started.last
    assert question.ephemeral == (not dm)
    assert "Which band recorded Abbey Road?" in text_of(question)
    assert "✍️ Type your answer." in text_of(question)
    assert [b["label"] for b in buttons(question)] == ["✍️ Type your answer"]
    opened = await open_modal(alice, question)
    modal = opened.interaction.modal
    assert modal is not None and modal["title"] == "Your answer"
    assert modal["components"][0]["components"][0]["placeholder"] == (
        "Which band recorded Abbey Road?"
    )
    done = await alice.submit(opened, RIGHT["band"])
    assert done.response_type == UPDATE_MESSAGE
    answered = typed_world.fake.messages[question.id]
    assert "✅ Correct" in text_of(answered)
    assert "the beatles" in text_of(answered)
    assert buttons(answered) and all(b["disabled"] for b in buttons(answered))
    question = done.last
    assert "Pikachu" in text_of(question)
    done = await answer(alice, question, WRONG["franchise"])
    answered = typed_world.fake.messages[question.id]
    assert "❌ Not quite" in text_of(answered)
    assert "Correct answer\nPokémon" in text_of(answered)
    choice = done.last  # the choice question in between: option buttons
    assert [b["label"] for b in buttons(choice)] == ["A. Mars", "B. Jupiter"]
    done = await alice.press(choice, buttons(choice)[1]["custom_id"])
    question = done.last
    done = await answer(alice, question, "moscow")
    assert "Moscow has been the capital since 1918." in text_of(
        typed_world.fake.messages[question.id]
    )
    assert "Score: 3/4 (75%)" in text_of(done.last)


async def test_a_second_submit_of_the_same_question_changes_nothing(typed_world: World) -> None:
    ivan = typed_world.user("Ivan", "ru")
    question = (await ivan.command("quiz", quiz=TYPED_QUIZ_ID)).last
    assert "Какая группа записала Abbey Road?" in text_of(question)
    first = await open_modal(ivan, question)
    second = await open_modal(ivan, question)  # two modals opened (two clients, say)
    done = await ivan.submit(first, WRONG["band"])
    assert "Правильный ответ\nБитлз" in text_of(typed_world.fake.messages[question.id])
    late = await ivan.submit(second, RIGHT["band"])
    assert late.notice == "Вы уже ответили на этот вопрос."
    assert typed_world.fake.messages[question.id].edits == 1  # the feedback stays as it was
    again = await ivan.press(question, buttons(question)[0]["custom_id"])  # an old button
    assert again.interaction.modal is None and again.notice
    assert done.last.id != question.id


async def test_a_modal_submitted_after_a_restart_still_answers(
    fake_discord: Any, storage: Any, make_client: ClientFactory, tmp_path: Path
) -> None:
    catalog = typed_catalog(tmp_path)
    first = World(fake_discord, await make_client(QuizEngine(catalog, storage, clock=FakeClock())))
    alice = first.user("Alice")
    question = (await alice.command("quiz", quiz=TYPED_QUIZ_ID)).last
    opened = await open_modal(alice, question)
    assert first.client is not None
    await close_process(first.client)
    restarted = World(
        fake_discord, await make_client(QuizEngine(catalog, storage, clock=FakeClock()))
    )
    alice.world = restarted
    done = await alice.submit(opened, "Beatles")
    assert done.response_type == UPDATE_MESSAGE
    assert "✅ Correct" in text_of(fake_discord.messages[question.id])
