"""Images in quiz files: checked at load by content, every refusal a ``file:line`` problem."""

from __future__ import annotations

import dataclasses
import hashlib
import io
import textwrap
from pathlib import Path

import pytest
from PIL import Image

from bot.image_files import MAX_IMAGE_BYTES
from bot.quiz_loader import MAX_ALT_CHARS, load_quiz_file
from quizbot.cli import main
from tests.images import (
    EXPLAINED,
    PICTURES,
    animation,
    bomb_png,
    cut_short,
    picture,
    write_explained_quiz,
    write_picture_quiz,
)

QUIZ = textwrap.dedent(
    """\
    title: Images
    languages: [en, ru]
    questions:
      - id: q1
        text: Which shape?
        options: [{id: a, text: Round}, {id: b, text: Square}]
        correct: a
        explanation: It is round.
        {KEY}: {IMAGE}
    """
)
IMAGE_LINE = 9


def load_with(
    tmp_path: Path, image: str, files: dict[str, bytes], key: str = "image"
) -> tuple[list[str], Path]:
    """Load a one-question quiz naming ``image`` (as its ``key``: ``image`` or
    ``explanation_image``), beside ``files``; its errors."""
    for name, data in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(data)
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "quiz.yaml"
    path.write_text(QUIZ.replace("{KEY}", key).replace("{IMAGE}", image), encoding="utf-8")
    return [str(e) for e in load_quiz_file(path).errors], path


def test_an_image_beside_the_quiz_is_described_by_its_content(tmp_path):
    data = picture(90, 60)
    errors, path = load_with(tmp_path, "shapes/round.png", {"shapes/round.png": data})
    assert errors == []
    (quiz,) = load_quiz_file(path).quizzes
    image = quiz.questions[0].image
    assert image is not None
    assert (image.file, image.media_type, image.width, image.height) == (
        "shapes/round.png",
        "image/png",
        90,
        60,
    )
    assert image.sha256 == hashlib.sha256(data).hexdigest() and image.size == len(data)
    assert image.path == str((tmp_path / "shapes" / "round.png").resolve())
    assert image.alt is None and quiz.images == (image,)


@pytest.mark.parametrize(
    ("kind", "media_type"),
    [("JPEG", "image/jpeg"), ("GIF", "image/gif"), ("WEBP", "image/webp"), ("PNG", "image/png")],
)
def test_each_format_is_told_by_its_bytes_not_its_name(tmp_path, kind, media_type):
    # Named .png whatever it is: the extension decides nothing.
    errors, path = load_with(tmp_path, "x.png", {"x.png": picture(kind=kind)})
    assert errors == []
    image = load_quiz_file(path).quizzes[0].questions[0].image
    assert image is not None and image.media_type == media_type


def test_alt_text_is_per_language_and_bounded(tmp_path):
    files = {"a.png": picture()}
    good = "{file: a.png, alt: {en: A circle, ru: Круг}}"
    errors, path = load_with(tmp_path, good, files)
    image = load_quiz_file(path).quizzes[0].questions[0].image
    assert errors == [] and image is not None and image.alt is not None
    assert (image.alt.get("en"), image.alt.get("ru")) == ("A circle", "Круг")
    long_alt = "x" * (MAX_ALT_CHARS + 1)
    errors, path = load_with(tmp_path, f"{{file: a.png, alt: {long_alt}}}", files)
    assert errors == [
        f'{path}:{IMAGE_LINE}: question "q1": image alt (en) is {MAX_ALT_CHARS + 1} characters; '
        f"the limit is {MAX_ALT_CHARS}"
    ]


def refusal(tmp_path: Path, image: str, files: dict[str, bytes]) -> str:
    errors, path = load_with(tmp_path, image, files)
    assert len(errors) == 1, errors
    prefix = f'{path}:{IMAGE_LINE}: question "q1": '
    assert errors[0].startswith(prefix), errors
    return errors[0].removeprefix(prefix)


def test_a_missing_image_is_refused_with_its_line(tmp_path):
    assert refusal(tmp_path, "gone.png", {}) == 'image "gone.png": no such file'


def test_a_file_that_is_not_an_image_is_refused_whatever_its_name(tmp_path):
    files = {"fake.png": b"%PDF-1.7 not an image at all", "svg.png": b"<svg></svg>"}
    for name in files:
        assert refusal(tmp_path, name, files) == (
            f'image "{name}": not a PNG, JPEG, GIF or WebP image (judged by its content)'
        )
    bmp = io.BytesIO()
    Image.new("RGB", (10, 10)).save(bmp, format="BMP")  # an image, but not one we send
    assert "not a PNG, JPEG, GIF or WebP" in refusal(tmp_path, "b.png", {"b.png": bmp.getvalue()})


