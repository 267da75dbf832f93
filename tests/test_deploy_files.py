"""The files each platform builds from: Dockerfile, app.json (Heroku), render.yaml, fly.toml.

No container engine runs here, so the Dockerfile is read, not built: it must install the lock
and then the project without resolving anything, run ``quizbot run`` as an unprivileged user,
and its HEALTHCHECK command (run here for real against the bot's own HTTP server) must pass on
200 and fail on 503 or silence. The platform files must agree with the Procfile, the Dockerfile
and the variables the bot reads.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
import shlex
import socket
import sys
import tomllib
from typing import Any

import pytest
import yaml

from fakes.telegram_bot_api import TOKEN
from quizbot.settings import Settings
from quizbot.web import HEALTH_PATH, WebServer
from tests.conftest import ROOT

PACKAGE_MANAGER_FILES = {"requirements.txt", "Pipfile", "Pipfile.lock", "poetry.lock", "uv.lock"}


def dockerfile() -> list[tuple[str, str]]:
    """The Dockerfile's instructions as (KEYWORD, arguments), continuation lines joined."""
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    joined = re.sub(r"\\\n\s*", " ", "\n".join(lines))
    instructions = []
    for line in joined.splitlines():
        if line.strip():
            keyword, _, args = line.strip().partition(" ")
            instructions.append((keyword.upper(), args.strip()))
    return instructions


def args_of(keyword: str) -> list[str]:
    return [args for kw, args in dockerfile() if kw == keyword]


def image_env() -> dict[str, str]:
    env = {}
    for args in args_of("ENV"):
        env.update(dict(pair.split("=", 1) for pair in shlex.split(args)))
    return env


def procfile() -> dict[str, str]:
    lines = (ROOT / "Procfile").read_text(encoding="utf-8").splitlines()
    return {name.strip(): command.strip() for name, _, command in (x.partition(":") for x in lines)}


class ReadingEnv(dict[str, str]):
    """An environment that records every variable asked of it."""

    def __init__(self, values: dict[str, str]) -> None:
        super().__init__(values)
        self.read: set[str] = set()

    def get(self, key: str, default: Any = None) -> Any:
        self.read.add(key)
        return super().get(key, default)


# Read, but not the bot's own configuration: the standard cache base QUIZ_CACHE_DIR defaults
# under (the README names it there).
STANDARD_VARIABLES = {"XDG_CACHE_HOME"}


def variables_the_bot_reads() -> set[str]:
    """Every variable ``Settings.from_env`` asks the environment for (QUIZ_CACHE_DIR too)."""
    env = ReadingEnv({"QUIZ_DIR": str(ROOT / "quizzes")})
    Settings.from_env(env)
    return env.read - STANDARD_VARIABLES


