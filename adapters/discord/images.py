"""Quiz images on Discord: a file attached to the question's message and shown as the image of
its first embed (``attachment://name``), with the alt text as the file's description.

Discord keeps no upload to reuse in another message: each message carries its own copy (the
bytes come from :class:`bot.quiz_images.QuizImages`, which keeps recent ones in memory). An
edit of the message keeps its files, so the answered question and a round's status edits show
the same picture without sending it again. An image whose bytes are nowhere is left out.
"""

from __future__ import annotations

import io

import discord

from adapters.discord.rendering import Page, truncate
from bot.quiz_images import QuizImages
from bot.views import ImageView

DESCRIPTION_LIMIT = 1024  # an attachment's description


def show(page: Page, image: ImageView) -> None:
    """Show ``image`` (a file of the same message) in the page's first embed."""
    page[0].set_image(url=f"attachment://{image.filename}")


async def image_file(images: QuizImages, image: ImageView) -> discord.File | None:
    """The file to attach for ``image``; None when its bytes are nowhere."""
    data = await images.data(image)
    if data is None:
        return None
    description = truncate(image.alt, DESCRIPTION_LIMIT) if image.alt else None
    return discord.File(io.BytesIO(data), filename=image.filename, description=description)


def has_file(message: discord.Message | None, image: ImageView) -> bool:
    """Whether ``message`` carries the image's file (so its embeds may show it)."""
    return message is not None and any(a.filename == image.filename for a in message.attachments)
