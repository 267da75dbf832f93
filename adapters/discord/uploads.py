"""Quizzes admins publish from Discord: ``/upload file:`` (an attachment option) or a file
sent to the bot in a DM. The attachment's size is checked before it is read, the file goes
through the quiz library (:mod:`bot.uploads`), and the reply says what was published or why
nothing was; a long list of problems comes as a file."""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Collection
from typing import Any

import discord

from adapters.discord.group_rounds import PLATFORM
from bot.engine import QuizEngine
from bot.library_texts import library_t
from bot.storage import StorageError
from bot.uploads import UploadOutcome, UploadRefused, parse_hint, publish_upload, size_problem
from bot.views import Participant

log = logging.getLogger("quizbot.discord")
READ_TIMEOUT = 60.0  # seconds to read an attachment from Discord's CDN
SEND_TIMEOUT = 15.0  # seconds to post a DM reply
MAX_PROBLEMS_SHOWN = 15  # more, or a longer reply, and the problems come as a file
MAX_REPLY_CHARS = 1800  # of the reply with its problems, below Discord's 2000
PROBLEMS_FILE = "problems.txt"


class DiscordUploads:
    """Reads an attachment and publishes it; also handles a DM carrying one."""

    def __init__(self, engine: QuizEngine, admin_ids: Collection[str]) -> None:
        self.engine = engine
        self.admin_ids = admin_ids

    async def publish(
        self, attachment: discord.Attachment, caption: str | None, by: str, language: str
    ) -> tuple[str, discord.File | None]:
        """Publish the attachment (``caption``: a format and language it names); the reply's
        text, and the problems as a file when they are too many to show."""
        hint, _ = parse_hint(caption)
        refused = size_problem(attachment.filename, attachment.size, hint)
        if refused is not None:  # before reading a byte
            return _refused(refused, language), None
        try:
            async with asyncio.timeout(READ_TIMEOUT):
                data = await attachment.read()
        except (discord.HTTPException, TimeoutError) as error:
            log.warning("discord: upload %r not read: %s", attachment.filename, error)
            failed = UploadRefused("download_failed", name=attachment.filename, error=str(error))
            return _refused(failed, language), None
        try:
            outcome = await publish_upload(
                self.engine.library,
                attachment.filename,
                data,
                by=by,
                language=language,
                caption=caption,
            )
        except StorageError:
            log.exception("discord: upload %r not published", attachment.filename)
            return library_t("upload_failed", language), None
        log.info("discord: upload %r by %s: %s", attachment.filename, by, outcome.lines[0])
        return report(outcome)

    async def on_message(self, message: discord.Message) -> None:
        """A DM with a file: an admin's upload (anyone else is told it is for admins)."""
        if message.guild is not None or message.author.bot or not message.attachments:
            return
        author = message.author
        who = Participant(PLATFORM, str(author.id), author.display_name, None)
        language = await self.engine.interface_language(who)
        if str(author.id) not in self.admin_ids:
            content, file = library_t("upload_admins_only", language), None
        else:
            content, file = await self.publish(
                message.attachments[0], message.content, f"discord:{author.id}", language
            )
        kwargs: dict[str, Any] = {"file": file} if file is not None else {}
        async with asyncio.timeout(SEND_TIMEOUT):
            await message.channel.send(content, **kwargs)


def _refused(refused: UploadRefused, language: str) -> str:
    return library_t("upload_refused", language, reason=refused.text(language))


def report(outcome: UploadOutcome) -> tuple[str, discord.File | None]:
    """The outcome's lines, and its problems in a code block, or in a file when long."""
    lines = "\n".join(outcome.lines)
    problems = "\n".join(outcome.problems)
    shown = f"{lines}\n```\n{problems}\n```" if problems else lines
    if len(outcome.problems) <= MAX_PROBLEMS_SHOWN and len(shown) <= MAX_REPLY_CHARS:
        return shown, None
    attached = library_t("upload_problems_attached", outcome.language)
    file = discord.File(io.BytesIO((problems + "\n").encode()), filename=PROBLEMS_FILE)
    return f"{lines}\n{attached}", file