def test_a_damaged_png_is_refused(tmp_path):
    data = bytearray(picture(80, 80))
    data[-20] ^= 0xFF  # inside the pixel data: its checksum no longer matches
    assert refusal(tmp_path, "bad.png", {"bad.png": bytes(data)}).startswith(
        'image "bad.png": a damaged PNG image'
    )


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (cut_short(picture(120, 80, kind="JPEG")), "a damaged JPEG image (image file is truncated"),
        (cut_short(picture(120, 80, kind="WEBP")), "a damaged WebP image (failed to read"),
        (cut_short(picture(120, 80, kind="GIF")), "a damaged GIF image (image file is truncated"),
        (cut_short(animation(4), 0.8), "a damaged GIF image (image file is truncated"),
    ],
    ids=["jpeg", "webp", "gif", "animation's last frame"],
)
def test_an_image_cut_short_is_refused_though_its_header_is_whole(tmp_path, data, problem):
    # Pillow's verify() passes these (it checks a PNG's checksums, not these formats'
    # pixels): only decoding them shows the damage, which every platform would show too.
    with Image.open(io.BytesIO(data)) as image:
        image.verify()
    assert refusal(tmp_path, "cut.png", {"cut.png": data}).startswith(f'image "cut.png": {problem}')


def test_an_animation_is_decoded_whole_within_the_decompression_bomb_limit(tmp_path, monkeypatch):
    errors, _ = load_with(tmp_path, "anim.gif", {"anim.gif": animation(4)})
    assert errors == []
    # Each 64×64 frame is under the limit at open; the four together are not.
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 3 * 64 * 64)
    assert refusal(tmp_path, "anim.gif", {"anim.gif": animation(4)}) == (
        'image "anim.gif": its 4 frames of 64×64 pixels are 16,384 pixels to decode; the '
        "limit is 12,288 (Pillow's, against decompression bombs)"
    )


def test_images_too_large_for_the_platforms_are_refused(tmp_path):
    heavy = b"\x89PNG" + bytes(MAX_IMAGE_BYTES - 3)
    assert refusal(tmp_path, "heavy.png", {"heavy.png": heavy}) == (
        'image "heavy.png": the file is 10,000,001 bytes; the limit is 10,000,000 '
        "(Telegram's 10 MB)"
    )
    big = {"big.png": picture(9000, 1001)}
    assert refusal(tmp_path, "big.png", big) == (
        'image "big.png": it is 9000×1001 pixels; Telegram needs width + height at most 10,000'
    )
    strip = {"strip.png": picture(2100, 100)}
    assert refusal(tmp_path, "strip.png", strip) == (
        'image "strip.png": it is 2100×100 pixels; Telegram needs one side at most 20 times '
        "the other"
    )
    errors, _ = load_with(tmp_path, "ok.png", {"ok.png": picture(2000, 100)})  # exactly 20:1
    assert errors == []


def test_a_decompression_bomb_is_refused_with_the_reason(tmp_path):
    bomb = bomb_png()
    assert len(bomb) < 100_000  # kilobytes that would decode to 400 megapixels
    assert refusal(tmp_path, "bomb.png", {"bomb.png": bomb}) == (
        'image "bomb.png": refused as a decompression bomb: Image size (400000000 pixels) '
        "exceeds limit of 178956970 pixels, could be decompression bomb DOS attack."
    )
    # Past Pillow's MAX_IMAGE_PIXELS but under twice it, Pillow only warns: refused too.
    assert "decompression bomb" in refusal(tmp_path, "b2.png", {"b2.png": bomb_png(10_000)})


@pytest.mark.parametrize("name", ["../outside.png", "/etc/hostname", "a/../../outside.png"])
def test_an_image_outside_the_quiz_folder_is_refused(tmp_path, name):
    (tmp_path.parent / "outside.png").write_bytes(picture())
    quizzes = tmp_path / "quizzes"
    assert refusal(quizzes, name, {}) == (
        f'image "{name}" must be a file in the quiz file\'s folder or below it '
        "(a relative path without ..)"
    )


def test_a_link_leading_out_of_the_quiz_folder_is_refused(tmp_path):
    secret = tmp_path / "secret.png"
    secret.write_bytes(picture())
    quizzes = tmp_path / "quizzes"
    quizzes.mkdir()
    (quizzes / "link.png").symlink_to(secret)
    assert "must be a file in the quiz file's folder" in refusal(quizzes, "link.png", {})


