"""The optional extras of pyproject.toml, and one clear line when a needed one is missing.

The base install plays in the terminal with SQLite. Each platform, PostgreSQL and the charts
come with an extra; a command that needs a missing one stops with exit code 2 and a message that
names it, instead of a traceback ending in ``ModuleNotFoundError``.
"""

from __future__ import annotations

import importlib

# extra -> (its name for people, the modules it must provide)
EXTRAS: dict[str, tuple[str, tuple[str, ...]]] = {
    "telegram": ("Telegram", ("telegram", "aiohttp")),
    "discord": ("Discord", ("discord",)),
    "postgres": ("PostgreSQL", ("asyncpg",)),
    "charts": ("charts", ("matplotlib",)),
}


class MissingExtra(RuntimeError):
    """A module of an optional extra that a command needs cannot be imported."""

    def __init__(self, extra: str, reason: str, module: str) -> None:
        label = EXTRAS[extra][0]
        super().__init__(
            f"{reason} but the {label} extra is not installed (no module {module!r}): "
            f"pip install -e '.[{extra}]'"
        )
        self.extra = extra
        self.module = module


def missing_module(extra: str) -> str | None:
    """The first module of ``extra`` that cannot be imported, or None when all can.

    Importing (rather than looking the module up) also catches a broken install: a package
    whose own dependencies are missing fails here, not halfway through a start."""
    for module in EXTRAS[extra][1]:
        try:
            importlib.import_module(module)
        except ImportError:
            return module
    return None


def require_extra(extra: str, reason: str) -> None:
    """Raise :class:`MissingExtra` when ``extra`` is not installed; ``reason`` says why it is
    needed (``"TELEGRAM_BOT_TOKEN is set"``)."""
    module = missing_module(extra)
    if module is not None:
        raise MissingExtra(extra, reason, module)
