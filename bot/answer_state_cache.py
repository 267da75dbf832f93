"""The answer states this process read or wrote last, so that the next press in an attempt
costs one round trip to the database (the guarded write) instead of two (read, then write).

A remembered state is a hint, never the truth: every write decided from one carries an
:class:`~bot.storage.ExpectedState` that the database checks in the same statement, and any
other outcome than a stored answer is decided again from a fresh read. So several replicas,
a second process on the same SQLite file, or an answer given elsewhere can make an entry
stale, but never make the engine record or refuse anything wrongly.
"""

from __future__ import annotations

from collections import OrderedDict

from bot.storage import AnswerState

# (attempt id, platform, answering user's id)
AnswerKey = tuple[int, str, str]

DEFAULT_CAPACITY = 2048  # attempts in progress at once (a miss costs one read, not a refusal)


class AnswerStateCache:
    """A bounded map from an attempt and its answering user to their last known state; the
    least recently used entry goes first."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        self.capacity = capacity
        self._states: OrderedDict[AnswerKey, AnswerState] = OrderedDict()

    def __len__(self) -> int:
        return len(self._states)

    def get(self, key: AnswerKey) -> AnswerState | None:
        state = self._states.get(key)
        if state is not None:
            self._states.move_to_end(key)
        return state

    def put(self, key: AnswerKey, state: AnswerState) -> None:
        if self.capacity <= 0:
            return
        self._states[key] = state
        self._states.move_to_end(key)
        while len(self._states) > self.capacity:
            self._states.popitem(last=False)

    def forget(self, key: AnswerKey) -> None:
        self._states.pop(key, None)
