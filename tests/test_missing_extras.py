"""A command that needs an extra which is not installed says which one, in one line, exit 2.

Each case runs the real ``quizbot`` in a subprocess whose imports of the extra's packages fail
the way they do when a package is not installed: a ``sitecustomize`` module on PYTHONPATH puts
a finder first on ``sys.meta_path`` that raises ``ModuleNotFoundError`` for them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from fakes.telegram_bot_api import TOKEN
from tests.conftest import QUIZ_DIR, ROOT, SEED_QUIZ

BLOCKER = '''
import os
import sys

BLOCKED = set(os.environ["QUIZBOT_TEST_UNINSTALLED"].split(","))


class NotInstalled:
    """Finds the blocked top-level packages nowhere, as an environment without them does."""

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, NotInstalled())
'''


def quizbot(
    tmp_path: Path, uninstalled: str, *args: str, **env: str
) -> subprocess.CompletedProcess[str]:
    """``quizbot ARGS`` with the packages in ``uninstalled`` (comma-separated) unimportable."""
    (tmp_path / "sitecustomize.py").write_text(BLOCKER, encoding="utf-8")
    base = {
        k: v
        for k, v in os.environ.items()
        if k not in {"TELEGRAM_BOT_TOKEN", "DISCORD_BOT_TOKEN", "WEBHOOK_URL", "PORT"}
    }
    full_env = {
        **base,
        "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)]),
        "QUIZBOT_TEST_UNINSTALLED": uninstalled,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'quizbot.db'}",
        "QUIZ_DIR": str(QUIZ_DIR),
        "QUIZ_CACHE_DIR": "",
        **env,
    }
    return subprocess.run(
        [sys.executable, "-m", "quizbot", *args],
        cwd=tmp_path,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def assert_one_line(result: subprocess.CompletedProcess[str], expected: str) -> None:
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines() == [expected]


# A web process (PORT set) is checked before it binds the port: no half-started server.
@pytest.mark.parametrize("module", ["telegram", "aiohttp"])
def test_run_with_a_telegram_token_names_the_telegram_extra(tmp_path: Path, module: str) -> None:
    result = quizbot(tmp_path, module, "run", TELEGRAM_BOT_TOKEN=TOKEN, PORT="8089")
    assert_one_line(
        result,
        "quizbot: TELEGRAM_BOT_TOKEN is set but the Telegram extra is not installed "
        f"(no module '{module}'): pip install -e '.[telegram]'",
    )


def test_run_with_a_discord_token_names_the_discord_extra(tmp_path: Path) -> None:
    result = quizbot(tmp_path, "discord", "run", DISCORD_BOT_TOKEN="not-checked-before-import")
    assert_one_line(
        result,
        "quizbot: DISCORD_BOT_TOKEN is set but the Discord extra is not installed "
        "(no module 'discord'): pip install -e '.[discord]'",
    )


def test_discord_sync_names_the_discord_extra(tmp_path: Path) -> None:
    result = quizbot(tmp_path, "discord", "discord-sync", DISCORD_BOT_TOKEN="x")
    assert_one_line(
        result,
        "quizbot: discord-sync needs discord.py but the Discord extra is not installed "
        "(no module 'discord'): pip install -e '.[discord]'",
    )


# Nothing listens on port 1: the check comes before any connection is tried.
@pytest.mark.parametrize(
    "args",
    [["list"], ["play", SEED_QUIZ], ["run"]],
    ids=["list", "play", "run"],
)
@pytest.mark.parametrize("scheme", ["postgresql", "postgres"])
def test_a_postgresql_database_url_names_the_postgres_extra(
    tmp_path: Path, args: list[str], scheme: str
) -> None:
    result = quizbot(
        tmp_path,
        "asyncpg",
        *args,
        DATABASE_URL=f"{scheme}://quiz@127.0.0.1:1/quiz",
        TELEGRAM_BOT_TOKEN=TOKEN,
    )
    assert_one_line(
        result,
        "quizbot: DATABASE_URL is a PostgreSQL URL but the PostgreSQL extra is not installed "
        "(no module 'asyncpg'): pip install -e '.[postgres]'",
    )


def test_stats_png_names_the_charts_extra(tmp_path: Path) -> None:
    result = quizbot(tmp_path, "matplotlib", "stats", SEED_QUIZ, "--png", "chart.png")
    assert_one_line(
        result,
        "quizbot: a statistics chart was asked for but the charts extra is not installed "
        "(no module 'matplotlib'): pip install -e '.[charts]'",
    )
    assert not (tmp_path / "chart.png").exists()


def test_sqlite_play_needs_no_extra(tmp_path: Path) -> None:
    """The base install plays in the terminal with every extra's packages missing."""
    result = quizbot(
        tmp_path, "telegram,discord,asyncpg,matplotlib,aiohttp", "list", LANG="C.UTF-8"
    )
    assert result.returncode == 0, result.stderr
    assert SEED_QUIZ in result.stdout


def test_validate_checks_the_schema_and_never_asks_to_install_jsonschema(tmp_path: Path) -> None:
    result = quizbot(tmp_path, "telegram,discord,asyncpg,matplotlib", "validate", str(QUIZ_DIR))
    assert result.returncode == 0, result.stderr
    assert "jsonschema" not in result.stdout + result.stderr
    assert "note:" not in result.stdout
