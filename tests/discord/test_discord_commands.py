"""The slash commands other than playing: autocomplete, lists, /progress, /stop, /help."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from adapters.discord.adapter import QuizClient
from bot.catalog import QuizCatalog
from bot.engine import QuizEngine
from bot.i18n import t
from bot.quiz import Quiz
from bot.storage import SQLiteStorage
from fakes.discord_api import CHANNEL_MESSAGE, FakeDiscord
from fakes.discord_users import ClientFactory, World, buttons, pick_letter, text_of, visible
from tests.conftest import QUIZ_DIR, SEED_QUIZ, FakeClock


def write_quizzes(directory: Path, count: int) -> None:
    """``count`` copies of the seed quiz with their own ids and titles."""
    seed = yaml.safe_load((QUIZ_DIR / f"{SEED_QUIZ}.yaml").read_text(encoding="utf-8"))
    directory.mkdir()
    for number in range(count):
        copy = dict(seed)
        copy["questions"] = seed["questions"][:2]  # small files: loading 30 stays quick
        copy["id"] = f"copy-{number:02d}"
        copy["title"] = {lang: f"{title} #{number:02d}" for lang, title in seed["title"].items()}
        path = directory / f"copy-{number:02d}.yaml"
        path.write_text(yaml.safe_dump(copy, allow_unicode=True), encoding="utf-8")


@pytest.fixture
async def crowded(
    fake_discord: FakeDiscord, tmp_path: Path, storage: SQLiteStorage, make_client: ClientFactory
) -> World:
    """A bot serving 30 quizzes."""
    write_quizzes(tmp_path / "many", 30)
    catalog, report = QuizCatalog.from_paths([tmp_path / "many"])
    assert not report.errors and len(catalog) == 30
    client = await make_client(QuizEngine(catalog, storage, clock=FakeClock()))
    return World(fake_discord, client)


async def test_autocomplete_offers_titles_in_the_users_language(world: World, quiz: Quiz) -> None:
    alice = world.user("Alice", "en-US")
    choices = await alice.autocomplete("quiz", "quiz", "check")
    assert [c["value"] for c in choices] == [SEED_QUIZ]
    assert choices[0]["name"].startswith(quiz.title.get("en"))
    ivan = world.user("Ivan", "ru")
    (choice,) = await ivan.autocomplete("quiz", "quiz", "чекпойнт")
    assert choice["value"] == SEED_QUIZ and choice["name"].startswith(quiz.title.get("ru"))
    rina = world.user("Rina", "en-US")
    await rina.command("language", language="bn")
    everything = await rina.autocomplete("quiz", "quiz", "")
    assert isinstance(world.client, QuizClient)
    assert len(everything) == len(world.client.engine.catalog)
    assert any(visible(c["name"]).startswith(quiz.title.get("bn")) for c in everything)
    assert await alice.autocomplete("quiz", "quiz", "no such quiz") == []


async def test_autocomplete_stops_at_25(crowded: World) -> None:
    alice = crowded.user("Alice")
    assert len(await alice.autocomplete("quiz", "quiz", "")) == 25
    assert [c["value"] for c in await alice.autocomplete("quiz", "quiz", "#07")] == ["copy-07"]


async def test_quiz_by_typed_title_and_unknown_quiz(world: World, quiz: Quiz) -> None:
    alice = world.user("Alice")
    typed = await alice.command("quiz", quiz="checkpoint SHARDING and")
    assert visible(quiz.questions[0].text.get("en")) in text_of(typed.last)
    bob = world.user("Bob")
    unknown = await bob.command("quiz", quiz="knitting")
    shown = text_of(unknown.last)
    assert 'There is no quiz "knitting"' in shown
    assert visible(quiz.title.get("en")) in shown
    assert isinstance(world.client, QuizClient)
    assert len(buttons(unknown.last)) == len(world.client.engine.catalog)


async def test_quiz_without_a_name_lists_the_quizzes_to_pick(world: World, quiz: Quiz) -> None:
    alice = world.user("Alice", "ru", dm=True)
    listing = await alice.command("quiz")
    assert visible(t("choose_quiz", "ru")) in text_of(listing.last)
    start = next(b for b in buttons(listing.last) if b["custom_id"] == f"qz1:s:{SEED_QUIZ}")
    assert start["label"] == quiz.title.get("ru")
    started = await alice.press(listing.last, start["custom_id"])
    assert started.response_type == CHANNEL_MESSAGE
    assert visible(quiz.questions[0].text.get("ru")) in text_of(started.last)
    # Without a name, /quiz now resumes that quiz.
    resumed = await alice.command("quiz")
    assert visible(t("resumed", "ru")) in text_of(resumed.last)
    assert visible(quiz.questions[0].text.get("ru")) in text_of(resumed.last)


async def test_a_long_list_shows_25_buttons_and_says_how_to_find_the_rest(
    crowded: World,
) -> None:
    alice = crowded.user("Alice")
    listing = await alice.command("quiz")
    assert len(buttons(listing.last)) == 25
    assert len(listing.last.components) == 5
    shown = text_of(listing.last)
    assert "#29" in shown and "Showing 25 of 30" in shown


async def test_progress_before_during_and_after(world: World, quiz: Quiz) -> None:
    alice = world.user("Alice")
    nothing = await alice.command("progress")
    assert visible(nothing.last.content) == visible(t("no_progress", "en"))
    message = (await alice.command("quiz", quiz=SEED_QUIZ)).last
    for number in range(8):
        if number == 3:
            during = await alice.command("progress")
            assert f"in progress, 3/{len(quiz.questions)} answered" in text_of(during.last)
            assert during.last.ephemeral
        letter = pick_letter(quiz, message, "en", correct=number % 2 == 0)
        message = (await alice.press_letter(message, letter)).last
    after = await alice.command("progress")
    assert "1 attempt, best 4/8, last 4/8" in text_of(after.last)


async def test_progress_in_russian_names_the_russian_command(world: World) -> None:
    ivan = world.user("Ivan", "ru")
    nothing = await ivan.command("progress")
    assert visible(nothing.last.content) == visible(t("no_progress", "ru")).replace(
        "/quiz", "/тест"
    )


async def test_stop_and_start_again(world: World, quiz: Quiz) -> None:
    alice = world.user("Alice", dm=True)
    await alice.command("quiz", quiz=SEED_QUIZ)
    stopped = await alice.command("stop")
    assert not stopped.last.ephemeral
    assert visible(stopped.last.content) == visible(t("stopped", "en", title=quiz.title.get("en")))
    again = await alice.command("quiz", quiz=SEED_QUIZ)
    assert visible(t("resumed", "en")) not in text_of(again.last)  # a fresh attempt


@pytest.mark.parametrize(
    ("locale", "language", "names"),
    [
        (
            "en-US",
            "en",
            ["/quiz", "/review", "/round", "/leaderboard", "/progress", "/language", "/stop"],
        ),
        ("ru", "ru", ["/тест", "/повтор", "/раунд", "/рейтинг", "/прогресс", "/язык", "/помощь"]),
    ],
)
async def test_help_names_commands_as_the_client_shows_them(
    world: World, locale: str, language: str, names: list[str]
) -> None:
    user = world.user("Someone", locale)
    shown = text_of((await user.command("help")).last)
    assert visible(t("welcome", language)) in shown
    for name in names:
        assert f"\n{name} — " in shown


async def test_help_in_urdu_after_choosing_it(world: World) -> None:
    ali = world.user("Ali", "en-GB")
    await ali.command("language", language="ur")
    help_message = (await ali.command("help")).last
    assert visible(t("welcome", "ur")) in text_of(help_message)
    assert help_message.ephemeral


async def test_command_spam_is_slowed_down_but_answers_are_not(world: World, quiz: Quiz) -> None:
    alice = world.user("Alice")
    for _ in range(4):
        assert (await alice.command("help")).last.embeds
    message = (await alice.command("quiz", quiz=SEED_QUIZ)).last  # the 5th command in a row
    refused = await alice.command("progress")
    assert refused.notice == visible(t("slow_down", "en"))
    again = await alice.command("help")  # told every time: Discord needs every reply
    assert again.notice == visible(t("slow_down", "en"))
    bob = world.user("Bob")
    assert (await bob.command("help")).last.embeds  # per user
    for _ in range(8):  # answering is not a command
        letter = pick_letter(quiz, message, "en", correct=True)
        message = (await alice.press_letter(message, letter)).last
    assert "8/8" in text_of(message)


async def test_leaderboard_before_anyone_finished_and_for_an_unknown_quiz(world: World) -> None:
    alice = world.user("Alice")
    empty = await alice.command("leaderboard")
    assert empty.notice == visible(t("leaderboard_empty", "en"))
    named = await alice.command("leaderboard", quiz=SEED_QUIZ)  # a named quiz: its empty board
    assert not named.last.ephemeral
    assert text_of(named.last).count(visible(t("leaderboard_empty", "en"))) == 2
    unknown = await alice.command("leaderboard", quiz="knitting")
    assert 'There is no quiz "knitting"' in unknown.notice
