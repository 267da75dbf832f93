"""Review reminders on Telegram: the ``review-due`` message of the outbox ("5 questions to
review" with a Review button, whose press starts the review in that private chat)."""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from adapters.telegram import callback_data as cb
from adapters.telegram.rendering import Rendered, notice
from bot.i18n import t
from bot.scheduling import OutgoingMessage


def render_review_due(message: OutgoingMessage, language: str) -> list[Rendered]:
    """The reminder's text, in the recipient's language, and its Review button."""
    count = int(message.payload.get("count", 0))
    button = InlineKeyboardButton(
        t("review_button", language), callback_data=cb.encode(cb.StartReview())
    )
    html = notice(t("review_due", language, count=count), language)
    return [Rendered(html, InlineKeyboardMarkup([[button]]))]
