"""Question banks through the engine (SQLite and PostgreSQL), the loader, the schema and the
terminal: ``pick: N`` draws per attempt, ``tags:`` practise one topic, options shuffle by
default."""

from __future__ import annotations

import json
import random
import re
import textwrap
from datetime import timedelta
from pathlib import Path

import pytest

from bot.bank_texts import BANK_STRINGS
from bot.catalog import QuizCatalog
from bot.engine import QuizEngine
from bot.i18n import SUPPORTED_LANGUAGES
from bot.quiz import Shuffle
from bot.quiz_loader import MAX_QUESTIONS, QUIZ_KEYS, TAG_PATTERN, load_quiz_text
from bot.storage import Storage
from bot.text_direction import strip_controls
from bot.views import AnswerOutcome, Participant, QuestionView, StartOutcome
from tests.banks import BANK, BANK_PICK, BANK_SIZE, bank_yaml, topic, write_bank
from tests.conftest import QUIZ_DIR, ROOT, FakeClock, services_beside
from tests.test_terminal import quizbot

ANN = Participant("telegram", "1", "Ann", "en")
BOB = Participant("telegram", "2", "Bob", "en")


@pytest.fixture
def bank_dir(tmp_path: Path) -> Path:
    write_bank(tmp_path / "quizzes")
    return tmp_path / "quizzes"


def new_engine(directory: Path, storage: Storage, seed: int | None = None) -> QuizEngine:
    catalog, report = QuizCatalog.from_paths([directory])
    assert not report.errors, report.errors
    rng = random.Random(seed) if seed is not None else None
    return QuizEngine(catalog, storage, clock=FakeClock(), rng=rng)


def right_index(engine: QuizEngine, view: QuestionView) -> int:
    return next(i for i, o in enumerate(view.options) if o.id == "a")


async def play(
    engine: QuizEngine,
    who: Participant,
    view: QuestionView | None,
    *,
    miss: frozenset[str] | set[str] = frozenset(),
) -> list[QuestionView]:
    """Answer to the end (wrongly for the question ids in ``miss``); the views shown."""
    shown = []
    feedback = None
    while view is not None:
        shown.append(view)
        index = right_index(engine, view)
        if view.question_id in miss:
            index = (index + 1) % len(view.options)
        feedback = await engine.answer_by_position(who, view.attempt_id, view.number, index)
        assert feedback.outcome is AnswerOutcome.ACCEPTED
        view = feedback.next_question
    assert feedback is not None and feedback.result is not None
    return shown


# -- pick: N --------------------------------------------------------------------------------


async def test_a_bank_attempt_plays_its_pick_and_scores_out_of_it(bank_dir, open_storage):
    engine = new_engine(bank_dir, await open_storage())
    start = await engine.start(ANN, BANK)
    assert start.outcome is StartOutcome.STARTED
    assert start.question is not None
    assert (start.question.number, start.question.total) == (1, BANK_PICK)
    first = start.question.question_id
    shown = await play(engine, ANN, start.question, miss={first})
    assert [v.number for v in shown] == list(range(1, BANK_PICK + 1))
    assert all(v.total == BANK_PICK for v in shown)
    assert len({v.question_id for v in shown}) == BANK_PICK
    result = await engine.result(ANN, shown[0].attempt_id)
    assert result is not None
    assert (result.correct, result.total) == (BANK_PICK - 1, BANK_PICK)
    assert [m.question_id for m in result.marks] == [v.question_id for v in shown]
    # The drawn questions keep the file's order (the bank does not shuffle questions).
    numbers = [int(v.question_id[1:]) for v in shown]
    assert numbers == sorted(numbers)
    progress = await engine.progress(ANN)
    (line,) = progress.quizzes
    assert (line.total, line.best) == (BANK_PICK, BANK_PICK - 1)
    (summary,) = engine.quizzes("en")
    assert summary.question_count == BANK_PICK


async def test_attempts_draw_different_sets(bank_dir, open_storage):
    engine = new_engine(bank_dir, await open_storage())
    sets = set()
    for n in range(6):
        who = Participant("telegram", f"p{n}", f"P{n}", "en")
        shown = await play(engine, who, (await engine.start(who, BANK)).question)
        sets.add(frozenset(v.question_id for v in shown))
    assert len(sets) > 1  # 6 draws of 5 from 30 coinciding: about 1 in 10^25
    drawn = {qid for s in sets for qid in s}
    assert len(drawn) > BANK_PICK


