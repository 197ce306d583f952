# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The action plugins run the workspace resources on the controller; the agent's result is marked
no_log for the callbacks while it keeps the token for the registered variable, and the task's
environment applies on top of the controller's."""

from __future__ import annotations

import json
import os
import typing as t

import pytest
from ansible.template import trust_as_template

from ansible_collections.devinfra.providers.plugins.action import workspace_agent, workspace_app, workspace_devcontainer, workspace_state
from ansible_collections.devinfra.providers.plugins.module_utils._common.plan import PLAN_STAT

Run = t.Callable[..., dict[str, t.Any]]


def test_agent_result_is_hidden_but_keeps_the_token(run_action: Run, tmp_path: t.Any) -> None:
    state_file = str(tmp_path / "state.json")
    result = run_action(workspace_agent, {"name": "main", "arch": "amd64", "os": "linux", "state_file": state_file}, diff=True)
    assert result["_ansible_no_log"] is True
    assert result["changed"] is True
    with open(state_file, encoding="utf-8") as handle:
        stored = json.load(handle)["resources"]["workspace_agent.main"]["computed"]["token"]
    assert result["agent"]["token"] == stored
    assert stored not in json.dumps(result["diff"])
    again = run_action(workspace_agent, {"name": "main", "arch": "amd64", "os": "linux", "state_file": state_file}, check_mode=True)
    assert (again["changed"], again["agent"]["token"]) == (False, stored)


def test_hidden_results_publish_their_plan(run_action: Run, tmp_path: t.Any) -> None:
    # Callbacks see only `changed` of a hidden result: the plan travels as a custom stat, names only.
    state_file = str(tmp_path / "state.json")
    args = {"name": "main", "arch": "amd64", "os": "linux", "state_file": state_file, "env": {"EDITOR": "vim"}}
    planned = run_action(workspace_agent, args, check_mode=True)
    planned_id = planned["agent"]["id"]
    entry = {
        "module": "workspace_agent",
        "address": "workspace_agent.main",
        "operation": "create",
        "changed_paths": [],
        "aliases": {planned_id: "main"},
        "hidden": True,
    }
    assert planned["ansible_stats"] == {"data": {PLAN_STAT: [entry]}, "per_host": True, "aggregate": True}
    created = run_action(workspace_agent, args)
    token = created["agent"]["token"]
    replaced = run_action(workspace_agent, {**args, "env": {"EDITOR": "nano"}})
    published = replaced["ansible_stats"]["data"][PLAN_STAT][0]
    assert (published["operation"], published["aliases"]) == ("replace", {})  # the real id: children find it
    assert "env.EDITOR" in published["changed_paths"]
    assert token not in json.dumps(replaced["ansible_stats"]) and "nano" not in json.dumps(replaced["ansible_stats"])
    # A shown result needs no stat; a task's own no_log makes any result hidden, and so published.
    app = {"slug": "code", "agent_id": replaced["agent"]["id"], "url": "http://localhost:1", "state_file": state_file}
    assert "ansible_stats" not in run_action(workspace_app, app)
    hidden = run_action(workspace_app, {**app, "url": "http://localhost:2"}, no_log=True)
    assert hidden["ansible_stats"]["data"][PLAN_STAT][0]["address"] == "workspace_app.code"
    moved = run_action(workspace_state, {"src": state_file, "dest": str(tmp_path / "copy.json")}, no_log=True)
    assert moved["ansible_stats"]["data"][PLAN_STAT][0]["operation"] == "create"
    assert "ansible_stats" not in run_action(workspace_app, {**app, "url": "x", "command": "y"}, no_log=True)  # an error


def test_planned_devcontainer_publishes_its_subagent_alias(run_action: Run, tmp_path: t.Any) -> None:
    state_file = str(tmp_path / "state.json")
    agent_id = run_action(workspace_agent, {"name": "main", "arch": "amd64", "os": "linux", "state_file": state_file})["agent"]["id"]
    args = {"name": "dev", "agent_id": agent_id, "workspace_folder": "/src", "state_file": state_file}
    planned = run_action(workspace_devcontainer, args, check_mode=True)
    entry = planned["ansible_stats"]["data"][PLAN_STAT][0]
    assert (entry["hidden"], entry["aliases"]) == (False, {planned["devcontainer"]["subagent_id"]: f"devcontainer:{planned['address'].split('.', 1)[1]}"})
    run_action(workspace_devcontainer, args)
    assert "ansible_stats" not in run_action(workspace_devcontainer, args, check_mode=True)  # nothing planned anew


