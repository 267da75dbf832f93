"""`quizbot import` as a user runs it: what it writes, what it prints, its exit code."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from quizbot.cli import main
from tests.importers.support import SAMPLES

AIKEN = "Is this a question?\nA. Yes\nB. No\nANSWER: A\n"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["import", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_writes_the_quiz_and_says_what_to_review(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "net.yaml"
    code, stdout, stderr = run(
        capsys, str(SAMPLES / "networking.gift"), "--from", "gift", "--out", str(out)
    )
    assert code == 0, stderr
    assert stdout.startswith(f"wrote {out}: ")
    assert main(["validate", str(out)]) == 0


@pytest.mark.parametrize("where", ["folder", "missing"])
def test_a_folder_or_a_missing_folder_as_out_is_a_clear_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    source = tmp_path / "quiz.txt"
    source.write_text(AIKEN, encoding="utf-8")
    target = tmp_path if where == "folder" else tmp_path / "nope" / "quiz.yaml"
    code, stdout, stderr = run(capsys, str(source), "--from", "aiken", "--out", str(target))
    assert code == 2
    assert stdout == ""
    expected = (
        f"quizbot import: --out {tmp_path} is a folder; name the file, e.g. "
        f"{tmp_path / 'quiz'}.yaml\n"
        if where == "folder"
        else f"quizbot import: the folder {tmp_path / 'nope'} does not exist\n"
    )
    assert stderr == expected


def test_an_existing_file_is_kept_without_force(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, out = tmp_path / "quiz.txt", tmp_path / "quiz.yaml"
    source.write_text(AIKEN, encoding="utf-8")
    out.write_text("mine", encoding="utf-8")
    code, _, stderr = run(capsys, str(source), "--from", "aiken", "--out", str(out))
    assert (code, stderr) == (2, f"quizbot import: {out} exists; use --force to replace it\n")
    assert out.read_text(encoding="utf-8") == "mine"
    assert run(capsys, str(source), "--from", "aiken", "--out", str(out), "--force")[0] == 0


def test_import_fails_exactly_when_validate_refuses_its_output_and_says_the_same(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Typed-answer questions validate only where the loader knows the kind: either way the
    # import's verdict and messages must be validate's.
    out = tmp_path / "red.yaml"
    code, stdout, stderr = run(
        capsys, str(SAMPLES / "red_trivia.yaml"), "--from", "red", "--out", str(out)
    )
    validate_code = main(["validate", str(out)])
    validate_err = capsys.readouterr().err
    assert code == validate_code
    assert validate_err in stderr
    assert stdout.split("\n")[-2].endswith("errors" if code == 0 else "then `quizbot validate`)")


def test_a_list_over_500_questions_is_written_as_several_valid_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, out = tmp_path / "big.txt", tmp_path / "big.yaml"
    source.write_text("\n".join(f"Q{n}?\nA. x\nB. y\nANSWER: B\n" for n in range(501)))
    code, stdout, stderr = run(capsys, str(source), "--from", "aiken", "--out", str(out))
    assert code == 0, stderr
    assert stdout.split("\n")[:2] == [
        f"wrote {out}: 500 questions",
        f"wrote {tmp_path / 'big-2.yaml'}: 1 questions",
    ]
    assert main(["validate", str(out), str(tmp_path / "big-2.yaml")]) == 0
    capsys.readouterr()
    code, stdout, stderr = run(capsys, str(source), "--from", "aiken")
    assert code == 2
    assert stdout == ""
    assert stderr.endswith(
        "501 questions make 2 quiz files (a quiz holds at most 500 questions and 1 MiB); "
        "give --out FILE\n"
    )


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            AIKEN.encode("utf-16-le"),
            "line 1: the file looks like UTF-16 without a byte order mark; save it as UTF-8",
        ),
        (
            b"Q?\nA. a\x00b\nB. c\nANSWER: A\n",
            "line 2: the file contains NUL bytes: it is not a text file",
        ),
        (
            b"Q?\nA. caf\xe9\nB. c\nANSWER: A\n",
            "line 2: not UTF-8 text (invalid continuation byte); save it as UTF-8",
        ),
    ],
)
def test_binary_and_bomless_utf16_files_are_refused_by_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], data: bytes, message: str
) -> None:
    source = tmp_path / "quiz.txt"
    source.write_bytes(data)
    code, stdout, stderr = run(capsys, str(source), "--from", "aiken")
    assert (code, stdout) == (1, "")
    assert stderr == f"{source}:{message.removeprefix('line ')}\n".replace(":1: ", ":1: ", 1)


@pytest.mark.parametrize(
    "encoded",
    [
        codecs.BOM_UTF16_LE + AIKEN.encode("utf-16-le"),
        codecs.BOM_UTF16_BE + AIKEN.encode("utf-16-be"),
        codecs.BOM_UTF8 + AIKEN.encode("utf-8"),
    ],
)
def test_utf16_and_utf8_with_a_byte_order_mark_import(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], encoded: bytes
) -> None:
    source = tmp_path / "quiz.txt"
    source.write_bytes(encoded)
    code, stdout, _ = run(capsys, str(source), "--from", "aiken")
    assert code == 0
    assert "Is this a question?" in stdout
    assert "\ufeff" not in stdout


def test_red_choices_flag_writes_multiple_choice_questions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "red.yaml"
    code, _, stderr = run(
        capsys,
        str(SAMPLES / "red_trivia.yaml"),
        "--from",
        "red",
        "--choices",
        "3",
        "--out",
        str(out),
    )
    assert code == 0, stderr
    assert "kind: typed" not in out.read_text(encoding="utf-8")
    assert out.read_text(encoding="utf-8").count("correct: ") == 7
    code, _, stderr = run(
        capsys, str(SAMPLES / "red_trivia.yaml"), "--from", "red", "--choices", "12"
    )
    assert (code, stderr) == (2, "quizbot import: --choices must be 2 to 10, not 12\n")


def test_every_problem_is_one_file_line_problem_line_whatever_the_file_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "two\nlines.txt"
    source.write_text(AIKEN + "\nQ2?\nA. x\nB. y\nANSWER: Z\n", encoding="utf-8")
    code, _, stderr = run(capsys, str(source), "--from", "aiken", "--out", str(tmp_path / "q.yaml"))
    assert code == 0
    shown = str(source).replace("\n", "\\n")
    assert stderr.splitlines() == [
        f"{shown}:1: 1 question has no explanation (the source has none); each says "
        '"The answer is: ..." for now',
        f"{shown}:9: ANSWER: Z is not one of the options (A, B); question skipped",
    ]
    code, _, stderr = run(capsys, str(source), "--from", "aiken", "--lang", "e\nn")
    assert stderr == 'quizbot import: "e\\nn" is not a language code such as "en"\n'
