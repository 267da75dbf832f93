"""Moved to :mod:`fakes.telegram_chatter` (bench uses it too); this name stays only so tests
written against it keep working. Import from ``fakes`` in new code."""

from fakes.telegram_chatter import *  # noqa: F403
