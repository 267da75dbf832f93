"""The bot admins' commands on Discord: ``/reload``, ``/upload file [format]``, ``/quizzes``,
``/unpublish quiz`` and ``/stats [quiz]``, on the quiz library (:mod:`bot.library`).

They are for the user ids in ``ADMIN_DISCORD_IDS``; anyone else is told the command is
unknown and nothing else happens. (Their registration also hides them from members without
the Administrator permission in servers, but that is the server's setting to change; the id
check is the guard.) With a ``stats_chart``, ``/stats`` for one quiz that has answers also
shows the quiz's chart (a PNG attachment, as the embed's image). An admin's quiz file sent in
a DM is published as ``/upload`` publishes it (:attr:`LibraryCommands.uploads`).
"""

from __future__ import annotations

import functools
import io
import logging
import re
from typing import Any

import discord

from adapters.discord.interactions import Interactions, Outgoing, handled, pages_to_messages
from adapters.discord.reports import reload_pages, stats_pages
from adapters.discord.uploads import DiscordUploads
from bot.library_texts import library_t, listing_lines
from bot.quiz_loader import LoadReport
from bot.quoting import quote
from bot.stats import QuizStats

UNSAFE_FILENAME = re.compile(r"[^A-Za-z0-9._-]")

log = logging.getLogger("quizbot.discord")


class LibraryCommands(Interactions):
    """The handlers of the admin commands on the quiz library and its statistics."""

    @functools.cached_property
    def uploads(self) -> DiscordUploads:
        """Quiz files sent with ``/upload`` or in a DM, published (see :mod:`.uploads`)."""
        return DiscordUploads(self.engine, self.admin_ids)

    @handled(admin=True)
    async def reload(self, interaction: discord.Interaction[Any]) -> None:
        """``/reload``: read QUIZ_DIR again and publish what is new, for every replica; how
        many quizzes are live, and each error (a broken file keeps its previous version
        live)."""

        async def reload() -> tuple[LoadReport, int, str]:
            # QUIZ_DIR's new quizzes go to the library (files are read off the event loop,
            # so other members' presses are still answered within Discord's 3 seconds):
            # every replica serves them within seconds.
            report = (await self.engine.library.publish_quiz_dir()).load
            return report, len(self.engine.catalog), await self._interface_language(interaction)

        report, live, language = await self._in_time(
            interaction, reload(), self._think(interaction, private=True)
        )
        log.info(
            "discord: quizzes reloaded by %s: %d live, %d errors",
            interaction.user.id,
            live,
            len(report.errors),
        )
        pages = reload_pages(report, live, language)
        await self._reply(interaction, pages_to_messages(pages), private=True)

    @handled(admin=True)
    async def upload(
        self, interaction: discord.Interaction[Any], attachment: discord.Attachment, fmt: str | None
    ) -> None:
        """``/upload file [format]``: publish a quiz file or a zip (see :mod:`.uploads`)."""

        async def publish() -> tuple[str, discord.File | None]:
            language = await self._interface_language(interaction)
            by = f"discord:{interaction.user.id}"
            return await self.uploads.publish(attachment, fmt, by, language)

        content, file = await self._in_time(
            interaction, publish(), self._think(interaction, private=True)
        )
        message = Outgoing(content=content, files=[file] if file is not None else [])
        await self._reply(interaction, [message], private=True)

    @handled(admin=True)
    async def quizzes(self, interaction: discord.Interaction[Any]) -> None:
        """``/quizzes``: the published quizzes with version, source and question count."""

        async def listing() -> str:
            language = await self._interface_language(interaction)
            lines = listing_lines(await self.engine.library.listing(), language)
            return "\n".join(lines)

        content = await self._in_time(
            interaction, listing(), self._think(interaction, private=True)
        )
        await self._reply(interaction, [Outgoing(content=content)], private=True)

    @handled(admin=True)
    async def unpublish(self, interaction: discord.Interaction[Any], quiz_id: str) -> None:
        """``/unpublish quiz``: hide a quiz everywhere; attempts in progress finish."""

        async def hide() -> tuple[str, str]:
            language = await self._interface_language(interaction)
            if await self.engine.library.unpublish(quiz_id):
                log.info("discord: quiz %s unpublished by %s", quiz_id, interaction.user.id)
                return library_t("unpublished", language, quiz=quiz_id), language
            shown = quote(quiz_id[:60])
            return library_t("unpublish_unknown", language, quiz=shown), language

        notice, language = await self._in_time(
            interaction, hide(), self._think(interaction, private=True)
        )
        await self._notice(interaction, notice, language)

    @handled(admin=True)
    async def stats(self, interaction: discord.Interaction[Any], query: str | None) -> None:
        """``/stats [quiz]``: attempts, completions, average score and hardest question."""
        quiz_id = await self._resolve_quiz(interaction, query)

        async def collect() -> tuple[str, list[QuizStats] | None]:
            language = await self._interface_language(interaction)
            if quiz_id is not None and self.engine.catalog.get(quiz_id) is None:
                return language, None
            return language, await self.engine.stats(quiz_id, language)

        language, stats = await self._in_time(
            interaction, collect(), self._think(interaction, private=True)
        )
        if stats is None:
            assert quiz_id is not None
            unknown = self.engine.unknown_quiz_notice(quiz_id, language)
            await self._notice(interaction, unknown, language)
            return
        messages = pages_to_messages(stats_pages(stats, language))
        if len(stats) == 1:
            await self._attach_chart(interaction, stats[0], messages[-1])
        await self._reply(interaction, messages, private=True)

    async def _attach_chart(
        self, interaction: discord.Interaction[Any], quiz: QuizStats, message: Outgoing
    ) -> None:
        """The quiz's chart as the image of the message's last embed, when there is a chart
        renderer and anything to draw. Without a chart (it failed) the text stands alone."""
        if self.stats_chart is None or not message.embeds:
            return
        if not any(question.answered for question in quiz.questions):
            return
        if not interaction.response.is_done():
            # Drawing blocks the event loop (on purpose: plotting libraries are rarely
            # thread-safe, and another adapter may draw at the same time), so acknowledge first.
            await self._think(interaction, private=True)()
        try:
            png = self.stats_chart(quiz)
        except Exception:
            log.warning("discord: no stats chart for %s", quiz.quiz_id, exc_info=True)
            return
        filename = f"stats-{UNSAFE_FILENAME.sub('_', quiz.quiz_id)}.png"
        message.embeds[-1].set_image(url=f"attachment://{filename}")
        message.files = [discord.File(io.BytesIO(png), filename=filename)]