@pytest.mark.parametrize(
    ("image", "problem"),
    [
        ("{alt: Just words}", "image has no file (image: {file: picture.png})"),
        ("[a.png]", "image must name a file, e.g. image: diagram.png"),
        ("{file: a.png, size: 3}", 'image: unknown key "size" (expected one of: alt, file)'),
    ],
)
def test_a_malformed_image_entry_says_what_is_expected(tmp_path, image, problem):
    assert refusal(tmp_path, image, {"a.png": picture()}) == problem


def test_quizbot_validate_reports_image_problems_by_line(tmp_path, capsys):
    write_picture_quiz(tmp_path)
    assert main(["validate", str(tmp_path)]) == 0
    assert f"ok: {tmp_path / (PICTURES + '.yaml')}: {PICTURES} (3 questions, en, ru, 2 images)" in (
        capsys.readouterr().out
    )
    (tmp_path / "images" / "wide.png").write_bytes(b"GIF89a but broken")
    (tmp_path / "images" / "diagram.png").unlink()
    assert main(["validate", str(tmp_path)]) == 1
    path = tmp_path / f"{PICTURES}.yaml"
    text = path.read_text(encoding="utf-8").splitlines()
    first = next(n for n, line in enumerate(text, 1) if "file: images/diagram.png" in line)
    wide = next(n for n, line in enumerate(text, 1) if "image: images/wide.png" in line)
    code = next(n for n, line in enumerate(text, 1) if "image: images/diagram.png" in line)
    assert capsys.readouterr().err.splitlines() == [
        f'{path}:{first}: question "diagram": image "images/diagram.png": no such file',
        f'{path}:{wide}: question "long": image "images/wide.png": not a PNG, JPEG, GIF '
        "or WebP image (judged by its content)",
        f'{path}:{code}: question "code": image "images/diagram.png": no such file',
    ]


def test_an_explanation_image_is_written_and_checked_as_a_question_image(tmp_path):
    path = write_explained_quiz(tmp_path)
    (quiz,) = load_quiz_file(path).quizzes
    pictured, plain, long, typed = quiz.questions
    assert pictured.image is not None and pictured.explanation_image is not None
    answer = pictured.explanation_image
    assert (answer.file, answer.media_type, answer.width, answer.height) == (
        "images/answer.png",
        "image/png",
        90,
        90,
    )
    assert answer.alt is not None and answer.alt.get("ru") == "Стрелки от индекса к шардам"
    assert plain.image is None and plain.explanation_image == dataclasses.replace(answer, alt=None)
    assert typed.explanation_image is not None and typed.explanation.get("en") == ""
    # Every image the quiz shows, each once: what store_quiz_images puts in the database.
    assert [i.file for i in quiz.images] == [
        "images/diagram.png",
        "images/answer.png",
        "images/wide.png",
    ]
    assert long.explanation_image is not None


@pytest.mark.parametrize(
    ("image", "files", "problem"),
    [
        ("gone.png", {}, 'explanation_image "gone.png": no such file'),
        (
            "cut.jpg",
            {"cut.jpg": cut_short(picture(kind="JPEG"))},
            'explanation_image "cut.jpg": a damaged JPEG image (image file is truncated',
        ),
        (
            "../out.png",
            {},
            'explanation_image "../out.png" must be a file in the quiz file\'s folder or below '
            "it (a relative path without ..)",
        ),
        (
            "{alt: Words}",
            {},
            "explanation_image has no file (explanation_image: {file: picture.png})",
        ),
        (
            "{file: a.png, size: 3}",
            {"a.png": picture()},
            'explanation_image: unknown key "size" (expected one of: alt, file)',
        ),
        (
            f"{{file: a.png, alt: {'x' * (MAX_ALT_CHARS + 1)}}}",
            {"a.png": picture()},
            f"explanation_image alt (en) is {MAX_ALT_CHARS + 1} characters; the limit is "
            f"{MAX_ALT_CHARS}",
        ),
    ],
    ids=["missing", "cut short", "outside", "no file", "unknown key", "long alt"],
)
def test_a_bad_explanation_image_is_a_file_line_error_naming_it(tmp_path, image, files, problem):
    errors, path = load_with(tmp_path, image, files, key="explanation_image")
    assert len(errors) == 1, errors
    assert errors[0].startswith(f'{path}:{IMAGE_LINE}: question "q1": {problem}'), errors


def test_quizbot_validate_counts_explanation_images(tmp_path, capsys):
    write_explained_quiz(tmp_path)
    assert main(["validate", str(tmp_path)]) == 0
    assert f"{EXPLAINED} (4 questions, en, ru, 3 images)" in capsys.readouterr().out


def test_the_bundled_images_are_what_their_script_draws() -> None:
    import subprocess
    import sys

    from tests.conftest import ROOT

    drawn = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "draw-quiz-images"), "--check"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert drawn.returncode == 0, drawn.stderr