def test_agent_diff_masks_its_env_values(run_action: Run, tmp_path: t.Any) -> None:
    # The module documents result.diff as printable: the env values (tokens, often) are masked there.
    args = {"name": "main", "arch": "amd64", "os": "linux", "state_file": str(tmp_path / "state.json"), "env": {"CODER_SESSION_TOKEN": "secret-session-1"}}
    result = run_action(workspace_agent, args, diff=True)
    assert "secret-session-1" not in json.dumps(result["diff"])
    assert result["diff"]["after"]["env"] == {"CODER_SESSION_TOKEN": "********"}
    assert result["agent"]["env"] == {"CODER_SESSION_TOKEN": "secret-session-1"}  # registered whole, for later tasks
    changed = run_action(workspace_agent, {**args, "env": {"CODER_SESSION_TOKEN": "secret-session-2"}}, diff=True)
    assert changed["changed"] is True
    assert "secret-session-1" not in json.dumps(changed["diff"])
    assert "secret-session-2" not in json.dumps(changed["diff"])


def test_errors_are_not_hidden(run_action: Run, tmp_path: t.Any) -> None:
    result = run_action(workspace_agent, {"name": "my_agent", "arch": "amd64", "os": "linux", "state_file": str(tmp_path / "s.json")})
    assert "_ansible_no_log" not in result
    assert result["failed"] is True
    assert result["msg"].startswith('agent name "my_agent" contains underscores')
    result = run_action(workspace_agent, {"name": "main", "arch": "amd64", "os": "linux", "bogus": 1})
    assert result["msg"].startswith("Unsupported parameters for (devinfra.providers.workspace_agent) module: bogus")


def test_other_results_are_shown(run_action: Run, tmp_path: t.Any) -> None:
    state_file = str(tmp_path / "state.json")
    agent_id = run_action(workspace_agent, {"name": "main", "arch": "amd64", "os": "linux", "state_file": state_file})["agent"]["id"]
    result = run_action(
        workspace_app, {"slug": "code", "agent_id": agent_id, "url": "http://localhost:1", "hidden": True, "order": 1, "state_file": state_file}
    )
    assert "_ansible_no_log" not in result
    assert result["app"]["agent_id"] == agent_id
    assert result["warnings"] == ["`order` set when app is hidden"]
    assert (
        run_action(workspace_app, {"slug": "code", "url": "x", "command": "y", "agent_id": agent_id})["msg"] == "parameters are mutually exclusive: command|url"
    )


def test_task_environment_applies_on_top_of_the_controllers(run_action: Run, tmp_path: t.Any, monkeypatch: pytest.MonkeyPatch) -> None:
    controller_state = tmp_path / "controller.json"
    task_state = tmp_path / "task.json"
    monkeypatch.setenv("DEVINFRA_WORKSPACE_STATE", str(controller_state))
    monkeypatch.setenv("CODER_AGENT_URL", "https://controller.example.com")
    monkeypatch.setenv("CODER_AGENT_SCRIPT_linux_amd64", "curl ${ACCESS_URL}bin")
    args = {"name": "main", "arch": "amd64", "os": "linux"}
    # Play-level, then task-level: the later level wins; the URL is templated from a variable.
    play_level = {"DEVINFRA_WORKSPACE_STATE": str(controller_state)}
    task_level = {"DEVINFRA_WORKSPACE_STATE": str(task_state), "CODER_AGENT_URL": trust_as_template("{{ url }}")}
    environment = [play_level, task_level]
    result = run_action(workspace_agent, args, environment=environment, task_vars={"url": "https://task.example.com"})
    assert result["changed"] is True
    assert result["agent"]["init_script"] == "curl https://task.example.com/bin"
    assert task_state.exists() and not controller_state.exists()
    assert "CODER_AGENT_URL" not in os.environ or os.environ["CODER_AGENT_URL"] == "https://controller.example.com"  # not leaked
    # Without the task environment the controller's applies.
    result = run_action(workspace_agent, args)
    assert result["agent"]["init_script"] == "curl https://controller.example.com/bin"
    assert controller_state.exists()
    # Ansible hands the action the post-validated environment as one dictionary: that works too.
    post_validated = {"DEVINFRA_WORKSPACE_STATE": str(task_state), "CODER_AGENT_URL": "https://task.example.com"}
    again = run_action(workspace_agent, args, environment=post_validated, check_mode=True)
    assert again["changed"] is False


@pytest.mark.parametrize(
    ("environment", "message"),
    [
        (["not a dictionary"], "environment must be a dictionary of variables"),
        ([{"CODER_AGENT_URL": ["DVTSECRET-in-a-list"]}], "environment variable CODER_AGENT_URL must be a string, not a list"),
    ],
)
def test_a_task_environment_that_is_not_one_fails_loudly(run_action: Run, tmp_path: t.Any, environment: t.Any, message: str) -> None:
    state_file = tmp_path / "s.json"
    result = run_action(workspace_agent, {"name": "main", "arch": "amd64", "os": "linux", "state_file": str(state_file)}, environment=environment)
    assert (result["failed"], result["msg"]) == (True, message)
    assert not state_file.exists()
