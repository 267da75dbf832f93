"""Image files for the tests, drawn with Pillow, small quizzes that show them, and an engine
serving such quizzes with their images stored as start-up stores them."""

from __future__ import annotations

import io
import struct
import textwrap
import zlib
from pathlib import Path

from PIL import Image, ImageDraw

from bot.catalog import QuizCatalog
from bot.engine import Clock, QuizEngine
from bot.quiz_images import store_quiz_images
from bot.storage import Storage

PICTURES = "pictures"  # the id of the quiz write_picture_quiz() writes
EXPLAINED = "explained"  # the id of the quiz write_explained_quiz() writes


def picture(width: int = 64, height: int = 48, *, kind: str = "PNG", shade: int = 0) -> bytes:
    """A small image with a diagonal line (``shade`` makes images of one size differ)."""
    image = Image.new("RGB", (width, height), (240, 240 - shade % 200, 255))
    ImageDraw.Draw(image).line((0, 0, width - 1, height - 1), fill=(20, 40, 200), width=3)
    out = io.BytesIO()
    image.save(out, format=kind)
    return out.getvalue()


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def bomb_png(side: int = 20_000) -> bytes:
    """A real decompression bomb: a black ``side``×``side`` one-bit PNG of some kilobytes
    that decodes to hundreds of megapixels (Pillow's limit is 89 million)."""
    header = struct.pack(">IIBBBBB", side, side, 1, 0, 0, 0, 0)
    compressor = zlib.compressobj(9)
    row = bytes(1 + (side + 7) // 8)  # filter byte, then the row's bits
    pixels = b"".join(compressor.compress(row) for _ in range(side)) + compressor.flush()
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", pixels)
        + _chunk(b"IEND", b"")
    )


def cut_short(data: bytes, keep: float = 0.6) -> bytes:
    """``data`` with its end cut off, as an interrupted copy leaves a file. A WebP file's
    sizes (of the RIFF container and of its one chunk) are made to match, as a tool that
    rewrote a damaged file would: its header then reads as whole, only its pixels are not."""
    cut = bytearray(data[: int(len(data) * keep) & ~1])
    if cut[8:12] == b"WEBP":
        cut[4:8] = struct.pack("<I", len(cut) - 8)
        cut[16:20] = struct.pack("<I", len(cut) - 20)
    return bytes(cut)


def animation(frames: int, side: int = 64) -> bytes:
    """An animated GIF of ``frames`` frames, each ``side`` pixels square and different."""
    drawn = (picture(side, side, kind="GIF", shade=40 * n) for n in range(frames))
    images = [Image.open(io.BytesIO(data)) for data in drawn]
    out = io.BytesIO()
    images[0].save(out, format="GIF", save_all=True, append_images=images[1:], duration=100)
    return out.getvalue()


LONG_QUESTION = "Which file of this checkpoint do you read first? " * 30  # over 1024 characters


def picture_quiz_yaml(*, native_polls: bool = False) -> str:
    """A quiz of three questions: one with a diagram (and alt text in two languages), one
    whose text is too long for a photo caption, one with code and the same diagram again."""
    return textwrap.dedent(
        f"""\
        id: {PICTURES}
        languages: [en, ru]
        title: {{en: Pictures, ru: Картинки}}
        native_polls: {"true" if native_polls else "false"}
        shuffle: false
        questions:
          - id: diagram
            image:
              file: images/diagram.png
              alt: {{en: Four shard files and an index, ru: Четыре файла шардов и индекс}}
            text: {{en: "What does the index file list?", ru: "Что перечисляет индекс?"}}
            options:
              - {{id: a, text: {{en: Which shard holds each tensor, ru: Где какой тензор}}}}
              - {{id: b, text: {{en: The optimizer settings, ru: Настройки оптимизатора}}}}
            correct: a
            explanation: {{en: It maps every tensor name to its shard file., ru: Имя — шард.}}
          - id: long
            image: images/wide.png
            text: {{en: "{LONG_QUESTION.strip()}"}}
            options:
              - {{id: a, text: {{en: The index}}}}
              - {{id: b, text: {{en: The last shard}}}}
            correct: a
            explanation: {{en: The index says where everything is.}}
          - id: code
            image: images/diagram.png
            text:
              en: |
                What does `load(index)` return for this layout? Use <b> & co:
                ```python
                shards = [s for s in index if s.endswith(".bin")]
                ```
            options:
              - {{id: a, text: {{en: "`dict` of tensors"}}}}
              - {{id: b, text: {{en: "`None`"}}}}
            correct: a
            explanation: {{en: "`load` reads each shard the index names."}}
        """
    )


