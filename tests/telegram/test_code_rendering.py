"""Code in quiz texts on Telegram end to end: real python-telegram-bot against the fake Bot API,
which parses the HTML as Telegram does and refuses what Telegram would not parse."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.engine import QuizEngine
from bot.storage import SQLiteStorage
from fakes.telegram_bot_api import FakeBotApi, StoredMessage
from fakes.telegram_chatter import Chatter, clean
from tests.code_quiz import CODE_QUIZ, LONG_CODE, SNIPPET, code_catalog
from tests.conftest import FakeClock
from tests.telegram.conftest import Launch


def entity_texts(message: StoredMessage, kind: str) -> list[tuple[str, str | None]]:
    units = (message.text or "").encode("utf-16-le")
    found = []
    for entity in message.entities:
        if entity["type"] == kind:
            start, end = 2 * entity["offset"], 2 * (entity["offset"] + entity["length"])
            found.append((units[start:end].decode("utf-16-le"), entity.get("language")))
    return found


@pytest.mark.parametrize("language", ["en", "ur"])
async def test_code_is_shown_as_code_and_buttons_plain(
    api: FakeBotApi, storage: SQLiteStorage, tmp_path: Path, launch: Launch, language: str
) -> None:
    engine = QuizEngine(code_catalog(tmp_path / "quizzes"), storage, clock=FakeClock())
    await launch(engine)
    user = api.user(2001, "Coder", language_code=language)
    me = Chatter(api, user, api.private_chat(user))
    me.send(f"/quiz {CODE_QUIZ}")

    first = await me.question()
    assert ('len("<a&b>")', None) in entity_texts(first, "code")
    labels = [clean(b["text"]) for b in first.buttons]
    assert labels == ["A. 5", "B. `7`", "C. __init__ *"]  # no markup, the code's own ` kept
    me.press(first, first.buttons[0]["callback_data"])

    second = await me.question()
    # The block exactly as written: indentation, blank line, < & ` and no direction marks.
    assert entity_texts(second, "pre") == [(SNIPPET, "python")]
    me.press(second, second.buttons[0]["callback_data"])
    await me.edit_of(second, me.mark)
    # The explanation's code is longer than a message: cut between lines, each part a block
    # of its own with the language, together the code exactly.
    parts = [api.messages[(second.chat_id, second.message_id)]]
    while True:
        message = await me.message()
        if message.buttons:
            third = message
            break
        parts.append(message)
    blocks = [text for part in parts for text, lang in entity_texts(part, "pre") if lang == "py"]
    assert len(blocks) >= 3
    assert "\n".join(blocks) == LONG_CODE

    # Options that are code blocks are listed in the message (as blocks), buttons get letters.
    assert [clean(b["text"]) for b in third.buttons] == ["A", "B"]
    codes = [text for text, _ in entity_texts(third, "pre")]
    assert codes == ["print('<tag>')", "print(<tag>)"]
    assert api.failed_calls() == []
