"""The cache of validated quiz files: a restart reuses it, and it is never served stale."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import stat
from pathlib import Path

import pytest

from bot.catalog import QuizCatalog
from bot.quiz import Option, Question, Quiz, QuizImage
from bot.quiz_cache import decode_quiz, default_cache_dir, encode_quiz, quiz_content_hash
from quizbot.settings import Settings
from tests.banks import BANK, BANK_PICK, write_bank
from tests.conftest import QUIZ_DIR, SEED_QUIZ
from tests.images import picture, write_picture_quiz


@pytest.fixture
def quizzes(tmp_path: Path) -> Path:
    directory = tmp_path / "quizzes"
    shutil.copytree(QUIZ_DIR, directory)
    return directory


def load(directory: Path, cache: Path) -> QuizCatalog:
    catalog, report = QuizCatalog.from_paths([directory], cache_dir=cache)
    assert report.errors == []
    return catalog


def test_a_restart_serves_every_quiz_from_the_cache_unchanged(quizzes, tmp_path):
    uncached, _ = QuizCatalog.from_paths([quizzes], cache_dir=None)
    first = load(quizzes, tmp_path / "cache")
    again = load(quizzes, tmp_path / "cache")
    files = len(list(quizzes.glob("*.yaml")))
    assert first.cache is not None
    assert (first.cache.misses, first.cache.hits) == (files, 0)
    assert again.cache is not None
    assert (again.cache.misses, again.cache.hits) == (0, files)
    assert again.all() == uncached.all()
    seed = again.get(SEED_QUIZ)
    assert seed is not None and seed.question(seed.questions[0].id) == seed.questions[0]


def test_an_edited_file_is_validated_again_even_with_same_size_and_mtime(quizzes, tmp_path):
    path = quizzes / f"{SEED_QUIZ}.yaml"
    load(quizzes, tmp_path / "cache")
    before = path.stat()
    text = path.read_text(encoding="utf-8")
    seed = load(quizzes, tmp_path / "cache").get(SEED_QUIZ)
    assert seed is not None
    title = seed.title.by_language["en"]
    edited = text.replace(title, title[::-1], 1)
    assert edited != text and len(edited.encode()) == len(text.encode())
    path.write_text(edited, encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # an edit hiding its mtime
    after = load(quizzes, tmp_path / "cache")
    edited = after.get(SEED_QUIZ)
    assert edited is not None and edited.title.by_language["en"] == title[::-1]
    assert after.cache is not None
    assert after.cache.misses == 1


def test_a_file_that_became_broken_is_reported_not_served_from_the_cache(quizzes, tmp_path):
    load(quizzes, tmp_path / "cache")
    (quizzes / f"{SEED_QUIZ}.yaml").write_text("title: [unclosed\n", encoding="utf-8")
    catalog, report = QuizCatalog.from_paths([quizzes], cache_dir=tmp_path / "cache")
    assert catalog.get(SEED_QUIZ) is None
    assert [e.path for e in report.errors] == [str(quizzes / f"{SEED_QUIZ}.yaml")]
    # The broken file's report is cached too, and reported again on the next start.
    _, again = QuizCatalog.from_paths([quizzes], cache_dir=tmp_path / "cache")
    assert again.errors == report.errors


@pytest.mark.parametrize("damage", [b"", b"not a pickle", b"\x80\x05garbage"])
def test_a_corrupt_cache_entry_is_ignored_and_rebuilt(quizzes, tmp_path, damage):
    cache = tmp_path / "cache"
    good = load(quizzes, cache).all()
    entries = list(cache.glob("*.json"))
    assert entries
    for entry in entries:
        entry.write_bytes(damage)
    rebuilt = load(quizzes, cache)
    assert rebuilt.all() == good
    assert rebuilt.cache is not None
    assert rebuilt.cache.misses == len(entries)
    warm = load(quizzes, cache).cache
    assert warm is not None and warm.hits == len(entries)


def test_an_entry_written_for_another_file_is_not_used(quizzes, tmp_path):
    cache = tmp_path / "cache"
    load(quizzes, cache)
    entries = sorted(cache.glob("*.json"))
    assert len(entries) >= 2
    swapped = [e.read_bytes() for e in entries]
    for entry, data in zip(entries, swapped[1:] + swapped[:1], strict=True):
        entry.write_bytes(data)
    reloaded = load(quizzes, cache)
    assert reloaded.cache is not None
    assert reloaded.cache.hits == 0
    assert reloaded.all() == QuizCatalog.from_paths([quizzes], cache_dir=None)[0].all()


def test_the_cache_directory_is_private_and_an_unwritable_one_is_skipped(quizzes, tmp_path):
    cache = tmp_path / "cache"
    load(quizzes, cache)
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700
    blocked = tmp_path / "file-not-dir"
    blocked.write_text("x", encoding="utf-8")
    catalog = load(quizzes, blocked / "cache")  # cannot be created: loads without a cache
    assert len(catalog) == len(list(quizzes.glob("*.yaml")))


def test_the_cache_directory_comes_from_the_environment(tmp_path):
    here = tmp_path / "here"
    assert default_cache_dir({"QUIZ_CACHE_DIR": str(here)}) == here
    assert default_cache_dir({"QUIZ_CACHE_DIR": ""}) is None
    xdg = {"XDG_CACHE_HOME": str(tmp_path / "xdg")}
    assert default_cache_dir(xdg) == tmp_path / "xdg" / "quizbot" / "quizzes"
    # Parsed once with the other settings, and what `quizbot run` and `play` load with.
    settings = Settings.from_env({"QUIZ_CACHE_DIR": str(here), "QUIZ_DIR": str(QUIZ_DIR)})
    assert settings.quiz_cache_dir == here


class _Payload:
    """Runs code when unpickled: what a planted cache entry did to the pickle-based cache."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path.write_text, (self.marker, "ran"))


