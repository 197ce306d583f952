# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""What every resource module of the three families returns for a plan (the plan callback reads
it): ``operation`` in Terraform's words, and the option paths a change touches, never values."""

from __future__ import annotations

import typing as t

__all__ = ["ABSENT", "PLAN_OPERATIONS", "PLAN_STAT", "changed_paths", "changed_values", "hidden_result_plan", "not_there_yet", "publish_hidden_plan", "refusal"]

PLAN_OPERATIONS = ("create", "update", "replace", "delete", "none")

# The custom stat (set_stats' channel) that carries the plan of a result no_log hides.
PLAN_STAT = "devinfra_plan"


def not_there_yet(message: str) -> str:
    """The warning of a check run that finds missing what an earlier task of the same run would
    make (a pool, an agent): it plans on, as the real run would after that task."""
    return f"{message} (yet: in check mode, an earlier task may only have predicted it)"


def refusal(bad_input: bool) -> dict[str, bool]:
    """What a failed task adds to its result: ``invalid: true`` when it refused bad input before
    anything was touched (a check run refuses it the same way); nothing for a failure of the
    real system (a timeout, a server's refusal), which only a real run meets."""
    return {"invalid": True} if bad_input else {}


# A side of a change where the option is not set at all (distinct from a null value).
ABSENT = object()


def changed_values(before: t.Any, after: t.Any, prefix: str = "") -> list[tuple[str, t.Any, t.Any]]:
    """The option paths at which two views (a diff's before and after) differ, each with its
    value on either side (``ABSENT`` where the path is not there): for the plan callback, which
    shows the values it may (never in a module's result: the paths are all it publishes)."""
    if isinstance(before, dict) and isinstance(after, dict):
        found: list[tuple[str, t.Any, t.Any]] = []
        for key in sorted(set(before) | set(after), key=str):
            path = f"{prefix}.{key}" if prefix else str(key)
            if key not in before or key not in after:
                found.append((path, before.get(key, ABSENT), after.get(key, ABSENT)))
            else:
                found.extend(changed_values(before[key], after[key], path))
        return found
    return [] if before == after or not prefix else [(prefix, before, after)]


def changed_paths(before: t.Any, after: t.Any, prefix: str = "") -> list[str]:
    """The option paths at which two views (a diff's before and after) differ: names only,
    never values."""
    return [path for path, _before, _after in changed_values(before, after, prefix)]


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
