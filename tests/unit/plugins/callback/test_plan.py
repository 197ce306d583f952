# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import json
import os
import typing as t
from types import SimpleNamespace

import pytest

from ansible_collections.devinfra.providers.plugins.callback import plan
from ansible_collections.devinfra.providers.plugins.module_utils._common.plan import PLAN_STAT, hidden_result_plan


class Display:
    def __init__(self) -> None:
        self.text: list[str] = []
        self.warnings: list[str] = []

    def display(self, msg: str, *args: t.Any, **kwargs: t.Any) -> None:
        self.text.append(msg)

    def warning(self, msg: str, *args: t.Any, **kwargs: t.Any) -> None:
        self.warnings.append(msg)


def callback(plan_file: str | None = None) -> plan.CallbackModule:
    cb = plan.CallbackModule()
    cb._display = Display()  # type: ignore[assignment]
    cb._plugin_options = {"plan_file": plan_file}
    return cb


def fake(action: str, result: dict[str, t.Any], host: str = "h1", args: dict[str, t.Any] | None = None) -> t.Any:
    task = SimpleNamespace(action=action, resolved_action=action, args=args or {}, get_name=lambda: "a task")
    return SimpleNamespace(_host=SimpleNamespace(get_name=lambda: host), _task=task, _result=result)


def run(*results: t.Any, plan_file: str | None = None) -> tuple[plan.CallbackModule, str]:
    cb = callback(plan_file)
    for one in results:
        if one._result.get("failed"):
            cb.v2_runner_on_failed(one)
        else:
            cb.v2_runner_on_ok(one)
    cb.v2_playbook_on_stats(None)
    return cb, "\n".join(cb._display.text)  # type: ignore[attr-defined]


DOMAIN = "devinfra.providers.libvirt_domain"


@pytest.mark.parametrize(
    ("operation", "symbol", "line"),
    [
        ("create", "+", "Plan: 1 to add, 0 to change, 0 to destroy."),
        ("update", "~", "Plan: 0 to add, 1 to change, 0 to destroy."),
        ("replace", "-/+", "Plan: 1 to add, 0 to change, 1 to destroy."),
        ("delete", "-", "Plan: 0 to add, 0 to change, 1 to destroy."),
    ],
)
def test_operations(operation: str, symbol: str, line: str) -> None:
    result = {"changed": True, "operation": operation, "address": "libvirt_domain.web", "changed_paths": ["memory", "vcpu"]}
    cb, text = run(fake(DOMAIN, result))
    assert f"{symbol:>3} libvirt_domain.web" in text
    assert text.splitlines()[-1] == line
    assert ("memory" in text) == (operation in ("update", "replace"))
    assert cb.changes[0]["actions"] == plan.ACTIONS[operation]


def test_none_and_unchanged_not_listed() -> None:
    cb, text = run(fake(DOMAIN, {"changed": False, "operation": "none"}), fake("ansible.builtin.command", {"changed": False}))
    assert cb.changes == []
    assert text.splitlines()[-1] == "Plan: 0 to add, 0 to change, 0 to destroy."
    assert "h1" not in text


def test_read_info_module() -> None:
    _cb, text = run(fake("devinfra.providers.libvirt_domain_info", {"changed": False, "domains": []}, args={"name": "web"}))
    assert " <= libvirt_domain_info.web" in text
    assert text.splitlines()[-1] == "Plan: 0 to add, 0 to change, 0 to destroy."


def test_foreign_changed() -> None:
    _cb, text = run(fake("ansible.builtin.copy", {"changed": True, "diff": {"before": "a", "after": "b"}}))
    assert "  ? ansible.builtin.copy  changed (no plan detail)" in text
    assert text.splitlines()[-1] == "Plan: 0 to add, 0 to change, 0 to destroy."


