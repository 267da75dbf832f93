"""What Discord's refusal of a post means, for the outbox's sender and the round driver alike:
the recipient cannot be reached (the user does not accept the bot's direct messages, 50007;
the bot may not see or post in the channel, 50001 and 50013, or it is gone, 10003 and 10013),
or something else (this post is wrong, or it may work later)."""

from __future__ import annotations

import discord

UNREACHABLE_CODES = frozenset({50007, 50001, 50013, 10003, 10013})


def described(error: discord.HTTPException) -> str:
    """``403 50001: Missing Access``: the status, Discord's code and its words."""
    return f"{error.status} {error.code}: {error.text}"


def unreachable_reason(error: discord.HTTPException) -> str | None:
    """Why the recipient of a refused post cannot be reached; None when the refusal does not
    mean that."""
    return described(error) if error.code in UNREACHABLE_CODES else None
