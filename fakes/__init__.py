"""Local fakes of the platforms, for the tests and the benchmarks (never shipped).

``telegram_bot_api`` is a Bot API server that enforces Telegram's limits; ``telegram_chatter``
is the users' side of it: send commands, read what the bot showed, press its buttons.
"""
