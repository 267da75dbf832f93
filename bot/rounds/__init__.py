"""Group rounds: a chat plays one quiz together against the clock, beside the engine.

- :mod:`bot.rounds.views`: what a round shows (question, reveal, ranking, leaderboard).
- :mod:`bot.rounds.service`: :class:`GroupRounds`, the rules (start, answer, close, stop).
- :mod:`bot.rounds.history`: an ended round copied into each member's own history.
- :mod:`bot.rounds.driver`: :class:`RoundDriver`, timers, leases and the outbox over time.
- :mod:`bot.rounds.clock`: time as rounds see it.
"""

from bot.rounds.clock import RoundClock, SystemClock
from bot.rounds.driver import LeaseLost, LiveQuestion, RoundDriver, RoundTiming, message_scope
from bot.rounds.history import RoundHistory
from bot.rounds.service import (
    DEFAULT_TIME_LIMIT,
    MAX_TIME_LIMIT,
    MIN_TIME_LIMIT,
    GroupRounds,
    RoundsStorage,
    StreakSource,
)
from bot.rounds.views import (
    Leaderboard,
    LeaderboardLine,
    MemberStreak,
    OptionCount,
    RoundAnswerOutcome,
    RoundAnswerResult,
    RoundEnd,
    RoundQuestion,
    RoundReveal,
    RoundStart,
    RoundStartOutcome,
    ScoreLine,
)

__all__ = [
    "DEFAULT_TIME_LIMIT",
    "MAX_TIME_LIMIT",
    "MIN_TIME_LIMIT",
    "GroupRounds",
    "Leaderboard",
    "LeaderboardLine",
    "LeaseLost",
    "LiveQuestion",
    "MemberStreak",
    "OptionCount",
    "RoundAnswerOutcome",
    "RoundAnswerResult",
    "RoundClock",
    "RoundDriver",
    "RoundEnd",
    "RoundHistory",
    "RoundQuestion",
    "RoundReveal",
    "RoundStart",
    "RoundStartOutcome",
    "RoundTiming",
    "RoundsStorage",
    "ScoreLine",
    "StreakSource",
    "SystemClock",
    "message_scope",
]
