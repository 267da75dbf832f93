"""A production install made from the lock file alone runs the bot, as a platform would.

A fresh virtual environment gets ``pip install --no-deps -r requirements.txt`` (so a package
the lock lacks is missing, not quietly resolved), from PyPI only, ignoring this machine's pip
configuration. Then, against the fake Bot API:

- the Procfile's ``web`` command from the checkout, without installing the project (what Heroku
  and Render run after ``pip install -r requirements.txt``);
- the ``quizbot run`` console script of the project installed with ``--no-deps`` from a copy of
  the source, away from the checkout (what the Dockerfile and a plain server run).

Each must poll Telegram, answer /start, serve ``GET /healthz`` with 200 on ``$PORT`` and exit 0
on SIGTERM. Needs PyPI (or pip's cache) for the packages.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from fakes.telegram_bot_api import TOKEN, FakeBotApi
from tests.conftest import QUIZ_DIR, ROOT

pytestmark = pytest.mark.slow  # builds a virtual environment of about 250 MB

# What a package build needs from the checkout (the wheel's packages, its data file, metadata).
SOURCE = ["pyproject.toml", "README.md", "bot", "adapters", "quizbot", "schema"]


def fresh_machine_env(**extra: str) -> dict[str, str]:
    """This environment without pip's local settings and without our own variables."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PIP_", "PYTHON", "TELEGRAM_", "DISCORD_", "VIRTUAL_ENV"))
        and k not in {"DATABASE_URL", "QUIZ_DIR", "QUIZ_CACHE_DIR", "PORT", "WEBHOOK_URL"}
    }
    # No config files: PyPI alone, no local wheel folders or constraints (pip's cache stays).
    return {**env, "PIP_CONFIG_FILE": os.devnull, "PIP_DISABLE_PIP_VERSION_CHECK": "1", **extra}


def pip(venv: Path, *args: str) -> None:
    result = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", *args],
        env=fresh_machine_env(),
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert result.returncode == 0, f"pip {' '.join(args)}:\n{result.stdout}\n{result.stderr}"


@pytest.fixture(scope="module")
def production_venv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    venv = tmp_path_factory.mktemp("deploy") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    pip(venv, "install", "--quiet", "--no-deps", "-r", str(ROOT / "requirements.txt"))
    # Every installed package's own requirements are installed too: the lock is complete.
    pip(venv, "check")
    yield venv
    shutil.rmtree(venv, ignore_errors=True)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def healthz(port: int) -> int | None:
    """The status of GET /healthz, or None while nothing answers."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return None


async def run_until_healthy(command: list[str], cwd: Path, tmp_path: Path) -> None:
    """Start ``command`` as a web process against the fake Bot API; check that it polls,
    answers /start and is healthy; SIGTERM it and expect exit code 0."""
    api = FakeBotApi(max_poll_wait=0.2)
    await api.start()
    port = free_port()
    env = fresh_machine_env(
        TELEGRAM_BOT_TOKEN=TOKEN,
        TELEGRAM_API_BASE_URL=api.base_url,
        PORT=str(port),
        DATABASE_URL=f"sqlite:///{tmp_path / 'quizbot.db'}",
        QUIZ_DIR=str(QUIZ_DIR),
        QUIZ_CACHE_DIR="",
    )
    log = tmp_path / "quizbot.log"
    with log.open("wb") as out:
        proc = await asyncio.create_subprocess_exec(
            *command, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT
        )
    try:
        try:
            await api.wait_for("getUpdates", within=60)
            loop = asyncio.get_running_loop()
            deadline = loop.time() + 30
            status = None
            while status != 200 and loop.time() < deadline and proc.returncode is None:
                status = await asyncio.to_thread(healthz, port)
                await asyncio.sleep(0.2)
            assert status == 200, f"GET /healthz: {status}"
            user = api.user(4242, "Deployer")
            api.send_text(user, api.private_chat(user), "/start")
            await api.wait_for("sendMessage", within=30)
        except AssertionError as error:
            raise AssertionError(f"{error}\n{log.read_text(errors='replace')}") from None
        proc.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(proc.wait(), timeout=20)
        assert code == 0, log.read_text(errors="replace")
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        await api.close()


def procfile_command(process: str) -> list[str]:
    for line in (ROOT / "Procfile").read_text(encoding="utf-8").splitlines():
        name, _, command = line.partition(":")
        if name.strip() == process:
            return shlex.split(command)
    raise AssertionError(f"the Procfile has no {process} process")


async def test_the_procfile_runs_from_the_checkout_with_requirements_txt_alone(
    production_venv: Path, tmp_path: Path
) -> None:
    command = procfile_command("web")
    assert command[0] == "python", "the platform's python, which has requirements.txt"
    # The project itself is not installed: the checkout (the platform's working directory) is.
    await run_until_healthy([str(production_venv / "bin" / "python"), *command[1:]], ROOT, tmp_path)


async def test_the_installed_quizbot_command_runs_away_from_the_checkout(
    production_venv: Path, tmp_path: Path
) -> None:
    source = tmp_path / "source"
    source.mkdir()
    for name in SOURCE:
        if (ROOT / name).is_dir():
            shutil.copytree(
                ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__")
            )
        else:
            shutil.copy2(ROOT / name, source / name)
    await asyncio.to_thread(pip, production_venv, "install", "--quiet", "--no-deps", str(source))
    shutil.rmtree(source)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    await run_until_healthy([str(production_venv / "bin" / "quizbot"), "run"], elsewhere, tmp_path)

    # The wheel brought the JSON Schema: validate checks against it, with nothing to install.
    validate = await asyncio.to_thread(
        subprocess.run,
        [str(production_venv / "bin" / "quizbot"), "validate", str(QUIZ_DIR)],
        cwd=elsewhere,
        env=fresh_machine_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert validate.returncode == 0, validate.stderr
    assert "note:" not in validate.stdout, validate.stdout
    assert validate.stdout.count("ok: ") == len(list(QUIZ_DIR.glob("*.yaml")))
