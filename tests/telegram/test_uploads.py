"""Quiz uploads through Telegram: an admin sends a document in a private chat, the bot checks
its stated size, fetches it with getFile and the file download, publishes it and says so;
/quizzes and /unpublish; an attempt started before an edit finishes on its version through
the buttons of its old messages."""

from __future__ import annotations

import dataclasses
import io
import zipfile
from pathlib import Path

import pytest

from adapters.telegram import callback_data as cb
from bot.catalog import QuizCatalog
from bot.engine import QuizEngine
from bot.storage import SQLiteStorage
from fakes.telegram_bot_api import FakeBotApi
from fakes.telegram_chatter import clean
from quizbot.bootstrap import upload_file_check
from quizbot.settings import Settings
from tests.conftest import FakeClock
from tests.library_quizzes import EDITED, FIRST, question, quiz_yaml, write_quiz
from tests.telegram.conftest import Launch, chatter

ADMIN = 8101
PLAYER = 8102


@pytest.fixture
def quiz_dir(tmp_path: Path) -> Path:
    write_quiz(tmp_path / "quizzes", FIRST)
    return tmp_path / "quizzes"


@pytest.fixture
def admin_settings(settings: Settings, quiz_dir: Path) -> Settings:
    return dataclasses.replace(
        settings, quiz_dir=quiz_dir, admin_telegram_ids=frozenset({str(ADMIN)})
    )


@pytest.fixture
async def library_engine(quiz_dir: Path, storage: SQLiteStorage) -> QuizEngine:
    """An engine as the wiring builds it: QUIZ_DIR published to the library first."""
    catalog = QuizCatalog(paths=[quiz_dir])
    engine = QuizEngine(catalog, storage, clock=FakeClock(), file_check=upload_file_check())
    await engine.library.publish_quiz_dir()
    return engine


async def test_an_admin_uploads_a_quiz_as_a_document(
    api: FakeBotApi, library_engine: QuizEngine, admin_settings: Settings, launch: Launch
) -> None:
    await launch(library_engine, admin_settings)
    admin = chatter(api, ADMIN, "Ada")
    admin.send_document("library-quiz.yaml", EDITED.encode(), mime_type="application/yaml")
    reply = await admin.message()
    assert clean(reply.text) == "Published quiz library-quiz, version 2, 2 questions."
    [get_file] = api.calls_of("getFile")
    assert api.downloads == [get_file.result["file_path"]]
    served = library_engine.catalog.get("library-quiz")
    assert served is not None and served.version == 2

    admin.send("/quizzes")
    listing = clean((await admin.message()).text)
    assert listing == (
        "Published quizzes library-quiz: version 2 · uploaded by telegram:8101 · 2 questions"
    )


async def test_an_attempt_started_on_v1_finishes_on_v1_through_its_old_buttons(
    api: FakeBotApi, library_engine: QuizEngine, admin_settings: Settings, launch: Launch
) -> None:
    await launch(library_engine, admin_settings)
    player, admin = chatter(api, PLAYER, "Pat"), chatter(api, ADMIN, "Ada")
    player.send("/quiz library-quiz")
    first = await player.question()
    assert "First?" in clean(first.text)
    player.press_button(first, "A. alpha")  # right in v1
    second = await player.question()
    assert "Second?" in clean(second.text)

    admin.send_document("library-quiz.yaml", EDITED.encode())  # q2 removed, q1 re-keyed
    assert "version 2" in clean((await admin.message()).text)

    player.press_button(second, "B. beta")  # the old message's button: q2, right in v1
    third = await player.question()
    assert "Third?" in clean(third.text)
    data = next(b["callback_data"] for b in third.buttons if clean(b["text"]) == "C. gamma")
    assert isinstance(cb.decode(data), cb.Answer)
    player.press(third, data)
    result = await player.message(lambda m: "3/3" in clean(m.text or ""))
    assert "Library quiz" in clean(result.text)


async def test_a_file_over_the_limit_is_refused_before_it_is_downloaded(
    api: FakeBotApi, library_engine: QuizEngine, admin_settings: Settings, launch: Launch
) -> None:
    await launch(library_engine, admin_settings)
    admin = chatter(api, ADMIN, "Ada")
    admin.send_document("big.zip", b"PK", declared_size=21 * 1024 * 1024)
    reply = clean((await admin.message()).text)
    assert reply == (
        'Not published ("big.zip" is 21504 KB; a .zip file may be at most 20480 KB). '
        "The live version stays."
    )
    admin.send_document("quiz.yaml", b"x" * 10, declared_size=2 * 1024 * 1024)
    assert "at most 1024 KB" in clean((await admin.message()).text)
    assert api.calls_of("getFile") == [] and api.downloads == []


