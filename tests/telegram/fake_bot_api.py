"""Moved to :mod:`fakes.telegram_bot_api` (bench uses it too); this name stays only so tests
written against it keep working. Import from ``fakes`` in new code."""

from fakes.telegram_bot_api import *  # noqa: F403
