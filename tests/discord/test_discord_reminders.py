"""/timezone and /remind through discord.py and the fake Discord on a manual clock: the review
reminder comes as a direct message at the local time with a Review button, a user whose DMs
refuse the bot (50007) is not tried again until they use the bot, a 02:30 reminder on the
spring-forward night comes once at 03:00, and a server's zone is set by those who may manage
the server."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from adapters.discord import QuizClient
from bot.catalog import QuizCatalog
from bot.engine import QuizEngine
from bot.i18n import t
from bot.quiz import Quiz
from bot.storage import SQLiteStorage
from bot.storage.scheduling import MessageStatus
from fakes.discord_api import FakeDiscord, Message
from fakes.discord_users import ADMINISTRATOR, ClientFactory, Player, World, buttons, visible
from tests.discord.discord_harness import VirtualClock
from tests.discord.test_discord_review import miss

DUE_TWO = visible(t("review_due", "en", count=2))


async def settle(client: QuizClient) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 10
    await asyncio.sleep(0.01)
    while not client.services.scheduling.settled():
        assert loop.time() < deadline, "the scheduler never settled"
        await asyncio.sleep(0.01)


async def advance_to(client: QuizClient, clock: VirtualClock, moment: datetime) -> None:
    while clock.now < moment:
        clock.advance(min(3600.0, (moment - clock.now).total_seconds()))
        await settle(client)


def reminders_to(fake: FakeDiscord, player: Player) -> list[Message]:
    return [m for m in fake.dm_messages(player.id) if visible(m.content) == DUE_TWO]


def dm_posts(fake: FakeDiscord, player: Player) -> list[int]:
    """The status of every post the bot tried in the player's DM channel."""
    path = f"/api/v10/channels/{player.dm_channel_id}/messages"
    return [r.status for r in fake.requests if r.method == "POST" and r.path == path]


async def start(
    make_client: ClientFactory,
    fake: FakeDiscord,
    catalog: QuizCatalog,
    storage: SQLiteStorage,
    now: datetime | None = None,
) -> tuple[World, QuizClient, VirtualClock]:
    """A client whose engine and services share a clock set to ``now`` (by default the
    clock's own start)."""
    clock = VirtualClock(now)
    client = await make_client(QuizEngine(catalog, storage, clock=clock), clock=clock)
    assert isinstance(client, QuizClient)
    return World(fake, client), client, clock


async def test_a_reminder_dm_with_a_review_button_and_a_user_who_refuses_dms(
    fake_discord: FakeDiscord,
    make_client: ClientFactory,
    catalog: QuizCatalog,
    storage: SQLiteStorage,
    quiz: Quiz,
) -> None:
    world, client, clock = await start(make_client, fake_discord, catalog, storage)
    alice, bob = world.user("Alice", dm=True), world.user("Bob", dm=True)
    set_zone = await alice.command("timezone", zone="Europe/Berlin")
    assert set_zone.notice == visible(
        t("timezone_set_user", "en", zone="Europe/Berlin", time="01:00")
    )
    for player in (alice, bob):
        await miss(player, quiz, [True, False, True, False, True, True, True, True], "en")
        reply = await player.command("remind", time="08:00")
        assert "08:00" in reply.notice
    fake_discord.closed_dms.add(bob.id)  # Bob does not accept the bot's DMs
    await settle(client)
    await advance_to(client, clock, datetime(2026, 1, 1, 6, 59, tzinfo=UTC))
    assert reminders_to(fake_discord, alice) == []  # 07:59 in Berlin
    await advance_to(client, clock, datetime(2026, 1, 1, 7, 0, tzinfo=UTC))
    (reminder,) = reminders_to(fake_discord, alice)
    assert [b["custom_id"] for b in buttons(reminder)] == ["qz1:v"]
    assert [b["label"] for b in buttons(reminder)] == [t("review_button", "en")]
    started = await alice.press(reminder, "qz1:v")
    assert visible(t("review_started", "en", count=2)) in visible(started.last.content)
    # Bob's reminder (08:00 UTC) is refused with 50007: marked, not retried.
    await advance_to(client, clock, datetime(2026, 1, 1, 9, 0, tzinfo=UTC))
    assert dm_posts(fake_discord, bob) == [403]
    refused = [
        m for m in await storage.outgoing_messages("review-due:discord:") if m.target == str(bob.id)
    ]
    assert [m.status for m in refused] == [MessageStatus.UNDELIVERABLE]
    assert refused[0].last_error is not None and "50007" in refused[0].last_error
    await advance_to(client, clock, datetime(2026, 1, 2, 9, 0, tzinfo=UTC))
    assert dm_posts(fake_discord, bob) == [403]  # the next day: not tried
    # Bob opens his DMs and uses the bot: the next reminder reaches him.
    fake_discord.closed_dms.discard(bob.id)
    await bob.command("help")
    await advance_to(client, clock, datetime(2026, 1, 3, 9, 0, tzinfo=UTC))
    assert dm_posts(fake_discord, bob) == [403, 200]
    assert len(reminders_to(fake_discord, bob)) == 1


