"""Terminal play: the same engine as the chat bots, driven by typed letters (and, for
typed-answer questions, typed answers).

Works interactively and with piped input (one answer per line), so a quiz can be scripted.
Every answer is committed before its feedback is printed, so stopping at any point (Ctrl-C,
end of input) loses nothing and the next run resumes at the next unanswered question.

Ctrl-C is taken by the event loop rather than raised as ``KeyboardInterrupt`` into whatever
runs: input is read without blocking the loop, so one press ends the wait for an answer at
once, while an answer already sent to the engine is finished and acknowledged first and the
database is closed normally.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import stat
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO
from zoneinfo import ZoneInfo

from bot import markup
from bot.engine import QuizEngine
from bot.i18n import t, translate
from bot.local_time import UTC_ZONE
from bot.text_direction import LRI, PDI, is_rtl, paragraph
from bot.typed_texts import typed_t
from bot.views import (
    AnswerFeedback,
    AnswerOutcome,
    ImageView,
    Participant,
    QuestionView,
    QuizResult,
    QuizSummary,
    StartOutcome,
    progress_bar,
)

PLATFORM = "terminal"
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report a Ctrl-C

# Wording of the terminal's own (the shared strings name chat commands such as /quiz).
TERMINAL_STRINGS: dict[str, dict[str, str]] = {
    "no_progress_terminal": {
        "en": "You have not taken a quiz yet. Run `quizbot play` to start a quiz.",
        "bn": "আপনি এখনও কোনো কুইজ দেননি। কুইজ শুরু করতে `quizbot play` চালান।",
        "ur": "آپ نے ابھی تک کوئی کوئز نہیں دیا۔ کوئز شروع کرنے کے لیے `quizbot play` چلائیں۔",
        "ru": "Вы ещё не проходили тесты. Запустите `quizbot play`, чтобы начать тест.",
    },
    # A question's or an explanation's picture: where to open it, and what it shows (its alt
    # text).
    "image": {
        "en": "🖼 Image: {path}",
        "bn": "🖼 ছবি: {path}",
        "ur": "🖼 تصویر: {path}",
        "ru": "🖼 Изображение: {path}",
    },
    "image_alt": {
        "en": "🖼 Image: {path} ({alt})",
        "bn": "🖼 ছবি: {path} ({alt})",
        "ur": "🖼 تصویر: {path} ({alt})",
        "ru": "🖼 Изображение: {path} ({alt})",
    },
}


def terminal_t(key: str, language: str, **values: object) -> str:
    """The terminal string ``key`` in ``language`` (English when missing), filled in."""
    return translate(TERMINAL_STRINGS, key, language, **values)


def image_line(image: ImageView, language: str) -> str:
    """Where the image is (relative to the current folder when below it) and
    what it shows; the path kept left to right in a right-to-left line."""
    path = Path(image.path)
    with contextlib.suppress(ValueError):
        path = path.relative_to(Path.cwd())
    shown = f"{LRI}{path}{PDI}" if is_rtl(language) else str(path)
    if image.alt:
        return terminal_t("image_alt", language, path=shown, alt=image.alt)
    return terminal_t("image", language, path=shown)


class EndOfInput(Exception):
    """Standard input ended: the player left."""


class Interrupted(Exception):
    """Ctrl-C was pressed: the player wants to stop now."""


class CtrlC:
    """Ctrl-C during terminal play, as the event loop sees it.

    The first press is remembered and ends the next (or current) wait for input. A second
    press before that wait came (the program is stuck, say on an unreachable database)
    cancels the run, which still closes the database on its way out; once the stop is under
    way, further presses are ignored, so the close is never cut short.
    """

    def __init__(self, run: asyncio.Task[object] | None = None) -> None:
        self.pressed = asyncio.Event()
        self.stopping = False
        self.run = run

    def press(self) -> None:
        if not self.pressed.is_set():
            self.pressed.set()
        elif not self.stopping and self.run is not None:
            # Only the run itself: cancelling every task (as KeyboardInterrupt out of the loop
            # would) also stops the database's own tasks, and its close then never finishes.
            self.run.cancel()
            self.run = None

    @classmethod
    @contextlib.contextmanager
    def caught(cls) -> Iterator[CtrlC]:
        """Take SIGINT into the running loop for the ``with`` block (where the loop cannot
        watch signals, as off the main thread, presses stay ``KeyboardInterrupt``)."""
        ctrl_c = cls(asyncio.current_task())
        loop = asyncio.get_running_loop()
        try:
            loop.add_signal_handler(signal.SIGINT, ctrl_c.press)
        except (NotImplementedError, RuntimeError, ValueError):
            yield ctrl_c
            return
        try:
            yield ctrl_c
        finally:
            loop.remove_signal_handler(signal.SIGINT)


class _Unwatchable(Exception):
    """The event loop cannot wait for this file to become readable."""


class LineReader:
    """Lines of a text stream, read without blocking the event loop where the loop can watch
    the stream (a terminal or a pipe); a regular file or an in-memory stream, which never
    keeps a reader waiting, is read directly."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.fd: int | None = None
        try:
            fd = stream.fileno()
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                self.fd = fd
        except (AttributeError, OSError, ValueError):
            pass
        self.encoding = getattr(stream, "encoding", None) or "utf-8"
        self.pending = b""
        self.ended = False

    async def readline(self) -> str:
        """The next line with its newline; at the end of input the rest, then ``""``."""
        if self.fd is None:
            return self.stream.readline()
        while b"\n" not in self.pending and not self.ended:
            try:
                chunk = await self._read_when_ready(self.fd)
            except _Unwatchable:  # /dev/null, or a loop that cannot watch files (Windows)
                self.fd = None
                return self.pending.decode(self.encoding, "replace") + self.stream.readline()
            if chunk:
                self.pending += chunk
            else:
                self.ended = True
        line, newline, self.pending = self.pending.partition(b"\n")
        return (line + newline).decode(self.encoding, "replace")

    @staticmethod
    async def _read_when_ready(fd: int) -> bytes:
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[None] = loop.create_future()

        def wake() -> None:
            if not ready.done():
                ready.set_result(None)

        try:
            loop.add_reader(fd, wake)
        except (NotImplementedError, OSError) as exc:
            raise _Unwatchable from exc
        try:
            await ready
        finally:
            loop.remove_reader(fd)
        try:
            return os.read(fd, 65536)
        except BlockingIOError:  # another process sharing the terminal read it first
            return await LineReader._read_when_ready(fd)
        except OSError:  # the terminal went away (hang-up): as the end of input
            return b""


