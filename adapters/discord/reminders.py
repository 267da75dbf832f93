"""Review reminders on Discord: the ``review-due`` direct message of the outbox ("5 questions
to review" with a Review button, whose press starts the review in that DM)."""

from __future__ import annotations

from adapters.discord.buttons import review_view
from adapters.discord.outbox_sender import DiscordPost
from adapters.discord.rendering import notice
from bot.i18n import t
from bot.scheduling import OutgoingMessage


def render_review_due(message: OutgoingMessage, language: str) -> list[DiscordPost]:
    """The reminder's text, in the recipient's language, and its Review button."""
    count = int(message.payload.get("count", 0))
    text = notice(t("review_due", language, count=count))
    return [DiscordPost(content=text, view=review_view(t("review_button", language)))]
