"""The engine's modules import each other in one direction only: no cycle in ``bot/``.

A cycle (the engine building group rounds that import the engine, say) is how the layers of a
ports-and-adapters design melt into one; the type checker hides it when one side imports only
under ``TYPE_CHECKING``, so those imports count here too.
"""

from __future__ import annotations

import ast
import graphlib
from pathlib import Path

import pytest

BOT = Path(__file__).resolve().parent.parent / "bot"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(BOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(tree: ast.Module, known: set[str]) -> set[str]:
    """The ``bot`` modules a module imports at its top level (``if`` blocks included)."""
    found: set[str] = set()
    statements: list[ast.stmt] = []
    for node in tree.body:
        statements += node.body + node.orelse if isinstance(node, ast.If) else [node]
    for node in statements:
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found & known


def import_graph() -> dict[str, set[str]]:
    paths = {module_name(path): path for path in BOT.rglob("*.py")}
    known = set(paths)
    return {name: imported(ast.parse(path.read_text()), known) for name, path in paths.items()}


def test_no_module_of_the_engine_imports_itself_back() -> None:
    graph = import_graph()
    assert "bot.rounds.service" in graph and "bot.engine" in graph["bot.rounds.service"]
    try:
        tuple(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as error:
        pytest.fail(f"import cycle in bot/: {' -> '.join(error.args[1])}")


def test_the_engine_does_not_know_group_rounds() -> None:
    """Rounds sit beside the engine (built by the wiring): the engine never imports them."""
    graph = import_graph()
    assert not {m for m in graph["bot.engine"] if m.startswith("bot.rounds")}


def test_imports_only_for_the_type_checker_count() -> None:
    source = "if TYPE_CHECKING:\n    from bot.engine import QuizEngine\nimport bot.quiz\n"
    known = {"bot.engine", "bot.quiz", "bot.views"}
    assert imported(ast.parse(source), known) == {"bot.engine", "bot.quiz"}
