"""Uploads (bot/uploads.py): what an admin sends is converted and checked as `quizbot import`
and `validate` do, then published; anything wrong publishes nothing, with the reason."""

from __future__ import annotations

import io
import os
import re
import stat
import zipfile

import pytest

from bot.catalog import QuizCatalog
from bot.i18n import SUPPORTED_LANGUAGES, plural_category
from bot.image_files import sha256_of
from bot.library import QuizLibrary
from bot.library_texts import LIBRARY_STRINGS
from bot.quiz_images import QuizImages, image_view
from bot.storage import Storage, StorageError, VersionSource
from bot.uploads import (
    MAX_IMPORT_BYTES,
    MAX_UNPACKED_BYTES,
    MAX_ZIP_BYTES,
    MAX_ZIP_ENTRIES,
    UploadOutcome,
    parse_hint,
    publish_upload,
    size_problem,
)
from tests.conftest import OpenStorage
from tests.images import PICTURES, picture, picture_quiz_yaml
from tests.library_quizzes import EDITED, FIRST

AIKEN = b"""What is 2 + 2?
A. Three
B. Four
ANSWER: B

What is 1 + 1?
A. Two
B. Eleven
ANSWER: A
"""


@pytest.fixture
async def library(any_storage: Storage) -> QuizLibrary:
    return QuizLibrary(QuizCatalog(), any_storage)


async def upload(
    library: QuizLibrary, name: str, data: bytes, caption: str | None = None
) -> UploadOutcome:
    return await publish_upload(
        library, name, data, by="telegram:1", language="en", caption=caption
    )


