# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import re
import typing as t
import uuid

import pytest

from ansible_collections.devinfra.providers.plugins.module_utils._workspace import data_sources
from ansible_collections.devinfra.providers.plugins.module_utils._workspace.errors import WorkspaceValidationError
from ansible_collections.devinfra.providers.plugins.module_utils._workspace.gourl import parse_go_url


def _workspace(environ: dict[str, str], url: str = "https://mydeployment.coder.com") -> dict[str, t.Any]:
    return data_sources.workspace(environ=environ, url=url, parsed_url=parse_go_url(url))


def _is_uuid(value: str) -> bool:
    return str(uuid.UUID(value)) == value


def test_workspace_defaults() -> None:
    result = _workspace({})
    assert _is_uuid(result.pop("id"))
    assert result == {
        "name": "default",
        "transition": "start",
        "start_count": 1,
        "is_prebuild": False,
        "prebuild_count": 0,
        "is_prebuild_claim": False,
        "template_id": "",
        "template_name": "",
        "template_version": "",
        "access_url": "https://mydeployment.coder.com",
        "access_port": 443,
    }


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({"CODER_WORKSPACE_TRANSITION": "stop"}, {"transition": "stop", "start_count": 0}),
        ({"CODER_WORKSPACE_TRANSITION": "Start"}, {"transition": "Start", "start_count": 0}),  # passed through; only "start" counts
        ({"CODER_WORKSPACE_TRANSITION": ""}, {"transition": "start", "start_count": 1}),
        ({"CODER_WORKSPACE_IS_PREBUILD": "TRUE"}, {"is_prebuild": True, "prebuild_count": 1, "is_prebuild_claim": False}),
        ({"CODER_WORKSPACE_IS_PREBUILD": "yes"}, {"is_prebuild": False, "prebuild_count": 0}),
        ({"CODER_WORKSPACE_IS_PREBUILD_CLAIM": "true"}, {"is_prebuild": False, "prebuild_count": 0, "is_prebuild_claim": True}),
        (
            {"CODER_WORKSPACE_IS_PREBUILD": "true", "CODER_WORKSPACE_IS_PREBUILD_CLAIM": "true"},
            {"is_prebuild": False, "prebuild_count": 0, "is_prebuild_claim": True},
        ),
        ({"CODER_WORKSPACE_ID": "abc", "CODER_WORKSPACE_NAME": "dev"}, {"id": "abc", "name": "dev"}),
        (
            {
                "CODER_WORKSPACE_BUILD_ID": "b",
                "CODER_WORKSPACE_TEMPLATE_ID": "t",
                "CODER_WORKSPACE_TEMPLATE_NAME": "n",
                "CODER_WORKSPACE_TEMPLATE_VERSION": "v",
            },
            {"template_id": "t", "template_name": "n", "template_version": "v"},
        ),
    ],
)
def test_workspace_environment(environ: dict[str, str], expected: dict[str, t.Any]) -> None:
    result = _workspace(environ)
    assert {key: result[key] for key in expected} == expected


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({"CODER_WORKSPACE_BUILD_ID": "b"}, "template ID is missing: CODER_WORKSPACE_TEMPLATE_ID is required"),
        ({"CODER_WORKSPACE_BUILD_ID": "b", "CODER_WORKSPACE_TEMPLATE_ID": "t"}, "template name is missing: CODER_WORKSPACE_TEMPLATE_NAME is required"),
        (
            {"CODER_WORKSPACE_BUILD_ID": "b", "CODER_WORKSPACE_TEMPLATE_ID": "t", "CODER_WORKSPACE_TEMPLATE_NAME": "n"},
            "template version is missing: CODER_WORKSPACE_TEMPLATE_VERSION is required",
        ),
    ],
)
def test_workspace_template_required_during_a_build(environ: dict[str, str], message: str) -> None:
    with pytest.raises(WorkspaceValidationError, match="^" + re.escape(message) + "$"):
        _workspace(environ)


@pytest.mark.parametrize(
    ("url", "port"),
    [
        ("https://coder.example.com", 443),
        ("http://coder.example.com", 80),
        ("https://coder.example.com:8443/", 8443),
        ("coder.example.com", 80),
        ("ftp://x", 80),
    ],
)
def test_workspace_access_port(url: str, port: int) -> None:
    result = _workspace({}, url)
    assert (result["access_url"], result["access_port"]) == (url, port)


