"""The seed quiz played through Discord, as users see it, in every language."""

from __future__ import annotations

from bot.i18n import t
from bot.quiz import Quiz
from fakes.discord_api import CHANNEL_MESSAGE, UPDATE_MESSAGE, Message
from fakes.discord_users import (
    Exchange,
    Player,
    World,
    buttons,
    field_values,
    find_question,
    pick_letter,
    squash,
    text_of,
    visible,
)
from tests.conftest import SEED_QUIZ


async def play_through(
    player: Player, quiz: Quiz, language: str, pattern: list[bool], first: Message
) -> Message:
    """Answer every question (right or wrong as ``pattern`` says), checking the feedback
    after each answer; returns the result message."""
    fake = player.fake
    message = first
    for number, right in enumerate(pattern, start=1):
        question = find_question(quiz, message, language)
        assert visible(t("question_progress", language, number=number, total=len(pattern))) in (
            text_of(message)
        )
        exchange = await player.press_letter(
            message, pick_letter(quiz, message, language, correct=right)
        )
        # The press is acknowledged by editing the question into its feedback, at once.
        assert exchange.response_type == UPDATE_MESSAGE
        assert exchange.interaction.delay is not None and exchange.interaction.delay < 3.0
        answered = fake.messages[message.id]
        feedback = [answered, *exchange.new_messages[:-1]]
        shown = text_of(*feedback)
        assert visible(t("correct" if right else "wrong", language)) in shown
        correct_option = question.option(question.correct_option_id)
        assert correct_option is not None
        assert squash(correct_option.text.get(language)) in squash(shown)
        assert squash(question.explanation.get(language)) in squash(field_values(*feedback))
        assert buttons(answered) and all(b["disabled"] for b in buttons(answered))
        assert [b["style"] for b in buttons(answered)].count(3) == 1  # the correct one, green
        for sent in exchange.new_messages:
            assert sent.ephemeral == (not player.dm)
            assert sent.viewer in (None, player.id)
        message = exchange.last
    return message


def check_result(result: Message, language: str, pattern: list[bool], player: Player) -> None:
    correct = sum(pattern)
    percent = round(100 * correct / len(pattern))
    shown = text_of(result)
    assert visible(t("score", language, correct=correct, total=len(pattern), percent=percent)) in (
        shown
    )
    for number, right in enumerate(pattern, start=1):
        assert f"{'✓' if right else '✗'} {number}." in shown
    retry = [b for b in buttons(result) if visible(b["label"]) == visible(t("retry", language))]
    assert len(retry) == 1 and retry[0]["custom_id"].endswith(f":{player.id}")


async def start(player: Player) -> Exchange:
    exchange = await player.command("quiz", quiz=SEED_QUIZ)
    assert exchange.response_type == CHANNEL_MESSAGE
    assert exchange.interaction.delay is not None and exchange.interaction.delay < 3.0
    return exchange


async def test_english_in_a_server_channel_is_private_to_the_member(
    world: World, quiz: Quiz
) -> None:
    alice = world.user("Alice", "en-US")
    first = (await start(alice)).last
    assert first.ephemeral and first.viewer == alice.id
    assert visible(quiz.title.get("en")) in text_of(first)
    pattern = [True, False, True, True, False, True, False, True]
    result = await play_through(alice, quiz, "en", pattern, first)
    check_result(result, "en", pattern, alice)


async def test_russian_from_the_client_locale_in_a_dm(world: World, quiz: Quiz) -> None:
    ivan = world.user("Иван", "ru", dm=True)
    first = (await start(ivan)).last
    assert not first.ephemeral
    assert visible(quiz.questions[0].text.get("ru")) in text_of(first)
    pattern = [True] * 8
    result = await play_through(ivan, quiz, "ru", pattern, first)
    check_result(result, "ru", pattern, ivan)


async def test_bengali_chosen_with_language(world: World, quiz: Quiz) -> None:
    rina = world.user("Rina", "en-US")
    chosen = await rina.command("language", language="bn")
    assert chosen.notice == visible(t("language_set", "bn"))
    first = (await start(rina)).last
    assert visible(quiz.title.get("bn")) in text_of(first)
    pattern = [False, True, True, False, True, True, True, False]
    result = await play_through(rina, quiz, "bn", pattern, first)
    check_result(result, "bn", pattern, rina)


async def test_urdu_chosen_with_language_is_laid_out_right_to_left(
    world: World, quiz: Quiz
) -> None:
    ali = world.user("Ali", "en-GB", dm=True)
    chosen = await ali.command("language", language="ur")
    assert visible(chosen.last.content) == visible(t("language_set", "ur"))
    first = (await start(ali)).last
    assert visible(quiz.title.get("ur")) in text_of(first)
    # Every line of the description starts with a right-to-left mark.
    description = first.embeds[0]["description"]
    assert all(line.startswith("\u200f") for line in description.split("\n") if line)
    pattern = [True, True, False, False, True, False, True, True]
    result = await play_through(ali, quiz, "ur", pattern, first)
    check_result(result, "ur", pattern, ali)


async def test_the_language_choice_is_remembered_across_quizzes(world: World, quiz: Quiz) -> None:
    rina = world.user("Rina", "ru")
    await rina.command("language", language="bn")
    first = (await start(rina)).last
    await rina.command("stop")
    again = (await start(rina)).last
    assert visible(quiz.questions[0].text.get("bn")) in text_of(first)
    assert visible(quiz.questions[0].text.get("bn")) in text_of(again)


async def test_retry_starts_a_fresh_attempt(world: World, quiz: Quiz) -> None:
    alice = world.user("Alice")
    first = (await start(alice)).last
    result = await play_through(alice, quiz, "en", [True] * 8, first)
    retry = next(b for b in buttons(result) if b["custom_id"].startswith("qz1:s:"))
    exchange = await alice.press(result, retry["custom_id"])
    assert exchange.response_type == CHANNEL_MESSAGE
    fresh = exchange.last
    assert visible(t("question_progress", "en", number=1, total=8)) in text_of(fresh)
    old_attempt = buttons(first)[0]["custom_id"].split(":")[2]
    new_attempt = buttons(fresh)[0]["custom_id"].split(":")[2]
    assert new_attempt != old_attempt
    result2 = await play_through(alice, quiz, "en", [False] * 8, fresh)
    check_result(result2, "en", [False] * 8, alice)


async def test_another_quiz_from_the_result(world: World, quiz: Quiz) -> None:
    ivan = world.user("Ivan", "ru")
    first = (await start(ivan)).last
    result = await play_through(ivan, quiz, "ru", [True] * 8, first)
    other = next(b for b in buttons(result) if b["custom_id"] == "qz1:o")
    assert visible(other["label"]) == visible(t("other_quiz", "ru"))
    listing = await ivan.press(result, other["custom_id"])
    assert visible(t("choose_quiz", "ru")) in text_of(listing.last)
    picks = [b for b in buttons(listing.last) if b["custom_id"].startswith("qz1:s:")]
    assert len(picks) == len(world.client.engine.catalog) > 1  # type: ignore[union-attr]
    other_quiz = next(b for b in picks if b["custom_id"] != f"qz1:s:{SEED_QUIZ}")
    started = await ivan.press(listing.last, other_quiz["custom_id"])
    chosen = world.client.engine.catalog.get(other_quiz["custom_id"].split(":")[2])  # type: ignore[union-attr]
    total = len(chosen.questions)
    assert visible(t("question_progress", "ru", number=1, total=total)) in text_of(started.last)
    assert visible(chosen.title.get("ru")) in text_of(started.last)
    assert world.fake.messages[result.id].edits == 0  # the result stays as it was
