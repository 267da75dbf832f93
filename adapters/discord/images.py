"""Quiz images on Discord: a file attached to the question's message and shown as the image of
its first embed (``attachment://name``), with the alt text as the file's description. An
explanation's image is a file of the message that ends with the explanation, shown in its
last embed (or an embed of its own after it, when that one shows the question's).

Discord keeps no upload to reuse in another message: each message carries its own copy (the
bytes come from :class:`bot.quiz_images.QuizImages`, which keeps recent ones in memory). An
edit of the message keeps its files, so the answered question and a round's status edits show
the same picture without sending it again. An image whose bytes are nowhere is left out.
"""

from __future__ import annotations

import io

import discord

from adapters.discord.rendering import EMBEDS_PER_MESSAGE, Page, truncate
from bot.quiz_images import QuizImages
from bot.views import ImageView

DESCRIPTION_LIMIT = 1024  # an attachment's description


def show(page: Page, image: ImageView) -> None:
    """Show ``image`` (a file of the same message) in the page's first embed."""
    page[0].set_image(url=f"attachment://{image.filename}")


def show_at_end(pages: list[Page], image: ImageView) -> int:
    """Show ``image`` at the end of ``pages``: in the last embed, or in an embed of its own
    after it when that one shows a picture already (a message full of embeds: in a message
    of its own). Returns the number of the page whose message must carry the file."""
    page = pages[-1]
    last = page[-1]
    if last.image.url is None:
        last.set_image(url=f"attachment://{image.filename}")
        return len(pages) - 1
    pictured = discord.Embed(colour=last.colour).set_image(url=f"attachment://{image.filename}")
    if len(page) < EMBEDS_PER_MESSAGE:
        page.append(pictured)
    else:
        pages.append([pictured])
    return len(pages) - 1


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
