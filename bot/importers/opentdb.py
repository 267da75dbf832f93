"""Open Trivia DB: the JSON its API answers (``{"response_code": 0, "results": [...]}``).

Texts come HTML-escaped (``&quot;``, ``&#039;``) and are decoded; files downloaded with the
API's other encodings (base64, url3986, urlLegacy) are decoded too. The API lists the right answer
apart from the wrong ones; it is put at a position derived from the question text, so the answer
key is stable across imports and is not always ``a``. A result without ``"type"`` (some tools
drop it) is read by its answers. Open Trivia DB has no explanations: the stand-in is reported
once for the file. Its content is licensed CC BY-SA 4.0, so the quiz description credits it.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import html
import json
import re
import urllib.parse
import zlib
from typing import Any

from bot.importers.base import (
    DraftOption,
    DraftQuestion,
    ImportResult,
    QuizBuilder,
    QuizImportError,
    QuizMeta,
)
from bot.quoting import printable, quote

_RESPONSE_CODES = {
    1: "no results: the category has fewer questions than were asked for",
    2: "invalid parameter in the request",
    3: "session token not found",
    4: "session token has returned every question; reset it",
    5: "rate limit: too many requests",
}
_LEVELS = {"easy": "beginner", "medium": "intermediate", "hard": "advanced"}
_ENCODED_TYPES = {"bXVsdGlwbGU=", "Ym9vbGVhbg=="}  # "multiple", "boolean" in base64
_CREDIT = "from the Open Trivia Database (opentdb.com), licensed CC BY-SA 4.0."
_WHITESPACE = re.compile(r"[ \t\n\r]*")


def import_opentdb(text: str, meta: QuizMeta) -> ImportResult:
    """Convert an Open Trivia DB API response; unusable results become problems."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise QuizImportError(exc.lineno, f"not valid JSON: {exc.msg}") from None
    except (ValueError, RecursionError) as exc:  # e.g. huge integers, deep nesting
        raise QuizImportError(1, f"not valid JSON: {printable(exc)}") from None
    if isinstance(data, dict):
        code = data.get("response_code", 0)
        if isinstance(code, str) and code.strip().isdigit():  # some tools save it as text
            code = int(code)
        if code != 0:
            meaning = _RESPONSE_CODES.get(code, "unknown") if type(code) is int else "unknown"
            shown = quote(code) if isinstance(code, str) else printable(json.dumps(code))
            raise QuizImportError(1, f"the API answered response_code {shown} ({meaning})")
        results = data.get("results")
    else:
        results = data  # a bare list of results, as some tools save them
    if not isinstance(results, list):
        raise QuizImportError(1, 'expected an Open Trivia DB response with a "results" list')

    lines = _result_lines(text)
    results = _decoded(results)
    builder = QuizBuilder(meta, each_missing_explanation=False)
    difficulties: set[str | None] = set()
    categories: set[str | None] = set()
    for index, item in enumerate(results):
        line = lines[index] if index < len(lines) else 1
        draft = _draft(builder, item, index + 1, line)
        if draft is not None and builder.add(draft) is not None:
            assert isinstance(item, dict)
            difficulty, category = item.get("difficulty"), item.get("category")
            difficulties.add(difficulty if isinstance(difficulty, str) else None)
            categories.add(category if isinstance(category, str) else None)
    # A quiz has one level and one topic: only a uniform source gives them.
    uniform = difficulties.pop() if len(difficulties) == 1 else None
    level = _LEVELS.get(uniform) if uniform is not None else None
    topic = categories.pop() if len(categories) == 1 else None
    category = html.unescape(topic).strip() if topic is not None else ""
    description = f"{category} trivia {_CREDIT}" if category else f"Trivia {_CREDIT}"
    return builder.result(level=level, description=description)


_TEXT_FIELDS = ("type", "difficulty", "category", "question", "correct_answer")


def _decoded(results: list[Any]) -> list[Any]:
    """Results downloaded with ``encode=base64``, ``url3986`` or ``urlLegacy``, decoded.

    Base64 shows in the type ("bXVsdGlwbGU=" is "multiple"); the URL encodings in question
    texts without a single space but with %XX or + (``unquote_plus`` reads both: url3986
    encodes a literal + as %2B).
    """
    items = [item for item in results if isinstance(item, dict)]
    kinds = [item.get("type") for item in items]
    if any(isinstance(kind, str) and kind in _ENCODED_TYPES for kind in kinds):
        return [
            _map_texts(item, _from_base64) if isinstance(item, dict) else item for item in results
        ]
    questions = [item.get("question") for item in items]
    texts = [q for q in questions if isinstance(q, str)]
    if (
        texts
        and not any(" " in q for q in texts)
        and any(re.search(r"%[0-9A-Fa-f]{2}|\+", q) for q in texts)
    ):
        return [
            _map_texts(item, urllib.parse.unquote_plus) if isinstance(item, dict) else item
            for item in results
        ]
    return results


