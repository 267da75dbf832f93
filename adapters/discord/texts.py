"""Interface strings only the Discord adapter uses, in every supported language.

Same shape as :data:`bot.i18n.STRINGS` (key -> language -> template); everything the other
platforms share stays there (assignments' in :mod:`bot.assignments.texts`, also looked up here).
"""

from __future__ import annotations

from bot.assignments.texts import ASSIGNMENT_STRINGS
from bot.i18n import STRINGS as SHARED
from bot.i18n import plain, translate

STRINGS: dict[str, dict[str, str]] = {
    # Slash command descriptions (at most 100 characters; the translator sends en and ru to
    # Discord, /help shows them in every language).
    "cmd_upload": {
        "en": "Publish a quiz file or a .zip of a quiz with its images (admins)",
        "bn": "একটি কুইজ ফাইল বা ছবিসহ কুইজের .zip প্রকাশ করুন (অ্যাডমিন)",
        "ur": "کوئز فائل یا تصاویر سمیت کوئز کی .zip شائع کریں (ایڈمن)",
        "ru": "Опубликовать файл теста или .zip с тестом и картинками (админы)",
    },
    "cmd_upload_file": {
        "en": "A .yaml quiz, GIFT, Aiken, Open Trivia DB, Red trivia file, or a .zip",
        "bn": ".yaml কুইজ, GIFT, Aiken, Open Trivia DB, Red trivia ফাইল, বা একটি .zip",
        "ur": ".yaml کوئز، GIFT، Aiken، Open Trivia DB، Red trivia فائل، یا ایک .zip",
        "ru": "Тест .yaml, файл GIFT, Aiken, Open Trivia DB, Red trivia или .zip",
    },
    "cmd_upload_format": {
        "en": "The file's format, when its name does not say",
        "bn": "ফাইলের ফরম্যাট, যখন নাম থেকে বোঝা যায় না",
        "ur": "فائل کا فارمیٹ، جب نام سے معلوم نہ ہو",
        "ru": "Формат файла, если его не видно по имени",
    },
    "cmd_unpublish_quiz": {
        "en": "The id of the quiz to unpublish",
        "bn": "যে কুইজ অপ্রকাশিত করবেন তার আইডি",
        "ur": "جس کوئز کی اشاعت ختم کرنی ہے اس کی آئی ڈی",
        "ru": "Идентификатор теста, который нужно снять",
    },
    "cmd_quiz_option": {
        "en": "Which quiz (start typing to search)",
        "bn": "কোন কুইজ (খুঁজতে লিখতে শুরু করুন)",
        "ur": "کون سا کوئز (تلاش کے لیے لکھنا شروع کریں)",
        "ru": "Какой тест (начните вводить для поиска)",
    },
    "cmd_quiz_tag_option": {
        "en": "Practise one topic: only questions with this tag",
        "bn": "একটি বিষয় অনুশীলন: শুধু এই ট্যাগের প্রশ্ন",
        "ur": "ایک موضوع کی مشق: صرف اس ٹیگ والے سوال",
        "ru": "Тренировать одну тему: только вопросы с этим тегом",
    },
    "cmd_language_option": {
        "en": "The language for quizzes and messages",
        "bn": "কুইজ ও বার্তার ভাষা",
        "ur": "کوئز اور پیغامات کی زبان",
        "ru": "Язык тестов и сообщений",
    },
    "cmd_remind_option": {
        "en": "A time as HH:MM (your time zone), or off",
        "bn": "HH:MM আকারে সময় (আপনার টাইম জোনে), অথবা off",
        "ur": "HH:MM کی شکل میں وقت (آپ کے ٹائم زون میں)، یا off",
        "ru": "Время в виде ЧЧ:ММ (по вашему поясу) или off",
    },
    "cmd_timezone_option": {
        "en": "An IANA time zone, like Europe/Berlin (start typing to search)",
        "bn": "একটি IANA টাইম জোন, যেমন Asia/Dhaka (খুঁজতে লিখতে শুরু করুন)",
        "ur": "ایک IANA ٹائم زون، جیسے Asia/Karachi (تلاش کے لیے لکھنا شروع کریں)",
        "ru": "Часовой пояс IANA, например Europe/Moscow (начните вводить для поиска)",
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
    "reload_more": {
        "en": "…and {count} more: run quizbot validate for the full list.",
        "bn": "…এবং আরও {count}টি: পুরো তালিকার জন্য quizbot validate চালান।",
        "ur": "…اور {count} مزید: پوری فہرست کے لیے quizbot validate چلائیں۔",
        "ru": "…и ещё {count}: полный список покажет quizbot validate.",
    },
}


def templates(key: str) -> dict[str, str] | None:
    """Language -> template of string ``key`` (Discord's own, else the shared one; of a
    string with plural forms, its ``other`` form)."""
    found = STRINGS.get(key) or SHARED.get(key) or ASSIGNMENT_STRINGS.get(key)
    return {lang: plain(template) for lang, template in found.items()} if found else None


def text(key: str, language: str, **values: object) -> str:
    """The Discord string ``key`` in ``language`` (English when missing), filled in."""
    table = (
        STRINGS if key in STRINGS else ASSIGNMENT_STRINGS if key in ASSIGNMENT_STRINGS else SHARED
    )
    return translate(table, key, language, **values)