def test_inferred_from_diff_and_name() -> None:
    result = {"changed": True, "diff": {"before": {"memory": 1, "vcpu": 1}, "after": {"memory": 2, "vcpu": 1}}}
    cb, _text = run(fake(DOMAIN, result, args={"name": "web"}))
    assert cb.changes[0]["address"] == "libvirt_domain.web"
    assert cb.changes[0]["operation"] == "update"
    assert cb.changes[0]["changed_paths"] == ["memory"]
    created = {"changed": True, "diff": {"before": {}, "after": {"memory": 2}}}
    cb, _text = run(fake(DOMAIN, created, args={"name": "db"}))
    assert cb.changes[0]["operation"] == "create"


def test_loop_per_item() -> None:
    result = {
        "changed": True,
        "results": [
            {"changed": True, "operation": "create", "address": "libvirt_volume.default/a.qcow2"},
            {"changed": False, "operation": "none", "address": "libvirt_volume.default/b.qcow2"},
            {"changed": True, "operation": "delete", "address": "libvirt_volume.default/c.qcow2"},
        ],
    }
    cb, text = run(fake("devinfra.providers.libvirt_volume", result))
    assert [c["address"] for c in cb.changes] == ["libvirt_volume.default/a.qcow2", "libvirt_volume.default/c.qcow2"]
    assert text.splitlines()[-1] == "Plan: 1 to add, 0 to change, 1 to destroy."


def stats(host: str, *entries: dict[str, t.Any]) -> t.Any:
    return SimpleNamespace(custom={host: {PLAN_STAT: [hidden_result_plan(**one)["data"][PLAN_STAT][0] for one in entries]}})


def run_with_stats(results: list[t.Any], custom: t.Any) -> tuple[plan.CallbackModule, str]:
    cb = callback()
    for one in results:
        cb.v2_runner_on_ok(one)
    cb.v2_playbook_on_stats(custom)
    return cb, "\n".join(cb._display.text)  # type: ignore[attr-defined]


CENSORED = {"changed": True, "censored": "the output has been hidden"}


def test_no_log_without_published_plan() -> None:
    cb, text = run(fake("devinfra.providers.libvirt_secret", CENSORED, args={"name": "luks"}))
    assert "  ? libvirt_secret.luks  changed (no plan detail)" in text
    assert cb.changes[0]["changed_paths"] == []
    cb, text = run(fake("devinfra.providers.libvirt_secret", {"changed": False, "censored": "hidden"}))
    assert cb.changes == []


@pytest.mark.parametrize(("operation", "symbol"), [("create", "+"), ("update", "~"), ("replace", "-/+"), ("delete", "-")])
def test_no_log_plan_from_custom_stats(operation: str, symbol: str) -> None:
    published = {"module": "workspace_agent", "result": {"address": "workspace_agent.main", "operation": operation, "changed_paths": ["env.EDITOR"]}}
    cb, text = run_with_stats([fake("devinfra.providers.workspace_agent", CENSORED)], stats("h1", published))
    assert f"{symbol:>3} workspace_agent.main" in text
    assert ("env.EDITOR" in text) == (operation in ("update", "replace"))
    assert cb.changes[0]["operation"] == operation


def test_no_log_matched_by_module_in_order() -> None:
    agent = {"module": "workspace_agent", "result": {"address": "workspace_agent.main", "operation": "none"}}
    second = {"module": "workspace_agent", "result": {"address": "workspace_agent.other", "operation": "create"}}
    secret = {"module": "libvirt_secret", "result": {"address": "libvirt_secret.luks", "operation": "update", "changed_paths": ["value"]}}
    results = [
        fake("devinfra.providers.libvirt_secret", CENSORED),
        fake("devinfra.providers.workspace_agent", {"changed": False, "censored": "hidden"}),
        fake("devinfra.providers.workspace_agent", CENSORED),
    ]
    cb, text = run_with_stats(results, stats("h1", agent, secret, second))
    assert [(c["address"], c["operation"]) for c in cb.changes] == [("libvirt_secret.luks", "update"), ("workspace_agent.other", "create")]
    assert text.splitlines()[-1] == "Plan: 1 to add, 1 to change, 0 to destroy."


