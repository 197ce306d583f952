# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Tests only: every task of this collection's modules runs in check mode first, then for real,
and the two results are compared; a difference is written to a report that the end of the
integration run reads (tests/check_mode/report.py).

ansible-core runs a module that has no action plugin of its own through ``ansible.legacy.normal``;
this file takes that name when its directory is in the configured action plugin path (scripts/test.sh
writes tests/integration/integration.cfg for the integration run). The report's path is in that
configuration file, section ``devinfra_check_mode``, key ``report``: ansible-test hands the targets
a filtered environment, but each target's ansible-playbook gets this file as ANSIBLE_CONFIG.

Compared: ``failed``, and when both runs succeed ``changed``, ``operation`` and ``changed_paths``. A real
run that fails while its check run did not is a difference when the module says the input was bad
(``invalid: true``: refused before anything was touched), not when the real system failed it (a
timeout, a server's refusal) or the check run said it planned on what was not there yet.
Not compared: a task that runs in check mode already, an async task, modules of other collections
and modules with an action plugin of their own (the workspace_* modules), and the failed real
attempts of a task retried with ``until``. A check run that the module skips (no check mode) is
reported as a difference. Each run is a whole module call: the check run touches nothing, so the
real run finds what it would have found alone."""

from __future__ import annotations

import configparser
import contextlib
import fcntl
import hashlib
import importlib.util
import json
import os
import pathlib
import re
import typing as t

from ansible import constants
from ansible._internal import _display_utils
from ansible.plugins import action as builtin_actions

COLLECTION = "devinfra.providers."
SECTION = "devinfra_check_mode"
COMPARED = ("changed", "operation", "changed_paths")
NOT_THERE_YET = "(yet: in check mode, an earlier task may only have predicted it)"  # _common/plan.not_there_yet


def _builtin_normal() -> type:
    """ansible-core's own ``normal``: this file is loaded under its name, so it is loaded from its path."""
    spec = importlib.util.spec_from_file_location("devinfra_check_mode_builtin_normal", pathlib.Path(builtin_actions.__file__).parent / "normal.py")
    if spec is None or spec.loader is None:
        raise ImportError("ansible-core's normal action plugin is not where it should be")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return t.cast("type", module.ActionModule)


NormalAction: t.Any = _builtin_normal()


def report_path() -> str | None:
    """The report file the active configuration names, None when it names none."""
    if not constants.CONFIG_FILE:
        return None
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(constants.CONFIG_FILE)
    return parser.get(SECTION, "report", fallback=None) or None


def summary(result: dict[str, t.Any], no_log: bool) -> dict[str, t.Any]:
    """What a result says of the plan: names only, and the failure's message unless hidden."""
    out: dict[str, t.Any] = {"failed": bool(result.get("failed"))}
    if result.get("skipped"):
        out["skipped"] = True
    for key in COMPARED:
        if key in result:
            out[key] = sorted(result[key]) if key == "changed_paths" and isinstance(result[key], list) else result[key]
    if (out["failed"] or out.get("skipped")) and not no_log:
        out["msg"] = str(result.get("msg", ""))[:400]
    return out


def difference(check: dict[str, t.Any], real: dict[str, t.Any]) -> str | None:
    """Why the check run does not predict the real run, None when it does."""
    if check.get("skipped"):
        return "the check run was skipped (no check mode)"
    if check["failed"] != real["failed"]:
        return "the check run failed and the real run did not" if check["failed"] else "the real run failed and the check run did not"
    if check["failed"]:
        return None  # both refused: the messages may word it differently
    keys = [key for key in COMPARED if check.get(key) != real.get(key)]
    return f"{', '.join(keys)} differ" if keys else None


def target_of(path: str) -> str:
    """The integration target a task file belongs to (its path names it), else the path."""
    found = re.findall(r"/targets/([^/]+)/", path)
    return found[-1] if found else path


class ActionModule(NormalAction):
    def run(self, tmp: t.Any = None, task_vars: dict[str, t.Any] | None = None) -> dict[str, t.Any]:
        report = report_path()
        # devinfra_check_first: false - a task whose fixture answers once (an injected server fault):
        # a check run first would take the answer meant for the real run.
        # Set on a task or a block (a block of tasks whose requests are counted).
        opted_out = (task_vars or {}).get("devinfra_check_first", self._task.vars.get("devinfra_check_first")) is False
        if report is None or opted_out or self._task.check_mode or self._task.async_val or not self._task.resolved_action.startswith(COLLECTION):
            return t.cast("dict[str, t.Any]", super().run(tmp, task_vars))
        # Hosts running the same task on one object (a base volume every workspace shares) take
        # turns: another host's real run between this one's check and real runs is no difference.
        with _same_task_lock(report, self._task.resolved_action, self._task.args):
            self._task.check_mode = True
            try:
                with _own_warnings() as check_warnings:
                    check = super().run(tmp, task_vars)
            finally:
                self._task.check_mode = False
            real = t.cast("dict[str, t.Any]", super().run(tmp, task_vars))
        no_log = bool(self._task.no_log)
        check_summary, real_summary = summary(check, no_log), summary(real, no_log)
        # A task with until expects its real run to fail now and then (a flaky tool): the attempt that
        # succeeds is compared; a check run cannot foresee such a failure.
        # A check run that planned on without something an earlier task would have made says so
        # (not_there_yet): a real run that then fails for the lack of it was not predicted otherwise.
        conditional = any(NOT_THERE_YET in warning for warning in check_warnings)
        # A real run that failed on the real system (a timeout, a server's refusal: no invalid: true)
        # met what no check run meets; bad input (invalid: true) must fail the check run too.
        system_failure = not real.get("invalid")
        expected_failure = (self._task.until or conditional or system_failure) and real_summary["failed"] and not check_summary["failed"]
        why = None if expected_failure else difference(check_summary, real_summary)
        path = self._task.get_path() or ""
        entry: dict[str, t.Any] = {"target": target_of(path), "task": self._task.get_name(), "path": path, "module": self._task.resolved_action, "why": why}
        if why is not None:
            entry.update(check=check_summary, real=real_summary)
            self._display.warning(f"check mode differs from the real run ({why}): check {json.dumps(check_summary)}, real {json.dumps(real_summary)}")
        _append(report, entry)  # every compared task: the report shows that the comparison ran
        return real


@contextlib.contextmanager
def _own_warnings() -> t.Iterator[list[str]]:
    """The warnings of the check run, taken out of those ansible-core holds for the task (a
    module's warnings reach the display through them, not through the action's result): the
    task's result carries the real run's warnings only, as it would without the harness."""
    context = _display_utils.DeferredWarningContext.current(optional=True)
    taken: list[str] = []
    if context is None:
        yield taken
        return
    # Private to ansible-core (tests only): the lists it appends to and the set it dedupes with.
    warnings, deprecations, seen = context._warnings, context._deprecation_warnings, context._seen
    marks = (len(warnings), len(deprecations))
    try:
        yield taken
    finally:
        added = warnings[marks[0] :] + deprecations[marks[1] :]
        del warnings[marks[0] :], deprecations[marks[1] :]
        seen.difference_update(added)
        taken.extend(str(warning) for warning in added)


@contextlib.contextmanager
def _same_task_lock(report: str, action: str, args: dict[str, t.Any]) -> t.Iterator[None]:
    """An exclusive lock for every run of one module with the same arguments."""
    key = hashlib.sha256(json.dumps([action, args], sort_keys=True, default=str).encode()).hexdigest()
    directory = f"{report}.locks"
    os.makedirs(directory, mode=0o700, exist_ok=True)
    fd = os.open(os.path.join(directory, key), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _append(report: str, entry: dict[str, t.Any]) -> None:
    """One JSON line, under a lock: the lanes' targets write to the same report."""
    with open(report, "a", encoding="utf-8") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        handle.write(json.dumps(entry, sort_keys=True) + "\n")