async def test_the_drawn_set_survives_a_restart_mid_attempt(bank_dir, open_storage):
    engine = new_engine(bank_dir, await open_storage())
    view = (await engine.start(ANN, BANK)).question
    assert view is not None
    planned = [view.question_id]
    feedback = await engine.answer_by_position(ANN, view.attempt_id, 1, right_index(engine, view))
    assert feedback.next_question is not None
    planned.append(feedback.next_question.question_id)
    # Another process (a restart, or a replica) on the same database, with its own random
    # numbers and no memory of the attempt: it must not draw again.
    restarted = new_engine(bank_dir, await open_storage(), seed=12345)
    again = await restarted.start(ANN, BANK)
    assert again.outcome is StartOutcome.RESUMED
    assert again.question is not None
    assert (again.question.question_id, again.question.number) == (planned[1], 2)
    shown = await play(restarted, ANN, again.question)
    result = await restarted.result(ANN, view.attempt_id)
    assert result is not None
    assert [m.question_id for m in result.marks][:2] == planned
    assert [m.question_id for m in result.marks][1:] == [v.question_id for v in shown]
    assert result.total == BANK_PICK


async def test_a_missed_picked_question_comes_back_in_review(bank_dir, open_storage):
    storage = await open_storage()
    engine = new_engine(bank_dir, storage)
    view = (await engine.start(ANN, BANK)).question
    assert view is not None
    missed = view.question_id
    await play(engine, ANN, view, miss={missed})
    engine.clock = FakeClock(start=engine.clock() + timedelta(days=2))
    review = await engine.start_review(ANN, BANK)
    assert review.outcome is StartOutcome.STARTED
    assert review.question is not None
    assert (review.question.question_id, review.question.total) == (missed, 1)
    feedback = await engine.answer_by_position(ANN, review.question.attempt_id, 1, 0)
    assert feedback.result is not None
    assert feedback.outcome is AnswerOutcome.ACCEPTED and feedback.result.review


async def test_stats_count_per_question_across_draws(bank_dir, open_storage):
    engine = new_engine(bank_dir, await open_storage())
    played: dict[str, int] = {}
    missed: dict[str, int] = {}
    for n in range(4):
        who = Participant("telegram", f"s{n}", f"S{n}", "en")
        view = (await engine.start(who, BANK)).question
        assert view is not None
        shown = await play(engine, who, view, miss={view.question_id})
        for v in shown:
            played[v.question_id] = played.get(v.question_id, 0) + 1
        missed[view.question_id] = missed.get(view.question_id, 0) + 1
    (stats,) = await engine.stats(BANK)
    assert stats.total_questions == BANK_PICK
    assert (stats.attempts, stats.completed) == (4, 4)
    assert stats.average_score == BANK_PICK - 1
    by_id = {q.question_id: q for q in stats.questions}
    assert len(by_id) == BANK_SIZE  # every question of the bank, drawn or not
    for question_id, question in by_id.items():
        assert question.answered == played.get(question_id, 0)
        assert question.correct == played.get(question_id, 0) - missed.get(question_id, 0)


async def test_a_group_round_draws_once_for_everyone(bank_dir, open_storage):
    storage = await open_storage()
    engine = new_engine(bank_dir, storage)
    start = await services_beside(engine).rounds.start("telegram", "room", ANN, BANK)
    assert start.question is not None
    assert start.question.total == BANK_PICK
    again = await services_beside(engine).rounds.start("telegram", "room", BOB, BANK)
    assert again.outcome.name == "ALREADY_RUNNING"
    assert again.question is not None
    assert (again.question.round_id, again.question.text) == (
        start.question.round_id,
        start.question.text,
    )
    # One draw, stored with the round: every member is asked the same 5 questions.
    stored = await storage.get_round(start.question.round_id)
    assert stored is not None
    assert len(set(stored.question_order)) == BANK_PICK
    assert set(stored.question_order) <= {f"q{n}" for n in range(1, BANK_SIZE + 1)}
    board = await services_beside(engine).rounds.leaderboard(BANK, ANN)
    assert board is not None
    assert board.total == BANK_PICK


