# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: plan
type: aggregate
short_description: Show a check-mode run as a Terraform plan
version_added: 0.5.0
description:
  - Turns a C(--check --diff) run of a play into the summary C(terraform plan) prints, beside any stdout callback.
  - Per host, each resource a task of this collection would change, as Terraform marks it,
    C(+) create, C(~) update in place, C(-/+) replace, C(-) destroy, with the option paths that change
    (never their values); C(<=) read for the C(*_info) modules of this collection.
  - A changed task of another collection is shown as C(?) changed (no plan detail). Unchanged tasks are not listed.
  - Loops are shown per item.
  - A result hidden by C(no_log) (the agent's, which holds its token, or any task with C(no_log=true)) shows
    its address, operation and changed option paths all the same, never a value; the modules of this collection
    publish them for such a result as a custom stat (C(devinfra_plan), the channel of M(ansible.builtin.set_stats)),
    which the callback reads at the end of the play. Where that is missing the result is shown as C(?).
  - In a check run a child of a new workspace agent names the agent by its planned id; the plan addresses it by
    the agent's name, as the real run does.
  - "Closes with C(Plan: N to add, N to change, N to destroy.), counting a replace as one add and one destroy as Terraform does."
  - The address, operation and changed paths come from the C(address), C(operation) and C(changed_paths) a module of this
    collection returns; for a result without them the operation is taken from its diff.
requirements:
  - enabled through C(callbacks_enabled)
options:
  plan_file:
    description:
      - Also write the plan to this file as JSON, a C(resource_changes) list (C(address), C(host), C(module),
        C(actions), C(changed_paths)) and the C(summary) counts, so that CI can gate on it.
      - Written atomically (a temporary file renamed over it, a symbolic link at the path replaced, never followed), mode 0600.
    type: path
    env:
      - name: DEVINFRA_PLAN_FILE
    ini:
      - section: callback_plan
        key: plan_file
"""

EXAMPLES = r"""
# ansible.cfg
# [defaults]
# callbacks_enabled = devinfra.providers.plan
# [callback_plan]
# plan_file = plan.json
#
# ansible-playbook devinfra.providers.workspace_vm --check --diff
#
# localhost:
#   + libvirt_volume.default/ws1-root.qcow2
#   ~ libvirt_domain.ws1
#       memory
#
# Plan: 1 to add, 1 to change, 0 to destroy.
"""

import json
import os
import typing as t

from ansible.plugins.callback import CallbackBase

from ansible_collections.devinfra.providers.plugins.module_utils._common.plan import PLAN_OPERATIONS, PLAN_STAT, changed_paths
from ansible_collections.devinfra.providers.plugins.module_utils._common.safe_files import write_atomic

COLLECTION = "devinfra.providers."
SYMBOLS = {"create": "+", "update": "~", "replace": "-/+", "delete": "-", "read": "<=", "unknown": "?"}
ACTIONS = {"create": ["create"], "update": ["update"], "replace": ["delete", "create"], "delete": ["delete"], "read": ["read"], "unknown": ["unknown"]}
PATH_LIMIT = 50


def short_name(action: str) -> str:
    return action[len(COLLECTION) :] if action.startswith(COLLECTION) else action


def ours(action: str) -> bool:
    return action.startswith(COLLECTION) or (action.startswith(("libvirt_", "workspace_", "storage_")) and "." not in action)


def from_diff(diff: t.Any) -> tuple[str, list[str]]:
    diffs = diff if isinstance(diff, list) else [diff]
    operation, paths = "update", []
    for one in diffs:
        if not isinstance(one, dict):
            continue
        before, after = one.get("before"), one.get("after")
        if before in (None, {}, "") and after not in (None, {}, ""):
            operation = "create"
        elif after in (None, {}, "") and before not in (None, {}, ""):
            operation = "delete"
        paths.extend(changed_paths(before, after))
    return operation, paths


def well_formed(entry: t.Any) -> bool:
    """A plan entry of the custom stats as hidden_result_plan writes it."""
    return (
        isinstance(entry, dict)
        and isinstance(entry.get("module"), str)
        and isinstance(entry.get("address"), str)
        and entry.get("operation") in PLAN_OPERATIONS
        and isinstance(entry.get("changed_paths"), list)
        and all(isinstance(path, str) for path in entry["changed_paths"])
        and isinstance(entry.get("hidden"), bool)
        and isinstance(entry.get("aliases"), dict)
        and all(isinstance(k, str) and isinstance(v, str) and "." not in v for k, v in entry["aliases"].items())
    )


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "devinfra.providers.plan"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self, *args: t.Any, **kwargs: t.Any) -> None:
        super().__init__(*args, **kwargs)
        self.changes: list[dict[str, t.Any]] = []
        self.failed: list[dict[str, str]] = []

    # --- what a result says -------------------------------------------------------------

    def entry(self, host: str, action: str, args: dict[str, t.Any], result: dict[str, t.Any]) -> dict[str, t.Any] | None:
        module = short_name(action)
        censored = "censored" in result
        name = args.get("name")
        address = result.get("address") if isinstance(result.get("address"), str) and not censored else None
        if address is None:
            address = f"{module}.{name}" if isinstance(name, str) and "{{" not in name else module
        if ours(action) and module.endswith("_info"):
            operation = "read"
        elif ours(action) and censored:
            # Its plan comes with the custom stats at the end of the play (hidden_result_plan);
            # what the callback sees now (changed) is the fallback.
            fallback = self.change(host, module, address, "unknown", []) if result.get("changed") else None
            return {"pending": True, "host": host, "module": module, "fallback": fallback}
        elif not result.get("changed"):
            return None
        elif not ours(action):
            operation = "unknown"
        elif result.get("operation") in PLAN_OPERATIONS:
            operation = str(result["operation"])
        else:
            operation = from_diff(result.get("diff"))[0] if result.get("diff") else "unknown"
        if operation == "none":
            return None
        paths: list[str] = []
        if operation in ("update", "replace"):
            given = result.get("changed_paths")
            if isinstance(given, list):
                paths = [str(p) for p in given]
            elif result.get("diff"):
                paths = from_diff(result["diff"])[1]
        return self.change(host, module, address, operation, paths)

    @staticmethod
    def change(host: str, module: str, address: str, operation: str, paths: list[str]) -> dict[str, t.Any]:
        return {"address": address, "host": host, "module": module, "operation": operation, "actions": ACTIONS[operation], "changed_paths": paths[:PATH_LIMIT]}

    def resolve(self, stats: t.Any) -> None:
        """Fill in the results no_log hid from their plans in the custom stats (per host, in task
        order, matched by module), and address the children of a resource by its key where the
        check run only knew its planned id."""
        custom = getattr(stats, "custom", None)
        published: dict[str, list[dict[str, t.Any]]] = {}
        aliases: dict[str, dict[str, str]] = {}
        for host, data in (custom if isinstance(custom, dict) else {}).items():
            entries = data.get(PLAN_STAT) if isinstance(data, dict) else None
            published[host] = [one for one in entries if well_formed(one)] if isinstance(entries, list) else []
            for one in published[host]:
                aliases.setdefault(host, {}).update(one["aliases"])
        resolved = []
        for recorded in self.changes:
            change = self.published_change(recorded, published.get(recorded["host"], [])) if recorded.get("pending") else recorded
            if change is None:
                continue
            parts = change["address"].split(".")
            if change["module"].startswith("workspace_") and len(parts) > 2 and parts[1] in aliases.get(change["host"], {}):
                change = {**change, "address": ".".join([parts[0], aliases[change["host"]][parts[1]], *parts[2:]])}
            resolved.append(change)
        self.changes = resolved

    def record(self, result: t.Any) -> None:
        host = result._host.get_name()
        task = result._task
        action = str(task.resolved_action or task.action) if hasattr(task, "resolved_action") else str(task.action)
        args = task.args if isinstance(task.args, dict) else {}
        data = result._result
        items = data.get("results") if isinstance(data.get("results"), list) else None
        for one in items if items is not None else [data]:
            if not isinstance(one, dict):
                continue
            if one.get("failed") or one.get("skipped"):
                continue
            invocation = one.get("invocation", {}).get("module_args") if isinstance(one.get("invocation"), dict) else None
            entry = self.entry(host, action, invocation if isinstance(invocation, dict) else args, one)
            if entry is not None:
                self.changes.append(entry)

    def published_change(self, pending: dict[str, t.Any], queue: list[dict[str, t.Any]]) -> dict[str, t.Any] | None:
        """The change a hidden result published (the first of its host's queue from its module), else its fallback."""
        found = next((one for one in queue if one["hidden"] and one["module"] == pending["module"]), None)
        if found is None:
            fallback: dict[str, t.Any] | None = pending["fallback"]
            return fallback
        queue.remove(found)
        operation = found["operation"]
        if operation == "none":
            return None
        paths = found["changed_paths"] if operation in ("update", "replace") else []
        return self.change(pending["host"], pending["module"], found["address"], operation, paths)

    def v2_runner_on_ok(self, result: t.Any) -> None:
        self.record(result)

    def v2_runner_on_failed(self, result: t.Any, ignore_errors: bool = False) -> None:
        if not ignore_errors:
            self.failed.append({"host": result._host.get_name(), "task": result._task.get_name()})
        else:
            self.record(result)

    # --- the plan -----------------------------------------------------------------------

    def summary(self) -> dict[str, int]:
        counts = {"add": 0, "change": 0, "destroy": 0}
        for entry in self.changes:
            operation = entry["operation"]
            counts["add"] += operation in ("create", "replace")
            counts["change"] += operation == "update"
            counts["destroy"] += operation in ("delete", "replace")
        return counts

    def lines(self) -> list[str]:
        out: list[str] = []
        hosts: dict[str, list[dict[str, t.Any]]] = {}
        for entry in self.changes:
            hosts.setdefault(entry["host"], []).append(entry)
        for host, entries in hosts.items():
            out.append(f"{host}:")
            for entry in entries:
                symbol = SYMBOLS[entry["operation"]]
                note = "  changed (no plan detail)" if entry["operation"] == "unknown" else ""
                out.append(f"  {symbol:>3} {entry['address']}{note}")
                out.extend(f"        {path}" for path in entry["changed_paths"])
            out.append("")
        for failure in self.failed:
            out.append(f"Error: {failure['host']}: task '{failure['task']}' failed; the plan is incomplete.")
        counts = self.summary()
        out.append(f"Plan: {counts['add']} to add, {counts['change']} to change, {counts['destroy']} to destroy.")
        return out

    def document(self) -> dict[str, t.Any]:
        changes = [{k: v for k, v in entry.items() if k != "operation"} | {"operation": entry["operation"]} for entry in self.changes]
        return {"format_version": "1.0", "resource_changes": changes, "summary": self.summary(), "errors": list(self.failed)}

    def v2_playbook_on_stats(self, stats: t.Any) -> None:
        self.resolve(stats)
        self._display.display("\n".join(self.lines()))
        path = self.get_option("plan_file")
        if path:
            data = json.dumps(self.document(), indent=2, sort_keys=True).encode() + b"\n"
            try:
                write_atomic(os.path.abspath(path), data, 0o600)
            except OSError as exc:
                self._display.warning(f"plan: could not write the plan file: {exc.strerror or type(exc).__name__}")