def zipped(*entries: tuple[str, bytes], symlink: str | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries:
            archive.writestr(name, data)
        if symlink is not None:
            link = zipfile.ZipInfo(symlink)
            link.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(link, "/etc/passwd")
    return buffer.getvalue()


async def test_a_quiz_file_is_published_then_unchanged_then_its_next_version(library):
    first = await upload(library, "library-quiz.yaml", FIRST.encode())
    assert first.lines == ["Published quiz library-quiz, version 1, 3 questions."]
    again = await upload(library, "library-quiz.yaml", FIRST.encode())
    assert again.lines == ["Quiz library-quiz is unchanged: still version 1, 3 questions."]
    edited = await upload(library, "library-quiz.yaml", EDITED.encode())
    assert edited.lines == ["Published quiz library-quiz, version 2, 2 questions."]
    [current] = await library.listing()
    assert (current.version, current.source, current.published_by) == (
        2,
        VersionSource.UPLOAD,
        "telegram:1",
    )
    served = library.catalog.get("library-quiz")
    assert served is not None and served.version == 2


async def test_an_invalid_quiz_is_refused_with_its_problems_and_the_live_version_stays(library):
    await upload(library, "library-quiz.yaml", FIRST.encode())
    broken = EDITED.replace("correct: b", "correct: z")
    outcome = await upload(library, "library-quiz.yaml", broken.encode())
    assert not outcome.published
    assert outcome.lines == [
        "Nothing was published: the file has 1 problem. The live version stays."
    ]
    [problem] = outcome.problems
    assert problem.startswith("library-quiz.yaml:5: ") and '"z"' in problem
    served = library.catalog.get("library-quiz")
    assert served is not None and served.version == 1


async def test_other_formats_are_imported_as_quizbot_import_does(library):
    outcome = await upload(library, "Sums.txt", AIKEN)
    assert outcome.lines[0] == "Published quiz sums, version 1, 2 questions."
    assert "Notes from the import:" in outcome.lines  # Aiken has no explanations
    quiz = library.catalog.get("sums")
    assert quiz is not None and quiz.source == "sums.yaml"
    russian = await upload(library, "sums.txt", AIKEN, caption="aiken ru")
    assert russian.published
    unreadable = await upload(library, "quiz.json", b"{not json", caption=None)
    assert not unreadable.published and unreadable.problems[-1].startswith("quiz.json:1: ")


async def test_a_zip_of_a_quiz_folder_is_unpacked_and_published(library):
    data = zipped(
        ("my-quiz/library-quiz.yaml", FIRST.encode()),
        ("my-quiz/images/diagram.png", b"\x89PNG\r\n\x1a\n"),
    )
    outcome = await upload(library, "my-quiz.zip", data)
    assert outcome.lines == ["Published quiz library-quiz, version 1, 3 questions."]


@pytest.mark.parametrize(
    ("entries", "symlink", "reason"),
    [
        ([("../escape.yaml", FIRST.encode())], None, 'the zip entry "../escape.yaml" points'),
        ([("/etc/quiz.yaml", FIRST.encode())], None, 'the zip entry "/etc/quiz.yaml" points'),
        ([("C:/quiz.yaml", FIRST.encode())], None, 'the zip entry "C:/quiz.yaml" points'),
        ([("quiz.yaml", FIRST.encode())], "link.png", 'the zip entry "link.png" is a symbolic'),
        ([("quiz.yaml", FIRST.encode()), ("run.py", b"print()")], None, '"run.py" is neither'),
        ([("notes/readme.png", b"x")], None, "the zip holds no quiz (.yaml)"),
        (
            [(f"{n}.png", b"x") for n in range(MAX_ZIP_ENTRIES + 1)],
            None,
            f"more than {MAX_ZIP_ENTRIES} entries",
        ),
        (  # a bomb: small to send, huge unpacked
            [("quiz.yaml", FIRST.encode()), ("bomb.png", bytes(MAX_UNPACKED_BYTES + 1))],
            None,
            f"unpacks to more than {MAX_UNPACKED_BYTES // 1024} KB",
        ),
    ],
)
async def test_an_unsafe_or_wrong_zip_is_refused_with_the_reason(library, entries, symlink, reason):
    await upload(library, "library-quiz.yaml", FIRST.encode())
    data = zipped(*entries, symlink=symlink)
    assert len(data) < MAX_ZIP_BYTES
    outcome = await upload(library, "upload.zip", data)
    assert not outcome.published
    [line] = outcome.lines
    assert line.startswith("Not published (") and reason in line
    assert line.endswith("The live version stays.")
    served = library.catalog.get("library-quiz")
    assert served is not None and served.version == 1


async def test_a_zip_whose_entry_lies_about_its_size_is_refused(library):
    data = bytearray(zipped(("quiz.yaml", FIRST.encode()), ("big.png", bytes(100_000))))
    # Make the central directory say big.png unpacks to 10 bytes.
    entry = data.rindex(b"PK\x01\x02")
    data[entry + 24 : entry + 28] = (10).to_bytes(4, "little")
    outcome = await upload(library, "liar.zip", bytes(data))
    assert not outcome.published
    assert outcome.lines[0].startswith("Not published (")


async def test_sizes_are_checked_before_downloading_and_wrong_types_named():
    assert size_problem("quiz.yaml", 1024 * 1024) is None
    too_big = size_problem("quiz.yaml", 2 * 1024 * 1024)
    assert too_big is not None
    expected = '"quiz.yaml" is 2048 KB; a quiz (.yaml) file may be at most 1024 KB'
    assert too_big.text("en") == expected
    assert size_problem("trivia.gift", MAX_IMPORT_BYTES + 1) is not None
    assert size_problem("quiz.zip", MAX_ZIP_BYTES) is None
    assert size_problem("quiz.zip", MAX_ZIP_BYTES + 1) is not None
    wrong = size_problem("setup.exe", 10)
    assert wrong is not None and wrong.text("en").startswith('"setup.exe" is not a file I can')
    assert parse_hint("Red lang:ru") == ("red", "ru")
    assert parse_hint(None) == (None, "en")


async def test_a_wrong_type_is_refused_and_every_language_says_so(library):
    outcome = await publish_upload(library, "x.exe", b"MZ", by="d:1", language="ru")
    assert outcome.lines[0].startswith("Не опубликовано (")


async def test_an_upload_on_one_replica_is_served_by_another(open_storage: OpenStorage):
    one = QuizLibrary(QuizCatalog(), await open_storage())
    other = QuizLibrary(QuizCatalog(), await open_storage())
    await upload(one, "library-quiz.yaml", FIRST.encode())
    assert await other.refresh()  # what its watch does every POLL_SECONDS
    served = other.catalog.get("library-quiz")
    assert served is not None and served.version == 1
    assert not await other.refresh()  # nothing new: one small read, no reload


async def test_a_zipped_quiz_with_images_is_shown_by_another_replica_once_its_files_are_gone(
    open_storage: OpenStorage,
):
    one = QuizLibrary(QuizCatalog(), await open_storage())
    other_storage = await open_storage()
    other = QuizLibrary(QuizCatalog(), other_storage)
    data = zipped(
        (f"pictures/{PICTURES}.yaml", picture_quiz_yaml().encode()),
        ("pictures/images/diagram.png", picture(120, 80)),
        ("pictures/images/wide.png", picture(400, 40, shade=7)),
    )
    outcome = await upload(one, "pictures.zip", data)
    assert outcome.lines == [f"Published quiz {PICTURES}, version 1, 3 questions."]
    assert await other.refresh()
    quiz = other.catalog.get(PICTURES)
    assert quiz is not None and quiz.questions[0].image is not None
    # The upload's unpacked folder is gone: the other replica reads the bytes from the database.
    image = quiz.questions[0].image
    assert not os.path.exists(image.path)  # noqa: ASYNC240 (a test's one check)
    data_served = await QuizImages(other_storage).data(image_view(image, "en"))
    assert data_served is not None and sha256_of(data_served) == image.sha256
    # The same zip again is no news, although it is unpacked into another folder.
    again = await upload(one, "pictures.zip", data)
    assert again.lines == [f"Quiz {PICTURES} is unchanged: still version 1, 3 questions."]


async def test_an_upload_whose_images_the_database_refuses_publishes_nothing(
    any_storage: Storage, monkeypatch: pytest.MonkeyPatch
):
    library = QuizLibrary(QuizCatalog(), any_storage)

    async def refuse(image: object) -> None:
        raise StorageError("disk full")

    monkeypatch.setattr(any_storage, "put_image", refuse)  # the database, failing
    data = zipped(
        (f"{PICTURES}.yaml", picture_quiz_yaml().encode()),
        ("images/diagram.png", picture(120, 80)),
        ("images/wide.png", picture(400, 40, shade=7)),
    )
    with pytest.raises(StorageError, match="images not stored"):
        await upload(library, "pictures.zip", data)
    assert await library.listing() == []


def test_every_library_string_is_in_every_language_with_the_same_values() -> None:
    for key, by_language in LIBRARY_STRINGS.items():
        assert set(by_language) == set(SUPPORTED_LANGUAGES), key
        names = set()
        for language, template in by_language.items():
            forms = [template] if isinstance(template, str) else list(template.values())
            if not isinstance(template, str):  # the forms the language's plural rules pick
                needed = {plural_category(language, n) for n in range(200)}
                assert needed <= set(template) or set(template) == {"other"}, (key, language)
            for form in forms:
                names.add(frozenset(re.findall(r"{(\w+)}", form)))
        assert len(names) == 1, key  # every translation fills in the same values


async def test_a_zipped_quiz_with_explanation_images_is_served_by_another_replica(
    open_storage: OpenStorage,
):
    from tests.images import EXPLAINED, explained_quiz_yaml

    one = QuizLibrary(QuizCatalog(), await open_storage())
    other_storage = await open_storage()
    other = QuizLibrary(QuizCatalog(), other_storage)
    data = zipped(
        (f"{EXPLAINED}.yaml", explained_quiz_yaml().encode()),
        ("images/diagram.png", picture(120, 80)),
        ("images/answer.png", picture(90, 90, shade=30)),
        ("images/wide.png", picture(400, 40, shade=7)),
    )
    outcome = await upload(one, "explained.zip", data)
    assert outcome.lines == [f"Published quiz {EXPLAINED}, version 1, 4 questions."]
    assert await other.refresh()
    quiz = other.catalog.get(EXPLAINED)
    assert quiz is not None
    # The library's stored content kept the explanation's image, alt text included.
    image = quiz.questions[0].explanation_image
    assert image is not None and image.alt is not None
    assert image.alt.get("en") == "Arrows from the index to each shard"
    assert not os.path.exists(image.path)  # noqa: ASYNC240 (a test's one check)
    served = await QuizImages(other_storage).data(image_view(image, "en", explanation=True))
    assert served is not None and sha256_of(served) == image.sha256
    # Unpacked into another folder, the same zip is no news.
    again = await upload(one, "explained.zip", data)
    assert again.lines == [f"Quiz {EXPLAINED} is unchanged: still version 1, 4 questions."]


async def test_a_zipped_quiz_file_named_in_capitals_is_published(library):
    """Zips made on Windows often hold ``QUIZ.YAML``: the upload finds it, and so does the
    loader that publishes it."""
    data = zipped(("LIBRARY-QUIZ.YAML", f"id: library-quiz\n{FIRST}".encode()))
    outcome = await upload(library, "quiz.zip", data)
    assert outcome.lines == ["Published quiz library-quiz, version 1, 3 questions."]
    unnamed = await upload(library, "quiz.zip", zipped(("QUIZ.YAML", FIRST.encode())))
    assert not unnamed.published  # its id would come from the file name, which is no id
    assert unnamed.problems == [
        'QUIZ.YAML:1: the file name gives the quiz id "QUIZ"; set a valid "id:"'
    ]
