"""Structured, secret-free logging: one event per line as key=value or JSON.

Tokens must never reach a log line: python-telegram-bot's HTTP client (httpx) logs request URLs,
and Telegram URLs contain the bot token. Every line is redacted at the formatter, which also
covers tracebacks, and httpx's request log is turned down to warnings.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable
from datetime import UTC, datetime

from bot.quoting import quote

# Telegram bot tokens (123456:ABC...) and Discord bot tokens (three dot-separated parts).
TOKEN_PATTERNS = (
    re.compile(r"\d{5,20}:[A-Za-z0-9_-]{30,60}"),
    re.compile(r"[A-Za-z0-9_-]{23,28}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,45}"),
)
REDACTED = "<redacted>"
STANDARD_ATTRS = set(vars(logging.makeLogRecord({}))) | {"message", "asctime"}


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """The text with every known secret and anything shaped like a bot token replaced."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, REDACTED)
    for pattern in TOKEN_PATTERNS:
        text = pattern.sub(REDACTED, text)
    return text


class StructuredFormatter(logging.Formatter):
    """``ts=… level=… logger=… event="…" key=value`` or one JSON object per line."""

    def __init__(self, fmt: str = "kv", secrets: Iterable[str] = ()) -> None:
        super().__init__()
        self.json = fmt == "json"
        self.secrets = tuple(s for s in secrets if s)

    def format(self, record: logging.LogRecord) -> str:
        fields: dict[str, object] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "event": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in STANDARD_ATTRS and not key.startswith("_"):
                fields[key] = value
        if record.exc_info:
            fields["error"] = self.formatException(record.exc_info)
        if self.json:
            # json.dumps leaves these raw, and str.splitlines() (and some log shippers) would
            # split the event there; they occur only inside strings, where the escape is valid.
            line = json.dumps(fields, ensure_ascii=False, default=str).translate(_JSON_BREAKS)
        else:
            line = " ".join(f"{key}={_kv_value(value)}" for key, value in fields.items())
        return redact(line, self.secrets)


_JSON_BREAKS = str.maketrans({"\u2028": "\\u2028", "\u2029": "\\u2029", "\x85": "\\u0085"})


def _kv_value(value: object) -> str:
    text = str(value)
    if not text or not text.isprintable() or any(c in text for c in ' "='):
        return quote(text)  # one line whatever a user name or a traceback holds
    return text


def configure_logging(level: str = "INFO", fmt: str = "kv", secrets: Iterable[str] = ()) -> None:
    """Send every log line through the structured, redacting formatter on stderr."""
    handler = logging.StreamHandler()
    handler.setFormatter(StructuredFormatter(fmt, secrets))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    # httpx logs every request URL at INFO; Telegram's URLs carry the token.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    logging.getLogger("httpcore").setLevel(logging.WARNING)
