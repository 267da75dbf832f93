"""Both backends' migrated schemas match: tables, columns, nullability, defaults, keys, indexes.

Types are compared through the one schema source's mapping (a PostgreSQL TIMESTAMPTZ is
SQLite's TEXT, BOOLEAN is INTEGER), so a column written with another type in one dialect
shows up here. Also checked: a PostgreSQL database made by the old hand-written schema of
versions 1-4 reaches the same schema, with its answers' order kept.
"""

from __future__ import annotations

import re
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bot.storage import SQLiteStorage
from bot.storage.schema import migrations
from bot.storage.sqlite.writer import _statements
from tests.conftest import postgres_url, reset_postgres
from tests.old_postgres_schema import OLD_POSTGRES_MIGRATIONS

Schema = dict[str, Any]

PG_TYPES = {
    "text": "TEXT",
    "timestamp with time zone": "TEXT",
    "integer": "INTEGER",
    "bigint": "INTEGER",
    "boolean": "INTEGER",
}


def _default(value: str | None) -> str | None:
    if value is None or value.startswith("nextval("):
        return None  # an id's sequence: SQLite's INTEGER PRIMARY KEY does the same
    return re.sub(r"::[a-z ]+$", "", value)


def sqlite_schema(path: Path) -> Schema:
    conn = sqlite3.connect(path)
    try:
        schema: Schema = {}
        tables = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' "
                "AND name NOT LIKE 'sqlite_%' ORDER BY name"
            )
        ]
        for table in tables:
            columns = {
                name: (kind.upper(), bool(notnull or pk), _default(d))
                for _, name, kind, notnull, d, pk in conn.execute(f"PRAGMA table_info({table})")
            }
            pk = [
                name
                for _, name, *_, position in sorted(
                    conn.execute(f"PRAGMA table_info({table})"), key=lambda r: r[5]
                )
                if position
            ]
            indexes = {}
            for _, name, unique, origin, partial in conn.execute(f"PRAGMA index_list({table})"):
                if origin == "pk":
                    continue
                cols = [r[2] for r in conn.execute(f"PRAGMA index_info({name})")]
                indexes[name] = (bool(unique), tuple(cols), bool(partial))
            schema[table] = {"columns": columns, "primary_key": pk, "indexes": indexes}
        return schema
    finally:
        conn.close()


async def postgres_schema(url: str) -> Schema:
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        schema: Schema = {}
        for (table,) in await conn.fetch(
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema = 'public' ORDER BY table_name"
        ):
            columns = {
                r["column_name"]: (
                    PG_TYPES[r["data_type"]],
                    r["is_nullable"] == "NO",
                    _default(r["column_default"]),
                )
                for r in await conn.fetch(
                    "SELECT column_name, data_type, is_nullable, column_default "
                    "FROM information_schema.columns WHERE table_schema = 'public' "
                    "AND table_name = $1",
                    table,
                )
            }
            pk = [
                r[0]
                for r in await conn.fetch(
                    "SELECT a.attname FROM pg_index i "
                    "JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) "
                    "WHERE i.indrelid = $1::regclass AND i.indisprimary "
                    "ORDER BY array_position(i.indkey, a.attnum)",
                    table,
                )
            ]
            indexes = {}
            for r in await conn.fetch(
                "SELECT c.relname, i.indisunique, i.indpred IS NOT NULL AS partial, "
                "ARRAY(SELECT a.attname FROM unnest(i.indkey) WITH ORDINALITY k(n, o) "
                "JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.n "
                "ORDER BY k.o) AS cols "
                "FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
                "WHERE i.indrelid = $1::regclass AND NOT i.indisprimary",
                table,
            ):
                indexes[r["relname"]] = (r["indisunique"], tuple(r["cols"]), r["partial"])
            schema[table] = {"columns": columns, "primary_key": pk, "indexes": indexes}
        return schema
    finally:
        await conn.close()


def test_every_migration_renders_for_both_dialects_and_splits_into_whole_statements():
    sqlite, postgres = migrations("sqlite"), migrations("postgres")
    assert len(sqlite) == len(postgres)
    for script in sqlite:
        for statement in _statements(script):
            assert sqlite3.complete_statement(statement)
    # A ';' inside a literal does not end a statement.
    assert _statements("SELECT 'a;b'; SELECT 2;") == ["SELECT 'a;b';", "SELECT 2;"]


async def test_both_migrated_schemas_match_table_by_table_column_by_column(tmp_path):
    url = postgres_url()
    assert url is not None
    path = tmp_path / "parity.db"
    store = SQLiteStorage(path)
    await store.open()
    await store.close()
    await reset_postgres(url)
    from bot.storage.postgres import PostgresStorage

    pg = PostgresStorage(url)
    await pg.open()
    await pg.close()
    lite, post = sqlite_schema(path), await postgres_schema(url)
    assert sorted(lite) == sorted(post)
    for table in lite:
        assert lite[table] == post[table], table


async def test_an_old_postgres_database_is_migrated_to_the_same_schema(tmp_path):
    import asyncpg

    from bot.storage.postgres import PostgresStorage

    url = postgres_url()
    assert url is not None
    await reset_postgres(url)
    fresh = PostgresStorage(url)
    await fresh.open()
    await fresh.close()
    expected = await postgres_schema(url)
    await reset_postgres(url)
    conn = await asyncpg.connect(url)
    try:  # a database as version 4 of the program left it, with answers in two attempts
        await conn.execute("CREATE TABLE schema_version (version INTEGER)")
        for script in OLD_POSTGRES_MIGRATIONS:
            await conn.execute(script)
        await conn.execute("INSERT INTO schema_version VALUES ($1)", len(OLD_POSTGRES_MIGRATIONS))
        t = datetime(2026, 1, 1, tzinfo=UTC)
        await conn.execute("INSERT INTO users (platform, user_id) VALUES ('t', 'u')")
        for _ in range(2):
            await conn.execute(
                "INSERT INTO attempts (platform, user_id, quiz_id, question_order, option_order, "
                "status, started_at, updated_at) VALUES ('t', 'u', 'q', '[]', '{}', 'completed', "
                "$1, $1)",
                t,
            )
        for attempt, question in [(1, "b"), (2, "x"), (1, "a"), (2, "y"), (1, "c")]:
            await conn.execute(
                "INSERT INTO answers (attempt_id, question_id, option_id, correct, answered_at) "
                "VALUES ($1, $2, 'o', true, $3)",
                attempt,
                question,
                t,
            )
    finally:
        await conn.close()
    store = PostgresStorage(url)
    await store.open()
    try:
        assert [a.question_id for a in await store.answers(1)] == ["b", "a", "c"]
        assert [a.question_id for a in await store.answers(2)] == ["x", "y"]
    finally:
        await store.close()
    assert await postgres_schema(url) == expected
    conn = await asyncpg.connect(url)
    try:
        seqs = await conn.fetch("SELECT attempt_id, seq FROM answers ORDER BY attempt_id, seq")
        assert [tuple(r) for r in seqs] == [(1, 0), (1, 1), (1, 2), (2, 0), (2, 1)]
    finally:
        await conn.close()


@pytest.mark.parametrize("dialect", ["sqlite", "postgres"])
def test_no_migration_leaves_a_placeholder_unfilled(dialect):
    for script in migrations(dialect):
        assert not re.search(r"\{[a-z_]*\}", script)  # ({{ }} render as literal braces)