async def test_a_round_of_one_tag_and_an_unknown_tag_for_a_round(bank_dir, open_storage):
    storage = await open_storage()
    engine = new_engine(bank_dir, storage)
    unknown = await services_beside(engine).rounds.start("telegram", "room", ANN, BANK, tag="delta")
    assert unknown.outcome.name == "UNKNOWN_TAG" and "Its tags: #alpha" in unknown.notice
    assert await services_beside(engine).rounds.running("telegram", "room") is None
    start = await services_beside(engine).rounds.start("telegram", "room", ANN, BANK, tag="#Alpha")
    assert start.question is not None
    assert start.outcome.name == "STARTED" and start.question.total == BANK_PICK
    stored = await storage.get_round(start.question.round_id)
    assert stored is not None
    assert {topic(int(qid[1:])) for qid in stored.question_order} == {"alpha"}


# -- tags -----------------------------------------------------------------------------------


async def test_a_tag_plays_only_its_questions_drawn_from_them(bank_dir, open_storage):
    engine = new_engine(bank_dir, await open_storage())
    start = await engine.start(ANN, BANK, tag="#Beta")  # as typed: hash and case aside
    assert start.outcome is StartOutcome.STARTED
    shown = await play(engine, ANN, start.question)
    assert len(shown) == BANK_PICK and all(v.total == BANK_PICK for v in shown)
    assert {topic(int(v.question_id[1:])) for v in shown} == {"beta"}
    # A tag attempt is an attempt of the quiz: its answers count per question in the stats.
    (stats,) = await engine.stats(BANK)
    assert sum(q.answered for q in stats.questions) == BANK_PICK


async def test_a_tag_with_fewer_questions_than_the_pick_plays_them_all(tmp_path, open_storage):
    directory = tmp_path / "q"
    directory.mkdir()
    text = bank_yaml().replace("    tags: [alpha]\n", "    tags: [alpha, rare]\n", 2)
    (directory / "bank.yaml").write_text(text, encoding="utf-8")
    engine = new_engine(directory, await open_storage())
    start = await engine.start(ANN, BANK, tag="rare")
    shown = await play(engine, ANN, start.question)
    assert [v.question_id for v in shown] == ["q1", "q3"]
    assert shown[0].total == 2


async def test_an_unknown_tag_lists_the_quiz_tags_and_starts_nothing(bank_dir, open_storage):
    storage = await open_storage()
    engine = new_engine(bank_dir, storage)
    start = await engine.start(ANN, BANK, tag="delta\n<b>")
    assert start.outcome is StartOutcome.UNKNOWN_TAG and start.question is None
    assert start.notice == (
        '“Question bank” has no questions tagged "delta\\n<b>". '
        "Its tags: #alpha, #beta, #even, #gamma"
    )
    assert await storage.active_attempts("telegram", "1") == []


async def test_a_tag_for_a_quiz_without_tags_says_so(open_storage):
    engine = new_engine(QUIZ_DIR, await open_storage())
    quiz = engine.catalog.all()[0]
    start = await engine.start(ANN, quiz.id, tag="anything")
    assert start.outcome is StartOutcome.UNKNOWN_TAG
    assert "has no tags" in start.notice and '"anything"' in start.notice


async def test_another_tag_resumes_the_unfinished_attempt_and_says_how_to_switch(
    bank_dir, open_storage
):
    engine = new_engine(bank_dir, await open_storage())
    first = (await engine.start(ANN, BANK, tag="alpha")).question
    assert first is not None
    await engine.answer_by_position(ANN, first.attempt_id, 1, right_index(engine, first))
    same = await engine.start(ANN, BANK, tag="alpha")
    assert (same.outcome, same.notice) == (
        StartOutcome.RESUMED,
        "Welcome back: continuing where you stopped.",
    )
    other = await engine.start(ANN, BANK, tag="gamma")
    assert other.outcome is StartOutcome.RESUMED
    assert other.question is not None
    assert other.question.attempt_id == first.attempt_id  # nothing answered is lost
    assert "#gamma" in other.notice and "Finish or stop it" in other.notice
    await engine.stop(ANN)
    fresh = await engine.start(ANN, BANK, tag="gamma")
    assert fresh.outcome is StartOutcome.STARTED
    assert fresh.question is not None
    assert topic(int(fresh.question.question_id[1:])) == "gamma"


