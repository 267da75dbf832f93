"""Group rounds: a chat plays one quiz together, question by question, against the clock.

The round lives in the database (open question, its deadline, every member's first answer), so
a restarted process picks it up where it was: :meth:`GroupRounds.due` lists questions whose
time is up and :meth:`GroupRounds.close` reveals them. Closing is a compare-and-set on the
question number, so two timers (or two replicas) never reveal the same question twice, and an
answer racing the close is either counted or refused by the database. The close also queues
the posts it owes in the round outbox, in the same transaction; :meth:`GroupRounds.reveal`
rebuilds a closed question's reveal, the same whenever it is posted. When a round ends (its
last close, or a stop) the outbox also gets the copy of the members' answers into their own
history: :meth:`GroupRounds.copy_history` runs at once, and again from the outbox if the
process died first; running it twice changes nothing. The timers, the pause
between questions and the live refresh of the open question are driven by
:class:`bot.round_driver.RoundDriver`; adapters own only how a round looks and is sent.
"""

from __future__ import annotations

import asyncio
import enum
import random
import weakref
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from bot.bank_texts import normalize_tag, unknown_tag
from bot.i18n import resolve_language, t
from bot.quiz import Quiz
from bot.review import next_review
from bot.storage import (
    AnswerRecord,
    AttemptKind,
    AttemptRecord,
    AttemptStatus,
    NewAttempt,
    NewRound,
    RoundAnswer,
    RoundRecord,
    RoundStatus,
    StorageError,
)
from bot.storage.records import OutboxKind
from bot.text_direction import is_rtl, prepare
from bot.typed_texts import typed_t
from bot.views import LETTERS, OptionView, Participant, QuizSummary

if TYPE_CHECKING:
    from bot.engine import QuizEngine

DEFAULT_TIME_LIMIT = 30
MIN_TIME_LIMIT, MAX_TIME_LIMIT = 5, 600
FAR_FUTURE = timedelta(days=3650)


@dataclass(frozen=True)
class RoundQuestion:
    """The open question of a round, as everyone in the chat sees it."""

    round_id: int
    platform: str
    chat_id: str
    quiz_id: str
    quiz_title: str
    number: int
    total: int
    text: str
    options: tuple[OptionView, ...]
    language: str
    rtl: bool
    opens_at: datetime
    deadline: datetime
    time_limit_seconds: int


class RoundStartOutcome(enum.StrEnum):
    STARTED = "started"
    ALREADY_RUNNING = "already_running"
    CHOOSE = "choose"
    UNKNOWN_QUIZ = "unknown_quiz"
    UNKNOWN_TAG = "unknown_tag"  # the quiz has no question with that tag (the notice lists its)
    NO_QUIZZES = "no_quizzes"


@dataclass(frozen=True)
class RoundStart:
    outcome: RoundStartOutcome
    language: str
    notice: str
    question: RoundQuestion | None = None
    quizzes: tuple[QuizSummary, ...] = ()


class RoundAnswerOutcome(enum.StrEnum):
    ACCEPTED = "accepted"  # first answer of this member to this question
    DUPLICATE = "duplicate"  # this member had answered already: the first answer counts
    CLOSED = "closed"  # time is up, or the question was revealed
    INVALID = "invalid"  # unknown round or option


@dataclass(frozen=True)
class RoundAnswerResult:
    outcome: RoundAnswerOutcome
    notice: str
    answered: int = 0  # members who answered the open question
    participants: int = 0  # members who answered any question of the round
    everyone_answered: bool = False


@dataclass(frozen=True)
class ScoreLine:
    rank: int
    user_id: str
    name: str
    score: int
    total_ms: int


@dataclass(frozen=True)
class OptionCount:
    option: OptionView
    count: int
    correct: bool


@dataclass(frozen=True)
class RoundReveal:
    """A closed question: the answer, why, how many chose what, and the scoreboard."""

    round_id: int
    platform: str
    chat_id: str
    number: int
    total: int
    question_text: str
    correct_option: OptionView
    explanation: str
    counts: tuple[OptionCount, ...]
    scoreboard: tuple[ScoreLine, ...]
    language: str
    rtl: bool
    next_question: RoundQuestion | None
    finished: bool


@dataclass(frozen=True)
class RoundEnd:
    """A round ended (finished or stopped early), with the final ranking."""

    round_id: int
    quiz_title: str
    scoreboard: tuple[ScoreLine, ...]
    total: int
    stopped: bool
    language: str
    notice: str
    platform: str = ""
    chat_id: str = ""  # where the round was played