def display_width(text: str) -> int:
    """Columns ``text`` takes in a terminal: wide (East Asian, most emoji) characters take
    two, combining marks and invisible controls none, every other character one."""
    width = 0
    for index, char in enumerate(text):
        if unicodedata.category(char) in ("Mn", "Me", "Cf") or char == "\u200b":
            continue
        if (
            unicodedata.east_asian_width(char) in ("W", "F")
            or text[index + 1 : index + 2] == "\ufe0f"
        ):
            width += 2
        else:
            width += 1
    return width


# The label a wrapped line's continuation lines are indented past: "  A. ", "  ✓ 3. ", "  1. ".
_LABEL = re.compile(r"^\s*(?:[✓✗·] )?(?:[A-J]|\d+)\. (?=\S)|^\s+")
_WORD = re.compile(r"\s*\S+")


def wrap(line: str, width: int) -> list[str]:
    """``line`` broken at spaces into lines of at most ``width`` columns (a word longer than
    that stays whole on its own line); a labelled line continues under its text. A
    left-to-right isolate that a break falls into is closed at the end of the line and
    opened again on the next, so each line is laid out on its own as a whole."""
    if display_width(line) <= width:
        return [line]
    label = _LABEL.match(line)
    hang = " " * display_width(label.group(0)) if label else ""
    if len(hang) > width // 2:
        hang = ""
    lines: list[str] = []
    current = ""
    for word in _WORD.findall(line):
        if current.strip() and display_width(current + word) > width:
            lines.append(current)
            current = hang + word.lstrip()
        else:
            current += word
    lines.append(current)
    balanced = []
    carried = False
    for part in lines:
        if carried:
            part = part[: len(hang)] + LRI + part[len(hang) :]
        carried = part.count(LRI) > part.count(PDI)
        balanced.append(part + PDI if carried else part)
    return balanced


CODE_INDENT = "    "


def code_lines(text: str) -> list[tuple[str, bool]]:
    """``text``'s lines as (line, is code): a fenced block's lines indented, without its fences;
    inline code stays as written, backticks and all."""
    if "```" not in text:
        return [(line, False) for line in text.split("\n")]
    lines: list[tuple[str, bool]] = []
    current = ""
    for span in markup.parse(text):
        if isinstance(span, markup.Block):
            # The line break before the fence ends the text's last line; text before a fence
            # on its line ("  A. ") stays a line of its own.
            head = current.removesuffix("\n")
            if current:
                lines += [(line, False) for line in head.split("\n")]
            lines += [(CODE_INDENT + line if line else "", True) for line in span.code.split("\n")]
            current = ""
            continue
        piece = markup.source([span])
        if lines and lines[-1][1] and not current:  # the closing fence's own line break
            piece = piece.removeprefix("\n")
        current += piece
    if current or not lines:
        lines += [(line, False) for line in current.split("\n")]
    return lines


