"""Interface strings only the Discord adapter uses, in every supported language.

Same shape as :data:`bot.i18n.STRINGS` (key -> language -> template); everything the other
platforms share stays there.
"""

from __future__ import annotations

from bot.i18n import translate

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
    "cmd_review": {
        "en": "Practise the questions you missed",
        "bn": "ভুল করা প্রশ্নগুলো আবার অনুশীলন করুন",
        "ur": "غلط جوابات والے سوالات کی دوبارہ مشق کریں",
        "ru": "Повторить вопросы с ошибками",
    },
    "cmd_round": {
        "en": "Play a quiz together in this channel, against the clock",
        "bn": "এই চ্যানেলে সবাই মিলে সময় ধরে কুইজ খেলুন",
        "ur": "اس چینل میں سب مل کر وقت کے مقابلے میں کوئز کھیلیں",
        "ru": "Сыграть тест всем каналом на время",
    },
    "cmd_round_seconds": {
        "en": "Seconds per question (5–600, default 30)",
        "bn": "প্রতি প্রশ্নে সেকেন্ড (5–600, ডিফল্ট 30)",
        "ur": "ہر سوال کے لیے سیکنڈ (5–600، طے شدہ 30)",
        "ru": "Секунд на вопрос (5–600, по умолчанию 30)",
    },
    "cmd_leaderboard": {
        "en": "Best scores in this channel and overall",
        "bn": "এই চ্যানেলের ও সবার সেরা স্কোর",
        "ur": "اس چینل اور سب کے بہترین سکور",
        "ru": "Лучшие результаты в канале и в целом",
    },
    "cmd_reload": {
        "en": "Reload the quiz files (bot admins)",
        "bn": "কুইজ ফাইলগুলো আবার লোড করুন (বট অ্যাডমিন)",
        "ur": "کوئز فائلیں دوبارہ لوڈ کریں (بوٹ ایڈمن)",
        "ru": "Перечитать файлы тестов (для админов бота)",
    },
    "cmd_stats": {
        "en": "Attempts, scores and the hardest questions (bot admins)",
        "bn": "চেষ্টা, স্কোর ও সবচেয়ে কঠিন প্রশ্ন (বট অ্যাডমিন)",
        "ur": "کوششیں، سکور اور مشکل ترین سوالات (بوٹ ایڈمن)",
        "ru": "Попытки, результаты и самые трудные вопросы (для админов бота)",
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
    "unknown_command": {
        "en": "Unknown command.",
        "bn": "অজানা কমান্ড।",
        "ur": "نامعلوم کمانڈ۔",
        "ru": "Неизвестная команда.",
    },
    "round_server_only": {
        "en": "Rounds are played in a server channel: type /round there.",
        "bn": "রাউন্ড সার্ভারের চ্যানেলে খেলা হয়: সেখানে /round লিখুন।",
        "ur": "راؤنڈ سرور کے چینل میں کھیلے جاتے ہیں: وہاں /round لکھیں۔",
        "ru": "Раунды проходят в канале сервера: введите там /round.",
    },
    "round_no_permission": {
        "en": "I can't run a round here: in this channel I need the View Channel, "
        "Send Messages and Embed Links permissions.",
        "bn": "এখানে রাউন্ড চালাতে পারছি না: এই চ্যানেলে আমার View Channel, "
        "Send Messages ও Embed Links অনুমতি দরকার।",
        "ur": "میں یہاں راؤنڈ نہیں چلا سکتا: اس چینل میں مجھے View Channel، "
        "Send Messages اور Embed Links کی اجازت درکار ہے۔",
        "ru": "Не могу провести раунд здесь: в этом канале мне нужны права "
        "«Просматривать каналы», «Отправлять сообщения» и «Встраивать ссылки».",
    },
    "round_choose": {
        "en": "Which quiz should the channel play?",
        "bn": "চ্যানেল কোন কুইজ খেলবে?",
        "ur": "چینل کون سا کوئز کھیلے؟",
        "ru": "Какой тест сыграть всем каналом?",
    },
    # {when} becomes a Discord timestamp that each client shows as "in 25 seconds", live.
    "round_closes": {
        "en": "⏳ Closes {when}",
        "bn": "⏳ বন্ধ হবে {when}",
        "ur": "⏳ {when} بند ہوگا",
        "ru": "⏳ Закроется {when}",
    },
    "round_everyone_answered": {
        "en": "👥 Everyone has answered.",
        "bn": "👥 সবাই উত্তর দিয়েছেন।",
        "ur": "👥 سب نے جواب دے دیا۔",
        "ru": "👥 Ответили все.",
    },
    "round_no_answers": {
        "en": "Nobody answered.",
        "bn": "কেউ উত্তর দেননি।",
        "ur": "کسی نے جواب نہیں دیا۔",
        "ru": "Никто не ответил.",
    },
    "round_more": {
        "en": "…and {count} more",
        "bn": "…এবং আরও {count} জন",
        "ur": "…اور {count} مزید",
        "ru": "…и ещё {count}",
    },
    "leaderboard_here": {
        "en": "This channel",
        "bn": "এই চ্যানেল",
        "ur": "یہ چینل",
        "ru": "Этот канал",
    },
    "leaderboard_everyone": {
        "en": "Everyone",
        "bn": "সবাই",
        "ur": "سب",
        "ru": "Все",
    },
    "reload_done": {
        "en": "Quizzes live: {count}.",
        "bn": "চালু কুইজ: {count}টি।",
        "ur": "فعال کوئز: {count}۔",
        "ru": "Доступно тестов: {count}.",
    },
    "reload_problems": {
        "en": "Problems: {count} (a broken file keeps its last good version):",
        "bn": "সমস্যা: {count} (ত্রুটিপূর্ণ ফাইলের শেষ সঠিক সংস্করণটি চালু থাকে):",
        "ur": "مسائل: {count} (خراب فائل کا آخری درست ورژن فعال رہتا ہے):",
        "ru": "Проблем: {count} (у сломанного файла остаётся последняя рабочая версия):",
    },
    "reload_clean": {
        "en": "No problems found.",
        "bn": "কোনো সমস্যা পাওয়া যায়নি।",
        "ur": "کوئی مسئلہ نہیں ملا۔",
        "ru": "Проблем не найдено.",
    },
    "reload_more": {
        "en": "…and {count} more: run quizbot validate for the full list.",
        "bn": "…এবং আরও {count}টি: পুরো তালিকার জন্য quizbot validate চালান।",
        "ur": "…اور {count} مزید: پوری فہرست کے لیے quizbot validate چلائیں۔",
        "ru": "…и ещё {count}: полный список покажет quizbot validate.",
    },
    "stats_title": {
        "en": "📊 Quiz statistics",
        "bn": "📊 কুইজের পরিসংখ্যান",
        "ur": "📊 کوئز کے اعداد و شمار",
        "ru": "📊 Статистика тестов",
    },
    "stats_summary": {
        "en": "Attempts: {attempts} · completed: {completed} · average score: {average}",
        "bn": "চেষ্টা: {attempts} · সম্পূর্ণ: {completed} · গড় স্কোর: {average}",
        "ur": "کوششیں: {attempts} · مکمل: {completed} · اوسط سکور: {average}",
        "ru": "Попыток: {attempts} · завершено: {completed} · средний результат: {average}",
    },
    "stats_hardest": {
        "en": "Hardest: question {number} ({percent}% correct) — {text}",
        "bn": "সবচেয়ে কঠিন: প্রশ্ন {number} ({percent}% সঠিক) — {text}",
        "ur": "مشکل ترین: سوال {number} ({percent}% درست) — {text}",
        "ru": "Самый трудный: вопрос {number} ({percent}% верно) — {text}",
    },
    "stats_no_answers": {
        "en": "No answers yet.",
        "bn": "এখনও কোনো উত্তর নেই।",
        "ur": "ابھی کوئی جواب نہیں۔",
        "ru": "Ответов пока нет.",
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
    return translate(STRINGS, key, language, **values)
