"""What Discord's refusal of a post means, for the outbox's sender and the round driver alike:
the recipient cannot be reached (the user does not accept the bot's direct messages, 50007;
the bot may not see or post in the channel, 50001 and 50013, or it is gone, 10003 and 10013),
it may work later (DMs opened too fast, 40003, a 403 that discord.py does not wait out), or
this post is wrong."""

from __future__ import annotations

import discord

UNREACHABLE_CODES = frozenset({50007, 50001, 50013, 10003, 10013})
DMS_TOO_FAST = 40003  # "You are opening direct messages too fast"


def described(error: discord.HTTPException) -> str:
    """``403 50001: Missing Access``: the status, Discord's code and its words."""
    return f"{error.status} {error.code}: {error.text}"


def later(error: discord.HTTPException) -> bool:
    """Whether the post may go through if tried again later (a 5xx, a 429 past discord.py's
    own retries, DMs opened too fast)."""
    return error.status == 429 or error.status >= 500 or error.code == DMS_TOO_FAST


def unreachable_reason(error: discord.HTTPException) -> str | None:
    """Why the recipient of a refused post cannot be reached; None when the refusal does not
    mean that."""
    return described(error) if error.code in UNREACHABLE_CODES else None
