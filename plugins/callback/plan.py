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
    C(+) create, C(~) update in place, C(-/+) replace, C(-) destroy, with the option paths that change;
    C(<=) read for the C(*_info) modules of this collection.
  - "With C(--diff), an option path of a shown result has its old and new values beside it, C(memory: 256 -> 384),
    taken from the result's diff, when both are short one-line scalars (a string of at most 64 characters, a number,
    a boolean or null). Never for a secret, and in any doubt none, the path alone - a value masked (C(********),
    as the modules of this collection and C(no_log) mask secrets), an option whose name may hold one (a password,
    key, token, secret, certificate, credential, session, C(env) or C(value)), a list or a structure, a hidden result."
  - A task imported from Terraform carries its Terraform address as the task variable C(devinfra_tf_address)
    (M(devinfra.providers.terraform_import) writes it); the plan shows it first, the collection's address beside it,
    C(~ libvirt_domain.web[0]  (libvirt_domain.web)), so that a plan reads the same before and after the move.
    Only a literal value counts (not a template, not a task with a loop).
  - A changed task of another collection is shown as C(?) changed (no plan detail). Unchanged tasks are not listed.
  - Loops are shown per item.
  - A result hidden by C(no_log) (the agent's, which holds its token, or any task with C(no_log=true)) shows
    its address, operation and changed option paths all the same, never a value; the modules of this collection
    publish them for such a result as a custom stat (C(devinfra_plan), the channel of M(ansible.builtin.set_stats)).
  - ansible-core merges a result's custom stats just before it hands the result to the callbacks, so the callback
    follows the run's custom stats as results arrive and takes a hidden result's plan only from the entry merged
    for that very result, on its own host (one per loop item). An entry that any other task publishes
    (M(ansible.builtin.set_stats), a module of another collection, a managed host's answer) stands in for nothing,
    whatever it claims, and a warning names that task. A hidden result whose entry is missing or does not fit is
    shown as C(?), with a warning.
  - In a check run a child of a new workspace agent names the agent by its planned id; the plan addresses it by
    the agent's name, as the real run does.
  - "Closes with C(Plan: N to add, N to change, N to destroy.), counting a replace as one add and one destroy as Terraform does,
    or, as Terraform says it, C(No changes. Your infrastructure matches the configuration.) when nothing would change."
  - "Changes the plan cannot explain (the C(?) lines) are counted on that line, C(Plan: 0 to add, 0 to change, 0 to destroy,
    1 unexplained.), so that a gate matching Terraform's line never takes them for no change."
  - "Tasks of a check run that could not be previewed are listed under C(Not previewed:) with the reason and counted on that
    line too, C(..., 2 not previewed.): a task skipped in check mode (a module or action without check mode, a command,
    a condition that names C(ansible_check_mode), a result hidden by C(no_log) whose reason is unknown), and a
    C(check_mode: false) task that ran for real and changed something. A task skipped by a condition that does not
    name C(ansible_check_mode) is skipped in the real run too: it is not listed; nor is a task that changes nothing by its
    nature (M(ansible.builtin.set_fact), M(ansible.builtin.debug), M(ansible.builtin.assert), M(ansible.builtin.fail),
    M(ansible.builtin.set_stats), M(ansible.builtin.include_vars), M(ansible.builtin.meta), M(ansible.builtin.add_host),
    M(ansible.builtin.group_by), M(ansible.builtin.pause), a C(*_info) module of this collection). C(No changes.) is said only of a run
    with nothing to add, change or destroy, nothing unexplained, nothing not previewed and no failed task."
  - "To fail CI on pending changes, run the gate playbook after the check run, in the same command,
    C(ansible-playbook --check --diff site.yml devinfra.providers.plan_gate): it fails (exit status 2) unless the plan
    file says C(no_changes). During that playbook this callback reads nothing, writes nothing and gives the gate the
    plan file's path."
  - Text taken from results (addresses, option paths, host and task names) is shown and written with control
    characters, line and paragraph separators and bidirectional controls escaped as C(\uXXXX), so that it cannot
    move the cursor or draw a line of its own.
  - The address, operation and changed paths come from the C(address), C(operation) and C(changed_paths) a module of this
    collection returns; for a result without them the operation is taken from its diff.
requirements:
  - enabled through C(callbacks_enabled)
options:
  plan_file:
    description:
      - Also write the plan to this file as JSON, a C(resource_changes) list (C(address), C(host), C(module),
        C(actions), C(changed_paths), and where they are shown C(values) and C(terraform_address)), the C(unpreviewed)
        list (C(host), C(task), C(module), C(reason), C(item) for a loop item), the C(summary) counts, the C(errors)
        (failed tasks) and C(no_changes), true only when the closing line is C(No changes.), so that CI can gate on it.
      - Written atomically (a temporary file renamed over it, a symbolic link at the path replaced, never followed), mode 0600.
      - C(summary) holds C(add), C(change), C(destroy), C(unexplained), the count of C(?) changes, and C(unpreviewed).
      - An earlier file at this path is removed when the run starts (a symbolic link itself, never its target), so that
        a run that stops before its end leaves no plan behind. When the file cannot be written, an earlier one is removed
        all the same, an C(Error:) line says why, and the closing line ends with C(; the plan file was not written.)
      - The file names what the state holds (addresses, changed option names); a warning says so when the directory it
        is written to, or one on the way there, is owned or writable by another user.
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
#       memory: 2048 -> 4096
#
# Plan: 1 to add, 1 to change, 0 to destroy.
#
# In CI, fail unless the plan says "No changes. Your infrastructure matches the configuration.":
# ansible-playbook --check --diff site.yml devinfra.providers.plan_gate
"""

import copy
import errno
import json
import math
import os
import re
import sys
import types
import typing as t
from pathlib import Path

from ansible import context
from ansible.executor.stats import AggregateStats
from ansible.executor.task_queue_manager import TaskQueueManager
from ansible.plugins.callback import CallbackBase

from ansible_collections.devinfra.providers.plugins.module_utils._common.plan import ABSENT, PLAN_OPERATIONS, PLAN_STAT, changed_paths, changed_values
from ansible_collections.devinfra.providers.plugins.module_utils._common.safe_files import exposed_directory, write_atomic
from ansible_collections.devinfra.providers.plugins.module_utils._common.text import NOT_ONE_LINE, printable

COLLECTION = "devinfra.providers."
SYMBOLS = {"create": "+", "update": "~", "replace": "-/+", "delete": "-", "read": "<=", "unknown": "?"}
ACTIONS = {"create": ["create"], "update": ["update"], "replace": ["delete", "create"], "delete": ["delete"], "read": ["read"], "unknown": ["unknown"]}
PATH_LIMIT = 50
NO_CHANGES = "No changes. Your infrastructure matches the configuration."
# The task variable the importer sets on each task it writes: the resource's Terraform address.
TF_ADDRESS_VAR = "devinfra_tf_address"
# Values beside a changed option path: scalars of at most this many characters, never under
# an option whose name may hold a secret, never masked ones (modules and no_log mask with it).
VALUE_LIMIT = 64
MASK = "********"
SECRET_NAME = re.compile(r"pass|secret|token|key|cred|auth|cert|private|cookie|session|salt|sign|otp|env|value", re.IGNORECASE)
# What the run's custom stats and results cannot show: why a task of a check run was not previewed.
CHECK_MODE_VAR = "ansible_check_mode"
# Actions that change nothing whatever they do: skipped in check mode, they leave nothing unplanned.
CHANGE_NOTHING = frozenset({"set_fact", "debug", "assert", "fail", "set_stats", "include_vars", "meta", "add_host", "group_by", "pause"})
# The collection's gate playbook: during it the plan is read, never rewritten.
GATE_PLAYBOOK = Path(__file__).resolve().parents[2] / "playbooks" / "plan_gate.yml"
GATE_VAR = "plan_gate_file"
# The modules of this collection whose hidden result publishes no plan (besides the *_info ones).
NO_PLAN = frozenset({"terraform_import"})
_MISSING = object()

# Per host, the plan entries ansible-core merged for one result, and whether it replaced the list.
Merged = dict[str, tuple[list[t.Any], bool]]
# What one result should have appended to its host's list: per entry, the hidden result it
# stands for, or the entry a shown result of ours shows.
Expected = list[tuple[dict[str, t.Any] | None, t.Any]]


def short_name(action: str) -> str:
    return action[len(COLLECTION) :] if action.startswith(COLLECTION) else action


def ours(action: str) -> bool:
    # Only the resolved FQCN: a bare name is any module of that name (a playbook's library/).
    return action.startswith(COLLECTION)


def publishes(module: str) -> bool:
    """Whether a hidden result of this module of ours carries exactly one plan entry (per item)."""
    return not module.endswith("_info") and module not in NO_PLAN


def shown_value(value: t.Any) -> bool:
    """Whether a value may stand beside its option path: a short one-line scalar, not masked."""
    if value is ABSENT or value is None or isinstance(value, bool):
        return True
    if isinstance(value, int):
        return len(str(value)) <= VALUE_LIMIT
    if isinstance(value, float):
        return math.isfinite(value) and len(repr(value)) <= VALUE_LIMIT
    return isinstance(value, str) and len(value) <= VALUE_LIMIT and MASK not in value and not NOT_ONE_LINE.search(value)


def diff_values(diff: t.Any) -> dict[str, tuple[t.Any, t.Any]]:
    """Per changed option path of a result's diff, its old and new values, where both may be
    shown; any doubt (a secret's name on the path, a mask, a long or structured value) leaves
    the path without values."""
    found: dict[str, tuple[t.Any, t.Any]] = {}
    doubtful: set[str] = set()
    for one in diff if isinstance(diff, list) else [diff]:
        if not isinstance(one, dict):
            continue
        for path, before, after in changed_values(one.get("before"), one.get("after")):
            if path in found or SECRET_NAME.search(path) or printable(path) != path or not (shown_value(before) and shown_value(after)):
                doubtful.add(path)
            else:
                found[path] = (None if before is ABSENT else before, None if after is ABSENT else after)
    return {path: pair for path, pair in found.items() if path not in doubtful}


def render(value: t.Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def terraform_address(task: t.Any) -> str | None:
    """The Terraform address the importer gave the task (a literal task variable); a templated
    one cannot be known here, and a loop's items are not that one resource."""
    variables = getattr(task, "vars", None)
    value = variables.get(TF_ADDRESS_VAR) if isinstance(variables, dict) else None
    if not isinstance(value, str) or not value or "{{" in value or "{%" in value or getattr(task, "loop", None):
        return None
    return value


def check_mode_skip(task: t.Any, result: dict[str, t.Any]) -> str | None:
    """Why a skipped result of a task in check mode was not previewed, or None when it is skipped
    as the real run would skip it (a condition that does not name ansible_check_mode, no items)."""
    if not getattr(task, "check_mode", False):
        return None
    action = str(getattr(task, "resolved_action", None) or task.action)
    module = action.rsplit(".", 1)[-1]
    if (action.startswith(("ansible.builtin.", "ansible.legacy.")) and module in CHANGE_NOTHING) or (ours(action) and module.endswith("_info")):
        return None
    if "censored" in result:
        return "skipped in check mode (its result is hidden by no_log, so the reason is unknown)"
    if "skip_reason" in result:
        condition = result.get("false_condition")
        if isinstance(condition, str) and CHECK_MODE_VAR in condition:
            return f"skipped in check mode by its condition ({printable(condition)})"
        return None
    message = result.get("msg")
    return f"skipped in check mode: {printable(message)}" if isinstance(message, str) and message else "skipped in check mode"


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


def shown_plan_entries(result: dict[str, t.Any]) -> list[t.Any] | None:
    """The plan entries a shown result's ``ansible_stats`` appends to its host's list, [] when it
    publishes none, None when it may do anything else to the plan (replace it, other hosts)."""
    stats = result.get("ansible_stats", _MISSING)
    if stats is _MISSING:
        return []
    if not isinstance(stats, dict) or not isinstance(stats.get("data"), dict):
        return None
    if PLAN_STAT not in stats["data"]:
        return []
    value = stats["data"][PLAN_STAT]
    return list(value) if stats.get("per_host") and stats.get("aggregate") and isinstance(value, list) else None


def live_stats() -> AggregateStats | None:
    """The AggregateStats ansible-core merges each result's ``ansible_stats`` into before it sends
    the result's v2_runner_on_ok: its task queue manager is on the call stack of every event."""
    frame: types.FrameType | None = sys._getframe(1)
    while frame is not None:
        owner = frame.f_locals.get("self")
        if isinstance(owner, TaskQueueManager):
            stats = getattr(owner, "_stats", None)
            return stats if isinstance(stats, AggregateStats) else None
        frame = frame.f_back
    return None


def task_label(task: t.Any, action: str) -> str:
    return f"'{printable(str(task.get_name()))}' ({printable(action)})"


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "devinfra.providers.plan"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self, *args: t.Any, **kwargs: t.Any) -> None:
        super().__init__(*args, **kwargs)
        # Implicit tasks' results are merged into the stats too: they must not go unseen.
        self.wants_implicit_tasks = True
        self.changes: list[dict[str, t.Any]] = []
        self.failed: list[dict[str, str]] = []
        self.notes: list[str] = []
        self.aliases: dict[str, dict[str, str]] = {}
        # The live custom stats and, per host, the plan list and its length at the last event.
        self.live: AggregateStats | None = None
        self.live_checked = False
        self.seen: dict[str, tuple[t.Any, int]] = {}
        self.cleared = False
        # The tasks (or loop items) of a check run the plan could not preview, in run order.
        self.unpreviewed: list[dict[str, t.Any]] = []
        self.events = 0
        # Per host and task, how each loop item ended (ansible-core hides an item's "skipped").
        self.item_states: dict[tuple[str, str], list[str]] = {}
        self.check_run: bool | None = None
        # During the gate playbook the plan is only read.
        self.gate = False

    def note(self, message: str) -> None:
        if message not in self.notes:
            self.notes.append(message)

    # --- what ansible-core merged for each result ------------------------------------------

    def observe(self) -> Merged:
        """Per host, the plan entries merged into the custom stats since the last event (the
        result of this event's, as the strategy merges a result's stats just before sending it),
        and whether the host's list was replaced rather than appended to."""
        if not self.live_checked:
            self.live, self.live_checked = live_stats(), True
        custom = getattr(self.live, "custom", None)
        found: Merged = {}
        for host, data in (custom if isinstance(custom, dict) else {}).items():
            value = data.get(PLAN_STAT, _MISSING) if isinstance(data, dict) else _MISSING
            before = self.seen.get(host)
            size = len(value) if isinstance(value, list) else -1
            if (before is None and value is _MISSING) or (before is not None and value is before[0] and size == before[1]):
                continue
            self.seen[host] = (value, size)
            if isinstance(value, list) and before is None:
                found[host] = (copy.deepcopy(value), False)
            elif isinstance(value, list) and before is not None and value is before[0] and size > before[1] >= 0:
                found[host] = (copy.deepcopy(value[before[1] :]), False)
            else:
                found[host] = (copy.deepcopy(value) if isinstance(value, list) else [] if value is _MISSING else [value], True)
        return found

    def stray(self, task: t.Any, action: str, merged: Merged) -> None:
        for host in merged:
            where = "the run (not per host)" if host == "_run" else printable(host)
            self.note(
                f"plan: {where}: task {task_label(task, action)} published plan entries ({PLAN_STAT}) that no hidden "
                "result of this collection's modules accounts for; they are not part of the plan"
            )

    # --- what a result says -------------------------------------------------------------

    def entry(
        self, host: str, action: str, args: dict[str, t.Any], result: dict[str, t.Any], task: str, tf_address: str | None = None
    ) -> dict[str, t.Any] | None:
        module = short_name(action)
        censored = "censored" in result
        name = args.get("name")
        address = result.get("address") if isinstance(result.get("address"), str) and not censored else None
        if address is None:
            address = f"{module}.{name}" if isinstance(name, str) and "{{" not in name else module
        if ours(action) and module.endswith("_info"):
            operation = "read"
        elif ours(action) and censored:
            # Its plan is the entry it published to the custom stats (hidden_result_plan); what
            # the callback sees now (changed) is the fallback.
            fallback = self.change(host, module, address, "unknown", [], tf_address=tf_address) if result.get("changed") else None
            return {"pending": True, "host": host, "module": module, "fallback": fallback, "task": task, "terraform_address": tf_address}
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
        values: dict[str, tuple[t.Any, t.Any]] = {}
        if operation in ("update", "replace"):
            given = result.get("changed_paths")
            if isinstance(given, list):
                paths = [str(p) for p in given]
            elif result.get("diff"):
                paths = from_diff(result["diff"])[1]
            if ours(action) and result.get("diff"):
                values = diff_values(result["diff"])
        return self.change(host, module, address, operation, paths, values, tf_address)

    @staticmethod
    def change(
        host: str,
        module: str,
        address: str,
        operation: str,
        paths: list[str],
        values: dict[str, tuple[t.Any, t.Any]] | None = None,
        tf_address: str | None = None,
    ) -> dict[str, t.Any]:
        paths = paths[:PATH_LIMIT]
        shown = {path: {"before": values[path][0], "after": values[path][1]} for path in paths if values and path in values}
        entry: dict[str, t.Any] = {
            "address": address,
            "host": host,
            "module": module,
            "operation": operation,
            "actions": ACTIONS[operation],
            "changed_paths": paths,
        }
        if shown:
            entry["values"] = shown
        if tf_address:
            entry["terraform_address"] = tf_address
        return entry

    def record(self, result: t.Any, merged: Merged | None) -> None:
        """Note a result's changes; ``merged`` is what ansible-core merged into the custom stats for
        it (None for a failed result, whose stats are never merged)."""
        host = result._host.get_name()
        task = result._task
        action = str(task.resolved_action or task.action) if hasattr(task, "resolved_action") else str(task.action)
        label = task_label(task, action)
        if getattr(task, "implicit", False):
            self.stray(task, action, merged or {})
            return
        args = task.args if isinstance(task.args, dict) else {}
        data = result._result
        items = data.get("results") if isinstance(data.get("results"), list) else None
        states = self.item_states.pop((host, str(getattr(task, "_uuid", ""))), [])
        if items is None or len(states) != len(items):
            states = []
        tf_address = terraform_address(task) if items is None else None
        first = len(self.changes)
        expected: Expected = []
        for index, one in enumerate(items if items is not None else [data]):
            state = states[index] if states else None
            if not isinstance(one, dict) or state in ("skipped", "failed") or one.get("failed") or one.get("skipped") or "skip_reason" in one:
                continue
            invocation = one.get("invocation", {}).get("module_args") if isinstance(one.get("invocation"), dict) else None
            entry = self.entry(host, action, invocation if isinstance(invocation, dict) else args, one, label, tf_address)
            if entry is not None:
                self.changes.append(entry)
            if not ours(action):
                continue
            if entry is not None and entry.get("pending"):
                if publishes(entry["module"]):
                    expected.append((entry, None))
            elif "censored" not in one:
                shown = shown_plan_entries(one) or []
                expected.extend((None, value) for value in shown)
        if merged is not None:
            self.attribute(host, task, action, expected, merged)
        for pending, _value in expected:
            if pending is not None and merged is None:
                pending["why"] = "its task failed, so ansible-core took none of its plan"
        if self.ran_for_real(task):
            # Its changes are made already, not planned: the plan cannot say what the real run does.
            self.events += 1
            for recorded in self.changes[first:]:
                if recorded.get("operation") != "read":
                    recorded["ran"] = {"task": printable(str(task.get_name())), "module": printable(short_name(action)), "order": self.events}

    def is_check_run(self) -> bool:
        if self.check_run is None:
            self.check_run = bool(context.CLIARGS.get("check", False))
        return self.check_run

    def ran_for_real(self, task: t.Any) -> bool:
        """A task of a check run that ran for real (``check_mode: false``)."""
        return self.is_check_run() and getattr(task, "check_mode", None) is False

    def not_previewed(self, result: t.Any, reason: str, item: bool = False) -> None:
        task = result._task
        action = str(getattr(task, "resolved_action", None) or task.action)
        entry = {"host": printable(result._host.get_name()), "task": printable(str(task.get_name())), "module": printable(short_name(action)), "reason": reason}
        label = result._result.get("_ansible_item_label") if item else None
        if item and label is not None and "censored" not in result._result:
            entry["item"] = printable(label if isinstance(label, str) else json.dumps(label, default=str, ensure_ascii=False), 80)
        self.events += 1
        self.unpreviewed.append({**entry, "order": self.events})

    def item_state(self, result: t.Any, state: str) -> None:
        key = (result._host.get_name(), str(getattr(result._task, "_uuid", "")))
        self.item_states.setdefault(key, []).append(state)

    def attribute(self, host: str, task: t.Any, action: str, expected: Expected, merged: Merged) -> None:
        """Give each hidden result of ours the entry ansible-core merged for it. Entries are taken
        by where they came from, never by what they claim: only what this result appended to its
        own host's list, exactly as many as it publishes, in order."""
        if not ours(action):
            self.stray(task, action, merged)
            return
        run_once = bool(getattr(task, "run_once", False))
        self.stray(task, action, {} if run_once else {h: m for h, m in merged.items() if h != host})
        if self.live is None:
            why = "ansible-core's custom stats could not be followed as results arrived"
            for pending, _value in expected:
                if pending is not None:
                    pending["why"] = why
            return
        entries, replaced = merged.get(host, ([], False))
        fits = not replaced and len(entries) == len(expected)
        for (pending, value), entry in zip(expected, entries):
            if pending is None:
                fits = fits and entry == value
            else:
                fits = fits and well_formed(entry) and entry["hidden"] is True and entry["module"] == pending["module"]
        if not fits:
            if not expected:
                self.stray(task, action, {host: merged[host]})
            for pending, _value in expected:
                if pending is not None:
                    pending["why"] = "the plan entries merged for its result are not the one its module publishes"
            return
        for (pending, value), entry in zip(expected, entries):
            if pending is not None:
                pending["entry"] = entry
            source = entry if pending is not None else value
            if well_formed(source):
                self.aliases.setdefault(host, {}).update(source["aliases"])

    def v2_playbook_on_start(self, playbook: t.Any) -> None:
        name = getattr(playbook, "_file_name", None)
        self.gate = isinstance(name, str) and os.path.realpath(name) == str(GATE_PLAYBOOK)
        if self.gate:
            # The gate reads the plan file this callback writes, wherever its configuration (an
            # environment variable, ansible.cfg, relative to where) puts it.
            path = self.get_option("plan_file")
            for play in playbook.get_plays() if path else []:
                if isinstance(getattr(play, "vars", None), dict):
                    play.vars[GATE_VAR] = os.path.abspath(path)
            return
        if not self.live_checked:
            self.live, self.live_checked = live_stats(), True
        path = self.get_option("plan_file")
        if path and not self.cleared:
            # A plan file left from an earlier run must never pass for this run's plan, even if
            # this run ends before it writes its own.
            self.cleared = True
            problem = remove_plan_file(os.path.abspath(path))
            if problem:
                self._display.warning(f"plan: the earlier plan file {printable(os.path.abspath(path))} could not be removed: {problem}")

    def v2_runner_on_ok(self, result: t.Any) -> None:
        if not self.gate:
            self.record(result, self.observe())

    def v2_runner_item_on_ok(self, result: t.Any) -> None:
        self.item_state(result, "ok")

    def v2_runner_item_on_failed(self, result: t.Any) -> None:
        self.item_state(result, "failed")

    def v2_runner_item_on_skipped(self, result: t.Any) -> None:
        self.item_state(result, "skipped")
        reason = None if self.gate else check_mode_skip(result._task, result._result)
        if reason:
            self.not_previewed(result, reason, item=True)

    def v2_runner_on_failed(self, result: t.Any, ignore_errors: bool = False) -> None:
        if self.gate:
            return
        merged = self.observe()
        task = result._task
        action = str(getattr(task, "resolved_action", None) or task.action)
        self.stray(task, action, merged)
        if not ignore_errors:
            self.item_states.pop((result._host.get_name(), str(getattr(task, "_uuid", ""))), None)
            self.failed.append({"host": printable(result._host.get_name()), "task": printable(str(task.get_name()))})
        else:
            self.record(result, None)

    def v2_runner_on_skipped(self, result: t.Any) -> None:
        if self.gate:
            return
        task = result._task
        self.item_states.pop((result._host.get_name(), str(getattr(task, "_uuid", ""))), None)
        self.stray(task, str(getattr(task, "resolved_action", None) or task.action), self.observe())
        # A loop's items were taken one by one (v2_runner_item_on_skipped).
        reason = None if isinstance(result._result.get("results"), list) or getattr(task, "implicit", False) else check_mode_skip(task, result._result)
        if reason:
            self.not_previewed(result, reason)

    def v2_runner_on_unreachable(self, result: t.Any) -> None:
        if self.gate:
            return
        self.stray(result._task, str(getattr(result._task, "resolved_action", None) or result._task.action), self.observe())

    # --- the plan -----------------------------------------------------------------------

    def resolve(self, stats: t.Any) -> None:
        """Fill in the results no_log hid from the entries attributed to them, and address the
        children of a resource by its key where the check run only knew its planned id. All text
        from results is made printable here, for the terminal and the plan file alike."""
        if stats is not None and self.live is not None and stats is not self.live:
            # Not the stats that were followed: nothing attributed from them holds.
            for recorded in self.changes:
                if recorded.get("pending"):
                    recorded.pop("entry", None)
                    recorded["why"] = "ansible-core's custom stats could not be followed as results arrived"
            self.aliases = {}
        resolved = []
        for recorded in self.changes:
            change = self.published_change(recorded) if recorded.get("pending") else recorded
            if change is None:
                continue
            ran = recorded.pop("ran", None)
            if ran is not None:
                self.unpreviewed.append(
                    {
                        "host": printable(change["host"]),
                        "task": ran["task"],
                        "module": ran["module"],
                        "reason": "ran for real in this check run (check_mode: false) and changed "
                        + ("something" if change["operation"] == "unknown" else printable(change.get("terraform_address") or change["address"])),
                        "order": ran["order"],
                    }
                )
                continue
            parts = change["address"].split(".")
            host_aliases = self.aliases.get(change["host"], {})
            if change["module"].startswith("workspace_") and len(parts) > 2 and parts[1] in host_aliases:
                change = {**change, "address": ".".join([parts[0], host_aliases[parts[1]], *parts[2:]])}
            resolved.append(
                {
                    **change,
                    "address": printable(change["address"]),
                    "host": printable(change["host"]),
                    "module": printable(change["module"]),
                    "changed_paths": [printable(path) for path in change["changed_paths"]],
                }
                | ({"terraform_address": printable(change["terraform_address"])} if change.get("terraform_address") else {})
            )
        self.changes = resolved
        self.unpreviewed.sort(key=lambda entry: entry["order"])

    def published_change(self, pending: dict[str, t.Any]) -> dict[str, t.Any] | None:
        """The change a hidden result published, else its fallback ('?' when it changed)."""
        fallback: dict[str, t.Any] | None = pending["fallback"]
        found = pending.get("entry")
        if found is not None and found["operation"] == "none" and fallback is not None:
            found, pending["why"] = None, "its plan says it changes nothing, while its result says changed"
        if found is None:
            if fallback is not None:
                why = pending.get("why") or "no plan was published for it"
                self.note(f"plan: {printable(pending['host'])}: the hidden result of task {pending['task']} is shown as '?': {why}")
            return fallback
        operation = found["operation"]
        if operation == "none":
            return None
        paths = found["changed_paths"] if operation in ("update", "replace") else []
        # A hidden result's values stay hidden: its plan entry names paths only.
        return self.change(pending["host"], pending["module"], found["address"], operation, paths, tf_address=pending.get("terraform_address"))

    def summary(self) -> dict[str, int]:
        counts = {"add": 0, "change": 0, "destroy": 0, "unexplained": 0, "unpreviewed": len(self.unpreviewed)}
        for entry in self.changes:
            operation = entry["operation"]
            counts["add"] += operation in ("create", "replace")
            counts["change"] += operation == "update"
            counts["destroy"] += operation in ("delete", "replace")
            counts["unexplained"] += operation == "unknown"
        return counts

    def no_changes(self) -> bool:
        """Terraform's "No changes.": said only of a run checked whole, which changes nothing."""
        return not any(self.summary().values()) and not self.failed

    def closing(self, *, written: bool = True) -> str:
        """Terraform's closing line; changes the plan cannot explain, tasks it could not preview
        and a plan file not written change it, so that a gate matching Terraform's line never
        takes them for it."""
        if written and self.no_changes():
            return NO_CHANGES
        counts = self.summary()
        line = f"Plan: {counts['add']} to add, {counts['change']} to change, {counts['destroy']} to destroy"
        if counts["unexplained"]:
            line += f", {counts['unexplained']} unexplained"
        if counts["unpreviewed"]:
            line += f", {counts['unpreviewed']} not previewed"
        if not written:
            line += "; the plan file was not written"
        return line + "."

    def lines(self, *, written: bool = True) -> list[str]:
        out: list[str] = []
        hosts: dict[str, list[dict[str, t.Any]]] = {}
        for entry in self.changes:
            hosts.setdefault(entry["host"], []).append(entry)
        for host, entries in hosts.items():
            out.append(f"{host}:")
            for entry in entries:
                symbol = SYMBOLS[entry["operation"]]
                note = "  changed (no plan detail)" if entry["operation"] == "unknown" else ""
                tf_address = entry.get("terraform_address")
                address = f"{tf_address}  ({entry['address']})" if tf_address and tf_address != entry["address"] else entry["address"]
                out.append(f"  {symbol:>3} {address}{note}")
                values = entry.get("values", {})
                for path in entry["changed_paths"]:
                    shown = values.get(path)
                    out.append(f"        {path}: {render(shown['before'])} -> {render(shown['after'])}" if shown else f"        {path}")
            out.append("")
        if self.unpreviewed:
            out.append("Not previewed:")
            for skipped in self.unpreviewed:
                item = f", item {skipped['item']}" if "item" in skipped else ""
                out.append(f"  {skipped['host']}: task '{skipped['task']}' ({skipped['module']}){item}: {skipped['reason']}")
            out.append("")
        for failure in self.failed:
            out.append(f"Error: {failure['host']}: task '{failure['task']}' failed; the plan is incomplete.")
        out.append(self.closing(written=written))
        return out

    def document(self) -> dict[str, t.Any]:
        changes = [{k: v for k, v in entry.items() if k != "operation"} | {"operation": entry["operation"]} for entry in self.changes]
        return {
            "format_version": "1.0",
            "resource_changes": changes,
            "unpreviewed": [{k: v for k, v in entry.items() if k != "order"} for entry in self.unpreviewed],
            "summary": self.summary(),
            "no_changes": self.no_changes(),
            "errors": list(self.failed),
        }

    def write_plan_file(self, path: str) -> str | None:
        """Write the plan file; what went wrong (the earlier file then removed), or None."""
        exposed = exposed_directory(path, runner="ansible-playbook")
        if exposed:
            self._display.warning(
                f"plan: the plan file {printable(path)} is written where another user can reach it: {printable(exposed)}; "
                "it names what the state holds (addresses and changed options)"
            )
        try:
            write_atomic(path, json.dumps(self.document(), indent=2, sort_keys=True).encode() + b"\n", 0o600)
        except (OSError, ValueError) as exc:
            reason = (exc.strerror if isinstance(exc, OSError) else None) or type(exc).__name__
            problem = remove_plan_file(path)
            gone = f"the earlier file there could not be removed: {problem}" if problem else "no earlier plan file is left there"
            return f"{printable(reason)}; {gone}"
        return None

    def v2_playbook_on_stats(self, stats: t.Any) -> None:
        if self.gate:
            return
        self.observe()
        self.resolve(stats)
        for message in self.notes:
            self._display.warning(message)
        path = self.get_option("plan_file")
        problem = self.write_plan_file(os.path.abspath(path)) if path else None
        out = self.lines(written=problem is None)
        if problem:
            out.insert(-1, f"Error: the plan file {printable(os.path.abspath(path))} was not written: {problem}.")
        self._display.display("\n".join(out))


def remove_plan_file(path: str) -> str | None:
    """Remove a plan file (a link at the path itself, never what it points to); why not, or None."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return printable(exc.strerror or errno.errorcode.get(exc.errno or 0, type(exc).__name__))
    return None
