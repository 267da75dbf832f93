"""The quiz engine: plain values in, plain results out; it never sends anything.

Adapters call it with who is acting (:class:`~bot.views.Participant`) and ids taken from their
buttons or commands; it answers with localized views that the adapter renders. Every rule that a
user could notice lives here once, for every platform: order, idempotency, stale and foreign
presses, locale fallback, scores.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import logging
import random
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from bot.answer_matching import clean_typed, matches
from bot.answer_state_cache import DEFAULT_CAPACITY, AnswerKey, AnswerStateCache
from bot.bank_texts import bank_t, normalize_tag, unknown_tag
from bot.catalog import QuizCatalog
from bot.i18n import DEFAULT_LANGUAGE, SUPPORTED_LANGUAGES, resolve_language, t
from bot.library import QuizLibrary
from bot.local_time import UTC_ZONE, local_text
from bot.quiz import Question, Quiz
from bot.quiz_check import FileCheck
from bot.quiz_images import QuizImages, image_view
from bot.review import ReviewScheduler, due_items
from bot.stats import QuizStats, compute_stats
from bot.storage import (
    AnswerRecord,
    AnswerState,
    AttemptKind,
    AttemptRecord,
    AttemptStatus,
    ExpectedState,
    NewAttempt,
    ReviewItem,
    StateChanged,
    Storage,
    StorageError,
    UserRecord,
)
from bot.text_direction import is_rtl, prepare
from bot.views import (
    LETTERS,
    AnswerDetails,
    AnswerFeedback,
    AnswerOutcome,
    AttemptInfo,
    ImageView,
    OptionView,
    Participant,
    ProgressReport,
    QuestionMark,
    QuestionView,
    QuizProgress,
    QuizResult,
    QuizSummary,
    StartOutcome,
    StartResult,
)

Clock = Callable[[], datetime]
log = logging.getLogger(__name__)
FAILED_LANGUAGE_WAIT = 0.5  # seconds, see QuizEngine._failed
MAX_ROW_ID = 2**63 - 1  # database ids are signed 64-bit integers
# Reads per answer at most: a remembered state, a fresh one, one more if a write raced it.
ANSWER_TRIES = 3
# Finds the (question id, option id or typed text) a press means in an attempt's questions.
_Locate = Callable[[AttemptRecord, Sequence[Question]], "tuple[str, str] | None"]


def valid_id(row_id: int) -> bool:
    """Whether ``row_id`` can name a stored row (anything else comes from a forged button)."""
    return 0 < row_id <= MAX_ROW_ID


def utc_now() -> datetime:
    return datetime.now(UTC)


def interface_language(user: UserRecord | None, who: Participant) -> str:
    """The language for ``who``'s interface text, given their stored record (when known):
    their explicit choice, their platform's, or English."""
    chosen = user.language if user else None
    return resolve_language(chosen, who.language_tag, SUPPORTED_LANGUAGES, DEFAULT_LANGUAGE)


class _QuizTexts:
    """One quiz's display texts in one language, prepared once instead of on every answer:
    the title, each question's text and explanation, and each option's view at each letter.

    Quizzes are immutable and a catalog reload builds new :class:`Quiz` objects, so an entry
    serves exactly the object it was made from (the engine checks identity): a reloaded quiz
    gets fresh texts, never stale ones. Everything here is bounded by the quiz's own size.
    """

    __slots__ = ("_images", "_options", "_questions", "language", "quiz", "rtl", "title")

    def __init__(self, quiz: Quiz, language: str) -> None:
        self.quiz = quiz
        self.language = language
        self.title = prepare(quiz.title.get(language), language)
        self.rtl = is_rtl(language)
        self._questions: dict[str, tuple[str, str]] = {}  # id -> (text, explanation)
        # (question id, option id, letter) -> its view
        self._options: dict[tuple[str, str, str], OptionView] = {}
        # (question id, whether the explanation's) -> the view of that image
        self._images: dict[tuple[str, bool], ImageView | None] = {}

    def _question(self, question: Question) -> tuple[str, str]:
        texts = self._questions.get(question.id)
        if texts is None:
            language = self.language
            texts = (
                prepare(question.text.get(language), language),
                prepare(question.explanation.get(language), language),
            )
            self._questions[question.id] = texts
        return texts

    def text(self, question: Question) -> str:
        return self._question(question)[0]

    def explanation(self, question: Question) -> str:
        return self._question(question)[1]

    def image(self, question: Question, *, explanation: bool = False) -> ImageView | None:
        """The view of the question's image (``explanation``: of its explanation's)."""
        key = (question.id, explanation)
        if key not in self._images:
            image = question.explanation_image if explanation else question.image
            self._images[key] = (
                image_view(image, self.language, explanation=explanation) if image else None
            )
        return self._images[key]

    def options(self, question: Question, option_ids: Sequence[str]) -> tuple[OptionView, ...]:
        """The views of ``option_ids`` (all the question's), lettered in that order."""
        views = []
        for letter, option_id in zip(LETTERS, option_ids, strict=False):
            key = (question.id, option_id, letter)
            view = self._options.get(key)
            if view is None:
                option = question.option(option_id)
                assert option is not None
                text = prepare(option.text.get(self.language), self.language)
                view = self._options[key] = OptionView(option.id, letter, text)
            views.append(view)
        return tuple(views)


