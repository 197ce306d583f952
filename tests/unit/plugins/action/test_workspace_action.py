# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The action plugins run the module code on the controller; the agent's result is marked
no_log for the callbacks while it keeps the token for the registered variable."""

from __future__ import annotations

import json
import os
import typing as t
from unittest.mock import MagicMock

import pytest

from ansible_collections.devinfra.providers.plugins.action import workspace_agent, workspace_app


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(("CODER_", "DEVINFRA_")):
            monkeypatch.delenv(name)


def _run(plugin: t.Any, args: dict[str, t.Any], *, check_mode: bool = False, diff: bool = False) -> dict[str, t.Any]:
    task = MagicMock(args=args, action=f"devinfra.providers.{plugin.__name__.rsplit('.', 1)[-1]}", async_val=0, check_mode=check_mode)
    play_context = MagicMock(check_mode=check_mode, diff=diff)
    action = plugin.ActionModule(task, MagicMock(), play_context, loader=None, templar=None)
    result: dict[str, t.Any] = action.run(task_vars={})
    return result


def test_agent_result_is_hidden_but_keeps_the_token(tmp_path: t.Any) -> None:
    state_file = str(tmp_path / "state.json")
    result = _run(workspace_agent, {"name": "main", "arch": "amd64", "os": "linux", "state_file": state_file}, diff=True)
    assert result["_ansible_no_log"] is True
    assert result["changed"] is True
    with open(state_file, encoding="utf-8") as handle:
        stored = json.load(handle)["resources"]["workspace_agent.main"]["computed"]["token"]
    assert result["agent"]["token"] == stored
    assert stored not in json.dumps(result["diff"])
    again = _run(workspace_agent, {"name": "main", "arch": "amd64", "os": "linux", "state_file": state_file}, check_mode=True)
    assert (again["changed"], again["agent"]["token"]) == (False, stored)


def test_agent_diff_masks_its_env_values(tmp_path: t.Any) -> None:
    # The module documents result.diff as printable: the env values (tokens, often) are masked there.
    args = {"name": "main", "arch": "amd64", "os": "linux", "state_file": str(tmp_path / "state.json"), "env": {"CODER_SESSION_TOKEN": "secret-session-1"}}
    result = _run(workspace_agent, args, diff=True)
    assert "secret-session-1" not in json.dumps(result["diff"])
    assert result["diff"]["after"]["env"] == {"CODER_SESSION_TOKEN": "********"}
    assert result["agent"]["env"] == {"CODER_SESSION_TOKEN": "secret-session-1"}  # registered whole, for later tasks
    changed = _run(workspace_agent, {**args, "env": {"CODER_SESSION_TOKEN": "secret-session-2"}}, diff=True)
    assert changed["changed"] is True
    assert "secret-session-1" not in json.dumps(changed["diff"])
    assert "secret-session-2" not in json.dumps(changed["diff"])


def test_errors_are_not_hidden(tmp_path: t.Any) -> None:
    result = _run(workspace_agent, {"name": "my_agent", "arch": "amd64", "os": "linux", "state_file": str(tmp_path / "s.json")})
    assert "_ansible_no_log" not in result
    assert result["failed"] is True
    assert result["msg"].startswith('agent name "my_agent" contains underscores')
    result = _run(workspace_agent, {"name": "main", "arch": "amd64", "os": "linux", "bogus": 1})
    assert result["msg"].startswith("Unsupported parameters for (devinfra.providers.workspace_agent) module: bogus")


def test_other_results_are_shown(tmp_path: t.Any) -> None:
    state_file = str(tmp_path / "state.json")
    agent_id = _run(workspace_agent, {"name": "main", "arch": "amd64", "os": "linux", "state_file": state_file})["agent"]["id"]
    result = _run(workspace_app, {"slug": "code", "agent_id": agent_id, "url": "http://localhost:1", "hidden": True, "order": 1, "state_file": state_file})
    assert "_ansible_no_log" not in result
    assert result["app"]["agent_id"] == agent_id
    assert result["warnings"] == ["`order` set when app is hidden"]
    assert _run(workspace_app, {"slug": "code", "url": "x", "command": "y", "agent_id": agent_id})["msg"] == "parameters are mutually exclusive: command|url"