async def test_telegram_refuses_a_download_over_20_mb(
    api: FakeBotApi, library_engine: QuizEngine, admin_settings: Settings, launch: Launch
) -> None:
    # A size the message under-states: the fake's getFile still enforces Telegram's limit.
    await launch(library_engine, admin_settings)
    admin = chatter(api, ADMIN, "Ada")
    api.send_document(admin.user, admin.chat, "quiz.zip", b"PK")
    file_id = next(iter(api.files))
    unique, _, data = api.files[file_id]
    api.files[file_id] = (unique, 20 * 1024 * 1024 + 1, data)  # Telegram learns the real size
    reply = clean((await admin.message()).text)
    assert reply.startswith('Not published ("quiz.zip" could not be downloaded: ')
    assert "too big" in reply and api.downloads == []


async def test_only_admins_may_upload(
    api: FakeBotApi, library_engine: QuizEngine, admin_settings: Settings, launch: Launch
) -> None:
    await launch(library_engine, admin_settings)
    player = chatter(api, PLAYER, "Pat")
    player.send_document("library-quiz.yaml", EDITED.encode())
    reply = await player.message()
    assert clean(reply.text) == "Only the bot's admins can publish quizzes."
    assert api.calls_of("getFile") == []
    served = library_engine.catalog.get("library-quiz")
    assert served is not None and served.version == 1


async def test_bad_uploads_are_refused_with_the_reason_and_the_live_version_stays(
    api: FakeBotApi, library_engine: QuizEngine, admin_settings: Settings, launch: Launch
) -> None:
    await launch(library_engine, admin_settings)
    admin = chatter(api, ADMIN, "Ada")
    admin.send_document("library-quiz.yaml", EDITED.replace("correct: b", "correct: z").encode())
    reply = clean((await admin.message()).text)
    assert reply.startswith("Nothing was published: the file has 1 problem.")
    assert 'library-quiz.yaml:5: question "q1": correct option "z"' in reply

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("../../etc/cron.d/quiz.yaml", FIRST)
    admin.send_document("evil.zip", buffer.getvalue())
    reply = clean((await admin.message()).text)
    assert "points outside the quiz's folder" in reply

    admin.send_document("notes.pdf", b"%PDF-1.4")
    assert "is not a file I can publish" in clean((await admin.message()).text)
    served = library_engine.catalog.get("library-quiz")
    assert served is not None and served.version == 1


async def test_a_long_list_of_problems_comes_as_a_file(
    api: FakeBotApi, library_engine: QuizEngine, admin_settings: Settings, launch: Launch
) -> None:
    await launch(library_engine, admin_settings)
    admin = chatter(api, ADMIN, "Ada")
    broken = quiz_yaml("Broken", *(question(f"q{n}", "z", f"Number {n}?") for n in range(25)))
    admin.send_document("library-quiz.yaml", broken.encode())
    reply = clean((await admin.message()).text)
    assert "The full list is in the attached file." in reply
    call = await api.wait_for("sendDocument", lambda c: True)
    name, data = api.documents[-1]
    assert name == "problems.txt"
    lines = data.decode().splitlines()
    assert len(lines) == 25 and all(line.startswith("library-quiz.yaml:") for line in lines)
    assert call.ok


async def test_unpublish_hides_a_quiz_for_new_players(
    api: FakeBotApi, library_engine: QuizEngine, admin_settings: Settings, launch: Launch
) -> None:
    await launch(library_engine, admin_settings)
    admin, player = chatter(api, ADMIN, "Ada"), chatter(api, PLAYER, "Pat")
    admin.send("/unpublish")
    assert clean((await admin.message()).text).startswith("Name the quiz to unpublish")
    admin.send("/unpublish library-quiz")
    assert clean((await admin.message()).text).startswith("Quiz library-quiz is unpublished")
    admin.send("/unpublish library-quiz")
    assert "No published quiz is called" in clean((await admin.message()).text)
    admin.send("/quizzes")
    assert clean((await admin.message()).text) == "No quiz is published."
    player.send("/quiz library-quiz")
    assert clean((await player.message()).text) == "No quizzes are available right now."
    player.send("/unpublish library-quiz")  # not an admin: an unknown command
    assert "/help" in clean((await player.message()).text)
