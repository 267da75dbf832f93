"""Quoting of user-supplied values in messages and log lines.

A message such as ``quizzes/x.yaml:3: language "en" is not listed`` must stay one line whatever
the author or chat user wrote: a language key ``"\\n"`` or a user name with a line separator
would otherwise split it, and a lone surrogate would make printing it raise. :func:`quote`
writes a value in double quotes with JSON-style escapes; :func:`printable` only escapes what
breaks a line (for file paths, whose backslashes stay as they are).
"""

from __future__ import annotations

import unicodedata

_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
# What str.splitlines() or a terminal treats as a line break or cannot print: control
# characters (with U+0085), line and paragraph separators, and lone surrogates.
_UNPRINTABLE = {"Cc", "Zl", "Zp", "Cs"}


def _escape(char: str) -> str:
    if char in _SHORT:
        return _SHORT[char]
    if unicodedata.category(char) in _UNPRINTABLE:
        return f"\\u{ord(char):04x}"
    return char


def printable(value: object) -> str:
    """``value`` as text on one line: line breaks and control characters escaped."""
    text = str(value)
    if text.isprintable():  # the common case: nothing to escape
        return text
    return "".join(_escape(char) for char in text)


def quote(value: object) -> str:
    """``value`` in double quotes, ``"`` and ``\\`` escaped and always on one line."""
    text = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{printable(text)}"'
