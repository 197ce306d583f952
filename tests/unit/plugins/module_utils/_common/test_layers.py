# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The module_utils import no cycle, not even through an import inside a function: the workspace
state document sits below the resource model, the backend options in a module of their own,
and the shared rules (_common) import no family."""

from __future__ import annotations

import ast
import pathlib

ROOT = pathlib.Path(__file__).parents[5] / "plugins" / "module_utils"


def imports_of(path: pathlib.Path) -> set[str]:
    """The module_utils modules ``path`` imports (relative imports, wherever they are written)."""
    package = list(path.relative_to(ROOT).with_suffix("").parts)
    if path.name == "__init__.py":
        package.append("__init__")
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package[: len(package) - node.level]
            if node.module:
                found.add(".".join([*base, node.module]))
            else:
                found.update(".".join([*base, alias.name]) for alias in node.names)
    return found


def graph() -> dict[str, set[str]]:
    modules = {".".join(path.relative_to(ROOT).with_suffix("").parts): path for path in ROOT.rglob("*.py")}
    assert "_workspace.resources" in modules, ROOT
    return {name: {dep for dep in imports_of(path) if dep in modules} for name, path in modules.items()}


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    done: set[str] = set()

    def visit(node: str, trail: list[str]) -> list[str] | None:
        for dep in sorted(edges.get(node, ())):
            if dep in trail:
                return [*trail[trail.index(dep) :], dep]
            if dep not in done:
                cycle = visit(dep, [*trail, dep])
                if cycle:
                    return cycle
        done.add(node)
        return None

    for start in sorted(edges):
        cycle = visit(start, [start])
        if cycle:
            return cycle
    return None


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_module_utils_have_no_import_cycle() -> None:
    assert find_cycle(graph()) is None


def test_the_shared_rules_import_no_family() -> None:
    edges = graph()
    assert {dep for name, deps in edges.items() if name.startswith("_common.") for dep in deps if not dep.startswith("_common.")} == set()


def test_the_state_document_is_below_the_resource_model() -> None:
    edges = graph()
    assert edges["_workspace.document"] <= {"_workspace.errors"}
    assert "_workspace.backend" not in edges["_workspace.resources"]
