"""Terminal play: the same engine as the chat bots, driven by typed letters (and, for
typed-answer questions, typed answers).

Works interactively and with piped input (one answer per line), so a quiz can be scripted.
Every answer is committed before its feedback is printed, so stopping at any point (Ctrl-C,
end of input) loses nothing and the next run resumes at the next unanswered question.
"""

from __future__ import annotations

from typing import TextIO

from bot.engine import QuizEngine
from bot.i18n import t
from bot.text_direction import paragraph
from bot.typed_texts import typed_t
from bot.views import (
    AnswerFeedback,
    AnswerOutcome,
    Participant,
    QuestionView,
    QuizResult,
    QuizSummary,
    StartOutcome,
    progress_bar,
)

PLATFORM = "terminal"


class EndOfInput(Exception):
    """Standard input ended: the player left."""


class TerminalPlayer:
    """Plays quizzes for one terminal user on ``stdin``/``stdout``."""

    def __init__(self, engine: QuizEngine, who: Participant, stdin: TextIO, stdout: TextIO) -> None:
        self.engine = engine
        self.who = who
        self.stdin = stdin
        self.stdout = stdout

    def say(self, text: str = "", language: str = "en") -> None:
        self.stdout.write(paragraph(text, language) + "\n")
        self.stdout.flush()

    async def ask(self, prompt: str, language: str) -> str:
        self.stdout.write(paragraph(prompt, language))
        self.stdout.flush()
        # A plain blocking read: nothing else runs while a terminal player thinks, and unlike
        # a worker thread it lets Ctrl-C end the process at once.
        line = self.stdin.readline()
        if not line:
            self.stdout.write("\n")
            raise EndOfInput
        if not self.stdin.isatty():  # echo piped answers so a transcript reads naturally
            self.stdout.write(line if line.endswith("\n") else line + "\n")
        return line.strip()

    async def play(self, quiz_id: str | None, *, review: bool = False) -> int:
        """Play (or, with ``review``, practise missed questions) until the quiz ends or input
        does; returns the process exit code."""
        try:
            return await self._play(quiz_id, review)
        except EndOfInput:
            language = await self.engine.interface_language(self.who)
            self.say(t("saved_and_exit", language), language)
            return 0

    async def _play(self, quiz_id: str | None, review: bool) -> int:
        if review:
            start = await self.engine.start_review(self.who, quiz_id)
            if start.outcome is StartOutcome.NOTHING_DUE:
                self.say(start.notice, start.language)
                return 0
        else:
            start = await self.engine.start(self.who, quiz_id)
        if start.outcome is StartOutcome.CHOOSE:
            quiz_id = await self.choose(start.quizzes, start.language)
            start = await self.engine.start(self.who, quiz_id)
        if start.question is None:
            self.say(start.notice, start.language)
            return 2 if start.outcome is StartOutcome.UNKNOWN_QUIZ else 1
        question = start.question
        self.say(f"== {question.quiz_title} ==", question.language)
        if start.notice:
            self.say(start.notice, start.language)
        while True:
            feedback = await self.answer(question)
            self.show_feedback(feedback)
            if feedback.result is not None:
                self.show_result(feedback.result)
                return 0
            if feedback.next_question is None:  # stopped elsewhere meanwhile
                return 0
            question = feedback.next_question

    async def choose(self, quizzes: tuple[QuizSummary, ...], language: str) -> str:
        self.say(t("choose_quiz", language), language)
        for number, quiz in enumerate(quizzes, start=1):
            self.say(
                f"  {number}. "
                + t("quiz_summary", language, title=quiz.title, count=quiz.question_count)
                + f"  [{quiz.id}]",
                language,
            )
        ids = [q.id for q in quizzes]
        while True:
            choice = await self.ask(f"1-{len(quizzes)}: ", language)
            if choice.isdigit() and 1 <= int(choice) <= len(quizzes):
                return ids[int(choice) - 1]
            if choice in ids:
                return choice

    def show_question(self, question: QuestionView) -> None:
        lang = question.language
        bar = progress_bar(question.number, question.total)
        self.say()
        self.say(
            t("question_progress", lang, number=question.number, total=question.total) + f"  {bar}",
            lang,
        )
        self.say(question.text, lang)
        if question.typed:
            self.say(typed_t("typed_hint", lang), lang)
        for option in question.options:
            self.say(f"  {option.letter}. {option.text}", lang)

    async def answer(self, question: QuestionView) -> AnswerFeedback:
        """Ask until a valid letter is typed, then answer through the engine."""
        self.show_question(question)
        lang = question.language
        if question.typed:
            return await self.answer_typed(question)
        letters = [o.letter for o in question.options]
        shown = "/".join(letters)
        while True:
            typed = (await self.ask(t("answer_prompt", lang, letters=shown), lang)).upper()
            index = letters.index(typed) if typed in letters else None
            if index is None and typed.isdigit() and 1 <= int(typed) <= len(letters):
                index = int(typed) - 1
            if index is not None:
                return await self.engine.answer(
                    self.who,
                    question.attempt_id,
                    question.question_id,
                    question.options[index].id,
                )
            self.say(t("answer_hint", lang, letters=", ".join(letters)), lang)

    async def answer_typed(self, question: QuestionView) -> AnswerFeedback:
        """Ask until something answerable is typed, then answer through the engine."""
        lang = question.language
        while True:
            typed = await self.ask(typed_t("typed_prompt", lang), lang)
            feedback = await self.engine.answer_text(
                self.who, question.attempt_id, question.number, typed
            )
            if feedback.outcome is not AnswerOutcome.INVALID:
                return feedback
            self.say(typed_t("typed_again", lang), lang)

    def show_feedback(self, feedback: AnswerFeedback) -> None:
        lang = feedback.language
        self.say(feedback.notice, lang)
        if feedback.accepted_answer is not None:  # a typed question
            if not feedback.correct:
                self.say(t("correct_answer", lang, answer=feedback.accepted_answer), lang)
            if feedback.explanation:
                self.say(f"{t('explanation', lang)}: {feedback.explanation}", lang)
            return
        if feedback.correct_option is None or feedback.explanation is None:
            return
        if not feedback.correct:
            answer = f"{feedback.correct_option.letter}. {feedback.correct_option.text}"
            self.say(t("correct_answer", lang, answer=answer), lang)
            if feedback.wrong_note:
                self.say(feedback.wrong_note, lang)
        self.say(f"{t('explanation', lang)}: {feedback.explanation}", lang)

    def show_result(self, result: QuizResult) -> None:
        lang = result.language
        self.say()
        self.say(t("result_title", lang, title=result.quiz_title), lang)
        self.say(
            t("score", lang, correct=result.correct, total=result.total, percent=result.percent),
            lang,
        )
        for mark in result.marks:
            sign = "✓" if mark.correct else ("✗" if mark.correct is False else "·")
            self.say(f"  {sign} {mark.number}. {mark.text}", lang)
