"""The PostgreSQL schema as versions 1-4 wrote it, before the schema had one source.

Frozen here so that tests can make a database the way an existing deployment has one and
check that migration 5 brings it to the same schema as a fresh database.
"""

OLD_POSTGRES_MIGRATIONS: list[str] = [
    """
    CREATE TABLE users (
        platform TEXT NOT NULL,
        user_id TEXT NOT NULL,
        display_name TEXT,
        language TEXT,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (platform, user_id)
    );
    CREATE TABLE attempts (
        id BIGSERIAL PRIMARY KEY,
        platform TEXT NOT NULL,
        user_id TEXT NOT NULL,
        chat_id TEXT,
        quiz_id TEXT NOT NULL,
        question_order TEXT NOT NULL,
        option_order TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('active', 'completed', 'abandoned')),
        started_at TIMESTAMPTZ NOT NULL,
        updated_at TIMESTAMPTZ NOT NULL,
        finished_at TIMESTAMPTZ,
        FOREIGN KEY (platform, user_id) REFERENCES users (platform, user_id)
    );
    CREATE UNIQUE INDEX one_active_attempt_per_quiz
        ON attempts (platform, user_id, quiz_id) WHERE status = 'active';
    CREATE INDEX attempts_by_user ON attempts (platform, user_id, updated_at);
    CREATE TABLE answers (
        seq BIGSERIAL,
        attempt_id BIGINT NOT NULL REFERENCES attempts (id) ON DELETE CASCADE,
        question_id TEXT NOT NULL,
        option_id TEXT NOT NULL,
        correct BOOLEAN NOT NULL,
        answered_at TIMESTAMPTZ NOT NULL,
        PRIMARY KEY (attempt_id, question_id)
    );
    """,
    """
    CREATE TABLE kv (
        scope TEXT NOT NULL,
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (scope, key)
    );
    """,
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
        due_at TIMESTAMPTZ NOT NULL,
        PRIMARY KEY (platform, user_id, quiz_id, question_id)
    );
    """,
    """
    CREATE TABLE rounds (
        id BIGSERIAL PRIMARY KEY,
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
        question_started_at TIMESTAMPTZ NOT NULL,
        deadline TIMESTAMPTZ NOT NULL,
        started_at TIMESTAMPTZ NOT NULL,
        finished_at TIMESTAMPTZ
    );
    CREATE UNIQUE INDEX one_active_round_per_chat ON rounds (platform, chat_id)
        WHERE status = 'active';
    CREATE INDEX rounds_by_deadline ON rounds (deadline) WHERE status = 'active';
    CREATE TABLE round_answers (
        round_id BIGINT NOT NULL REFERENCES rounds (id),
        number INTEGER NOT NULL,
        user_id TEXT NOT NULL,
        display_name TEXT,
        option_id TEXT NOT NULL,
        correct BOOLEAN NOT NULL,
        elapsed_ms INTEGER NOT NULL,
        answered_at TIMESTAMPTZ NOT NULL,
        PRIMARY KEY (round_id, number, user_id)
    );
    """,
]