class QuizEngine:
    """Runs quizzes for users of any platform on top of a catalog and a storage."""

    def __init__(
        self,
        catalog: QuizCatalog,
        storage: Storage,
        *,
        clock: Clock = utc_now,
        rng: random.Random | None = None,
        remembered_attempts: int = DEFAULT_CAPACITY,
        file_check: FileCheck | None = None,
        reviews: ReviewScheduler | None = None,
    ) -> None:
        self.catalog = catalog
        # The quiz library on the same storage: publishing, /reload, /quizzes, /unpublish;
        # ``file_check``: what uploads are checked with beside the loader (the JSON Schema).
        self.library = QuizLibrary(catalog, storage, clock=clock, file_check=file_check)
        self.reviews = reviews or ReviewScheduler()  # FSRS, at the desired retention
        # Private: adapters go through the operations below, so every rule lives here once.
        self._storage = storage
        self.clock = clock
        self._rng = rng or random.SystemRandom()
        self._texts: dict[tuple[str, int, str], _QuizTexts] = {}  # (quiz id, version, language)
        # The answer state of attempts in progress, so that a press is one round trip.
        self._answer_states = AnswerStateCache(remembered_attempts)
        self.images = QuizImages(storage)  # what adapters send images from

    def _quiz_texts(self, quiz: Quiz, language: str) -> _QuizTexts:
        """``quiz``'s prepared texts in ``language`` (made again when the quiz was reloaded)."""
        key = (quiz.id, quiz.version, language)
        texts = self._texts.get(key)
        if texts is None or texts.quiz is not quiz:
            if texts is not None:  # the catalog was reloaded: forget what it no longer holds
                self._texts = {
                    k: v
                    for k, v in self._texts.items()
                    if self.catalog.pinned_now(k[0], k[1]) is v.quiz
                }
            texts = self._texts[key] = _QuizTexts(quiz, language)
        return texts

    async def _pinned(self, attempt: AttemptRecord) -> Quiz | None:
        """The quiz version ``attempt`` plays (None: gone from the library)."""
        return await self.catalog.pinned(attempt.quiz_id, attempt.quiz_version)

    # -- languages ------------------------------------------------------------------------

    async def interface_language(self, who: Participant) -> str:
        """The language for interface text: the user's choice, their platform's, or English."""
        return interface_language(await self._storage.get_user(who.platform, who.user_id), who)

    async def quiz_language(self, who: Participant, quiz: Quiz) -> str:
        """The language to show ``quiz`` in, among those the quiz offers."""
        return _quiz_language(await self._storage.get_user(who.platform, who.user_id), who, quiz)

    async def set_language(self, who: Participant, language: str) -> str | None:
        """Remember the user's language; returns the matched code, None if unsupported."""
        matched = resolve_language(language, None, SUPPORTED_LANGUAGES, "")
        if not matched:
            return None
        await self._storage.set_language(who.platform, who.user_id, matched)
        return matched

    # -- quizzes --------------------------------------------------------------------------

    def quizzes(self, language: str) -> list[QuizSummary]:
        """Every quiz with its title and description in ``language`` (default when missing)."""
        return [self._summary(q, language) for q in self.catalog.all()]

    def unknown_quiz_notice(self, quiz_id: str, language: str) -> str:
        """The notice for a quiz id no quiz has, naming the ones there are."""
        available = ", ".join(q.id for q in self.catalog.all())
        return t("unknown_quiz", language, quiz=quiz_id, available=available)

    def _summary(self, quiz: Quiz, language: str) -> QuizSummary:
        lang = quiz.shown_language(language)
        return QuizSummary(
            id=quiz.id,
            title=prepare(quiz.title.get(lang), lang),
            description=prepare(quiz.description.get(lang), lang) if quiz.description else None,
            level=quiz.level,
            question_count=quiz.attempt_size(),  # per attempt: a bank's pick, not its size
            languages=quiz.languages,
        )

    async def start(
        self,
        who: Participant,
        quiz_id: str | None = None,
        *,
        chat_id: str | None = None,
        restart: bool = False,
        tag: str | None = None,
    ) -> StartResult:
        """Start or resume a quiz.

        With no ``quiz_id``: resume the user's most recent active attempt, else start the only
        quiz, else ask to choose. ``restart`` abandons an active attempt of that quiz first.
        With ``tag`` (``#`` and case aside) a new attempt plays only the questions carrying
        it (with no ``quiz_id``: of the one quiz that has the tag, if one does); an unfinished
        attempt at the quiz is still resumed, never thrown away, and the notice says how to
        practise the tag instead.
        """
        ui = await self.interface_language(who)
        quiz = await self._quiz_to_start(who, quiz_id, tag, ui)
        if isinstance(quiz, StartResult):
            return quiz
        if tag is not None:
            tag = normalize_tag(tag)
            if tag not in quiz.tags:
                title = prepare(quiz.title.get(ui), ui)
                return StartResult(StartOutcome.UNKNOWN_TAG, ui, unknown_tag(quiz, title, tag, ui))
        await self._storage.touch_user(who.platform, who.user_id, who.display_name)
        if restart:
            await self._abandon_attempts_at(who, quiz)
        return await self._open_attempt(who, quiz, chat_id, tag, ui)

    async def _quiz_to_start(
        self, who: Participant, quiz_id: str | None, tag: str | None, ui: str
    ) -> Quiz | StartResult:
        """The quiz :meth:`start` plays: ``quiz_id``'s, else the one quiz tagged ``tag``, else
        that of the user's most recent active attempt, else the only quiz; or the result that
        says why there is none (no quizzes, several to choose from, an unknown id)."""
        quizzes = self.catalog.all()
        if not quizzes:
            return StartResult(StartOutcome.NO_QUIZZES, ui, t("no_quizzes", ui))
        if quiz_id is None and tag is not None:  # ``/quiz #tag``: the one quiz that has it
            having = [q.id for q in quizzes if normalize_tag(tag) in q.tags]
            quiz_id = having[0] if len(having) == 1 else None
        if quiz_id is None:
            quiz_id = await self._resumable_quiz_id(who)
        if quiz_id is None:
            if len(quizzes) > 1:
                summaries = tuple(self._summary(q, ui) for q in quizzes)
                return StartResult(StartOutcome.CHOOSE, ui, t("choose_quiz", ui), quizzes=summaries)
            quiz_id = quizzes[0].id
        quiz = self.catalog.get(quiz_id)
        if quiz is None:
            notice = self.unknown_quiz_notice(quiz_id, ui)
            summaries = tuple(self._summary(q, ui) for q in quizzes)
            return StartResult(StartOutcome.UNKNOWN_QUIZ, ui, notice, quizzes=summaries)
        return quiz

    async def _resumable_quiz_id(self, who: Participant) -> str | None:
        """The quiz of the user's most recently used active attempt of the QUIZ kind, if the
        catalog still has that quiz."""
        for attempt in await self._storage.active_attempts(who.platform, who.user_id):
            if attempt.kind is AttemptKind.QUIZ and self.catalog.get(attempt.quiz_id):
                return attempt.quiz_id
        return None

    async def _abandon_attempts_at(self, who: Participant, quiz: Quiz) -> None:
        """Abandon the user's active quiz attempts at ``quiz`` (a restart)."""
        for attempt in await self._storage.active_attempts(who.platform, who.user_id):
            if attempt.quiz_id == quiz.id and attempt.kind is AttemptKind.QUIZ:
                await self._storage.finish_attempt(
                    attempt.id, AttemptStatus.ABANDONED, self.clock()
                )

    async def _open_attempt(
        self, who: Participant, quiz: Quiz, chat_id: str | None, tag: str | None, ui: str
    ) -> StartResult:
        """Create the user's attempt at ``quiz`` (playing ``tag``, normalized), or resume the
        active one the storage returns instead, at its first unanswered question; an attempt
        with none left (the quiz shrank) is completed and :meth:`start` asked again."""
        new = self.plan_attempt(who, quiz, chat_id, tag=tag)
        attempt, created = await self._storage.create_attempt(new)
        if not created:  # resumed: it plays the version it started on
            quiz = await self._pinned(attempt) or quiz
        state = await self._remember_state(who, attempt)
        language = _quiz_language(state.user, who, quiz)
        question = self._current_view(attempt, quiz, state.answers, language)
        if question is None:  # every question answered (the quiz shrank): close it
            await self._storage.finish_attempt(attempt.id, AttemptStatus.COMPLETED, self.clock())
            return await self.start(who, quiz.id, chat_id=chat_id, tag=tag)
        outcome = StartOutcome.STARTED if created else StartOutcome.RESUMED
        notice = "" if created else t("resumed", ui)
        if not created and tag is not None and not _all_tagged(attempt, quiz, tag):
            notice = bank_t("tag_resumed_other", ui, tag=tag)
        return StartResult(outcome, language, notice, question=question)

    async def _remember_state(self, who: Participant, attempt: AttemptRecord) -> AnswerState:
        """The attempt's answer state (answers, the user, their review schedule), read in one
        round trip and remembered, so that the user's first press costs a single one too."""
        state = await self._storage.answer_state(attempt.id, who.platform, who.user_id)
        if state.attempt is not None and state.attempt.status is AttemptStatus.ACTIVE:
            self._answer_states.put((attempt.id, who.platform, who.user_id), state)
        return state

    async def retry(
        self, who: Participant, attempt_id: int, *, chat_id: str | None = None
    ) -> StartResult:
        """ "Try again" under one of the user's results: a new attempt at its quiz.

        Only a quiz attempt's retry restarts the quiz (abandoning an unfinished attempt at it);
        after a review the user's unfinished quiz attempt is resumed, never thrown away.
        """
        info = await self.attempt_info(attempt_id)
        if info is None or (info.platform, info.user_id) != (who.platform, who.user_id):
            ui = await self.interface_language(who)
            return StartResult(StartOutcome.INVALID, ui, t("invalid_button", ui))
        return await self.start(who, info.quiz_id, chat_id=chat_id, restart=not info.review)

    def plan_attempt(
        self,
        who: Participant,
        quiz: Quiz,
        chat_id: str | None,
        kind: AttemptKind = AttemptKind.QUIZ,
        question_ids: Sequence[str] | None = None,
        *,
        tag: str | None = None,
        choice_only: bool = False,
    ) -> NewAttempt:
        """A new attempt's fixed questions, their order and their options' order.

        Without ``question_ids``: the quiz's questions (only those tagged ``tag``; with
        ``choice_only``, no typed ones), of which ``pick`` are drawn at random, shuffled if
        the quiz says so. The attempt stores what was drawn, so restarts and other replicas
        show the same questions."""
        if question_ids is None:
            pool = [q for q in quiz.tagged(tag) if not (choice_only and q.typed)]
            if quiz.pick is not None and quiz.pick < len(pool):
                drawn = {id(q) for q in self._rng.sample(pool, quiz.pick)}
                pool = [q for q in pool if id(q) in drawn]  # the authoring order, if unshuffled
            question_ids = [q.id for q in pool]
            if quiz.shuffle.questions:
                question_ids = self._rng.sample(question_ids, len(question_ids))
        option_order: dict[str, tuple[str, ...]] = {}
        for question_id in question_ids:
            question = quiz.question(question_id)
            if question is None:
                continue
            option_ids = [o.id for o in question.options]
            if quiz.shuffle.options:
                self._rng.shuffle(option_ids)
            option_order[question.id] = tuple(option_ids)
        return NewAttempt(
            platform=who.platform,
            user_id=who.user_id,
            chat_id=chat_id,
            quiz_id=quiz.id,
            question_order=tuple(question_ids),
            option_order=option_order,
            started_at=self.clock(),
            kind=kind,
            quiz_version=quiz.version,
        )

    # -- views ----------------------------------------------------------------------------

    @staticmethod
    def _order(attempt: AttemptRecord, quiz: Quiz) -> list[Question]:
        """The attempt's questions in its own order (questions since removed are skipped)."""
        questions = [quiz.question(qid) for qid in attempt.question_order]
        return [q for q in questions if q is not None]

    @staticmethod
    def _option_ids(attempt: AttemptRecord, question: Question) -> list[str]:
        """The question's option ids in the order the attempt shows them (options added to the
        quiz since come last, removed ones are skipped)."""
        stored = attempt.option_order.get(question.id, ())
        known = {o.id for o in question.options}
        option_ids = [oid for oid in stored if oid in known]
        shown = set(option_ids)
        return option_ids + [o.id for o in question.options if o.id not in shown]

    def _question_view(
        self,
        attempt: AttemptRecord,
        quiz: Quiz,
        question: Question,
        language: str,
        order: Sequence[Question] | None = None,
    ) -> QuestionView:
        """``question`` as ``attempt`` shows it; ``order``: the attempt's (see ``_order``)."""
        if order is None:
            order = self._order(attempt, quiz)
        texts = self._quiz_texts(quiz, language)
        number = QuizEngine._number(order, question)
        return QuestionView(
            attempt_id=attempt.id,
            quiz_id=quiz.id,
            quiz_title=texts.title,
            question_id=question.id,
            number=number,
            total=len(order),
            text=texts.text(question),
            options=texts.options(question, self._option_ids(attempt, question)),
            language=language,
            rtl=texts.rtl,
            typed=question.typed,
            image=texts.image(question),
            quiz_version=quiz.version,
        )

    @staticmethod
    def _number(order: Sequence[Question], question: Question) -> int:
        """``question``'s 1-based position in ``order`` (ValueError if it is not there).

        The questions of ``order`` come from the same quiz object, so identity finds it; the
        comparison by value (what ``list.index`` would do) is only a fallback."""
        for number, candidate in enumerate(order, start=1):
            if candidate is question:
                return number
        return list(order).index(question) + 1

    @staticmethod
    def _next_question(
        order: Sequence[Question], answers: Sequence[AnswerRecord]
    ) -> Question | None:
        """The first question of ``order`` that ``answers`` do not answer, if any."""
        answered = {a.question_id for a in answers}
        return next((q for q in order if q.id not in answered), None)

    def _current_view(
        self,
        attempt: AttemptRecord,
        quiz: Quiz,
        answers: Sequence[AnswerRecord],
        language: str,
        order: Sequence[Question] | None = None,
    ) -> QuestionView | None:
        if order is None:
            order = self._order(attempt, quiz)
        question = self._next_question(order, answers)
        if question is None:
            return None
        return self._question_view(attempt, quiz, question, language, order)

    def _result(
        self,
        attempt: AttemptRecord,
        quiz: Quiz,
        answers: Sequence[AnswerRecord],
        language: str,
    ) -> QuizResult:
        by_question = {a.question_id: a for a in answers}
        texts = self._quiz_texts(quiz, language)
        marks = []
        for number, question in enumerate(self._order(attempt, quiz), start=1):
            answer = by_question.get(question.id)
            text = texts.text(question)
            marks.append(
                QuestionMark(number, question.id, text, answer.correct if answer else None)
            )
        return QuizResult(
            attempt_id=attempt.id,
            quiz_id=quiz.id,
            quiz_title=texts.title,
            correct=sum(1 for m in marks if m.correct),
            total=len(marks),
            marks=tuple(marks),
            language=language,
            rtl=texts.rtl,
            review=attempt.kind is AttemptKind.REVIEW,
        )

    async def current_question(self, who: Participant, attempt_id: int) -> QuestionView | None:
        """The next unanswered question of the user's own active attempt, if any."""
        attempt = await self._storage.get_attempt(attempt_id) if valid_id(attempt_id) else None
        if attempt is None or (attempt.platform, attempt.user_id) != (who.platform, who.user_id):
            return None
        quiz = await self._pinned(attempt)
        if quiz is None or attempt.status is not AttemptStatus.ACTIVE:
            return None
        language = await self.quiz_language(who, quiz)
        return self._current_view(attempt, quiz, await self._storage.answers(attempt.id), language)

    def answer_key(
        self, quiz_id: str, question_id: str, language: str, version: int | None = None
    ) -> tuple[str, str] | None:
        """A question's correct option id and its explanation in ``language`` (for platforms
        that grade answers themselves, such as Telegram quiz polls), in the quiz's ``version``
        (None: the current one; a question view's version is at hand in memory)."""
        quiz = (
            self.catalog.get(quiz_id)
            if version is None
            else self.catalog.pinned_now(quiz_id, version)
        )
        question = quiz.question(question_id) if quiz else None
        if question is None or question.typed:
            return None
        return question.correct_option_id, prepare(question.explanation.get(language), language)

    async def result(self, who: Participant, attempt_id: int) -> QuizResult | None:
        """The score sheet of one of the user's attempts."""
        attempt = await self._storage.get_attempt(attempt_id) if valid_id(attempt_id) else None
        if attempt is None or (attempt.platform, attempt.user_id) != (who.platform, who.user_id):
            return None
        quiz = await self._pinned(attempt)
        if quiz is None:
            return None
        language = await self.quiz_language(who, quiz)
        return self._result(attempt, quiz, await self._storage.answers(attempt.id), language)

    # -- answering ------------------------------------------------------------------------

    async def answer_by_position(
        self, who: Participant, attempt_id: int, question_number: int, option_index: int
    ) -> AnswerFeedback:
        """Answer by position, as compact buttons carry it: the question's number in the
        attempt (1-based) and the option's index in the order the attempt shows (0-based)."""

        def locate(attempt: AttemptRecord, order: Sequence[Question]) -> tuple[str, str] | None:
            if not 1 <= question_number <= len(order):
                return None
            question = order[question_number - 1]
            option_ids = self._option_ids(attempt, question)
            if not 0 <= option_index < len(option_ids):
                return None
            return question.id, option_ids[option_index]

        return await self._answer_located(who, attempt_id, locate)

    async def answer_by_option(
        self, who: Participant, attempt_id: int, question_id: str, option_id: str
    ) -> AnswerFeedback:
        """Record an answer, once. Never raises for bad ids (INVALID) nor when the database
        fails after its retries (FAILED: nothing was recorded, the user may press again)."""
        return await self._answer_located(who, attempt_id, lambda *_: (question_id, option_id))

    async def _failed(self, who: Participant, attempt_id: int) -> AnswerFeedback:
        log.exception("answer not stored (attempt %s)", attempt_id)
        ui = resolve_language(None, who.language_tag, SUPPORTED_LANGUAGES, DEFAULT_LANGUAGE)
        # The database just failed, maybe by not answering: ask it again only briefly, so the
        # user hears "press again" within the storage's timeout, not twice that.
        with contextlib.suppress(StorageError, TimeoutError):
            async with asyncio.timeout(FAILED_LANGUAGE_WAIT):
                ui = await self.interface_language(who)
        return AnswerFeedback(AnswerOutcome.FAILED, t("try_again", ui), ui)

    async def _answer_located(
        self, who: Participant, attempt_id: int, locate: _Locate, *, typed: bool = False
    ) -> AnswerFeedback:
        """Answer the question and option ``locate`` finds in the attempt (None: INVALID).

        The state comes from the answer-state cache when this process has it, so a press is
        one round trip, the guarded write; when that state turns out to be behind, it is read
        afresh and the answer decided again."""
        try:
            if not valid_id(attempt_id):  # a forged button: no stored row has such an id
                return await self._refusal(who, AnswerOutcome.INVALID)
            key = (attempt_id, who.platform, who.user_id)
            state = self._answer_states.get(key)
            for _ in range(ANSWER_TRIES):
                remembered = state is not None
                if state is None:
                    state = await self._storage.answer_state(attempt_id, who.platform, who.user_id)
                feedback = await self._answer(who, key, state, locate, typed, remembered)
                if feedback is not None:
                    return feedback
                self._answer_states.forget(key)
                state = None
            raise StorageError(f"attempt {attempt_id} kept changing while it was answered")
        except StorageError:
            return await self._failed(who, attempt_id)

    async def _answer(
        self,
        who: Participant,
        key: AnswerKey,
        state: AnswerState,
        locate: _Locate,
        typed: bool,
        remembered: bool,
    ) -> AnswerFeedback | None:
        """Record the located answer (with ``typed``: the typed text, stored in place of an
        option id). None: decide again from a fresh read, because the database changed under
        the state or, for a ``remembered`` state, the outcome is anything but a stored answer
        (a remembered state may be behind, and only a stored answer is checked by the write).

        This step decides whether the press may be written at all (INVALID, NOT_YOURS, an
        earlier answer to the question, STALE); :meth:`_record` writes it."""
        attempt = state.attempt
        quiz = await self._pinned(attempt) if attempt else None
        if attempt is None or quiz is None:
            return None if remembered else await self._refusal(who, AnswerOutcome.INVALID)
        order = self._order(attempt, quiz)
        located = locate(attempt, order)
        question = quiz.question(located[0]) if located else None
        if located is None or question is None or question.id not in attempt.question_order:
            return None if remembered else await self._refusal(who, AnswerOutcome.INVALID)
        question_id, option_id = located
        if (attempt.platform, attempt.user_id) != (who.platform, who.user_id):
            return None if remembered else await self._not_yours(who, attempt)
        if typed != question.typed or (not typed and question.option(option_id) is None):
            return None if remembered else await self._refusal(who, AnswerOutcome.INVALID)
        language = _quiz_language(state.user, who, quiz)
        answers = state.answers
        earlier = next((a for a in answers if a.question_id == question_id), None)
        if earlier is not None:
            if remembered:
                return None
            return self._feedback_for_stored(
                attempt, quiz, question, answers, earlier, option_id, language, order
            )
        if not self._in_turn(attempt, order, answers, question_id):
            return None if remembered else await self._refusal(who, AnswerOutcome.STALE)
        return await self._record(who, key, state, quiz, question, option_id, language, order)

    def _in_turn(
        self,
        attempt: AttemptRecord,
        order: Sequence[Question],
        answers: Sequence[AnswerRecord],
        question_id: str,
    ) -> bool:
        """Whether ``question_id`` is the question the active ``attempt`` asks now (any other
        press comes from an older message, or the attempt is over: STALE)."""
        if attempt.status is not AttemptStatus.ACTIVE:
            return False
        current = self._next_question(order, answers)
        return current is not None and current.id == question_id

    async def _record(
        self,
        who: Participant,
        key: AnswerKey,
        state: AnswerState,
        quiz: Quiz,
        question: Question,
        answer: str,
        language: str,
        order: Sequence[Question],
    ) -> AnswerFeedback | None:
        """Write ``answer`` (an option id or a typed text) to ``question``, the attempt's
        current one, with the review schedule it earns, in one guarded write; then remember
        the new state and give ACCEPTED feedback. None: the write found the database other
        than ``state`` says (see :meth:`_answer`)."""
        attempt = state.attempt
        assert attempt is not None
        answers = state.answers
        candidate = AnswerRecord(
            attempt_id=attempt.id,
            question_id=question.id,
            option_id=answer,
            correct=self._is_right(question, answer),
            answered_at=self.clock(),
        )
        scheduled = next((i for i in state.review if i.question_id == question.id), None)
        review = self.reviews.next_review(
            scheduled,
            platform=who.platform,
            user_id=who.user_id,
            quiz_id=quiz.id,
            question_id=question.id,
            correct=candidate.correct,
            now=candidate.answered_at,
        )
        chosen = state.user.language if state.user else None
        expected = ExpectedState(
            len(answers), who.platform, who.user_id, chosen, quiz.id, scheduled
        )
        finishes = len(order) - len(answers) == 1  # this answer completes the attempt
        try:
            stored, inserted = await self._storage.record_answer(
                candidate, finishes=finishes, review=review, expected=expected
            )
        except StateChanged:
            return None
        # A retried write whose first try committed comes back as "already there": it is ours.
        if not (inserted or stored == candidate):  # answered meanwhile, elsewhere: fresh read
            return None
        answers = [*answers, stored]
        attempt = self._remember_answered(key, state, answers, review, finishes)
        return self._feedback(
            AnswerOutcome.ACCEPTED, attempt, quiz, question, answers, stored, language, order
        )

    def _remember_answered(
        self,
        key: AnswerKey,
        state: AnswerState,
        answers: list[AnswerRecord],
        review: ReviewItem | None,
        finished: bool,
    ) -> AttemptRecord:
        """Update the answer-state cache after an answer was stored (``answers``: the
        attempt's, ending with it; ``review``: the schedule entry the write made for it):
        a ``finished`` attempt is forgotten, any other remembered as the write left it, so
        the user's next press needs no read. Returns the attempt as it is now."""
        attempt = state.attempt
        assert attempt is not None
        if finished:  # completed in the same commit as the answer
            self._answer_states.forget(key)
            return dataclasses.replace(attempt, status=AttemptStatus.COMPLETED)
        question_id = answers[-1].question_id
        schedule = [i for i in state.review if i.question_id != question_id]
        if review is not None and review.box > 0:  # box 0: off the schedule
            schedule.append(review)
        self._answer_states.put(key, AnswerState(attempt, state.user, answers, schedule))
        return attempt

    def _feedback_for_stored(
        self,
        attempt: AttemptRecord,
        quiz: Quiz,
        question: Question,
        answers: Sequence[AnswerRecord],
        stored: AnswerRecord,
        option_id: str,
        language: str,
        order: Sequence[Question],
    ) -> AnswerFeedback:
        outcome = (
            AnswerOutcome.DUPLICATE
            if stored.option_id == option_id
            else AnswerOutcome.ALREADY_ANSWERED
        )
        return self._feedback(outcome, attempt, quiz, question, answers, stored, language, order)

    def _feedback(
        self,
        outcome: AnswerOutcome,
        attempt: AttemptRecord,
        quiz: Quiz,
        question: Question,
        answers: Sequence[AnswerRecord],
        stored: AnswerRecord,
        language: str,
        order: Sequence[Question],
    ) -> AnswerFeedback:
        if outcome is AnswerOutcome.ACCEPTED:
            notice = t("correct" if stored.correct else "wrong", language)
        else:
            notice = t("already_answered", language)
        return AnswerFeedback(
            outcome=outcome,
            notice=notice,
            language=language,
            correct=stored.correct,
            # A partial, not a closure: a press in flight keeps two objects for the collector
            # to scan instead of a function and a cell per captured value.
            build_details=functools.partial(
                self._details, attempt, quiz, question, answers, stored, language, order
            ),
        )

    def _details(
        self,
        attempt: AttemptRecord,
        quiz: Quiz,
        question: Question,
        answers: Sequence[AnswerRecord],
        stored: AnswerRecord,
        language: str,
        order: Sequence[Question],
    ) -> AnswerDetails:
        """The views of an answer's feedback (see :class:`AnswerFeedback`)."""
        view = self._question_view(attempt, quiz, question, language, order)
        texts = self._quiz_texts(quiz, language)
        wrong = question.option(stored.option_id)
        note = None
        if not stored.correct and wrong is not None and wrong.note is not None:
            note = prepare(wrong.note.get(language), language)
        next_question = None
        result = None
        if attempt.status is AttemptStatus.ACTIVE:
            next_question = self._current_view(attempt, quiz, answers, language, order)
        if next_question is None and attempt.status is not AttemptStatus.ABANDONED:
            result = self._result(attempt, quiz, answers, language)
        return AnswerDetails(
            question=view,
            chosen=view.option(stored.option_id),
            correct_option=view.option(question.correct_option_id),
            explanation=texts.explanation(question),
            explanation_image=texts.image(question, explanation=True),
            wrong_note=note,
            next_question=next_question,
            result=result,
            typed_answer=stored.option_id if question.typed else None,
            accepted_answer=self._accepted_answer(question, language),
        )

    async def _not_yours(self, who: Participant, attempt: AttemptRecord) -> AnswerFeedback:
        """NOT_YOURS for a press on another user's ``attempt``, naming its owner."""
        owner = await self._storage.get_user(attempt.platform, attempt.user_id)
        name = (owner.display_name if owner else None) or "another user"
        return await self._refusal(who, AnswerOutcome.NOT_YOURS, owner_name=name)

    async def _refusal(
        self, who: Participant, outcome: AnswerOutcome, *, owner_name: str | None = None
    ) -> AnswerFeedback:
        ui = await self.interface_language(who)
        key = {
            AnswerOutcome.INVALID: "invalid_button",
            AnswerOutcome.STALE: "stale",
            AnswerOutcome.NOT_YOURS: "not_yours",
        }[outcome]
        notice = t(key, ui, name=owner_name) if owner_name else t(key, ui)
        return AnswerFeedback(outcome, notice, ui, owner_name=owner_name)

    # -- typed answers --------------------------------------------------------------------

    async def answer_text(
        self, who: Participant, attempt_id: int, question_number: int, text: str
    ) -> AnswerFeedback:
        """Answer a typed-answer question (the ``question_number``-th of the attempt, 1-based)
        with what the user typed. Like a button press it counts once: the same text again is a
        DUPLICATE with the same feedback, another text ALREADY_ANSWERED. The typed text
        (trimmed, at most 200 characters) is stored where a choice stores its option id."""
        typed = clean_typed(text)

        def locate(attempt: AttemptRecord, order: Sequence[Question]) -> tuple[str, str] | None:
            if not typed or not 1 <= question_number <= len(order):
                return None
            return order[question_number - 1].id, typed

        return await self._answer_located(who, attempt_id, locate, typed=True)

    @staticmethod
    def _is_right(question: Question, answer: str) -> bool:
        """Whether ``answer`` (an option id, or a typed text) answers ``question`` rightly;
        a typed text may use any of the quiz's languages' spellings."""
        if question.typed:
            return question.answers is not None and matches(answer, question.answers.every())
        return answer == question.correct_option_id

    @staticmethod
    def _accepted_answer(question: Question, language: str) -> str | None:
        """A typed question's accepted answer to show, in ``language`` (its first spelling)."""
        if not question.typed or question.answers is None:
            return None
        return prepare(question.answers.get(language)[0], language)

    # -- stopping and progress ------------------------------------------------------------

    async def active_attempt(self, who: Participant) -> tuple[AttemptRecord, str] | None:
        """The user's most recently used active attempt and its quiz title, if any."""
        for attempt in await self._storage.active_attempts(who.platform, who.user_id):
            quiz = await self._pinned(attempt)
            if quiz is not None:
                language = await self.quiz_language(who, quiz)
                return attempt, prepare(quiz.title.get(language), language)
        return None

    async def stop(self, who: Participant, attempt_id: int | None = None) -> str:
        """Abandon the user's current attempt (or the given one); returns the notice."""
        ui = await self.interface_language(who)
        active = await self._storage.active_attempts(who.platform, who.user_id)
        if attempt_id is not None:
            active = [a for a in active if a.id == attempt_id]
        for attempt in active:
            if await self._storage.finish_attempt(
                attempt.id, AttemptStatus.ABANDONED, self.clock()
            ):
                quiz = await self._pinned(attempt)
                title = prepare(quiz.title.get(ui), ui) if quiz else attempt.quiz_id
                return t("stopped", ui, title=title)
        return t("nothing_to_stop", ui)

    async def progress(self, who: Participant) -> ProgressReport:
        """Per quiz: completed attempts, best and last score, and any attempt in progress."""
        ui = await self.interface_language(who)
        summaries = [
            s
            for s in await self._storage.attempt_summaries(who.platform, who.user_id)
            if s.attempt.kind in (AttemptKind.QUIZ, AttemptKind.ROUND)  # group play counts
        ]
        lines = []
        for quiz_id in dict.fromkeys(s.attempt.quiz_id for s in summaries):
            quiz = self.catalog.get(quiz_id)
            mine = [s for s in summaries if s.attempt.quiz_id == quiz_id]
            done = [s for s in mine if s.attempt.status is AttemptStatus.COMPLETED]
            active = [s for s in mine if s.attempt.status is AttemptStatus.ACTIVE]
            total = (
                quiz.attempt_size() if quiz else max(len(s.attempt.question_order) for s in mine)
            )
            language = (
                ui if quiz and ui in quiz.languages else (quiz.default_language if quiz else ui)
            )
            lines.append(
                QuizProgress(
                    quiz_id=quiz_id,
                    title=prepare(quiz.title.get(language), language) if quiz else quiz_id,
                    total=total,
                    completed_attempts=len(done),
                    best=max((s.correct for s in done), default=None),
                    last=done[-1].correct if done else None,
                    in_progress_answered=active[-1].answered if active else None,
                )
            )
        return ProgressReport(ui, tuple(lines))

    # -- for adapters: attempts, people and small values they keep -------------------------

    async def attempt_info(self, attempt_id: int) -> AttemptInfo | None:
        """Whose attempt ``attempt_id`` is and what kind; None for an unknown id."""
        attempt = await self._storage.get_attempt(attempt_id) if valid_id(attempt_id) else None
        if attempt is None:
            return None
        return AttemptInfo(
            attempt_id=attempt.id,
            platform=attempt.platform,
            user_id=attempt.user_id,
            quiz_id=attempt.quiz_id,
            review=attempt.kind is AttemptKind.REVIEW,
            active=attempt.status is AttemptStatus.ACTIVE,
        )

    async def display_name(self, platform: str, user_id: str) -> str | None:
        """The name last seen for a user, if any."""
        user = await self._storage.get_user(platform, user_id)
        return user.display_name if user else None

    async def remember_user(self, who: Participant) -> None:
        """Keep the user's name (to name them to others, e.g. on a group menu)."""
        await self._storage.touch_user(who.platform, who.user_id, who.display_name)

    async def get_value(self, scope: str, key: str) -> str | None:
        """A small value an adapter keeps across restarts (a chat's preference, a poll's
        link, the fingerprint of registered commands); None when unset."""
        return await self._storage.get_value(scope, key)

    async def set_value(self, scope: str, key: str, value: str | None) -> None:
        """Keep ``value`` under ``scope``/``key``; None forgets it."""
        await self._storage.set_value(scope, key, value)

    async def healthy(self) -> bool:
        """Whether the database answers (for a health check)."""
        return await self._storage.healthy()

    # -- operators ------------------------------------------------------------------------

    async def stats(
        self, quiz_id: str | None = None, language: str = DEFAULT_LANGUAGE
    ) -> list[QuizStats]:
        """Attempts, completions, average score and per-question figures, per quiz and
        version (the current version first, then older ones that have attempts): an answer
        is counted with the version its attempt played, whose questions it answered."""
        quizzes = self.catalog.all() if quiz_id is None else [self.catalog.get(quiz_id)]
        result = []
        for quiz in quizzes:
            if quiz is None:
                continue
            attempts = [
                a
                for a in await self._storage.attempts_for_quiz(quiz.id)
                if a.kind is AttemptKind.QUIZ
            ]
            answers = await self._storage.answers_for_quiz(quiz.id)
            played = {a.quiz_version for a in attempts} - {quiz.version}
            for version in [quiz.version, *sorted(played, reverse=True)]:
                pinned = await self.catalog.pinned(quiz.id, version)
                if pinned is None:
                    continue
                mine = [a for a in attempts if a.quiz_version == version]
                counted = {a.id for a in mine}
                theirs = [a for a in answers if a.attempt_id in counted]
                stats = compute_stats(pinned, mine, theirs, language)
                result.append(dataclasses.replace(stats, version=version))
        return result

    async def export(
        self, quiz_id: str | None = None
    ) -> tuple[list[AttemptRecord], list[AnswerRecord]]:
        """Every attempt and answer (of one quiz, or all), for a spreadsheet."""
        attempts = await self._storage.attempts_for_quiz(quiz_id)
        answers = await self._storage.answers_for_quiz(quiz_id)
        return attempts, answers

    # -- review ---------------------------------------------------------------------------

    async def review_status(self, who: Participant) -> tuple[int, datetime | None]:
        """How many of ``who``'s questions are due for review now, and when the soonest of
        the others falls due (None: none scheduled). Questions of quizzes no longer loaded
        do not count."""
        now = self.clock()
        items = [
            i
            for i in await self._storage.review_items(who.platform, who.user_id)
            if (quiz := self.catalog.get(i.quiz_id)) and quiz.question(i.question_id)
        ]
        due = len(due_items(items, now))
        later = [i.due_at for i in items if i.due_at > now]
        return due, min(later) if later else None

    async def start_review(
        self,
        who: Participant,
        quiz_id: str | None = None,
        *,
        chat_id: str | None = None,
        zone: ZoneInfo = UTC_ZONE,
    ) -> StartResult:
        """Practise the questions due for review (of one quiz, else the quiz with most due).

        A review in progress is resumed. With nothing due the notice says when the next
        review is (as the clocks of ``zone``, the user's, show it), or that missed questions
        will appear here.
        """
        ui = await self.interface_language(who)
        for attempt in await self._storage.active_attempts(who.platform, who.user_id):
            quiz = await self._pinned(attempt) if attempt.kind is AttemptKind.REVIEW else None
            if quiz and quiz_id in (None, quiz.id):
                language = await self.quiz_language(who, quiz)
                answers = await self._storage.answers(attempt.id)
                question = self._current_view(attempt, quiz, answers, language)
                if question is not None:
                    return StartResult(
                        StartOutcome.RESUMED, language, t("resumed", ui), question=question
                    )
        now = self.clock()
        items = [
            i
            for i in await self._storage.review_items(who.platform, who.user_id, quiz_id)
            if (quiz := self.catalog.get(i.quiz_id)) and quiz.question(i.question_id)
        ]
        due = due_items(items, now)
        if not due:
            if not items:
                return StartResult(StartOutcome.NOTHING_DUE, ui, t("review_empty", ui))
            when = local_text(min(i.due_at for i in items), zone)
            return StartResult(StartOutcome.NOTHING_DUE, ui, t("review_next_at", ui, when=when))
        by_quiz: dict[str, list[str]] = {}
        for item in due:
            by_quiz.setdefault(item.quiz_id, []).append(item.question_id)
        chosen_id = max(by_quiz, key=lambda q: len(by_quiz[q]))
        quiz = self.catalog.get(chosen_id)
        assert quiz is not None
        await self._storage.touch_user(who.platform, who.user_id, who.display_name)
        new = self.plan_attempt(who, quiz, chat_id, AttemptKind.REVIEW, by_quiz[chosen_id])
        attempt, _ = await self._storage.create_attempt(new)
        language = await self.quiz_language(who, quiz)
        question = self._current_view(attempt, quiz, [], language)
        notice = t("review_started", ui, count=len(attempt.question_order))
        return StartResult(StartOutcome.STARTED, language, notice, question=question)


def _all_tagged(attempt: AttemptRecord, quiz: Quiz, tag: str) -> bool:
    """Whether every question of ``attempt`` carries ``tag`` (it plays that tag, then)."""
    return all(
        (question := quiz.question(qid)) is None or tag in question.tags
        for qid in attempt.question_order
    )


def _quiz_language(user: UserRecord | None, who: Participant, quiz: Quiz) -> str:
    """The language to show ``quiz`` in to ``who`` (``user``: their stored record)."""
    chosen = user.language if user else None
    return _resolved(chosen, who.language_tag, quiz.languages, quiz.default_language)


# Every press resolves its user's language among the quiz's, and the same few combinations
# come up again and again.
_resolved = functools.lru_cache(maxsize=1024)(resolve_language)
