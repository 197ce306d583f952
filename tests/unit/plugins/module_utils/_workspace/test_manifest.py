# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import re
import typing as t

import pytest

from ansible_collections.devinfra.providers.plugins.module_utils._workspace.document import WorkspaceState
from ansible_collections.devinfra.providers.plugins.module_utils._workspace.errors import WorkspaceValidationError
from ansible_collections.devinfra.providers.plugins.module_utils._workspace.manifest import build_manifest, merge_env

_AGENT_ARGS = {
    "arch": "amd64",
    "os": "linux",
    "auth": "token",
    "api_key_scope": "all",
    "connection_timeout": 120,
    "startup_script_behavior": "non-blocking",
    "display_apps": {"vscode": True},
}


def _state(extra: dict[str, t.Any] | None = None, **agent_args: t.Any) -> WorkspaceState:
    resources: dict[str, t.Any] = {
        "workspace_agent.main": {"arguments": {**_AGENT_ARGS, **agent_args}, "computed": {"id": "A2", "token": "secret"}, "replaced_ids": ["A1"]},
        "workspace_app.code": {
            "arguments": {"slug": "code", "agent_id": "A2", "url": "http://x", "order": None, "display_name": None},
            "computed": {"id": "P1"},
        },
        "workspace_app.old": {"arguments": {"slug": "old", "agent_id": "A1", "url": "http://y", "order": 1, "display_name": "Old"}, "computed": {"id": "P2"}},
        "workspace_app.orphan": {"arguments": {"slug": "orphan", "agent_id": "ZZ", "url": "http://z"}, "computed": {"id": "P3"}},
        "workspace_script.main.Setup": {"arguments": {"agent_id": "A2", "display_name": "Setup", "script": "x"}, "computed": {"id": "S1"}},
        "workspace_devcontainer.project": {
            "arguments": {"agent_id": "A2", "workspace_folder": "/p", "config_path": None},
            "computed": {"id": "D1", "subagent_id": "D2"},
        },
        "workspace_external_agent.main": {"arguments": {"agent_id": "A2"}, "computed": {"id": "E1"}},
        "workspace_metadata.vm": {"arguments": {"resource_id": "vm", "item": []}, "computed": {"id": "M1"}},
    }
    resources.update(extra or {})
    return WorkspaceState(resources=resources)


def _env(agent_id: str, name: str, value: str, strategy: str = "replace") -> dict[str, t.Any]:
    return {"arguments": {"agent_id": agent_id, "name": name, "value": value, "merge_strategy": strategy}, "computed": {"id": name}}


def test_manifest() -> None:
    manifest = build_manifest(_state(startup_script="echo up", startup_script_behavior="blocking", shutdown_script="echo down", env={"A": "1"}))
    (agent,) = manifest["agents"]
    assert "secret" not in str(manifest)  # agent tokens are not part of the manifest
    assert (agent["id"], agent["name"], agent["has_external_agent"], agent["env"]) == ("A2", "main", True, {"A": "1"})
    assert [app["slug"] for app in agent["apps"]] == ["code", "old"]  # "old" names the agent's previous id: attached
    assert agent["apps"][0]["display_name"] == "code"  # falls back to the slug
    assert [(s["display_name"], s.get("log_path"), s.get("start_blocks_login")) for s in agent["scripts"]] == [
        ("Startup Script", "coder-startup-script.log", True),
        ("Shutdown Script", "coder-shutdown-script.log", False),
        ("Setup", None, None),
    ]
    assert agent["devcontainers"] == [
        {
            "name": "project",
            "agent_id": "A2",
            "workspace_folder": "/p",
            "config_path": None,
            "id": "D1",
            "subagent_id": "D2",
            "apps": [],
            "scripts": [],
            "envs": [],
        }
    ]
    assert manifest["unattached"] == ["workspace_app.orphan"]
    assert manifest["metadata"][0]["id"] == "M1"
    assert manifest["has_external_agents"] is True