def terminal_width(stream: TextIO) -> int | None:
    """The columns to wrap ``stream``'s lines to: its terminal's width less one (emoji and
    some scripts are drawn wider by some terminals than they measure), None when it is not
    a terminal (a pipe or file gets one line per paragraph). ``COLUMNS`` overrides."""
    try:
        if not stream.isatty():
            return None
        columns = os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError):
        return None
    with contextlib.suppress(ValueError):
        columns = int(os.environ.get("COLUMNS", "")) or columns
    return max(20, columns - 1) if columns > 0 else None


class TerminalPlayer:
    """Plays quizzes for one terminal user on ``stdin``/``stdout``."""

    def __init__(
        self,
        engine: QuizEngine,
        who: Participant,
        stdin: TextIO,
        stdout: TextIO,
        ctrl_c: CtrlC | None = None,
    ) -> None:
        self.engine = engine
        self.who = who
        self.stdin = stdin
        self.stdout = stdout
        self.reader = LineReader(stdin)
        self.ctrl_c = ctrl_c or CtrlC()

    def say(self, text: str = "", language: str = "en") -> None:
        """Write ``text`` wrapped to the terminal; a code block's lines are never wrapped and
        get no direction mark (both would change the code)."""
        width = terminal_width(self.stdout)
        out = []
        for line, code in code_lines(text):
            if code:
                out.append(line)
                continue
            for part in wrap(line, width) if width is not None else [line]:
                out.append(paragraph(part, language))
        self.stdout.write("\n".join(out) + "\n")
        self.stdout.flush()

    async def ask(self, prompt: str, language: str) -> str:
        self.stdout.write(paragraph(prompt, language))
        self.stdout.flush()
        line = await self.read_line()
        if not line:
            self.stdout.write("\n")
            raise EndOfInput
        if not self.stdin.isatty():  # echo piped answers so a transcript reads naturally
            self.stdout.write(line if line.endswith("\n") else line + "\n")
        return line.strip()

    async def read_line(self) -> str:
        """The next line typed, or :class:`Interrupted` as soon as Ctrl-C is pressed (also
        when it was pressed before: nothing typed after a Ctrl-C is taken as an answer)."""
        pressed = self.ctrl_c.pressed
        if pressed.is_set():
            raise Interrupted
        reading = asyncio.ensure_future(self.reader.readline())
        waiting = asyncio.ensure_future(pressed.wait())
        try:
            await asyncio.wait({reading, waiting}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            waiting.cancel()
            if not reading.done():
                reading.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await reading
        if pressed.is_set():
            raise Interrupted
        return reading.result()

    async def play(
        self,
        quiz_id: str | None,
        *,
        review: bool = False,
        tag: str | None = None,
        zone: ZoneInfo = UTC_ZONE,
    ) -> int:
        """Play (or, with ``review``, practise missed questions) until the quiz ends, input
        does or Ctrl-C is pressed; returns the process exit code. ``tag``: play only the
        quiz's questions carrying it; ``zone``: the user's, for when the next review is."""
        try:
            return await self._play(quiz_id, review, tag, zone)
        except EndOfInput:
            await self._saved()
            return 0
        except Interrupted:
            self.ctrl_c.stopping = True
            self.stdout.write("\n")
            await self._saved()
            return EXIT_INTERRUPTED
        finally:
            self.ctrl_c.stopping = True

    async def _saved(self) -> None:
        language = await self.engine.interface_language(self.who)
        self.say(t("saved_and_exit", language), language)

    async def _play(
        self, quiz_id: str | None, review: bool, tag: str | None, zone: ZoneInfo
    ) -> int:
        if review:
            start = await self.engine.start_review(self.who, quiz_id, zone=zone)
            if start.outcome is StartOutcome.NOTHING_DUE:
                self.say(start.notice, start.language)
                return 0
        else:
            start = await self.engine.start(self.who, quiz_id, tag=tag)
        if start.outcome is StartOutcome.CHOOSE:
            quiz_id = await self.choose(start.quizzes, start.language)
            start = await self.engine.start(self.who, quiz_id, tag=tag)
        if start.question is None:
            self.say(start.notice, start.language)
            usage = (StartOutcome.UNKNOWN_QUIZ, StartOutcome.UNKNOWN_TAG)
            return 2 if start.outcome in usage else 1
        question = start.question
        self.say(f"== {question.quiz_title} ==", question.language)
        if start.notice:
            self.say(start.notice, start.language)
        while True:
            feedback = await self.answer(question)
            self.show_feedback(feedback)
            if feedback.result is not None:
                self.show_result(feedback.result)
                return 0
            if feedback.next_question is None:  # stopped elsewhere meanwhile
                return 0
            question = feedback.next_question

    async def choose(self, quizzes: tuple[QuizSummary, ...], language: str) -> str:
        self.say(t("choose_quiz", language), language)
        for number, quiz in enumerate(quizzes, start=1):
            self.say(
                f"  {number}. "
                + t("quiz_summary", language, title=quiz.title, count=quiz.question_count)
                + f"  [{quiz.id}]",
                language,
            )
        ids = [q.id for q in quizzes]
        while True:
            choice = await self.ask(f"1-{len(quizzes)}: ", language)
            if choice.isdigit() and 1 <= int(choice) <= len(quizzes):
                return ids[int(choice) - 1]
            if choice in ids:
                return choice

    def show_question(self, question: QuestionView) -> None:
        lang = question.language
        bar = progress_bar(question.number, question.total)
        self.say()
        self.say(
            t("question_progress", lang, number=question.number, total=question.total) + f"  {bar}",
            lang,
        )
        self.say(question.text, lang)
        if question.image is not None:
            self.say(image_line(question.image, lang), lang)
        if question.typed:
            self.say(typed_t("typed_hint", lang), lang)
        for option in question.options:
            self.say(f"  {option.letter}. {option.text}", lang)

    async def answer(self, question: QuestionView) -> AnswerFeedback:
        """Ask until a valid letter is typed, then answer through the engine."""
        self.show_question(question)
        lang = question.language
        if question.typed:
            return await self.answer_typed(question)
        letters = [o.letter for o in question.options]
        shown = "/".join(letters)
        while True:
            typed = (await self.ask(t("answer_prompt", lang, letters=shown), lang)).upper()
            index = letters.index(typed) if typed in letters else None
            if index is None and typed.isdigit() and 1 <= int(typed) <= len(letters):
                index = int(typed) - 1
            if index is not None:
                return await self.engine.answer_by_option(
                    self.who,
                    question.attempt_id,
                    question.question_id,
                    question.options[index].id,
                )
            self.say(t("answer_hint", lang, letters=", ".join(letters)), lang)

    async def answer_typed(self, question: QuestionView) -> AnswerFeedback:
        """Ask until something answerable is typed, then answer through the engine."""
        lang = question.language
        while True:
            typed = await self.ask(typed_t("typed_prompt", lang), lang)
            feedback = await self.engine.answer_text(
                self.who, question.attempt_id, question.number, typed
            )
            if feedback.outcome is not AnswerOutcome.INVALID:
                return feedback
            self.say(typed_t("typed_again", lang), lang)

    def show_feedback(self, feedback: AnswerFeedback) -> None:
        lang = feedback.language
        self.say(feedback.notice, lang)
        if feedback.accepted_answer is not None:  # a typed question
            if not feedback.correct:
                self.say(t("correct_answer", lang, answer=feedback.accepted_answer), lang)
            self.show_explanation(feedback)
            return
        if feedback.correct_option is None or feedback.explanation is None:
            return
        if not feedback.correct:
            answer = f"{feedback.correct_option.letter}. {feedback.correct_option.text}"
            self.say(t("correct_answer", lang, answer=answer), lang)
            if feedback.wrong_note:
                self.say(feedback.wrong_note, lang)
        self.show_explanation(feedback)

    def show_explanation(self, feedback: AnswerFeedback) -> None:
        """The explanation (a typed question's may have none), then where its image is."""
        lang = feedback.language
        if feedback.explanation:
            self.say(f"{t('explanation', lang)}: {feedback.explanation}", lang)
        if feedback.explanation_image is not None:
            self.say(image_line(feedback.explanation_image, lang), lang)

    def show_result(self, result: QuizResult) -> None:
        lang = result.language
        self.say()
        self.say(t("result_title", lang, title=result.quiz_title), lang)
        self.say(
            t("score", lang, correct=result.correct, total=result.total, percent=result.percent),
            lang,
        )
        for mark in result.marks:
            sign = "✓" if mark.correct else ("✗" if mark.correct is False else "·")
            self.say(f"  {sign} {mark.number}. {markup.one_line(mark.text)}", lang)
