"""Quizzes admins send the bot as a document in a private chat: checked before downloading
(the size Telegram states), downloaded with getFile, published through the quiz library
(:mod:`bot.uploads`), and answered with what was published or why nothing was; a long list
of problems comes as a file."""

from __future__ import annotations

import logging
from collections.abc import Collection

from telegram import Update
from telegram.error import TelegramError

from adapters.telegram.messenger import Messenger
from adapters.telegram.rendering import esc, notice
from adapters.telegram.shared import Context, turn
from bot.engine import QuizEngine
from bot.library_texts import library_t
from bot.storage import StorageError
from bot.text_direction import paragraph
from bot.uploads import (
    UploadOutcome,
    UploadRefused,
    parse_hint,
    publish_upload,
    shown_name,
    size_problem,
)

log = logging.getLogger("quizbot.telegram")
MAX_PROBLEMS_SHOWN = 20  # more, or a longer message, and the problems come as a file
MAX_REPLY_CHARS = 3500  # of the reply with its problems, below Telegram's 4096
PROBLEMS_FILE = "problems.txt"


class TelegramUploads:
    """The handler for documents in private chats."""

    def __init__(self, engine: QuizEngine, messenger: Messenger, admin_ids: Collection[str]):
        self.engine = engine
        self.messenger = messenger
        self.admin_ids = admin_ids

    async def on_document(self, update: Update, context: Context) -> None:
        message, user = update.effective_message, update.effective_user
        if message is None or user is None or message.document is None:
            return
        chat_id = message.chat_id
        ui = await turn(context).language()
        if str(user.id) not in self.admin_ids:
            await self.messenger.send(
                context, chat_id, notice(library_t("upload_admins_only", ui), ui)
            )
            return
        document = message.document
        name = document.file_name or "upload"
        hint, _ = parse_hint(message.caption)
        refused = size_problem(name, document.file_size or 0, hint)
        if refused is not None:  # before downloading a byte
            await self._refused(context, chat_id, refused, ui)
            return
        try:
            file = await context.bot.get_file(document.file_id)
            data = bytes(await file.download_as_bytearray())
        except TelegramError as error:  # e.g. "file is too big": Telegram's own limit
            log.warning("telegram: upload %r not downloaded: %s", name, error)
            failed = UploadRefused("download_failed", name=shown_name(name), error=error.message)
            await self._refused(context, chat_id, failed, ui)
            return
        try:
            outcome = await publish_upload(
                self.engine.library,
                name,
                data,
                by=f"telegram:{user.id}",
                language=ui,
                caption=message.caption,
            )
        except StorageError:
            log.exception("telegram: upload %r not published", name)
            await self._say(context, chat_id, library_t("upload_failed", ui), ui)
            return
        log.info("telegram: upload %r by %s: %s", name, user.id, outcome.lines[0])
        await self._report(context, chat_id, outcome)

    async def _say(self, context: Context, chat_id: int, text: str, ui: str) -> None:
        await self.messenger.send(context, chat_id, notice(text, ui))

    async def _refused(
        self, context: Context, chat_id: int, refused: UploadRefused, ui: str
    ) -> None:
        await self._say(
            context, chat_id, library_t("upload_refused", ui, reason=refused.text(ui)), ui
        )

    async def _report(self, context: Context, chat_id: int, outcome: UploadOutcome) -> None:
        """The outcome's lines, and its problems as code lines, or in a file when long."""
        ui = outcome.language
        lines = [paragraph(esc(line), ui) for line in outcome.lines]
        shown = [f"<code>{esc(problem)}</code>" for problem in outcome.problems]
        reply = "\n".join([*lines, *shown])
        if len(outcome.problems) <= MAX_PROBLEMS_SHOWN and len(reply) <= MAX_REPLY_CHARS:
            await self.messenger.send(context, chat_id, reply)
            return
        lines.append(paragraph(esc(library_t("upload_problems_attached", ui)), ui))
        await self.messenger.send(context, chat_id, "\n".join(lines))
        report = ("\n".join(outcome.problems) + "\n").encode()
        await context.bot.send_document(chat_id, report, filename=PROBLEMS_FILE)
