"""Interface strings of typed-answer questions, in every supported language.

A table of its own (looked up with :func:`bot.i18n.translate`) so typed answers add strings
without touching the shared table; every key has all of ``SUPPORTED_LANGUAGES`` (tested).
"""

from __future__ import annotations

from bot.i18n import translate

TYPED_STRINGS: dict[str, dict[str, str]] = {
    "typed_hint": {
        "en": "✍️ Type your answer.",
        "bn": "✍️ আপনার উত্তর লিখুন।",
        "ur": "✍️ اپنا جواب لکھیں۔",
        "ru": "✍️ Напишите ответ.",
    },
    "typed_reply_hint": {
        "en": "✍️ Reply to this message with your answer.",
        "bn": "✍️ এই বার্তার উত্তরে আপনার উত্তর লিখুন।",
        "ur": "✍️ اس پیغام کے جواب میں اپنا جواب لکھیں۔",
        "ru": "✍️ Ответьте на это сообщение своим ответом.",
    },
    "typed_prompt": {
        "en": "Your answer: ",
        "bn": "আপনার উত্তর: ",
        "ur": "آپ کا جواب: ",
        "ru": "Ваш ответ: ",
    },
    "typed_again": {
        "en": "Please type an answer (letters or digits).",
        "bn": "অনুগ্রহ করে একটি উত্তর লিখুন (অক্ষর বা সংখ্যা)।",
        "ur": "براہ کرم جواب لکھیں (حروف یا ہندسے)۔",
        "ru": "Напишите ответ (буквы или цифры).",
    },
    "typed_button": {
        "en": "✍️ Type your answer",
        "bn": "✍️ উত্তর লিখুন",
        "ur": "✍️ جواب لکھیں",
        "ru": "✍️ Ввести ответ",
    },
    "typed_field": {
        "en": "Your answer",
        "bn": "আপনার উত্তর",
        "ur": "آپ کا جواب",
        "ru": "Ваш ответ",
    },
    "typed_correct": {
        "en": "Correct answer",
        "bn": "সঠিক উত্তর",
        "ur": "درست جواب",
        "ru": "Правильный ответ",
    },
    "round_typed_only": {
        "en": "This quiz has only typed-answer questions, which group rounds do not ask. "
        "Play it on your own with /quiz.",
        "bn": "এই কুইজে শুধু লিখে উত্তর দেওয়ার প্রশ্ন আছে, যা গ্রুপ রাউন্ডে আসে না। /quiz দিয়ে নিজে খেলুন।",
        "ur": "اس کوئز میں صرف لکھ کر جواب دینے والے سوال ہیں، جو گروپ راؤنڈ میں نہیں پوچھے جاتے۔ "
        "اسے /quiz سے خود کھیلیں۔",
        "ru": "В этом тесте только вопросы с вводом ответа, а в групповых раундах их нет. "
        "Пройдите его сами: /quiz.",
    },
}


def typed_t(key: str, language: str, **values: object) -> str:
    """The typed-answer string ``key`` in ``language`` (English when missing), filled in."""
    return translate(TYPED_STRINGS, key, language, **values)
