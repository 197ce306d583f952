# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import base64
import os
import typing as t

import pytest
from ansible.errors import AnsibleLookupError
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.plugins.loader import lookup_loader

from ansible_collections.devinfra.providers.plugins.module_utils._workspace.engine import apply_resource
from ansible_collections.devinfra.providers.plugins.module_utils._workspace.parameter import parameter_env
from ansible_collections.devinfra.providers.plugins.module_utils._workspace.resources import METADATA
from ansible_collections.devinfra.providers.tests.gcs_emulator.server import Bucket, Emulator, State


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(("CODER_", "DEVINFRA_", "GCP_")) or name == "STORAGE_EMULATOR_HOST":
            monkeypatch.delenv(name)


def lookup(name: str, *terms: t.Any, variables: dict[str, t.Any] | None = None, **kwargs: t.Any) -> dict[str, t.Any]:
    plugin = lookup_loader.get(f"devinfra.providers.{name}")
    assert plugin is not None, name
    result: list[dict[str, t.Any]] = plugin.run(list(terms), variables=variables or {}, **kwargs)
    assert len(result) == 1
    return result[0]


def test_workspace_url_sources(monkeypatch: pytest.MonkeyPatch) -> None:
    assert lookup("workspace")["access_url"] == "https://mydeployment.coder.com"
    monkeypatch.setenv("CODER_AGENT_URL", "")
    assert lookup("workspace")["access_url"] == "https://mydeployment.coder.com"  # empty means unset
    monkeypatch.setenv("CODER_AGENT_URL", "http://localhost:3000")
    assert lookup("workspace")["access_port"] == 3000
    assert lookup("workspace", variables={"devinfra_workspace_url": "https://c.example.com/"})["access_url"] == "https://c.example.com/"
    with pytest.raises(AnsibleLookupError, match='CODER_AGENT_URL must not be empty; got ""'):
        lookup("workspace", url="")


def test_owner_and_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODER_WORKSPACE_OWNER_SSH_PRIVATE_KEY", "-----BEGIN KEY-----")
    monkeypatch.setenv("CODER_WORKSPACE_OWNER_GROUPS", "")
    with pytest.raises(AnsibleLookupError, match="invalid user groups: EOF"):
        lookup("workspace_owner")
    monkeypatch.setenv("CODER_WORKSPACE_OWNER_GROUPS", '["dev"]')
    owner = lookup("workspace_owner")
    assert (owner["groups"], owner["ssh_private_key"]) == (["dev"], "-----BEGIN KEY-----")


