"""/reload and /stats: for the ids in ADMIN_DISCORD_IDS, an unknown command for anyone else."""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from adapters.discord.reports import PROBLEMS_SHOWN
from adapters.discord.texts import text
from adapters.discord.translator import localize_commands
from bot.catalog import QuizCatalog
from bot.engine import QuizEngine
from bot.i18n import t
from bot.quiz import Quiz
from bot.stats import QuizStats
from bot.storage import SQLiteStorage
from fakes.discord_api import (
    DEFERRED_CHANNEL_MESSAGE,
    MAX_ATTACHMENTS,
    MAX_FILE_BYTES,
    MAX_UPLOAD_BYTES,
    FakeDiscord,
    Recorded,
    Upload,
    check_attachments,
    check_message,
)
from fakes.discord_users import (
    MANAGE_MESSAGES,
    MEMBER_PERMISSIONS,
    ClientFactory,
    Player,
    World,
    pick_letter,
    text_of,
    visible,
)
from quizbot.charts import ChartsUnavailable, render_stats_png
from quizbot.settings import Settings
from tests.conftest import QUIZ_DIR, SEED_QUIZ, FakeClock
from tests.discord.test_discord_commands import write_quizzes

ADMINISTRATOR = 1 << 3


@dataclasses.dataclass
class Admins:
    world: World
    admin: Player
    catalog: QuizCatalog
    quiz_dir: Path


@pytest.fixture
async def admins(
    fake_discord: FakeDiscord,
    tmp_path: Path,
    storage: SQLiteStorage,
    settings: Settings,
    make_client: ClientFactory,
) -> Admins:
    """A bot serving a copy of the bundled quizzes, with one bot admin."""
    quiz_dir = tmp_path / "quizzes"
    shutil.copytree(QUIZ_DIR, quiz_dir)
    catalog, report = QuizCatalog.from_paths([quiz_dir])
    assert not report.errors
    world = World(fake_discord, None)
    admin = world.user("Root", dm=True)
    configured = dataclasses.replace(settings, admin_discord_ids=frozenset({str(admin.id)}))
    engine = QuizEngine(catalog, storage, clock=FakeClock())
    world.client = await make_client(engine, settings=configured)
    return Admins(world, admin, catalog, quiz_dir)


async def test_anyone_else_gets_unknown_command_and_nothing_happens(admins: Admins) -> None:
    world = admins.world
    # A server administrator is not a bot admin.
    owner = world.user("Owner", "ru", permissions=MEMBER_PERMISSIONS | ADMINISTRATOR)
    moderator = world.user("Mod", permissions=MEMBER_PERMISSIONS | MANAGE_MESSAGES)
    seed = admins.quiz_dir / f"{SEED_QUIZ}.yaml"
    seed.unlink()  # a reload now would drop the quiz
    for user, language in ((owner, "ru"), (moderator, "en")):
        for command in ("reload", "stats"):
            refused = await user.command(command)
            expected = localize_commands(text("unknown_command", language), language)
            assert refused.notice == visible(expected)
            assert len(refused.new_messages) == 1  # the private notice, nothing else
    assert admins.catalog.get(SEED_QUIZ) is not None  # not reloaded
    assert "/reload" not in text_of((await moderator.command("help")).last)


async def test_reload_reports_live_quizzes_and_keeps_a_broken_files_last_version(
    admins: Admins, quiz: Quiz
) -> None:
    world, admin = admins.world, admins.admin
    clean = await admin.command("reload")
    shown = text_of(clean.last)
    assert clean.last.ephemeral
    assert visible(text("reload_done", "en", count=3)) in shown
    assert visible(text("reload_clean", "en")) in shown
    seed = admins.quiz_dir / f"{SEED_QUIZ}.yaml"
    seed.write_text(
        seed.read_text(encoding="utf-8").replace("correct: c", "correct: z", 1), encoding="utf-8"
    )
    (admins.quiz_dir / "new_one.yaml").write_text("title: [unclosed\n", encoding="utf-8")
    broken = await admin.command("reload")
    shown = text_of(broken.last)
    assert visible(text("reload_done", "en", count=3)) in shown  # the old version stays live
    assert visible(text("reload_problems", "en", count=2)) in shown
    report = QuizCatalog.from_paths([admins.quiz_dir])[1]
    for problem in report.errors:
        assert f"• {problem}" in shown  # file:line: problem, shown literally
    assert f"{seed}:" in shown and "new_one.yaml:" in shown
    # The bundled quiz is still served, with its last good answer key.
    player = world.user("Alice", dm=True)
    message = (await player.command("quiz", quiz=SEED_QUIZ)).last
    pressed = await player.press_letter(message, pick_letter(quiz, message, "en", correct=True))
    assert visible(t("correct", "en")) in text_of(world.fake.messages[message.id])
    assert pressed.last.embeds


