"""Sending and editing messages within Telegram's limits.

A long text is split into several messages (the keyboard goes on the last); an edit that would
change nothing is not sent (Telegram refuses it), and a message that can no longer be edited is
sent anew. One-shot menus lose their keyboard once pressed, so a second press cannot act twice.
Questions go out as buttons or, where the chat or quiz asks for it, as native quiz polls.

A question with an image (:mod:`adapters.telegram.photos`) is a photo with the question as its
caption and the buttons on it; a question too long for a caption (1024 characters) is the
photo, then the text with the buttons. Before a quiz poll or a typed question, the photo goes
alone. After an answer, a caption is edited like a text: the answer in the caption when it
fits, else the buttons come off the photo and the answer follows as a message.

An explanation with an image (``explanation_image``) is a photo too: after an answer the
question only loses its buttons, and the feedback follows as the caption of the explanation's
photo (when it fits a caption; else the photo, then the feedback as text).
"""

from __future__ import annotations

import logging
import warnings
from collections import OrderedDict
from dataclasses import dataclass
from typing import Literal, cast

from telegram import (
    CallbackQuery,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Message,
    Poll,
    ReplyParameters,
)
from telegram.constants import ParseMode
from telegram.error import BadRequest
from telegram.warnings import PTBUserWarning

from adapters.telegram.photos import Photos, caption_fits
from adapters.telegram.polls import POLL_SCOPE, PollLink, plan_poll
from adapters.telegram.rendering import (
    answered_question,
    feedback_message,
    plain_text,
    question_message,
    result_message,
    split_html,
)
from adapters.telegram.shared import NO_PREVIEW, Context
from adapters.telegram.typed_answers import send_typed_question
from bot.engine import QuizEngine
from bot.views import AnswerFeedback, ImageView, QuestionView

log = logging.getLogger("quizbot.telegram")

CHAT_MODE_SCOPE = "telegram:chat-mode"  # chat id -> "poll" | "buttons"
REMEMBERED_MESSAGES = 4096

# send() and edit() call these methods through do_api_request on purpose (the raw result, not
# a Message object); PTB would warn on every call that a named method exists.
warnings.filterwarnings(
    "ignore",
    message=r"Please use 'Bot\.(sendMessage|editMessageText|editMessageCaption)' instead",
    category=PTBUserWarning,
)
_OptionIndex = Literal[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]  # what PTB's send_poll types accept


# A keyboard as plain tuples: what makes two buttons equal for python-telegram-bot.
_Button = tuple[object, ...]
_Keyboard = tuple[tuple[_Button, ...], ...]


@dataclass(frozen=True)
class _Shown:
    """What a message this process sent or edited currently shows.

    The keyboard is kept as plain tuples, not python-telegram-bot's objects: thousands of
    messages are remembered, and a tuple of strings is one object the cyclic collector soon
    stops tracking, where a keyboard's objects are about fifteen it scans in every full
    collection (under a burst of presses, a fifth of the bot's work was the collector).
    """

    text: str
    keyboard: _Keyboard | None

    @classmethod
    def of(cls, text: str, markup: InlineKeyboardMarkup | None) -> _Shown:
        if markup is None:
            return cls(text, None)
        return cls(text, tuple(tuple(map(_button, row)) for row in markup.inline_keyboard))


def _button(button: InlineKeyboardButton) -> _Button:
    """The fields python-telegram-bot compares buttons by (``InlineKeyboardButton``'s
    documented equality), as a tuple."""
    return (
        button.text,
        button.url,
        button.login_url,
        button.callback_data,
        button.web_app,
        button.switch_inline_query,
        button.switch_inline_query_current_chat,
        button.callback_game,
        button.pay,
    )


@dataclass(frozen=True, slots=True)
class MessageRef:
    """One of the bot's messages as an edit needs it: where it is, whether it is a photo, and
    what it showed when it was pressed (see :meth:`Messenger.ref`).

    A press's follow-ups keep this instead of python-telegram-bot's Message, a dozen objects
    that would stay alive, and be scanned by the cyclic collector, for as long as the
    follow-ups wait for the rate limiter: seconds, for hundreds of presses at once.
    """

    chat_id: int
    message_id: int
    photo: bool
    shown: _Shown


