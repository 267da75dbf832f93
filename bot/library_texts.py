"""Interface strings of the quiz library (uploads, /quizzes, /unpublish, versions), in every
supported language.

A table of its own (looked up with :func:`bot.i18n.translate`), as question banks have, so
that the library adds strings without touching the shared table; every key has all of
``SUPPORTED_LANGUAGES`` (tested). Problems found in a file stay ``file:line: problem`` lines
in English, as ``quizbot validate`` prints them: they are for the quiz's author, who reads
the file.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.i18n import Template, translate
from bot.storage import QuizVersionRecord

LIBRARY_STRINGS: dict[str, dict[str, Template]] = {
    "version_label": {
        "en": "version {version}",
        "bn": "সংস্করণ {version}",
        "ur": "ورژن {version}",
        "ru": "версия {version}",
    },
    "published": {
        "en": {
            "one": "Published quiz {quiz}, version {version}, {count} question.",
            "other": "Published quiz {quiz}, version {version}, {count} questions.",
        },
        "bn": {"other": "কুইজ {quiz} প্রকাশিত হয়েছে: সংস্করণ {version}, {count}টি প্রশ্ন।"},
        "ur": {
            "one": "کوئز {quiz} شائع ہو گیا: ورژن {version}، {count} سوال۔",
            "other": "کوئز {quiz} شائع ہو گیا: ورژن {version}، {count} سوالات۔",
        },
        "ru": {
            "one": "Тест {quiz} опубликован: версия {version}, {count} вопрос.",
            "few": "Тест {quiz} опубликован: версия {version}, {count} вопроса.",
            "many": "Тест {quiz} опубликован: версия {version}, {count} вопросов.",
            "other": "Тест {quiz} опубликован: версия {version}, {count} вопроса.",
        },
    },
    "unchanged": {
        "en": {
            "one": "Quiz {quiz} is unchanged: still version {version}, {count} question.",
            "other": "Quiz {quiz} is unchanged: still version {version}, {count} questions.",
        },
        "bn": {"other": "কুইজ {quiz} বদলায়নি: এখনও সংস্করণ {version}, {count}টি প্রশ্ন।"},
        "ur": {
            "one": "کوئز {quiz} میں کوئی تبدیلی نہیں: اب بھی ورژن {version}، {count} سوال۔",
            "other": "کوئز {quiz} میں کوئی تبدیلی نہیں: اب بھی ورژن {version}، {count} سوالات۔",
        },
        "ru": {
            "one": "Тест {quiz} не изменился: по-прежнему версия {version}, {count} вопрос.",
            "few": "Тест {quiz} не изменился: по-прежнему версия {version}, {count} вопроса.",
            "many": "Тест {quiz} не изменился: по-прежнему версия {version}, {count} вопросов.",
            "other": "Тест {quiz} не изменился: по-прежнему версия {version}, {count} вопроса.",
        },
    },
    "upload_problems": {
        "en": {
            "one": "Nothing was published: the file has {count} problem. The live version stays.",
            "other": (
                "Nothing was published: the file has {count} problems. The live version stays."
            ),
        },
        "bn": {"other": "কিছুই প্রকাশিত হয়নি: ফাইলে {count}টি সমস্যা আছে। চালু সংস্করণটিই থাকছে।"},
        "ur": {
            "one": "کچھ بھی شائع نہیں ہوا: فائل میں {count} مسئلہ ہے۔ موجودہ ورژن برقرار ہے۔",
            "other": "کچھ بھی شائع نہیں ہوا: فائل میں {count} مسائل ہیں۔ موجودہ ورژن برقرار ہے۔",
        },
        "ru": {
            "one": "Ничего не опубликовано: в файле {count} ошибка. Действующая версия остаётся.",
            "few": "Ничего не опубликовано: в файле {count} ошибки. Действующая версия остаётся.",
            "many": "Ничего не опубликовано: в файле {count} ошибок. Действующая версия остаётся.",
            "other": "Ничего не опубликовано: в файле {count} ошибки. Действующая версия остаётся.",
        },
    },
    "upload_problems_attached": {
        "en": "The full list is in the attached file.",
        "bn": "পুরো তালিকা সংযুক্ত ফাইলে আছে।",
        "ur": "مکمل فہرست منسلک فائل میں ہے۔",
        "ru": "Полный список — в приложенном файле.",
    },
    "upload_notes": {
        "en": "Notes from the import:",
        "bn": "ইমপোর্টের নোট:",
        "ur": "امپورٹ کے نوٹس:",
        "ru": "Замечания импорта:",
    },
    "upload_refused": {
        "en": "Not published ({reason}). The live version stays.",
        "bn": "প্রকাশ করা হয়নি ({reason})। চালু সংস্করণটিই থাকছে।",
        "ur": "شائع نہیں کیا گیا ({reason})۔ موجودہ ورژن برقرار ہے۔",
        "ru": "Не опубликовано ({reason}). Действующая версия остаётся.",
    },
    "too_big": {
        "en": "{name} is {size} KB; a {kind} file may be at most {limit} KB",
        "bn": "{name} {size} KB; {kind} ফাইল সর্বোচ্চ {limit} KB হতে পারে",
        "ur": "{name} کا حجم {size} KB ہے؛ {kind} فائل زیادہ سے زیادہ {limit} KB ہو سکتی ہے",
        "ru": "{name} весит {size} КБ; файл {kind} может весить не больше {limit} КБ",
    },
    "wrong_type": {
        "en": (
            "{name} is not a file I can publish: send a quiz (.yaml), GIFT (.gift or .txt), "
            "Aiken (.txt), Open Trivia DB (.json) or Red trivia (.yaml) file, or a .zip of a "
            "quiz with its images; a caption or the format option can name the format"
        ),
        "bn": (
            "{name} প্রকাশযোগ্য ফাইল নয়: কুইজ (.yaml), GIFT (.gift বা .txt), Aiken (.txt), "
            "Open Trivia DB (.json) বা Red trivia (.yaml) ফাইল, কিংবা ছবিসহ কুইজের .zip "
            "পাঠান; ক্যাপশন বা format অপশনে ফরম্যাটের নাম দেওয়া যায়"
        ),
        "ur": (
            "{name} ایسی فائل نہیں جسے میں شائع کر سکوں: کوئز (.yaml)، GIFT (.gift یا .txt)، "
            "Aiken (.txt)، Open Trivia DB (.json) یا Red trivia (.yaml) فائل، یا تصاویر سمیت "
            "کوئز کی .zip بھیجیں؛ کیپشن یا format آپشن میں فارمیٹ کا نام دیا جا سکتا ہے"
        ),
        "ru": (
            "{name} — не тот файл, который можно опубликовать: пришлите тест (.yaml), файл "
            "GIFT (.gift или .txt), Aiken (.txt), Open Trivia DB (.json) или Red trivia "
            "(.yaml) либо .zip с тестом и его картинками; формат можно назвать в подписи или "
            "в параметре format"
        ),
    },
    "zip_unreadable": {
        "en": "{name} is not a readable zip file",
        "bn": "{name} পড়ার যোগ্য zip ফাইল নয়",
        "ur": "{name} قابلِ مطالعہ zip فائل نہیں",
        "ru": "{name} — не читаемый zip-архив",
    },
    "zip_unsafe_path": {
        "en": "the zip entry {entry} points outside the quiz's folder",
        "bn": "zip-এর {entry} এন্ট্রিটি কুইজের ফোল্ডারের বাইরে নির্দেশ করে",
        "ur": "zip کی اندراج {entry} کوئز کے فولڈر سے باہر کی طرف اشارہ کرتی ہے",
        "ru": "элемент архива {entry} указывает за пределы папки теста",
    },
    "zip_symlink": {
        "en": "the zip entry {entry} is a symbolic link",
        "bn": "zip-এর {entry} এন্ট্রিটি একটি সিমবলিক লিংক",
        "ur": "zip کی اندراج {entry} ایک علامتی لنک (symlink) ہے",
        "ru": "элемент архива {entry} — символическая ссылка",
    },
    "zip_too_many": {
        "en": "the zip holds more than {limit} entries",
        "bn": "zip-এ {limit}টির বেশি এন্ট্রি আছে",
        "ur": "zip میں {limit} سے زیادہ اندراجات ہیں",
        "ru": "в архиве больше {limit} элементов",
    },
    "zip_too_big": {
        "en": "the zip unpacks to more than {limit} KB",
        "bn": "zip খুললে {limit} KB-র বেশি হয়",
        "ur": "zip کھلنے پر {limit} KB سے زیادہ بنتی ہے",
        "ru": "архив распаковывается больше чем в {limit} КБ",
    },
    "zip_wrong_type": {
        "en": "the zip entry {entry} is neither a quiz (.yaml) nor an image (PNG, JPEG, GIF, WebP)",
        "bn": "zip-এর {entry} এন্ট্রিটি কুইজ (.yaml) বা ছবি (PNG, JPEG, GIF, WebP) কোনোটিই নয়",
        "ur": "zip کی اندراج {entry} نہ کوئز (.yaml) ہے نہ تصویر (PNG، JPEG، GIF، WebP)",
        "ru": "элемент архива {entry} — не тест (.yaml) и не картинка (PNG, JPEG, GIF, WebP)",
    },
    "zip_no_quiz": {
        "en": "the zip holds no quiz (.yaml) at its top or in one folder",
        "bn": "zip-এর শীর্ষে বা একটি ফোল্ডারে কোনো কুইজ (.yaml) নেই",
        "ur": "zip کے اوپر یا کسی ایک فولڈر میں کوئی کوئز (.yaml) نہیں",
        "ru": "в архиве нет теста (.yaml) ни в корне, ни в единственной папке",
    },
    "download_failed": {
        "en": "{name} could not be downloaded: {error}",
        "bn": "{name} ডাউনলোড করা গেল না: {error}",
        "ur": "{name} ڈاؤن لوڈ نہیں ہو سکی: {error}",
        "ru": "не удалось скачать {name}: {error}",
    },
    "upload_failed": {
        "en": "The quiz could not be saved just now; the live version stays. Please send it again.",
        "bn": "কুইজটি এখন সংরক্ষণ করা গেল না; চালু সংস্করণটিই থাকছে। আবার পাঠান।",
        "ur": "کوئز ابھی محفوظ نہیں ہو سکا؛ موجودہ ورژن برقرار ہے۔ براہِ کرم دوبارہ بھیجیں۔",
        "ru": "Сейчас не удалось сохранить тест; действующая версия остаётся. Пришлите его снова.",
    },
    "upload_admins_only": {
        "en": "Only the bot's admins can publish quizzes.",
        "bn": "শুধু বটের অ্যাডমিনরাই কুইজ প্রকাশ করতে পারেন।",
        "ur": "صرف بوٹ کے ایڈمن ہی کوئز شائع کر سکتے ہیں۔",
        "ru": "Публиковать тесты могут только администраторы бота.",
    },
    "quizzes_title": {
        "en": "Published quizzes",
        "bn": "প্রকাশিত কুইজ",
        "ur": "شائع شدہ کوئز",
        "ru": "Опубликованные тесты",
    },
    "quizzes_line": {
        "en": {
            "one": "{quiz}: version {version} · {source} · {count} question",
            "other": "{quiz}: version {version} · {source} · {count} questions",
        },
        "bn": {"other": "{quiz}: সংস্করণ {version} · {source} · {count}টি প্রশ্ন"},
        "ur": {
            "one": "{quiz}: ورژن {version} · {source} · {count} سوال",
            "other": "{quiz}: ورژن {version} · {source} · {count} سوالات",
        },
        "ru": {
            "one": "{quiz}: версия {version} · {source} · {count} вопрос",
            "few": "{quiz}: версия {version} · {source} · {count} вопроса",
            "many": "{quiz}: версия {version} · {source} · {count} вопросов",
            "other": "{quiz}: версия {version} · {source} · {count} вопроса",
        },
    },
    "quizzes_none": {
        "en": "No quiz is published.",
        "bn": "কোনো কুইজ প্রকাশিত নেই।",
        "ur": "کوئی کوئز شائع نہیں۔",
        "ru": "Нет опубликованных тестов.",
    },
    "source_file": {
        "en": "QUIZ_DIR file",
        "bn": "QUIZ_DIR ফাইল",
        "ur": "QUIZ_DIR فائل",
        "ru": "файл из QUIZ_DIR",
    },
    "source_upload": {
        "en": "uploaded by {by}",
        "bn": "{by} আপলোড করেছেন",
        "ur": "{by} نے اپ لوڈ کیا",
        "ru": "загружен {by}",
    },
    "source_publish": {
        "en": "quizbot publish by {by}",
        "bn": "{by}-এর quizbot publish",
        "ur": "{by} کا quizbot publish",
        "ru": "quizbot publish от {by}",
    },
    "unpublished": {
        "en": (
            "Quiz {quiz} is unpublished: it is no longer listed or started. Attempts in "
            "progress can still finish."
        ),
        "bn": (
            "কুইজ {quiz} অপ্রকাশিত করা হয়েছে: এটি আর তালিকায় দেখাবে না বা শুরু করা যাবে না। "
            "চলমান চেষ্টাগুলো শেষ করা যাবে।"
        ),
        "ur": (
            "کوئز {quiz} کی اشاعت ختم کر دی گئی: اب یہ فہرست میں نہیں آئے گا اور شروع نہیں ہو "
            "گا۔ جاری کوششیں مکمل کی جا سکتی ہیں۔"
        ),
        "ru": (
            "Тест {quiz} снят с публикации: его больше нет в списках, и его нельзя начать. "
            "Начатые попытки можно закончить."
        ),
    },
    "unpublish_unknown": {
        "en": "No published quiz is called {quiz}; /quizzes lists them.",
        "bn": "{quiz} নামে কোনো প্রকাশিত কুইজ নেই; /quizzes তালিকা দেখায়।",
        "ur": "{quiz} نام کا کوئی شائع شدہ کوئز نہیں؛ فہرست /quizzes میں ہے۔",
        "ru": "Опубликованного теста {quiz} нет; список — в /quizzes.",
    },
    "unpublish_usage": {
        "en": "Name the quiz to unpublish: /unpublish ID (see /quizzes).",
        "bn": "কোন কুইজ অপ্রকাশিত করবেন তা লিখুন: /unpublish ID (দেখুন /quizzes)।",
        "ur": "جس کوئز کی اشاعت ختم کرنی ہے اس کا نام لکھیں: /unpublish ID (دیکھیں /quizzes)۔",
        "ru": "Укажите тест: /unpublish ID (список — в /quizzes).",
    },
}


def library_t(key: str, language: str, **values: object) -> str:
    """The library string ``key`` in ``language`` (English when missing), filled in; a string
    that counts takes the plural form for ``count``."""
    return translate(LIBRARY_STRINGS, key, language, **values)


def listing_lines(versions: Sequence[QuizVersionRecord], language: str) -> list[str]:
    """``/quizzes``: each published quiz with its version, where it came from and how many
    questions it has (worded once, for every platform)."""
    if not versions:
        return [library_t("quizzes_none", language)]
    lines = [library_t("quizzes_title", language)]
    for version in versions:
        by = version.published_by or "?"
        source = library_t(f"source_{version.source.value}", language, by=by)
        lines.append(
            library_t(
                "quizzes_line",
                language,
                quiz=version.quiz_id,
                version=version.version,
                source=source,
                count=version.question_count,
            )
        )
    return lines
