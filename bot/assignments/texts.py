"""Interface strings of assignments, in every supported language.

A table of its own (looked up with :func:`bot.i18n.translate`), as question banks and typed
answers have, so that assignments add strings without touching the shared table; every key
has all of ``SUPPORTED_LANGUAGES`` and every plural form its language needs (tested).
"""

from __future__ import annotations

from bot.i18n import Template, translate

ASSIGNMENT_STRINGS: dict[str, dict[str, Template]] = {
    # Command descriptions (Discord shows at most 100 characters; Telegram's menu too).
    "cmd_assign": {
        "en": "Set this chat a quiz with a deadline, or cancel one (admins)",
        "bn": "এই চ্যাটকে ডেডলাইনসহ একটি কুইজ দিন বা বাতিল করুন (অ্যাডমিন)",
        "ur": "اس چیٹ کو ڈیڈ لائن کے ساتھ کوئز دیں یا منسوخ کریں (ایڈمن)",
        "ru": "Задать чату тест со сроком или отменить задание (админы)",
    },
    "cmd_assign_set": {
        "en": "Set this channel a quiz to take by a deadline",
        "bn": "এই চ্যানেলকে ডেডলাইনের মধ্যে দেওয়ার জন্য একটি কুইজ দিন",
        "ur": "اس چینل کو ڈیڈ لائن تک دینے کے لیے ایک کوئز دیں",
        "ru": "Задать каналу тест, который нужно пройти к сроку",
    },
    "cmd_assign_cancel": {
        "en": "Cancel an assignment and its reminders",
        "bn": "একটি অ্যাসাইনমেন্ট ও তার রিমাইন্ডার বাতিল করুন",
        "ur": "ایک اسائنمنٹ اور اس کی یاد دہانیاں منسوخ کریں",
        "ru": "Отменить задание и напоминания о нём",
    },
    "cmd_assign_deadline": {
        "en": "2026-12-10, 2026-12-10 18:00, 3d or 12h (this chat's time zone)",
        "bn": "2026-12-10, 2026-12-10 18:00, 3d বা 12h (এই চ্যাটের সময় অঞ্চল)",
        "ur": "2026-12-10، 2026-12-10 18:00، 3d یا 12h (اس چیٹ کا ٹائم زون)",
        "ru": "2026-12-10, 2026-12-10 18:00, 3d или 12h (часовой пояс этого чата)",
    },
    "cmd_assign_id": {
        "en": "The assignment's number (see /assignments)",
        "bn": "অ্যাসাইনমেন্টের নম্বর (/assignments দেখুন)",
        "ur": "اسائنمنٹ کا نمبر (/assignments دیکھیں)",
        "ru": "Номер задания (см. /assignments)",
    },
    "cmd_assignments": {
        "en": "The open assignments of this chat",
        "bn": "এই চ্যাটের খোলা অ্যাসাইনমেন্ট",
        "ur": "اس چیٹ کی کھلی اسائنمنٹس",
        "ru": "Открытые задания этого чата",
    },
    "cmd_report": {
        "en": "Who did the assignments, with scores, a CSV and a chart (admins)",
        "bn": "কে অ্যাসাইনমেন্ট করেছেন, স্কোর, CSV ও চার্টসহ (অ্যাডমিন)",
        "ur": "کس نے اسائنمنٹس کیں، اسکور، CSV اور چارٹ کے ساتھ (ایڈمن)",
        "ru": "Кто выполнил задания: результаты, CSV и график (админы)",
    },
    "cmd_report_which": {
        "en": "One quiz's assignments, or one assignment's number",
        "bn": "একটি কুইজের অ্যাসাইনমেন্ট, বা একটি অ্যাসাইনমেন্টের নম্বর",
        "ur": "ایک کوئز کی اسائنمنٹس، یا ایک اسائنمنٹ کا نمبر",
        "ru": "Задания по одному тесту или номер одного задания",
    },
    "assign_usage": {
        "en": "Set an assignment: /assign QUIZ DEADLINE, the deadline as 2026-12-10, "
        "2026-12-10 18:00, 3d or 12h (this chat's time, {zone}). /assign cancel ID cancels "
        "one; /assignments lists the open ones.",
        "bn": "অ্যাসাইনমেন্ট দিতে: /assign QUIZ DEADLINE, ডেডলাইন যেমন 2026-12-10, "
        "2026-12-10 18:00, 3d বা 12h (এই চ্যাটের সময়, {zone})। বাতিল করতে /assign cancel ID; "
        "খোলা অ্যাসাইনমেন্টের তালিকা /assignments।",
        "ur": "اسائنمنٹ دینے کے لیے: /assign QUIZ DEADLINE، ڈیڈ لائن جیسے 2026-12-10، "
        "2026-12-10 18:00، 3d یا 12h (اس چیٹ کا وقت، {zone})۔ منسوخ کرنے کے لیے "
        "/assign cancel ID؛ کھلی اسائنمنٹس کی فہرست /assignments۔",
        "ru": "Задание: /assign ТЕСТ СРОК, срок в виде 2026-12-10, 2026-12-10 18:00, 3d или "
        "12h (время этого чата, {zone}). /assign cancel ID отменяет задание, /assignments "
        "показывает открытые.",
    },
    "assign_admins_only": {
        "en": "Only this chat's admins can set or cancel assignments.",
        "bn": "শুধু এই চ্যাটের অ্যাডমিনরা অ্যাসাইনমেন্ট দিতে বা বাতিল করতে পারেন।",
        "ur": "صرف اس چیٹ کے ایڈمن اسائنمنٹ دے یا منسوخ کر سکتے ہیں۔",
        "ru": "Задавать и отменять задания могут только администраторы этого чата.",
    },
    "report_admins_only": {
        "en": "Only this chat's admins can read its assignment reports.",
        "bn": "শুধু এই চ্যাটের অ্যাডমিনরা এর অ্যাসাইনমেন্ট রিপোর্ট দেখতে পারেন।",
        "ur": "اس چیٹ کی اسائنمنٹ رپورٹس صرف اس کے ایڈمن دیکھ سکتے ہیں۔",
        "ru": "Отчёты по заданиям этого чата доступны только его администраторам.",
    },
    "assign_group_only": {
        "en": "Assignments are set for a group: send /assign in the group whose members "
        "should take the quiz.",
        "bn": "অ্যাসাইনমেন্ট একটি গ্রুপের জন্য দেওয়া হয়: যে গ্রুপের সদস্যদের কুইজটি দিতে হবে, "
        "সেখানে /assign পাঠান।",
        "ur": "اسائنمنٹ کسی گروپ کے لیے دی جاتی ہے: جس گروپ کے اراکین کو کوئز دینا ہے، "
        "وہاں /assign بھیجیں۔",
        "ru": "Задания задаются группе: отправьте /assign в той группе, участники которой "
        "должны пройти тест.",
    },
    "assign_bad_deadline": {
        "en": "“{text}” is not a deadline I understand. Examples: 2026-12-10, "
        "2026-12-10 18:00, 3d (in three days), 12h (in twelve hours).",
        "bn": "“{text}” ডেডলাইন হিসেবে বুঝতে পারিনি। উদাহরণ: 2026-12-10, 2026-12-10 18:00, "
        "3d (তিন দিন পরে), 12h (বারো ঘণ্টা পরে)।",
        "ur": "“{text}” ڈیڈ لائن کے طور پر سمجھ نہیں آئی۔ مثالیں: 2026-12-10، "
        "2026-12-10 18:00، 3d (تین دن بعد)، 12h (بارہ گھنٹے بعد)۔",
        "ru": "Не понимаю срок «{text}». Примеры: 2026-12-10, 2026-12-10 18:00, 3d (через "
        "три дня), 12h (через двенадцать часов).",
    },
    "assign_past_deadline": {
        "en": "The deadline “{text}” has already passed: give a later one.",
        "bn": "ডেডলাইন “{text}” ইতিমধ্যে পেরিয়ে গেছে: পরের কোনো সময় দিন।",
        "ur": "ڈیڈ لائن “{text}” گزر چکی ہے: بعد کا کوئی وقت دیں۔",
        "ru": "Срок «{text}» уже прошёл: укажите более поздний.",
    },
    "assign_far_deadline": {
        "en": "The deadline “{text}” is more than a year away: give a nearer one.",
        "bn": "ডেডলাইন “{text}” এক বছরেরও বেশি দূরে: আরও কাছের কোনো সময় দিন।",
        "ur": "ڈیڈ لائن “{text}” ایک سال سے زیادہ دور ہے: قریب کا کوئی وقت دیں۔",
        "ru": "Срок «{text}» дальше чем через год: укажите более близкий.",
    },
    "assignment_title": {
        "en": "📝 Assignment #{id}: {title}",
        "bn": "📝 অ্যাসাইনমেন্ট #{id}: {title}",
        "ur": "📝 اسائنمنٹ #{id}: {title}",
        "ru": "📝 Задание #{id}: {title}",
    },
    "assignment_questions": {
        "en": {"one": "{count} question", "other": "{count} questions"},
        "bn": {"one": "{count}টি প্রশ্ন", "other": "{count}টি প্রশ্ন"},
        "ur": {"one": "{count} سوال", "other": "{count} سوالات"},
        "ru": {
            "one": "{count} вопрос",
            "few": "{count} вопроса",
            "many": "{count} вопросов",
            "other": "{count} вопроса",
        },
    },
    "assignment_due": {
        "en": "⏰ Due {deadline}",
        "bn": "⏰ শেষ সময় {deadline}",
        "ur": "⏰ آخری وقت {deadline}",
        "ru": "⏰ Срок: {deadline}",
    },
    "assignment_hint_private": {
        "en": "Press Start: the quiz opens in your private chat with me.",
        "bn": "‘শুরু করুন’ চাপুন: কুইজটি আমার সঙ্গে আপনার ব্যক্তিগত চ্যাটে খুলবে।",
        "ur": "‘شروع کریں’ دبائیں: کوئز میرے ساتھ آپ کی نجی چیٹ میں کھلے گا۔",
        "ru": "Нажмите «Начать»: тест откроется в вашем личном чате со мной.",
    },
    "assignment_hint_here": {
        "en": "Press Start: the quiz opens here, for your eyes only.",
        "bn": "‘শুরু করুন’ চাপুন: কুইজটি এখানেই খুলবে, শুধু আপনি দেখতে পাবেন।",
        "ur": "‘شروع کریں’ دبائیں: کوئز یہیں کھلے گا، صرف آپ کو دکھائی دے گا۔",
        "ru": "Нажмите «Начать»: тест откроется здесь, и видеть его будете только вы.",
    },
    "assignment_start": {
        "en": "▶ Start",
        "bn": "▶ শুরু করুন",
        "ur": "▶ شروع کریں",
        "ru": "▶ Начать",
    },
    "assignment_continue": {
        "en": "▶ Continue",
        "bn": "▶ চালিয়ে যান",
        "ur": "▶ جاری رکھیں",
        "ru": "▶ Продолжить",
    },
    "assignment_intro": {
        "en": "📝 Assignment #{id}: {title} — due {deadline}.",
        "bn": "📝 অ্যাসাইনমেন্ট #{id}: {title} — শেষ সময় {deadline}।",
        "ur": "📝 اسائنمنٹ #{id}: {title} — آخری وقت {deadline}۔",
        "ru": "📝 Задание #{id}: {title} — срок {deadline}.",
    },
    "assignment_late": {
        "en": "The deadline has passed: your answers still count, marked as late.",
        "bn": "ডেডলাইন পেরিয়ে গেছে: আপনার উত্তর তবুও গোনা হবে, দেরি হিসেবে চিহ্নিত হয়ে।",
        "ur": "ڈیڈ لائن گزر چکی ہے: آپ کے جوابات پھر بھی شمار ہوں گے، تاخیر کے نشان کے ساتھ۔",
        "ru": "Срок прошёл: ответы всё равно засчитаются, но с пометкой «с опозданием».",
    },
    "assignment_sent_private": {
        "en": "📬 Your quiz is in our private chat.",
        "bn": "📬 আপনার কুইজ আমাদের ব্যক্তিগত চ্যাটে আছে।",
        "ur": "📬 آپ کا کوئز ہماری نجی چیٹ میں ہے۔",
        "ru": "📬 Тест ждёт вас в нашем личном чате.",
    },
    "assignment_open_private": {
        "en": "I cannot write to you until you start a chat with me: open it (press Start "
        "there) and your quiz begins.",
        "bn": "আপনি আমার সঙ্গে চ্যাট শুরু না করা পর্যন্ত আমি লিখতে পারি না: চ্যাটটি খুলুন "
        "(সেখানে Start চাপুন), কুইজ শুরু হবে।",
        "ur": "جب تک آپ میرے ساتھ چیٹ شروع نہ کریں، میں آپ کو لکھ نہیں سکتا: چیٹ کھولیں "
        "(وہاں Start دبائیں) اور آپ کا کوئز شروع ہو جائے گا۔",
        "ru": "Я не могу вам написать, пока вы не начнёте чат со мной: откройте его "
        "(нажмите там «Запустить»), и тест начнётся.",
    },
    "assignment_unknown": {
        "en": "There is no assignment #{id} here. /assignments lists the open ones.",
        "bn": "এখানে #{id} নম্বর অ্যাসাইনমেন্ট নেই। খোলা অ্যাসাইনমেন্টের তালিকা /assignments।",
        "ur": "یہاں اسائنمنٹ #{id} نہیں ہے۔ کھلی اسائنمنٹس کی فہرست /assignments۔",
        "ru": "Здесь нет задания #{id}. Открытые задания показывает /assignments.",
    },
    "assignment_cancelled": {
        "en": "Assignment #{id} ({title}) is cancelled: no more reminders for it.",
        "bn": "অ্যাসাইনমেন্ট #{id} ({title}) বাতিল হয়েছে: এর জন্য আর কোনো রিমাইন্ডার যাবে না।",
        "ur": "اسائنمنٹ #{id} ({title}) منسوخ کر دی گئی: اس کی مزید یاد دہانیاں نہیں آئیں گی۔",
        "ru": "Задание #{id} ({title}) отменено: напоминаний по нему больше не будет.",
    },
    "assignment_was_cancelled": {
        "en": "Assignment #{id} was cancelled.",
        "bn": "অ্যাসাইনমেন্ট #{id} বাতিল করা হয়েছে।",
        "ur": "اسائنمنٹ #{id} منسوخ کر دی گئی تھی۔",
        "ru": "Задание #{id} отменено.",
    },
    "assignments_none": {
        "en": "No open assignments here.",
        "bn": "এখানে কোনো খোলা অ্যাসাইনমেন্ট নেই।",
        "ur": "یہاں کوئی کھلی اسائنمنٹ نہیں ہے۔",
        "ru": "Открытых заданий здесь нет.",
    },
    "assignments_heading": {
        "en": "📝 Open assignments",
        "bn": "📝 খোলা অ্যাসাইনমেন্ট",
        "ur": "📝 کھلی اسائنمنٹس",
        "ru": "📝 Открытые задания",
    },
    "assignments_line": {
        "en": "#{id} {title} — due {deadline}",
        "bn": "#{id} {title} — শেষ সময় {deadline}",
        "ur": "#{id} {title} — آخری وقت {deadline}",
        "ru": "#{id} {title} — срок {deadline}",
    },
    "report_heading": {
        "en": "📊 Report · assignment #{id}: {title}",
        "bn": "📊 রিপোর্ট · অ্যাসাইনমেন্ট #{id}: {title}",
        "ur": "📊 رپورٹ · اسائنمنٹ #{id}: {title}",
        "ru": "📊 Отчёт · задание #{id}: {title}",
    },
    "report_due": {
        "en": "Due {deadline}",
        "bn": "শেষ সময় {deadline}",
        "ur": "آخری وقت {deadline}",
        "ru": "Срок: {deadline}",
    },
    "report_was_due": {
        "en": "Was due {deadline} (closed)",
        "bn": "শেষ সময় ছিল {deadline} (বন্ধ)",
        "ur": "آخری وقت تھا {deadline} (بند)",
        "ru": "Срок был {deadline} (закрыто)",
    },
    "report_cancelled": {
        "en": "Cancelled",
        "bn": "বাতিল",
        "ur": "منسوخ",
        "ru": "Отменено",
    },
    "report_done": {
        "en": "✅ {name} — {correct}/{total} · ⏱ {time}",
        "bn": "✅ {name} — {correct}/{total} · ⏱ {time}",
        "ur": "✅ {name} — {correct}/{total} · ⏱ {time}",
        "ru": "✅ {name} — {correct}/{total} · ⏱ {time}",
    },
    "report_late": {
        "en": "⌛ {name} — late: {correct}/{total} · ⏱ {time}",
        "bn": "⌛ {name} — দেরিতে: {correct}/{total} · ⏱ {time}",
        "ur": "⌛ {name} — تاخیر سے: {correct}/{total} · ⏱ {time}",
        "ru": "⌛ {name} — с опозданием: {correct}/{total} · ⏱ {time}",
    },
    "report_in_progress": {
        "en": "⏳ {name} — in progress {answered}/{total}",
        "bn": "⏳ {name} — চলছে {answered}/{total}",
        "ur": "⏳ {name} — جاری {answered}/{total}",
        "ru": "⏳ {name} — в процессе {answered}/{total}",
    },
    "report_nobody": {
        "en": "Nobody has started it yet.",
        "bn": "এখনও কেউ শুরু করেননি।",
        "ur": "ابھی تک کسی نے شروع نہیں کیا۔",
        "ru": "Пока никто не начал.",
    },
    "report_not_started": {
        "en": {
            "one": "{count} of the {known} members I know here has not started.",
            "other": "{count} of the {known} members I know here have not started.",
        },
        "bn": {
            "one": "এখানে আমার চেনা {known} জন সদস্যের মধ্যে {count} জন শুরু করেননি।",
            "other": "এখানে আমার চেনা {known} জন সদস্যের মধ্যে {count} জন শুরু করেননি।",
        },
        "ur": {
            "one": "یہاں میرے معلوم {known} اراکین میں سے {count} نے شروع نہیں کیا۔",
            "other": "یہاں میرے معلوم {known} اراکین میں سے {count} نے شروع نہیں کیا۔",
        },
        "ru": {
            "one": "{count} из {known} знакомых мне участников чата ещё не начал.",
            "few": "{count} из {known} знакомых мне участников чата ещё не начали.",
            "many": "{count} из {known} знакомых мне участников чата ещё не начали.",
            "other": "{count} из {known} знакомых мне участников чата ещё не начали.",
        },
    },
    "report_none": {
        "en": "No assignments here yet. Set one with /assign QUIZ DEADLINE.",
        "bn": "এখানে এখনও কোনো অ্যাসাইনমেন্ট নেই। /assign QUIZ DEADLINE দিয়ে একটি দিন।",
        "ur": "یہاں ابھی کوئی اسائنمنٹ نہیں۔ /assign QUIZ DEADLINE سے ایک دیں۔",
        "ru": "Заданий здесь пока нет. Задайте его командой /assign ТЕСТ СРОК.",
    },
    "report_more": {
        "en": {
            "one": "…and {count} older assignment: name its quiz or number, e.g. /report 3.",
            "other": "…and {count} older assignments: name a quiz or a number, e.g. /report 3.",
        },
        "bn": {
            "one": "…আরও {count}টি পুরোনো অ্যাসাইনমেন্ট: কুইজ বা নম্বর দিন, যেমন /report 3।",
            "other": "…আরও {count}টি পুরোনো অ্যাসাইনমেন্ট: কুইজ বা নম্বর দিন, যেমন /report 3।",
        },
        "ur": {
            "one": "…اور {count} پرانی اسائنمنٹ: کوئز یا نمبر بتائیں، جیسے /report 3۔",
            "other": "…اور {count} پرانی اسائنمنٹس: کوئز یا نمبر بتائیں، جیسے /report 3۔",
        },
        "ru": {
            "one": "…и ещё {count} задание постарше: укажите тест или номер, например /report 3.",
            "few": "…и ещё {count} задания постарше: укажите тест или номер, например /report 3.",
            "many": "…и ещё {count} заданий постарше: укажите тест или номер, например /report 3.",
            "other": "…и ещё {count} задания постарше: укажите тест или номер, например /report 3.",
        },
    },
    "report_csv_caption": {
        "en": "Every member's status, score and times (CSV)",
        "bn": "প্রত্যেক সদস্যের অবস্থা, স্কোর ও সময় (CSV)",
        "ur": "ہر رکن کی حیثیت، اسکور اور اوقات (CSV)",
        "ru": "Статус, результат и время каждого участника (CSV)",
    },
    "recap_hours": {
        "en": {
            "one": "⏰ {title} (assignment #{id}) is due in {count} hour.",
            "other": "⏰ {title} (assignment #{id}) is due in {count} hours.",
        },
        "bn": {
            "one": "⏰ {title} (অ্যাসাইনমেন্ট #{id})-এর শেষ সময় আর {count} ঘণ্টা পরে।",
            "other": "⏰ {title} (অ্যাসাইনমেন্ট #{id})-এর শেষ সময় আর {count} ঘণ্টা পরে।",
        },
        "ur": {
            "one": "⏰ {title} (اسائنمنٹ #{id}) کا آخری وقت {count} گھنٹے میں ہے۔",
            "other": "⏰ {title} (اسائنمنٹ #{id}) کا آخری وقت {count} گھنٹوں میں ہے۔",
        },
        "ru": {
            "one": "⏰ До срока задания #{id} ({title}) остался {count} час.",
            "few": "⏰ До срока задания #{id} ({title}) осталось {count} часа.",
            "many": "⏰ До срока задания #{id} ({title}) осталось {count} часов.",
            "other": "⏰ До срока задания #{id} ({title}) осталось {count} часа.",
        },
    },
    "recap_minutes": {
        "en": {
            "one": "⏰ {title} (assignment #{id}) is due in {count} minute.",
            "other": "⏰ {title} (assignment #{id}) is due in {count} minutes.",
        },
        "bn": {
            "one": "⏰ {title} (অ্যাসাইনমেন্ট #{id})-এর শেষ সময় আর {count} মিনিট পরে।",
            "other": "⏰ {title} (অ্যাসাইনমেন্ট #{id})-এর শেষ সময় আর {count} মিনিট পরে।",
        },
        "ur": {
            "one": "⏰ {title} (اسائنمنٹ #{id}) کا آخری وقت {count} منٹ میں ہے۔",
            "other": "⏰ {title} (اسائنمنٹ #{id}) کا آخری وقت {count} منٹ میں ہے۔",
        },
        "ru": {
            "one": "⏰ До срока задания #{id} ({title}) осталась {count} минута.",
            "few": "⏰ До срока задания #{id} ({title}) осталось {count} минуты.",
            "many": "⏰ До срока задания #{id} ({title}) осталось {count} минут.",
            "other": "⏰ До срока задания #{id} ({title}) осталось {count} минуты.",
        },
    },
    "recap_counts": {
        "en": "Done: {done} · in progress: {going} · not started: {waiting}",
        "bn": "শেষ করেছেন: {done} · চলছে: {going} · শুরু করেননি: {waiting}",
        "ur": "مکمل: {done} · جاری: {going} · شروع نہیں کیا: {waiting}",
        "ru": "Завершили: {done} · в процессе: {going} · не начали: {waiting}",
    },
    "reminder": {
        "en": "⏰ Reminder: {title} (assignment #{id}) is due {deadline}. You have answered "
        "{answered} of {total} questions.",
        "bn": "⏰ মনে করিয়ে দিচ্ছি: {title} (অ্যাসাইনমেন্ট #{id})-এর শেষ সময় {deadline}। "
        "আপনি {total}টির মধ্যে {answered}টি প্রশ্নের উত্তর দিয়েছেন।",
        "ur": "⏰ یاد دہانی: {title} (اسائنمنٹ #{id}) کا آخری وقت {deadline} ہے۔ آپ نے "
        "{total} میں سے {answered} سوالات کے جواب دیے ہیں۔",
        "ru": "⏰ Напоминание: срок задания #{id} ({title}) — {deadline}. Вы ответили на "
        "{answered} из {total} вопросов.",
    },
    "reminder_in_chat": {  # the same, naming the chat the assignment was set in
        "en": "⏰ Reminder: {title} (assignment #{id} in {chat}) is due {deadline}. You have "
        "answered {answered} of {total} questions.",
        "bn": "⏰ মনে করিয়ে দিচ্ছি: {chat}-এর অ্যাসাইনমেন্ট #{id} ({title})-এর শেষ সময় "
        "{deadline}। আপনি {total}টির মধ্যে {answered}টি প্রশ্নের উত্তর দিয়েছেন।",
        "ur": "⏰ یاد دہانی: {chat} کی اسائنمنٹ #{id} ({title}) کا آخری وقت {deadline} ہے۔ "
        "آپ نے {total} میں سے {answered} سوالات کے جواب دیے ہیں۔",
        "ru": "⏰ Напоминание: срок задания #{id} в «{chat}» ({title}) — {deadline}. Вы "
        "ответили на {answered} из {total} вопросов.",
    },
    "summary_heading": {
        "en": "🏁 Assignment #{id} is closed: {title}",
        "bn": "🏁 অ্যাসাইনমেন্ট #{id} বন্ধ হয়েছে: {title}",
        "ur": "🏁 اسائنمنٹ #{id} بند ہو گئی: {title}",
        "ru": "🏁 Задание #{id} закрыто: {title}",
    },
    "summary_completion": {
        "en": "Completed by the deadline: {done} of {members} ({percent}%)",
        "bn": "ডেডলাইনের মধ্যে শেষ করেছেন: {members} জনের মধ্যে {done} জন ({percent}%)",
        "ur": "ڈیڈ لائن تک مکمل کیا: {members} میں سے {done} ({percent}%)",
        "ru": "Завершили к сроку: {done} из {members} ({percent}%)",
    },
    "summary_average": {
        "en": "Average score: {average}",
        "bn": "গড় স্কোর: {average}",
        "ur": "اوسط اسکور: {average}",
        "ru": "Средний результат: {average}",
    },
}


def assignment_t(key: str, language: str, **values: object) -> str:
    """The assignment string ``key`` in ``language`` (English when missing), filled in."""
    return translate(ASSIGNMENT_STRINGS, key, language, **values)
