"""Interface strings only the Telegram adapter uses (menus, modes, polls), in every language.

Same shape as :data:`bot.i18n.STRINGS`: key -> language -> template. Strings every platform
shares live in :mod:`bot.i18n`.
"""

from __future__ import annotations

from bot.assignments.texts import ASSIGNMENT_STRINGS
from bot.i18n import STRINGS as SHARED
from bot.i18n import translate

# The bot's commands in menu order; /help and setMyCommands are built from this list.
COMMANDS = (
    "start",
    "quiz",
    "review",
    "remind",
    "timezone",
    "progress",
    "leaderboard",
    "daily",
    "language",
    "stop",
    "mode",
    "help",
)
# Shown only to the user ids in ADMIN_TELEGRAM_IDS (in their own chat's command menu).
ADMIN_COMMANDS = ("reload", "stats", "quizzes", "unpublish")
# Assignments: everyone's /assignments (before /help), and /assign and /report in the menu
# Telegram shows groups' administrators (and the operators in their own chats).
ASSIGNMENT_COMMANDS = ("assignments",)
CHAT_ADMIN_COMMANDS = ("assign", "report")

TEXTS: dict[str, dict[str, str]] = {
    "cmd_start": {
        "en": "Welcome and the list of quizzes",
        "bn": "স্বাগত বার্তা ও কুইজের তালিকা",
        "ur": "خوش آمدید اور کوئزز کی فہرست",
        "ru": "Приветствие и список тестов",
    },
    "cmd_mode": {
        "en": "Questions in this chat as quiz polls or buttons",
        "bn": "এই চ্যাটে প্রশ্ন কুইজ পোলে না বোতামে",
        "ur": "اس چیٹ میں سوالات کوئز پول میں یا بٹنوں کے ساتھ",
        "ru": "Вопросы в этом чате: опросы-викторины или кнопки",
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
    "round_group_only": {
        "en": "Group rounds are played in groups: add me to a group and send /quiz group there.",
        "bn": "গ্রুপ রাউন্ড গ্রুপেই খেলা হয়: আমাকে একটি গ্রুপে যোগ করে সেখানে /quiz group পাঠান।",
        "ur": "گروپ راؤنڈ گروپ میں کھیلے جاتے ہیں: مجھے کسی گروپ میں شامل کریں اور وہاں "
        "/quiz group بھیجیں۔",
        "ru": "Групповые раунды проходят в группах: добавьте меня в группу и отправьте там "
        "/quiz group.",
    },
}


def tt(key: str, language: str, **values: object) -> str:
    """The Telegram string ``key`` in ``language`` (English when missing), filled in (the
    assignments' own strings are looked up too)."""
    table = TEXTS if key in TEXTS else ASSIGNMENT_STRINGS if key in ASSIGNMENT_STRINGS else SHARED
    return translate(table, key, language, **values)


def command_descriptions(
    language: str, *, admin: bool = False, chat_admin: bool = False
) -> list[tuple[str, str]]:
    """``(command, description)`` for the command menu and /help, in ``language``:
    /assignments comes before /help, and /assign and /report too for a chat's admins
    (``chat_admin``) and operators; with ``admin``, the admin commands follow."""
    commands = list(COMMANDS)
    extra = ASSIGNMENT_COMMANDS + (CHAT_ADMIN_COMMANDS if chat_admin or admin else ())
    commands[commands.index("help") : commands.index("help")] = extra
    if admin:
        commands += ADMIN_COMMANDS
    return [(command, tt(f"cmd_{command}", language)) for command in commands]