async def test_a_0230_reminder_dm_comes_once_at_0300_on_the_spring_forward_night(
    fake_discord: FakeDiscord,
    make_client: ClientFactory,
    catalog: QuizCatalog,
    storage: SQLiteStorage,
    quiz: Quiz,
) -> None:
    """On 2026-03-29 Berlin's clocks jump from 02:00 to 03:00: a 02:30 reminder comes once,
    at the end of the gap (03:00 CEST, 01:00 UTC)."""
    spring = datetime(2026, 3, 28, 12, 0, tzinfo=UTC)
    world, client, clock = await start(make_client, fake_discord, catalog, storage, spring)
    dana = world.user("Dana", dm=True)
    await dana.command("timezone", zone="Europe/Berlin")
    await miss(dana, quiz, [True, False, True, False, True, True, True, True], "en")
    reply = await dana.command("remind", time="02:30")
    assert "Next check: 2026-03-29 03:00 Europe/Berlin" in reply.notice  # the end of the gap
    await settle(client)
    await advance_to(client, clock, datetime(2026, 3, 29, 0, 59, tzinfo=UTC))
    assert reminders_to(fake_discord, dana) == []
    await advance_to(client, clock, datetime(2026, 3, 29, 1, 0, tzinfo=UTC))  # 03:00 CEST
    assert len(reminders_to(fake_discord, dana)) == 1
    await advance_to(client, clock, datetime(2026, 3, 29, 23, 0, tzinfo=UTC))
    assert len(reminders_to(fake_discord, dana)) == 1  # once that night
    await advance_to(client, clock, datetime(2026, 3, 30, 0, 30, tzinfo=UTC))  # 02:30 CEST
    assert len(reminders_to(fake_discord, dana)) == 2


async def test_a_reminder_refused_for_opening_dms_too_fast_comes_a_little_later(
    fake_discord: FakeDiscord,
    make_client: ClientFactory,
    catalog: QuizCatalog,
    storage: SQLiteStorage,
    quiz: Quiz,
) -> None:
    """Discord refuses to open a DM channel when a bot opens them too fast (403 40003, which
    discord.py does not wait out): the reminder is tried again shortly, not dropped."""
    world, client, clock = await start(make_client, fake_discord, catalog, storage)
    erin = world.user("Erin", dm=True)
    await miss(erin, quiz, [True, False, True, False, True, True, True, True], "en")
    await erin.command("remind", time="08:00")
    fake_discord.refuse_dm_opens = 1
    await settle(client)
    await advance_to(client, clock, datetime(2026, 1, 1, 8, 0, tzinfo=UTC))
    assert reminders_to(fake_discord, erin) == []
    (waiting,) = await storage.outgoing_messages("review-due:discord:")
    assert waiting.status is MessageStatus.PENDING and "40003" in (waiting.last_error or "")
    await advance_to(client, clock, datetime(2026, 1, 1, 8, 1, tzinfo=UTC))
    assert len(reminders_to(fake_discord, erin)) == 1
    (sent,) = await storage.outgoing_messages("review-due:discord:")
    assert sent.status is MessageStatus.SENT


async def test_a_servers_zone_is_set_by_those_who_may_manage_it(
    fake_discord: FakeDiscord,
    make_client: ClientFactory,
    catalog: QuizCatalog,
    storage: SQLiteStorage,
) -> None:
    world, _, _ = await start(make_client, fake_discord, catalog, storage)
    member = world.user("Member")
    refused = await member.command("timezone", zone="Asia/Dhaka")
    assert refused.notice == visible(t("timezone_admins_only", "en"))
    unknown = await member.command("timezone", zone="Atlantis")
    assert unknown.notice == visible(t("timezone_unknown", "en", name="Atlantis"))
    admin = world.user("Admin", permissions=ADMINISTRATOR)
    changed = await admin.command("timezone", zone="asia/dhaka")
    assert changed.notice == visible(t("timezone_set_chat", "en", zone="Asia/Dhaka", time="06:00"))
    shown = await member.command("timezone")
    assert shown.notice == visible(
        t("timezone_current_chat", "en", zone="Asia/Dhaka", time="06:00")
    )
    choices = await member.autocomplete("timezone", "zone", "berl")
    assert [c["value"] for c in choices] == ["Europe/Berlin"]
    bad = await member.command("remind", time="25:00")
    assert bad.notice == visible(t("remind_bad_time", "en"))