class Messenger:
    """Sends, edits and closes the bot's messages; remembers what recent ones show."""

    def __init__(self, engine: QuizEngine) -> None:
        self.engine = engine
        # Only to avoid "message is not modified" on quick repeated presses; presses are
        # understood without it (after a restart it is empty and the press's own copy of the
        # message is used instead).
        self.shown: OrderedDict[tuple[int, int], _Shown] = OrderedDict()
        self.photos = Photos(engine.images)

    def remember(self, chat_id: int, message_id: int, shown: _Shown) -> None:
        key = (chat_id, message_id)
        self.shown[key] = shown
        self.shown.move_to_end(key)
        while len(self.shown) > REMEMBERED_MESSAGES:
            self.shown.popitem(last=False)

    def ref(self, message: Message) -> MessageRef:
        """What an edit of ``message`` needs, without python-telegram-bot's objects."""
        key = (message.chat.id, message.message_id)
        shown = self.shown.get(key)
        if shown is None:  # not remembered (sent before a restart): the press's copy says
            shown = _Shown.of(message.text or message.caption or "", message.reply_markup)
        return MessageRef(key[0], key[1], bool(message.photo), shown)

    def current(self, message: MessageRef) -> _Shown:
        return self.shown.get((message.chat_id, message.message_id)) or message.shown

    async def send(
        self,
        context: Context,
        chat_id: int,
        html: str,
        markup: InlineKeyboardMarkup | None = None,
        *,
        reply_to: int | None = None,
    ) -> int | None:
        """Send ``html`` as one message, or several when it is too long (the keyboard goes
        on the last one; each replies to the message ``reply_to`` when given). Returns the
        last message's id."""
        chunks = split_html(html)
        sent = None
        reply = ReplyParameters(reply_to) if reply_to is not None else None
        for index, chunk in enumerate(chunks):
            keyboard = markup if index == len(chunks) - 1 else None
            # The raw result: a Message object of our own message was a fifth of the bot's
            # CPU per answer, and only its id is read.
            result = await context.bot.do_api_request(
                "sendMessage",
                api_kwargs={
                    "chat_id": chat_id,
                    "text": chunk,
                    "parse_mode": ParseMode.HTML,
                    "reply_markup": keyboard,
                    "link_preview_options": NO_PREVIEW,
                    "reply_parameters": reply,
                },
            )
            sent = int(result["message_id"])
            self.remember(chat_id, sent, _Shown.of(plain_text(chunk), keyboard))
        return sent

    async def send_pictured(
        self,
        context: Context,
        chat_id: int,
        html: str,
        image: ImageView | None,
        markup: InlineKeyboardMarkup | None = None,
        *,
        reply_to: int | None = None,
    ) -> None:
        """Send ``html`` with ``image``: as the photo's caption (``markup`` on the photo) when
        it fits one, else the photo, then the text with ``markup``; the text alone without an
        image, or when the photo cannot be sent. Each replies to the message ``reply_to`` when
        given."""
        if image is not None:
            fits = caption_fits(html)
            caption, on_photo = (html, markup) if fits else (None, None)
            photo = await self.photos.send(
                context.bot, chat_id, image, caption, on_photo, reply_to=reply_to
            )
            if photo is not None and fits:
                self.remember(chat_id, photo.message_id, _Shown.of(plain_text(html), markup))
                return
        await self.send(context, chat_id, html, markup, reply_to=reply_to)

    async def show_answer(
        self,
        context: Context,
        chat_id: int,
        message: MessageRef | None,
        feedback: AnswerFeedback,
        owner: str | None,
    ) -> None:
        """The answer to a question sent with buttons, in its ``message`` (None: it cannot be
        edited; the answered question is sent anew). With an explanation image, the question
        only loses its buttons and the feedback follows with the picture."""
        image = feedback.explanation_image
        if image is not None and message is not None:
            await self.edit(
                context, message, answered_question(feedback, owner, with_feedback=False)
            )
            await self.send_pictured(context, chat_id, feedback_message(feedback), image)
        elif message is not None:
            # On a photo whose caption cannot take the answer, the answer alone follows it
            # (rendered only for a photo: a text question, most presses, never needs it).
            overflow = feedback_message(feedback) if message.photo else None
            await self.edit(context, message, answered_question(feedback, owner), overflow=overflow)
        else:
            await self.send_pictured(context, chat_id, answered_question(feedback, owner), image)

    async def edit(
        self,
        context: Context,
        message: MessageRef,
        html: str,
        markup: InlineKeyboardMarkup | None = None,
        *,
        overflow: str | None = None,
    ) -> None:
        """Show ``html`` in ``message`` (the rest in new messages when too long). Does nothing
        when the message already shows exactly that: Telegram refuses such edits.

        A photo's caption is edited the same way when ``html`` fits one; when it does not,
        the photo keeps its caption, loses its buttons, and ``overflow`` (what ``html`` adds to
        the caption; default all of it) follows as a message with ``markup``."""
        if message.photo:
            await self._edit_caption(context, message, html, markup, overflow)
            return
        chunks = split_html(html) or [""]
        first, rest = chunks[0], chunks[1:]
        keyboard = markup if not rest else None
        wanted = _Shown.of(plain_text(first), keyboard)
        chat_id = message.chat_id
        if self.current(message) != wanted:
            try:
                await context.bot.do_api_request(  # the raw result, as in send()
                    "editMessageText",
                    api_kwargs={
                        "text": first,
                        "chat_id": chat_id,
                        "message_id": message.message_id,
                        "parse_mode": ParseMode.HTML,
                        "reply_markup": keyboard,
                        "link_preview_options": NO_PREVIEW,
                    },
                )
            except BadRequest as error:
                if "not modified" not in error.message.lower():
                    # Too old, deleted, or otherwise not editable: show it as a new message.
                    log.warning("telegram: cannot edit a message (%s); sending it anew", error)
                    await self.send(context, chat_id, html, markup)
                    return
            self.remember(chat_id, message.message_id, wanted)
        if rest:
            await self.send(context, chat_id, "\n\n".join(rest), markup)

    async def _edit_caption(
        self,
        context: Context,
        message: MessageRef,
        html: str,
        markup: InlineKeyboardMarkup | None,
        overflow: str | None,
    ) -> None:
        chat_id = message.chat_id
        if not caption_fits(html):
            await self._edit_photo(context, message, self.current(message).text, None, raw=False)
            await self.send(context, chat_id, overflow or html, markup)
            return
        await self._edit_photo(context, message, html, markup, raw=True)

    async def _edit_photo(
        self,
        context: Context,
        message: MessageRef,
        caption: str,
        markup: InlineKeyboardMarkup | None,
        *,
        raw: bool,
    ) -> None:
        """Set the photo's caption (``raw``: HTML to show; else kept as it is) and buttons."""
        wanted = _Shown.of(plain_text(caption) if raw else caption, markup)
        if self.current(message) == wanted:
            return
        chat_id = message.chat_id
        try:
            if raw:
                await context.bot.do_api_request(
                    "editMessageCaption",
                    api_kwargs={
                        "chat_id": chat_id,
                        "message_id": message.message_id,
                        "caption": caption,
                        "parse_mode": ParseMode.HTML,
                        "reply_markup": markup,
                    },
                )
            else:
                await context.bot.edit_message_reply_markup(
                    chat_id=chat_id, message_id=message.message_id, reply_markup=markup
                )
        except BadRequest as error:
            if "not modified" not in error.message.lower():
                log.warning("telegram: cannot edit a photo (%s); sending the text anew", error)
                if raw:
                    await self.send(context, chat_id, caption, markup)
                return
        self.remember(chat_id, message.message_id, wanted)

    def menu_open(self, query: CallbackQuery) -> bool:
        """Whether the pressed one-shot menu still has its keyboard; False on a second press
        of the same menu, which must not act twice."""
        message = query.message
        if not isinstance(message, Message):
            return True
        return bool(self.ref(message).shown.keyboard)

    async def close_menu(self, context: Context, query: CallbackQuery, html: str | None) -> None:
        """Take the keyboard off a one-shot menu, showing ``html`` instead when given."""
        pressed = query.message
        if not isinstance(pressed, Message):
            return
        message = self.ref(pressed)
        if not message.shown.keyboard:  # closed already (see menu_open)
            return
        if html is not None:
            await self.edit(context, message, html)
            return
        try:
            await context.bot.edit_message_reply_markup(
                chat_id=message.chat_id, message_id=message.message_id, reply_markup=None
            )
        except BadRequest as error:  # the press still counts; only the keyboard stays
            log.warning("telegram: cannot remove a keyboard (%s)", error)
        text = self.current(message).text
        self.remember(message.chat_id, message.message_id, _Shown.of(text, None))

    async def poll_mode(self, chat_id: int, quiz_id: str) -> bool:
        """Whether questions go out as quiz polls: the chat's choice, else the quiz's."""
        chosen = await self.engine.get_value(CHAT_MODE_SCOPE, str(chat_id))
        if chosen in ("poll", "buttons"):
            return chosen == "poll"
        quiz = self.engine.catalog.get(quiz_id)
        return quiz is not None and quiz.native_polls

    async def set_mode(self, chat_id: int, poll: bool) -> None:
        await self.engine.set_value(CHAT_MODE_SCOPE, str(chat_id), "poll" if poll else "buttons")

    async def send_question(
        self, context: Context, chat_id: int, question: QuestionView, owner: str | None
    ) -> None:
        if question.typed:
            await self.send_image(context, chat_id, question)
            return await send_typed_question(self.engine, context, chat_id, question, owner)
        if await self.poll_mode(chat_id, question.quiz_id) and await self.send_poll(
            context, chat_id, question
        ):
            return
        rendered = question_message(question, owner)
        await self.send_pictured(context, chat_id, rendered.html, question.image, rendered.markup)

    async def send_image(self, context: Context, chat_id: int, question: QuestionView) -> None:
        """The question's image as a photo of its own (if it has one), before its text."""
        if question.image is not None:
            await self.photos.send(context.bot, chat_id, question.image)

    async def send_poll(self, context: Context, chat_id: int, question: QuestionView) -> bool:
        """Send ``question`` as a quiz poll; False when it does not fit poll limits."""
        key = self.engine.answer_key(
            question.quiz_id, question.question_id, question.language, question.quiz_version
        )
        if key is None:
            return False
        correct_option_id, explanation = key
        plan = plan_poll(question, correct_option_id, explanation)
        if plan is None:
            return False
        await self.send_image(context, chat_id, question)  # a poll cannot show one
        message = await context.bot.send_poll(
            chat_id,
            plan.question,
            list(plan.options),
            is_anonymous=False,
            type=Poll.QUIZ,
            correct_option_ids=[cast(_OptionIndex, plan.correct_index)],
            explanation=plan.explanation or None,
        )
        if message.poll is None:
            return True
        link = PollLink(
            attempt_id=question.attempt_id,
            question_id=question.question_id,
            question_number=question.number,
            option_ids=tuple(o.id for o in question.options),
            chat_id=chat_id,
            explanation_complete=plan.explanation_complete,
        )
        await self.engine.set_value(POLL_SCOPE, message.poll.id, link.dumps())
        return True

    async def send_next(
        self, context: Context, chat_id: int, feedback: AnswerFeedback, owner: str | None
    ) -> None:
        """After an accepted answer: the next question, or the result."""
        if feedback.next_question is not None:
            await self.send_question(context, chat_id, feedback.next_question, owner)
        elif feedback.result is not None:
            rendered = result_message(feedback.result, owner)
            await self.send(context, chat_id, rendered.html, rendered.markup)
