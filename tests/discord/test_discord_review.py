"""/review: the questions a user missed, played exactly like a quiz."""

from __future__ import annotations

from bot.i18n import t
from bot.quiz import Quiz
from fakes.discord_api import CHANNEL_MESSAGE, UPDATE_MESSAGE, Message
from fakes.discord_users import (
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


async def miss(player: Player, quiz: Quiz, pattern: list[bool], language: str) -> list[str]:
    """Play the seed quiz right or wrong as ``pattern`` says; the ids of the missed questions."""
    message = (await player.command("quiz", quiz=SEED_QUIZ)).last
    missed = []
    for right in pattern:
        if not right:
            missed.append(find_question(quiz, message, language).id)
        letter = pick_letter(quiz, message, language, correct=right)
        message = (await player.press_letter(message, letter)).last
    return missed


async def test_review_plays_the_missed_questions_and_updates_the_schedule(
    world: World, quiz: Quiz
) -> None:
    alice = world.user("Alice")
    empty = await alice.command("review")
    assert empty.notice == visible(t("review_empty", "en"))
    missed = await miss(alice, quiz, [True, False, True, False, True, True, False, True], "en")
    started = await alice.command("review")
    assert started.response_type == CHANNEL_MESSAGE
    message: Message = started.last
    assert message.ephemeral and message.viewer == alice.id
    assert visible(t("review_started", "en", count=3)) in visible(message.content)
    for number, right in enumerate([False, True, True], start=1):
        question = find_question(quiz, message, "en")
        assert question.id in missed
        assert visible(t("question_progress", "en", number=number, total=3)) in text_of(message)
        exchange = await alice.press_letter(
            message, pick_letter(quiz, message, "en", correct=right)
        )
        # The same press flow as a quiz: the question becomes its feedback, in place.
        assert exchange.response_type == UPDATE_MESSAGE
        answered = world.fake.messages[message.id]
        assert squash(question.explanation.get("en")) in squash(field_values(answered))
        assert buttons(answered) and all(b["disabled"] for b in buttons(answered))
        message = exchange.last
    shown = text_of(message)
    assert visible(t("score", "en", correct=2, total=3, percent=67)) in shown
    # No "try again" (it would restart the whole quiz); the other quizzes are offered.
    assert [b["custom_id"] for b in buttons(message)] == ["qz1:o"]
    # The one missed again is due at once; the two right ones come back later.
    again = await alice.command("review")
    assert visible(t("review_started", "en", count=1)) in visible(again.last.content)
    final = await alice.press_letter(again.last, pick_letter(quiz, again.last, "en", correct=True))
    assert visible(t("score", "en", correct=1, total=1, percent=100)) in text_of(final.last)
    later = await alice.command("review")
    next_at = visible(t("review_next_at", "en", when="@")).split("@")[0]
    assert later.notice.startswith(next_at) and later.notice.endswith(" UTC.")
    assert later.interaction.response_type == CHANNEL_MESSAGE


async def test_review_in_a_dm_in_russian_resumes_and_names_the_quiz(
    world: World, quiz: Quiz
) -> None:
    ivan = world.user("Иван", "ru", dm=True)
    await miss(ivan, quiz, [False, False, True, True, True, True, True, True], "ru")
    first = (await ivan.command("review", quiz=SEED_QUIZ)).last
    assert not first.ephemeral  # a DM: a normal message, like quizzes there
    assert visible(t("review_started", "ru", count=2)) in visible(first.content)
    resumed = await ivan.command("review")
    assert visible(t("resumed", "ru")) in visible(resumed.last.content)
    assert find_question(quiz, resumed.last, "ru") == find_question(quiz, first, "ru")
    unknown = await ivan.command("review", quiz="knitting")
    assert "Теста «knitting» нет" in unknown.notice


async def test_help_lists_review_round_and_leaderboard(world: World) -> None:
    shown = text_of((await world.user("Ivan", "ru").command("help")).last)
    for name in ("/повтор", "/раунд", "/рейтинг"):
        assert f"\n{name} — " in shown
    assert "/перезагрузка" not in shown and "/статистика" not in shown  # not an admin