async def test_a_tag_without_a_quiz_starts_the_one_quiz_that_has_it(bank_dir, open_storage):
    catalog, report = QuizCatalog.from_paths([QUIZ_DIR, bank_dir])
    assert not report.errors and len(catalog) > 1
    engine = QuizEngine(catalog, await open_storage(), clock=FakeClock())
    start = await engine.start(ANN, tag="#gamma")
    assert start.question is not None
    assert (start.outcome, start.question.quiz_id) == (StartOutcome.STARTED, BANK)
    assert topic(int(start.question.question_id[1:])) == "gamma"
    # A tag no quiz has cannot pick one: the list of quizzes, as without a tag.
    assert (await engine.start(BOB, tag="nowhere")).outcome is StartOutcome.CHOOSE


# -- options shuffled by default --------------------------------------------------------------


def quiz_with(shuffle: str) -> str:
    options = "\n".join(f"      - {{id: o{n}, text: Option {n}}}" for n in range(1, 9))
    return f"id: order\ntitle: Order\n{shuffle}questions:\n" + "".join(
        f"  - id: q{q}\n    text: Q{q}?\n    options:\n{options}\n    correct: o1\n"
        f"    explanation: Because.\n"
        for q in range(1, 4)
    )


@pytest.mark.parametrize(
    ("shuffle", "options_shuffled"),
    [
        ("", True),
        ("shuffle: {questions: true}\n", True),
        ("shuffle: {options: false}\n", False),
        ("shuffle: false\n", False),
    ],
)
async def test_options_are_shuffled_unless_the_file_says_otherwise(
    tmp_path, open_storage, shuffle, options_shuffled
):
    (tmp_path / "order.yaml").write_text(quiz_with(shuffle), encoding="utf-8")
    engine = new_engine(tmp_path, await open_storage())
    orders = set()
    for n in range(4):
        who = Participant("telegram", f"o{n}", f"O{n}", "en")
        view = (await engine.start(who, "order")).question
        assert view is not None
        if not shuffle:
            assert view.question_id == "q1"  # questions stay in order
        orders.add(tuple(o.id for o in view.options))
    author = tuple(f"o{n}" for n in range(1, 9))
    if options_shuffled:
        assert len(orders) > 1  # 4 shuffles of 8 options all alike: 1 in 40320^3
    else:
        assert orders == {author}


def test_the_bundled_quizzes_state_their_shuffle():
    for path in sorted(QUIZ_DIR.glob("*.yaml")):
        assert "\nshuffle:" in path.read_text(encoding="utf-8"), path.name


# -- the loader -------------------------------------------------------------------------------


def errors_of(text: str) -> list[str]:
    return [str(e) for e in load_quiz_text(text, "quizzes/bank.yaml", "bank").errors]


def line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


@pytest.mark.parametrize("pick", ["0", "31", "-2", "true", "'5'", "2.5", "[5]"])
def test_a_bad_pick_is_reported_with_its_line(pick):
    text = bank_yaml(pick=pick)
    shown = {"true": "True", "'5'": "5", "[5]": "[5]"}.get(pick, pick)
    assert errors_of(text) == [
        f'quizzes/bank.yaml:{line_of(text, "pick:")}: pick "{shown}" must be a whole number '
        "from 1 to 30 (the number of questions)"
    ]


def test_pick_may_be_every_question():
    report = load_quiz_text(bank_yaml(pick=30), "b.yaml", "b")
    assert not report.errors and report.quizzes[0].pick == 30


@pytest.mark.parametrize(
    ("tags", "problem"),
    [
        ("[Grammar]", 'tag "Grammar" must be lowercase letters'),
        ("[two words]", 'tag "two words" must be lowercase letters'),
        ("[a-b]", 'tag "a-b" must be lowercase letters'),
        ("[" + "x" * 25 + "]", "must be lowercase letters, digits and _ (at most 24"),
        ("[7]", 'tag "7" must be lowercase letters'),
        ("[alpha, alpha]", 'tag "alpha" is listed twice'),
        ("{a: b}", "tags must be a list of names"),
        ("[" + ", ".join(f"t{n}" for n in range(11)) + "]", "11 tags; the limit is 10"),
    ],
)
def test_bad_tags_are_reported_with_their_line(tags, problem):
    text = bank_yaml().replace("tags: [beta]", f"tags: {tags}", 1)
    (error,) = errors_of(text)
    assert error.startswith(f"quizzes/bank.yaml:{line_of(text, f'tags: {tags}')}: ")
    assert 'question "q11": ' in error and problem in error