def _nobody() -> int:
    import pwd

    try:
        return pwd.getpwnam("nobody").pw_uid
    except KeyError:
        return 65534


def test_a_planted_entry_never_runs_code_and_the_quiz_still_loads(quizzes, tmp_path, caplog):
    import pickle

    cache = tmp_path / "cache"
    good = load(quizzes, cache).all()
    marker = tmp_path / "marker"
    planted = pickle.dumps(_Payload(marker))
    entries = [p for p in cache.iterdir() if not p.name.endswith(".tmp")]
    assert entries
    for entry in entries:  # every entry the cache reads, under every name it might use
        for name in (entry, entry.with_suffix(".pickle")):
            name.write_bytes(planted)
    reloaded = load(quizzes, cache)
    assert not marker.exists()
    assert reloaded.all() == good
    # Planted by another user (root can give a file away; others cannot, so skip there).
    if os.geteuid() != 0:
        pytest.skip("needs root to create a file owned by another uid")
    for entry in cache.iterdir():
        entry.write_bytes(planted)
        os.chown(entry, _nobody(), -1)
    with caplog.at_level("WARNING", logger="bot.quiz_cache"):
        foreign = load(quizzes, cache)
    assert not marker.exists()
    assert foreign.cache is not None
    assert foreign.all() == good and foreign.cache.hits == 0
    warned = " ".join(r.getMessage() for r in caplog.records)
    assert str(entries[0]) in warned and "owned by uid" in warned


@pytest.mark.parametrize("how", ["world-writable", "foreign-owned"])
def test_a_cache_directory_others_can_write_is_refused_with_a_warning(
    quizzes, tmp_path, caplog, how
):
    cache = tmp_path / "shared"
    good = load(quizzes, cache).all()
    if how == "world-writable":
        cache.chmod(0o777)
    elif os.geteuid() == 0:
        os.chown(cache, _nobody(), -1)
    else:
        pytest.skip("needs root to give a directory to another uid")
    before = {p.name: p.read_bytes() for p in cache.iterdir()}
    with caplog.at_level("WARNING", logger="bot.quiz_cache"):
        catalog = load(quizzes, cache)
    assert catalog.all() == good
    assert catalog.cache is not None
    assert (catalog.cache.hits, catalog.cache.misses) == (0, 0)  # neither read nor written
    assert {p.name: p.read_bytes() for p in cache.iterdir()} == before
    [warning] = [r.getMessage() for r in caplog.records]
    assert str(cache) in warning and "QUIZ_CACHE_DIR" in warning


def test_a_cached_bank_keeps_its_pick_and_tags(quizzes, tmp_path):
    # Every field the loader sets must survive the cache: a restart that dropped the tags
    # would refuse "/quiz bank #gamma", one that dropped pick would play all 30 questions.
    write_bank(quizzes)
    uncached, _ = QuizCatalog.from_paths([quizzes], cache_dir=None)
    load(quizzes, tmp_path / "cache")
    again = load(quizzes, tmp_path / "cache")
    assert again.cache is not None
    assert again.cache.hits == len(list(quizzes.glob("*.yaml")))
    bank = again.get(BANK)
    assert bank is not None and bank.pick == BANK_PICK and "gamma" in bank.tags
    assert again.all() == uncached.all()


EVERY_FIELD = """\
title: {en: Every field}
shuffle: {questions: true, options: false}
native_polls: true
questions:
  - id: typed
    kind: typed
    text: {en: "Capital of France?"}
    answers: [Paris, paris city]
    image: {file: map.png, alt: {en: A map of France}}
    explanation_image: {file: pin.png, alt: {en: Paris marked on the map}}
"""