async def test_reload_lists_a_bounded_number_of_problems(admins: Admins) -> None:
    for number in range(PROBLEMS_SHOWN + 20):
        (admins.quiz_dir / f"broken-{number:03d}.yaml").write_text("- 1\n", encoding="utf-8")
    report = await admins.admin.command("reload")
    shown = text_of(*report.new_messages)
    assert visible(text("reload_problems", "en", count=PROBLEMS_SHOWN + 20)) in shown
    assert shown.count("• ") == PROBLEMS_SHOWN
    assert visible(text("reload_more", "en", count=20)) in shown


async def test_stats_per_quiz_with_the_hardest_question(admins: Admins, quiz: Quiz) -> None:
    world, admin = admins.world, admins.admin
    empty = await admin.command("stats", quiz=SEED_QUIZ)
    assert visible(text("stats_no_answers", "en")) in text_of(empty.last)
    player = world.user("Alice")
    message = (await player.command("quiz", quiz=SEED_QUIZ)).last
    for number in range(8):
        letter = pick_letter(quiz, message, "en", correct=number != 2)
        message = (await player.press_letter(message, letter)).last
    report = await admin.command("stats")
    assert report.last.ephemeral
    shown = text_of(report.last)
    assert visible(text("stats_title", "en")) in shown
    assert visible(text("stats_summary", "en", attempts=1, completed=1, average="7.0/8")) in shown
    third = quiz.questions[2].text.get("en")
    hardest = text("stats_hardest", "en", number=3, percent=0, text=third)
    assert visible(hardest)[:80] in shown
    fields = [f["name"] for e in report.last.embeds for f in e.get("fields") or []]
    assert len(fields) == 3  # one per quiz
    unknown = await admin.command("stats", quiz="knitting")
    assert 'There is no quiz "knitting"' in unknown.notice


async def test_admin_help_lists_the_admin_commands(admins: Admins) -> None:
    shown = text_of((await admins.admin.command("help")).last)
    assert "\n/reload — " in shown and "\n/stats — " in shown


async def test_stats_for_many_quizzes_stay_within_limits(
    fake_discord: FakeDiscord,
    tmp_path: Path,
    storage: SQLiteStorage,
    settings: Settings,
    make_client: ClientFactory,
) -> None:
    write_quizzes(tmp_path / "many", 30)
    catalog, _ = QuizCatalog.from_paths([tmp_path / "many"])
    world = World(fake_discord, None)
    admin = world.user("Root", "ru")
    configured = dataclasses.replace(settings, admin_discord_ids=frozenset({str(admin.id)}))
    world.client = await make_client(QuizEngine(catalog, storage), settings=configured)
    report = await admin.command("stats")
    fields = [f for m in report.new_messages for e in m.embeds for f in e.get("fields") or []]
    assert len(fields) == 30  # over 25: a second embed; the fake checks every limit


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


async def charting_admins(
    fake_discord: FakeDiscord,
    tmp_path: Path,
    storage: SQLiteStorage,
    settings: Settings,
    make_client: ClientFactory,
    stats_chart: Callable[[QuizStats], bytes],
) -> Admins:
    """Like :func:`admins`, with a chart renderer for /stats."""
    quiz_dir = tmp_path / "quizzes"
    shutil.copytree(QUIZ_DIR, quiz_dir)
    catalog, _ = QuizCatalog.from_paths([quiz_dir])
    world = World(fake_discord, None)
    admin = world.user("Root")
    configured = dataclasses.replace(settings, admin_discord_ids=frozenset({str(admin.id)}))
    engine = QuizEngine(catalog, storage, clock=FakeClock())
    world.client = await make_client(engine, settings=configured, stats_chart=stats_chart)
    return Admins(world, admin, catalog, quiz_dir)


async def play_seed_quiz(world: World, quiz: Quiz) -> None:
    player = world.user("Alice")
    message = (await player.command("quiz", quiz=SEED_QUIZ)).last
    for number in range(len(quiz.questions)):
        letter = pick_letter(quiz, message, "en", correct=number != 2)
        message = (await player.press_letter(message, letter)).last


