"""Code in quiz texts on Discord: discord.py against the fake Discord, which checks every limit
(2,000 content, 4,096 description, 1,024 field, 6,000 per message) on what is sent."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.engine import QuizEngine
from bot.storage import SQLiteStorage
from bot.text_direction import strip_controls
from fakes.discord_api import FakeDiscord, Message
from fakes.discord_users import ClientFactory, World, button_for, buttons
from tests.code_quiz import CODE_QUIZ, LONG_CODE, SNIPPET, code_catalog
from tests.conftest import FakeClock


def markdown(*messages: Message) -> str:
    parts = []
    for message in messages:
        for embed in message.embeds:
            parts.append(embed.get("description") or "")
            parts += [item["value"] for item in embed.get("fields") or []]
    return "\n".join(parts)


def blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)\n```", text, re.S)


@pytest.mark.parametrize("locale", ["en-US", "ur"])
async def test_code_as_markdown_blocks_closed_across_fields_and_plain_labels(
    fake_discord: FakeDiscord,
    storage: SQLiteStorage,
    make_client: ClientFactory,
    tmp_path: Path,
    locale: str,
) -> None:
    engine = QuizEngine(code_catalog(tmp_path / "quizzes"), storage, clock=FakeClock())
    world = World(fake_discord, await make_client(engine))
    player = world.user("Coder", locale)
    first = (await player.command("quiz", quiz=CODE_QUIZ)).last
    assert '`len("<a&b>")`' in markdown(first)
    labels = [strip_controls(b["label"]) for b in buttons(first)]
    assert labels == ["A. 5", "B. `7`", "C. __init__ *"]  # no markup, the code's own ` kept

    second = (await player.press(first, button_for(first, "A")["custom_id"])).last
    assert blocks(markdown(second), "python") == [SNIPPET]  # exact: no marks, no escapes
    exchange = await player.press(second, button_for(second, "A")["custom_id"])
    shown = markdown(fake_discord.messages[second.id], *exchange.new_messages[:-1])
    # The explanation's block is longer than a field: each part a closed block of its own.
    parts = blocks(shown, "py")
    assert len(parts) >= 3 and "\n".join(parts) == LONG_CODE
    assert fake_discord.violations == []