def _from_base64(text: str) -> str:
    try:
        return base64.b64decode(text, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return text  # left as it is: the item is then reported as it stands


def _map_texts(item: dict[str, Any], decode: Any) -> dict[str, Any]:
    decoded = dict(item)
    for key in _TEXT_FIELDS:
        if isinstance(item.get(key), str):
            decoded[key] = decode(item[key])
    wrong = item.get("incorrect_answers")
    if isinstance(wrong, list):
        decoded["incorrect_answers"] = [decode(w) if isinstance(w, str) else w for w in wrong]
    decoded["_decoded"] = True  # already plain text: no HTML entities to decode
    return decoded


def _draft(builder: QuizBuilder, item: Any, number: int, line: int) -> DraftQuestion | None:
    where = f"result {number}"
    if not isinstance(item, dict):
        builder.problem(line, f"{where} is not an object; skipped")
        return None
    question, right = item.get("question"), item.get("correct_answer")
    if "type" not in item:
        kind = _kind_of(item)
        if kind is None:
            builder.problem(
                line,
                f'{where} has no "type" field, and its answers do not show one (boolean: '
                '"True"/"False"; multiple: a list "incorrect_answers"); skipped',
            )
            return None
    else:
        kind = item["type"]
        if kind not in ("multiple", "boolean"):
            shown = quote(kind if isinstance(kind, str) else json.dumps(kind)[:60])
            builder.problem(line, f"{where} has an unknown type {shown}; skipped")
            return None
    if not isinstance(question, str) or not isinstance(right, str):
        builder.problem(line, f'{where} has no "question" or "correct_answer" text; skipped')
        return None
    unescape = (lambda t: t) if item.get("_decoded") else html.unescape
    question, right = unescape(question), unescape(right)
    if kind == "boolean":  # the options are always True and False: incorrect_answers adds nothing
        if right.strip().lower() not in ("true", "false"):
            builder.problem(line, f"{where}: a boolean answer must be True or False; skipped")
            return None
        options = [
            DraftOption(builder.word("true", line)),
            DraftOption(builder.word("false", line)),
        ]
        correct = 0 if right.strip().lower() == "true" else 1
    else:
        wrong = item.get("incorrect_answers")
        if not isinstance(wrong, list) or not all(isinstance(w, str) for w in wrong):
            builder.problem(line, f'{where}: "incorrect_answers" must be a list of texts; skipped')
            return None
        options = [DraftOption(unescape(w)) for w in wrong]
        correct = zlib.crc32(question.encode("utf-8", "surrogatepass")) % (len(options) + 1)
        options.insert(correct, DraftOption(right))
    return DraftQuestion(line=line, text=question, options=options, correct=correct)


def _kind_of(item: dict[str, Any]) -> str | None:
    """The type of a result saved without ``"type"``, as its answers show it, or None."""
    right, wrong = item.get("correct_answer"), item.get("incorrect_answers")
    if not isinstance(right, str):
        return None
    truth = right.strip().lower()
    if truth in ("true", "false") and (
        wrong is None
        or (
            isinstance(wrong, list)
            and [str(w).strip().lower() for w in wrong]
            in ([], ["false" if truth == "true" else "true"])
        )
    ):
        return "boolean"
    if isinstance(wrong, list) and wrong:
        return "multiple"
    return None


def _result_lines(text: str) -> list[int]:
    """The line on which each result starts, found by walking the (already valid) JSON.

    ``json`` keeps no positions, and API answers are often pretty-printed by the people who
    save them, so the line is what lets a problem point at its result.
    """
    decoder = json.JSONDecoder()
    breaks = [m.start() for m in re.finditer("\n", text)]

    def skip(index: int) -> int:
        match = _WHITESPACE.match(text, index)
        return match.end() if match else index

    def items(index: int) -> tuple[list[int], int]:  # index is at "["
        starts: list[int] = []
        index = skip(index + 1)
        if text[index] == "]":
            return starts, index + 1
        while True:
            starts.append(bisect.bisect_left(breaks, index) + 1)
            _, index = decoder.raw_decode(text, index)
            index = skip(index)
            if text[index] != ",":
                return starts, index + 1
            index = skip(index + 1)

    try:
        index = skip(0)
        if text[index] == "[":
            return items(index)[0]
        found: list[int] = []
        index = skip(index + 1)
        while text[index] != "}":
            key, index = decoder.raw_decode(text, index)
            index = skip(skip(index) + 1)  # past ":"
            if key == "results" and text[index] == "[":
                found, index = items(index)  # a repeated key wins, as in json.loads
            else:
                _, index = decoder.raw_decode(text, index)
            index = skip(index)
            if text[index] == ",":
                index = skip(index + 1)
        return found
    except (ValueError, IndexError, RecursionError):
        return []  # lines are a courtesy: without them, problems name the result number
