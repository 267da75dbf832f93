"""Commands and menus: /start, /help, /language, /stop, /progress, result buttons, the menu."""

from __future__ import annotations

import json

from adapters.telegram.rendering import mode_name
from adapters.telegram.texts import tt
from bot.catalog import QuizCatalog
from bot.engine import QuizEngine
from bot.i18n import LANGUAGE_NAMES, t
from bot.views import Participant
from fakes.telegram_bot_api import FakeBotApi
from fakes.telegram_chatter import Chatter, button_for, clean
from tests.conftest import SEED_QUIZ
from tests.telegram.conftest import Launch, chatter, stop_process

DEFAULT_SCOPE = json.dumps({"type": "default"})


async def play(me: Chatter, catalog: QuizCatalog, pattern: str, language: str = "en") -> None:
    """Answer the questions of the seed quiz: "1" right, "0" wrong, from the next question."""
    quiz = catalog.get(SEED_QUIZ)
    assert quiz is not None
    for right in pattern:
        question = await me.question()
        query = me.press(question, button_for(question, quiz, language, right == "1"))
        await me.toast(query)
    await me.barrier()  # the next question or the result has been sent


async def test_commands_are_registered_in_every_language(
    api: FakeBotApi, engine: QuizEngine, launch: Launch
) -> None:
    adapter = await launch(engine)
    menus = {lang: api.commands[(DEFAULT_SCOPE, lang)] for lang in ("", "en", "bn", "ur", "ru")}
    names = [
        "start",
        "quiz",
        "review",
        "remind",
        "timezone",
        "progress",
        "leaderboard",
        "daily",
        "language",
        "stop",
        "mode",
        "assignments",
        "help",
    ]
    for menu in menus.values():
        assert [c["command"] for c in menu] == names
    assert menus[""] == menus["en"]
    assert menus["ru"][1]["description"] == "Начать или продолжить тест"
    assert menus["bn"][1]["description"] != menus["en"][1]["description"]
    assert menus["ur"][1]["description"] != menus["en"][1]["description"]
    # A restart with the same commands does not register them again.
    await stop_process(adapter)
    before = len(api.calls_of("setMyCommands"))
    await launch(engine)
    assert len(api.calls_of("setMyCommands")) == before


async def test_start_and_help(api: FakeBotApi, engine: QuizEngine, launch: Launch) -> None:
    await launch(engine)
    me = chatter(api, 3001, "Gita", "bn")
    me.send("/start")
    welcome = await me.message()
    assert clean(t("welcome", "bn")) in clean(welcome.text)
    assert "চেকপয়েন্ট শার্ডিং ও রিজিউমযোগ্য ট্রেনিং" in (welcome.text or "")
    query = me.press_button(welcome, "▶ চেকপয়েন্ট শার্ডিং ও রিজিউমযোগ্য ট্রেনিং")
    await me.toast(query)
    question = await me.question()
    assert clean(question.text).startswith("প্রশ্ন 1/8")
    me.send("/help")
    help_text = clean((await me.message()).text)
    for command in ("/start", "/quiz", "/review", "/progress", "/leaderboard", "/language"):
        assert command in help_text
    for command in ("/stop", "/mode", "/help", "/quiz group"):
        assert command in help_text
    assert "/reload" not in help_text and "/stats" not in help_text  # not an admin
    assert api.failed_calls() == []


async def test_language_choice_is_remembered(
    api: FakeBotApi, engine: QuizEngine, launch: Launch
) -> None:
    await launch(engine)
    me = chatter(api, 3002, "Hana", "en")
    me.send("/language")
    picker = await me.message()
    assert clean(picker.text) == clean(t("choose_language", "en"))
    assert [b["text"] for b in picker.buttons] == list(LANGUAGE_NAMES.values())
    query = me.press_button(picker, LANGUAGE_NAMES["ur"])
    assert await me.toast(query) == clean(t("language_set", "ur"))
    await me.edit_of(picker, me.mark)
    assert clean(api.messages[(picker.chat_id, picker.message_id)].text) == clean(
        t("language_set", "ur")
    )
    me.send("/start")
    welcome = await me.message()
    assert clean(t("welcome", "ur")) in clean(welcome.text)
    assert "/quiz" in (welcome.text or "")  # whole, so Telegram makes it a command link
    me.send(f"/quiz {SEED_QUIZ}")
    question = await me.question()
    assert clean(question.text).startswith(clean(t("question_progress", "ur", number=1, total=8)))
    assert (question.text or "").startswith("\u200f")  # right-to-left paragraphs
    # Typed directly, and overriding the Telegram language (en) from then on.
    me.send("/language ru")
    assert clean((await me.message()).text) == clean(t("language_set", "ru"))
    me.send("/help")
    assert clean(t("welcome", "ru")) in clean((await me.message()).text)
    assert api.failed_calls() == []