def write_picture_quiz(directory: Path, *, native_polls: bool = False) -> Path:
    """The picture quiz and its two images in ``directory``; returns the quiz file."""
    images = directory / "images"
    images.mkdir(parents=True, exist_ok=True)
    (images / "diagram.png").write_bytes(picture(120, 80))
    (images / "wide.png").write_bytes(picture(400, 40, shade=7))
    path = directory / f"{PICTURES}.yaml"
    path.write_text(picture_quiz_yaml(native_polls=native_polls), encoding="utf-8")
    return path


LONG_EXPLANATION = "Every tensor name maps to the shard file that holds it. " * 20  # over 1024


def explained_quiz_yaml(*, native_polls: bool = False) -> str:
    """A quiz of four questions with an image on the explanation: one with an image of its
    own too (and alt text in two languages), one with the same explanation image, one whose
    explanation is too long for a photo caption, and a typed one."""
    return textwrap.dedent(
        f"""\
        id: {EXPLAINED}
        languages: [en, ru]
        title: {{en: Explained, ru: Объяснения}}
        native_polls: {"true" if native_polls else "false"}
        shuffle: false
        questions:
          - id: pictured
            image: images/diagram.png
            text: {{en: "What does the index file list?", ru: "Что перечисляет индекс?"}}
            options:
              - {{id: a, text: {{en: Which shard holds each tensor, ru: Где какой тензор}}}}
              - {{id: b, text: {{en: The optimizer settings, ru: Настройки оптимизатора}}}}
            correct: a
            explanation: {{en: It maps every tensor name to its shard file., ru: Имя — шард.}}
            explanation_image:
              file: images/answer.png
              alt: {{en: Arrows from the index to each shard, ru: Стрелки от индекса к шардам}}
          - id: plain
            text: {{en: "Which file is read first?"}}
            options:
              - {{id: a, text: {{en: The index}}}}
              - {{id: b, text: {{en: The last shard}}}}
            correct: a
            explanation: {{en: "The index, then the shards it names."}}
            explanation_image: images/answer.png
          - id: long
            text: {{en: "Why is a checkpoint split into shards?"}}
            options:
              - {{id: a, text: {{en: Too big for one file}}}}
              - {{id: b, text: {{en: Tradition}}}}
            correct: a
            explanation: {{en: "{LONG_EXPLANATION.strip()}"}}
            explanation_image: images/wide.png
          - id: typed
            kind: typed
            text: {{en: "Which file lists the shards?"}}
            answers: [index]
            explanation_image: images/answer.png
        """
    )


def write_explained_quiz(directory: Path, *, native_polls: bool = False) -> Path:
    """The explained quiz and its three images in ``directory``; returns the quiz file."""
    images = directory / "images"
    images.mkdir(parents=True, exist_ok=True)
    (images / "diagram.png").write_bytes(picture(120, 80))
    (images / "answer.png").write_bytes(picture(90, 90, shade=30))
    (images / "wide.png").write_bytes(picture(400, 40, shade=7))
    path = directory / f"{EXPLAINED}.yaml"
    path.write_text(explained_quiz_yaml(native_polls=native_polls), encoding="utf-8")
    return path


async def engine_serving(folder: Path, storage: Storage, clock: Clock) -> QuizEngine:
    """An engine serving the quizzes in ``folder`` (loaded without errors), their images
    stored in ``storage`` as start-up (quizbot/bootstrap.py) stores them."""
    catalog, report = QuizCatalog.from_paths([folder])
    assert report.errors == []
    await store_quiz_images(storage, catalog.all())
    return QuizEngine(catalog, storage, clock=clock)
