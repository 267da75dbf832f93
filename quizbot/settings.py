"""Configuration from environment variables, validated before anything connects."""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from bot.quiz_cache import default_cache_dir
from bot.review import DEFAULT_RETENTION, MAX_RETENTION, MIN_RETENTION

DEFAULT_DATABASE_URL = "sqlite:///quizbot.db"
TELEGRAM_TOKEN_PATTERN = re.compile(r"^\d{3,20}:[A-Za-z0-9_-]{30,60}$")


class ConfigError(Exception):
    """A configuration variable has a value the bot cannot use."""

    def __init__(self, variable: str, problem: str) -> None:
        super().__init__(f"{variable}: {problem}")
        self.variable = variable


def _seconds(name: str, text: str, low: float, high: float) -> float:
    """``text`` as seconds from ``low`` to ``high``, else a ConfigError naming ``name``."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan  # fails the range check below, with the same message
    if not low <= value <= high:
        raise ConfigError(name, f"must be {low:g} to {high:g} seconds, not {text!r}")
    return value


def default_quiz_dir() -> Path:
    """``./quizzes`` when it exists, else the quizzes shipped beside the code."""
    here = Path("quizzes")
    if here.is_dir():
        return here
    return Path(__file__).resolve().parent.parent / "quizzes"


@dataclass(frozen=True)
class Settings:
    """Everything the process is configured with. Tokens are never printed (see __repr__)."""

    database_url: str = DEFAULT_DATABASE_URL
    quiz_dir: Path = Path("quizzes")
    quiz_cache_dir: Path | None = None  # validated quiz files (None: no cache)
    telegram_token: str | None = None
    telegram_api_base_url: str | None = None
    webhook_url: str | None = None
    webhook_secret: str | None = None
    webhook_max_connections: int = 40  # setWebhook's max_connections: Telegram's 40 by default
    port: int = 8080
    # A web process (PORT set, as platforms do for web processes, or WEBHOOK_URL): `quizbot
    # run` serves GET /healthz on PORT, whichever bots run.
    serve_http: bool = False
    discord_token: str | None = None
    discord_guild_id: int | None = None
    log_level: str | None = None  # None: unset (INFO for `quizbot run`, WARNING otherwise)
    log_format: str = "kv"
    admin_telegram_ids: frozenset[str] = frozenset()
    admin_discord_ids: frozenset[str] = frozenset()
    # Replicas (issue 14): Discord shards run here (None: all, as Discord recommends), and
    # how long a group round's driver holds it without renewing before another replica may.
    shard_count: int | None = None
    shard_ids: tuple[int, ...] | None = None
    round_lease_seconds: float = 15.0
    # How long one database call may wait before the user is asked to press again.
    database_timeout: float = 5.0
    # FSRS's desired retention for reviews: the chance to still know a question when due.
    review_retention: float = 0.9
    # How long a replica holds a claimed job or outgoing message before another may take it.
    claim_lease_seconds: float = 60.0

    @property
    def secrets(self) -> tuple[str, ...]:
        """Values that must never appear in a log line or an error message."""
        return tuple(s for s in (self.telegram_token, self.discord_token, self.webhook_secret) if s)

    def __repr__(self) -> str:
        shown = {
            "database_url": self.database_url,
            "quiz_dir": str(self.quiz_dir),
            "telegram": "set" if self.telegram_token else "unset",
            "discord": "set" if self.discord_token else "unset",
            "webhook_url": self.webhook_url,
            "port": self.port,
        }
        return f"Settings({shown})"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Read and check the variables; raises :class:`ConfigError` naming the variable."""
        env = os.environ if env is None else env

        def get(name: str) -> str | None:
            value = env.get(name, "").strip()
            return value or None

        database_url = get("DATABASE_URL") or DEFAULT_DATABASE_URL
        if not database_url.startswith(("sqlite:///", "postgres://", "postgresql://")):
            scheme = database_url.split(":", 1)[0]
            raise ConfigError(
                "DATABASE_URL",
                f'unsupported scheme "{scheme}"; use sqlite:///relative.db, '
                "sqlite:////absolute/path.db or postgresql://user:password@host/database",
            )
        quiz_dir = Path(get("QUIZ_DIR") or default_quiz_dir())
        telegram_token = get("TELEGRAM_BOT_TOKEN")
        if telegram_token is not None and not TELEGRAM_TOKEN_PATTERN.fullmatch(telegram_token):
            raise ConfigError(
                "TELEGRAM_BOT_TOKEN",
                "does not look like a bot token from @BotFather (digits:letters)",
            )
        port_text = get("PORT") or "8080"
        if not port_text.isdigit() or not 0 < int(port_text) < 65536:
            raise ConfigError("PORT", f"must be a TCP port number, not {port_text!r}")
        guild = get("DISCORD_GUILD_ID")
        if guild is not None and not guild.isdigit():
            raise ConfigError("DISCORD_GUILD_ID", "must be a numeric server id")
        webhook_url = get("WEBHOOK_URL")
        if webhook_url is not None and not webhook_url.startswith("https://"):
            raise ConfigError("WEBHOOK_URL", "must be an https:// address Telegram can reach")
        log_level = (get("LOG_LEVEL") or "").upper() or None
        if log_level not in (None, "DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"):
            raise ConfigError("LOG_LEVEL", "must be DEBUG, INFO, WARNING, ERROR or CRITICAL")
        log_format = (get("LOG_FORMAT") or "kv").lower()
        if log_format not in ("kv", "json"):
            raise ConfigError("LOG_FORMAT", "must be kv or json")
        admins = {name: _user_ids(name, get(name)) for name in ADMIN_VARIABLES}
        if not quiz_dir.is_dir():
            raise ConfigError("QUIZ_DIR", f"{quiz_dir} is not a readable directory")
        shard_count, shard_ids = _shards(get("SHARD_COUNT"), get("SHARD_IDS"))
        lease = _seconds("ROUND_LEASE_SECONDS", get("ROUND_LEASE_SECONDS") or "15", 3, 300)
        connections_text = get("WEBHOOK_MAX_CONNECTIONS") or "40"
        if not connections_text.isdigit() or not 1 <= int(connections_text) <= 100:
            raise ConfigError(
                "WEBHOOK_MAX_CONNECTIONS",
                f"must be 1 to 100 (Telegram's range), not {connections_text!r}",
            )
        database_timeout = _seconds("DATABASE_TIMEOUT", get("DATABASE_TIMEOUT") or "5", 0.5, 60)
        retention = _retention(get("REVIEW_RETENTION"))
        claim_lease = _seconds("CLAIM_LEASE_SECONDS", get("CLAIM_LEASE_SECONDS") or "60", 5, 600)
        return cls(
            database_url=database_url,
            quiz_dir=quiz_dir,
            quiz_cache_dir=default_cache_dir(env),
            telegram_token=telegram_token,
            telegram_api_base_url=get("TELEGRAM_API_BASE_URL"),
            webhook_url=webhook_url,
            webhook_secret=get("WEBHOOK_SECRET"),
            webhook_max_connections=int(connections_text),
            port=int(port_text),
            serve_http=get("PORT") is not None or webhook_url is not None,
            discord_token=get("DISCORD_BOT_TOKEN"),
            discord_guild_id=int(guild) if guild else None,
            log_level=log_level,
            log_format=log_format,
            admin_telegram_ids=admins["ADMIN_TELEGRAM_IDS"],
            admin_discord_ids=admins["ADMIN_DISCORD_IDS"],
            shard_count=shard_count,
            shard_ids=shard_ids,
            round_lease_seconds=lease,
            database_timeout=database_timeout,
            review_retention=retention,
            claim_lease_seconds=claim_lease,
        )