def test_devcontainer_subagent_resources() -> None:
    """coderd's devcontainer-resources test template (provisioner/terraform/testdata/resources,
    converted_state.state.golden): the app, script and env that name the dev container's
    subagent_id are the sub-agent's, not the parent agent's, and not unattached."""
    state = _state(
        {
            "workspace_app.devcontainer-app": {"arguments": {"slug": "devcontainer-app", "agent_id": "D2", "display_name": None}, "computed": {"id": "P9"}},
            "workspace_app.from-before": {"arguments": {"slug": "from-before", "agent_id": "D0", "display_name": None}, "computed": {"id": "P8"}},
            "workspace_script.devcontainer:project.Devcontainer Script": {
                "arguments": {"agent_id": "D2", "display_name": "Devcontainer Script", "script": "echo devcontainer", "run_on_start": True},
                "computed": {"id": "S9"},
            },
            "workspace_env.devcontainer:project.DEVCONTAINER_ENV": _env("D2", "DEVCONTAINER_ENV", "devcontainer-value"),
        }
    )
    state.resources["workspace_devcontainer.project"]["replaced_ids"] = ["D0"]  # the sub-agent of an earlier version
    manifest = build_manifest(state)
    (agent,) = manifest["agents"]
    (devcontainer,) = agent["devcontainers"]
    assert [app["slug"] for app in agent["apps"]] == ["code", "old"]
    assert [(app["slug"], app["display_name"], app["id"]) for app in devcontainer["apps"]] == [
        ("devcontainer-app", "devcontainer-app", "P9"),
        ("from-before", "from-before", "P8"),
    ]
    assert [(script["display_name"], script["script"], script["run_on_start"]) for script in devcontainer["scripts"]] == [
        ("Devcontainer Script", "echo devcontainer", True)
    ]
    assert devcontainer["envs"] == [{"name": "DEVCONTAINER_ENV", "value": "devcontainer-value"}]
    assert "DEVCONTAINER_ENV" not in agent["env"]
    assert manifest["unattached"] == ["workspace_app.orphan"]


def test_env_merge_strategies() -> None:
    definitions = [
        ("main.PATH.20", {"name": "PATH", "value": "/b", "merge_strategy": "append"}),
        ("main.PATH.10", {"name": "PATH", "value": "$PATH:/a", "merge_strategy": "replace"}),
        ("main.PATH.30", {"name": "PATH", "value": "/c", "merge_strategy": "prepend"}),
        ("main.EDITOR.1", {"name": "EDITOR", "value": "vi", "merge_strategy": "replace"}),
        ("main.EDITOR.2", {"name": "EDITOR", "value": "vim", "merge_strategy": "replace"}),
        ("main.ONLY", {"name": "ONLY", "value": "x", "merge_strategy": "error"}),
    ]
    assert merge_env("main", definitions) == {"PATH": "/c:$PATH:/a:/b", "EDITOR": "vim", "ONLY": "x"}


def test_env_error_strategy() -> None:
    state = _state({"workspace_env.main.X.1": _env("A2", "X", "1", "error"), "workspace_env.main.X.2": _env("A2", "X", "2")})
    with pytest.raises(WorkspaceValidationError, match='^duplicate env var "X" on agent "main"'):
        build_manifest(state)


def test_env_cannot_overwrite_agent_env() -> None:
    with pytest.raises(WorkspaceValidationError, match='^env "A" is already set in the env of workspace_agent "main"'):
        build_manifest(_state({"workspace_env.main.A": _env("A2", "A", "2")}, env={"A": "1"}))


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"workspace_agent.Main": {"arguments": _AGENT_ARGS, "computed": {"id": "B"}}}, "duplicate agent name: main"),
        ({"workspace_agent.bad_name": {"arguments": _AGENT_ARGS, "computed": {"id": "B"}}}, 'agent name "bad_name" contains underscores'),
        ({"workspace_app.Bad": {"arguments": {"agent_id": "A2"}, "computed": {"id": "B"}}}, 'invalid "coder_app" slug'),
    ],
)
def test_server_rules(extra: dict[str, t.Any], message: str) -> None:
    with pytest.raises(WorkspaceValidationError, match="^" + re.escape(message)):
        build_manifest(_state(extra))


def test_parameters_and_presets() -> None:
    manifest = build_manifest(
        _state(), parameters=[{"name": "a", "optional": True}, {"name": "b", "optional": False}], presets=[{"name": "s", "default": True}, {"name": "l"}]
    )
    assert [parameter["required"] for parameter in manifest["parameters"]] == [False, True]
    with pytest.raises(WorkspaceValidationError, match='^coder_parameter names must be unique but "a" appears multiple times$'):
        build_manifest(_state(), parameters=[{"name": "a"}, {"name": "a"}])
    with pytest.raises(WorkspaceValidationError, match="^a maximum of 1 coder_workspace_preset can be marked as default, but 2 are set$"):
        build_manifest(_state(), presets=[{"name": "s", "default": True}, {"name": "l", "default": True}])
    with pytest.raises(WorkspaceValidationError, match='^coder_workspace_preset names must be unique but "s" appears multiple times$'):
        build_manifest(_state(), presets=[{"name": "s"}, {"name": "s"}])