@dataclass(frozen=True)
class LeaderboardLine:
    rank: int
    user_id: str
    name: str
    best: int
    seconds: float


@dataclass(frozen=True)
class Leaderboard:
    quiz_id: str
    quiz_title: str
    total: int
    lines: tuple[LeaderboardLine, ...]
    language: str


class GroupRounds:
    """Shared rounds in group chats, on top of the engine's catalog, storage and clock."""

    def __init__(self, engine: QuizEngine, rng: random.Random | None = None) -> None:
        self.engine = engine
        self._rng = rng or random.SystemRandom()
        # Held while a round's history is copied; gone once no copy of it runs.
        self._copying: weakref.WeakValueDictionary[int, asyncio.Lock] = (
            weakref.WeakValueDictionary()
        )

    def _question(self, round_: RoundRecord, quiz: Quiz, number: int) -> RoundQuestion:
        lang = round_.language
        question = quiz.question(round_.question_order[number - 1])
        assert question is not None
        order = round_.option_order.get(question.id) or tuple(o.id for o in question.options)
        options = []
        for letter, option_id in zip(LETTERS, order, strict=False):
            option = question.option(option_id)
            if option is not None:
                options.append(OptionView(option.id, letter, prepare(option.text.get(lang), lang)))
        return RoundQuestion(
            round_id=round_.id,
            platform=round_.platform,
            chat_id=round_.chat_id,
            quiz_id=quiz.id,
            quiz_title=prepare(quiz.title.get(lang), lang),
            number=number,
            total=len(round_.question_order),
            text=prepare(question.text.get(lang), lang),
            options=tuple(options),
            language=lang,
            rtl=is_rtl(lang),
            opens_at=round_.question_started_at,
            deadline=round_.deadline,
            time_limit_seconds=round_.time_limit_seconds,
        )

    async def start(
        self,
        platform: str,
        chat_id: str,
        starter: Participant,
        quiz_id: str | None = None,
        *,
        time_limit: int | None = None,
        tag: str | None = None,
    ) -> RoundStart:
        """Start a round in a chat (one at a time per chat), or say why not. With ``tag``
        the round asks only the quiz's questions carrying it."""
        engine = self.engine
        ui = await engine.interface_language(starter)
        quizzes = engine.catalog.all()
        if not quizzes:
            return RoundStart(RoundStartOutcome.NO_QUIZZES, ui, t("no_quizzes", ui))
        running = await self.running(platform, chat_id)
        if running is not None:
            quiz = engine.catalog.get(running.quiz_id)
            if quiz is not None:
                question = self._question(running, quiz, running.current)
                return RoundStart(
                    RoundStartOutcome.ALREADY_RUNNING,
                    ui,
                    t("round_running", ui),
                    question=question,
                )
            await engine._storage.end_round(running.id, RoundStatus.STOPPED, engine.clock())
        if quiz_id is None and tag is not None:  # the one quiz that has the tag, if one does
            having = [q.id for q in quizzes if normalize_tag(tag) in q.tags]
            quiz_id = having[0] if len(having) == 1 else None
        if quiz_id is None:
            if len(quizzes) > 1:
                summaries = tuple(engine.quizzes(ui))
                return RoundStart(
                    RoundStartOutcome.CHOOSE, ui, t("choose_quiz", ui), quizzes=summaries
                )
            quiz_id = quizzes[0].id
        quiz = engine.catalog.get(quiz_id)
        if quiz is None:
            available = ", ".join(q.id for q in quizzes)
            return RoundStart(
                RoundStartOutcome.UNKNOWN_QUIZ,
                ui,
                t("unknown_quiz", ui, quiz=quiz_id, available=available),
                quizzes=tuple(engine.quizzes(ui)),
            )
        if tag is not None:
            tag = normalize_tag(tag)
            if tag not in quiz.tags:
                title = prepare(quiz.title.get(ui), ui)
                notice = unknown_tag(quiz, title, tag, ui)
                return RoundStart(RoundStartOutcome.UNKNOWN_TAG, ui, notice)
        limit = max(MIN_TIME_LIMIT, min(MAX_TIME_LIMIT, time_limit or DEFAULT_TIME_LIMIT))
        language = await engine.quiz_language(starter, quiz)
        # A round shows one message to the whole chat, answered by buttons: typed-answer
        # questions (a reply from each member) are left out of rounds. A bank's pick is
        # drawn once, from the others, for the whole round: everyone plays the same questions.
        template = engine.plan_attempt(starter, quiz, chat_id, tag=tag, choice_only=True)
        order = template.question_order
        if not order:
            return RoundStart(RoundStartOutcome.NO_QUIZZES, ui, typed_t("round_typed_only", ui))
        await engine._storage.touch_user(starter.platform, starter.user_id, starter.display_name)
        round_, created = await engine._storage.create_round(
            NewRound(
                platform=platform,
                chat_id=chat_id,
                quiz_id=quiz.id,
                starter_id=starter.user_id,
                language=language,
                question_order=order,
                option_order=template.option_order,
                time_limit_seconds=limit,
                started_at=engine.clock(),
            )
        )
        outcome = RoundStartOutcome.STARTED if created else RoundStartOutcome.ALREADY_RUNNING
        notice = t("round_started", ui, seconds=limit) if created else t("round_running", ui)
        running_quiz = engine.catalog.get(round_.quiz_id) or quiz
        return RoundStart(
            outcome, ui, notice, question=self._question(round_, running_quiz, round_.current)
        )

    async def answer(
        self, round_id: int, who: Participant, number: int, option_index: int
    ) -> RoundAnswerResult:
        """A member's answer to the open question; the first answer of each member counts."""
        engine = self.engine
        ui = await engine.interface_language(who)
        round_ = await engine._storage.get_round(round_id) if 0 < round_id < 2**63 else None
        quiz = engine.catalog.get(round_.quiz_id) if round_ else None
        if round_ is None or quiz is None or round_.platform != who.platform:
            return RoundAnswerResult(RoundAnswerOutcome.INVALID, t("invalid_button", ui))
        if not 1 <= number <= len(round_.question_order):
            return RoundAnswerResult(RoundAnswerOutcome.INVALID, t("invalid_button", ui))
        now = engine.clock()
        if round_.status is not RoundStatus.ACTIVE or round_.current != number:
            return RoundAnswerResult(RoundAnswerOutcome.CLOSED, t("round_closed", ui))
        if now > round_.deadline:
            return RoundAnswerResult(RoundAnswerOutcome.CLOSED, t("round_closed", ui))
        if now < round_.question_started_at:  # the pause after a reveal: not open yet
            return RoundAnswerResult(RoundAnswerOutcome.CLOSED, t("round_not_open", ui))
        view = self._question(round_, quiz, number)
        if not 0 <= option_index < len(view.options):
            return RoundAnswerResult(RoundAnswerOutcome.INVALID, t("invalid_button", ui))
        option = view.options[option_index]
        question = quiz.question(round_.question_order[number - 1])
        assert question is not None
        elapsed = max(0, int((now - round_.question_started_at).total_seconds() * 1000))
        candidate = RoundAnswer(
            round_id=round_.id,
            number=number,
            user_id=who.user_id,
            display_name=who.display_name,
            option_id=option.id,
            correct=option.id == question.correct_option_id,
            elapsed_ms=elapsed,
            answered_at=now,
        )
        try:
            _, inserted, _ = await engine._storage.record_round_answer(candidate)
        except StorageError:
            return RoundAnswerResult(RoundAnswerOutcome.CLOSED, t("round_closed", ui))
        answers = await engine._storage.round_answers(round_.id)
        participants = {a.user_id for a in answers}
        earlier = {a.user_id for a in answers if a.number < number}
        answered = {a.user_id for a in answers if a.number == number}
        outcome = RoundAnswerOutcome.ACCEPTED if inserted else RoundAnswerOutcome.DUPLICATE
        notice = t("round_answer_taken" if inserted else "round_first_counts", ui)
        # Who plays is known from earlier questions only: on the first one, wait for the time.
        return RoundAnswerResult(
            outcome,
            notice,
            answered=len(answered),
            participants=len(participants),
            everyone_answered=bool(earlier) and earlier <= answered,
        )

    def _scoreboard(self, answers: list[RoundAnswer]) -> tuple[ScoreLine, ...]:
        scores: Counter[str] = Counter()
        times: Counter[str] = Counter()
        names: dict[str, str] = {}
        for answer in answers:
            scores[answer.user_id] += answer.correct
            times[answer.user_id] += answer.elapsed_ms
            names[answer.user_id] = answer.display_name or answer.user_id
        ranked = sorted(names, key=lambda u: (-scores[u], times[u], names[u]))
        return tuple(
            ScoreLine(rank, user, names[user], scores[user], times[user])
            for rank, user in enumerate(ranked, start=1)
        )

    async def close(
        self, round_id: int, number: int, *, pause_seconds: float = 0
    ) -> RoundReveal | None:
        """Reveal question ``number`` and open the next one after ``pause_seconds``.

        Returns None when the question was not open (already revealed, or the round ended):
        whoever closes first reveals, everyone else does nothing.
        """
        engine = self.engine
        round_ = await engine._storage.get_round(round_id)
        if round_ is None or round_.status is not RoundStatus.ACTIVE or round_.current != number:
            return None
        quiz = engine.catalog.get(round_.quiz_id)
        if quiz is None:
            await engine._storage.end_round(round_id, RoundStatus.STOPPED, engine.clock())
            return None
        now = engine.clock()
        total = len(round_.question_order)
        finished = number >= total
        opens = deadline = None
        if not finished:
            opens = now + timedelta(seconds=pause_seconds)
            deadline = opens + timedelta(seconds=round_.time_limit_seconds)
        # The close and the posts it owes (the reveal, the ranking) commit together: whoever
        # drives the round next finds them in the outbox even if this process dies now.
        if not await engine._storage.close_round_question(round_id, number, now, opens, deadline):
            return None
        if finished:  # the copy the outbox owes, done now (its entry is the way back)
            await self._copy_history_now(round_id)
        return await self.reveal(round_id, number)

    async def reveal(self, round_id: int, number: int) -> RoundReveal | None:
        """The reveal of question ``number`` once it closed (the same whenever it is asked:
        answers to a closed question are final, and later questions are left out); None when
        it is not closed or the round's quiz is gone."""
        engine = self.engine
        round_ = await engine._storage.get_round(round_id)
        quiz = engine.catalog.get(round_.quiz_id) if round_ else None
        if round_ is None or quiz is None or not 1 <= number <= len(round_.question_order):
            return None
        if round_.status is RoundStatus.ACTIVE and round_.current <= number:
            return None
        total = len(round_.question_order)
        finished = number >= total
        answers = [a for a in await engine._storage.round_answers(round_id) if a.number <= number]
        view = self._question(round_, quiz, number)
        question = quiz.question(round_.question_order[number - 1])
        assert question is not None
        picked = Counter(a.option_id for a in answers if a.number == number)
        counts = tuple(
            OptionCount(o, picked[o.id], o.id == question.correct_option_id) for o in view.options
        )
        correct_option = next(c.option for c in counts if c.correct)
        next_question = None
        if not finished and round_.current == number + 1:
            next_question = self._question(round_, quiz, number + 1)
        lang = round_.language
        return RoundReveal(
            round_id=round_id,
            platform=round_.platform,
            chat_id=round_.chat_id,
            number=number,
            total=total,
            question_text=view.text,
            correct_option=correct_option,
            explanation=prepare(question.explanation.get(lang), lang),
            counts=counts,
            scoreboard=self._scoreboard(answers),
            language=lang,
            rtl=is_rtl(lang),
            next_question=next_question,
            finished=finished,
        )

    async def open_question(self, round_id: int) -> RoundQuestion | None:
        """The round's open question, if the round is active and its quiz still there."""
        engine = self.engine
        round_ = await engine._storage.get_round(round_id)
        if round_ is None or round_.status is not RoundStatus.ACTIVE:
            return None
        quiz = engine.catalog.get(round_.quiz_id)
        return None if quiz is None else self._question(round_, quiz, round_.current)

    async def progress(self, round_id: int, number: int) -> tuple[int, bool, bool]:
        """How question ``number`` stands, whichever process took its answers: members who
        answered it, whether everyone taking part did, and whether it is still open."""
        engine = self.engine
        round_ = await engine._storage.get_round(round_id)
        answers = await engine._storage.round_answers(round_id)
        earlier = {a.user_id for a in answers if a.number < number}
        answered = {a.user_id for a in answers if a.number == number}
        still_open = (
            round_ is not None and round_.status is RoundStatus.ACTIVE and round_.current == number
        )
        return len(answered), bool(earlier) and earlier <= answered, still_open

    async def copy_history(self, round_id: int) -> bool:
        """Copy each member's answers of an ended round into their own history, as one
        completed round attempt each, with their review schedule. Safe to run again, or
        after a copy that died half-way: a member whose copy is complete is skipped, an
        unfinished copy of this round is carried on (answers stored already stay as they
        are). False when there is nothing to copy: the round is unknown, still running, or
        its quiz is gone."""
        engine = self.engine
        round_ = await engine._storage.get_round(round_id)
        if round_ is None or round_.status is RoundStatus.ACTIVE:
            return False
        quiz = engine.catalog.get(round_.quiz_id)
        if quiz is None:
            return False
        lock = self._copying.get(round_id)
        if lock is None:
            lock = self._copying[round_id] = asyncio.Lock()
        async with lock:  # one copy of a round at a time in this process
            await self._record_history(round_, quiz, await engine._storage.round_answers(round_id))
        return True

    async def _copy_history_now(self, round_id: int) -> None:
        """Right after a round ended: copy its history, and mark the outbox entry that owes
        the copy as done (a process that dies before leaves it to the round's next driver)."""
        await self.copy_history(round_id)
        storage = self.engine._storage
        for entry in await storage.outbox(round_id):
            if entry.kind is OutboxKind.HISTORY and entry.sent_at is None:
                await storage.mark_outbox_sent(entry.id, self.engine.clock(), None)

    async def _record_history(
        self, round_: RoundRecord, quiz: Quiz, answers: list[RoundAnswer]
    ) -> None:
        """The copy itself (see :meth:`copy_history`), member by member."""
        engine = self.engine
        by_user: dict[str, list[RoundAnswer]] = {}
        for answer in answers:
            by_user.setdefault(answer.user_id, []).append(answer)
        for user_id, mine in by_user.items():
            summaries = await engine._storage.attempt_summaries(round_.platform, user_id)
            if any(
                s.attempt.status is AttemptStatus.COMPLETED and _copied_from(s.attempt, round_)
                for s in summaries
            ):
                continue  # copied already
            await engine._storage.touch_user(round_.platform, user_id, mine[0].display_name)
            new = NewAttempt(
                platform=round_.platform,
                user_id=user_id,
                chat_id=round_.chat_id,
                quiz_id=quiz.id,
                question_order=round_.question_order,
                option_order=round_.option_order,
                started_at=round_.started_at,
                kind=AttemptKind.ROUND,
            )
            attempt, created = await engine._storage.create_attempt(new)
            if not created and not _copied_from(attempt, round_):
                # Left over from an interrupted copy of another round: that one is lost.
                await engine._storage.finish_attempt(
                    attempt.id, AttemptStatus.ABANDONED, engine.clock()
                )
                attempt, _ = await engine._storage.create_attempt(new)
            scheduled = await engine._storage.review_items(round_.platform, user_id, quiz.id)
            for answer in mine:
                question_id = round_.question_order[answer.number - 1]
                review = next_review(
                    next((i for i in scheduled if i.question_id == question_id), None),
                    platform=round_.platform,
                    user_id=user_id,
                    quiz_id=quiz.id,
                    question_id=question_id,
                    correct=answer.correct,
                    now=answer.answered_at,
                )
                record = AnswerRecord(
                    attempt.id, question_id, answer.option_id, answer.correct, answer.answered_at
                )
                # One an interrupted copy stored is not stored again, nor its review applied.
                await engine._storage.record_answer(record, finishes=False, review=review)
            await engine._storage.finish_attempt(
                attempt.id, AttemptStatus.COMPLETED, engine.clock()
            )

    async def stop(
        self, platform: str, chat_id: str, who: Participant, *, is_chat_admin: bool = False
    ) -> RoundEnd | str:
        """End the chat's round early (its starter or a chat admin); the scoreboard so far,
        or a notice saying why not."""
        engine = self.engine
        ui = await engine.interface_language(who)
        round_ = await self.running(platform, chat_id)
        if round_ is None:
            return t("round_none", ui)
        if who.user_id != round_.starter_id and not is_chat_admin:
            return t("round_not_starter", ui)
        if not await engine._storage.end_round(round_.id, RoundStatus.STOPPED, engine.clock()):
            return t("round_none", ui)
        await self._copy_history_now(round_.id)
        return await self.ending(round_.id, stopped=True)

    async def ending(self, round_id: int, *, stopped: bool = False) -> RoundEnd:
        """The final ranking of a round."""
        engine = self.engine
        round_ = await engine._storage.get_round(round_id)
        assert round_ is not None
        quiz = engine.catalog.get(round_.quiz_id)
        lang = round_.language
        title = prepare(quiz.title.get(lang), lang) if quiz else round_.quiz_id
        answers = await engine._storage.round_answers(round_id)
        key = "round_stopped" if stopped else "round_finished"
        return RoundEnd(
            round_id=round_id,
            quiz_title=title,
            scoreboard=self._scoreboard(answers),
            total=len(round_.question_order),
            stopped=stopped,
            language=lang,
            notice=t(key, lang, title=title),
            platform=round_.platform,
            chat_id=round_.chat_id,
        )

    async def running(self, platform: str, chat_id: str) -> RoundRecord | None:
        """The chat's active round, or None."""
        return await self.engine._storage.active_round(platform, chat_id)

    async def due(self, platform: str | None = None) -> list[tuple[int, int]]:
        """(round id, question number) of every open question whose time is up (on
        ``platform`` only, when given)."""
        rounds = await self.engine._storage.rounds_due(self.engine.clock())
        return [(r.id, r.current) for r in rounds if platform in (None, r.platform)]

    async def open_questions(self, platform: str | None = None) -> list[RoundQuestion]:
        """Every active round's open question (on ``platform`` only, when given), for
        re-arming timers after a restart; rounds whose quiz is gone are left out."""
        engine = self.engine
        rounds = await engine._storage.rounds_due(engine.clock() + FAR_FUTURE)
        views = []
        for round_ in rounds:
            if platform not in (None, round_.platform):
                continue
            quiz = engine.catalog.get(round_.quiz_id)
            if quiz is not None:
                views.append(self._question(round_, quiz, round_.current))
        return views

    async def leaderboard(
        self,
        quiz_id: str,
        who: Participant,
        *,
        platform: str | None = None,
        chat_id: str | None = None,
        limit: int = 10,
    ) -> Leaderboard | None:
        """Best score per member (then fastest) over completed quiz and round attempts,
        in one chat when ``chat_id`` is given, else everywhere."""
        engine = self.engine
        quiz = engine.catalog.get(quiz_id)
        if quiz is None:
            return None
        language = resolve_language(
            (await engine._storage.get_user(who.platform, who.user_id) or _NO_USER).language,
            who.language_tag,
            quiz.languages,
            quiz.default_language,
        )
        best: dict[tuple[str, str], tuple[int, float]] = {}
        for summary in await engine._storage.quiz_summaries(quiz_id):
            attempt = summary.attempt
            if attempt.status is not AttemptStatus.COMPLETED or attempt.kind not in (
                AttemptKind.QUIZ,
                AttemptKind.ROUND,
            ):
                continue
            if platform is not None and attempt.platform != platform:
                continue
            if chat_id is not None and attempt.chat_id != chat_id:
                continue
            finished = attempt.finished_at or attempt.updated_at
            seconds = (finished - attempt.started_at).total_seconds()
            key = (attempt.platform, attempt.user_id)
            candidate = (summary.correct, seconds)
            if key not in best or (-candidate[0], candidate[1]) < (-best[key][0], best[key][1]):
                best[key] = candidate
        ranked = sorted(best.items(), key=lambda item: (-item[1][0], item[1][1]))[:limit]
        lines = []
        for rank, ((user_platform, user_id), (score, seconds)) in enumerate(ranked, start=1):
            user = await engine._storage.get_user(user_platform, user_id)
            name = (user.display_name if user else None) or user_id
            lines.append(LeaderboardLine(rank, user_id, name, score, seconds))
        return Leaderboard(
            quiz.id,
            prepare(quiz.title.get(language), language),
            quiz.attempt_size(),
            tuple(lines),
            language,
        )


@dataclass(frozen=True)
class _NoUser:
    language: str | None = None


_NO_USER = _NoUser()


def _copied_from(attempt: AttemptRecord, round_: RoundRecord) -> bool:
    """Whether ``attempt`` is (the start of) a member's copy of ``round_``: a round attempt
    at its quiz, in its chat, begun when the round began."""
    return (
        attempt.kind is AttemptKind.ROUND
        and attempt.platform == round_.platform
        and attempt.quiz_id == round_.quiz_id
        and attempt.chat_id == round_.chat_id
        and attempt.started_at == round_.started_at
    )
