"""Quiz images in the database, on every backend: stored once by content when quizzes load,
served to another replica or a restart on a wiped disk, and each platform's upload reference
kept per destination."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bot.catalog import QuizCatalog
from bot.image_files import sha256_of
from bot.quiz import Quiz
from bot.quiz_images import QuizImages, image_view, store_quiz_images
from bot.storage import StoredImage
from tests.conftest import OpenStorage
from tests.images import PICTURES, picture, write_picture_quiz


@pytest.fixture
def pictures(tmp_path: Path) -> Quiz:
    write_picture_quiz(tmp_path / "quizzes")
    catalog, report = QuizCatalog.from_paths([tmp_path / "quizzes"])
    assert report.errors == []
    quiz = catalog.get(PICTURES)
    assert quiz is not None
    return quiz


def stored(data: bytes, media_type: str = "image/png") -> StoredImage:
    return StoredImage(sha256_of(data), media_type, data)


async def test_images_are_kept_by_content_and_seen_by_another_replica(open_storage: OpenStorage):
    first, other = await open_storage(), await open_storage()
    small, large = stored(picture()), stored(bytes(range(256)) * 8192)  # 2 MiB of any bytes
    assert await first.missing_images([small.sha256, large.sha256]) == {small.sha256, large.sha256}
    await first.put_image(small)
    await first.put_image(large)
    await first.put_image(StoredImage(small.sha256, "image/gif", b"other"))  # first one stays
    assert await other.missing_images([small.sha256, large.sha256, "0" * 64]) == {"0" * 64}
    assert await other.get_image(small.sha256) == small
    assert await other.get_image(large.sha256) == large
    assert await other.get_image("f" * 64) is None
    assert await other.missing_images([]) == set()


async def test_upload_references_are_kept_per_destination(open_storage: OpenStorage):
    first, other = await open_storage(), await open_storage()
    image = stored(picture())
    await first.put_image(image)
    assert await first.image_upload("telegram:1", image.sha256) is None
    await first.remember_image_upload("telegram:1", image.sha256, "file-A")
    await other.remember_image_upload("telegram:2", image.sha256, "file-B")
    assert await other.image_upload("telegram:1", image.sha256) == "file-A"
    assert await first.image_upload("telegram:2", image.sha256) == "file-B"
    # A reference the platform stopped honouring is replaced by the next upload's.
    await other.remember_image_upload("telegram:1", image.sha256, "file-C")
    assert await first.image_upload("telegram:1", image.sha256) == "file-C"


async def test_loading_stores_each_image_once_and_a_wiped_disk_still_serves_them(
    open_storage: OpenStorage, pictures: Quiz, tmp_path: Path
):
    first = await open_storage()
    done = await store_quiz_images(first, [pictures])
    # Three questions, two images (one of them shown twice): two stored.
    assert sorted(i.file for i in done.stored) == ["images/diagram.png", "images/wide.png"]
    assert done.problems == []
    again = await store_quiz_images(first, [pictures])  # a restart: nothing new to store
    assert again.stored == [] and again.problems == []
    shutil.rmtree(tmp_path / "quizzes")  # the disk is wiped; another replica serves
    images = QuizImages(await open_storage())
    for question in pictures.questions:
        assert question.image is not None
        view = image_view(question.image, "en")
        data = await images.data(view)
        assert data is not None and sha256_of(data) == question.image.sha256


async def test_an_image_changed_after_load_is_not_stored_and_nothing_breaks(
    open_storage: OpenStorage, pictures: Quiz, tmp_path: Path
):
    storage = await open_storage()
    (tmp_path / "quizzes" / "images" / "wide.png").write_bytes(picture(400, 40, shade=50))
    done = await store_quiz_images(storage, [pictures])
    assert [i.file for i in done.stored] == ["images/diagram.png"]
    [problem] = done.problems
    assert problem.endswith("wide.png: changed since the quiz was loaded")
    wide = pictures.questions[1].image
    assert wide is not None
    # Neither the database nor the file has the bytes that were checked: none are sent.
    assert await QuizImages(storage).data(image_view(wide, "en")) is None


async def test_an_image_the_database_lacks_is_read_from_its_file(
    open_storage: OpenStorage, pictures: Quiz
):
    images = QuizImages(await open_storage())  # nothing stored
    diagram = pictures.questions[0].image
    assert diagram is not None
    view = image_view(diagram, "ru")
    assert view.alt == "Четыре файла шардов и индекс" and view.filename == "diagram.png"
    data = await images.data(view)
    assert data is not None and sha256_of(data) == diagram.sha256


async def test_reloading_stores_the_images_of_new_quizzes(
    open_storage: OpenStorage, tmp_path: Path
) -> None:
    from bot.engine import QuizEngine

    folder = tmp_path / "quizzes"
    folder.mkdir()
    catalog, _ = QuizCatalog.from_paths([folder])
    storage = await open_storage()
    engine = QuizEngine(catalog, storage)
    write_picture_quiz(folder)  # published while the bot runs: /reload
    report = (await engine.library.publish_quiz_dir()).load
    assert report.errors == [] and engine.catalog.get(PICTURES) is not None
    quiz = engine.catalog.get(PICTURES)
    assert quiz is not None
    assert await storage.missing_images([i.sha256 for i in quiz.images]) == set()


async def test_the_explanations_images_are_stored_with_the_questions_and_served_by_name(
    open_storage: OpenStorage, tmp_path: Path
) -> None:
    from tests.images import EXPLAINED, write_explained_quiz

    write_explained_quiz(tmp_path / "explained")
    catalog, _ = QuizCatalog.from_paths([tmp_path / "explained"])
    quiz = catalog.get(EXPLAINED)
    assert quiz is not None
    done = await store_quiz_images(await open_storage(), [quiz])
    # The question's diagram and the explanations' two pictures (one shown three times).
    assert sorted(i.file for i in done.stored) == [
        "images/answer.png",
        "images/diagram.png",
        "images/wide.png",
    ]
    shutil.rmtree(tmp_path / "explained")  # another replica, without the files
    images = QuizImages(await open_storage())
    explained = quiz.questions[0].explanation_image
    assert explained is not None
    view = image_view(explained, "ru", explanation=True)
    # Named apart from the question's picture, which the same message may carry.
    assert view.filename == "explanation-answer.png" and view.alt == "Стрелки от индекса к шардам"
    data = await images.data(view)
    assert data is not None and sha256_of(data) == explained.sha256
