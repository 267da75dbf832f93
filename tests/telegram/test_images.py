"""Questions with images on Telegram, end to end through python-telegram-bot and the fake Bot
API: a photo with the question as its caption and the buttons on it, uploaded once per bot
(across a restart too), a long question as the photo then the text, a quiz poll after its
photo, and code in a caption formatted and counted as Telegram counts it."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.catalog import QuizCatalog
from bot.engine import Clock, QuizEngine
from bot.storage import SQLiteStorage
from fakes.clock import ManualClock
from fakes.telegram_bot_api import BOT_ID, FakeBotApi, StoredMessage
from fakes.telegram_chatter import Chatter, button_for, clean, shown
from tests.conftest import FakeClock
from tests.images import LONG_QUESTION, PICTURES, engine_serving, picture, write_picture_quiz
from tests.telegram.conftest import Launch, chatter, stop_process
from tests.telegram.rounds_harness import (
    GROUP_ID,
    TIMING,
    Room,
    advance,
    member,
    on_the_clock,
    settle,
)


@pytest.fixture
async def storages(tmp_path: Path):
    """Opens storages on the test's database (each a process's); all closed at the end."""
    opened: list[SQLiteStorage] = []

    async def open_one(name: str = "bot.db") -> SQLiteStorage:
        storage = SQLiteStorage(tmp_path / name)
        await storage.open()
        opened.append(storage)
        return storage

    yield open_one
    for storage in opened:
        await storage.close()


@pytest.fixture
def engines(tmp_path: Path, storages):
    """Engines serving the picture quiz from the test's folder, each a process that stored
    its images at start-up, as quizbot/bootstrap.py does."""

    async def make(*, native_polls: bool = False, clock: Clock | None = None) -> QuizEngine:
        folder = tmp_path / "quizzes"
        if not (folder / f"{PICTURES}.yaml").exists():
            write_picture_quiz(folder, native_polls=native_polls)
        return await engine_serving(folder, await storages(), clock or FakeClock())

    return make


def photo_sends(api: FakeBotApi, after: int = 0) -> list[StoredMessage]:
    return [api.message_of(c) for c in api.calls_of("sendPhoto", after=after)]


async def answer(me: Chatter, message: StoredMessage, quiz_engine: QuizEngine) -> None:
    quiz = quiz_engine.catalog.get(PICTURES)
    assert quiz is not None
    me.press(message, button_for(message, quiz, "en", correct=True))


async def test_image_questions_are_photos_uploaded_once_per_bot_across_a_restart(
    api: FakeBotApi, launch: Launch, engines, storages
) -> None:
    engine = await engines()
    first = await launch(engine)
    me = chatter(api, 4001, "Ada")
    me.send(f"/quiz {PICTURES}")

    # 1: the diagram, uploaded, with the question as its caption and the buttons on it.
    diagram = await me.question()
    assert diagram.photo is not None and "What does the index file list?" in clean(diagram.caption)
    assert len(diagram.buttons) == 2 and len(api.photos) == 1
    await answer(me, diagram, engine)
    edit = await me.edit_of(diagram, me.mark)
    assert edit.method == "editMessageCaption"
    answered = api.messages[(diagram.chat_id, diagram.message_id)]
    assert "It maps every tensor name to its shard file." in clean(answered.caption)
    assert answered.buttons == [] and answered.photo == diagram.photo  # the picture stays

    # 2: too long for a caption: the photo (uploaded: another image), then the text.
    long = await me.question()
    assert long.photo is None and clean(LONG_QUESTION) in clean(long.text)
    [wide] = photo_sends(api, after=edit.index)
    assert wide.caption is None and wide.message_id == long.message_id - 1
    assert len(api.photos) == 2
    await answer(me, long, engine)

    # 3: the diagram again, sent by its file_id: nothing uploaded.
    code = await me.question()
    assert code.photo is not None and len(api.photos) == 2
    await answer(me, code, engine)
    await me.message(lambda m: "Pictures" in clean(m.text))  # the result

    # A restarted process (a new engine and bot on the same database) uploads nothing.
    await stop_process(first)
    again = await engines()
    await launch(again)
    other = chatter(api, 4002, "Bo")
    other.send(f"/quiz {PICTURES}")
    for _ in range(3):
        question = await other.question()
        await answer(other, question, again)
    assert len(api.photos) == 2
    assert len(photo_sends(api)) == 6
    assert api.failed_calls() == []
    database = await storages()
    stored = await database.image_upload(f"telegram:{BOT_ID}", diagram_sha(again))
    assert stored == diagram.photo[-1]["file_id"]


def diagram_sha(engine: QuizEngine) -> str:
    quiz = engine.catalog.get(PICTURES)
    assert quiz is not None and quiz.questions[0].image is not None
    return quiz.questions[0].image.sha256


async def test_code_in_a_caption_is_formatted_and_counted_after_entities(
    api: FakeBotApi, launch: Launch, engines
) -> None:
    engine = await engines()
    await launch(engine)
    me = chatter(api, 4003, "Cy")
    me.send(f"/quiz {PICTURES}")
    for _ in range(2):
        await answer(me, await me.question(), engine)
    code = await me.question()
    caption = code.caption or ""
    assert "What does load(index) return for this layout? Use <b> & co:" in caption
    assert 'shards = [s for s in index if s.endswith(".bin")]' in caption
    kinds = {(e["type"], e.get("language")) for e in code.caption_entities}
    assert {("code", None), ("pre", "python"), ("bold", None)} <= kinds
    # Its buttons show the options' code plain.
    assert [clean(b["text"]) for b in code.buttons] == ["A. dict of tensors", "B. None"]


async def test_an_answer_too_long_for_the_caption_follows_the_photo(
    api: FakeBotApi, launch: Launch, engines, tmp_path: Path
) -> None:
    folder = tmp_path / "quizzes"
    write_picture_quiz(folder)
    quiz_file = folder / f"{PICTURES}.yaml"
    long_explanation = "Every tensor name maps to the shard file that holds it. " * 20
    quiz_file.write_text(
        quiz_file.read_text(encoding="utf-8").replace(
            "It maps every tensor name to its shard file.", long_explanation.strip()
        ),
        encoding="utf-8",
    )
    engine = await engines()
    await launch(engine)
    me = chatter(api, 4004, "Di")
    me.send(f"/quiz {PICTURES}")
    diagram = await me.question()
    await answer(me, diagram, engine)
    feedback = await me.message(lambda m: "shard file that holds it" in clean(m.text))
    assert "What does the index file list?" not in clean(feedback.text)  # the photo shows it
    photo = api.messages[(diagram.chat_id, diagram.message_id)]
    assert photo.buttons == [] and photo.caption == diagram.caption
    assert api.failed_calls() == []


async def test_a_quiz_poll_with_an_image_comes_after_its_photo(
    api: FakeBotApi, launch: Launch, engines
) -> None:
    engine = await engines(native_polls=True)
    await launch(engine)
    me = chatter(api, 4005, "Ed")
    me.send(f"/quiz {PICTURES}")
    poll = await me.question()
    assert poll.poll is not None and "What does the index file list?" in poll.poll["question"]
    [photo] = photo_sends(api)
    assert photo.message_id == poll.message_id - 1 and photo.caption is None
    assert api.failed_calls() == []


async def test_a_question_is_sent_without_its_image_when_the_bytes_are_gone(
    api: FakeBotApi, launch: Launch, storages, tmp_path: Path
) -> None:
    # Nothing was stored and the file was removed: the question still goes, as text.
    folder = tmp_path / "quizzes"
    write_picture_quiz(folder)
    catalog, _ = QuizCatalog.from_paths([folder])
    (folder / "images" / "diagram.png").unlink()
    await launch(QuizEngine(catalog, await storages("bare.db"), clock=FakeClock()))
    me = chatter(api, 4006, "Flo")
    me.send(f"/quiz {PICTURES}")
    question = await me.question()
    assert question.photo is None and "What does the index file list?" in shown(question)
    assert api.calls_of("sendPhoto", ok=None) == []


async def test_two_players_at_once_get_one_upload_of_the_same_image(
    api: FakeBotApi, launch: Launch, engines
) -> None:
    api.delays["sendPhoto"] = 0.2  # the first upload is still under way when the second asks
    await launch(await engines())
    players = [chatter(api, 4010 + n, f"P{n}") for n in range(3)]
    for player in players:
        player.send(f"/quiz {PICTURES}")
    for player in players:
        question = await player.question()
        assert question.photo is not None
    assert len(api.photos) == 1 and len(photo_sends(api)) == 3


async def test_a_round_shows_each_image_once_and_edits_only_its_countdown(
    api: FakeBotApi, launch: Launch, engines, clock: ManualClock
) -> None:
    on_the_clock(api, clock)
    engine = await engines(clock=clock)
    adapter = await launch(engine, round_timing=TIMING, clock=clock)
    group = api.group_chat(GROUP_ID, "Study group")
    room = Room(api)
    player = Chatter(api, member(api, 1, "Ann"), group)
    player.send(f"/quiz group {PICTURES} 20")
    await room.notice()
    await settle(adapter)
    live, _ = await room.question()
    [photo] = [m for m in photo_sends(api) if m.chat_id == GROUP_ID]
    # The photo carries the question; the countdown and the buttons are a message below it.
    assert "What does the index file list?" in clean(photo.caption) and photo.buttons == []
    assert live.message_id == photo.message_id + 1
    assert "What does the index file list?" not in clean(live.text)
    assert clean(live.text).startswith("👥 Question 1/3") and len(live.buttons) == 2
    for _ in range(3):  # the countdown ticks: its message is edited, the photo never again
        await advance(adapter, clock, 6)
    edits = [c for c in api.calls_of("editMessageText") if int(c.params["chat_id"]) == GROUP_ID]
    assert edits and {int(c.params["message_id"]) for c in edits} == {live.message_id}
    assert len(photo_sends(api)) == 1 and api.calls_of("editMessageCaption") == []
    player.press(live, live.buttons[0]["callback_data"])
    await advance(adapter, clock, 20)  # revealed, then the pause before question 2
    await advance(adapter, clock, TIMING.pause)
    second, _ = await room.question()
    wide = photo_sends(api)[-1]
    # Too long for a caption: the photo, the question as text, then the countdown.
    assert wide.caption is None and clean(LONG_QUESTION) in clean(
        api.messages[(GROUP_ID, wide.message_id + 1)].text
    )
    assert second.message_id == wide.message_id + 2 and len(api.photos) == 2
    assert api.failed_calls() == []


async def test_a_file_id_telegram_no_longer_knows_is_replaced_by_a_new_upload(
    api: FakeBotApi, launch: Launch, engines, storages
) -> None:
    engine = await engines()
    database = await storages()
    where, sha = f"telegram:{BOT_ID}", diagram_sha(engine)
    await database.remember_image_upload(where, sha, "AgACfrom-another-life")
    await launch(engine)
    me = chatter(api, 4020, "Gus")
    me.send(f"/quiz {PICTURES}")
    question = await me.question()
    assert question.photo is not None and len(api.photos) == 1
    [refused] = api.failed_calls()
    assert refused.params["photo"] == "AgACfrom-another-life"
    await me.barrier()  # the bot is done with the command (and keeping the new file_id)
    assert await database.image_upload(where, sha) == question.photo[-1]["file_id"]


async def test_a_typed_question_with_an_image_asks_for_the_reply_after_its_photo(
    api: FakeBotApi, launch: Launch, storages, tmp_path: Path
) -> None:
    folder = tmp_path / "quizzes"
    folder.mkdir()
    (folder / "map.png").write_bytes(picture(100, 100))
    (folder / "capitals.yaml").write_text(
        "title: Capitals\nquestions:\n  - id: fr\n    kind: typed\n    image: map.png\n"
        "    text: Which city is marked?\n    answers: [Paris]\n",
        encoding="utf-8",
    )
    catalog, report = QuizCatalog.from_paths([folder])
    assert report.errors == []
    await launch(QuizEngine(catalog, await storages(), clock=FakeClock()))
    me = chatter(api, 4021, "Hal")
    me.send("/quiz capitals")
    asked = await me.message(lambda m: "Which city is marked?" in clean(m.text))
    [photo] = photo_sends(api)
    assert photo.message_id == asked.message_id - 1
    me.send("paris")
    assert "Correct" in clean((await me.message()).text)


async def test_the_caption_limit_is_measured_after_entities_not_on_the_html(
    api: FakeBotApi, launch: Launch, storages, tmp_path: Path
) -> None:
    # 700 "<" in code: 700 characters for Telegram, 2,800 of HTML (&lt;) plus the tags.
    folder = tmp_path / "quizzes"
    folder.mkdir()
    (folder / "d.png").write_bytes(picture())
    fits, over = "`" + "<" * 700 + "`", "`" + "<" * 1100 + "`"
    (folder / "lt.yaml").write_text(
        "title: Less than\nshuffle: false\nquestions:\n"
        + "".join(
            f"  - id: q{n}\n    image: d.png\n    text: '{text}'\n"
            "    options: [{id: a, text: Right}, {id: b, text: Wrong}]\n"
            "    correct: a\n    explanation: Because.\n"
            for n, text in enumerate((fits, over))
        ),
        encoding="utf-8",
    )
    catalog, report = QuizCatalog.from_paths([folder])
    assert report.errors == []
    await launch(QuizEngine(catalog, await storages(), clock=FakeClock()))
    me = chatter(api, 4030, "Ivy")
    me.send("/quiz lt")
    first = await me.question()
    assert first.photo is not None and "<" * 700 in (first.caption or "")
    assert len(api.message_of(api.calls_of("sendPhoto")[-1]).caption or "") <= 1024
    me.press(first, first.buttons[0]["callback_data"])
    second = await me.question()
    assert second.photo is None and "<" * 1100 in (second.text or "")
    assert photo_sends(api)[-1].caption is None  # the photo went first, alone
    assert api.failed_calls() == []