def test_external_auth_term_or_option(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODER_EXTERNAL_AUTH_ACCESS_TOKEN_github", "gho_x")
    assert (
        lookup("workspace_external_auth", "github")
        == lookup("workspace_external_auth", id="github")
        == {"id": "github", "optional": None, "access_token": "gho_x"}
    )
    with pytest.raises(AnsibleLookupError, match=r"takes at most one term \(the id\), got 2"):
        lookup("workspace_external_auth", "a", "b")


def test_parameter(monkeypatch: pytest.MonkeyPatch) -> None:
    assert lookup("workspace_parameter", "region", default="eu")["value"] == "eu"
    monkeypatch.setenv(parameter_env("region"), "us")
    result = lookup("workspace_parameter", "region", default="eu", options=[{"name": "EU", "value": "eu"}, {"name": "US", "value": "us"}])
    assert (result["value"], result["form_type"], result["optional"]) == ("us", "radio", True)
    assert lookup("workspace_parameter", "region", option=[{"name": "US", "value": "us"}])["value"] == "us"  # upstream's block name
    with pytest.raises(AnsibleLookupError, match='Value must be a valid option: the value "us" must be defined as one of options'):
        lookup("workspace_parameter", "region", options=[{"name": "EU", "value": "eu"}])


def test_single_item_blocks_as_terraform_writes_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """validation (parameter), prebuilds and its expiration_policy and scheduling (preset) are
    blocks of at most one item upstream: a list of one dictionary is the same as the dictionary."""
    monkeypatch.setenv(parameter_env("cpu"), "4")
    as_dict = lookup("workspace_parameter", "cpu", type="number", default="2", validation={"min": 1, "max": 8})
    as_list = lookup("workspace_parameter", "cpu", type="number", default="2", validation=[{"min": 1, "max": 8}])
    assert {**as_list, "id": None} == {**as_dict, "id": None} and as_list["value"] == "4"  # the id is new on every read
    with pytest.raises(AnsibleLookupError, match="value 4 is more than the maximum 2"):
        lookup("workspace_parameter", "cpu", type="number", default="2", validation=[{"min": 1, "max": 2}])
    with pytest.raises(AnsibleLookupError, match='validation: No more than 1 "validation" blocks are allowed'):
        lookup("workspace_parameter", "cpu", type="number", default="2", validation=[{"min": 1}, {"max": 8}])
    prebuilds = {
        "instances": 1,
        "expiration_policy": {"ttl": 3600},
        "scheduling": {"timezone": "UTC", "schedule": [{"cron": "* 8-18 * * 1-5", "instances": 2}]},
    }
    as_lists = [{**prebuilds, "expiration_policy": [{"ttl": 3600}], "scheduling": [prebuilds["scheduling"]]}]
    assert lookup("workspace_preset", "large", prebuilds=as_lists)["prebuilds"] == lookup("workspace_preset", "large", prebuilds=prebuilds)["prebuilds"]
    with pytest.raises(AnsibleLookupError, match='prebuilds.expiration_policy: No more than 1 "expiration_policy" blocks are allowed'):
        lookup("workspace_preset", "large", prebuilds=[{**prebuilds, "expiration_policy": [{"ttl": 0}, {"ttl": 3600}]}])


def test_provisioner_task_tags_preset() -> None:
    assert set(lookup("workspace_provisioner")) == {"id", "os", "arch"}
    assert lookup("workspace_task")["enabled"] is False
    assert lookup("workspace_tags", tags={"a": "b"})["tags"] == {"a": "b"}
    assert lookup("workspace_preset", "small", default=True)["id"] == "small"


def test_manifest(tmp_path: t.Any, monkeypatch: pytest.MonkeyPatch) -> None:
    assert lookup("workspace_manifest", state_file=str(tmp_path / "none.json"))["agents"] == []
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(AnsibleLookupError, match="is not valid JSON"):
        lookup("workspace_manifest", variables={"devinfra_workspace_state_file": str(tmp_path / "bad.json")})
    monkeypatch.setenv("DEVINFRA_WORKSPACE_STATE", str(tmp_path / "bad.json"))
    with pytest.raises(AnsibleLookupError, match="is not valid JSON"):
        lookup("workspace_manifest")


def test_manifest_from_a_bucket(tmp_path: t.Any, monkeypatch: pytest.MonkeyPatch) -> None:
    key = base64.b64encode(b"m" * 32).decode()
    with Emulator(State(tokens={"lookup-token": "write"}, buckets={"states": Bucket("states")})) as emulator:
        options: dict[str, t.Any] = {"auth_kind": "accesstoken", "access_token": "lookup-token", "api_endpoint": emulator.url, "state_encryption_key": key}
        args = {"resource_id": "vm", "items": [{"key": "size", "value": "1"}], "state_file": "gs://states/dev.json", **options}
        params = ArgumentSpecValidator(METADATA.full_argument_spec()).validate(args).validated_parameters
        apply_resource(METADATA, params, check_mode=False, want_diff=False, environ={})
        assert [item["resource_id"] for item in lookup("workspace_manifest", state_file="gs://states/dev.json", **options)["metadata"]] == ["vm"]
        # The environment, as for the modules: the variables AWX's credentials inject.
        for name, value in {"GCP_AUTH_KIND": "accesstoken", "GCP_ACCESS_TOKEN": "lookup-token", "STORAGE_EMULATOR_HOST": emulator.url}.items():
            monkeypatch.setenv(name, value)
        monkeypatch.setenv("DEVINFRA_WORKSPACE_STATE", "gs://states/dev.json")
        monkeypatch.setenv("DEVINFRA_WORKSPACE_STATE_ENCRYPTION_KEY", key)
        assert lookup("workspace_manifest")["metadata"][0]["resource_id"] == "vm"
        monkeypatch.delenv("DEVINFRA_WORKSPACE_STATE_ENCRYPTION_KEY")
        with pytest.raises(AnsibleLookupError, match="set state_encryption_key to that key") as caught:
            lookup("workspace_manifest")
        assert key not in str(caught.value) and "lookup-token" not in str(caught.value)


@pytest.mark.parametrize("name", ["workspace_owner", "workspace_task", "workspace_provisioner"])
def test_bad_url_fails_every_lookup(name: str) -> None:
    with pytest.raises(AnsibleLookupError, match='url: parse "%zz": invalid URL escape "%zz"'):
        lookup(name, url="%zz")
