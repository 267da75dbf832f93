"""Quiz uploads through Discord: ``/upload`` with an attachment option and a file sent to the
bot in a DM, read from the fake's CDN after their stated size was checked, published through
the library; /quizzes and /unpublish; a long list of problems comes back as a file."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from bot.catalog import QuizCatalog
from bot.engine import QuizEngine
from bot.storage import SQLiteStorage
from fakes.discord_api import FakeDiscord
from fakes.discord_users import ClientFactory, Player, World, text_of, visible
from quizbot.bootstrap import upload_file_check
from quizbot.settings import Settings
from tests.conftest import FakeClock
from tests.library_quizzes import EDITED, FIRST, question, quiz_yaml, write_quiz


@dataclasses.dataclass
class Admins:
    world: World
    admin: Player
    engine: QuizEngine


@pytest.fixture
async def admins(
    fake_discord: FakeDiscord,
    tmp_path: Path,
    storage: SQLiteStorage,
    settings: Settings,
    make_client: ClientFactory,
) -> Admins:
    """A bot whose QUIZ_DIR (one quiz) was published to the library, with one bot admin."""
    quiz_dir = write_quiz(tmp_path / "quizzes", FIRST).parent
    engine = QuizEngine(
        QuizCatalog(paths=[quiz_dir]), storage, clock=FakeClock(), file_check=upload_file_check()
    )
    await engine.library.publish_quiz_dir()
    world = World(fake_discord, None)
    admin = world.user("Root", dm=True)
    configured = dataclasses.replace(settings, admin_discord_ids=frozenset({str(admin.id)}))
    world.client = await make_client(engine, settings=configured)
    return Admins(world, admin, engine)


def served_version(engine: QuizEngine) -> int | None:
    quiz = engine.catalog.get("library-quiz")
    return None if quiz is None else quiz.version


async def test_upload_with_an_attachment_option_publishes_the_next_version(admins: Admins):
    exchange = await admins.admin.upload("library-quiz.yaml", EDITED.encode())
    assert visible(exchange.last.content) == "Published quiz library-quiz, version 2, 2 questions."
    assert admins.world.fake.file_reads  # read from the CDN
    assert served_version(admins.engine) == 2
    listing = await admins.admin.command("quizzes")
    assert visible(listing.last.content) == (
        "Published quizzes\n"
        f"library-quiz: version 2 · uploaded by discord:{admins.admin.id} · 2 questions"
    )


async def test_a_file_sent_in_a_dm_is_an_upload(admins: Admins) -> None:
    replies = await admins.admin.send_dm("", [("library-quiz.yaml", EDITED.encode())])
    assert [visible(m.content) for m in replies] == [
        "Published quiz library-quiz, version 2, 2 questions."
    ]
    assert served_version(admins.engine) == 2
    someone = admins.world.user("Eve", dm=True)
    refused = await someone.send_dm("", [("library-quiz.yaml", FIRST.encode())])
    assert [visible(m.content) for m in refused] == ["Only the bot's admins can publish quizzes."]
    assert served_version(admins.engine) == 2


async def test_the_size_discord_states_is_checked_before_reading(admins: Admins) -> None:
    fake = admins.world.fake
    exchange = await admins.admin.upload(
        "library-quiz.yaml", b"title: x", declared_size=3 * 1024 * 1024
    )
    assert "at most 1024 KB" in visible(exchange.last.content)
    assert fake.file_reads == []
    assert served_version(admins.engine) == 1


async def test_bad_uploads_are_refused_with_the_reason(admins: Admins) -> None:
    broken = EDITED.replace("correct: b", "correct: z").encode()
    exchange = await admins.admin.upload("library-quiz.yaml", broken)
    shown = visible(exchange.last.content)
    assert shown.startswith("Nothing was published: the file has 1 problem.")
    assert 'library-quiz.yaml:5: question "q1": correct option "z"' in shown
    wrong = await admins.admin.upload("quiz.docx", b"PK\x03\x04")
    assert "is not a file I can publish" in visible(wrong.last.content)
    assert served_version(admins.engine) == 1


async def test_a_long_list_of_problems_is_attached_as_a_file(admins: Admins) -> None:
    broken = quiz_yaml("Broken", *(question(f"q{n}", "z", f"Number {n}?") for n in range(25)))
    replies = await admins.admin.send_dm("", [("library-quiz.yaml", broken.encode())])
    [reply] = replies
    assert "The full list is in the attached file." in visible(reply.content)
    [attached] = reply.attachments
    assert attached.filename == "problems.txt"
    assert len(attached.data.decode().splitlines()) == 25


async def test_a_format_named_by_the_option_or_caption(admins: Admins) -> None:
    aiken = b"Which?\nA. This\nB. That\nANSWER: A\n"
    exchange = await admins.admin.upload("questions.dat", aiken, "aiken")
    assert visible(exchange.last.content).startswith("Published quiz questions, version 1")
    replies = await admins.admin.send_dm("aiken", [("more.dat", aiken)])
    assert visible(replies[0].content).startswith("Published quiz more, version 1")


async def test_unpublish_hides_the_quiz(admins: Admins) -> None:
    done = await admins.admin.command("unpublish", quiz="library-quiz")
    assert done.notice.startswith("Quiz library-quiz is unpublished")
    again = await admins.admin.command("unpublish", quiz="library-quiz")
    assert "No published quiz is called" in again.notice
    assert served_version(admins.engine) is None
    player = admins.world.user("Alice", dm=True)
    assert "library-quiz" not in text_of((await player.command("quiz")).last)