async def test_stats_for_one_quiz_attach_its_chart(
    fake_discord: FakeDiscord,
    tmp_path: Path,
    storage: SQLiteStorage,
    settings: Settings,
    make_client: ClientFactory,
    quiz: Quiz,
) -> None:
    drawn: list[str] = []

    def chart(stats: QuizStats) -> bytes:
        drawn.append(stats.quiz_id)
        return render_stats_png(stats)

    admins = await charting_admins(fake_discord, tmp_path, storage, settings, make_client, chart)
    admin = admins.admin
    empty = await admin.command("stats", quiz=SEED_QUIZ)
    assert not empty.last.attachments and drawn == []  # nothing answered: nothing to draw
    await play_seed_quiz(admins.world, quiz)

    report = await admin.command("stats", quiz=SEED_QUIZ)
    shown = report.last
    assert shown.ephemeral and len(report.new_messages) == 1
    assert visible(text("stats_summary", "en", attempts=1, completed=1, average="7.0/8")) in (
        text_of(shown)
    )
    filename = f"stats-{SEED_QUIZ}.png"
    [attachment] = shown.attachments
    assert attachment.filename == filename
    assert attachment.data.startswith(PNG_SIGNATURE)
    assert shown.embeds[-1]["image"]["url"] == f"attachment://{filename}"
    # Acknowledged before drawing (drawing blocks the event loop), then edited into place.
    assert report.response_type == DEFERRED_CHANNEL_MESSAGE
    assert drawn == [SEED_QUIZ]

    every = await admin.command("stats")  # several quizzes: the text only
    assert not every.last.attachments
    assert all("image" not in embed for embed in every.last.embeds)
    assert drawn == [SEED_QUIZ]


async def test_stats_without_a_chart_when_drawing_fails(
    fake_discord: FakeDiscord,
    tmp_path: Path,
    storage: SQLiteStorage,
    settings: Settings,
    make_client: ClientFactory,
    quiz: Quiz,
    caplog: pytest.LogCaptureFixture,
) -> None:
    def chart(stats: QuizStats) -> bytes:
        raise ChartsUnavailable("charts", "a statistics chart was asked for", "matplotlib")

    admins = await charting_admins(fake_discord, tmp_path, storage, settings, make_client, chart)
    await play_seed_quiz(admins.world, quiz)
    report = await admins.admin.command("stats", quiz=SEED_QUIZ)
    shown = report.last
    assert shown.ephemeral and not shown.attachments
    assert all("image" not in embed for embed in shown.embeds)
    assert visible(text("stats_summary", "en", attempts=1, completed=1, average="7.0/8")) in (
        text_of(shown)
    )
    assert "no stats chart for " + SEED_QUIZ in caplog.text


def test_the_fake_refuses_files_over_discords_limits(fake_discord: FakeDiscord) -> None:
    eleven = [Upload(n, f"{n}.png", PNG_SIGNATURE) for n in range(MAX_ATTACHMENTS + 1)]
    assert check_message({"content": "x"}, creating=True, files=eleven) == [
        f"{MAX_ATTACHMENTS + 1} files (limit {MAX_ATTACHMENTS})"
    ]
    missing = {"embeds": [{"image": {"url": "attachment://gone.png"}}]}
    assert check_attachments(missing, []) == [
        "embed 0 image refers to a missing attachment://gone.png"
    ]
    huge = Recorded(
        "POST", "/followup", {}, 0.0, files=[Upload(0, "a.png", bytes(MAX_UPLOAD_BYTES + 1))]
    )
    refused = fake_discord._too_large(huge)
    assert refused is not None and refused.status == 413
    assert fake_discord.violations
    fake_discord.violations.clear()  # expected here
    # One file over 10 MiB is refused too, though the request is within 25 MiB.
    heavy = Recorded(
        "POST", "/followup", {}, 0.0, files=[Upload(0, "a.png", bytes(MAX_FILE_BYTES + 1))]
    )
    assert fake_discord._too_large(heavy) is not None
    fake_discord.violations.clear()  # expected here
    parts = MAX_UPLOAD_BYTES // MAX_FILE_BYTES
    rest = MAX_UPLOAD_BYTES - parts * MAX_FILE_BYTES
    sizes = [MAX_FILE_BYTES] * parts + [rest]
    fine = Recorded(
        "POST",
        "/followup",
        {},
        0.0,
        files=[Upload(n, f"{n}.png", bytes(size)) for n, size in enumerate(sizes)],
    )
    assert fake_discord._too_large(fine) is None