def test_a_shown_results_entry_is_not_taken_for_a_hidden_one() -> None:
    shown = {"module": "workspace_devcontainer", "result": {"address": "workspace_devcontainer.x", "operation": "create"}, "hidden": False}
    _cb, text = run_with_stats([fake("devinfra.providers.workspace_devcontainer", CENSORED)], stats("h1", shown))
    assert "  ? workspace_devcontainer  changed (no plan detail)" in text


def test_children_of_a_planned_agent_addressed_by_its_name() -> None:
    planned = "0b7e5a52-8d0c-4bd5-9f0a-3c1e6b2d4f10"
    agent = {"module": "workspace_agent", "result": {"address": "workspace_agent.main", "operation": "create"}, "aliases": {planned: "main"}}
    app = {"changed": True, "operation": "create", "address": f"workspace_app.{planned}.code"}
    cb, _text = run_with_stats([fake("devinfra.providers.workspace_agent", CENSORED), fake("devinfra.providers.workspace_app", app)], stats("h1", agent))
    assert [c["address"] for c in cb.changes] == ["workspace_agent.main", "workspace_app.main.code"]
    # Another host's agent of that id renames nothing here.
    cb, _text = run_with_stats([fake("devinfra.providers.workspace_app", app)], stats("h2", agent))
    assert cb.changes[0]["address"] == f"workspace_app.{planned}.code"


@pytest.mark.parametrize(
    "entry",
    [
        "text",
        {"module": "workspace_agent", "address": "workspace_agent.main", "operation": "explode", "changed_paths": [], "aliases": {}, "hidden": True},
        {"module": "workspace_agent", "address": "workspace_agent.main", "operation": "create", "changed_paths": [1], "aliases": {}, "hidden": True},
        {"module": "workspace_agent", "address": "workspace_agent.main", "operation": "create", "changed_paths": [], "aliases": {"x": "a.b"}, "hidden": True},
        {"module": "workspace_agent", "address": ["x"], "operation": "create", "changed_paths": [], "aliases": {}, "hidden": True},
        {"module": "workspace_agent", "address": "workspace_agent.main", "operation": "create", "changed_paths": [], "aliases": {}},
    ],
)
def test_malformed_custom_stats_ignored(entry: t.Any) -> None:
    custom = SimpleNamespace(custom={"h1": {PLAN_STAT: [entry]}})
    _cb, text = run_with_stats([fake("devinfra.providers.workspace_agent", CENSORED)], custom)
    assert "  ? workspace_agent  changed (no plan detail)" in text


def test_failed_task() -> None:
    cb, text = run(fake(DOMAIN, {"failed": True, "msg": "boom"}))
    assert cb.changes == []
    assert "failed; the plan is incomplete" in text
    assert cb.document()["errors"] == [{"host": "h1", "task": "a task"}]


def test_grouped_by_host() -> None:
    one = {"changed": True, "operation": "create", "address": "libvirt_domain.a"}
    two = {"changed": True, "operation": "create", "address": "libvirt_domain.b"}
    _cb, text = run(fake(DOMAIN, one, host="h1"), fake(DOMAIN, two, host="h2"), fake(DOMAIN, two, host="h1"))
    lines = text.splitlines()
    assert lines.index("h1:") < lines.index("    + libvirt_domain.b") < lines.index("h2:")
    assert lines[-1] == "Plan: 3 to add, 0 to change, 0 to destroy."


def test_plan_file(tmp_path: t.Any) -> None:
    target = tmp_path / "plan.json"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_text("keep")
    os.symlink(elsewhere, target)
    result = {"changed": True, "operation": "replace", "address": "libvirt_domain.web", "changed_paths": ["machine"]}
    run(fake(DOMAIN, result), plan_file=str(target))
    assert not target.is_symlink()
    assert elsewhere.read_text() == "keep"
    assert oct(target.stat().st_mode & 0o777) == "0o600"
    document = json.loads(target.read_text())
    assert document["summary"] == {"add": 1, "change": 0, "destroy": 1}
    assert document["resource_changes"] == [
        {
            "address": "libvirt_domain.web",
            "host": "h1",
            "module": "libvirt_domain",
            "operation": "replace",
            "actions": ["delete", "create"],
            "changed_paths": ["machine"],
        }
    ]
