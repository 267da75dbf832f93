"""Group rounds: a chat plays one quiz together, question by question, against the clock.

The round lives in the database (open question, its deadline, every member's first answer), so
a restarted process picks it up where it was: :meth:`GroupRounds.due` lists questions whose
time is up and :meth:`GroupRounds.close` reveals them. Closing is a compare-and-set on the
question number, so two timers (or two replicas) never reveal the same question twice, and an
answer racing the close is either counted or refused by the database. The close also queues
the posts it owes in the round outbox, in the same transaction; :meth:`GroupRounds.reveal`
rebuilds a closed question's reveal, the same whenever it is posted. When a round ends (its
last close, or a stop) its members' answers are copied into their own history
(:mod:`bot.rounds.history`). The timers, the pause between questions and the live refresh of
the open question are driven by :class:`bot.rounds.driver.RoundDriver`; adapters own only how
a round looks and is sent.

The service sits beside the engine, not inside it: it asks the engine for what a player's
quiz and language are (public operations) and keeps rounds on its own storage ports.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Protocol

from bot.bank_texts import normalize_tag, unknown_tag
from bot.engine import QuizEngine, interface_language, valid_id
from bot.i18n import resolve_language, t
from bot.quiz import Option, Question, Quiz
from bot.quiz_images import image_view
from bot.rounds.history import RoundHistory
from bot.rounds.views import (
    Leaderboard,
    LeaderboardLine,
    MemberStreak,
    OptionCount,
    RoundAnswerOutcome,
    RoundAnswerResult,
    RoundEnd,
    RoundQuestion,
    RoundReveal,
    RoundStart,
    RoundStartOutcome,
    ScoreLine,
)
from bot.storage import (
    AttemptKind,
    AttemptStatus,
    AttemptStore,
    KeyValueStore,
    NewRound,
    OutboxKind,
    RoundAnswer,
    RoundKind,
    RoundRecord,
    RoundStatus,
    RoundStore,
    StorageError,
    UserRecord,
)
from bot.text_direction import is_rtl, prepare
from bot.typed_texts import typed_t
from bot.views import LETTERS, OptionView, Participant

DEFAULT_TIME_LIMIT = 30
MIN_TIME_LIMIT, MAX_TIME_LIMIT = 5, 600
FAR_FUTURE = timedelta(days=3650)


class RoundsStorage(RoundStore, AttemptStore, KeyValueStore, Protocol):
    """What group rounds keep in the database: the rounds themselves (answers, leases,
    outbox), the members' own history once a round ends, and the record of which message
    shows a round's open question."""


class StreakSource(Protocol):
    """Where the streaks on a daily question's reveal come from (the daily questions keep
    them: :class:`bot.daily.streaks.DailyStreaks`)."""

    async def streaks_at(
        self, round_: RoundRecord, user_ids: Sequence[str]
    ) -> tuple[MemberStreak, ...]:
        """The streaks of ``user_ids`` up to the daily question ``round_``."""
        ...


