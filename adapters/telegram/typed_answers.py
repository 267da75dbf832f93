"""Typed-answer questions on Telegram: the question asks for a reply, the reply answers it.

The question is sent with ForceReply, so the user's client opens a reply to it. Which attempt
and question a reply answers is kept in storage under the question message's id (so a reply
made before a restart still counts); in a private chat plain text answers too: the user's
current typed question in that chat. In groups only replies to a question message count (with
privacy mode on, those are the only messages Telegram delivers to a bot anyway). The verdict is
sent as a reply to the answer (with the explanation's image, as its caption when it fits), then
the next question or the result, as after a button press.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from telegram import ForceReply, Message, Update
from telegram.constants import ChatType, ParseMode

from adapters.telegram.rendering import (
    direction,
    esc,
    notice,
    progress_line,
    rich,
    split_html,
)
from adapters.telegram.shared import Context, participant
from adapters.telegram.texts import tt
from bot.engine import QuizEngine
from bot.i18n import t
from bot.typed_texts import typed_t
from bot.views import AnswerFeedback, AnswerOutcome, Participant, QuestionView

if TYPE_CHECKING:
    from adapters.telegram.messenger import Messenger

log = logging.getLogger("quizbot.telegram")

TYPED_SCOPE = "telegram:typed"  # "<chat id>:<message id>" -> "<attempt id>:<question number>"
MAX_PLACEHOLDER = 64  # ForceReply.input_field_placeholder


def typed_question_html(question: QuestionView, owner: str | None = None) -> str:
    """Progress, whose attempt (in groups), the question and how to answer it."""
    lang = question.language
    lines = [esc(progress_line(question))]
    if owner:
        lines.append(esc(tt("owner_line", lang, name=owner)))
    lines += ["", rich(question.text, "b"), "", esc(typed_t("typed_reply_hint", lang))]
    return direction("\n".join(lines), lang)


def typed_feedback_html(feedback: AnswerFeedback) -> str:
    """The verdict, what was typed, the accepted answer (when wrong) and the explanation."""
    lang = feedback.language
    verdict = t("correct" if feedback.correct else "wrong", lang)
    lines = [esc(verdict)]
    if feedback.typed_answer is not None:
        lines.append(esc(t("your_answer", lang, answer=feedback.typed_answer)))
    if not feedback.correct and feedback.accepted_answer is not None:
        answer = t("correct_answer", lang, answer=feedback.accepted_answer)
        lines.append(rich(answer, "b"))
    if feedback.explanation:
        lines += ["", f"<b>{esc(t('explanation', lang))}:</b> {rich(feedback.explanation)}"]
    return direction("\n".join(lines), lang)


async def send_typed_question(
    engine: QuizEngine, context: Context, chat_id: int, question: QuestionView, owner: str | None
) -> None:
    """Send ``question`` asking for a reply, and remember what a reply to it answers."""
    chunks = split_html(typed_question_html(question, owner))
    placeholder = typed_t("typed_field", question.language)[:MAX_PLACEHOLDER]
    sent: Message | None = None
    for index, chunk in enumerate(chunks):
        last = index == len(chunks) - 1
        sent = await context.bot.send_message(
            chat_id,
            chunk,
            parse_mode=ParseMode.HTML,
            reply_markup=ForceReply(
                # A group's members are not all pushed into replying to one member's
                # quiz (selective targets nobody here); the owner replies by hand.
                selective=chat_id < 0,
                input_field_placeholder=placeholder,
            )
            if last
            else None,
        )
    if sent is not None:
        key = f"{chat_id}:{sent.message_id}"
        value = f"{question.attempt_id}:{question.number}"
        await engine.set_value(TYPED_SCOPE, key, value)


class TypedAnswers:
    """Turns replies to typed-answer questions into engine answers."""

    def __init__(self, engine: QuizEngine, messenger: Messenger) -> None:
        self.engine = engine
        self.messenger = messenger

    async def _target(self, message: Message, who: Participant) -> tuple[int, int] | None:
        """The (attempt id, question number) that ``message`` answers, if any."""
        engine = self.engine
        replied = message.reply_to_message
        if replied is not None:
            key = f"{message.chat.id}:{replied.message_id}"
            value = await engine.get_value(TYPED_SCOPE, key)
            if value is not None:
                attempt_id, number = value.split(":")
                return int(attempt_id), int(number)
        if message.chat.type != ChatType.PRIVATE:
            return None
        active = await engine.active_attempt(who)
        if active is None or active[0].chat_id not in (None, str(message.chat.id)):
            return None
        question = await engine.current_question(who, active[0].id)
        if question is None or not question.typed:
            return None
        return question.attempt_id, question.number

    async def on_text(self, update: Update, context: Context) -> None:
        """A text message: the answer to a typed question, or nothing for us."""
        message, user = update.effective_message, update.effective_user
        if message is None or user is None or message.text is None:
            return
        who = participant(user)
        target = await self._target(message, who)
        if target is None:
            return
        feedback = await self.engine.answer_text(who, *target, message.text)
        chat_id = message.chat.id
        if feedback.outcome is not AnswerOutcome.ACCEPTED:
            # Already answered (a redelivery or a second try), someone else's, or failed:
            # a short notice; the feedback and the next question were sent the first time.
            html = notice(feedback.notice, feedback.language)
            await message.reply_text(html, parse_mode=ParseMode.HTML, do_quote=True)
            return
        owner = who.display_name if message.chat.type != ChatType.PRIVATE else None
        await self.messenger.send_pictured(
            context,
            chat_id,
            typed_feedback_html(feedback),
            feedback.explanation_image,
            reply_to=message.message_id,
        )
        await self.messenger.send_next(context, chat_id, feedback, owner)
