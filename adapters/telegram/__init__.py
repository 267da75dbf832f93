"""The Telegram adapter: python-telegram-bot in front of the quiz engine."""

from adapters.telegram.adapter import TelegramAdapter

__all__ = ["TelegramAdapter"]