class GroupRounds:
    """Shared rounds in group chats: started, answered and closed here, driven over time by a
    platform's :class:`~bot.rounds.driver.RoundDriver`. A chat's daily question is a round of
    its own kind (one question, open for hours), opened by :mod:`bot.daily`; its reveal
    carries the members' streaks from ``streaks``."""

    def __init__(
        self, engine: QuizEngine, storage: RoundsStorage, *, streaks: StreakSource | None = None
    ) -> None:
        self.engine = engine
        self.store = storage  # also the driver's: leases, outbox, the open question's message
        self.history = RoundHistory(
            storage, storage, self.engine.catalog, self._now, engine.reviews
        )
        self.streaks = streaks

    def _now(self) -> datetime:
        return self.engine.clock()

    def _question(self, round_: RoundRecord, quiz: Quiz, number: int) -> RoundQuestion:
        lang = round_.language
        question = _asked(round_, quiz, number)
        options = [
            OptionView(option.id, letter, prepare(option.text.get(lang), lang))
            for letter, option in _shown_options(round_, question)
        ]
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
            image=image_view(question.image, lang) if question.image is not None else None,
            kind=round_.kind,
            time_zone=round_.time_zone or "UTC",
        )

    async def _quiz_of(self, round_: RoundRecord | None) -> Quiz | None:
        """The quiz version ``round_`` plays (None: no round, or its quiz left the library)."""
        if round_ is None:
            return None
        return await self.engine.catalog.pinned(round_.quiz_id, round_.quiz_version)

    async def question_of(self, round_: RoundRecord) -> RoundQuestion | None:
        """The open question of an active round as the chat sees it, on the quiz version the
        round plays; None when that is gone (or the round is over)."""
        quiz = await self._quiz_of(round_)
        if quiz is None or round_.status is not RoundStatus.ACTIVE:
            return None
        return self._question(round_, quiz, round_.current)

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
        ui = await self.engine.interface_language(starter)
        quizzes = self.engine.catalog.all()
        if not quizzes:
            return RoundStart(RoundStartOutcome.NO_QUIZZES, ui, t("no_quizzes", ui))
        running = await self.running(platform, chat_id)
        if running is not None:
            quiz = await self._quiz_of(running)
            if quiz is not None:
                question = self._question(running, quiz, running.current)
                return RoundStart(
                    RoundStartOutcome.ALREADY_RUNNING,
                    ui,
                    t("round_running", ui),
                    question=question,
                )
            await self.store.end_round(running.id, RoundStatus.STOPPED, self._now())
        if quiz_id is None and tag is not None:  # the one quiz that has the tag, if one does
            having = [q.id for q in quizzes if normalize_tag(tag) in q.tags]
            quiz_id = having[0] if len(having) == 1 else None
        if quiz_id is None:
            if len(quizzes) > 1:
                summaries = tuple(self.engine.quizzes(ui))
                return RoundStart(
                    RoundStartOutcome.CHOOSE, ui, t("choose_quiz", ui), quizzes=summaries
                )
            quiz_id = quizzes[0].id
        quiz = self.engine.catalog.get(quiz_id)
        if quiz is None:
            return RoundStart(
                RoundStartOutcome.UNKNOWN_QUIZ,
                ui,
                self.engine.unknown_quiz_notice(quiz_id, ui),
                quizzes=tuple(self.engine.quizzes(ui)),
            )
        if tag is not None:
            tag = normalize_tag(tag)
            if tag not in quiz.tags:
                title = prepare(quiz.title.get(ui), ui)
                notice = unknown_tag(quiz, title, tag, ui)
                return RoundStart(RoundStartOutcome.UNKNOWN_TAG, ui, notice)
        limit = max(MIN_TIME_LIMIT, min(MAX_TIME_LIMIT, time_limit or DEFAULT_TIME_LIMIT))
        language = await self.engine.quiz_language(starter, quiz)
        # A round shows one message to the whole chat, answered by buttons: typed-answer
        # questions (a reply from each member) are left out of rounds. A bank's pick is
        # drawn once, from the others, for the whole round: everyone plays the same questions.
        template = self.engine.plan_attempt(starter, quiz, chat_id, tag=tag, choice_only=True)
        order = template.question_order
        if not order:
            return RoundStart(RoundStartOutcome.NO_QUIZZES, ui, typed_t("round_typed_only", ui))
        await self.store.touch_user(starter.platform, starter.user_id, starter.display_name)
        round_, created = await self.store.create_round(
            NewRound(
                platform=platform,
                chat_id=chat_id,
                quiz_id=quiz.id,
                starter_id=starter.user_id,
                language=language,
                question_order=order,
                option_order=template.option_order,
                time_limit_seconds=limit,
                started_at=self._now(),
                quiz_version=quiz.version,
            )
        )
        outcome = RoundStartOutcome.STARTED if created else RoundStartOutcome.ALREADY_RUNNING
        notice = t("round_started", ui, seconds=limit) if created else t("round_running", ui)
        running_quiz = await self._quiz_of(round_) or quiz
        return RoundStart(
            outcome, ui, notice, question=self._question(round_, running_quiz, round_.current)
        )

    async def answer(
        self, round_id: int, who: Participant, number: int, option_index: int
    ) -> RoundAnswerResult:
        """A member's answer to the open question; the first answer of each member counts.

        Two round trips: the round with the member (their language), then the answer with
        how the question stands after it."""
        valid = valid_id(round_id)
        round_, user = await self.store.round_press(
            round_id if valid else 0, who.platform, who.user_id
        )
        ui = interface_language(user, who)
        quiz = await self._quiz_of(round_) if valid else None
        now = self._now()
        if round_ is None or quiz is None or not valid or round_.platform != who.platform:
            return _refused(RoundAnswerOutcome.INVALID, "invalid_button", ui)
        refusal = _not_open(round_, number, now)
        if refusal is not None:
            return _refused(*refusal, ui)
        # Only the pressed option's id is needed: no view is worded for a press.
        question = _asked(round_, quiz, number)
        shown = _shown_options(round_, question)
        if not 0 <= option_index < len(shown):
            return _refused(RoundAnswerOutcome.INVALID, "invalid_button", ui)
        _, option = shown[option_index]
        candidate = RoundAnswer(
            round_id=round_.id,
            number=number,
            user_id=who.user_id,
            display_name=who.display_name,
            option_id=option.id,
            correct=option.id == question.correct_option_id,
            elapsed_ms=max(0, int((now - round_.question_started_at).total_seconds() * 1000)),
            answered_at=now,
        )
        try:
            _, inserted, progress = await self.store.record_round_answer(candidate)
        except StorageError:
            return _refused(RoundAnswerOutcome.CLOSED, "round_closed", ui)
        outcome = RoundAnswerOutcome.ACCEPTED if inserted else RoundAnswerOutcome.DUPLICATE
        notice = t("round_answer_taken" if inserted else "round_first_counts", ui)
        # Who plays is known from earlier questions only: on the first one, wait for the time.
        return RoundAnswerResult(
            outcome,
            notice,
            answered=progress.answered,
            participants=progress.participants,
            everyone_answered=progress.everyone_answered,
            language=ui,
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
        whoever closes first reveals, everyone else does nothing. The reveal carries the
        outbox entry that owes its post (``post_id``): the closer posts it and marks it sent,
        so the reveal is built once. Three round trips (the round, the close, its answers);
        the close of the last question also copies the round into its members' history.
        """
        round_ = await self.store.get_round(round_id)
        if round_ is None or round_.status is not RoundStatus.ACTIVE or round_.current != number:
            return None
        quiz = await self._quiz_of(round_)
        if quiz is None:
            await self.store.end_round(round_id, RoundStatus.STOPPED, self._now())
            return None
        now = self._now()
        finished = number >= len(round_.question_order)
        if finished:
            after = replace(round_, status=RoundStatus.FINISHED, finished_at=now)
        else:
            opens = now + timedelta(seconds=pause_seconds)
            deadline = opens + timedelta(seconds=round_.time_limit_seconds)
            after = replace(
                round_, current=number + 1, question_started_at=opens, deadline=deadline
            )
        # The close and the posts it owes (the reveal, the ranking) commit together: whoever
        # drives the round next finds them in the outbox even if this process dies now.
        queued = await self.store.close_round_question(
            round_id,
            number,
            now,
            None if finished else after.question_started_at,
            None if finished else after.deadline,
        )
        if not queued:
            return None
        if finished:  # the copy the outbox owes, done now (its entry is the way back)
            await self.history.copy_now(round_id)
        answers = await self.store.round_answers(round_id)
        post_id = next((e.id for e in queued if e.kind is OutboxKind.REVEAL), None)
        streaks = await self._streaks(after, answers)
        return self._reveal(after, quiz, number, answers, post_id=post_id, streaks=streaks)

    async def reveal(self, round_id: int, number: int) -> RoundReveal | None:
        """The reveal of question ``number`` once it closed (the same whenever it is asked:
        answers to a closed question are final, and later questions are left out); None when
        it is not closed or the round's quiz is gone. One round trip."""
        round_, answers = await self.store.round_with_answers(round_id)
        quiz = await self._quiz_of(round_)
        if round_ is None or quiz is None or not 1 <= number <= len(round_.question_order):
            return None
        if round_.status is RoundStatus.ACTIVE and round_.current <= number:
            return None
        streaks = await self._streaks(round_, answers)
        return self._reveal(round_, quiz, number, answers, streaks=streaks)

    async def _streaks(
        self, round_: RoundRecord, answers: list[RoundAnswer]
    ) -> tuple[MemberStreak, ...]:
        """A daily question's answerers' streaks up to it (one more round trip); nothing for
        a group round."""
        if round_.kind is not RoundKind.DAILY or self.streaks is None or not answers:
            return ()
        members = list(dict.fromkeys(a.user_id for a in answers))
        return await self.streaks.streaks_at(round_, members)

    def _reveal(
        self,
        round_: RoundRecord,
        quiz: Quiz,
        number: int,
        answers: list[RoundAnswer],
        *,
        post_id: int | None = None,
        streaks: tuple[MemberStreak, ...] = (),
    ) -> RoundReveal:
        """Question ``number``'s reveal from the round as it is after the close."""
        total = len(round_.question_order)
        finished = number >= total
        answers = [a for a in answers if a.number <= number]
        view = self._question(round_, quiz, number)
        question = _asked(round_, quiz, number)
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
            round_id=round_.id,
            platform=round_.platform,
            chat_id=round_.chat_id,
            number=number,
            total=total,
            question_text=view.text,
            correct_option=correct_option,
            explanation=prepare(question.explanation.get(lang), lang),
            explanation_image=(
                image_view(question.explanation_image, lang, explanation=True)
                if question.explanation_image is not None
                else None
            ),
            counts=counts,
            scoreboard=self._scoreboard(answers),
            language=lang,
            rtl=is_rtl(lang),
            next_question=next_question,
            finished=finished,
            post_id=post_id,
            kind=round_.kind,
            quiz_title=view.quiz_title,
            opened_at=view.opens_at,
            time_zone=view.time_zone,
            streaks=streaks,
        )

    async def open_question(self, round_id: int) -> RoundQuestion | None:
        """The round's open question, if the round is active and its quiz still there."""
        round_ = await self.store.get_round(round_id)
        if round_ is None or round_.status is not RoundStatus.ACTIVE:
            return None
        quiz = await self._quiz_of(round_)
        return None if quiz is None else self._question(round_, quiz, round_.current)

    async def progress(self, round_id: int, number: int) -> tuple[int, bool, bool]:
        """How question ``number`` stands, whichever process took its answers: members who
        answered it, whether everyone taking part did, and whether it is still open."""
        round_, answers = await self.store.round_with_answers(round_id)
        earlier = {a.user_id for a in answers if a.number < number}
        answered = {a.user_id for a in answers if a.number == number}
        still_open = (
            round_ is not None and round_.status is RoundStatus.ACTIVE and round_.current == number
        )
        return len(answered), bool(earlier) and earlier <= answered, still_open

    async def copy_history(self, round_id: int) -> bool:
        """Copy each member's answers of an ended round into their own history (see
        :class:`~bot.rounds.history.RoundHistory`); False when there is nothing to copy."""
        return await self.history.copy(round_id)

    async def stop(
        self,
        platform: str,
        chat_id: str,
        who: Participant,
        *,
        is_chat_admin: bool = False,
        kind: RoundKind = RoundKind.GROUP,
    ) -> RoundEnd | str:
        """End the chat's round (of ``kind``: its group round, unless told) early (its starter
        or a chat admin); the scoreboard so far, or a notice saying why not."""
        ui = await self.engine.interface_language(who)
        round_ = await self.running(platform, chat_id, kind)
        if round_ is None:
            return t("round_none", ui)
        if who.user_id != round_.starter_id and not is_chat_admin:
            return t("round_not_starter", ui)
        if not await self.store.end_round(round_.id, RoundStatus.STOPPED, self._now()):
            return t("round_none", ui)
        await self.history.copy_now(round_.id)
        return await self.ending(round_.id, stopped=True)

    async def ending(self, round_id: int, *, stopped: bool = False) -> RoundEnd:
        """The final ranking of a round."""
        round_ = await self.store.get_round(round_id)
        assert round_ is not None
        quiz = await self._quiz_of(round_)
        lang = round_.language
        title = prepare(quiz.title.get(lang), lang) if quiz else round_.quiz_id
        answers = await self.store.round_answers(round_id)
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

    async def running(
        self, platform: str, chat_id: str, kind: RoundKind = RoundKind.GROUP
    ) -> RoundRecord | None:
        """The chat's active round of ``kind`` (its group round, unless told), or None."""
        return await self.store.active_round(platform, chat_id, kind)

    async def due(self, platform: str | None = None) -> list[tuple[int, int]]:
        """(round id, question number) of every open question whose time is up (on
        ``platform`` only, when given)."""
        rounds = await self.store.rounds_due(self._now())
        return [(r.id, r.current) for r in rounds if platform in (None, r.platform)]

    async def open_questions(self, platform: str | None = None) -> list[RoundQuestion]:
        """Every active round's open question (on ``platform`` only, when given), for
        re-arming timers after a restart; rounds whose quiz is gone are left out."""
        rounds = await self.store.rounds_due(self._now() + FAR_FUTURE)
        views = []
        for round_ in rounds:
            if platform not in (None, round_.platform):
                continue
            quiz = await self._quiz_of(round_)
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
        quiz = self.engine.catalog.get(quiz_id)
        if quiz is None:
            return None
        language = resolve_language(
            _chosen_language(await self.store.get_user(who.platform, who.user_id)),
            who.language_tag,
            quiz.languages,
            quiz.default_language,
        )
        best: dict[tuple[str, str], tuple[int, float]] = {}
        for summary in await self.store.quiz_summaries(quiz_id):
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
            user = await self.store.get_user(user_platform, user_id)
            name = (user.display_name if user else None) or user_id
            lines.append(LeaderboardLine(rank, user_id, name, score, seconds))
        return Leaderboard(
            quiz.id,
            prepare(quiz.title.get(language), language),
            quiz.attempt_size(),
            tuple(lines),
            language,
        )


