"""Interface strings of the daily question, its streaks and the leaderboards over a period, in
every supported language.

A table of its own (looked up with :func:`bot.i18n.translate`), as typed answers and question
banks have, so these features add strings without touching the shared table; every key has
all of ``SUPPORTED_LANGUAGES`` (tested), and a string that counts has its language's plural
forms.
"""

from __future__ import annotations

from bot.i18n import Template, translate

DAILY_STRINGS: dict[str, dict[str, Template]] = {
    # -- /daily ---------------------------------------------------------------------------
    "daily_title": {
        "en": "☀️ Daily question",
        "bn": "☀️ দৈনিক প্রশ্ন",
        "ur": "☀️ روزانہ سوال",
        "ru": "☀️ Вопрос дня",
    },
    "daily_every_day": {
        "en": "Every day at {time} ({zone})",
        "bn": "প্রতিদিন {time}-এ ({zone})",
        "ur": "ہر روز {time} بجے ({zone})",
        "ru": "Каждый день в {time} ({zone})",
    },
    "daily_weekdays": {
        "en": "Monday to Friday at {time} ({zone})",
        "bn": "সোমবার থেকে শুক্রবার {time}-এ ({zone})",
        "ur": "پیر سے جمعہ تک {time} بجے ({zone})",
        "ru": "С понедельника по пятницу в {time} ({zone})",
    },
    "daily_from_all": {
        "en": "Questions from every quiz",
        "bn": "সব কুইজ থেকে প্রশ্ন",
        "ur": "تمام کوئزز سے سوالات",
        "ru": "Вопросы из всех тестов",
    },
    "daily_from": {
        "en": "Questions from: {titles}",
        "bn": "প্রশ্ন আসবে: {titles}",
        "ur": "سوالات ان سے: {titles}",
        "ru": "Вопросы из тестов: {titles}",
    },
    "daily_open_for": {
        "en": {
            "one": "Each question stays open {count} hour (until the next one at most)",
            "other": "Each question stays open {count} hours (until the next one at most)",
        },
        "bn": {
            "one": "প্রতিটি প্রশ্ন {count} ঘণ্টা খোলা থাকে (বড়জোর পরের প্রশ্ন পর্যন্ত)",
            "other": "প্রতিটি প্রশ্ন {count} ঘণ্টা খোলা থাকে (বড়জোর পরের প্রশ্ন পর্যন্ত)",
        },
        "ur": {
            "one": "ہر سوال {count} گھنٹہ کھلا رہتا ہے (زیادہ سے زیادہ اگلے سوال تک)",
            "other": "ہر سوال {count} گھنٹے کھلا رہتا ہے (زیادہ سے زیادہ اگلے سوال تک)",
        },
        "ru": {
            "one": "Каждый вопрос открыт {count} час (но не дольше, чем до следующего)",
            "few": "Каждый вопрос открыт {count} часа (но не дольше, чем до следующего)",
            "many": "Каждый вопрос открыт {count} часов (но не дольше, чем до следующего)",
            "other": "Каждый вопрос открыт {count} часа (но не дольше, чем до следующего)",
        },
    },
    "daily_open_minutes": {
        "en": {
            "one": "Each question stays open {count} minute",
            "other": "Each question stays open {count} minutes",
        },
        "bn": {
            "one": "প্রতিটি প্রশ্ন {count} মিনিট খোলা থাকে",
            "other": "প্রতিটি প্রশ্ন {count} মিনিট খোলা থাকে",
        },
        "ur": {
            "one": "ہر سوال {count} منٹ کھلا رہتا ہے",
            "other": "ہر سوال {count} منٹ کھلا رہتا ہے",
        },
        "ru": {
            "one": "Каждый вопрос открыт {count} минуту",
            "few": "Каждый вопрос открыт {count} минуты",
            "many": "Каждый вопрос открыт {count} минут",
            "other": "Каждый вопрос открыт {count} минуты",
        },
    },
    "daily_next": {
        "en": "Next question: {when}",
        "bn": "পরের প্রশ্ন: {when}",
        "ur": "اگلا سوال: {when}",
        "ru": "Следующий вопрос: {when}",
    },
    "daily_turned_on": {
        "en": "The daily question is on.",
        "bn": "দৈনিক প্রশ্ন চালু হয়েছে।",
        "ur": "روزانہ سوال شروع ہو گیا۔",
        "ru": "Вопрос дня включён.",
    },
    "daily_turned_off": {
        "en": "The daily question is off. Streaks and scores stay.",
        "bn": "দৈনিক প্রশ্ন বন্ধ করা হয়েছে। ধারাবাহিকতা ও স্কোর থেকে যাবে।",
        "ur": "روزانہ سوال بند کر دیا گیا۔ تسلسل اور اسکور محفوظ رہیں گے۔",
        "ru": "Вопрос дня выключен. Серии и результаты сохраняются.",
    },
    "daily_none": {
        "en": "No daily question here. A chat admin turns it on with /daily 09:00 "
        "(add weekdays for Monday to Friday only, and quiz names to choose the quizzes).",
        "bn": "এখানে দৈনিক প্রশ্ন চালু নেই। চ্যাট অ্যাডমিন /daily 09:00 দিয়ে এটি চালু করতে পারেন "
        "(শুধু সোম থেকে শুক্র চাইলে weekdays যোগ করুন, আর নির্দিষ্ট কুইজের জন্য তাদের নাম)।",
        "ur": "یہاں روزانہ سوال بند ہے۔ چیٹ ایڈمن /daily 09:00 سے اسے شروع کر سکتا ہے "
        "(صرف پیر سے جمعہ کے لیے weekdays لکھیں، اور مخصوص کوئزز کے لیے ان کے نام)۔",
        "ru": "Вопроса дня здесь нет. Администратор чата включает его командой /daily 09:00 "
        "(добавьте weekdays, чтобы только по будням, и названия тестов, чтобы выбрать их).",
    },
    "daily_admins_only": {
        "en": "Only a chat admin can change the daily question.",
        "bn": "শুধু চ্যাট অ্যাডমিনই দৈনিক প্রশ্ন বদলাতে পারেন।",
        "ur": "روزانہ سوال صرف چیٹ ایڈمن بدل سکتا ہے۔",
        "ru": "Менять вопрос дня может только администратор чата.",
    },
    "daily_bad_time": {
        "en": "Give the time as HH:MM, for example /daily 09:00 or /daily 18:30 weekdays "
        "(and /daily off to stop).",
        "bn": "সময় HH:MM আকারে দিন, যেমন /daily 09:00 বা /daily 18:30 weekdays "
        "(বন্ধ করতে /daily off)।",
        "ur": "وقت HH:MM کی صورت میں لکھیں، مثلاً /daily 09:00 یا /daily 18:30 weekdays "
        "(بند کرنے کے لیے /daily off)۔",
        "ru": "Укажите время в виде ЧЧ:ММ, например /daily 09:00 или /daily 18:30 weekdays "
        "(а /daily off — выключить).",
    },
    "daily_bad_window": {
        "en": "A question can stay open from 10 minutes to 24 hours, for example 6h or 90m.",
        "bn": "একটি প্রশ্ন ১০ মিনিট থেকে ২৪ ঘণ্টা পর্যন্ত খোলা থাকতে পারে, যেমন 6h বা 90m।",
        "ur": "سوال 10 منٹ سے 24 گھنٹے تک کھلا رہ سکتا ہے، مثلاً 6h یا 90m۔",
        "ru": "Вопрос может быть открыт от 10 минут до 24 часов, например 6h или 90m.",
    },
    "daily_no_questions": {
        "en": "Those quizzes have no questions a chat can answer with buttons.",
        "bn": "এই কুইজগুলোতে বোতাম দিয়ে উত্তর দেওয়ার মতো কোনো প্রশ্ন নেই।",
        "ur": "ان کوئزز میں ایسا کوئی سوال نہیں جس کا جواب بٹن سے دیا جا سکے۔",
        "ru": "В этих тестах нет вопросов, на которые чат может ответить кнопками.",
    },
    "daily_group_only": {
        "en": "The daily question is for groups: add me to a group and send /daily 09:00 there.",
        "bn": "দৈনিক প্রশ্ন গ্রুপের জন্য: আমাকে একটি গ্রুপে যোগ করুন এবং সেখানে /daily 09:00 পাঠান।",
        "ur": "روزانہ سوال گروپس کے لیے ہے: مجھے کسی گروپ میں شامل کریں "
        "اور وہاں /daily 09:00 بھیجیں۔",
        "ru": "Вопрос дня — для групп: добавьте меня в группу и отправьте там /daily 09:00.",
    },
    # -- the question and its reveal -------------------------------------------------------
    "daily_open_until": {
        "en": "🕘 Open until {time}",
        "bn": "🕘 {time} পর্যন্ত খোলা",
        "ur": "🕘 {time} تک کھلا ہے",
        "ru": "🕘 Открыт до {time}",
    },
    "daily_reveal": {
        "en": "📣 Daily question: the answer",
        "bn": "📣 দৈনিক প্রশ্ন: সঠিক উত্তর",
        "ur": "📣 روزانہ سوال: درست جواب",
        "ru": "📣 Вопрос дня: ответ",
    },
    "daily_right": {
        "en": {"one": "{count} got it right:", "other": "{count} got it right:"},
        "bn": {"one": "{count} জন সঠিক উত্তর দিয়েছেন:", "other": "{count} জন সঠিক উত্তর দিয়েছেন:"},
        "ur": {"one": "{count} نے درست جواب دیا:", "other": "{count} نے درست جواب دیا:"},
        "ru": {
            "one": "Верно ответил {count} участник:",
            "few": "Верно ответили {count} участника:",
            "many": "Верно ответили {count} участников:",
            "other": "Верно ответили {count} участника:",
        },
    },
    "daily_nobody_right": {
        "en": "Nobody got it right this time.",
        "bn": "এবার কেউ সঠিক উত্তর দেননি।",
        "ur": "اس بار کسی نے درست جواب نہیں دیا۔",
        "ru": "В этот раз никто не ответил верно.",
    },
    # -- streaks ---------------------------------------------------------------------------
    "streak_right": {
        "en": {"one": "🔥 {count} right in a row", "other": "🔥 {count} right in a row"},
        "bn": {"one": "🔥 টানা {count}টি সঠিক", "other": "🔥 টানা {count}টি সঠিক"},
        "ur": {"one": "🔥 مسلسل {count} درست", "other": "🔥 مسلسل {count} درست"},
        "ru": {
            "one": "🔥 {count} верный ответ подряд",
            "few": "🔥 {count} верных ответа подряд",
            "many": "🔥 {count} верных ответов подряд",
            "other": "🔥 {count} верного ответа подряд",
        },
    },
    "streak_answered": {
        "en": {"one": "answered {count} day in a row", "other": "answered {count} days in a row"},
        "bn": {"one": "টানা {count} দিন উত্তর দিয়েছেন", "other": "টানা {count} দিন উত্তর দিয়েছেন"},
        "ur": {"one": "مسلسل {count} دن جواب دیا", "other": "مسلسل {count} دن جواب دیا"},
        "ru": {
            "one": "отвечает {count} день подряд",
            "few": "отвечает {count} дня подряд",
            "many": "отвечает {count} дней подряд",
            "other": "отвечает {count} дня подряд",
        },
    },
    "streaks_title": {
        "en": "Daily question streaks",
        "bn": "দৈনিক প্রশ্নের ধারাবাহিকতা",
        "ur": "روزانہ سوال کا تسلسل",
        "ru": "Серии в вопросе дня",
    },
    "streaks_this_chat": {
        "en": "this chat",
        "bn": "এই চ্যাট",
        "ur": "یہ چیٹ",
        "ru": "этот чат",
    },
    # -- leaderboards over a period --------------------------------------------------------
    "period_week": {
        "en": "🏆 This week's leaderboard",
        "bn": "🏆 এই সপ্তাহের লিডারবোর্ড",
        "ur": "🏆 اس ہفتے کا لیڈر بورڈ",
        "ru": "🏆 Лучшие за неделю",
    },
    "period_month": {
        "en": "🏆 This month's leaderboard",
        "bn": "🏆 এই মাসের লিডারবোর্ড",
        "ur": "🏆 اس مہینے کا لیڈر بورڈ",
        "ru": "🏆 Лучшие за месяц",
    },
    "period_all": {
        "en": "🏆 All-time leaderboard",
        "bn": "🏆 সর্বকালের লিডারবোর্ড",
        "ur": "🏆 ہمہ وقتی لیڈر بورڈ",
        "ru": "🏆 Лучшие за всё время",
    },
    "period_since": {
        "en": "since {when}",
        "bn": "{when} থেকে",
        "ur": "{when} سے",
        "ru": "с {when}",
    },
    "period_quiz": {
        "en": "Quiz: {title}",
        "bn": "কুইজ: {title}",
        "ur": "کوئز: {title}",
        "ru": "Тест: {title}",
    },
    "period_score": {
        "en": {"one": "{count} right of {answered}", "other": "{count} right of {answered}"},
        "bn": {
            "one": "{answered}টির মধ্যে {count}টি সঠিক",
            "other": "{answered}টির মধ্যে {count}টি সঠিক",
        },
        "ur": {"one": "{answered} میں سے {count} درست", "other": "{answered} میں سے {count} درست"},
        "ru": {
            "one": "{count} верный из {answered}",
            "few": "{count} верных из {answered}",
            "many": "{count} верных из {answered}",
            "other": "{count} верного из {answered}",
        },
    },
    "period_empty": {
        "en": "Nobody has answered a question in this period yet.",
        "bn": "এই সময়ে এখনও কেউ কোনো প্রশ্নের উত্তর দেননি।",
        "ur": "اس مدت میں ابھی تک کسی نے کسی سوال کا جواب نہیں دیا۔",
        "ru": "За этот период пока никто не ответил ни на один вопрос.",
    },
    "period_unknown": {
        "en": "Choose the period: /leaderboard week, /leaderboard month or /leaderboard all "
        "(a quiz name after it shows that quiz only).",
        "bn": "সময়কাল বেছে নিন: /leaderboard week, /leaderboard month বা /leaderboard all "
        "(এরপর কুইজের নাম দিলে শুধু সেই কুইজ দেখাবে)।",
        "ur": "مدت منتخب کریں: /leaderboard week، /leaderboard month یا /leaderboard all "
        "(اس کے بعد کوئز کا نام لکھیں تو صرف وہی کوئز دکھے گا)۔",
        "ru": "Выберите период: /leaderboard week, /leaderboard month или /leaderboard all "
        "(название теста после него покажет только этот тест).",
    },
}


def daily_t(key: str, language: str, **values: object) -> str:
    """String ``key`` of :data:`DAILY_STRINGS` in ``language``, filled in."""
    return translate(DAILY_STRINGS, key, language, **values)
