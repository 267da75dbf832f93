"""Quiz images on Telegram: sent as photos, each uploaded once per bot.

The first send of an image uploads its bytes (:class:`bot.quiz_images.QuizImages` has them, from
the database); the ``file_id`` Telegram gives back is kept in the database under the bot's id
(the number before the token's colon), so every later send, by this process, another replica or
after a restart, names that ``file_id`` instead of uploading again. Sends of one image at once
in this process wait for its first upload. A ``file_id`` Telegram no longer accepts is replaced
by a new upload. A photo that cannot be sent at all (its bytes are nowhere, Telegram refuses
it) is left out and logged: the question still goes out, as text.

A caption holds 1024 characters after entity parsing (a text message 4096): callers check
:func:`caption_fits` and send a longer question (or feedback, or reveal) as the photo, then
the text.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from telegram import Bot, InlineKeyboardMarkup, InputFile, Message, ReplyParameters
from telegram.constants import ParseMode
from telegram.error import BadRequest

from adapters.telegram.rendering import visible_length
from bot.quiz_images import QuizImages
from bot.views import ImageView

log = logging.getLogger("quizbot.telegram")

MAX_CAPTION = 1024  # a photo's caption, after entity parsing


def caption_fits(html: str) -> bool:
    """Whether ``html`` fits a photo's caption (as Telegram counts it)."""
    return visible_length(html) <= MAX_CAPTION


def destination(bot: Bot) -> str:
    """Where a ``file_id`` is valid: one bot, named by its id (never by its token)."""
    return f"telegram:{bot.token.split(':', 1)[0]}"


@dataclass(frozen=True)
class _On:
    """What goes on a photo: an HTML caption, buttons, the message it replies to."""

    caption: str | None = None
    markup: InlineKeyboardMarkup | None = None
    reply_to: int | None = None


class Photos:
    """Sends quiz images as photos with what goes on them (a caption, buttons)."""

    def __init__(self, images: QuizImages) -> None:
        self.images = images

    async def send(
        self,
        bot: Bot,
        chat_id: int,
        image: ImageView,
        caption: str | None = None,
        markup: InlineKeyboardMarkup | None = None,
        *,
        reply_to: int | None = None,
    ) -> Message | None:
        """Send ``image`` with the HTML ``caption`` (it must fit) and ``markup``, as a reply
        to the message ``reply_to`` when given; None when it could not be sent (logged; the
        caller sends its text without the picture)."""
        on = _On(caption, markup, reply_to)
        where = destination(bot)
        known = await self.images.upload_reference(where, image.sha256)
        if known is not None:
            sent = await self._by_file_id(bot, chat_id, known, on)
            if sent is not None:
                return sent
        async with self.images.uploading(where, image.sha256):
            # Another send may have uploaded it while this one waited.
            fresh = await self.images.upload_reference(where, image.sha256)
            if fresh is not None and fresh != known:
                sent = await self._by_file_id(bot, chat_id, fresh, on)
                if sent is not None:
                    return sent
            return await self._upload(bot, chat_id, image, on, where)

    async def _by_file_id(self, bot: Bot, chat_id: int, file_id: str, on: _On) -> Message | None:
        """The photo sent by its ``file_id``; None when Telegram no longer knows it."""
        try:
            return await self._send(bot, chat_id, file_id, on)
        except BadRequest as error:
            if "file" not in error.message.lower():
                raise
            log.warning("telegram: a stored file_id was refused (%s); uploading again", error)
            return None

    async def _upload(
        self, bot: Bot, chat_id: int, image: ImageView, on: _On, where: str
    ) -> Message | None:
        data = await self.images.data(image)
        if data is None:
            log.warning("telegram: the bytes of image %s are nowhere; sent without it", image.path)
            return None
        upload = InputFile(data, filename=image.filename)
        try:
            sent = await self._send(bot, chat_id, upload, on)
        except BadRequest as error:
            if "caption" in error.message.lower():
                raise  # the caller's mistake, not the picture's
            log.warning("telegram: image %s refused (%s); sent without it", image.path, error)
            return None
        if sent.photo:
            await self.images.remember_upload(where, image.sha256, sent.photo[-1].file_id)
        return sent

    @staticmethod
    async def _send(bot: Bot, chat_id: int, photo: str | InputFile, on: _On) -> Message:
        return await bot.send_photo(
            chat_id,
            photo,
            caption=on.caption or None,
            parse_mode=ParseMode.HTML if on.caption else None,
            reply_markup=on.markup,
            reply_parameters=ReplyParameters(on.reply_to) if on.reply_to is not None else None,
        )
