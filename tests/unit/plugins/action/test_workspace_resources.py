# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import json
import os
import re
import stat
import typing as t

import pytest

from ansible_collections.devinfra.providers.plugins.action import (
    workspace_agent,
    workspace_app,
    workspace_devcontainer,
    workspace_env,
    workspace_external_agent,
    workspace_metadata,
    workspace_script,
)

Run = t.Callable[..., dict[str, t.Any]]
TOKEN_ENV = "CODER_RUNNING_WORKSPACE_AGENT_TOKEN_e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
CLAIMED_TOKEN = "5b0e4d1c-7f3a-4e2b-9c8d-1a2b3c4d5e6f"  # coderd's agent tokens are UUIDs


@pytest.fixture
def run(run_action: Run) -> Run:
    """run_action, without the arguments given as _OMIT."""

    def wrapped(plugin: t.Any, args: dict[str, t.Any], **kwargs: t.Any) -> dict[str, t.Any]:
        return run_action(plugin, {key: value for key, value in args.items() if value is not _OMIT}, **kwargs)

    return wrapped


_OMIT = object()


@pytest.fixture
def state_file(tmp_path: t.Any) -> str:
    return str(tmp_path / "state.json")


def _agent(run: Run, state_file: str, *, check_mode: bool = False, diff: bool = False, **args: t.Any) -> dict[str, t.Any]:
    return run(workspace_agent, {"name": "main", "arch": "amd64", "os": "linux", "state_file": state_file, **args}, check_mode=check_mode, diff=diff)


def _stored(state_file: str) -> dict[str, t.Any]:
    with open(state_file, encoding="utf-8") as handle:
        resources: dict[str, t.Any] = json.load(handle)["resources"]
    return resources


def test_agent_lifecycle(run: Run, state_file: str) -> None:
    check = _agent(run, state_file, check_mode=True)
    assert (check["changed"], check["operation"]) == (True, "create")
    assert not os.path.exists(state_file)  # check mode writes nothing

    created = _agent(run, state_file)
    agent = created["agent"]
    assert (created["changed"], created["operation"], created["address"]) == (True, "create", "workspace_agent.main")
    assert agent["agent_id"] == agent["id"]
    assert len(agent["token"]) == 36
    assert agent["display_apps"] == {"vscode": True, "vscode_insiders": False, "web_terminal": True, "port_forwarding_helper": True, "ssh_helper": True}
    assert (agent["auth"], agent["api_key_scope"], agent["connection_timeout"], agent["startup_script_behavior"]) == ("token", "all", 120, "non-blocking")
    assert agent["init_script"] == ""  # no CODER_AGENT_SCRIPT_linux_amd64

    again = _agent(run, state_file, check_mode=True)
    assert (again["changed"], again["agent"]["id"], again["agent"]["token"]) == (False, agent["id"], agent["token"])
    again = _agent(run, state_file)
    assert (again["changed"], again["operation"], again["agent"]["id"], again["agent"]["token"]) == (False, "none", agent["id"], agent["token"])

    # A changed argument replaces the agent: a new id, shown in the diff; the token is masked there.
    replaced = _agent(run, state_file, connection_timeout=0, diff=True)
    assert (replaced["changed"], replaced["operation"]) == (True, "replace")
    assert replaced["agent"]["id"] != agent["id"]
    assert replaced["diff"]["before"]["id"] == agent["id"]
    assert replaced["diff"]["after"]["id"] == replaced["agent"]["id"]
    assert replaced["diff"]["before"]["connection_timeout"] == 120
    assert replaced["diff"]["after"]["connection_timeout"] == 0
    assert agent["token"] not in json.dumps(replaced["diff"])
    assert replaced["diff"]["after"]["token"] == "********"
    assert _stored(state_file)["workspace_agent.main"]["replaced_ids"] == [agent["id"]]

    removed = _agent(run, state_file, state="absent", check_mode=True)
    assert removed["changed"] is True
    assert "workspace_agent.main" in _stored(state_file)
    removed = _agent(run, state_file, state="absent")
    assert (removed["changed"], removed["operation"], removed["agent"]["id"]) == (True, "delete", replaced["agent"]["id"])
    assert removed["agent"]["token"] == "********"
    assert _stored(state_file) == {}
    assert _agent(run, state_file, state="absent")["changed"] is False
    assert oct(os.stat(state_file).st_mode & 0o777) == "0o600"