def write_every_field(quizzes: Path) -> None:
    (quizzes / "every-field.yaml").write_text(EVERY_FIELD, encoding="utf-8")
    (quizzes / "map.png").write_bytes(picture())
    (quizzes / "pin.png").write_bytes(picture(shade=50))


def test_a_cached_quiz_keeps_every_setting(quizzes, tmp_path):
    write_every_field(quizzes)
    uncached, _ = QuizCatalog.from_paths([quizzes], cache_dir=None)
    load(quizzes, tmp_path / "cache")
    assert load(quizzes, tmp_path / "cache").all() == uncached.all()


def test_the_cached_quizzes_exercise_every_field_of_the_quiz_model(quizzes):
    # The cache writes entries field by field, and test_a_cached_bank_keeps_its_pick_and_tags
    # compares whole quizzes after a round trip: that proves a field survives only when some
    # quiz here sets it. A field added to the model must be set by one of these files.
    write_bank(quizzes)
    write_every_field(quizzes)
    catalog, report = QuizCatalog.from_paths([quizzes], cache_dir=None)
    assert report.errors == []
    questions = [question for quiz in catalog.all() for question in quiz.questions]
    options = [option for question in questions for option in question.options]
    images = [i for q in questions for i in (q.image, q.explanation_image) if i is not None]
    models = ((Quiz, catalog.all()), (Question, questions), (Option, options), (QuizImage, images))
    for model, objects in models:
        for field in dataclasses.fields(model):
            if field.name.startswith("_") or (model is Quiz and field.name == "version"):
                continue  # private, or the library's number for it (not in a file or entry)
            default = (
                field.default_factory()
                if field.default_factory is not dataclasses.MISSING
                else field.default
            )
            if default is dataclasses.MISSING:
                continue  # required: always set
            assert any(getattr(o, field.name) != default for o in objects), (
                f"no test quiz sets {model.__name__}.{field.name}: add it to the bank or the "
                "bundled quizzes, and to bot/quiz_cache.py"
            )


def test_a_cached_quiz_is_checked_again_when_an_image_it_names_changes(quizzes, tmp_path):
    # The cache key is the quiz file's; its images are files of their own. A diagram redrawn,
    # removed or added after the first start must be seen on the next one.
    write_picture_quiz(quizzes)
    diagram = quizzes / "images" / "diagram.png"
    first = load(quizzes, tmp_path / "cache").get("pictures")
    assert first is not None and first.questions[0].image is not None
    diagram.write_bytes(picture(120, 80, shade=99))  # same size, other pixels
    again = load(quizzes, tmp_path / "cache")
    redrawn = again.get("pictures")
    assert redrawn is not None and redrawn.questions[0].image is not None
    assert redrawn.questions[0].image.sha256 != first.questions[0].image.sha256
    assert again.cache is not None and again.cache.misses == 1
    diagram.unlink()
    catalog, report = QuizCatalog.from_paths([quizzes], cache_dir=tmp_path / "cache")
    assert catalog.get("pictures") is None
    assert any("no such file" in e.message for e in report.errors)
    diagram.write_bytes(picture(120, 80))  # put back: served again, not the cached error
    back = load(quizzes, tmp_path / "cache").get("pictures")
    assert back == first


def test_library_content_stored_before_explanation_images_still_reads_and_hashes_the_same(
    quizzes,
):
    # The library keeps encode_quiz's JSON of every published version. A question without an
    # explanation image is written as before there were any: nine fields, and the same
    # content hash, so an upgraded replica reads the versions already published and
    # publishes no new version of an unchanged quiz.
    write_every_field(quizzes)
    catalog, _ = QuizCatalog.from_paths([quizzes], cache_dir=None)
    seed = catalog.get(SEED_QUIZ)
    assert seed is not None and all(q.explanation_image is None for q in seed.questions)
    stored = json.loads(encode_quiz(seed))
    assert {len(q) for q in stored["questions"]} == {9}
    assert decode_quiz(json.dumps(stored)) == seed
    every = catalog.get("every-field")
    assert every is not None
    (question,) = every.questions
    image, explained = question.image, question.explanation_image
    assert image is not None and explained is not None
    assert decode_quiz(encode_quiz(every)) == every

    def with_images(image: QuizImage, explained: QuizImage) -> Quiz:
        changed = dataclasses.replace(question, image=image, explanation_image=explained)
        return dataclasses.replace(every, questions=(changed,))

    # Where an image was read from is no part of the content: moved files, the same hash.
    moved = with_images(
        dataclasses.replace(image, path="/elsewhere/map.png"),
        dataclasses.replace(explained, path="/elsewhere/pin.png"),
    )
    assert quiz_content_hash(moved) == quiz_content_hash(every)
    redrawn = with_images(image, dataclasses.replace(explained, sha256="0" * 64))
    assert quiz_content_hash(redrawn) != quiz_content_hash(every)