ADMIN_VARIABLES = ("ADMIN_TELEGRAM_IDS", "ADMIN_DISCORD_IDS")


def _retention(text: str | None) -> float:
    """REVIEW_RETENTION: FSRS's desired retention, within what FSRS handles sensibly."""
    if text is None:
        return DEFAULT_RETENTION
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not MIN_RETENTION <= value <= MAX_RETENTION:
        raise ConfigError(
            "REVIEW_RETENTION",
            f"must be a fraction from {MIN_RETENTION} to {MAX_RETENTION} (like 0.9), not {text!r}",
        )
    return value


def _user_ids(name: str, text: str | None) -> frozenset[str]:
    """A comma-separated list of numeric user ids (the variable ``name``), as text."""
    ids = [part.strip() for part in (text or "").split(",") if part.strip()]
    if not all(part.isdigit() for part in ids):
        raise ConfigError(name, "must be a comma-separated list of numeric user ids")
    return frozenset(ids)


def _shards(
    count_text: str | None, ids_text: str | None
) -> tuple[int | None, tuple[int, ...] | None]:
    """SHARD_COUNT and SHARD_IDS: how many Discord shards there are in all, and which of them
    this process runs (every one when unset)."""
    count = None
    if count_text is not None:
        if not count_text.isdigit() or int(count_text) < 1:
            raise ConfigError("SHARD_COUNT", f"must be a positive whole number, not {count_text!r}")
        count = int(count_text)
    if ids_text is None:
        return count, None
    if count is None:
        raise ConfigError("SHARD_IDS", "needs SHARD_COUNT (the number of shards in all)")
    parts = [part.strip() for part in ids_text.split(",") if part.strip()]
    if not parts or not all(part.isdigit() for part in parts):
        raise ConfigError("SHARD_IDS", "must be a comma-separated list of shard numbers, like 0,1")
    ids = tuple(int(part) for part in parts)
    if len(set(ids)) != len(ids) or max(ids) >= count:
        raise ConfigError(
            "SHARD_IDS", f"must be distinct numbers from 0 to {count - 1} (SHARD_COUNT={count})"
        )
    return count, ids


def ephemeral_disk_warning(settings: Settings, env: Mapping[str, str] | None = None) -> str | None:
    """A warning when progress would go to a SQLite file on a disk the platform wipes."""
    env = os.environ if env is None else env
    if not settings.database_url.startswith("sqlite:///"):
        return None
    path = settings.database_url[len("sqlite:///") :]
    absolute = path.startswith("/")
    platform = None
    if env.get("DYNO"):
        platform = "Heroku"  # dynos have no persistent disk at all
    elif env.get("RENDER") and not absolute:
        platform = "Render"
    elif env.get("RAILWAY_ENVIRONMENT"):
        volume = env.get("RAILWAY_VOLUME_MOUNT_PATH")
        if not volume or not path.startswith(volume):
            platform = "Railway"
    elif env.get("FLY_APP_NAME") and not absolute:
        platform = "Fly.io"
    if platform is None:
        return None
    return (
        f"DATABASE_URL is a SQLite file ({path}) on {platform}, whose local disk is wiped on "
        "restart: everyone's progress will be lost. Use PostgreSQL (DATABASE_URL=postgresql://…) "
        "or a SQLite file on a persistent volume (sqlite:////data/quizbot.db)."
    )
