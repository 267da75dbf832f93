"""The Telegram adapter: python-telegram-bot in front of the quiz engine.

``app`` wires and runs the Application on a :class:`TelegramConfig` the wiring builds;
``commands`` and ``callbacks`` handle what users send and press; ``messenger`` sends and edits
within Telegram's limits; ``menu_sync`` registers the command menu; ``group_rounds`` runs
shared rounds. See the README's "How it is built".
"""

from adapters.telegram.app import TelegramAdapter
from adapters.telegram.config import TelegramConfig, WebMount

__all__ = ["TelegramAdapter", "TelegramConfig", "WebMount"]
