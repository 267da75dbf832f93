"""Telegram-only interface strings (commands, menus, modes), in every supported language.

Same shape as :data:`bot.i18n.STRINGS`: key -> language -> template. Strings every platform
shares live in :mod:`bot.i18n`.
"""

from __future__ import annotations

from bot.i18n import translate

# The bot's commands in menu order; /help and setMyCommands are built from this list.
COMMANDS = (
    "start",
    "quiz",
    "review",
    "progress",
    "leaderboard",
    "language",
    "stop",
    "mode",
    "help",
)
# Shown only to the user ids in ADMIN_TELEGRAM_IDS (in their own chat's command menu).
ADMIN_COMMANDS = ("reload", "stats")

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
    "cmd_review": {
        "en": "Practise the questions you missed",
        "bn": "ভুল করা প্রশ্নগুলো আবার অনুশীলন করুন",
        "ur": "غلط جوابات والے سوالات کی دوبارہ مشق",
        "ru": "Повторить вопросы с ошибками",
    },
    "cmd_leaderboard": {
        "en": "Best scores (in a group: of its members)",
        "bn": "সেরা স্কোর (গ্রুপে: সেই গ্রুপের সদস্যদের)",
        "ur": "بہترین سکور (گروپ میں: اس کے اراکین کے)",
        "ru": "Лучшие результаты (в группе — её участников)",
    },
    "cmd_reload": {
        "en": "Reload the quiz files (admins)",
        "bn": "কুইজ ফাইলগুলো আবার লোড করুন (অ্যাডমিন)",
        "ur": "کوئز فائلیں دوبارہ لوڈ کریں (ایڈمن)",
        "ru": "Перезагрузить файлы тестов (админы)",
    },
    "cmd_stats": {
        "en": "Quiz statistics (admins)",
        "bn": "কুইজের পরিসংখ্যান (অ্যাডমিন)",
        "ur": "کوئز کے اعداد و شمار (ایڈمن)",
        "ru": "Статистика тестов (админы)",
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
    "help_group": {
        "en": "In a group, /quiz group [quiz] [seconds] starts a round that everyone plays "
        "together against the clock; /stop ends it.",
        "bn": "গ্রুপে /quiz group [quiz] [seconds] দিয়ে একটি রাউন্ড শুরু হয়, যা সবাই মিলে "
        "সময়ের সাথে পাল্লা দিয়ে খেলে; /stop দিয়ে শেষ হয়।",
        "ur": "گروپ میں /quiz group [quiz] [seconds] سے ایک راؤنڈ شروع ہوتا ہے جو سب مل کر "
        "وقت کے مقابلے میں کھیلتے ہیں؛ /stop سے ختم ہوتا ہے۔",
        "ru": "В группе /quiz group [тест] [секунды] запускает раунд, который все играют "
        "вместе на время; /stop его завершает.",
    },
    "unknown_command": {
        "en": "I don't know that command. /help lists what I can do.",
        "bn": "এই কমান্ডটি আমি চিনি না। আমি কী করতে পারি, তা /help দেখায়।",
        "ur": "میں یہ کمانڈ نہیں جانتا۔ میں کیا کر سکتا ہوں، یہ /help میں دیکھیں۔",
        "ru": "Я не знаю такой команды. Что я умею — в /help.",
    },
    "error": {
        "en": "Sorry, something went wrong. Please try again in a moment.",
        "bn": "দুঃখিত, কিছু একটা ভুল হয়েছে। একটু পরে আবার চেষ্টা করুন।",
        "ur": "معذرت، کچھ غلط ہو گیا۔ براہ کرم تھوڑی دیر بعد دوبارہ کوشش کریں۔",
        "ru": "Извините, что-то пошло не так. Попробуйте ещё раз чуть позже.",
    },
    "round_group_only": {
        "en": "Group rounds are played in groups: add me to a group and send /quiz group there.",
        "bn": "গ্রুপ রাউন্ড গ্রুপেই খেলা হয়: আমাকে একটি গ্রুপে যোগ করে সেখানে /quiz group পাঠান।",
        "ur": "گروپ راؤنڈ گروپ میں کھیلے جاتے ہیں: مجھے کسی گروپ میں شامل کریں اور وہاں "
        "/quiz group بھیجیں۔",
        "ru": "Групповые раунды проходят в группах: добавьте меня в группу и отправьте там "
        "/quiz group.",
    },
    "round_choose": {
        "en": "Choose the quiz for the group round:",
        "bn": "গ্রুপ রাউন্ডের জন্য কুইজ বেছে নিন:",
        "ur": "گروپ راؤنڈ کے لیے کوئز منتخب کریں:",
        "ru": "Выберите тест для группового раунда:",
    },
    "round_no_answers": {
        "en": "Nobody answered.",
        "bn": "কেউ উত্তর দেয়নি।",
        "ur": "کسی نے جواب نہیں دیا۔",
        "ru": "Никто не ответил.",
    },
    "more_lines": {
        "en": "… and {count} more",
        "bn": "… এবং আরও {count} জন",
        "ur": "… اور {count} مزید",
        "ru": "… и ещё {count}",
    },
    "leaderboard_here": {
        "en": "members of this chat",
        "bn": "এই চ্যাটের সদস্যরা",
        "ur": "اس چیٹ کے اراکین",
        "ru": "участники этого чата",
    },
    "leaderboard_everyone": {
        "en": "all players",
        "bn": "সব খেলোয়াড়",
        "ur": "تمام کھلاڑی",
        "ru": "все игроки",
    },
    "reload_done": {
        "en": "🔄 Reloaded: {count} quizzes live.",
        "bn": "🔄 আবার লোড হয়েছে: {count}টি কুইজ চালু।",
        "ur": "🔄 دوبارہ لوڈ ہو گیا: {count} کوئز فعال ہیں۔",
        "ru": "🔄 Перезагружено: активных тестов — {count}.",
    },
    "reload_problems": {
        "en": "Problems ({count}); a broken file keeps its previous version live:",
        "bn": "সমস্যা ({count}); ত্রুটিপূর্ণ ফাইলের আগের সংস্করণই চালু থাকে:",
        "ur": "مسائل ({count})؛ خراب فائل کا پچھلا ورژن فعال رہتا ہے:",
        "ru": "Проблемы ({count}); у файла с ошибкой остаётся прежняя версия:",
    },
    "reload_clean": {
        "en": "No problems found.",
        "bn": "কোনো সমস্যা পাওয়া যায়নি।",
        "ur": "کوئی مسئلہ نہیں ملا۔",
        "ru": "Проблем не найдено.",
    },
    "stats_title": {
        "en": "📊 Statistics",
        "bn": "📊 পরিসংখ্যান",
        "ur": "📊 اعداد و شمار",
        "ru": "📊 Статистика",
    },
    "stats_summary": {
        "en": "Attempts: {attempts} · completed: {completed} · average score: {average}",
        "bn": "চেষ্টা: {attempts} · সম্পূর্ণ: {completed} · গড় স্কোর: {average}",
        "ur": "کوششیں: {attempts} · مکمل: {completed} · اوسط سکور: {average}",
        "ru": "Попыток: {attempts} · завершено: {completed} · средний балл: {average}",
    },
    "stats_hardest": {
        "en": "Hardest question: {number}. {text} ({percent}% correct)",
        "bn": "সবচেয়ে কঠিন প্রশ্ন: {number}. {text} ({percent}% সঠিক)",
        "ur": "سب سے مشکل سوال: {number}. {text} ({percent}% درست)",
        "ru": "Самый трудный вопрос: {number}. {text} ({percent}% верных)",
    },
    "stats_no_answers": {
        "en": "No answers yet.",
        "bn": "এখনও কোনো উত্তর নেই।",
        "ur": "ابھی تک کوئی جواب نہیں۔",
        "ru": "Ответов пока нет.",
    },
}


def tt(key: str, language: str, **values: object) -> str:
    """The Telegram string ``key`` in ``language`` (English when missing), filled in."""
    return translate(TEXTS, key, language, **values)


def command_descriptions(language: str, *, admin: bool = False) -> list[tuple[str, str]]:
    """``(command, description)`` for the command menu and /help, in ``language``; with
    ``admin``, the admin commands follow."""
    commands = COMMANDS + ADMIN_COMMANDS if admin else COMMANDS
    return [(command, tt(f"cmd_{command}", language)) for command in commands]
