"""Interface strings in every supported language, and the choice of a user's language."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from bot.text_direction import prepare

SUPPORTED_LANGUAGES = ("en", "bn", "ur", "ru")
DEFAULT_LANGUAGE = "en"
LANGUAGE_NAMES = {"en": "English", "bn": "বাংলা", "ur": "اردو", "ru": "Русский"}

# A template, or for a string with a count its plural forms: CLDR category -> template.
Template = str | Mapping[str, str]

# key -> language -> template. Every key has all SUPPORTED_LANGUAGES (a test checks it).
# A string that counts something names the number ``count`` and gives the plural forms its
# language needs (see plural_category); t() picks the form, as gettext's ngettext does.
STRINGS: dict[str, dict[str, Template]] = {
    "correct": {"en": "✅ Correct", "bn": "✅ সঠিক", "ur": "✅ درست", "ru": "✅ Верно"},
    "wrong": {"en": "❌ Not quite", "bn": "❌ সঠিক নয়", "ur": "❌ درست نہیں", "ru": "❌ Неверно"},
    "question_progress": {
        "en": "Question {number}/{total}",
        "bn": "প্রশ্ন {number}/{total}",
        "ur": "سوال {number}/{total}",
        "ru": "Вопрос {number}/{total}",
    },
    "your_answer": {
        "en": "Your answer: {answer}",
        "bn": "আপনার উত্তর: {answer}",
        "ur": "آپ کا جواب: {answer}",
        "ru": "Ваш ответ: {answer}",
    },
    "correct_answer": {
        "en": "Correct answer: {answer}",
        "bn": "সঠিক উত্তর: {answer}",
        "ur": "درست جواب: {answer}",
        "ru": "Правильный ответ: {answer}",
    },
    "explanation": {"en": "Why", "bn": "ব্যাখ্যা", "ur": "وضاحت", "ru": "Пояснение"},
    "result_title": {
        "en": "Quiz finished: {title}",
        "bn": "কুইজ শেষ: {title}",
        "ur": "کوئز مکمل: {title}",
        "ru": "Тест завершён: {title}",
    },
    "score": {
        "en": "Score: {correct}/{total} ({percent}%)",
        "bn": "স্কোর: {correct}/{total} ({percent}%)",
        "ur": "اسکور: {correct}/{total} ({percent}%)",
        "ru": "Результат: {correct}/{total} ({percent}%)",
    },
    "retry": {
        "en": "🔁 Try again",
        "bn": "🔁 আবার চেষ্টা",
        "ur": "🔁 دوبارہ کوشش",
        "ru": "🔁 Ещё раз",
    },
    "other_quiz": {
        "en": "📚 Another quiz",
        "bn": "📚 অন্য কুইজ",
        "ur": "📚 دوسرا کوئز",
        "ru": "📚 Другой тест",
    },
    "resumed": {
        "en": "Welcome back: continuing where you stopped.",
        "bn": "আবার স্বাগতম: যেখানে থেমেছিলেন সেখান থেকে চলছে।",
        "ur": "خوش آمدید: جہاں آپ رکے تھے وہیں سے جاری ہے۔",
        "ru": "С возвращением: продолжаем с того места, где вы остановились.",
    },
    "already_answered": {
        "en": "You already answered this question.",
        "bn": "আপনি এই প্রশ্নের উত্তর আগেই দিয়েছেন।",
        "ur": "آپ اس سوال کا جواب پہلے ہی دے چکے ہیں۔",
        "ru": "Вы уже ответили на этот вопрос.",
    },
    "stale": {
        "en": "This question is no longer active.",
        "bn": "এই প্রশ্নটি আর সক্রিয় নেই।",
        "ur": "یہ سوال اب فعال نہیں ہے۔",
        "ru": "Этот вопрос уже неактуален.",
    },
    "invalid_button": {
        "en": "This button is no longer valid.",
        "bn": "এই বোতামটি আর কাজ করে না।",
        "ur": "یہ بٹن اب کارآمد نہیں ہے۔",
        "ru": "Эта кнопка больше не действует.",
    },
    "not_yours": {
        "en": "This quiz is {name}'s — send /quiz to start your own.",
        "bn": "এই কুইজটি {name}-এর — নিজের কুইজ শুরু করতে /quiz পাঠান।",
        "ur": "یہ کوئز {name} کا ہے — اپنا کوئز شروع کرنے کے لیے /quiz بھیجیں۔",
        "ru": "Это тест пользователя {name} — отправьте /quiz, чтобы начать свой.",
    },
    "unknown_quiz": {
        "en": 'There is no quiz "{quiz}". Available: {available}',
        "bn": '"{quiz}" নামে কোনো কুইজ নেই। আছে: {available}',
        "ur": '"{quiz}" نام کا کوئی کوئز نہیں ہے۔ دستیاب: {available}',
        "ru": "Теста «{quiz}» нет. Доступны: {available}",
    },
    "no_quizzes": {
        "en": "No quizzes are available right now.",
        "bn": "এখন কোনো কুইজ নেই।",
        "ur": "اس وقت کوئی کوئز دستیاب نہیں ہے۔",
        "ru": "Сейчас нет доступных тестов.",
    },
    "choose_quiz": {
        "en": "Choose a quiz:",
        "bn": "একটি কুইজ বেছে নিন:",
        "ur": "ایک کوئز منتخب کریں:",
        "ru": "Выберите тест:",
    },
    "quiz_summary": {
        "en": {"one": "{title} — {count} question", "other": "{title} — {count} questions"},
        "bn": {"one": "{title} — {count}টি প্রশ্ন", "other": "{title} — {count}টি প্রশ্ন"},
        "ur": {"one": "{title} — {count} سوال", "other": "{title} — {count} سوالات"},
        "ru": {
            "one": "{title} — {count} вопрос",
            "few": "{title} — {count} вопроса",
            "many": "{title} — {count} вопросов",
            "other": "{title} — {count} вопроса",
        },
    },
    "stopped": {
        "en": "Quiz stopped: {title}. Send /quiz to start again.",
        "bn": "কুইজ থামানো হয়েছে: {title}। আবার শুরু করতে /quiz পাঠান।",
        "ur": "کوئز روک دیا گیا: {title}۔ دوبارہ شروع کرنے کے لیے /quiz بھیجیں۔",
        "ru": "Тест остановлен: {title}. Отправьте /quiz, чтобы начать заново.",
    },
    "stop_confirm": {
        "en": "Stop {title}? Your answers so far stay in your history.",
        "bn": "{title} থামাবেন? এখন পর্যন্ত দেওয়া উত্তরগুলো ইতিহাসে থাকবে।",
        "ur": "{title} روک دیں؟ اب تک کے جوابات آپ کے ریکارڈ میں محفوظ رہیں گے۔",
        "ru": "Остановить «{title}»? Уже данные ответы останутся в истории.",
    },
    "stop_yes": {"en": "Stop", "bn": "থামান", "ur": "روکیں", "ru": "Остановить"},
    "stop_no": {"en": "Keep going", "bn": "চালিয়ে যান", "ur": "جاری رکھیں", "ru": "Продолжить"},
    "nothing_to_stop": {
        "en": "You have no quiz in progress.",
        "bn": "আপনার কোনো কুইজ চলছে না।",
        "ur": "آپ کا کوئی کوئز جاری نہیں ہے۔",
        "ru": "У вас нет начатого теста.",
    },
    "progress_title": {
        "en": "Your progress",
        "bn": "আপনার অগ্রগতি",
        "ur": "آپ کی پیش رفت",
        "ru": "Ваш прогресс",
    },
    "progress_line": {
        "en": {
            "one": "{title}: {count} attempt, best {best}/{total}, last {last}/{total}",
            "other": "{title}: {count} attempts, best {best}/{total}, last {last}/{total}",
        },
        "bn": {
            "one": "{title}: {count} বার, সেরা {best}/{total}, শেষ {last}/{total}",
            "other": "{title}: {count} বার, সেরা {best}/{total}, শেষ {last}/{total}",
        },
        "ur": {
            "one": "{title}: {count} کوشش، بہترین {best}/{total}، آخری {last}/{total}",
            "other": "{title}: {count} کوششیں، بہترین {best}/{total}، آخری {last}/{total}",
        },
        "ru": {
            "one": "{title}: {count} попытка, лучший {best}/{total}, последний {last}/{total}",
            "few": "{title}: {count} попытки, лучший {best}/{total}, последний {last}/{total}",
            "many": "{title}: {count} попыток, лучший {best}/{total}, последний {last}/{total}",
            "other": "{title}: {count} попытки, лучший {best}/{total}, последний {last}/{total}",
        },
    },
    "progress_in_progress": {
        "en": "{title}: in progress, {answered}/{total} answered",
        "bn": "{title}: চলছে, {answered}/{total}টির উত্তর দেওয়া হয়েছে",
        "ur": "{title}: جاری، {answered}/{total} کے جواب دیے گئے",
        "ru": "{title}: в процессе, отвечено {answered}/{total}",
    },
    "no_progress": {
        "en": "You have not taken a quiz yet. Send /quiz to start.",
        "bn": "আপনি এখনও কোনো কুইজ দেননি। শুরু করতে /quiz পাঠান।",
        "ur": "آپ نے ابھی تک کوئی کوئز نہیں دیا۔ شروع کرنے کے لیے /quiz بھیجیں۔",
        "ru": "Вы ещё не проходили тесты. Отправьте /quiz, чтобы начать.",
    },
    "choose_language": {
        "en": "Choose your language:",
        "bn": "আপনার ভাষা বেছে নিন:",
        "ur": "اپنی زبان منتخب کریں:",
        "ru": "Выберите язык:",
    },
    "language_set": {
        "en": "Language: English",
        "bn": "ভাষা: বাংলা",
        "ur": "زبان: اردو",
        "ru": "Язык: русский",
    },
    "welcome": {
        "en": "Hi! I run short quizzes with an explanation after every answer, "
        "and I remember your progress.",
        "bn": "হ্যালো! আমি ছোট কুইজ চালাই, প্রতিটি উত্তরের পরে ব্যাখ্যা দিই এবং আপনার অগ্রগতি মনে রাখি।",
        "ur": "السلام علیکم! میں مختصر کوئز کرواتا ہوں، ہر جواب کے بعد وضاحت دیتا ہوں "
        "اور آپ کی پیش رفت یاد رکھتا ہوں۔",
        "ru": "Привет! Я провожу короткие тесты с пояснением после каждого ответа "
        "и запоминаю ваш прогресс.",
    },
    "help": {
        "en": "/quiz — start or continue a quiz\n/progress — your scores\n"
        "/review — practise the questions you missed\n/remind — a daily reminder to review\n"
        "/timezone — your time zone\n/language — change the language\n"
        "/stop — stop the current quiz\n/help — this help",
        "bn": "/quiz — কুইজ শুরু বা চালিয়ে যান\n/progress — আপনার স্কোর\n"
        "/review — ভুল করা প্রশ্নগুলো আবার অনুশীলন করুন\n/remind — রিভিউয়ের দৈনিক রিমাইন্ডার\n"
        "/timezone — আপনার টাইম জোন\n/language — ভাষা বদলান\n"
        "/stop — চলতি কুইজ থামান\n/help — এই সাহায্য",
        "ur": "/quiz — کوئز شروع کریں یا جاری رکھیں\n/progress — آپ کے اسکور\n"
        "/review — غلط جوابات والے سوالات کی دوبارہ مشق\n/remind — دہرائی کی روزانہ یاددہانی\n"
        "/timezone — آپ کا ٹائم زون\n/language — زبان تبدیل کریں\n"
        "/stop — موجودہ کوئز روکیں\n/help — یہ مدد",
        "ru": "/quiz — начать или продолжить тест\n/progress — ваши результаты\n"
        "/review — повторить вопросы с ошибками\n/remind — ежедневное напоминание\n"
        "/timezone — ваш часовой пояс\n/language — сменить язык\n"
        "/stop — остановить текущий тест\n/help — эта справка",
    },
    "level_beginner": {"en": "Beginner", "bn": "প্রাথমিক", "ur": "ابتدائی", "ru": "Начальный"},
    "level_intermediate": {
        "en": "Intermediate",
        "bn": "মধ্যম",
        "ur": "درمیانہ",
        "ru": "Средний",
    },
    "level_advanced": {"en": "Advanced", "bn": "উন্নত", "ur": "اعلیٰ", "ru": "Продвинутый"},
    "answer_prompt": {
        "en": "Your answer ({letters}): ",
        "bn": "আপনার উত্তর ({letters}): ",
        "ur": "آپ کا جواب ({letters}): ",
        "ru": "Ваш ответ ({letters}): ",
    },
    "answer_hint": {
        "en": "Please type one of the letters {letters}.",
        "bn": "অনুগ্রহ করে {letters} অক্ষরগুলোর একটি লিখুন।",
        "ur": "براہ کرم {letters} میں سے ایک حرف لکھیں۔",
        "ru": "Введите одну из букв: {letters}.",
    },
    "review_started": {
        "en": {
            "one": "🔁 Review: {count} question to practise again.",
            "other": "🔁 Review: {count} questions to practise again.",
        },
        "bn": {
            "one": "🔁 রিভিউ: আবার অনুশীলনের জন্য {count}টি প্রশ্ন।",
            "other": "🔁 রিভিউ: আবার অনুশীলনের জন্য {count}টি প্রশ্ন।",
        },
        "ur": {
            "one": "🔁 دہرائی: دوبارہ مشق کے لیے {count} سوال۔",
            "other": "🔁 دہرائی: دوبارہ مشق کے لیے {count} سوالات۔",
        },
        "ru": {
            "one": "🔁 Повторение: {count} вопрос для практики.",
            "few": "🔁 Повторение: {count} вопроса для практики.",
            "many": "🔁 Повторение: {count} вопросов для практики.",
            "other": "🔁 Повторение: {count} вопроса для практики.",
        },
    },
    "review_empty": {
        "en": "Nothing to review yet: questions you miss in a quiz come back here.",
        "bn": "এখনও রিভিউ করার কিছু নেই: কুইজে ভুল করা প্রশ্নগুলো এখানে ফিরে আসবে।",
        "ur": "ابھی دہرانے کو کچھ نہیں: کوئز میں غلط ہونے والے سوال یہاں واپس آئیں گے۔",
        "ru": "Повторять пока нечего: вопросы, на которые вы ошиблись в тесте, появятся здесь.",
    },
    # -- reviews on FSRS, reminders, time zones (issue 22) ----------------------------------
    "review_next_at": {
        "en": "Nothing due now — next review: {when}.",
        "bn": "এখন রিভিউ করার কিছু নেই — পরের রিভিউ: {when}।",
        "ur": "ابھی دہرانے کو کچھ نہیں — اگلی دہرائی: {when}۔",
        "ru": "Сейчас повторять нечего — следующее повторение: {when}.",
    },
    "review_due": {
        "en": {
            "one": "🔁 {count} question to review.",
            "other": "🔁 {count} questions to review.",
        },
        "bn": {
            "one": "🔁 রিভিউ করার জন্য {count}টি প্রশ্ন অপেক্ষা করছে।",
            "other": "🔁 রিভিউ করার জন্য {count}টি প্রশ্ন অপেক্ষা করছে।",
        },
        "ur": {
            "one": "🔁 دہرانے کے لیے {count} سوال منتظر ہے۔",
            "other": "🔁 دہرانے کے لیے {count} سوالات منتظر ہیں۔",
        },
        "ru": {
            "one": "🔁 {count} вопрос ждёт повторения.",
            "few": "🔁 {count} вопроса ждут повторения.",
            "many": "🔁 {count} вопросов ждут повторения.",
            "other": "🔁 {count} вопроса ждут повторения.",
        },
    },
    "review_button": {
        "en": "🔁 Review now",
        "bn": "🔁 এখনই রিভিউ করুন",
        "ur": "🔁 ابھی دہرائیں",
        "ru": "🔁 Повторить сейчас",
    },
    "remind_set": {
        "en": "Done: on days when questions are due, I will message you at {time} ({zone}). "
        "Next check: {next}. /remind off turns it off.",
        "bn": "ঠিক আছে: যেদিন রিভিউ করার প্রশ্ন থাকবে, সেদিন {time}-এ ({zone}) আপনাকে বার্তা "
        "পাঠাব। পরের যাচাই: {next}। বন্ধ করতে /remind off পাঠান।",
        "ur": "ہو گیا: جس دن دہرانے کے لیے سوال ہوں گے، میں آپ کو {time} بجے ({zone}) پیغام "
        "بھیجوں گا۔ اگلی جانچ: {next}۔ بند کرنے کے لیے /remind off بھیجیں۔",
        "ru": "Готово: в дни, когда есть вопросы для повторения, я напишу вам в {time} ({zone}). "
        "Следующая проверка: {next}. Выключить: /remind off.",
    },
    "remind_current": {
        "en": "Review reminders: every day at {time} ({zone}) when questions are due. "
        "Next check: {next}. /remind off turns them off.",
        "bn": "রিভিউ রিমাইন্ডার: প্রশ্ন বাকি থাকলে প্রতিদিন {time}-এ ({zone})। পরের যাচাই: "
        "{next}। বন্ধ করতে /remind off পাঠান।",
        "ur": "دہرائی کی یاددہانی: جب سوال باقی ہوں، روزانہ {time} بجے ({zone})۔ اگلی جانچ: "
        "{next}۔ بند کرنے کے لیے /remind off بھیجیں۔",
        "ru": "Напоминания о повторении: каждый день в {time} ({zone}), если есть вопросы. "
        "Следующая проверка: {next}. Выключить: /remind off.",
    },
    "remind_none": {
        "en": "Review reminders are off. Turn them on with a time, for example /remind 08:00 "
        "(your time zone: {zone}).",
        "bn": "রিভিউ রিমাইন্ডার বন্ধ আছে। একটি সময় দিয়ে চালু করুন, যেমন /remind 08:00 "
        "(আপনার টাইম জোন: {zone})।",
        "ur": "دہرائی کی یاددہانی بند ہے۔ وقت کے ساتھ چالو کریں، مثلاً /remind 08:00 "
        "(آپ کا ٹائم زون: {zone})۔",
        "ru": "Напоминания о повторении выключены. Включите их, указав время, например "
        "/remind 08:00 (ваш часовой пояс: {zone}).",
    },
    "remind_off": {
        "en": "Review reminders are off.",
        "bn": "রিভিউ রিমাইন্ডার বন্ধ করা হয়েছে।",
        "ur": "دہرائی کی یاددہانی بند کر دی گئی۔",
        "ru": "Напоминания о повторении выключены.",
    },
    "remind_bad_time": {
        "en": "Please give the time as HH:MM, for example /remind 08:00 (or /remind off).",
        "bn": "সময়টি HH:MM আকারে দিন, যেমন /remind 08:00 (অথবা /remind off)।",
        "ur": "براہ کرم وقت HH:MM کی شکل میں دیں، مثلاً /remind 08:00 (یا /remind off)۔",
        "ru": "Укажите время в виде ЧЧ:ММ, например /remind 08:00 (или /remind off).",
    },
    "remind_private_only": {
        "en": "Review reminders come as private messages: send /remind to me in a private chat.",
        "bn": "রিভিউ রিমাইন্ডার ব্যক্তিগত বার্তায় আসে: আমাকে ব্যক্তিগত চ্যাটে /remind পাঠান।",
        "ur": "دہرائی کی یاددہانی نجی پیغام میں آتی ہے: مجھے نجی چیٹ میں /remind بھیجیں۔",
        "ru": "Напоминания приходят в личные сообщения: отправьте мне /remind в личном чате.",
    },
    "timezone_current_user": {
        "en": "Your time zone is {zone} (it is {time} there now). "
        "To change it: /timezone Europe/Berlin",
        "bn": "আপনার টাইম জোন {zone} (সেখানে এখন {time})। বদলাতে: /timezone Asia/Dhaka",
        "ur": "آپ کا ٹائم زون {zone} ہے (وہاں ابھی {time} ہیں)۔ تبدیل کرنے کے لیے: "
        "/timezone Asia/Karachi",
        "ru": "Ваш часовой пояс — {zone} (там сейчас {time}). Сменить: /timezone Europe/Moscow",
    },
    "timezone_current_chat": {
        "en": "This chat's time zone is {zone} (it is {time} there now). "
        "Admins change it with /timezone Europe/Berlin",
        "bn": "এই চ্যাটের টাইম জোন {zone} (সেখানে এখন {time})। অ্যাডমিনরা বদলাতে পারেন: "
        "/timezone Asia/Dhaka",
        "ur": "اس چیٹ کا ٹائم زون {zone} ہے (وہاں ابھی {time} ہیں)۔ ایڈمن اسے بدل سکتے ہیں: "
        "/timezone Asia/Karachi",
        "ru": "Часовой пояс этого чата — {zone} (там сейчас {time}). Администраторы меняют "
        "его так: /timezone Europe/Moscow",
    },
    "timezone_set_user": {
        "en": "Your time zone is now {zone} (it is {time} there).",
        "bn": "আপনার টাইম জোন এখন {zone} (সেখানে এখন {time})।",
        "ur": "آپ کا ٹائم زون اب {zone} ہے (وہاں ابھی {time} ہیں)۔",
        "ru": "Ваш часовой пояс теперь {zone} (там сейчас {time}).",
    },
    "timezone_set_chat": {
        "en": "This chat's time zone is now {zone} (it is {time} there).",
        "bn": "এই চ্যাটের টাইম জোন এখন {zone} (সেখানে এখন {time})।",
        "ur": "اس چیٹ کا ٹائم زون اب {zone} ہے (وہاں ابھی {time} ہیں)۔",
        "ru": "Часовой пояс этого чата теперь {zone} (там сейчас {time}).",
    },
    "timezone_unknown": {
        "en": "“{name}” is not a time zone I know. Use an IANA name, for example "
        "/timezone Europe/Berlin or /timezone Asia/Dhaka.",
        "bn": "“{name}” নামে কোনো টাইম জোন আমি চিনি না। IANA নাম ব্যবহার করুন, যেমন "
        "/timezone Asia/Dhaka বা /timezone Europe/Berlin।",
        "ur": "“{name}” کوئی ایسا ٹائم زون نہیں جسے میں جانتا ہوں۔ IANA نام استعمال کریں، مثلاً "
        "/timezone Asia/Karachi یا /timezone Europe/Berlin۔",
        "ru": "Часового пояса «{name}» я не знаю. Укажите название IANA, например "
        "/timezone Europe/Moscow или /timezone Asia/Dhaka.",
    },
    "timezone_admins_only": {
        "en": "Only this chat's admins can change its time zone.",
        "bn": "শুধু এই চ্যাটের অ্যাডমিনরাই এর টাইম জোন বদলাতে পারেন।",
        "ur": "اس چیٹ کا ٹائم زون صرف اس کے ایڈمن بدل سکتے ہیں۔",
        "ru": "Менять часовой пояс этого чата могут только его администраторы.",
    },
    "deadline_invalid": {
        "en": "I could not read that deadline. Use a date (2026-12-10), a date and time "
        "(2026-12-10 18:00) or a span (3d, 12h).",
        "bn": "সময়সীমাটি বুঝতে পারিনি। একটি তারিখ (2026-12-10), তারিখ ও সময় "
        "(2026-12-10 18:00) বা সময়কাল (3d, 12h) দিন।",
        "ur": "یہ آخری تاریخ سمجھ نہیں آئی۔ تاریخ (2026-12-10)، تاریخ اور وقت "
        "(2026-12-10 18:00) یا مدت (3d، 12h) لکھیں۔",
        "ru": "Не удалось разобрать срок. Укажите дату (2026-12-10), дату и время "
        "(2026-12-10 18:00) или промежуток (3d, 12h).",
    },
    "deadline_past": {
        "en": "That deadline has already passed.",
        "bn": "এই সময়সীমা ইতিমধ্যে পেরিয়ে গেছে।",
        "ur": "یہ آخری تاریخ گزر چکی ہے۔",
        "ru": "Этот срок уже прошёл.",
    },
    "deadline_too_far": {
        "en": "That deadline is more than a year away.",
        "bn": "এই সময়সীমা এক বছরেরও বেশি দূরে।",
        "ur": "یہ آخری تاریخ ایک سال سے زیادہ دور ہے۔",
        "ru": "Этот срок дальше чем через год.",
    },
    "cmd_timezone": {
        "en": "Your time zone (in a group: the chat's)",
        "bn": "আপনার টাইম জোন (গ্রুপে: চ্যাটের)",
        "ur": "آپ کا ٹائم زون (گروپ میں: چیٹ کا)",
        "ru": "Ваш часовой пояс (в группе: чата)",
    },
    "cmd_remind": {
        "en": "A daily reminder when reviews are due",
        "bn": "রিভিউ বাকি থাকলে প্রতিদিনের রিমাইন্ডার",
        "ur": "دہرائی باقی ہو تو روزانہ یاددہانی",
        "ru": "Ежедневное напоминание о повторении",
    },
    "round_started": {
        "en": "Group round! Everyone can answer; {seconds} s per question, first answer counts.",
        "bn": "গ্রুপ রাউন্ড! সবাই উত্তর দিতে পারেন; প্রতি প্রশ্নে {seconds} সেকেন্ড, প্রথম উত্তরই গণ্য।",
        "ur": "گروپ راؤنڈ! سب جواب دے سکتے ہیں؛ ہر سوال کے لیے {seconds} سیکنڈ، "
        "پہلا جواب ہی شمار ہوگا۔",
        "ru": "Групповой раунд! Отвечать могут все; {seconds} с на вопрос, "
        "засчитывается первый ответ.",
    },
    "round_running": {
        "en": "A round is already running in this chat.",
        "bn": "এই চ্যাটে একটি রাউন্ড ইতিমধ্যে চলছে।",
        "ur": "اس چیٹ میں ایک راؤنڈ پہلے سے جاری ہے۔",
        "ru": "В этом чате уже идёт раунд.",
    },
    "round_closed": {
        "en": "Time is up for this question.",
        "bn": "এই প্রশ্নের সময় শেষ।",
        "ur": "اس سوال کا وقت ختم ہو گیا۔",
        "ru": "Время на этот вопрос вышло.",
    },
    "round_not_open": {
        "en": "This question is not open yet.",
        "bn": "এই প্রশ্নটি এখনও খোলা হয়নি।",
        "ur": "یہ سوال ابھی کھلا نہیں ہے۔",
        "ru": "Этот вопрос ещё не открыт.",
    },
    "round_answer_taken": {
        "en": "Answer recorded — the reveal comes when time is up.",
        "bn": "উত্তর নেওয়া হয়েছে — সময় শেষ হলে সঠিক উত্তর দেখানো হবে।",
        "ur": "جواب محفوظ — وقت ختم ہونے پر درست جواب دکھایا جائے گا۔",
        "ru": "Ответ принят — правильный ответ покажем, когда выйдет время.",
    },
    "round_first_counts": {
        "en": "You already answered: your first answer counts.",
        "bn": "আপনি আগেই উত্তর দিয়েছেন: প্রথম উত্তরটিই গণ্য।",
        "ur": "آپ جواب دے چکے ہیں: پہلا جواب ہی شمار ہوگا۔",
        "ru": "Вы уже ответили: засчитывается первый ответ.",
    },
    "round_none": {
        "en": "No round is running in this chat.",
        "bn": "এই চ্যাটে কোনো রাউন্ড চলছে না।",
        "ur": "اس چیٹ میں کوئی راؤنڈ جاری نہیں ہے۔",
        "ru": "В этом чате сейчас нет раунда.",
    },
    "round_not_starter": {
        "en": "Only whoever started the round or a chat admin can stop it.",
        "bn": "যিনি রাউন্ড শুরু করেছেন তিনি বা চ্যাট অ্যাডমিনই শুধু এটি থামাতে পারেন।",
        "ur": "صرف راؤنڈ شروع کرنے والا یا چیٹ ایڈمن اسے روک سکتا ہے۔",
        "ru": "Остановить раунд может только тот, кто его начал, или администратор чата.",
    },
    "round_finished": {
        "en": "🏁 Round over: {title}",
        "bn": "🏁 রাউন্ড শেষ: {title}",
        "ur": "🏁 راؤنڈ ختم: {title}",
        "ru": "🏁 Раунд окончен: {title}",
    },
    "round_stopped": {
        "en": "⏹ Round stopped early: {title}",
        "bn": "⏹ রাউন্ড সময়ের আগেই থামানো হয়েছে: {title}",
        "ur": "⏹ راؤنڈ وقت سے پہلے روک دیا گیا: {title}",
        "ru": "⏹ Раунд остановлен досрочно: {title}",
    },
    "round_answers_count": {
        "en": "Answers: {count}",
        "bn": "উত্তর: {count}",
        "ur": "جوابات: {count}",
        "ru": "Ответов: {count}",
    },
    "round_time_left": {
        "en": "⏳ {seconds} s left",
        "bn": "⏳ আর {seconds} সেকেন্ড",
        "ur": "⏳ {seconds} سیکنڈ باقی",
        "ru": "⏳ осталось {seconds} с",
    },
    "scoreboard": {
        "en": "Scoreboard",
        "bn": "স্কোরবোর্ড",
        "ur": "اسکور بورڈ",
        "ru": "Таблица результатов",
    },
    "leaderboard_title": {
        "en": "🏆 Leaderboard: {title}",
        "bn": "🏆 লিডারবোর্ড: {title}",
        "ur": "🏆 لیڈر بورڈ: {title}",
        "ru": "🏆 Лучшие результаты: {title}",
    },
    "leaderboard_empty": {
        "en": "No completed attempts yet.",
        "bn": "এখনও কোনো চেষ্টা শেষ হয়নি।",
        "ur": "ابھی تک کوئی مکمل کوشش نہیں۔",
        "ru": "Пока нет завершённых попыток.",
    },
    "slow_down": {
        "en": "Too many commands at once — please wait a few seconds.",
        "bn": "একসাথে অনেক কমান্ড — কয়েক সেকেন্ড অপেক্ষা করুন।",
        "ur": "ایک ساتھ بہت زیادہ کمانڈز — براہ کرم چند سیکنڈ انتظار کریں۔",
        "ru": "Слишком много команд подряд — подождите несколько секунд.",
    },
    "try_again": {
        "en": "Could not save that just now — please press again.",
        "bn": "এই মুহূর্তে সংরক্ষণ করা গেল না — আবার চাপুন।",
        "ur": "ابھی محفوظ نہیں ہو سکا — براہ کرم دوبارہ دبائیں۔",
        "ru": "Не удалось сохранить — нажмите ещё раз.",
    },
    "saved_and_exit": {
        "en": "Progress saved. Run the same command again to continue.",
        "bn": "অগ্রগতি সংরক্ষিত হয়েছে। চালিয়ে যেতে একই কমান্ড আবার চালান।",
        "ur": "پیش رفت محفوظ ہو گئی۔ جاری رکھنے کے لیے یہی کمانڈ دوبارہ چلائیں۔",
        "ru": "Прогресс сохранён. Запустите ту же команду ещё раз, чтобы продолжить.",
    },
    # Shared by the chat platforms: command descriptions, admin reports, leaderboards.
    "cmd_help": {
        "en": "How to use the bot",
        "bn": "বট ব্যবহারের নিয়ম",
        "ur": "بوٹ استعمال کرنے کا طریقہ",
        "ru": "Как пользоваться ботом",
    },
    "cmd_leaderboard": {
        "en": "Best scores; week, month or all: most right answers",
        "bn": "সেরা স্কোর; week, month বা all: সবচেয়ে বেশি সঠিক উত্তর",
        "ur": "بہترین اسکور؛ week، month یا all: سب سے زیادہ درست جوابات",
        "ru": "Лучшие результаты; week, month или all: больше всех верных ответов",
    },
    "cmd_daily": {
        "en": "A question every day in this chat (admins set it)",
        "bn": "এই চ্যাটে প্রতিদিন একটি প্রশ্ন (অ্যাডমিনরা সেট করেন)",
        "ur": "اس چیٹ میں روزانہ ایک سوال (ایڈمن طے کرتے ہیں)",
        "ru": "Вопрос каждый день в этом чате (настраивают админы)",
    },
    "cmd_progress": {
        "en": "Your attempts and scores",
        "bn": "আপনার চেষ্টা ও স্কোর",
        "ur": "آپ کی کوششیں اور اسکور",
        "ru": "Ваши попытки и результаты",
    },
    "cmd_reload": {
        "en": "Publish the quiz files again (admins)",
        "bn": "কুইজ ফাইলগুলো আবার প্রকাশ করুন (অ্যাডমিন)",
        "ur": "کوئز فائلیں دوبارہ شائع کریں (ایڈمن)",
        "ru": "Заново опубликовать файлы тестов (админы)",
    },
    "cmd_review": {
        "en": "Practise the questions you missed",
        "bn": "ভুল করা প্রশ্নগুলো আবার অনুশীলন করুন",
        "ur": "غلط جوابات والے سوالات کی دوبارہ مشق",
        "ru": "Повторить вопросы с ошибками",
    },
    "cmd_quizzes": {
        "en": "Published quizzes: version, source, questions (admins)",
        "bn": "প্রকাশিত কুইজ: সংস্করণ, উৎস, প্রশ্ন (অ্যাডমিন)",
        "ur": "شائع شدہ کوئز: ورژن، ماخذ، سوالات (ایڈمن)",
        "ru": "Опубликованные тесты: версия, источник, вопросы (админы)",
    },
    "cmd_unpublish": {
        "en": "Unpublish a quiz (admins)",
        "bn": "একটি কুইজ অপ্রকাশিত করুন (অ্যাডমিন)",
        "ur": "کسی کوئز کی اشاعت ختم کریں (ایڈمن)",
        "ru": "Снять тест с публикации (админы)",
    },
    "cmd_stats": {
        "en": "Quiz statistics (admins)",
        "bn": "কুইজের পরিসংখ্যান (অ্যাডমিন)",
        "ur": "کوئز کے اعداد و شمار (ایڈمن)",
        "ru": "Статистика тестов (админы)",
    },
    "error": {
        "en": "Sorry, something went wrong. Please try again in a moment.",
        "bn": "দুঃখিত, কিছু একটা ভুল হয়েছে। একটু পরে আবার চেষ্টা করুন।",
        "ur": "معذرت، کچھ غلط ہو گیا۔ براہ کرم تھوڑی دیر بعد دوبارہ کوشش کریں۔",
        "ru": "Извините, что-то пошло не так. Попробуйте ещё раз чуть позже.",
    },
    "leaderboard_everyone": {
        "en": "all players",
        "bn": "সব খেলোয়াড়",
        "ur": "تمام کھلاڑی",
        "ru": "все игроки",
    },
    "leaderboard_here": {
        "en": "members of this chat",
        "bn": "এই চ্যাটের সদস্যরা",
        "ur": "اس چیٹ کے اراکین",
        "ru": "участники этого чата",
    },
    "reload_done": {
        "en": {
            "one": "🔄 Reloaded: {count} quiz live.",
            "other": "🔄 Reloaded: {count} quizzes live.",
        },
        "bn": {
            "one": "🔄 আবার লোড হয়েছে: {count}টি কুইজ চালু।",
            "other": "🔄 আবার লোড হয়েছে: {count}টি কুইজ চালু।",
        },
        "ur": {
            "one": "🔄 دوبارہ لوڈ ہو گیا: {count} کوئز فعال ہے۔",
            "other": "🔄 دوبارہ لوڈ ہو گیا: {count} کوئز فعال ہیں۔",
        },
        "ru": {
            "one": "🔄 Перезагружено: активен {count} тест.",
            "few": "🔄 Перезагружено: активны {count} теста.",
            "many": "🔄 Перезагружено: активны {count} тестов.",
            "other": "🔄 Перезагружено: активны {count} теста.",
        },
    },
    "reload_problems": {
        "en": "Problems ({count}); a broken file keeps its previous version live:",
        "bn": "সমস্যা ({count}); ত্রুটিপূর্ণ ফাইলের আগের সংস্করণই চালু থাকে:",
        "ur": "مسائل ({count})؛ خراب فائل کا پچھلا ورژن فعال رہتا ہے:",
        "ru": "Проблемы ({count}); у файла с ошибкой в работе остаётся прежняя версия:",
    },
    "round_choose": {
        "en": "Choose the quiz for the group round:",
        "bn": "গ্রুপ রাউন্ডের জন্য কুইজ বেছে নিন:",
        "ur": "گروپ راؤنڈ کے لیے کوئز منتخب کریں:",
        "ru": "Выберите тест для группового раунда:",
    },
    "round_more": {
        "en": "…and {count} more",
        "bn": "…এবং আরও {count} জন",
        "ur": "…اور {count} مزید",
        "ru": "…и ещё {count}",
    },
    "round_no_answers": {
        "en": "Nobody answered.",
        "bn": "কেউ উত্তর দেয়নি।",
        "ur": "کسی نے جواب نہیں دیا۔",
        "ru": "Никто не ответил.",
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
    "stats_summary": {
        "en": "Attempts: {attempts} · completed: {completed} · average score: {average}",
        "bn": "চেষ্টা: {attempts} · সম্পন্ন: {completed} · গড় স্কোর: {average}",
        "ur": "کوششیں: {attempts} · مکمل: {completed} · اوسط اسکور: {average}",
        "ru": "Попыток: {attempts} · завершено: {completed} · средний балл: {average}",
    },
    "unknown_command": {
        "en": "I don't know that command. /help lists what I can do.",
        "bn": "এই কমান্ডটি আমি চিনি না। আমি কী করতে পারি, তা /help দেখায়।",
        "ur": "میں یہ کمانڈ نہیں جانتا۔ میں کیا کر سکتا ہوں، یہ /help میں دیکھیں۔",
        "ru": "Я не знаю такой команды. Что я умею — в /help.",
    },
    "cmd_quiz": {
        "en": "Start or continue a quiz",
        "bn": "কুইজ শুরু করুন বা চালিয়ে যান",
        "ur": "کوئز شروع کریں یا جاری رکھیں",
        "ru": "Начать или продолжить тест",
    },
    "cmd_stop": {
        "en": "Stop the current quiz",
        "bn": "চলতি কুইজ থামান",
        "ur": "موجودہ کوئز روکیں",
        "ru": "Остановить текущий тест",
    },
    "reload_clean": {
        "en": "No problems found.",
        "bn": "কোনো সমস্যা পাওয়া যায়নি।",
        "ur": "کوئی مسئلہ نہیں ملا۔",
        "ru": "Проблем не найдено.",
    },
    "cmd_language": {
        "en": "Change the language (remembered)",
        "bn": "ভাষা বদলান (মনে রাখা হবে)",
        "ur": "زبان تبدیل کریں (یاد رکھی جائے گی)",
        "ru": "Сменить язык (запоминается)",
    },
    "stats_title": {
        "en": "📊 Quiz statistics",
        "bn": "📊 কুইজের পরিসংখ্যান",
        "ur": "📊 کوئز کے اعداد و شمار",
        "ru": "📊 Статистика тестов",
    },
}


def plural_category(language: str, n: int) -> str:
    """The CLDR cardinal plural category of the integer ``n`` in ``language``.

    English and Urdu: ``one`` for 1, else ``other``. Bengali: ``one`` for 0 and 1 (i = 0 or
    n = 1), else ``other``. Russian: ``one`` for 1, 21, 101... (but not 11), ``few`` for 2-4,
    22-24... (but not 12-14), ``many`` for the other integers (``other`` is for fractions).
    """
    n = abs(n)
    if language == "ru":
        if n % 10 == 1 and n % 100 != 11:
            return "one"
        if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
            return "few"
        return "many"
    if language == "bn":
        return "one" if n in (0, 1) else "other"
    return "one" if n == 1 else "other"  # en, ur, and the CLDR default


def plain(template: Template) -> str:
    """A template as one string: itself, or its ``other`` form when it has plural forms."""
    return template if isinstance(template, str) else template["other"]


def translate(
    table: Mapping[str, Mapping[str, Template]], key: str, language: str, **values: object
) -> str:
    """String ``key`` of ``table`` in ``language`` (English when missing), filled in and ready
    to display (right-to-left languages prepared). A string with plural forms takes the one
    for ``values["count"]`` in its language. Adapters pass their own tables."""
    by_language = table[key]
    shown = language if by_language.get(language) else DEFAULT_LANGUAGE
    template = by_language[shown]
    if not isinstance(template, str):
        count = values["count"]
        assert isinstance(count, int), f"{key} counts an integer 'count'"
        template = template.get(plural_category(shown, count)) or template["other"]
    text = template.format(**values) if values else template
    return prepare(text, language)


def t(key: str, language: str, **values: object) -> str:
    """The interface string ``key`` in ``language`` (English when missing), filled in; a
    string that counts takes the plural form for ``count``."""
    return translate(STRINGS, key, language, **values)


def match_language(tag: str | None, available: Iterable[str]) -> str | None:
    """The first of ``available`` that an IETF/POSIX tag such as ``ru-RU`` or ``ru_RU.UTF-8``
    names, trying the full tag before its primary subtag; None when nothing matches."""
    if not tag:
        return None
    normalized = tag.split(".")[0].split("@")[0].replace("_", "-").lower()
    options = [a.lower() for a in available]
    for candidate in (normalized, normalized.split("-")[0]):
        if candidate in options:
            return candidate
    return None


def resolve_language(
    chosen: str | None, platform_tag: str | None, available: Iterable[str], default: str
) -> str:
    """A user's language: their explicit choice, else the platform's tag, else ``default``."""
    options = list(available)
    return match_language(chosen, options) or match_language(platform_tag, options) or default