async def test_stop_asks_first(
    api: FakeBotApi, engine: QuizEngine, catalog: QuizCatalog, launch: Launch
) -> None:
    await launch(engine)
    me = chatter(api, 3003, "Ilya", "ru")
    me.send("/stop")
    assert clean((await me.message()).text) == clean(t("nothing_to_stop", "ru"))
    me.send(f"/quiz {SEED_QUIZ}")
    await play(me, catalog, "1", "ru")
    me.send("/stop")
    confirm = await me.message()
    title = "Шардирование чекпойнтов и возобновляемое обучение"
    assert clean(confirm.text) == clean(t("stop_confirm", "ru", title=title))
    query = me.press_button(confirm, t("stop_no", "ru"))
    assert await me.toast(query) == f"Продолжаем: «{title}»."
    assert (await engine.active_attempt(participant(me))) is not None
    me.send("/stop")
    confirm = await me.message()
    query = me.press_button(confirm, t("stop_yes", "ru"))
    assert await me.toast(query) == clean(t("stopped", "ru", title=title))
    await me.edit_of(confirm, me.mark)
    assert api.messages[(confirm.chat_id, confirm.message_id)].buttons == []
    assert (await engine.active_attempt(participant(me))) is None
    again = me.press_button(confirm, t("stop_yes", "ru"))  # a stale copy of the menu
    assert await me.toast(again) == "Уже сделано."
    assert api.failed_calls() == []


def participant(me: Chatter) -> Participant:
    return Participant("telegram", str(me.user["id"]))


async def test_progress_and_result_buttons(
    api: FakeBotApi, engine: QuizEngine, catalog: QuizCatalog, launch: Launch
) -> None:
    await launch(engine)
    me = chatter(api, 3004, "Jun")
    me.send("/progress")
    assert clean((await me.message()).text) == clean(t("no_progress", "en"))
    me.send(f"/quiz {SEED_QUIZ}")
    await play(me, catalog, "11111110")
    result = await me.message(lambda m: bool(m.buttons))
    assert "Score: 7/8 (88%)" in (result.text or "")
    me.send("/progress")
    report = clean((await me.message()).text)
    title = "Checkpoint sharding and resumable training"
    assert f"{title}: 1 attempt, best 7/8, last 7/8" in report
    # "Try again" starts the quiz afresh; the result's buttons are then gone.
    query = me.press_button(result, t("retry", "en"))
    await me.toast(query)
    await play(me, catalog, "10")
    assert api.messages[(result.chat_id, result.message_id)].buttons == []
    me.send("/progress")
    report = clean((await me.message()).text)
    assert f"{title}: in progress, 2/8 answered" in report
    assert f"{title}: 1 attempt, best 7/8, last 7/8" in report
    assert api.failed_calls() == []


async def test_another_quiz_button_shows_the_picker(
    api: FakeBotApi, engine: QuizEngine, catalog: QuizCatalog, launch: Launch
) -> None:
    await launch(engine)
    me = chatter(api, 3005, "Kofi")
    me.send(f"/quiz {SEED_QUIZ}")
    await play(me, catalog, "00000000")
    result = await me.message(lambda m: bool(m.buttons))
    assert "Score: 0/8 (0%)" in (result.text or "")
    query = me.press_button(result, t("other_quiz", "en"))
    await me.toast(query)
    picker = await me.message()
    assert clean(picker.text).startswith(clean(t("choose_quiz", "en")))
    group = api.group_chat(-4002, "Club")
    stranger = Chatter(api, api.user(3006, "Lena"), group)
    # Someone else's menu (here: forwarded into view) is refused with their name.
    query = stranger.press(picker, picker.buttons[0]["callback_data"])
    assert await stranger.toast(query) == "These buttons are Kofi's — send /quiz to get your own."
    assert api.failed_calls() == []


async def test_a_user_spamming_commands_is_told_once_then_ignored(
    api: FakeBotApi, engine: QuizEngine, launch: Launch
) -> None:
    await launch(engine)
    spammer = api.user(4801, "Spam")
    me = Chatter(api, spammer, api.private_chat(spammer))
    calm = api.user(4802, "Calm")
    other = Chatter(api, calm, api.private_chat(calm))
    start = len(api.calls)
    for _ in range(12):
        api.send_text(spammer, me.chat, "/help")
    other.send("/help")
    await other.message()  # someone else is served meanwhile
    await me.barrier()
    replies = [
        clean(c.params.get("text"))
        for c in api.calls_of("sendMessage", after=start)
        if int(c.params["chat_id"]) == me.chat_id
    ]
    assert replies.count(clean(t("slow_down", "en"))) == 1
    assert len(replies) == 6  # the burst of 5, then one notice, then silence


async def test_the_command_budget_counts_typed_answers_but_not_presses_and_speaks_their_language(
    api: FakeBotApi, engine: QuizEngine, launch: Launch
) -> None:
    """The group -1 hook: commands and typed text share one budget, the notice comes in the
    sender's language, and button presses are never stopped by it."""
    await launch(engine)
    user = api.user(4803, "Ivan", language_code="ru")
    me = Chatter(api, user, api.private_chat(user))
    me.send("/mode")
    menu = await me.message()
    start = len(api.calls)
    for _ in range(5):  # with /mode: 6 in the budget of 5
        api.send_text(user, me.chat, "hello")
    await me.barrier()
    replies = [
        clean(c.params.get("text"))
        for c in api.calls_of("sendMessage", after=start)
        if int(c.params["chat_id"]) == me.chat_id
    ]
    assert replies.count(clean(t("slow_down", "ru"))) == 1
    query = me.press(menu, menu.buttons[0]["callback_data"])  # over budget, still served
    assert await me.toast(query) == clean(tt("mode_set", "ru", mode=mode_name(True, "ru")))
    assert api.failed_calls() == []
