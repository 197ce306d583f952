# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""What every resource module of the three families returns for a plan (the plan callback reads
it): ``operation`` in Terraform's words, and the option paths a change touches, never values."""

from __future__ import annotations

import typing as t

__all__ = ["PLAN_OPERATIONS", "PLAN_STAT", "changed_paths", "hidden_result_plan", "not_there_yet", "publish_hidden_plan"]

PLAN_OPERATIONS = ("create", "update", "replace", "delete", "none")

# The custom stat (set_stats' channel) that carries the plan of a result no_log hides.
PLAN_STAT = "devinfra_plan"


def not_there_yet(message: str) -> str:
    """The warning of a check run that finds missing what an earlier task of the same run would
    make (a pool, an agent): it plans on, as the real run would after that task."""
    return f"{message} (yet: in check mode, an earlier task may only have predicted it)"


def changed_paths(before: t.Any, after: t.Any, prefix: str = "") -> list[str]:
    """The option paths at which two views (a diff's before and after) differ: names only,
    never values."""
    if isinstance(before, dict) and isinstance(after, dict):
        paths: list[str] = []
        for key in sorted(set(before) | set(after), key=str):
            path = f"{prefix}.{key}" if prefix else str(key)
            if key not in before or key not in after:
                paths.append(path)
            else:
                paths.extend(changed_paths(before[key], after[key], path))
        return paths
    return [] if before == after or not prefix else [prefix]


def hidden_result_plan(module: str, result: t.Mapping[str, t.Any], aliases: t.Mapping[str, str] | None = None, *, hidden: bool = True) -> dict[str, t.Any]:
    """The ``ansible_stats`` a result hidden by no_log carries, so that the plan still shows
    what it does: callbacks see only ``changed`` of such a result, while custom stats reach the
    end of the play whole. Names only: the address, the operation, the changed option paths and
    ``aliases`` (an id children of this resource name it by, mapped to its key), never a value.
    A shown result with aliases publishes them too (``hidden`` false: its plan is its result).
    Per host, aggregated; any task can publish under this key, so the plan callback takes an
    entry only as ansible-core merges it for this very result, never by what the entry says."""
    entry = {
        "module": module,
        "address": result["address"],
        "operation": result["operation"],
        "changed_paths": list(result.get("changed_paths") or []),
        "aliases": dict(aliases or {}),
        "hidden": hidden,
    }
    return {"data": {PLAN_STAT: [entry]}, "per_host": True, "aggregate": True}


def publish_hidden_plan(module: t.Any, result: dict[str, t.Any]) -> None:
    """Add the plan to the result of an AnsibleModule whose task is no_log, under the module's
    own name (the callback matches it to the task's; an address may name another module, as
    libvirt_domain_action's names the domain)."""
    if module.no_log:
        result["ansible_stats"] = hidden_result_plan(module._name.rsplit(".", 1)[-1], result)
