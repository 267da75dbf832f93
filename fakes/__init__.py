"""Local fakes of the platforms, for the tests and the benchmarks (never shipped).

``telegram_bot_api`` is a Bot API server that enforces Telegram's limits; ``telegram_chatter``
is the users' side of it: send commands, read what the bot showed, press its buttons.
``discord_api`` is Discord's REST API and gateway with Discord's rules (the 3 s deadline,
payload limits); ``discord_users`` are the members who type commands and press buttons there.
"""
