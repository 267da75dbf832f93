"""The user's side of the tests: send commands, read what the bot showed, press its buttons.

Answers are chosen the way a person would: read the question message, find the option whose
text is the right (or a wrong) answer according to the quiz file, press its button.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from bot import markup
from bot.quiz import Question, Quiz
from bot.text_direction import strip_controls
from fakes.telegram_bot_api import ApiCall, FakeBotApi, StoredMessage

OPTION_LINE = re.compile(r"([A-J])\. (.+)")


def clean(text: str | None) -> str:
    """Text without direction controls, whitespace collapsed: what to compare."""
    return " ".join(strip_controls(text or "").split())


def shown(message: StoredMessage) -> str:
    """What a message shows in words: its text, or a photo's caption."""
    return message.text or message.caption or ""


def is_question(message: StoredMessage) -> bool:
    return message.poll is not None or any(
        str(b.get("callback_data", "")).startswith("v1:a:") for b in message.buttons
    )


class Chatter:
    """One user in one chat."""

    def __init__(self, api: FakeBotApi, user: dict[str, Any], chat: dict[str, Any]) -> None:
        self.api = api
        self.user = user
        self.chat = chat
        self.mark = len(api.calls)  # replies are looked for from here on

    @property
    def chat_id(self) -> int:
        return int(self.chat["id"])

    def send(self, text: str) -> None:
        self.mark = len(self.api.calls)
        self.api.send_text(self.user, self.chat, text)

    def send_document(self, file_name: str, data: bytes, **options: Any) -> None:
        """Send a file (``caption``, ``declared_size``: see FakeBotApi.document_update)."""
        self.mark = len(self.api.calls)
        self.api.send_document(self.user, self.chat, file_name, data, **options)

    def press(self, message: StoredMessage, data: str) -> str:
        self.mark = len(self.api.calls)
        return self.api.press(self.user, message, data)

    def press_button(self, message: StoredMessage, label: str) -> str:
        """Press the button whose text is ``label`` (direction controls ignored)."""
        for button in message.buttons:
            if clean(button["text"]) == clean(label):
                return self.press(message, button["callback_data"])
        raise AssertionError(f"no button {label!r} in {[b['text'] for b in message.buttons]}")

    async def toast(self, query_id: str) -> str:
        call = await self.api.wait_for(
            "answerCallbackQuery", lambda c: c.params.get("callback_query_id") == query_id
        )
        return clean(call.params.get("text"))

    def _mine(self, call: ApiCall) -> bool:
        return int(call.params.get("chat_id", 0)) == self.chat_id

    async def message(self, predicate: Any = None, within: float = 5.0) -> StoredMessage:
        """The next message the bot sends to this chat (matching ``predicate``)."""
        call = await self.api.wait_for(
            "sendMessage",
            lambda c: self._mine(c) and (predicate is None or predicate(self.api.message_of(c))),
            after=self.mark,
            within=within,
        )
        self.mark = call.index + 1
        return copy.deepcopy(self.api.message_of(call))  # as the user saw it then

    async def question(self, within: float = 5.0) -> StoredMessage:
        """The next question: a message (or a photo) with answer buttons, or a quiz poll."""
        call = await self.api.wait_for(
            ("sendMessage", "sendPoll", "sendPhoto"),
            lambda c: self._mine(c) and is_question(self.api.message_of(c)),
            after=self.mark,
            within=within,
        )
        self.mark = call.index + 1
        return copy.deepcopy(self.api.message_of(call))  # as the user saw it then

    async def edit_of(self, message: StoredMessage, after: int) -> ApiCall:
        """The next edit of ``message``'s text, or of its caption when it is a photo."""
        return await self.api.wait_for(
            ("editMessageText", "editMessageCaption"),
            lambda c: self._mine(c) and int(c.params["message_id"]) == message.message_id,
            after=after,
        )

    async def barrier(self) -> None:
        """Wait until the bot has handled everything sent before (it handles updates in order):
        a junk press is answered only after them."""
        anchor = next(
            m for m in reversed(list(self.api.messages.values())) if m.chat_id == self.chat_id
        )
        mark = self.mark
        query = self.api.press(self.user, anchor, "barrier")
        await self.toast(query)
        self.mark = mark

    def sent_since(self, mark: int) -> list[ApiCall]:
        """Messages sent or changed in this chat since call index ``mark``."""
        methods = {
            "sendMessage",
            "sendPoll",
            "sendPhoto",
            "editMessageText",
            "editMessageCaption",
            "editMessageReplyMarkup",
        }
        return [c for c in self.api.calls[mark:] if c.ok and c.method in methods and self._mine(c)]


def is_round_question(message: StoredMessage) -> bool:
    return any(str(b.get("callback_data", "")).startswith("v1:g:") for b in message.buttons)


def find_question(quiz: Quiz, language: str, shown: str) -> Question:
    """The question of ``quiz`` whose text ``shown`` shows (its code formatted or plain)."""
    text = clean(shown)
    matches = [
        q
        for q in quiz.questions
        if clean(q.text.get(language)) in text or clean(markup.plain(q.text.get(language))) in text
    ]
    assert len(matches) == 1, f"cannot tell the question in {text[:200]!r}"
    return matches[0]


def chosen_option(question: Question, correct: bool) -> str:
    if correct:
        return question.correct_option_id
    return next(o.id for o in question.options if o.id != question.correct_option_id)


def option_text(question: Question, option_id: str, language: str) -> str:
    """The option as Telegram shows it: its code plain, as a button or an entity shows it."""
    option = question.option(option_id)
    assert option is not None
    return clean(markup.plain(option.text.get(language)))


def button_for(message: StoredMessage, quiz: Quiz, language: str, correct: bool) -> str:
    """The callback_data of the button a reader would press for a right or wrong answer."""
    question = find_question(quiz, language, shown(message))
    wanted = option_text(question, chosen_option(question, correct), language)
    for button in message.buttons:  # buttons that carry the option text: "A. text"
        label = clean(button["text"])
        if OPTION_LINE.fullmatch(label) and label.split(". ", 1)[1] == wanted:
            return str(button["callback_data"])
    for line in shown(message).split("\n"):  # options listed, buttons carry letters
        match = OPTION_LINE.fullmatch(clean(line))
        if match and match.group(2) == wanted:
            letter = match.group(1)
            return next(str(b["callback_data"]) for b in message.buttons if b["text"] == letter)
    raise AssertionError(f"option {wanted!r} is not shown in {shown(message)!r}")


def poll_choice(message: StoredMessage, quiz: Quiz, language: str, correct: bool) -> int:
    """The index of the poll option a reader would vote for."""
    assert message.poll is not None
    question = find_question(quiz, language, message.poll["question"])
    wanted = option_text(question, chosen_option(question, correct), language)
    texts = [clean(o["text"]) for o in message.poll["options"]]
    return texts.index(wanted)
