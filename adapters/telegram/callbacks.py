"""Button presses and quiz poll votes.

Every button carries what it means (:mod:`adapters.telegram.callback_data`), so a press is
understood by any process, before or after a restart; menus shown to one person refuse the
others' presses with a toast naming whose they are.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from telegram import CallbackQuery, Message, Update
from telegram.constants import ChatType

from adapters.telegram import callback_data as cb
from adapters.telegram.commands import ROUND_LIMIT_SCOPE, SECONDS, Commands
from adapters.telegram.group_rounds import TelegramRoundDriver
from adapters.telegram.messenger import MessageRef, Messenger
from adapters.telegram.polls import POLL_SCOPE, PollLink
from adapters.telegram.rendering import (
    feedback_message,
    mode_name,
    notice,
    picker_message,
    toast,
)
from adapters.telegram.shared import PLATFORM, Context, apologize, turn
from adapters.telegram.texts import tt
from adapters.telegram.update_processor import (
    OrderingKey,
    PerUserUpdateProcessor,
    ordering_key,
)
from bot.engine import QuizEngine
from bot.i18n import t
from bot.rounds import RoundAnswerOutcome
from bot.views import AnswerFeedback, AnswerOutcome, Participant

log = logging.getLogger("quizbot.telegram")

# How long follow-ups wait after the last pending press (AcknowledgeFirst's ``settle``).
ACK_SETTLE_S = 0.02


class AcknowledgeFirst:
    """Follow-ups yield to acknowledgements: while presses are being answered, the follow-ups
    of earlier presses wait (up to ``max_wait`` seconds, so they never starve).

    The process has one event loop: under a burst, every press's edit and next question
    compete with the other presses' acknowledgements for it. Acknowledging first stops the
    spinners sooner; the follow-ups take the same total time either way.

    ``settle``: once no press is pending, waiting follow-ups go on only when no new press
    came for that long. "None pending" is often only a gap between deliveries, with more
    presses waiting at Telegram out of the bot's sight, and follow-ups let through in that
    gap kept those presses waiting:
    - In webhook mode Telegram delivers a press on one of its (by default 40) connections
      only when that connection's last press was answered (1,000 users in a closed loop:
      acknowledgement p99 1.5-1.6 s without a settle time, 0.7-0.8 s with 20 ms; answers/s
      5% lower, next question p50 0.1 s later).
    - Long polling takes at most 100 updates per getUpdates: 500 presses at once come in
      five deliveries, and the follow-ups of each started between them (a quarter more of
      the collector's young-generation passes per burst).
    A lone press's follow-ups never wait: nothing is pending once it is acknowledged.

    What waits is a callback (see :meth:`when_acknowledged`), which starts the follow-ups
    when called: under a burst, nothing of theirs runs, and no task of theirs exists for the
    collector to scan, until the acknowledgements are out. One timer serves them all.
    """

    def __init__(self, max_wait: float = 2.0, settle: float = 0.0) -> None:
        self.max_wait = max_wait
        self.settle = settle
        self._pending = 0
        self._waiting: list[Callable[[], object]] = []
        self._timer: asyncio.TimerHandle | None = None  # max_wait, armed by the first waiter
        self._settling: asyncio.TimerHandle | None = None

    def acknowledging(self) -> AcknowledgeFirst:
        """``with first.acknowledging():`` around answering a press and acknowledging it."""
        return self

    def __enter__(self) -> None:
        self._pending += 1
        if self._settling is not None:  # a press came: the lull is over
            self._settling.cancel()
            self._settling = None

    def __exit__(self, *exc_info: object) -> None:
        self._pending -= 1
        if not self._pending and self._waiting:
            self._lull()

    def _lull(self) -> None:
        """No press pending: release the waiting follow-ups, after ``settle`` if set."""
        if self.settle:
            loop = asyncio.get_running_loop()
            self._settling = loop.call_later(self.settle, self._release)
        else:
            self._release()

    def when_acknowledged(self, callback: Callable[[], object]) -> None:
        """Call ``callback`` when no press waits for its acknowledgement (and, with
        ``settle``, none came for that long): now if that is so, else later, but at most
        ``max_wait`` after the oldest callback still waiting came."""
        if not self._pending and self._settling is None:
            callback()
            return
        self._waiting.append(callback)
        if self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(self.max_wait, self._release)

    def _release(self) -> None:
        """Call every waiting callback; later ones wait again while presses are pending."""
        for timer in (self._timer, self._settling):
            if timer is not None:
                timer.cancel()
        self._timer = self._settling = None
        waiting, self._waiting = self._waiting, []
        for callback in waiting:
            callback()


class Callbacks:
    """The handlers of button presses and poll answers."""

    def __init__(
        self,
        engine: QuizEngine,
        messenger: Messenger,
        commands: Commands,
        round_driver: TelegramRoundDriver,
        updates: PerUserUpdateProcessor,
        *,
        settle: float = ACK_SETTLE_S,
    ) -> None:
        """``updates``: the application's, which runs a press's follow-ups; ``settle``: see
        :class:`AcknowledgeFirst`."""
        self.engine = engine
        self.updates = updates
        self.messenger = messenger
        self.commands = commands
        self.round_driver = round_driver
        self.rounds = round_driver.rounds  # the rules of group rounds
        self.first = AcknowledgeFirst(settle=settle)

    async def on_callback(self, update: Update, context: Context) -> None:
        query = update.callback_query
        if query is None:
            return
        who = turn(context).who
        data = cb.decode(query.data)
        if isinstance(data, cb.Answer):  # most presses: anyone's own, straight to the engine
            self._on_answer(update, context, query, who, data)
        elif data is None:
            await self._toast_invalid(context, query)
        elif await self._press_allowed(context, query, data):
            await self._dispatch(context, query, who, data)

    async def _press_allowed(
        self, context: Context, query: CallbackQuery, data: cb.CallbackData
    ) -> bool:
        """Whether ``who`` may press this button: a menu or an attempt's button is its owner's
        (anyone else hears whose it is); a stale attempt's button is invalid."""
        match data:
            case cb.PickQuiz(_, owner_id) | cb.PickRound(_, owner_id):
                return not await self._refuse_foreign_menu(context, query, owner_id, "quiz")
            case cb.ChooseLanguage(_, owner_id):
                return not await self._refuse_foreign_menu(context, query, owner_id, "language")
            case cb.Retry(attempt_id) | cb.OtherQuiz(attempt_id):
                return await self._own_attempt(context, query, attempt_id, "quiz")
            case cb.StopConfirm(attempt_id, _):
                return await self._own_attempt(context, query, attempt_id, "stop")
        return True

    async def _own_attempt(
        self, context: Context, query: CallbackQuery, attempt_id: int, command: str
    ) -> bool:
        attempt = await self.engine.attempt_info(attempt_id)
        if attempt is None or attempt.platform != PLATFORM:
            await self._toast_invalid(context, query)
            return False
        return not await self._refuse_foreign_menu(context, query, int(attempt.user_id), command)

    async def _dispatch(
        self, context: Context, query: CallbackQuery, who: Participant, data: cb.CallbackData
    ) -> None:
        """Carry out a press already allowed: one kind of button, one handler."""
        match data:
            case cb.PickQuiz(quiz_id, _):
                await self._on_pick(context, query, who, quiz_id)
            case cb.Retry(attempt_id):
                await self._on_retry(context, query, who, attempt_id)
            case cb.OtherQuiz(_):
                await self._on_other_quiz(context, query, who)
            case cb.ChooseLanguage(language, _):
                await self._on_language(context, query, who, language)
            case cb.StopConfirm(attempt_id, confirm):
                await self._on_stop(context, query, who, attempt_id, confirm)
            case cb.SetMode(poll):
                await self._on_mode(context, query, poll)
            case cb.RoundAnswer(round_id, number, index):
                result = await self.rounds.answer(round_id, who, number, index)
                await query.answer(toast(result.notice))
                if result.outcome is RoundAnswerOutcome.ACCEPTED:
                    self.round_driver.on_answer(
                        round_id, number, result.answered, result.everyone_answered
                    )
            case cb.PickRound(quiz_id, _):
                await self._on_pick_round(context, query, who, quiz_id)
            case cb.StartReview():
                await self._on_start_review(context, query)

    async def _on_start_review(self, context: Context, query: CallbackQuery) -> None:
        """A reminder's Review button: the review starts in the chat the reminder came to."""
        await query.answer()
        message = query.message
        if message is not None:
            await self.commands.start_review(context, message.chat, query.from_user)

    async def _toast_invalid(self, context: Context, query: CallbackQuery) -> None:
        ui = await turn(context).language()
        await query.answer(toast(t("invalid_button", ui)))

    async def _refuse_foreign_menu(
        self, context: Context, query: CallbackQuery, owner_id: int, command: str
    ) -> bool:
        """Toast and return True when the pressed menu was shown to someone else."""
        if str(owner_id) == turn(context).who.user_id:
            return False
        ui = await turn(context).language()
        name = await self.engine.display_name(PLATFORM, str(owner_id)) or tt("someone", ui)
        await query.answer(toast(tt("menu_not_yours", ui, name=name, command=command)))
        return True

    async def _already_done(self, context: Context, query: CallbackQuery) -> None:
        ui = await turn(context).language()
        await query.answer(toast(tt("already_done", ui)))

    def _on_answer(
        self,
        update: Update,
        context: Context,
        query: CallbackQuery,
        who: Participant,
        data: cb.Answer,
    ) -> None:
        """Hand the press to :meth:`_answer_press`, a follow-up of its update, and let the
        update go.

        Answering waits for the answer's commit, for many presses at once under a burst
        (SQLite groups them). The update (python-telegram-bot's objects, its handlers'
        coroutines and task: dozens of objects) would stay alive that long, to be scanned by
        the cyclic collector each time it runs; what the press needs fits in a few values.
        The user's next update still waits for the press and its follow-ups.
        """
        message = query.message
        chat_id = message.chat.id if message is not None else query.from_user.id
        chat_type = message.chat.type if message is not None else ChatType.PRIVATE
        owner = who.display_name if chat_type != ChatType.PRIVATE else None
        shown = self.messenger.ref(message) if isinstance(message, Message) else None
        key = ordering_key(update)
        press = self._answer_press(context, key, query.id, who, data, chat_id, shown, owner)
        self.updates.follow_up(key, press)

    async def _answer_press(
        self,
        context: Context,
        key: OrderingKey | None,
        query_id: str,
        who: Participant,
        data: cb.Answer,
        chat_id: int,
        shown: MessageRef | None,
        owner: str | None,
    ) -> None:
        """Answer the press, acknowledge it, and leave its follow-ups to start once no press
        waits for its acknowledgement (:class:`AcknowledgeFirst`)."""
        try:
            with self.first.acknowledging():
                feedback = await self.engine.answer_by_position(
                    who, data.attempt_id, data.question_number, data.option_index
                )
                # Acknowledge first: the spinner on the button stops while the rest is sent.
                await context.bot.answer_callback_query(query_id, toast(feedback.notice))
        except Exception:  # what PTB's error handler does for a handler that raised
            log.exception("telegram: answering press %s failed", query_id)
            await apologize(context.bot, who.language_tag, query_id=query_id)
            return
        if feedback.outcome is AnswerOutcome.ACCEPTED:
            work = self._show_answer(context, chat_id, shown, feedback, owner)
            self.updates.follow_up(key, work, after=self.first)

    async def _show_answer(
        self,
        context: Context,
        chat_id: int,
        shown: MessageRef | None,
        feedback: AnswerFeedback,
        owner: str | None,
    ) -> None:
        """An accepted press's follow-ups: the answered question, then the next one."""
        await self.messenger.show_answer(context, chat_id, shown, feedback, owner)
        await self.messenger.send_next(context, chat_id, feedback, owner)

    async def _take_menu(self, context: Context, query: CallbackQuery) -> bool:
        """Whether this press is the one-shot menu's first: then it is acknowledged and the menu
        closed; a later press of the same menu only hears that it was already used."""
        if not self.messenger.menu_open(query):
            await self._already_done(context, query)
            return False
        await query.answer()
        await self.messenger.close_menu(context, query, None)
        return True

    async def _on_pick(
        self, context: Context, query: CallbackQuery, who: Participant, quiz_id: str
    ) -> None:
        if not await self._take_menu(context, query):
            return
        if query.message is None:
            return
        await self.commands.start_quiz(context, query.message.chat, query.from_user, quiz_id)

    async def _on_retry(
        self, context: Context, query: CallbackQuery, who: Participant, attempt_id: int
    ) -> None:
        if not await self._take_menu(context, query):
            return
        message = query.message
        if message is None:
            return
        result = await self.engine.retry(who, attempt_id, chat_id=str(message.chat.id))
        await self.commands.after_start(context, message.chat, query.from_user, result)

    async def _on_pick_round(
        self, context: Context, query: CallbackQuery, who: Participant, quiz_id: str
    ) -> None:
        if not await self._take_menu(context, query):
            return
        message = query.message
        if message is None:
            return
        key = f"{message.chat.id}:{query.from_user.id}"
        seconds = await self.engine.get_value(ROUND_LIMIT_SCOPE, key)
        limit = int(seconds) if seconds and SECONDS.fullmatch(seconds) else None
        await self.engine.set_value(ROUND_LIMIT_SCOPE, key, None)
        await self.commands.begin_round(context, message.chat, query.from_user, quiz_id, limit)

    async def _on_other_quiz(
        self, context: Context, query: CallbackQuery, who: Participant
    ) -> None:
        if not await self._take_menu(context, query):
            return
        if query.message is None:
            return
        ui = await turn(context).language()
        rendered = picker_message(self.engine.quizzes(ui), ui, query.from_user.id)
        await self.messenger.send(context, query.message.chat.id, rendered.html, rendered.markup)

    async def _on_language(
        self, context: Context, query: CallbackQuery, who: Participant, language: str
    ) -> None:
        chosen = await self.engine.set_language(who, language)
        if chosen is None:
            await self._toast_invalid(context, query)
            return
        text = t("language_set", chosen)
        await query.answer(toast(text))
        await self.messenger.close_menu(context, query, notice(text, chosen))

    async def _on_stop(
        self,
        context: Context,
        query: CallbackQuery,
        who: Participant,
        attempt_id: int,
        confirm: bool,
    ) -> None:
        if not self.messenger.menu_open(query):
            await self._already_done(context, query)
            return
        ui = await turn(context).language()
        if confirm:
            text = await self.engine.stop(who, attempt_id)
        else:
            active = await self.engine.active_attempt(who)
            title = active[1] if active is not None and active[0].id == attempt_id else ""
            text = tt("stop_kept", ui, title=title) if title else t("nothing_to_stop", ui)
        await query.answer(toast(text))
        await self.messenger.close_menu(context, query, notice(text, ui))

    async def _on_mode(self, context: Context, query: CallbackQuery, poll: bool) -> None:
        message = query.message
        if message is None:
            await self._toast_invalid(context, query)
            return
        await self.messenger.set_mode(message.chat.id, poll)
        ui = await turn(context).language()
        text = tt("mode_set", ui, mode=mode_name(poll, ui))
        await query.answer(toast(text))
        await self.messenger.close_menu(context, query, notice(text, ui))

    async def on_poll_answer(self, update: Update, context: Context) -> None:
        answer = update.poll_answer
        if answer is None or answer.user is None or not answer.option_ids:
            return  # an anonymous vote or a retracted one: nothing to record
        link = PollLink.loads(await self.engine.get_value(POLL_SCOPE, answer.poll_id))
        if link is None:
            return
        index = answer.option_ids[0]
        if not 0 <= index < len(link.option_ids):
            return
        who = turn(context).who
        feedback = await self.engine.answer_by_option(
            who, link.attempt_id, link.question_id, link.option_ids[index]
        )
        if feedback.outcome is AnswerOutcome.NOT_YOURS:
            return  # another member voted on someone's poll in a group: theirs is still open
        await self.engine.set_value(POLL_SCOPE, answer.poll_id, None)
        if feedback.outcome is not AnswerOutcome.ACCEPTED:
            return
        image = feedback.explanation_image  # a poll cannot show one: it follows the vote
        if image or not link.explanation_complete or (not feedback.correct and feedback.wrong_note):
            await self.messenger.send_pictured(
                context, link.chat_id, feedback_message(feedback), image
            )
        owner = who.display_name if link.chat_id != answer.user.id else None
        await self.messenger.send_next(context, link.chat_id, feedback, owner)
