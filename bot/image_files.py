"""Checking the image files quizzes show: by content, within what every platform accepts.

An image is read once at load, identified by Pillow from its bytes (never its extension),
checked for what the platforms refuse, and described by a :class:`~bot.quiz.QuizImage`
carrying its SHA-256, so that the bytes can be stored in the database under that name and a
file changed since is noticed.

The limits are the strictest of the platforms'. Telegram's ``sendPhoto``: at most 10 MB,
width plus height at most 10,000 pixels, one side at most 20 times the other. Discord: 10 MiB
per attachment for bots, larger than Telegram's 10 MB, so Telegram's size limit is the one
enforced. Pillow's decompression-bomb guard (``Image.MAX_IMAGE_PIXELS``) refuses an image
whose header claims more pixels than it would decode, before any pixel is read.

Only then, within those limits, are the pixels decoded (every frame of an animation, at most
``MAX_IMAGE_PIXELS`` pixels in all): Pillow's ``verify`` reads a PNG's checksums but not a
JPEG's, GIF's or WebP's image data, so a file cut short would otherwise pass and show broken.
"""

from __future__ import annotations

import hashlib
import io
import warnings
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, UnidentifiedImageError

MAX_IMAGE_BYTES = 10_000_000  # Telegram's 10 MB for a photo (Discord allows 10 MiB)
MAX_WIDTH_PLUS_HEIGHT = 10_000  # Telegram: "width and height must not exceed 10000 in total"
MAX_ASPECT_RATIO = 20  # Telegram: "width and height ratio must be at most 20"
# Pillow's names of the formats both platforms show, and the media type each is sent as.
MEDIA_TYPES = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp"}
NOT_AN_IMAGE = "not a PNG, JPEG, GIF or WebP image (judged by its content)"
EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp"}


@dataclass(frozen=True)
class ImageFacts:
    """What an accepted image file is: its digest, type, size and dimensions."""

    sha256: str
    media_type: str
    size: int
    width: int
    height: int


class ImageProblem(ValueError):
    """Why an image file cannot be shown (one short sentence)."""


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_image_file(path: Path) -> bytes:
    """The bytes of the file at ``path``; :class:`ImageProblem` when it is missing,
    unreadable or larger than any platform takes (then it is not read)."""
    try:
        size = path.stat().st_size
        if size > MAX_IMAGE_BYTES:
            raise ImageProblem(_too_many_bytes(size))
        with path.open("rb") as file:
            return file.read(MAX_IMAGE_BYTES + 1)
    except FileNotFoundError:
        raise ImageProblem("no such file") from None
    except IsADirectoryError:
        raise ImageProblem("it is a directory, not an image file") from None
    except OSError as exc:
        raise ImageProblem(f"cannot read it: {exc.strerror or exc}") from None


def fingerprint(path: Path) -> str:
    """What the file at ``path`` holds, as far as checking it goes: the SHA-256 of its bytes,
    or why it cannot be read. Equal fingerprints give equal checks."""
    try:
        return sha256_of(read_image_file(path))
    except ImageProblem as problem:
        return unread_fingerprint(problem)


def unread_fingerprint(problem: ImageProblem) -> str:
    """The :func:`fingerprint` of a file :func:`read_image_file` refused with ``problem``."""
    return f"unread: {problem}"


def inspect_image(data: bytes) -> ImageFacts:
    """What the image ``data`` is; :class:`ImageProblem` when it is not a PNG, JPEG, GIF or
    WebP image (judged by Pillow from the bytes), is damaged, a decompression bomb, or too
    large for the platforms."""
    if len(data) > MAX_IMAGE_BYTES:
        raise ImageProblem(_too_many_bytes(len(data)))
    if not data:
        raise ImageProblem("the file is empty, not an image")
    width, height, kind = _identify(data)
    if width < 1 or height < 1:
        raise ImageProblem(f"it is {width}×{height} pixels: an image needs both sides")
    if width + height > MAX_WIDTH_PLUS_HEIGHT:
        raise ImageProblem(
            f"it is {width}×{height} pixels; Telegram needs width + height at most "
            f"{MAX_WIDTH_PLUS_HEIGHT:,}"
        )
    if max(width, height) > MAX_ASPECT_RATIO * min(width, height):
        raise ImageProblem(
            f"it is {width}×{height} pixels; Telegram needs one side at most "
            f"{MAX_ASPECT_RATIO} times the other"
        )
    _decode(data)
    return ImageFacts(sha256_of(data), MEDIA_TYPES[kind], len(data), width, height)


def _identify(data: bytes) -> tuple[int, int, str]:
    """Width, height and Pillow's format name of ``data``, verified by Pillow."""
    with warnings.catch_warnings():
        # Past MAX_IMAGE_PIXELS Pillow only warns (it raises past twice that): refuse both.
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            with Image.open(io.BytesIO(data), formats=list(MEDIA_TYPES)) as image:
                width, height = image.size
                kind = str(image.format)
                image.verify()
        except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
            raise ImageProblem(f"refused as a decompression bomb: {exc}") from None
        except UnidentifiedImageError:
            raise ImageProblem(NOT_AN_IMAGE) from None
        except (OSError, SyntaxError, ValueError, EOFError) as exc:  # what verify() raises
            raise ImageProblem(f"a damaged {_format_name(data)} image ({exc})") from None
    return width, height, kind


def _decode(data: bytes) -> None:
    """Decode every pixel of ``data`` (an image :func:`_identify` accepted and whose size is
    within the platforms' limits); :class:`ImageProblem` when its image data is damaged."""
    try:
        with Image.open(io.BytesIO(data), formats=list(MEDIA_TYPES)) as image:
            frames = int(getattr(image, "n_frames", 1))
            _within_decoding_limit(frames, image.width, image.height)
            for frame in range(frames):
                image.seek(frame)
                image.load()
    except ImageProblem:
        raise
    except (OSError, SyntaxError, ValueError, EOFError) as exc:  # what a decoder raises
        raise ImageProblem(f"a damaged {_format_name(data)} image ({exc})") from None


def _within_decoding_limit(frames: int, width: int, height: int) -> None:
    """Refuse an animation whose frames together are more pixels than Pillow decodes of one
    image (the decompression-bomb limit): each frame alone passed that check at open."""
    limit = Image.MAX_IMAGE_PIXELS
    pixels = frames * width * height
    if limit is not None and pixels > limit:
        raise ImageProblem(
            f"its {frames:,} frames of {width}×{height} pixels are {pixels:,} pixels to "
            f"decode; the limit is {limit:,} (Pillow's, against decompression bombs)"
        )


def _format_name(data: bytes) -> str:
    for magic, name in ((b"\x89PNG", "PNG"), (b"\xff\xd8", "JPEG"), (b"GIF8", "GIF")):
        if data.startswith(magic):
            return name
    return "WebP" if data[8:12] == b"WEBP" else "image"


def _too_many_bytes(size: int) -> str:
    return f"the file is {size:,} bytes; the limit is {MAX_IMAGE_BYTES:,} (Telegram's 10 MB)"
