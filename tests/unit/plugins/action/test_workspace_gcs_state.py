# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The workspace modules with their state in gs:// (the project's emulator), as tasks run them."""

from __future__ import annotations

import base64
import hashlib
import json
import typing as t

import pytest
import requests

from ansible_collections.devinfra.providers.plugins.action import workspace_agent, workspace_app
from ansible_collections.devinfra.providers.tests.gcs_emulator.server import Bucket, Emulator, State

Run = t.Callable[..., dict[str, t.Any]]
TOKEN = "gcs-action-token"
KEY = base64.b64encode(b"k" * 32).decode()
STATE = "gs://ws-states/team/dev.json"


@pytest.fixture
def emulator() -> t.Iterator[Emulator]:
    with Emulator(State(tokens={TOKEN: "write"}, buckets={"ws-states": Bucket("ws-states")})) as server:
        yield server


def _agent(run_action: Run, emulator: Emulator, *, check_mode: bool = False, **args: t.Any) -> dict[str, t.Any]:
    options = {"auth_kind": "accesstoken", "access_token": TOKEN, "api_endpoint": emulator.url, "state_file": STATE, "state_encryption_key": KEY}
    return run_action(workspace_agent, {"name": "main", "arch": "amd64", "os": "linux", **options, **args}, check_mode=check_mode, diff=True)


def _methods(emulator: Emulator) -> list[str]:
    log = requests.get(f"{emulator.url}/_emulator/stats", timeout=10).json()["log"]
    requests.post(f"{emulator.url}/_emulator/stats/reset", timeout=10)
    return [entry["method"] for entry in log]


def test_an_agent_in_a_bucket_converges(run_action: Run, emulator: Emulator) -> None:
    predicted = _agent(run_action, emulator, check_mode=True)
    assert predicted["changed"] is True
    assert _methods(emulator) == ["GET"]  # check mode reads only

    created = _agent(run_action, emulator)
    assert created["changed"] is True and created["operation"] == "create"
    assert created["state_file"] == STATE
    assert _methods(emulator) == ["GET", "POST"]

    again = _agent(run_action, emulator)
    assert again["changed"] is False
    assert again["agent"]["token"] == created["agent"]["token"]
    assert again["agent"]["id"] == created["agent"]["id"]
    assert _methods(emulator) == ["GET"]

    checked = _agent(run_action, emulator, check_mode=True)
    assert checked["changed"] is False


def test_the_options_stay_out_of_the_state_and_the_results(run_action: Run, emulator: Emulator) -> None:
    created = _agent(run_action, emulator)
    stored = requests.get(
        f"{emulator.url}/storage/v1/b/ws-states/o/team%2Fdev.json",
        params={"alt": "media"},
        headers={
            "Authorization": f"Bearer {TOKEN}",
            "x-goog-encryption-algorithm": "AES256",
            "x-goog-encryption-key": KEY,
            "x-goog-encryption-key-sha256": base64.b64encode(hashlib.sha256(b"k" * 32).digest()).decode(),
        },
        timeout=10,
    ).json()
    arguments = stored["resources"]["workspace_agent.main"]["arguments"]
    assert not {"auth_kind", "access_token", "api_endpoint", "state_encryption_key", "state_file"} & set(arguments)
    shown = json.dumps({key: value for key, value in created.items() if key != "agent"})
    assert TOKEN not in shown and KEY not in shown
    assert created["_ansible_no_log"] is True  # the agent's token is in the registered result only


def test_a_child_finds_its_agent_in_the_bucket(run_action: Run, emulator: Emulator) -> None:
    agent = _agent(run_action, emulator)
    options = {"auth_kind": "accesstoken", "access_token": TOKEN, "api_endpoint": emulator.url, "state_file": STATE, "state_encryption_key": KEY}
    app = run_action(workspace_app, {"agent_id": agent["agent"]["id"], "slug": "code", "url": "http://localhost:8080", **options})
    assert app["changed"] is True, app
    assert run_action(workspace_app, {"agent_id": agent["agent"]["id"], "slug": "code", "url": "http://localhost:8080", **options})["changed"] is False


def test_the_environment_configures_the_backend(run_action: Run, emulator: Emulator) -> None:
    environment = {"GCP_AUTH_KIND": "accesstoken", "GCP_ACCESS_TOKEN": TOKEN, "STORAGE_EMULATOR_HOST": emulator.url, "DEVINFRA_WORKSPACE_STATE": STATE}
    args = {"name": "main", "arch": "amd64", "os": "linux"}
    created = run_action(workspace_agent, args, environment=[environment])
    assert created["changed"] is True and created["state_file"] == STATE
    assert run_action(workspace_agent, args, environment=[environment])["changed"] is False


def test_a_missing_key_fails_clearly(run_action: Run, emulator: Emulator) -> None:
    _agent(run_action, emulator)
    failed = run_action(
        workspace_agent,
        {"name": "main", "arch": "amd64", "os": "linux", "auth_kind": "accesstoken", "access_token": TOKEN, "api_endpoint": emulator.url, "state_file": STATE},
    )
    assert failed["failed"] is True
    assert "set state_encryption_key to that key" in failed["msg"]
    assert TOKEN not in failed["msg"] and KEY not in failed["msg"]
