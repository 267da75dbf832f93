"""``quizbot play`` in a real pseudo-terminal: Ctrl-C, Ctrl-D and wrapping, as a person sees
them (a pipe hides all three: its end of input unblocks any read, and it has no width)."""

from __future__ import annotations

import fcntl
import os
import re
import select
import sqlite3
import struct
import subprocess
import sys
import termios
import time
import unicodedata
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bot.catalog import QuizCatalog
from bot.text_direction import strip_controls
from tests.conftest import QUIZ_DIR, ROOT, SEED_QUIZ
from tests.test_terminal import quizbot
from tests.typed_quiz import RIGHT, TYPED_QUIZ_ID, typed_quiz_dir

PROMPT = re.compile(r"\): $|: $")  # the answer prompt, the typed-answer prompt, the choice
SAVED = "Progress saved. Run the same command again to continue."


class Terminal:
    """``quizbot`` on the slave side of a pty whose master the test types into and reads;
    the pty is the child's controlling terminal, so ``^C`` becomes SIGINT as in a shell."""

    def __init__(
        self, args: list[str], db: Path, columns: int = 80, env: dict[str, str] | None = None
    ):
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
        environment = {
            **os.environ,
            "DATABASE_URL": f"sqlite:///{db}",
            "QUIZ_DIR": str(QUIZ_DIR),
            "LANG": "C.UTF-8",
            **(env or {}),
        }
        environment.pop("COLUMNS", None)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "quizbot", *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=ROOT,
            env=environment,
            start_new_session=True,
            # Make the pty the new session's controlling terminal (fd 0 is the slave here).
            preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0),
        )
        os.close(slave)
        self.master = master
        self.output = b""

    @property
    def text(self) -> str:
        return strip_controls(self.output.decode("utf-8", "replace")).replace("\r\n", "\n")

    def _read(self, timeout: float) -> bool:
        """Read what is there within ``timeout`` seconds; False once the child closed the pty."""
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return True
        try:
            chunk = os.read(self.master, 65536)
        except OSError:  # EIO: every slave descriptor is closed
            return False
        self.output += chunk
        return bool(chunk)

    def expect(self, pattern: str | re.Pattern[str], timeout: float = 20) -> None:
        """Wait until the output (past what was already matched) ends in ``pattern``."""
        regex = re.compile(re.escape(pattern) if isinstance(pattern, str) else pattern.pattern)
        deadline = time.monotonic() + timeout
        while not regex.search(self.text):
            assert time.monotonic() < deadline, f"no {regex.pattern!r} in:\n{self.text}"
            assert self._read(0.1), f"quizbot ended early:\n{self.text}"

    def prompt_count(self) -> int:
        return len(re.findall(r"\(A/B/C/D\): ", self.text))

    def type(self, keys: bytes) -> None:
        os.write(self.master, keys)

    def answer(self, letter: str) -> None:
        """Wait for the next answer prompt, type ``letter`` and wait for its feedback."""
        seen = self.prompt_count()
        deadline = time.monotonic() + 20
        while self.prompt_count() == seen and not self.text.endswith("): "):
            assert time.monotonic() < deadline, self.text
            assert self._read(0.1), self.text
        feedback = len(re.findall(r"✅|❌", self.text))
        self.type(letter.encode() + b"\n")
        while len(re.findall(r"✅|❌", self.text)) == feedback:
            assert time.monotonic() < deadline, self.text
            assert self._read(0.1), self.text

    def wait_for_prompt(self) -> None:
        deadline = time.monotonic() + 20
        while not PROMPT.search(self.text):
            assert time.monotonic() < deadline, self.text
            assert self._read(0.1), self.text

    def finish(self, timeout: float = 5) -> int:
        """The exit code, reading the output to the end; fails (and kills the child) when it
        does not end within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while self.process.poll() is None or self._read(0):
            if time.monotonic() > deadline:
                self.process.kill()
                self.process.wait()
                pytest.fail(f"quizbot did not exit within {timeout}s:\n{self.text}")
            if not self._read(0.05):
                self.process.wait(max(0.0, deadline - time.monotonic()))
                break
        return self.process.wait()

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        os.close(self.master)


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[Callable[..., Terminal]]:
    opened: list[Terminal] = []

    def start(args: list[str], columns: int = 80, env: dict[str, str] | None = None) -> Terminal:
        opened.append(Terminal(args, tmp_path / "t.db", columns, env))
        return opened[-1]

    yield start
    for term in opened:
        term.close()


def stored_answers(db: Path) -> list[str]:
    with sqlite3.connect(db) as connection:
        return [row[0] for row in connection.execute("SELECT question_id FROM answers")]


def test_one_ctrl_c_at_the_answer_prompt_saves_and_exits_at_once(terminal, tmp_path):
    term = terminal(["play", SEED_QUIZ, "--user", "cc"])
    term.answer("A")
    term.wait_for_prompt()
    started = time.monotonic()
    term.type(b"\x03")
    code = term.finish(timeout=10)
    assert code == 130
    assert time.monotonic() - started < 5
    assert SAVED in term.text
    assert "Traceback" not in term.text
    assert stored_answers(tmp_path / "t.db") == ["why-shard"]  # the one acknowledged
    progress = quizbot(["progress", "--user", "cc"], tmp_path / "t.db")
    assert "in progress, 1/8 answered" in progress.stdout


def test_what_is_typed_after_ctrl_c_is_never_stored(terminal, tmp_path):
    term = terminal(["play", SEED_QUIZ, "--user", "cc"])
    term.answer("B")
    term.wait_for_prompt()
    term.type(b"\x03")
    term.type(b"A\n")  # typed on, as after a Ctrl-C that seemed to do nothing
    code = term.finish(timeout=10)
    assert code == 130
    assert "Traceback" not in term.text
    assert stored_answers(tmp_path / "t.db") == ["why-shard"]


def test_ctrl_c_pressed_twice_still_exits_cleanly(terminal, tmp_path):
    term = terminal(["play", SEED_QUIZ, "--user", "cc"])
    term.answer("C")
    term.wait_for_prompt()
    term.type(b"\x03\x03")  # the second before the first was acted on
    assert term.finish(timeout=10) == 130
    assert "Traceback" not in term.text and SAVED in term.text
    assert stored_answers(tmp_path / "t.db") == ["why-shard"]


def test_ctrl_c_with_a_half_typed_answer_stores_nothing(terminal, tmp_path):
    term = terminal(["play", SEED_QUIZ, "--user", "cc"])
    term.wait_for_prompt()
    term.type(b"B")  # no Enter: the line discipline drops it on Ctrl-C
    term.type(b"\x03")
    assert term.finish(timeout=10) == 130
    assert stored_answers(tmp_path / "t.db") == []


def test_ctrl_c_at_the_typed_answer_prompt(terminal, tmp_path):
    env = {"QUIZ_DIR": str(typed_quiz_dir(tmp_path))}
    term = terminal(["play", TYPED_QUIZ_ID, "--user", "cc"], env=env)
    term.expect("Your answer: ")
    term.type(RIGHT["band"].encode() + b"\n")
    term.expect("✅ Correct")
    term.expect(re.compile(r"Pikachu[^\n]*\n(?:.*\n)*Your answer: $"))
    term.type(b"\x03")
    assert term.finish(timeout=10) == 130
    assert SAVED in term.text and "Traceback" not in term.text
    assert stored_answers(tmp_path / "t.db") == ["band"]


def test_ctrl_c_at_the_quiz_choice(terminal, tmp_path):
    quizzes = tmp_path / "quizzes"
    quizzes.mkdir()
    seed = (QUIZ_DIR / f"{SEED_QUIZ}.yaml").read_text(encoding="utf-8")
    for name in ("alpha", "beta"):
        (quizzes / f"{name}.yaml").write_text(
            seed.replace("id: checkpoint-sharding", f"id: {name}"), "utf-8"
        )
    term = terminal(["play", "--user", "cc"], env={"QUIZ_DIR": str(quizzes)})
    term.expect("1-2: ")
    term.type(b"\x03")
    assert term.finish(timeout=10) == 130
    assert SAVED in term.text and "Traceback" not in term.text


def test_ctrl_d_at_the_prompt_saves_and_exits(terminal, tmp_path):
    term = terminal(["play", SEED_QUIZ, "--user", "cd"])
    term.answer("A")
    term.wait_for_prompt()
    term.type(b"\x04")
    assert term.finish(timeout=10) == 0
    assert SAVED in term.text and "Traceback" not in term.text
    assert stored_answers(tmp_path / "t.db") == ["why-shard"]


def columns_taken(line: str) -> int:
    """Columns a terminal gives ``line``: wide characters two, combining marks none."""
    return sum(
        0
        if unicodedata.category(char) in ("Mn", "Me", "Cf")
        else 2
        if unicodedata.east_asian_width(char) in ("W", "F")
        else 1
        for char in line
    )


def explanation(catalog: QuizCatalog, language: str) -> str:
    quiz = catalog.get(SEED_QUIZ)
    assert quiz is not None
    return quiz.questions[0].explanation.get(language)


@pytest.mark.parametrize("language", ["en", "bn", "ur", "ru"])
def test_long_texts_wrap_at_the_terminal_width_between_words(terminal, catalog, language):
    columns = 50
    term = terminal(["play", SEED_QUIZ, "--user", "wr", "--lang", language], columns=columns)
    term.answer("A")
    term.wait_for_prompt()
    term.type(b"\x04")  # Ctrl-D: end of input
    term.finish(timeout=10)
    lines = term.text.split("\n")
    too_wide = [line for line in lines if columns_taken(line) > columns]
    assert not too_wide
    # Every word of the (long) explanation arrives whole, and in order.
    words = explanation(catalog, language).split()
    shown = " ".join(" ".join(lines).split())
    assert " ".join(words) in shown


def test_a_break_inside_a_latin_run_keeps_each_line_isolated():
    from adapters.terminal import wrap
    from bot.text_direction import LRI, PDI, prepare

    text = prepare("شارڈ کا حساب data parallel times tensor parallel ہے", "ur")
    lines = wrap(text, 24)
    assert len(lines) > 1
    for line in lines:
        assert line.count(LRI) == line.count(PDI)
    assert strip_controls(" ".join(lines)).split() == strip_controls(text).split()