def test_owner_defaults_and_values() -> None:
    result = data_sources.workspace_owner(environ={})
    assert _is_uuid(result.pop("id"))
    assert result == {
        "name": "default",
        "full_name": "default",
        "email": "default@example.com",
        "ssh_public_key": "",
        "ssh_private_key": "",
        "groups": [],
        "session_token": "",
        "oidc_access_token": "",
        "login_type": None,
        "rbac_roles": [],
    }
    environ = {
        "CODER_WORKSPACE_OWNER_ID": "owner-id",
        "CODER_WORKSPACE_OWNER": "jane",
        "CODER_WORKSPACE_OWNER_NAME": "Jane Doe",
        "CODER_WORKSPACE_OWNER_EMAIL": "jane@example.com",
        "CODER_WORKSPACE_OWNER_GROUPS": '["dev", "ops"]',
        "CODER_WORKSPACE_OWNER_RBAC_ROLES": '[{"name": "member", "org_id": "o1"}, {"name": "owner", "org_id": ""}]',
        "CODER_WORKSPACE_OWNER_SESSION_TOKEN": "s3cr3t",
        "CODER_WORKSPACE_OWNER_LOGIN_TYPE": "oidc",
    }
    result = data_sources.workspace_owner(environ=environ)
    assert (result["id"], result["name"], result["full_name"], result["email"], result["login_type"]) == (
        "owner-id",
        "jane",
        "Jane Doe",
        "jane@example.com",
        "oidc",
    )
    assert result["groups"] == ["dev", "ops"]
    assert result["rbac_roles"] == [{"name": "member", "org_id": "o1"}, {"name": "owner", "org_id": ""}]
    assert result["session_token"] == "s3cr3t"


@pytest.mark.parametrize(
    ("variable", "value", "expected"),
    [
        ("CODER_WORKSPACE_OWNER_GROUPS", "null", None),
        ("CODER_WORKSPACE_OWNER_GROUPS", '["a"] trailing', None),  # Go's Decoder reads the first value only
        ("CODER_WORKSPACE_OWNER_GROUPS", "", "invalid user groups: EOF"),
        ("CODER_WORKSPACE_OWNER_GROUPS", "[1]", "invalid user groups: json: cannot unmarshal number into Go value of type string"),
        ("CODER_WORKSPACE_OWNER_GROUPS", '{"a": 1}', "invalid user groups: json: cannot unmarshal object into Go value of type []string"),
        ("CODER_WORKSPACE_OWNER_GROUPS", '["a"', "invalid user groups: unexpected EOF"),
        ("CODER_WORKSPACE_OWNER_RBAC_ROLES", "", "invalid user rbac roles: EOF"),
        ("CODER_WORKSPACE_OWNER_RBAC_ROLES", '["member"]', "invalid user rbac roles: json: cannot unmarshal string into Go value of type map[string]string"),
    ],
)
def test_owner_json(variable: str, value: str, expected: str | None) -> None:
    if expected is None:
        data_sources.workspace_owner(environ={variable: value})
        return
    with pytest.raises(WorkspaceValidationError, match="^" + re.escape(expected) + "$"):
        data_sources.workspace_owner(environ={variable: value})


def test_external_auth() -> None:
    environ = {"CODER_EXTERNAL_AUTH_ACCESS_TOKEN_github": "gho_x", "CODER_GIT_AUTH_ACCESS_TOKEN_gitlab": "legacy"}
    assert data_sources.external_auth(auth_id="github", optional=True, environ=environ) == {"id": "github", "optional": True, "access_token": "gho_x"}
    assert data_sources.external_auth(auth_id="gitlab", optional=None, environ=environ)["access_token"] == ""  # the legacy variable is not read
    with pytest.raises(WorkspaceValidationError, match="^id is required$"):
        data_sources.external_auth(auth_id="", optional=None, environ={})
    with pytest.raises(WorkspaceValidationError, match='^The argument "id" is required'):
        data_sources.external_auth(auth_id=None, optional=None, environ={})


@pytest.mark.parametrize(
    ("system", "machine", "expected"),
    [
        ("Linux", "x86_64", ("linux", "amd64")),
        ("Linux", "aarch64", ("linux", "arm64")),
        ("Darwin", "arm64", ("darwin", "arm64")),
        ("Linux", "armv7l", ("linux", "armv7")),
        ("Linux", "armv6l", ("linux", "armv7")),
        ("Windows", "AMD64", ("windows", "amd64")),
    ],
)
def test_provisioner(system: str, machine: str, expected: tuple[str, str]) -> None:
    result = data_sources.provisioner(system=system, machine=machine)
    assert (result["os"], result["arch"]) == expected
    assert _is_uuid(result["id"])


@pytest.mark.parametrize(
    ("environ", "enabled", "task_id"),
    [
        ({}, False, None),
        ({"CODER_TASK_ID": "00000000-0000-0000-0000-000000000000"}, False, None),
        ({"CODER_TASK_ID": "7d8d4c2e-fb57-44f9-a183-22509819c2e7", "CODER_TASK_PROMPT": "fix it"}, True, "7d8d4c2e-fb57-44f9-a183-22509819c2e7"),
        ({"CODER_TASK_ID": "{7D8D4C2E-FB57-44F9-A183-22509819C2E7}"}, True, "7d8d4c2e-fb57-44f9-a183-22509819c2e7"),
    ],
)
def test_task(environ: dict[str, str], enabled: bool, task_id: str | None) -> None:
    result = data_sources.task(environ=environ)
    assert result["enabled"] is enabled
    assert result["id"] == task_id if task_id else _is_uuid(result["id"])
    assert result["prompt"] == environ.get("CODER_TASK_PROMPT", "")


