"""The assignment and chat member ports, on every backend: assignments found by chat, author
and quiz, cancelled once, attempts counted once with their answer counts, and the members
seen in a chat (recorded, round players, players of their own quiz there)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.storage import AnswerRecord, AttemptStatus, NewAttempt, NewRound, RoundAnswer, Storage
from bot.storage.assignments import NewAssignment

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def assignment(chat: str = "-100", quiz: str = "q", by: str = "admin", days: int = 3):
    return NewAssignment("telegram", chat, quiz, by, "en", T0, T0 + timedelta(days=days), chat)


def attempt(user: str, chat: str | None = None, quiz: str = "q") -> NewAttempt:
    return NewAttempt("telegram", user, chat, quiz, ("q1", "q2"), {"q1": ("a", "b")}, T0)


async def answer(storage: Storage, attempt_id: int, question: str, correct: bool, *, last=False):
    record = AnswerRecord(attempt_id, question, "a", correct, T0 + timedelta(minutes=5))
    await storage.record_answer(record, finishes=last)


async def test_assignments_are_found_by_chat_author_and_quiz_and_cancelled_once(any_storage):
    storage = any_storage
    later = await storage.create_assignment(assignment(days=5))
    sooner = await storage.create_assignment(assignment(quiz="other", by="lead"))
    elsewhere = await storage.create_assignment(assignment(chat="-200"))
    assert later.deadline == T0 + timedelta(days=5) and later.cancelled_at is None
    assert await storage.get_assignment(later.id) == later
    assert await storage.get_assignment(later.id + 100) is None
    here = await storage.find_assignments("telegram", "-100")
    assert [a.id for a in here] == [sooner.id, later.id]  # by deadline
    assert [a.id for a in await storage.find_assignments(created_by="lead")] == [sooner.id]
    assert [a.id for a in await storage.find_assignments(quiz_id="q")] == [elsewhere.id, later.id]
    assert await storage.find_assignments("discord") == []
    assert await storage.cancel_assignment(sooner.id, T0 + timedelta(hours=1))
    assert not await storage.cancel_assignment(sooner.id, T0 + timedelta(hours=2))
    cancelled = await storage.get_assignment(sooner.id)
    assert cancelled is not None and cancelled.cancelled_at == T0 + timedelta(hours=1)
    assert not cancelled.open_at(T0) and later.open_at(T0)
    assert not later.open_at(later.deadline)


async def test_an_attempt_counts_once_with_its_answer_counts_and_player(any_storage):
    storage = any_storage
    set_ = await storage.create_assignment(assignment())
    await storage.touch_user("telegram", "asha", "Asha")
    done, _ = await storage.create_attempt(attempt("asha"))
    going, _ = await storage.create_attempt(attempt("ben"))
    other, _ = await storage.create_attempt(attempt("cleo"))  # never linked
    await answer(storage, done.id, "q1", True)
    await answer(storage, done.id, "q2", False, last=True)
    await answer(storage, going.id, "q1", True)
    await answer(storage, other.id, "q1", True)
    assert await storage.link_attempt(set_.id, done.id, "asha", T0)
    assert not await storage.link_attempt(set_.id, done.id, "asha", T0 + timedelta(minutes=1))
    assert await storage.link_attempt(set_.id, going.id, "ben", T0 + timedelta(minutes=2))
    counted = await storage.assigned_attempts(set_.id)
    assert [(c.attempt.user_id, c.answered, c.correct, c.display_name) for c in counted] == [
        ("asha", 2, 1, "Asha"),
        ("ben", 1, 1, None),
    ]
    assert counted[0].attempt.status is AttemptStatus.COMPLETED
    assert counted[1].linked_at == T0 + timedelta(minutes=2)
    answers = await storage.assignment_answers(set_.id)
    assert [(a.attempt_id, a.question_id) for a in answers] == [
        (done.id, "q1"),
        (done.id, "q2"),
        (going.id, "q1"),
    ]
    assert await storage.assigned_attempts(set_.id + 1) == []


async def test_the_members_of_a_chat_are_those_recorded_round_players_and_quiz_players(
    any_storage,
):
    storage = any_storage
    await storage.record_member("telegram", "-100", "asha", "Asha", T0)
    await storage.record_member("telegram", "-100", "asha", None, T0 + timedelta(days=1))
    await storage.record_member("telegram", "-200", "zed", "Zed", T0)  # another chat
    await storage.record_member("discord", "-100", "dora", "Dora", T0)  # another platform
    round_, _ = await storage.create_round(
        NewRound("telegram", "-100", "q", "asha", "en", ("q1",), {}, 30, T0)
    )
    played = RoundAnswer(round_.id, 1, "ben", "Ben R", "a", True, 900, T0)
    await storage.record_round_answer(played)
    await storage.create_attempt(attempt("cleo", chat="-100"))
    await storage.create_attempt(attempt("dan", chat="dan"))  # in private: not a member
    await storage.touch_user("telegram", "ben", "Ben")  # the name last seen wins
    members = await storage.chat_members("telegram", "-100")
    assert [(m.user_id, m.display_name) for m in members] == [
        ("asha", "Asha"),
        ("ben", "Ben"),
        ("cleo", None),
    ]
    assert [m.user_id for m in await storage.chat_members("telegram", "-300")] == []
