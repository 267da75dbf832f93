"""The database schema, written once for both backends.

``MIGRATIONS[n]`` brings a database from schema version n to n + 1. Each is one SQL script
with placeholders for the few types the dialects spell differently (``{id}``, ``{ref}``,
``{time}``, ``{bool}``, ``{true}``/``{false}``, ``{blob}``), rendered by :func:`migrations`.
A migration that cannot be written the same way for both (SQLite cannot alter a column) is a
mapping from dialect to script. ``tests/test_schema_parity.py`` checks that both migrated
schemas have the same tables, columns, nullability, keys and indexes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

Dialect = Literal["sqlite", "postgres"]

TYPES: Mapping[Dialect, Mapping[str, str]] = {
    "sqlite": {
        "id": "INTEGER PRIMARY KEY AUTOINCREMENT",
        "ref": "INTEGER",
        "time": "TEXT",  # ISO 8601 with microseconds, always UTC: sorts as time does
        "bool": "INTEGER",
        "true": "1",
        "false": "0",
        "blob": "BLOB",
    },
    "postgres": {
        "id": "BIGSERIAL PRIMARY KEY",
        "ref": "BIGINT",
        "time": "TIMESTAMPTZ",
        "bool": "BOOLEAN",
        "true": "TRUE",
        "false": "FALSE",
        "blob": "BYTEA",
    },
}

MIGRATIONS: list[str | Mapping[Dialect, str]] = [
    # 1: users, their quiz attempts and answers.
    """
    CREATE TABLE users (
        platform TEXT NOT NULL,
        user_id TEXT NOT NULL,
        display_name TEXT,
        language TEXT,
        created_at {time} NOT NULL,
        PRIMARY KEY (platform, user_id)
    );
    CREATE TABLE attempts (
        id {id},
        platform TEXT NOT NULL,
        user_id TEXT NOT NULL,
        chat_id TEXT,
        quiz_id TEXT NOT NULL,
        question_order TEXT NOT NULL,
        option_order TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('active', 'completed', 'abandoned')),
        started_at {time} NOT NULL,
        updated_at {time} NOT NULL,
        finished_at {time},
        FOREIGN KEY (platform, user_id) REFERENCES users (platform, user_id)
    );
    CREATE UNIQUE INDEX one_active_attempt_per_quiz
        ON attempts (platform, user_id, quiz_id) WHERE status = 'active';
    CREATE INDEX attempts_by_user ON attempts (platform, user_id, updated_at);
    CREATE TABLE answers (
        attempt_id {ref} NOT NULL REFERENCES attempts (id) ON DELETE CASCADE,
        question_id TEXT NOT NULL,
        option_id TEXT NOT NULL,
        correct {bool} NOT NULL CHECK (correct IN ({false}, {true})),
        answered_at {time} NOT NULL,
        seq INTEGER NOT NULL,
        PRIMARY KEY (attempt_id, question_id)
    );
    """,
    # 2: small named values (chat preferences, poll links, command-sync fingerprints).
    """
    CREATE TABLE kv (
        scope TEXT NOT NULL,
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        updated_at {time} NOT NULL,
        PRIMARY KEY (scope, key)
    );
    """,
    # 3: review attempts beside quiz attempts, and the spaced-repetition schedule.
    """
    ALTER TABLE attempts ADD COLUMN kind TEXT NOT NULL DEFAULT 'quiz';
    DROP INDEX one_active_attempt_per_quiz;
    CREATE UNIQUE INDEX one_active_attempt_per_quiz_and_kind
        ON attempts (platform, user_id, quiz_id, kind) WHERE status = 'active';
    CREATE TABLE review_items (
        platform TEXT NOT NULL,
        user_id TEXT NOT NULL,
        quiz_id TEXT NOT NULL,
        question_id TEXT NOT NULL,
        box INTEGER NOT NULL CHECK (box > 0),
        due_at {time} NOT NULL,
        PRIMARY KEY (platform, user_id, quiz_id, question_id)
    );
    """,
    # 4: group rounds.
    """
    CREATE TABLE rounds (
        id {id},
        platform TEXT NOT NULL,
        chat_id TEXT NOT NULL,
        quiz_id TEXT NOT NULL,
        starter_id TEXT NOT NULL,
        language TEXT NOT NULL,
        question_order TEXT NOT NULL,
        option_order TEXT NOT NULL,
        time_limit_seconds INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('active', 'finished', 'stopped')),
        current INTEGER NOT NULL,
        question_started_at {time} NOT NULL,
        deadline {time} NOT NULL,
        started_at {time} NOT NULL,
        finished_at {time}
    );
    CREATE UNIQUE INDEX one_active_round_per_chat ON rounds (platform, chat_id)
        WHERE status = 'active';
    CREATE INDEX rounds_by_deadline ON rounds (deadline) WHERE status = 'active';
    CREATE TABLE round_answers (
        round_id {ref} NOT NULL REFERENCES rounds (id),
        number INTEGER NOT NULL,
        user_id TEXT NOT NULL,
        display_name TEXT,
        option_id TEXT NOT NULL,
        correct {bool} NOT NULL,
        elapsed_ms INTEGER NOT NULL,
        answered_at {time} NOT NULL,
        PRIMARY KEY (round_id, number, user_id)
    );
    """,
    # 5: bring databases made by the two hand-written schemas of versions 1-4 together.
    # PostgreSQL's had defaults SQLite's lacked, and a global answer sequence where SQLite
    # numbers each attempt's answers from 0. Fresh databases already match: a no-op there.
    {
        "sqlite": "",
        "postgres": """
        ALTER TABLE users ALTER COLUMN created_at DROP DEFAULT;
        ALTER TABLE kv ALTER COLUMN updated_at DROP DEFAULT;
        ALTER TABLE answers ALTER COLUMN seq DROP DEFAULT;
        DROP SEQUENCE IF EXISTS answers_seq_seq;
        ALTER TABLE answers ALTER COLUMN seq TYPE INTEGER;
        UPDATE answers SET seq = numbered.n
        FROM (
            SELECT attempt_id, question_id,
                row_number() OVER (PARTITION BY attempt_id ORDER BY seq) - 1 AS n
            FROM answers
        ) AS numbered
        WHERE answers.attempt_id = numbered.attempt_id
            AND answers.question_id = numbered.question_id AND answers.seq <> numbered.n;
        ALTER TABLE answers DROP CONSTRAINT IF EXISTS answers_correct_check;
        ALTER TABLE answers ADD CONSTRAINT answers_correct_check
            CHECK (correct IN (FALSE, TRUE));
        """,
    },
    # 6: replicas: who drives each round (a lease), and the posts rounds owe (an outbox).
    """
    CREATE TABLE round_leases (
        round_id {ref} PRIMARY KEY REFERENCES rounds (id),
        owner TEXT NOT NULL,
        expires_at {time} NOT NULL
    );
    CREATE TABLE round_outbox (
        id {id},
        round_id {ref} NOT NULL REFERENCES rounds (id),
        number INTEGER NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('reveal', 'end')),
        platform TEXT NOT NULL,
        chat_id TEXT NOT NULL,
        created_at {time} NOT NULL,
        sent_at {time},
        message_id TEXT
    );
    CREATE UNIQUE INDEX round_outbox_once ON round_outbox (round_id, number, kind);
    CREATE INDEX round_outbox_unsent ON round_outbox (platform, id) WHERE sent_at IS NULL;
    """,
    # 7: the outbox also owes the copy of an ended round's answers into its members' history.
    # SQLite cannot alter a CHECK constraint: the table is rebuilt, ids and rows kept.
    {
        "sqlite": """
        CREATE TABLE round_outbox_7 (
            id {id},
            round_id {ref} NOT NULL REFERENCES rounds (id),
            number INTEGER NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('reveal', 'end', 'history')),
            platform TEXT NOT NULL,
            chat_id TEXT NOT NULL,
            created_at {time} NOT NULL,
            sent_at {time},
            message_id TEXT
        );
        INSERT INTO round_outbox_7 (id, round_id, number, kind, platform, chat_id, created_at,
            sent_at, message_id)
        SELECT id, round_id, number, kind, platform, chat_id, created_at, sent_at, message_id
        FROM round_outbox;
        DROP TABLE round_outbox;
        ALTER TABLE round_outbox_7 RENAME TO round_outbox;
        CREATE UNIQUE INDEX round_outbox_once ON round_outbox (round_id, number, kind);
        CREATE INDEX round_outbox_unsent ON round_outbox (platform, id) WHERE sent_at IS NULL;
        """,
        "postgres": """
        ALTER TABLE round_outbox DROP CONSTRAINT IF EXISTS round_outbox_kind_check;
        ALTER TABLE round_outbox ADD CONSTRAINT round_outbox_kind_check
            CHECK (kind IN ('reveal', 'end', 'history'));
        """,
    },
    # 8: the quiz library: every published version of every quiz (its validated content as
    # JSON, a hash of it, where it came from and who published it), which version each quiz
    # serves now and whether it is hidden (unpublished), and a revision counter that every
    # change bumps, so replicas notice a new version by polling one row.
    """
    CREATE TABLE quiz_versions (
        quiz_id TEXT NOT NULL,
        version INTEGER NOT NULL,
        content TEXT NOT NULL,
        content_hash TEXT NOT NULL,
        question_count INTEGER NOT NULL,
        source TEXT NOT NULL CHECK (source IN ('file', 'upload', 'publish')),
        published_by TEXT,
        published_at {time} NOT NULL,
        PRIMARY KEY (quiz_id, version)
    );
    CREATE TABLE quiz_library (
        quiz_id TEXT PRIMARY KEY,
        version INTEGER NOT NULL,
        hidden {bool} NOT NULL CHECK (hidden IN ({false}, {true}))
    );
    CREATE TABLE library_revision (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        revision INTEGER NOT NULL
    );
    INSERT INTO library_revision (id, revision) VALUES (1, 0);
    """,
    # 9: attempts and rounds pin the quiz version they started on. Rows from before the
    # library existed get version 1: what QUIZ_DIR held at the first start after upgrading
    # (the library starts empty, so those files are published as version 1).
    """
    ALTER TABLE attempts ADD COLUMN quiz_version INTEGER NOT NULL DEFAULT 1;
    ALTER TABLE rounds ADD COLUMN quiz_version INTEGER NOT NULL DEFAULT 1;
    """,
    # 10: quiz images: their bytes by SHA-256 (written when a quiz is loaded, so every replica and
    # a restart on a wiped disk can send them), and each platform account's reference to its
    # uploaded copy (Telegram's file_id per bot), so an image uploads once per bot.
    """
    CREATE TABLE images (
        sha256 TEXT PRIMARY KEY,
        media_type TEXT NOT NULL,
        data {blob} NOT NULL,
        created_at {time} NOT NULL
    );
    CREATE TABLE image_uploads (
        destination TEXT NOT NULL,
        sha256 TEXT NOT NULL REFERENCES images (sha256),
        reference TEXT NOT NULL,
        created_at {time} NOT NULL,
        PRIMARY KEY (destination, sha256)
    );
    """,
    # 11: scheduling (bot/storage/scheduling.py): jobs due at a time, claimed by one replica for
    # a while; the outbox of outgoing messages, posted once; recipients that cannot be reached.
    """
    CREATE TABLE scheduled_jobs (
        id {id},
        kind TEXT NOT NULL,
        job_key TEXT NOT NULL,
        due_at {time} NOT NULL,
        payload TEXT NOT NULL,
        stale_after_seconds INTEGER,
        attempts INTEGER NOT NULL,
        claimed_by TEXT,
        claimed_until {time},
        created_at {time} NOT NULL
    );
    CREATE UNIQUE INDEX scheduled_jobs_once ON scheduled_jobs (job_key);
    CREATE INDEX scheduled_jobs_due ON scheduled_jobs (due_at);
    CREATE TABLE outgoing_messages (
        id {id},
        platform TEXT NOT NULL,
        target TEXT NOT NULL,
        to_user {bool} NOT NULL,
        kind TEXT NOT NULL,
        payload TEXT NOT NULL,
        dedupe_key TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'undeliverable')),
        attempts INTEGER NOT NULL,
        next_try_at {time} NOT NULL,
        claimed_by TEXT,
        claimed_until {time},
        created_at {time} NOT NULL,
        sent_at {time},
        message_id TEXT,
        last_error TEXT
    );
    CREATE UNIQUE INDEX outgoing_messages_once ON outgoing_messages (dedupe_key);
    CREATE INDEX outgoing_messages_pending ON outgoing_messages (platform, next_try_at)
        WHERE status = 'pending';
    CREATE TABLE unreachable_recipients (
        platform TEXT NOT NULL,
        target TEXT NOT NULL,
        to_user {bool} NOT NULL,
        reason TEXT NOT NULL,
        marked_at {time} NOT NULL,
        PRIMARY KEY (platform, target, to_user)
    );
    CREATE INDEX unreachable_recipients_by_time ON unreachable_recipients (marked_at);
    """,
    # 12: reviews on FSRS (bot/review.py): review_items.box holds the card's FSRS state (1
    # learning, 2 review, 3 relearning) and the new card column its memory as JSON ({{ }}
    # are literal braces). Leitner boxes become cards due when the box was: box 1 (missed)
    # relearning, boxes 2 to 5 in review with a stability of the box's interval in days.
    """
    ALTER TABLE review_items ADD COLUMN card TEXT;
    UPDATE review_items SET
        card = '{{"difficulty":5.0,"stability":'
            || (CASE box WHEN 1 THEN '0.5' WHEN 2 THEN '1.0' WHEN 3 THEN '3.0'
                WHEN 4 THEN '7.0' ELSE '16.0' END)
            || ',"step":' || (CASE WHEN box = 1 THEN '0' ELSE 'null' END) || '}}',
        box = CASE WHEN box = 1 THEN 3 ELSE 2 END;
    """,
    # 13: chat members: who the bot has seen in each group chat or channel (no platform lists a
    # group's members to a bot), so that a report can say how many have not started.
    """
    CREATE TABLE chat_members (
        platform TEXT NOT NULL,
        chat_id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        display_name TEXT,
        first_seen {time} NOT NULL,
        last_seen {time} NOT NULL,
        PRIMARY KEY (platform, chat_id, user_id)
    );
    """,
    # 14: assignments: a quiz a chat's admin sets with a deadline (read in the time zone of
    # zone_chat: the chat itself, or a Discord channel's server), and the attempts that count
    # for it (one row per attempt a member started or resumed from the assignment).
    """
    CREATE TABLE assignments (
        id {id},
        platform TEXT NOT NULL,
        chat_id TEXT NOT NULL,
        quiz_id TEXT NOT NULL,
        created_by TEXT NOT NULL,
        language TEXT NOT NULL,
        created_at {time} NOT NULL,
        deadline {time} NOT NULL,
        cancelled_at {time},
        zone_chat TEXT NOT NULL
    );
    CREATE INDEX assignments_by_chat ON assignments (platform, chat_id, deadline);
    CREATE TABLE assignment_attempts (
        assignment_id {ref} NOT NULL REFERENCES assignments (id),
        attempt_id {ref} NOT NULL REFERENCES attempts (id),
        user_id TEXT NOT NULL,
        linked_at {time} NOT NULL,
        PRIMARY KEY (assignment_id, attempt_id)
    );
    """,
    # 15: round kinds: a chat's daily question is a round of its own kind, open for hours beside
    # a group round (one active round per chat and kind), its times shown in a time zone.
    """
    ALTER TABLE rounds ADD COLUMN kind TEXT NOT NULL DEFAULT 'group';
    ALTER TABLE rounds ADD COLUMN time_zone TEXT;
    DROP INDEX one_active_round_per_chat;
    CREATE UNIQUE INDEX one_active_round_per_chat_and_kind ON rounds (platform, chat_id, kind)
        WHERE status = 'active';
    """,
    # 16: the daily question: each chat's setting, one post per chat and local day (with the
    # round that asks it), and the attempts of a chat found by chat for its leaderboards.
    """
    CREATE TABLE daily_settings (
        platform TEXT NOT NULL,
        chat_id TEXT NOT NULL,
        enabled {bool} NOT NULL,
        local_time TEXT NOT NULL,
        weekdays_only {bool} NOT NULL,
        quiz_ids TEXT NOT NULL,
        close_minutes INTEGER NOT NULL,
        language TEXT NOT NULL,
        chat_title TEXT,
        zone_chat TEXT NOT NULL,
        set_by TEXT NOT NULL,
        updated_at {time} NOT NULL,
        PRIMARY KEY (platform, chat_id)
    );
    CREATE TABLE daily_posts (
        id {id},
        platform TEXT NOT NULL,
        chat_id TEXT NOT NULL,
        day TEXT NOT NULL,
        cycle INTEGER NOT NULL,
        quiz_id TEXT NOT NULL,
        question_id TEXT NOT NULL,
        round_id {ref} NOT NULL REFERENCES rounds (id),
        due_at {time} NOT NULL
    );
    CREATE UNIQUE INDEX daily_posts_once ON daily_posts (platform, chat_id, day);
    CREATE INDEX daily_posts_by_round ON daily_posts (round_id);
    CREATE INDEX attempts_by_chat ON attempts (platform, chat_id);
    """,
    # 17: an assignment keeps the title of the chat it was set in (NULL before this), so that
    # a reminder in a member's private chat says which group's assignment it is.
    """
    ALTER TABLE assignments ADD COLUMN chat_title TEXT;
    """,
]


def migrations(dialect: Dialect) -> list[str]:
    """Every migration's script for ``dialect``, placeholders filled in."""
    rendered: list[str] = []
    for migration in MIGRATIONS:
        script = migration if isinstance(migration, str) else migration[dialect]
        rendered.append(script.format_map(TYPES[dialect]))
    return rendered
