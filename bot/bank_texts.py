"""Interface strings of question banks (tags), in every supported language, and the
handling of a tag a player typed.

A table of its own (looked up with :func:`bot.i18n.translate`), as typed answers have, so
that tags add strings without touching the shared table; every key has all of
``SUPPORTED_LANGUAGES`` (tested).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.i18n import translate
from bot.quoting import quote

if TYPE_CHECKING:
    from bot.quiz import Quiz

SHOWN_TAG_CHARS = 40  # of an unknown tag typed by a player, in the notice

BANK_STRINGS: dict[str, dict[str, str]] = {
    "unknown_tag": {
        "en": "“{title}” has no questions tagged {tag}. Its tags: {tags}",
        "bn": "“{title}”-এ {tag} ট্যাগের কোনো প্রশ্ন নেই। এর ট্যাগ: {tags}",
        "ur": "“{title}” میں {tag} ٹیگ والا کوئی سوال نہیں۔ اس کے ٹیگ: {tags}",
        "ru": "В тесте «{title}» нет вопросов с тегом {tag}. Его теги: {tags}",
    },
    "no_tags": {
        "en": "“{title}” has no tags (so {tag} picks nothing): play it without one.",
        "bn": "“{title}”-এর কোনো ট্যাগ নেই ({tag} কিছুই বাছে না): ট্যাগ ছাড়া খেলুন।",
        "ur": "“{title}” کا کوئی ٹیگ نہیں ({tag} کچھ نہیں چنتا): ٹیگ کے بغیر کھیلیں۔",
        "ru": "У теста «{title}» нет тегов ({tag} ничего не выбирает): играйте без тега.",
    },
    "tag_resumed_other": {
        "en": (
            "You have an unfinished attempt at this quiz: continuing it. Finish or stop it, "
            "then start again with #{tag} to practise only that topic."
        ),
        "bn": (
            "এই কুইজে আপনার একটি অসমাপ্ত চেষ্টা আছে: সেটিই চলছে। শুধু ওই বিষয় অনুশীলন করতে "
            "সেটি শেষ করুন বা থামান, তারপর #{tag} দিয়ে আবার শুরু করুন।"
        ),
        "ur": (
            "اس کوئز میں آپ کی ایک نامکمل کوشش ہے: وہی جاری ہے۔ صرف وہ موضوع مشق کرنے کے لیے "
            "اسے مکمل کریں یا روکیں، پھر #{tag} کے ساتھ دوبارہ شروع کریں۔"
        ),
        "ru": (
            "У вас есть незаконченная попытка этого теста: продолжаем её. Закончите или "
            "остановите её и начните снова с #{tag}, чтобы тренировать только эту тему."
        ),
    },
}


def bank_t(key: str, language: str, **values: object) -> str:
    """The question-bank string ``key`` in ``language`` (English when missing), filled in."""
    return translate(BANK_STRINGS, key, language, **values)


def normalize_tag(text: str) -> str:
    """A tag as a player may type it (``#Grammar``, `` grammar ``) in the quiz file's form."""
    return text.strip().removeprefix("#").strip().lower()


def unknown_tag(quiz: Quiz, title: str, tag: str, language: str) -> str:
    """The notice for a tag ``quiz`` (shown as ``title``) does not have: its tags, listed."""
    shown = tag if len(tag) <= SHOWN_TAG_CHARS else tag[: SHOWN_TAG_CHARS - 1] + "…"
    if not quiz.tags:
        return bank_t("no_tags", language, title=title, tag=quote(shown))
    tags = ", ".join(f"#{name}" for name in quiz.tags)
    return bank_t("unknown_tag", language, title=title, tag=quote(shown), tags=tags)