def test_one_tag_need_not_be_a_list_and_the_quiz_lists_its_tags():
    text = bank_yaml().replace("tags: [beta]", "tags: solo", 1)
    (quiz,) = load_quiz_text(text, "b.yaml", "b").quizzes
    question = quiz.question("q11")
    assert question is not None and question.tags == ("solo",)
    assert quiz.tags == ("alpha", "beta", "even", "gamma", "solo")


def test_a_typed_question_may_have_tags():
    text = textwrap.dedent(
        """\
        title: T
        questions:
          - id: q1
            kind: typed
            text: Capital of France?
            answers: [Paris]
            tags: [geography]
        """
    )
    (quiz,) = load_quiz_text(text, "t.yaml", "t").quizzes
    assert quiz.tags == ("geography",)


def test_every_bank_string_is_in_every_language():
    for key, by_language in BANK_STRINGS.items():
        assert set(by_language) == set(SUPPORTED_LANGUAGES), key
        placeholders = {re.findall(r"{(\w+)}", text).__str__() for text in by_language.values()}
        assert len(placeholders) == 1, key  # every translation fills in the same values


# -- the schema -------------------------------------------------------------------------------


def test_the_schema_states_pick_tags_and_the_shuffle_default():
    schema = json.loads((ROOT / "schema" / "quiz.schema.json").read_text(encoding="utf-8"))
    assert "pick" in QUIZ_KEYS and schema["properties"]["pick"]["maximum"] == MAX_QUESTIONS
    assert schema["$defs"]["tag"]["pattern"] == TAG_PATTERN.pattern
    shuffle = schema["properties"]["shuffle"]["anyOf"][2]["properties"]
    assert shuffle["options"]["default"] is Shuffle().options is True
    assert shuffle["questions"]["default"] is Shuffle().questions is False


def test_the_schema_accepts_a_bank_and_refuses_bad_tags():
    jsonschema = pytest.importorskip("jsonschema")
    import yaml

    schema = json.loads((ROOT / "schema" / "quiz.schema.json").read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    assert not list(validator.iter_errors(yaml.safe_load(bank_yaml())))
    bad = yaml.safe_load(bank_yaml().replace("tags: [beta]", "tags: [Beta]", 1))
    assert list(validator.iter_errors(bad))
    assert list(validator.iter_errors(yaml.safe_load(bank_yaml(pick=0))))


# -- the terminal -----------------------------------------------------------------------------


def test_the_terminal_plays_a_tag_of_a_bank_and_refuses_an_unknown_one(tmp_path, bank_dir):
    env = {"QUIZ_DIR": str(bank_dir)}
    db = tmp_path / "t.db"
    played = quizbot(["play", BANK, "--tag", "gamma", "--user", "kim"], db, "A\n" * 5, env)
    out = strip_controls(played.stdout)
    assert played.returncode == 0, played.stderr
    assert "Question 5/5" in out and "Question 6/" not in out
    asked = {int(n) for n in re.findall(r"Bank question (\d+)\?", out)}
    assert len(asked) == BANK_PICK and {topic(n) for n in asked} == {"gamma"}
    checked = quizbot(["validate", str(bank_dir / "bank.yaml")], db)
    assert checked.stdout.endswith(
        "bank (30 questions, 5 per attempt, en, tags: alpha, beta, even, gamma)\n"
    )
    broken = bank_dir.parent / "broken.yaml"
    broken.write_text(bank_yaml(pick=31).replace("tags: [beta]", "tags: [Beta]", 1))
    refused = quizbot(["validate", str(broken)], db)
    assert refused.returncode == 1
    assert refused.stderr.splitlines() == [
        f'{broken}:3: pick "31" must be a whole number from 1 to 30 (the number of questions)',
        f'{broken}:{line_of(bank_yaml(), "tags: [beta]")}: question "q11": tag "Beta" must be '
        "lowercase letters, digits and _ (at most 24, starting with a letter or digit), e.g. "
        '"grammar"',
    ]
    unknown = quizbot(["play", BANK, "--tag", "delta", "--user", "kim"], db, "", env)
    assert unknown.returncode == 2
    assert 'has no questions tagged "delta". Its tags: #alpha, #beta, #even, #gamma' in (
        strip_controls(unknown.stdout)
    )
