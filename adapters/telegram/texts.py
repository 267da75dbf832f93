"""Telegram-only interface strings (commands, menus, modes), in every supported language.

Same shape as :data:`bot.i18n.STRINGS`: key -> language -> template. Strings every platform
shares live in :mod:`bot.i18n`.
"""

from __future__ import annotations

from bot.i18n import DEFAULT_LANGUAGE
from bot.text_direction import prepare

# The bot's commands in menu order; /help and setMyCommands are built from this list.
COMMANDS = ("start", "quiz", "progress", "language", "stop", "mode", "help")

TEXTS: dict[str, dict[str, str]] = {
    "cmd_start": {
        "en": "Welcome and the list of quizzes",
        "bn": "স্বাগত বার্তা ও কুইজের তালিকা",
        "ur": "خوش آمدید اور کوئزز کی فہرست",
        "ru": "Приветствие и список тестов",
    },
    "cmd_quiz": {
        "en": "Start or continue a quiz",
        "bn": "কুইজ শুরু করুন বা চালিয়ে যান",
        "ur": "کوئز شروع کریں یا جاری رکھیں",
        "ru": "Начать или продолжить тест",
    },
    "cmd_progress": {
        "en": "Your attempts and scores",
        "bn": "আপনার চেষ্টা ও স্কোর",
        "ur": "آپ کی کوششیں اور سکور",
        "ru": "Ваши попытки и результаты",
    },
    "cmd_language": {
        "en": "Change the language",
        "bn": "ভাষা বদলান",
        "ur": "زبان تبدیل کریں",
        "ru": "Сменить язык",
    },
    "cmd_stop": {
        "en": "Stop the current quiz",
        "bn": "চলতি কুইজ থামান",
        "ur": "موجودہ کوئز روکیں",
        "ru": "Остановить текущий тест",
    },
    "cmd_mode": {
        "en": "Questions in this chat as quiz polls or buttons",
        "bn": "এই চ্যাটে প্রশ্ন কুইজ পোলে না বোতামে",
        "ur": "اس چیٹ میں سوالات کوئز پول میں یا بٹنوں کے ساتھ",
        "ru": "Вопросы в этом чате: опросы-викторины или кнопки",
    },
    "cmd_help": {
        "en": "How to use the bot",
        "bn": "বট ব্যবহারের নিয়ম",
        "ur": "بوٹ استعمال کرنے کا طریقہ",
        "ru": "Как пользоваться ботом",
    },
    "commands_heading": {"en": "Commands:", "bn": "কমান্ড:", "ur": "کمانڈز:", "ru": "Команды:"},
    "quizzes_heading": {"en": "Quizzes:", "bn": "কুইজসমূহ:", "ur": "کوئزز:", "ru": "Тесты:"},
    "start_hint": {
        "en": "Send /quiz to begin, or press a quiz below. /help lists every command.",
        "bn": "শুরু করতে /quiz পাঠান বা নিচের একটি কুইজ চাপুন। সব কমান্ড দেখতে /help।",
        "ur": "شروع کرنے کے لیے /quiz بھیجیں یا نیچے کسی کوئز کو دبائیں۔ تمام کمانڈز کے لیے /help۔",
        "ru": "Отправьте /quiz, чтобы начать, или нажмите на тест ниже. Все команды — /help.",
    },
    "play_button": {"en": "▶ {title}", "bn": "▶ {title}", "ur": "▶ {title}", "ru": "▶ {title}"},
    "owner_line": {"en": "👤 {name}", "bn": "👤 {name}", "ur": "👤 {name}", "ru": "👤 {name}"},
    "already_done": {
        "en": "Already done.",
        "bn": "এটি আগেই করা হয়েছে।",
        "ur": "یہ پہلے ہی ہو چکا ہے۔",
        "ru": "Уже сделано.",
    },
    "menu_not_yours": {
        "en": "These buttons are {name}'s — send /{command} to get your own.",
        "bn": "এই বোতামগুলো {name}-এর — নিজের জন্য /{command} পাঠান।",
        "ur": "یہ بٹن {name} کے ہیں — اپنے لیے /{command} بھیجیں۔",
        "ru": "Эти кнопки для пользователя {name} — отправьте /{command}, чтобы получить свои.",
    },
    "someone": {
        "en": "someone else",
        "bn": "অন্য কেউ",
        "ur": "کوئی اور",
        "ru": "другой участник",
    },
    "stop_kept": {
        "en": "Carrying on: {title}.",
        "bn": "চলছে: {title}।",
        "ur": "جاری ہے: {title}۔",
        "ru": "Продолжаем: «{title}».",
    },
    "mode_prompt": {
        "en": "How should questions come in this chat? Now: {mode}",
        "bn": "এই চ্যাটে প্রশ্ন কীভাবে আসবে? এখন: {mode}",
        "ur": "اس چیٹ میں سوالات کیسے آئیں؟ ابھی: {mode}",
        "ru": "Как присылать вопросы в этот чат? Сейчас: {mode}",
    },
    "mode_set": {
        "en": "Questions in this chat: {mode}",
        "bn": "এই চ্যাটে প্রশ্ন: {mode}",
        "ur": "اس چیٹ میں سوالات: {mode}",
        "ru": "Вопросы в этом чате: {mode}",
    },
    "mode_poll": {
        "en": "📊 Quiz polls",
        "bn": "📊 কুইজ পোল",
        "ur": "📊 کوئز پول",
        "ru": "📊 Опросы-викторины",
    },
    "mode_buttons": {"en": "🔘 Buttons", "bn": "🔘 বোতাম", "ur": "🔘 بٹن", "ru": "🔘 Кнопки"},
}


def tt(key: str, language: str, **values: object) -> str:
    """The Telegram string ``key`` in ``language`` (English when missing), filled in."""
    by_language = TEXTS[key]
    template = by_language.get(language) or by_language[DEFAULT_LANGUAGE]
    text = template.format(**values) if values else template
    return prepare(text, language)


def command_descriptions(language: str) -> list[tuple[str, str]]:
    """``(command, description)`` for the command menu and /help, in ``language``."""
    return [(command, tt(f"cmd_{command}", language)) for command in COMMANDS]