def test_agent_token_and_init_script(run: Run, state_file: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODER_AGENT_SCRIPT_linux_arm64", "#!/bin/sh\ncurl ${ACCESS_URL}bin/coder-linux-arm64 | AUTH=${AUTH_TYPE} sh\n# ${ACCESS_URL}")
    monkeypatch.setenv(TOKEN_ENV, CLAIMED_TOKEN)
    result = _agent(run, state_file, arch="arm64", url="https://coder.example.com:8443/some/path?q=1", auth="aws-instance-identity")
    assert result["agent"]["token"] == CLAIMED_TOKEN  # prebuild claim reuses the running agent's token
    assert result["agent"]["init_script"] == (
        "#!/bin/sh\ncurl https://coder.example.com:8443/bin/coder-linux-arm64 | AUTH=aws-instance-identity sh\n# https://coder.example.com:8443/"
    )
    # The URL is not an argument: changing it updates the script in place, with the same id.
    updated = _agent(run, state_file, arch="arm64", url="https://other.example.com", auth="aws-instance-identity")
    assert (updated["operation"], updated["agent"]["id"]) == ("update", result["agent"]["id"])
    assert updated["changed_paths"] == ["init_script"]  # the path only, never its value
    assert result["changed_paths"] == []
    assert "https://other.example.com/bin/" in updated["agent"]["init_script"]
    monkeypatch.delenv(TOKEN_ENV)
    kept = _agent(run, state_file, arch="arm64", url="https://other.example.com", auth="aws-instance-identity")
    assert (kept["changed"], kept["agent"]["token"]) == (False, CLAIMED_TOKEN)


def test_agent_url_from_environment(run: Run, state_file: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODER_AGENT_SCRIPT_linux_amd64", "${ACCESS_URL}")
    monkeypatch.setenv("CODER_AGENT_URL", "")
    assert _agent(run, state_file)["agent"]["init_script"] == "https://mydeployment.coder.com/"
    monkeypatch.setenv("CODER_AGENT_URL", "http://localhost:3000/x")
    assert _agent(run, state_file)["agent"]["init_script"] == "http://localhost:3000/"


def test_agent_adopts_given_id(run: Run, state_file: str) -> None:
    result = _agent(run, state_file, agent_id="5c7a0c5e-8b7f-4b8e-9f5e-2f0b1f6a7d10")
    assert result["agent"]["id"] == "5c7a0c5e-8b7f-4b8e-9f5e-2f0b1f6a7d10"


CODERD_ID = "5c7a0c5e-8b7f-4b8e-9f5e-2f0b1f6a7d10"
CODERD_TOKEN = "0f9d6b8e-3c1a-4e7b-8d2f-6a5b4c3d2e1f"


def test_agent_adopts_coderds_token(run: Run, state_file: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A Coder template passes coder_agent.main.id and .token: the agent is the one coderd knows."""
    check = _agent(run, state_file, agent_id=CODERD_ID, token=CODERD_TOKEN, check_mode=True, diff=True)
    assert (check["changed"], check["agent"]["token"]) == (True, CODERD_TOKEN)
    assert CODERD_TOKEN not in json.dumps(check["diff"])
    created = _agent(run, state_file, agent_id=CODERD_ID, token=CODERD_TOKEN)
    assert (created["agent"]["id"], created["agent"]["token"]) == (CODERD_ID, CODERD_TOKEN)
    stored = _stored(state_file)["workspace_agent.main"]
    assert "token" not in stored["arguments"] and stored["computed"]["token"] == CODERD_TOKEN
    assert _agent(run, state_file, agent_id=CODERD_ID, token=CODERD_TOKEN)["changed"] is False
    # Without the option the stored token stays; a new one from coderd updates the agent in place.
    assert _agent(run, state_file, agent_id=CODERD_ID)["agent"]["token"] == CODERD_TOKEN
    rotated = _agent(run, state_file, agent_id=CODERD_ID, token=CLAIMED_TOKEN)
    assert (rotated["operation"], rotated["agent"]["id"], rotated["agent"]["token"]) == ("update", CODERD_ID, CLAIMED_TOKEN)
    # The token given wins over a prebuild claim's in the environment.
    monkeypatch.setenv(TOKEN_ENV, CODERD_TOKEN)
    assert _agent(run, state_file, agent_id=CODERD_ID, token=CLAIMED_TOKEN)["agent"]["token"] == CLAIMED_TOKEN


def test_a_token_that_is_no_uuid_is_refused_unseen(run: Run, state_file: str) -> None:
    result = _agent(run, state_file, token="DVTSECRET-not-a-token")
    assert (result["failed"], result["msg"]) == (
        True,
        "token: must be a UUID (8-4-4-4-12 hexadecimal digits), as coderd's agent tokens are; the value is not shown",
    )
    assert not os.path.exists(state_file)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            {"name": "my_agent"},
            'agent name "my_agent" contains underscores which are no longer supported, please use hyphens instead (regex: "(?i)^[a-z0-9](-?[a-z0-9])*$")',
        ),
        ({"name": "-agent"}, 'agent name "-agent" does not match regex "(?i)^[a-z0-9](-?[a-z0-9])*$"'),
        ({"name": "a--b"}, 'agent name "a--b" does not match regex "(?i)^[a-z0-9](-?[a-z0-9])*$"'),
        ({"arch": "x86"}, "value of arch must be one of: amd64, armv7, arm64, got: x86"),
        ({"os": "plan9"}, "value of os must be one of: linux, darwin, windows, got: plan9"),
        ({"auth": "gcp"}, "value of auth must be one of: token, google-instance-identity, aws-instance-identity, azure-instance-identity, got: gcp"),
        ({"api_key_scope": "some"}, "value of api_key_scope must be one of: all, no_user_data, got: some"),
        ({"startup_script_behavior": "wait"}, "value of startup_script_behavior must be one of: blocking, non-blocking, got: wait"),
        ({"connection_timeout": -1}, "expected connection_timeout to be at least (0), got -1"),
        ({"metadata": [{"key": "a", "script": "x", "interval": 1}, {"key": "a", "script": "y", "interval": 1}]}, 'duplicate agent metadata key "a"'),
        ({"resources_monitoring": {}}, "resources_monitoring must define at least one monitor"),
        (
            {"resources_monitoring": {"memory": {"enabled": True, "threshold": 101}}},
            "expected resources_monitoring.0.memory.0.threshold to be in the range (0 - 100), got 101",
        ),
        ({"resources_monitoring": {"volume": [{"path": "", "enabled": True, "threshold": 1}]}}, "volume path must not be empty"),
        ({"resources_monitoring": {"volume": [{"path": "data", "enabled": True, "threshold": 1}]}}, "volume path must be an absolute path"),
        (
            {"resources_monitoring": {"volume": [{"path": "/d", "enabled": True, "threshold": 1}, {"path": "/d", "enabled": False, "threshold": 2}]}},
            'duplicate volume path "/d"',
        ),
        ({"url": ""}, 'CODER_AGENT_URL must not be empty; got ""'),
        ({"url": "https://x:port"}, 'url: parse "https://x:port": invalid port ":port" after host'),
        ({"arch": _OMIT}, "state is present but all of the following are missing: arch"),
    ],
)
def test_agent_errors_write_nothing(run: Run, state_file: str, args: dict[str, t.Any], message: str) -> None:
    result = _agent(run, state_file, **args)
    assert result["failed"] is True
    assert result["msg"] == message
    assert not os.path.exists(state_file)


def test_agent_dir_warnings(run: Run, state_file: str) -> None:
    assert _agent(run, state_file, dir="$HOME")["warnings"] == ["dir has been deprecated and will be removed in a future release."]
    result = _agent(run, state_file, name="other", dir="/work")
    assert result["warnings"][1:] == [
        '"dir" is deprecated and will be removed in a future release.',
        'Setting "dir" to a value other than $HOME will break Coder Desktop file sync.',
    ]


def _app(run: Run, state_file: str, agent_id: str, *, check_mode: bool = False, diff: bool = False, **args: t.Any) -> dict[str, t.Any]:
    return run(workspace_app, {"slug": "code", "agent_id": agent_id, "state_file": state_file, **args}, check_mode=check_mode, diff=diff)


def test_app(run: Run, state_file: str) -> None:
    agent_id = _agent(run, state_file)["agent"]["id"]
    created = _app(run, state_file, agent_id, url="http://localhost:13337", diff=True)
    app = created["app"]
    assert (created["changed"], app["share"], app["open_in"], app["external"], app["hidden"]) == (True, "owner", "slim-window", False, False)
    assert created["diff"]["before"] == {"exists": False}
    assert app["app_id"] == app["id"]
    same = _app(run, state_file, agent_id, url="http://localhost:13337")
    assert (same["changed"], same["app"]["id"]) == (False, app["id"])
    replaced = _app(run, state_file, agent_id, url="http://localhost:13338")
    assert (replaced["operation"], replaced["app"]["id"] != app["id"]) == ("replace", True)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            {"slug": "Code", "url": "http://x"},
            'invalid "coder_app" slug, must be a valid hostname ("^[a-z0-9](-?[a-z0-9])*$", cannot contain two consecutive hyphens or start/end with a'
            ' hyphen): "Code"',
        ),
        (
            {"slug": "a--b", "url": "http://x"},
            'invalid "coder_app" slug, must be a valid hostname ("^[a-z0-9](-?[a-z0-9])*$", cannot contain two consecutive hyphens or start/end with a'
            ' hyphen): "a--b"',
        ),
        ({}, "state is present but any of the following are missing: command, url"),
        ({"command": "x", "url": "http://x"}, "parameters are mutually exclusive: command|url"),
        ({"command": "x", "subdomain": False}, "parameters are mutually exclusive: command|subdomain"),
        ({"command": "x", "healthcheck": {"url": "u", "interval": 1, "threshold": 1}}, "parameters are mutually exclusive: command|healthcheck"),
        ({"url": "http://x", "external": False, "share": "owner"}, "parameters are mutually exclusive: external|share"),
        ({"url": "http://x", "external": True, "subdomain": True}, "parameters are mutually exclusive: external|subdomain"),
        ({"url": "http://x", "share": "everyone"}, "value of share must be one of: owner, authenticated, public, got: everyone"),
        ({"url": "http://x", "open_in": "window"}, "value of open_in must be one of: tab, slim-window, got: window"),
        ({"url": "http://x", "display_name": "x" * 65}, "display name is too long (max 64 characters)"),
        ({"url": "http://x", "group": "é" * 33}, "group name is too long (max 64 characters)"),
        ({"url": "http://x", "tooltip": "x" * 2049}, "tooltip is too long (max 2048 characters)"),
        ({"url": "http://x", "icon": "%zz"}, 'icon: parse "%zz": invalid URL escape "%zz"'),
        (
            {"url": "http://x", "agent_id": "nope"},
            'agent_id "nope" is not the id of a workspace_agent (or the subagent_id of a workspace_devcontainer) in the state file',
        ),
    ],
)
def test_app_errors(run: Run, state_file: str, args: dict[str, t.Any], message: str) -> None:
    agent_id = _agent(run, state_file)["agent"]["id"]
    before = _stored(state_file)
    result = _app(run, state_file, args.pop("agent_id", agent_id), **args)
    assert result["failed"] is True
    assert result["msg"].startswith(message)
    assert _stored(state_file) == before


def test_app_hidden_warnings(run: Run, state_file: str) -> None:
    agent_id = _agent(run, state_file)["agent"]["id"]
    result = _app(run, state_file, agent_id, url="http://x", hidden=True, display_name="Code", icon="/icon.svg", order=2)
    assert result["warnings"] == ["`display_name` set when app is hidden", "`icon` set when app is hidden", "`order` set when app is hidden"]
    assert "warnings" not in _app(run, state_file, agent_id, slug="other", url="http://x", hidden=True, order=0)


def test_app_in_check_mode_with_predicted_agent(run: Run, state_file: str) -> None:
    predicted = _agent(run, state_file, check_mode=True)["agent"]["id"]
    result = _app(run, state_file, predicted, url="http://x", check_mode=True)
    assert result["changed"] is True
    assert "may only have predicted it" in result["warnings"][0]


def test_env(run: Run, state_file: str) -> None:
    agent_id = _agent(run, state_file, env={"EDITOR": "vim"})["agent"]["id"]
    created = run(workspace_env, {"agent_id": agent_id, "name": "PAGER", "value": "less", "state_file": state_file})
    assert (created["changed"], created["address"], created["env"]["merge_strategy"]) == (True, "workspace_env.main.PAGER", "replace")
    assert run(workspace_env, {"agent_id": agent_id, "name": "PAGER", "value": "less", "state_file": state_file})["changed"] is False
    keyed = run(workspace_env, {"agent_id": agent_id, "name": "PATH", "key": "10", "value": "/a", "merge_strategy": "append", "state_file": state_file})
    assert keyed["address"] == "workspace_env.main.PATH.10"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"name": "1BAD"}, "invalid value for name (must be a valid environment variable name)"),
        ({"name": "A-B"}, "invalid value for name (must be a valid environment variable name)"),
        (
            {"name": "EDITOR"},
            'env "EDITOR" is already set in the env of workspace_agent "main"; a workspace_env cannot overwrite a variable of its agent\'s env',
        ),
        ({"name": "X", "merge_strategy": "merge"}, "value of merge_strategy must be one of: replace, append, prepend, error, got: merge"),
    ],
)
def test_env_errors(run: Run, state_file: str, args: dict[str, t.Any], message: str) -> None:
    agent_id = _agent(run, state_file, env={"EDITOR": "vim"})["agent"]["id"]
    before = _stored(state_file)
    result = run(workspace_env, {"agent_id": agent_id, "value": "v", "state_file": state_file, **args})
    assert (result["failed"], result["msg"]) == (True, message)
    assert _stored(state_file) == before


def test_children_survive_agent_replacement(run: Run, state_file: str) -> None:
    old_id = _agent(run, state_file)["agent"]["id"]
    run(workspace_env, {"agent_id": old_id, "name": "A", "value": "1", "state_file": state_file})
    new_id = _agent(run, state_file, order=1)["agent"]["id"]
    # Same key (the agent's name), so the env is replaced in place rather than duplicated.
    result = run(workspace_env, {"agent_id": new_id, "name": "A", "value": "1", "state_file": state_file})
    assert (result["operation"], result["address"]) == ("replace", "workspace_env.main.A")
    assert [address for address in _stored(state_file) if address.startswith("workspace_env.")] == ["workspace_env.main.A"]


def _script(run: Run, state_file: str, agent_id: str, **args: t.Any) -> dict[str, t.Any]:
    return run(workspace_script, {"agent_id": agent_id, "display_name": "Setup", "script": "echo hi", "state_file": state_file, **args})


def test_script(run: Run, state_file: str) -> None:
    agent_id = _agent(run, state_file)["agent"]["id"]
    created = _script(run, state_file, agent_id, run_on_start=True, start_blocks_login=True)
    assert (created["changed"], created["script"]["timeout"], created["address"]) == (True, 0, "workspace_script.main.Setup")
    warned = _script(run, state_file, agent_id, display_name="Cron", cron="*/5 * * * *")
    assert warned["warnings"][0].startswith("The cron expression '*/5 * * * *' appears to be in Unix 5-field format.")


def test_scripts_of_one_name_told_apart_by_key(run: Run, state_file: str) -> None:
    """The registry's archive module has a start and a stop script, both "Archive", on one agent:
    with a key each they are two resources that converge; without one the second replaced the first."""
    agent_id = _agent(run, state_file)["agent"]["id"]
    scripts = {"start": {"run_on_start": True, "script": "coder-archive-extract"}, "stop": {"run_on_stop": True, "script": "coder-archive-create"}}
    for round_number in range(2):
        results = {key: _script(run, state_file, agent_id, display_name="Archive", key=key, **args) for key, args in scripts.items()}
        assert {key: (result["changed"], result["address"]) for key, result in results.items()} == {
            "start": (round_number == 0, "workspace_script.main.Archive.start"),
            "stop": (round_number == 0, "workspace_script.main.Archive.stop"),
        }
    stored = _stored(state_file)
    assert (stored["workspace_script.main.Archive.start"]["arguments"]["key"], stored["workspace_script.main.Archive.stop"]["arguments"]["run_on_stop"]) == (
        "start",
        True,
    )
    plain = _script(run, state_file, agent_id, display_name="Archive", run_on_start=True)
    assert (plain["changed"], plain["address"]) == (True, "workspace_script.main.Archive")  # a third resource, nothing replaced
    assert len([address for address in _stored(state_file) if address.startswith("workspace_script.")]) == 3


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({}, 'at least one of "run_on_start", "run_on_stop", or "cron" must be set'),
        ({"run_on_stop": True, "start_blocks_login": True}, '"start_blocks_login" can only be set if "run_on_start" is "true"'),
        ({"run_on_start": True, "timeout": 0}, "expected timeout to be at least (1), got 0"),
        ({"cron": "invalid"}, "invalid is not a valid cron expression: expected 5 to 6 fields, found 1: [invalid]"),
        ({"cron": "* * * * * * *"}, "* * * * * * * is not a valid cron expression: expected 5 to 6 fields, found 7: [* * * * * * *]"),
        ({"script": _OMIT, "run_on_start": True}, "state is present but all of the following are missing: script"),
    ],
)
def test_script_errors(run: Run, state_file: str, args: dict[str, t.Any], message: str) -> None:
    agent_id = _agent(run, state_file)["agent"]["id"]
    result = _script(run, state_file, agent_id, **args)
    assert (result["failed"], result["msg"]) == (True, message)


def test_devcontainer(run: Run, state_file: str) -> None:
    agent_id = _agent(run, state_file)["agent"]["id"]
    args = {"name": "project", "agent_id": agent_id, "workspace_folder": "/home/coder/project", "state_file": state_file}
    created = run(workspace_devcontainer, args)["devcontainer"]
    assert created["subagent_id"] != created["id"]
    assert created["devcontainer_id"] == created["id"]
    again = run(workspace_devcontainer, args)
    assert (again["changed"], again["devcontainer"]["subagent_id"]) == (False, created["subagent_id"])
    result = run(workspace_devcontainer, {**args, "workspace_folder": ""})
    assert result["msg"] == 'expected "workspace_folder" to not be an empty string, got '


def _devcontainer(run: Run, state_file: str, agent_id: str, **args: t.Any) -> dict[str, t.Any]:
    return run(workspace_devcontainer, {"name": "dev", "agent_id": agent_id, "workspace_folder": "/workspace", "state_file": state_file, **args})


def test_apps_scripts_and_envs_of_a_devcontainer_subagent(run: Run, state_file: str) -> None:
    """coderd's devcontainer-resources test template: an app, a script and an env whose agent_id
    is the dev container's subagent_id belong to the sub-agent."""
    agent_id = _agent(run, state_file)["agent"]["id"]
    subagent_id = _devcontainer(run, state_file, agent_id)["devcontainer"]["subagent_id"]
    tasks: list[tuple[t.Any, dict[str, t.Any], str]] = [
        (workspace_app, {"slug": "devcontainer-app", "url": "http://localhost:8080"}, "workspace_app.devcontainer-app"),
        (
            workspace_script,
            {"display_name": "Devcontainer Script", "script": "echo devcontainer", "run_on_start": True},
            "workspace_script.devcontainer:dev.Devcontainer Script",
        ),
        (workspace_env, {"name": "DEVCONTAINER_ENV", "value": "devcontainer-value"}, "workspace_env.devcontainer:dev.DEVCONTAINER_ENV"),
    ]
    for plugin, args, address in tasks:
        full = {"agent_id": subagent_id, "state_file": state_file, **args}
        check = run(plugin, full, check_mode=True)
        assert (check.get("failed"), check["changed"], check["address"]) == (None, True, address)
        created = run(plugin, full)
        assert (created["changed"], created["address"]) == (True, address)
        assert run(plugin, full)["changed"] is False
        assert run(plugin, full, check_mode=True)["changed"] is False
    # An agent named like the dev container keeps children of its own, under another key.
    other_id = _agent(run, state_file, name="dev")["agent"]["id"]
    same_name = run(workspace_env, {"agent_id": other_id, "name": "DEVCONTAINER_ENV", "value": "x", "state_file": state_file})
    assert (same_name["changed"], same_name["address"]) == (True, "workspace_env.dev.DEVCONTAINER_ENV")


def test_subagent_children_follow_a_replaced_devcontainer(run: Run, state_file: str) -> None:
    agent_id = _agent(run, state_file)["agent"]["id"]
    old = _devcontainer(run, state_file, agent_id)["devcontainer"]["subagent_id"]
    args = {"name": "E", "value": "1", "state_file": state_file}
    run(workspace_env, {"agent_id": old, **args})
    replaced = _devcontainer(run, state_file, agent_id, workspace_folder="/other")
    new = replaced["devcontainer"]["subagent_id"]
    assert (replaced["operation"], new != old) == ("replace", True)
    assert _stored(state_file)["workspace_devcontainer.dev"]["replaced_ids"] == [old]
    # The env still names the old sub-agent: still found, and its next run moves it in place.
    assert run(workspace_env, {"agent_id": old, **args})["changed"] is False
    moved = run(workspace_env, {"agent_id": new, **args})
    assert (moved["operation"], moved["address"]) == ("replace", "workspace_env.devcontainer:dev.E")


def test_subagent_children_removed_after_their_devcontainer(run: Run, state_file: str) -> None:
    agent_id = _agent(run, state_file)["agent"]["id"]
    subagent_id = _devcontainer(run, state_file, agent_id, name="with.dots")["devcontainer"]["subagent_id"]
    args = {"agent_id": subagent_id, "name": "E", "key": "k", "value": "1", "state_file": state_file}
    run(workspace_env, args)
    run(workspace_env, {**args, "name": "F", "key": None})
    _devcontainer(run, state_file, agent_id, name="with.dots", state="absent")
    removed = run(workspace_env, {**args, "name": "F", "key": None, "state": "absent"})
    assert (removed["changed"], removed["address"]) == (True, "workspace_env.devcontainer:with.dots.F")
    assert [address for address in _stored(state_file) if address.startswith("workspace_env.")] == ["workspace_env.devcontainer:with.dots.E.k"]


@pytest.mark.parametrize("plugin", [workspace_devcontainer, workspace_external_agent])
def test_only_apps_scripts_and_envs_go_on_a_subagent(run: Run, state_file: str, plugin: t.Any) -> None:
    agent_id = _agent(run, state_file)["agent"]["id"]
    subagent_id = _devcontainer(run, state_file, agent_id)["devcontainer"]["subagent_id"]
    before = _stored(state_file)
    result = run(
        plugin,
        {"name": "nested", "agent_id": subagent_id, "workspace_folder": "/w", "state_file": state_file}
        if plugin is workspace_devcontainer
        else {"agent_id": subagent_id, "state_file": state_file},
    )
    kind = "workspace_devcontainer" if plugin is workspace_devcontainer else "workspace_external_agent"
    assert (result["failed"], result["msg"]) == (
        True,
        f'agent_id "{subagent_id}" is the subagent_id of workspace_devcontainer "dev"; a {kind} belongs to a workspace_agent: pass the agent\'s id',
    )
    assert _stored(state_file) == before


def test_external_agent(run: Run, state_file: str) -> None:
    agent_id = _agent(run, state_file)["agent"]["id"]
    result = run(workspace_external_agent, {"agent_id": agent_id, "state_file": state_file})
    assert (result["changed"], result["address"], result["external_agent"]["external_agent_id"]) == (
        True,
        "workspace_external_agent.main",
        result["external_agent"]["id"],
    )


def test_metadata(run: Run, state_file: str) -> None:
    args = {
        "resource_id": "vm-1",
        "daily_cost": 2,
        "state_file": state_file,
        "items": [{"key": "a", "value": ""}, {"key": "b"}, {"key": "pw", "value": "hunter2", "sensitive": True}],
    }
    result = run(workspace_metadata, args, diff=True)
    items = result["metadata"]["item"]
    assert [(item["key"], item["is_null"]) for item in items] == [("a", False), ("b", True), ("pw", False)]
    assert "hunter2" not in json.dumps(result)
    assert _stored(state_file)["workspace_metadata.vm-1"]["arguments"]["item"][2]["value"] == "hunter2"
    assert run(workspace_metadata, args)["changed"] is False
    duplicate = run(workspace_metadata, {**args, "items": [{"key": "a"}, {"key": "a"}]})
    assert duplicate["msg"] == 'duplicate resource metadata key "a"'
    assert re.match("^icon: parse", run(workspace_metadata, {**args, "icon": "%zz"})["msg"])


def test_corrupt_state_file_is_an_error(run: Run, state_file: str) -> None:
    with open(state_file, "w", encoding="utf-8") as handle:
        handle.write("{")
    result = _agent(run, state_file)
    assert result["failed"] is True
    assert "is not valid JSON" in result["msg"]
    with open(state_file, encoding="utf-8") as handle:
        assert handle.read() == "{"


def test_state_file_from_environment(run: Run, state_file: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEVINFRA_WORKSPACE_STATE", state_file)
    result = run(workspace_agent, {"name": "main", "arch": "amd64", "os": "linux"})
    assert result["state_file"] == state_file
    assert "workspace_agent.main" in _stored(state_file)


def test_bad_deployment_url_fails_every_resource(run: Run, state_file: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODER_AGENT_URL", "https://x:port")
    result = run(workspace_metadata, {"resource_id": "vm", "state_file": state_file})
    assert (result["failed"], result["msg"]) == (True, 'url: parse "https://x:port": invalid port ":port" after host')
    assert not os.path.exists(state_file)


def test_child_removed_after_its_agent(run: Run, state_file: str) -> None:
    agent_id = _agent(run, state_file)["agent"]["id"]
    args = {"agent_id": agent_id, "name": "A", "value": "1", "state_file": state_file}
    run(workspace_env, args)
    _agent(run, state_file, state="absent")
    removed = run(workspace_env, {**args, "state": "absent"})
    assert (removed["changed"], removed["address"]) == (True, "workspace_env.main.A")
    assert _stored(state_file) == {}


def test_agent_env_values_are_strings(run: Run, state_file: str) -> None:
    env = {"PORT": 8080, "DEBUG": True, "NAME": "x", "ONE": 1.0, "TINY": 1e-7}
    assert _agent(run, state_file, env=env)["agent"]["env"] == {"PORT": "8080", "DEBUG": "true", "NAME": "x", "ONE": "1", "TINY": "0.0000001"}
    bad = "env.BAD: must be a string (numbers and booleans are converted as Terraform converts them), got a list"
    assert _agent(run, state_file, name="other", env={"BAD": ["a"]})["msg"] == bad


@pytest.mark.parametrize(
    ("value", "stored"),
    [("less", "less"), ("line one\nline two", "line one\nline two"), (5, "5"), (1.0, "1"), (0.25, "0.25"), (1e20, "100000000000000000000"), (False, "false")],
)
def test_env_value_as_terraform_converts_it(run: Run, state_file: str, value: t.Any, stored: str) -> None:
    agent_id = _agent(run, state_file)["agent"]["id"]
    run(workspace_env, {"agent_id": agent_id, "name": "V", "value": value, "state_file": state_file})
    assert _stored(state_file)["workspace_env.main.V"]["arguments"]["value"] == stored


@pytest.mark.parametrize(("value", "kind"), [(["DVTSECRET-a"], "a list"), ({"k": "DVTSECRET-b"}, "a dictionary")])
def test_env_value_list_or_dict_is_refused(run: Run, state_file: str, value: t.Any, kind: str) -> None:
    # Ansible's str type would have stored "['DVTSECRET-a']".
    agent_id = _agent(run, state_file)["agent"]["id"]
    before = _stored(state_file)
    result = run(workspace_env, {"agent_id": agent_id, "name": "V", "value": value, "state_file": state_file})
    assert result["failed"] is True
    assert result["msg"] == f"value: must be a string (numbers and booleans are converted as Terraform converts them), got {kind}"
    assert _stored(state_file) == before


# The single-line options of every resource, with a value each is otherwise happy with.
_SINGLE_LINE = [
    (workspace_agent, {"arch": "amd64", "os": "linux"}, "name", "main"),
    (workspace_agent, {"name": "main", "arch": "amd64", "os": "linux"}, "troubleshooting_url", "https://x.example"),
    (workspace_agent, {"name": "main", "arch": "amd64", "os": "linux"}, "motd_file", "/etc/motd"),
    (workspace_agent, {"name": "main", "arch": "amd64", "os": "linux"}, "dir", "$HOME"),
    (workspace_agent, {"name": "main", "arch": "amd64", "os": "linux"}, "url", "https://coder.example"),
    (workspace_app, {"agent_id": "A", "command": "x"}, "slug", "code"),
    (workspace_app, {"agent_id": "A", "slug": "code"}, "url", "http://localhost:8080"),
    (workspace_app, {"agent_id": "A", "slug": "code", "url": "http://x"}, "display_name", "Code"),
    (workspace_app, {"agent_id": "A", "slug": "code", "url": "http://x"}, "icon", "/icon/code.svg"),
    (workspace_app, {"agent_id": "A", "slug": "code", "url": "http://x"}, "group", "Editors"),
    (workspace_env, {"agent_id": "A", "value": "v"}, "name", "EDITOR"),
    (workspace_env, {"agent_id": "A", "name": "EDITOR", "value": "v"}, "key", "10"),
    (workspace_env, {"name": "EDITOR", "value": "v"}, "agent_id", "A"),
    (workspace_script, {"agent_id": "A", "script": "x", "run_on_start": True}, "display_name", "Setup"),
    (workspace_script, {"agent_id": "A", "display_name": "S", "script": "x", "run_on_start": True}, "log_path", "/tmp/s.log"),
    (workspace_script, {"agent_id": "A", "display_name": "S", "script": "x"}, "cron", "0 * * * * *"),
    (workspace_devcontainer, {"agent_id": "A", "workspace_folder": "/w"}, "name", "dev"),
    (workspace_devcontainer, {"agent_id": "A", "name": "dev"}, "workspace_folder", "/w"),
    (workspace_metadata, {}, "resource_id", "vm"),
    (workspace_metadata, {"resource_id": "vm"}, "icon", "/icon/vm.svg"),
]


@pytest.mark.parametrize(("main", "args", "option", "value"), _SINGLE_LINE, ids=lambda v: v if isinstance(v, str) else "")
# NUL: AnsibleModule fails first (syslog); the action plugins' path is in test_fields.py.
@pytest.mark.parametrize("char", ["\n", "\r", "\x1b", "\t", "\x7f", "\x85", "\u2028", "\u202e"], ids=repr)
def test_control_characters_in_single_line_options_are_refused(
    run: Run, state_file: str, main: t.Callable[[], None], args: dict[str, t.Any], option: str, value: str, char: str
) -> None:
    hostile = value[:1] + char + "#cloud-config" + value[1:]
    result = run(main, {**args, option: hostile, "state_file": state_file})
    assert result.get("failed") is True, result
    kind = "bidirectional control" if char == "\u202e" else "control character"
    assert result["msg"] == f"{option}: must be one line without control characters (the {kind} U+{ord(char):04X} at position 1)"
    assert not os.path.exists(state_file)  # refused before anything is touched


@pytest.mark.parametrize(
    ("main", "args", "option"),
    [
        (workspace_agent, {"name": "main", "arch": "amd64", "os": "linux", "metadata": [{"key": "k\n", "script": "x", "interval": 1}]}, "metadata[0].key"),
        (
            workspace_agent,
            {"name": "main", "arch": "amd64", "os": "linux", "metadata": [{"key": "k", "display_name": "\x1b[2J", "script": "x", "interval": 1}]},
            "metadata[0].display_name",
        ),
        (
            workspace_agent,
            {"name": "main", "arch": "amd64", "os": "linux", "resources_monitoring": {"volume": [{"path": "/\n", "enabled": True, "threshold": 1}]}},
            "resources_monitoring.volume[0].path",
        ),
        (
            workspace_app,
            {"agent_id": "A", "slug": "code", "url": "http://x", "healthcheck": {"url": "http://x/\r\n", "interval": 1, "threshold": 1}},
            "healthcheck.url",
        ),
        (workspace_metadata, {"resource_id": "vm", "items": [{"key": "a\u2029b", "value": "v"}]}, "items[0].key"),
    ],
)
def test_control_characters_in_single_line_sub_options_are_refused(
    run: Run, state_file: str, main: t.Callable[[], None], args: dict[str, t.Any], option: str
) -> None:
    result = run(main, {**args, "state_file": state_file})
    assert result["msg"].startswith(f"{option}: must be one line without control characters (the control character U+"), result["msg"]
    assert not os.path.exists(state_file)


def test_an_agent_env_name_with_a_line_break_is_refused(run: Run, state_file: str) -> None:
    result = _agent(run, state_file, env={"A\nB": "DVTSECRET-x"})
    assert result["msg"] == 'env: the key "A\\nB": must be one line without control characters (the control character U+000A at position 1)'
    assert "DVTSECRET" not in json.dumps(result)
    assert not os.path.exists(state_file)


def test_multi_line_options_keep_their_lines(run: Run, state_file: str) -> None:
    agent = _agent(run, state_file, startup_script="set -e\necho one\r\n\techo two\n", env={"KEY": "-----BEGIN-----\nabc\n-----END-----\n"})
    assert agent["changed"] is True
    agent_id = agent["agent"]["id"]
    assert run(workspace_app, {"agent_id": agent_id, "slug": "code", "command": "a\nb", "tooltip": "**one**\n\ntwo", "state_file": state_file})["changed"]
    assert run(workspace_script, {"agent_id": agent_id, "display_name": "S", "script": "a\nb", "run_on_start": True, "state_file": state_file})["changed"]
    assert run(workspace_metadata, {"resource_id": "vm", "items": [{"key": "k", "value": "a\nb"}], "state_file": state_file})["changed"]


def test_check_mode_reports_a_readable_state_file_and_a_real_run_tightens_it(run: Run, state_file: str) -> None:
    _agent(run, state_file)
    os.chmod(state_file, 0o644)  # as an older version or the user left it
    check = _agent(run, state_file, check_mode=True)
    assert check["changed"] is False
    assert check["warnings"] == [
        f"the state file {state_file} can be read by group or others (mode 0644) and holds agent tokens; the next run that is not in check mode sets it to 0600"
    ]
    assert stat.S_IMODE(os.stat(state_file).st_mode) == 0o644  # check mode changes nothing
    again = _agent(run, state_file)
    assert (again["changed"], again.get("warnings")) == (False, None)
    assert stat.S_IMODE(os.stat(state_file).st_mode) == 0o600


def _with_entry(state_file: str, address: str, change: t.Callable[[dict[str, t.Any]], None]) -> bytes:
    with open(state_file, encoding="utf-8") as handle:
        document = json.load(handle)
    change(document["resources"][address])
    with open(state_file, "w", encoding="utf-8") as handle:
        json.dump(document, handle)
    with open(state_file, "rb") as handle:
        return handle.read()


@pytest.mark.parametrize(
    ("address", "change", "problem"),
    [
        ("workspace_agent.main", lambda entry: entry["computed"].pop("token"), None),  # optional: a new one is made
        ("workspace_agent.main", lambda entry: entry["computed"].update(token=["DVTSECRET-t"]), "computed.token must be a UUID, got a list"),
        ("workspace_agent.main", lambda entry: entry["computed"].pop("id"), "computed.id is missing"),
        ("workspace_agent.main", lambda entry: entry.pop("computed"), "computed is missing"),
        (
            "workspace_agent.main",
            lambda entry: entry["arguments"].update(connection_timeout="120"),
            "arguments.connection_timeout must be an integer, got a string",
        ),
        ("workspace_agent.main", lambda entry: entry["arguments"].update(env={"A": 1}), "arguments.env.A must be a string, got an integer"),
        ("workspace_agent.main", lambda entry: entry["arguments"]["display_apps"].pop("vscode"), "arguments.display_apps.vscode is missing"),
        ("workspace_agent.main", lambda entry: entry.update(replaced_ids="x"), "replaced_ids must be a list, got a string"),
        ("workspace_env.main.E", lambda entry: entry["arguments"].update(value={"DVTSECRET": 1}), "arguments.value must be a string, got an object"),
        ("workspace_env.main.E", lambda entry: entry["arguments"].update(agent_id=["A"]), "arguments.agent_id must be a string, got a list"),
        ("workspace_env.main.E", lambda entry: entry["arguments"].pop("merge_strategy"), "arguments.merge_strategy is missing"),
    ],
)
def test_a_malformed_entry_is_named_and_left_untouched(
    run: Run, state_file: str, address: str, change: t.Callable[[dict[str, t.Any]], None], problem: str | None
) -> None:
    agent_id = _agent(run, state_file)["agent"]["id"]
    run(workspace_env, {"agent_id": agent_id, "name": "E", "value": "DVTSECRET-v", "state_file": state_file})
    corrupt = _with_entry(state_file, address, change)
    for check_mode in (True, False):
        result = _agent(run, state_file, check_mode=check_mode)
        if problem is None:
            assert result.get("failed") is not True, result
            continue
        assert result["msg"] == f"{state_file} is corrupt: the entry {address}: {problem}; it was left untouched"
        assert "DVTSECRET" not in result["msg"]
        with open(state_file, "rb") as handle:
            assert handle.read() == corrupt


# -- blocks of at most one item, as Terraform writes them (a list of one object) -------------------


def test_single_item_blocks_as_terraform_writes_them(run: Run, state_file: str) -> None:
    as_lists: dict[str, t.Any] = {
        "display_apps": [{"vscode": False, "web_terminal": True}],
        "resources_monitoring": [{"memory": [{"enabled": True, "threshold": 80}], "volume": [{"path": "/", "enabled": True, "threshold": 90}]}],
    }
    as_dicts: dict[str, t.Any] = {
        "display_apps": {"vscode": False, "web_terminal": True},
        "resources_monitoring": {"memory": {"enabled": True, "threshold": 80}, "volume": [{"path": "/", "enabled": True, "threshold": 90}]},
    }
    created = _agent(run, state_file, **as_lists)
    assert created["changed"] is True, created
    assert created["agent"]["display_apps"]["vscode"] is False
    # The same configuration either way: no change, in check mode or not.
    assert _agent(run, state_file, check_mode=True, **as_dicts)["changed"] is False
    assert _agent(run, state_file, **as_dicts)["changed"] is False
    assert _agent(run, state_file, **as_lists)["changed"] is False
    app = {"agent_id": created["agent"]["id"], "slug": "code", "url": "http://localhost:8080", "state_file": state_file}
    healthcheck = {"url": "http://localhost:8080/healthz", "interval": 5, "threshold": 6}
    assert run(workspace_app, {**app, "healthcheck": [healthcheck]})["changed"] is True
    assert run(workspace_app, {**app, "healthcheck": healthcheck})["changed"] is False
    assert run(workspace_app, {**app, "healthcheck": []})["changed"] is True  # no block: none


@pytest.mark.parametrize(
    ("plugin", "args", "message"),
    [
        ("agent", {"display_apps": [{"vscode": True}, {"vscode": False}]}, 'display_apps: No more than 1 "display_apps" blocks are allowed'),
        (
            "agent",
            {"resources_monitoring": [{"memory": [{"enabled": True, "threshold": 1}, {"enabled": False, "threshold": 2}]}]},
            'resources_monitoring.memory: No more than 1 "memory" blocks are allowed',
        ),
        ("app", {"healthcheck": [{"url": "http://x/a", "interval": 1, "threshold": 1}] * 2}, 'healthcheck: No more than 1 "healthcheck" blocks are allowed'),
    ],
)
def test_two_items_in_a_single_item_block_are_refused(run: Run, state_file: str, plugin: str, args: dict[str, t.Any], message: str) -> None:
    if plugin == "agent":
        result = _agent(run, state_file, **args)
    else:
        result = run(workspace_app, {"agent_id": "A", "slug": "code", "url": "http://localhost:8080", "state_file": state_file, **args})
    assert (result.get("failed"), result.get("msg")) == (True, message)
    assert not os.path.exists(state_file)