def _asked(round_: RoundRecord, quiz: Quiz, number: int) -> Question:
    """The round's question ``number`` (1-based) in ``quiz``, the version the round plays."""
    question = quiz.question(round_.question_order[number - 1])
    assert question is not None
    return question


def _shown_options(round_: RoundRecord, question: Question) -> list[tuple[str, Option]]:
    """The question's options in the round's order, each with its letter (an option removed
    from the quiz since leaves its letter unused)."""
    order = round_.option_order.get(question.id) or tuple(o.id for o in question.options)
    shown = []
    for letter, option_id in zip(LETTERS, order, strict=False):
        option = question.option(option_id)
        if option is not None:
            shown.append((letter, option))
    return shown


def _chosen_language(user: UserRecord | None) -> str | None:
    return user.language if user else None


def _not_open(
    round_: RoundRecord, number: int, now: datetime
) -> tuple[RoundAnswerOutcome, str] | None:
    """Why question ``number`` of ``round_`` takes no answer at ``now`` (the outcome and the
    notice's key), or None when it is open."""
    if not 1 <= number <= len(round_.question_order):
        return RoundAnswerOutcome.INVALID, "invalid_button"
    if round_.status is not RoundStatus.ACTIVE or round_.current != number:
        return RoundAnswerOutcome.CLOSED, "round_closed"
    if now > round_.deadline:
        return RoundAnswerOutcome.CLOSED, "round_closed"
    if now < round_.question_started_at:  # the pause after a reveal: not open yet
        return RoundAnswerOutcome.CLOSED, "round_not_open"
    return None


def _refused(outcome: RoundAnswerOutcome, key: str, language: str) -> RoundAnswerResult:
    return RoundAnswerResult(outcome, t(key, language), language=language)