@pytest.mark.parametrize(("value", "message"), [("abc", "invalid UUID length: 3"), ("not a valid UUID-not a valid UUID-1234", "invalid UUID format")])
def test_task_invalid(value: str, message: str) -> None:
    with pytest.raises(WorkspaceValidationError, match="^" + re.escape(message) + "$"):
        data_sources.task(environ={"CODER_TASK_ID": value})


def test_tags() -> None:
    result = data_sources.workspace_tags(tags={"region": "eu", "gpu": True, "n": 2})
    assert result["tags"] == {"region": "eu", "gpu": "true", "n": "2"}
    assert _is_uuid(result["id"])


def test_preset() -> None:
    result = data_sources.workspace_preset({"name": "small", "parameters": {"cpu": 2}, "default": True, "prebuilds": {"instances": 1}})
    assert (result["id"], result["name"], result["parameters"], result["default"]) == ("small", "small", {"cpu": "2"}, True)
    schedule = {"timezone": "UTC", "schedule": [{"cron": "* 8-18 * * 1-5", "instances": 3}, {"cron": "* 19-23 * * *", "instances": 1}]}
    data_sources.workspace_preset({"name": "p", "prebuilds": {"instances": 1, "expiration_policy": {"ttl": 0}, "scheduling": schedule}})


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"name": ""}, 'expected "name" to not be an empty string, got '),
        ({"name": "p", "description": "x" * 129}, "expected length of description to be in the range (0 - 128), got " + "x" * 129),
        ({"name": "p", "prebuilds": {"instances": -1}}, "expected prebuilds.0.instances to be at least (0), got -1"),
        (
            {"name": "p", "prebuilds": {"instances": 1, "expiration_policy": {"ttl": 60}}},
            '"prebuilds.0.expiration_policy.0.ttl" must be 0 or between 3600 and 31536000, got 60',
        ),
        (
            {"name": "p", "prebuilds": {"instances": 1, "scheduling": {"timezone": "Mars/Base", "schedule": [{"cron": "* * * * *", "instances": 1}]}}},
            'failed to load timezone "Mars/Base": unknown time zone Mars/Base',
        ),
        (
            {"name": "p", "prebuilds": {"instances": 1, "scheduling": {"timezone": "UTC", "schedule": [{"cron": "0 * * * *", "instances": 1}]}}},
            "prebuilds.0.scheduling.0.schedule.0.cron: cron spec failed validation: minute field should be *",
        ),
        (
            {"name": "p", "prebuilds": {"instances": 1, "scheduling": {"timezone": "UTC", "schedule": [{"cron": "* * * *", "instances": 1}]}}},
            "prebuilds.0.scheduling.0.schedule.0.cron: cron spec failed validation: cron specification should consist of 5 fields",
        ),
        (
            {"name": "p", "prebuilds": {"instances": 1, "scheduling": {"timezone": "UTC", "schedule": [{"cron": "* 25 * * *", "instances": 1}]}}},
            "prebuilds.0.scheduling.0.schedule.0.cron: failed to parse cron spec: end of range (25) above maximum (23): 25",
        ),
        (
            {
                "name": "p",
                "prebuilds": {
                    "instances": 1,
                    "scheduling": {"timezone": "UTC", "schedule": [{"cron": "* 8-18 * * 1-5", "instances": 1}, {"cron": "* 18-20 * * 5", "instances": 1}]},
                },
            },
            "schedules overlap with each other: schedules overlap: * 8-18 * * 1-5 and * 18-20 * * 5",
        ),
    ],
)
def test_preset_errors(options: dict[str, t.Any], message: str) -> None:
    with pytest.raises(WorkspaceValidationError, match="^" + re.escape(message) + "$"):
        data_sources.workspace_preset(options)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"name": "p", "parameters": {"a": {"b": "c"}}}, 'Inappropriate value for attribute "parameters": map of string required.'),
        ({"name": "p", "prebuilds": {"instances": "many"}}, 'Inappropriate value for attribute "instances": a number is required.'),
        ({"name": "p", "prebuilds": {}}, 'The argument "instances" is required, but no definition was found.'),
        ({"name": "p", "prebuilds": {"instances": 1, "bogus": 1}}, 'An argument named "bogus" is not expected here.'),
        ({"name": "p", "prebuilds": {"instances": 1, "expiration_policy": {}}}, 'The argument "ttl" is required, but no definition was found.'),
        ({"name": "p", "prebuilds": {"instances": 1, "scheduling": {"schedule": []}}}, 'The argument "timezone" is required, but no definition was found.'),
        ({"name": "p", "prebuilds": {"instances": 1, "scheduling": {"timezone": "UTC", "schedule": []}}}, 'At least 1 "schedule" blocks are required.'),
        ({"name": "p", "prebuilds": {"instances": 1, "scheduling": {"timezone": "UTC", "schedule": [{"instances": 1}]}}}, 'The argument "cron" is required'),
        ({"name": "p", "prebuilds": {"instances": 1, "expiration_policy": {"ttl": 63072000}}}, "must be 0 or between 3600 and 31536000, got 63072000"),
    ],
)
def test_preset_schema_errors(options: dict[str, t.Any], message: str) -> None:
    with pytest.raises(WorkspaceValidationError, match=re.escape(message)):
        data_sources.workspace_preset(options)