def readme_variables() -> set[str]:
    """The variables of the README's configuration table (a row may name several)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Configuration\n", 1)[1].split("\n## ", 1)[0]
    rows = [line.split("|")[1] for line in section.splitlines() if line.startswith("| `")]
    return {name for cell in rows for name in re.findall(r"`([A-Z][A-Z0-9_]+)`", cell)}


# What each platform sets itself, so its file does not ask for it.
SET_BY_HEROKU = {"DATABASE_URL", "PORT"}  # the Postgres add-on; Heroku, for web dynos
SET_BY_RENDER = {"PORT"}  # Render gives every web service its port (DATABASE_URL: wired)


def python_version() -> str:
    return (ROOT / ".python-version").read_text(encoding="utf-8").strip()


def test_the_python_version_is_one_the_project_supports_and_the_image_uses() -> None:
    version = python_version()
    assert re.fullmatch(r"3\.\d+", version), "major version form, so platforms take patches"
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert requires == ">=3.11" and int(version.split(".")[1]) >= 11
    assert args_of("FROM") == [f"python:{version}-slim"]


def test_the_image_installs_the_lock_then_the_project_resolving_nothing() -> None:
    instructions = dockerfile()
    installs = [
        (index, args)
        for index, (kw, args) in enumerate(instructions)
        if kw == "RUN" and "pip install" in args
    ]
    assert [args.split("&&")[0].strip() for _, args in installs] == [
        "pip install --no-deps -r requirements.txt",
        "pip install --no-deps .",
    ]
    copied_lock = instructions.index(("COPY", "requirements.txt ./"))
    assert copied_lock < installs[0][0]
    ignored = (ROOT / ".dockerignore").read_text(encoding="utf-8").split()
    for args in args_of("COPY"):
        *sources, _target = args.split()
        for source in sources:
            assert (ROOT / source).exists(), source
            assert source not in ignored, source


def test_the_image_runs_quizbot_as_an_unprivileged_user() -> None:
    instructions = dockerfile()
    users = [(i, args) for i, (kw, args) in enumerate(instructions) if kw == "USER"]
    last_run = max(i for i, (kw, _) in enumerate(instructions) if kw == "RUN")
    assert users and users[-1][0] > last_run, "every RUN as root, then the user for good"
    user = users[-1][1]
    assert user not in {"root", "0"} and not user.startswith(("root:", "0:"))
    assert any(
        "useradd" in args and args.split("&&")[0].split()[-1] == user for args in args_of("RUN")
    )
    assert [json.loads(args) for args in args_of("CMD")] == [["quizbot", "run"]]


def test_the_image_serves_healthz_on_the_port_it_exposes() -> None:
    env = image_env()
    assert args_of("EXPOSE") == [env["PORT"]]
    # Its defaults are a configuration the bot accepts (with a token given at run time), and
    # progress lives on the volume the image prepares, not in the read-only /app.
    settings = Settings.from_env(
        {**env, "QUIZ_DIR": str(ROOT / "quizzes"), "TELEGRAM_BOT_TOKEN": TOKEN}
    )
    assert settings.serve_http
    assert env["DATABASE_URL"] == "sqlite:////data/quizbot.db"
    assert any("mkdir /data" in args and "chown" in args for args in args_of("RUN"))


def healthcheck_command() -> list[str]:
    (args,) = args_of("HEALTHCHECK")
    options, _, command = args.partition("CMD ")
    assert "--timeout=" in options and "--interval=" in options
    parsed = json.loads(command)
    assert isinstance(parsed, list) and parsed[0] == "python", "exec form; no curl in slim"
    return [sys.executable, *parsed[1:]]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def run_healthcheck(port: int) -> int:
    proc = await asyncio.create_subprocess_exec(
        *healthcheck_command(),
        env={"PORT": str(port), "PATH": "/usr/bin:/bin"},
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    return await asyncio.wait_for(proc.wait(), timeout=30)


@pytest.mark.parametrize("healthy", [True, False])
async def test_the_healthcheck_passes_on_200_and_fails_on_503(healthy: bool) -> None:
    async def database_answers() -> bool:
        return healthy

    server = WebServer(database_answers)
    port = free_port()
    await server.start("127.0.0.1", port)
    try:
        assert (await run_healthcheck(port) == 0) is healthy
    finally:
        await server.stop()


async def test_the_healthcheck_fails_when_nothing_answers() -> None:
    assert await run_healthcheck(free_port()) != 0


def test_heroku_builds_with_pip_alone() -> None:
    """Heroku refuses a build with two package manager files; .slugignore removes uv.lock
    before the buildpack looks, so it installs requirements.txt."""
    hidden = set((ROOT / ".slugignore").read_text(encoding="utf-8").split())
    present = {name for name in PACKAGE_MANAGER_FILES if (ROOT / name).exists()}
    assert present - hidden == {"requirements.txt"}


def app_json() -> dict[str, Any]:
    return json.loads((ROOT / "app.json").read_text(encoding="utf-8"))


def test_app_json_provisions_postgres_and_runs_the_procfile() -> None:
    app = app_json()
    assert [addon["plan"].split(":")[0] for addon in app["addons"]] == ["heroku-postgresql"]
    assert app["addons"][0].get("as", "DATABASE") == "DATABASE"  # so DATABASE_URL is set
    assert set(app["formation"]) == set(procfile())
    assert sum(process["quantity"] for process in app["formation"].values()) == 1
    assert app["buildpacks"] == [{"url": "heroku/python"}]


def test_every_variable_the_bot_reads_is_in_the_readmes_configuration_table() -> None:
    read = variables_the_bot_reads()
    assert {"DATABASE_URL", "QUIZ_CACHE_DIR", "CLAIM_LEASE_SECONDS"} <= read  # (the reading)
    assert readme_variables() == read


def test_app_json_asks_for_every_variable_heroku_does_not_set_and_describes_each() -> None:
    env = app_json()["env"]
    assert set(env) == readme_variables() - SET_BY_HEROKU
    for name, spec in env.items():
        assert len(spec.get("description", "")) > 20, name
        assert spec.get("required") is False, name  # none is needed by every deployment
    # A value it fills in is the bot's own default: deploying changes nothing by it.
    given = {name: spec["value"] for name, spec in env.items() if "value" in spec}
    base = {"QUIZ_DIR": str(ROOT / "quizzes"), "TELEGRAM_BOT_TOKEN": TOKEN}
    assert Settings.from_env({**given, **base}) == Settings.from_env(base)


def test_an_optional_variable_left_empty_is_as_if_unset() -> None:
    """What a platform's form sets for a field left blank: the default (QUIZ_CACHE_DIR's
    empty value turns the quiz cache off, which a wiped disk makes moot)."""
    base = {"QUIZ_DIR": str(ROOT / "quizzes"), "TELEGRAM_BOT_TOKEN": TOKEN}
    blank = Settings.from_env({**{name: "" for name in readme_variables()}, **base})
    unset = Settings.from_env(base)
    assert blank.quiz_cache_dir is None and unset.quiz_cache_dir is not None
    assert dataclasses.replace(blank, quiz_cache_dir=None) == dataclasses.replace(
        unset, quiz_cache_dir=None
    )


def test_render_yaml_builds_from_the_lock_and_checks_healthz() -> None:
    blueprint = yaml.safe_load((ROOT / "render.yaml").read_text(encoding="utf-8"))
    (service,) = blueprint["services"]
    assert service["type"] == "web" and service["runtime"] == "python"
    assert service["buildCommand"] == "pip install -r requirements.txt"
    assert service["startCommand"] == procfile()["web"]
    assert service["healthCheckPath"] == HEALTH_PATH
    keys = {var["key"]: var for var in service["envVars"]}
    assert set(keys) == readme_variables() - SET_BY_RENDER
    database = keys["DATABASE_URL"]["fromDatabase"]
    assert database["property"] == "connectionString"
    assert database["name"] in {db["name"] for db in blueprint["databases"]}
    # Every other one is the operator's to give (or leave empty: the same as unset).
    assert all(var.get("sync") is False for key, var in keys.items() if key != "DATABASE_URL")


def test_fly_toml_runs_the_image_and_checks_healthz_on_its_port() -> None:
    fly = tomllib.loads((ROOT / "fly.toml").read_text(encoding="utf-8"))
    assert (ROOT / fly["build"]["dockerfile"]).is_file()
    env = image_env()
    assert str(fly["http_service"]["internal_port"]) == fly["env"]["PORT"] == env["PORT"]
    assert [check["path"] for check in fly["http_service"]["checks"]] == [HEALTH_PATH]
    assert fly["http_service"]["auto_stop_machines"] == "off"  # a polling bot gets no requests
    database_dir = env["DATABASE_URL"].removeprefix("sqlite:///").rsplit("/", 1)[0]
    assert fly["mounts"]["destination"] == database_dir


def test_fly_toml_and_the_deploy_guide_name_every_variable() -> None:
    """fly.toml sets PORT and names the others where they would go; docs/deploy.md lists
    them all in its table of variables."""
    fly_text = (ROOT / "fly.toml").read_text(encoding="utf-8")
    fly = tomllib.loads(fly_text)
    assert set(fly["env"]) == {"PORT"}
    env_section = fly_text.split("[env]", 1)[1].split("\n[", 1)[0]
    assert {name for name in readme_variables() if name in env_section} == readme_variables()
    guide = (ROOT / "docs" / "deploy.md").read_text(encoding="utf-8")
    table = guide.split("\n## Variables\n", 1)[1].split("\n## ", 1)[0]
    named = set(re.findall(r"`([A-Z][A-Z0-9_]+)`", table))
    assert readme_variables() <= named
