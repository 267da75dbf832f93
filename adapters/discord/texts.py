"""Interface strings only the Discord adapter uses, in every supported language.

Same shape as :data:`bot.i18n.STRINGS` (key -> language -> template); everything the other
platforms share stays there.
"""

from __future__ import annotations

from bot.i18n import DEFAULT_LANGUAGE
from bot.text_direction import prepare

STRINGS: dict[str, dict[str, str]] = {
    # Slash command descriptions (at most 100 characters; the translator sends en and ru to
    # Discord, /help shows them in every language).
    "cmd_quiz": {
        "en": "Start or continue a quiz",
        "bn": "কুইজ শুরু করুন বা চালিয়ে যান",
        "ur": "کوئز شروع کریں یا جاری رکھیں",
        "ru": "Начать или продолжить тест",
    },
    "cmd_quiz_option": {
        "en": "Which quiz (start typing to search)",
        "bn": "কোন কুইজ (খুঁজতে লিখতে শুরু করুন)",
        "ur": "کون سا کوئز (تلاش کے لیے لکھنا شروع کریں)",
        "ru": "Какой тест (начните вводить для поиска)",
    },
    "cmd_progress": {
        "en": "Your scores",
        "bn": "আপনার স্কোর",
        "ur": "آپ کے سکور",
        "ru": "Ваши результаты",
    },
    "cmd_language": {
        "en": "Change the language (remembered)",
        "bn": "ভাষা বদলান (মনে রাখা হবে)",
        "ur": "زبان تبدیل کریں (یاد رکھی جائے گی)",
        "ru": "Сменить язык (запоминается)",
    },
    "cmd_language_option": {
        "en": "The language for quizzes and messages",
        "bn": "কুইজ ও বার্তার ভাষা",
        "ur": "کوئز اور پیغامات کی زبان",
        "ru": "Язык тестов и сообщений",
    },
    "cmd_stop": {
        "en": "Stop the current quiz",
        "bn": "চলতি কুইজ থামান",
        "ur": "موجودہ کوئز روکیں",
        "ru": "Остановить текущий тест",
    },
    "cmd_help": {
        "en": "How this bot works",
        "bn": "এই বট কীভাবে কাজ করে",
        "ur": "یہ بوٹ کیسے کام کرتا ہے",
        "ru": "Как работает этот бот",
    },
    "language_hint": {
        "en": "Discord has no Bengali or Urdu setting: choose বাংলা or اردو with /language.",
        "bn": "Discord-এ বাংলা বা উর্দু সেটিং নেই: /language দিয়ে ভাষা বেছে নিন।",
        "ur": "Discord میں اردو یا بنگالی کی سیٹنگ نہیں ہے: /language سے زبان منتخب کریں۔",
        "ru": "В Discord нет бенгальского и урду: выберите বাংলা или اردو командой /language.",
    },
    "not_your_button": {
        "en": "This is someone else's quiz — start your own with /quiz.",
        "bn": "এটি অন্য কারও কুইজ — /quiz দিয়ে নিজের কুইজ শুরু করুন।",
        "ur": "یہ کسی اور کا کوئز ہے — /quiz سے اپنا کوئز شروع کریں۔",
        "ru": "Это чужой тест — начните свой командой /quiz.",
    },
    "more_quizzes": {
        "en": "Showing {shown} of {total}: type /quiz and part of a title to find the others.",
        "bn": "{total}টির মধ্যে {shown}টি দেখানো হলো: বাকিগুলো খুঁজতে /quiz লিখে শিরোনামের অংশ লিখুন।",
        "ur": "{total} میں سے {shown} دکھائے گئے: "
        "باقی تلاش کرنے کے لیے /quiz کے بعد عنوان کا حصہ لکھیں۔",
        "ru": "Показано {shown} из {total}: введите /quiz и часть названия, чтобы найти остальные.",
    },
    "error": {
        "en": "Something went wrong on our side. Please try again in a moment.",
        "bn": "আমাদের দিকে একটি সমস্যা হয়েছে। একটু পরে আবার চেষ্টা করুন।",
        "ur": "ہماری طرف کوئی مسئلہ پیش آیا۔ براہ کرم تھوڑی دیر بعد دوبارہ کوشش کریں۔",
        "ru": "У нас что-то пошло не так. Попробуйте ещё раз чуть позже.",
    },
}


def text(key: str, language: str, **values: object) -> str:
    """The Discord string ``key`` in ``language`` (English when missing), filled in."""
    by_language = STRINGS[key]
    template = by_language.get(language) or by_language[DEFAULT_LANGUAGE]
    filled = template.format(**values) if values else template
    return prepare(filled, language)
