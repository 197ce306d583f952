# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""A shared host: hostile input at scale. A state file whose entries were corrupted in random
ways, and control characters in every single-line option, through the code path the action
plugins take (ArgumentSpecValidator, then apply_resource)."""

from __future__ import annotations

import copy
import functools
import json
import os
import shutil
import tempfile
import typing as t

import pytest
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ansible_collections.devinfra.providers.plugins.module_utils._workspace.engine import apply_resource
from ansible_collections.devinfra.providers.plugins.module_utils._workspace.errors import StateFileError, WorkspaceError, WorkspaceValidationError
from ansible_collections.devinfra.providers.plugins.module_utils._workspace.manifest import build_manifest
from ansible_collections.devinfra.providers.plugins.module_utils._workspace.resources import RESOURCE_TYPES, RUNNING_AGENT_TOKEN_ENV, ResourceType
from ansible_collections.devinfra.providers.plugins.module_utils._workspace.state import read_state
from ansible_collections.devinfra.providers.tests.unit.hostile_strings import with_control_character
from ansible_collections.devinfra.providers.tests.unit.hypothesis_profile import DEADLINE, examples

_SETTINGS = settings(max_examples=examples(200), deadline=DEADLINE, database=None, suppress_health_check=[HealthCheck.too_slow])


def _params(rtype: ResourceType, args: dict[str, t.Any]) -> dict[str, t.Any]:
    validation = ArgumentSpecValidator(rtype.full_argument_spec(), mutually_exclusive=rtype.mutually_exclusive, required_if=rtype.required_if).validate(args)
    assert not validation.error_messages, validation.error_messages
    params: dict[str, t.Any] = validation.validated_parameters
    return params


def _run(name: str, args: dict[str, t.Any], *, check_mode: bool) -> t.Any:
    rtype = RESOURCE_TYPES[name]
    return apply_resource(rtype, _params(rtype, args), check_mode=check_mode, want_diff=True, environ={})


# --- a valid state file with every resource type, its entries then corrupted ------------------------

AGENT_ID = "8b1f0c1e-0000-4000-8000-000000000001"


def _tasks(state_file: str) -> list[tuple[str, dict[str, t.Any]]]:
    common = {"state_file": state_file}
    child = {**common, "agent_id": AGENT_ID}
    return [
        (
            "workspace_agent",
            {
                **common,
                "name": "main",
                "agent_id": AGENT_ID,
                "arch": "amd64",
                "os": "linux",
                "env": {"TOKEN": "DVTSECRET-env"},
                "metadata": [{"key": "load", "script": "uptime", "interval": 10}],
                "resources_monitoring": {"memory": {"enabled": True, "threshold": 80}, "volume": [{"path": "/", "enabled": True, "threshold": 90}]},
            },
        ),
        ("workspace_app", {**child, "slug": "code", "url": "http://localhost:8080", "healthcheck": {"url": "http://x/h", "interval": 5, "threshold": 3}}),
        ("workspace_env", {**child, "name": "PATH", "key": "10", "value": "/a", "merge_strategy": "append"}),
        ("workspace_env", {**child, "name": "PATH", "key": "20", "value": "/b", "merge_strategy": "append"}),
        ("workspace_script", {**child, "display_name": "Setup", "script": "echo hi", "run_on_start": True}),
        ("workspace_devcontainer", {**child, "name": "dev", "workspace_folder": "/w"}),
        ("workspace_external_agent", child),
        ("workspace_metadata", {**common, "resource_id": "vm", "items": [{"key": "secret", "value": "DVTSECRET-m", "sensitive": True}]}),
    ]


@pytest.fixture(scope="module")
def valid_state() -> t.Iterator[dict[str, t.Any]]:
    directory = tempfile.mkdtemp()
    path = os.path.join(directory, "state.json")
    for name, args in _tasks(path):
        _run(name, args, check_mode=False)
    with open(path, encoding="utf-8") as handle:
        document: dict[str, t.Any] = json.load(handle)
    shutil.rmtree(directory)
    yield document


def write_state(directory: str, document: dict[str, t.Any]) -> str:
    """``document`` as the state file ``state.json`` of ``directory`` (mode 0600), its path."""
    path = os.path.join(directory, "state.json")
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(document, handle)
    os.chmod(path, 0o600)
    return path


def _paths(node: t.Any, prefix: tuple[t.Any, ...] = ()) -> list[tuple[t.Any, ...]]:
    """Every place in an entry: dict keys and list indexes, down to the leaves."""
    found = [prefix] if prefix else []
    if isinstance(node, dict):
        for key, value in node.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += _paths(value, (*prefix, index))
    return found


_JSON_LEAVES = st.one_of(st.none(), st.booleans(), st.integers(-(2**40), 2**40), st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=8))
_JSON = st.recursive(_JSON_LEAVES, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3), max_leaves=6)


@st.composite
def _corruptions(draw: st.DrawFn, document: dict[str, t.Any]) -> tuple[str, dict[str, t.Any]]:
    """A copy of ``document`` with one to three places of its entries deleted or replaced."""
    corrupt = copy.deepcopy(document)
    addresses = sorted(corrupt["resources"])
    address = draw(st.sampled_from(addresses))
    for _change in range(draw(st.integers(1, 3))):
        entry = corrupt["resources"][address]
        paths = _paths(entry)
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent = entry
        for step in path[:-1]:
            parent = parent[step]
        if isinstance(parent, dict) and draw(st.booleans()):
            del parent[path[-1]]
        else:
            parent[path[-1]] = draw(_JSON)
    return address, corrupt


@_SETTINGS
@given(data=st.data())
def test_a_corrupted_entry_never_gives_a_bare_error(valid_state: dict[str, t.Any], data: st.DataObject) -> None:
    """Every module (check mode and real) and the manifest lookup either work, or fail with a
    WorkspaceError; a StateFileError names the corrupted entry and leaves the file as it was."""
    address, corrupt = data.draw(_corruptions(valid_state))
    directory = tempfile.mkdtemp()
    try:
        path = write_state(directory, corrupt)

        def attempt(action: t.Callable[[], t.Any]) -> None:
            with open(path, "rb") as handle:
                before = handle.read()
            try:
                action()
            except StateFileError as exc:
                assert f"the entry {address}: " in str(exc)
                assert "DVTSECRET" not in str(exc)
                with open(path, "rb") as handle:
                    assert handle.read() == before
            except WorkspaceError as exc:
                assert "DVTSECRET" not in str(exc)

        attempt(lambda: build_manifest(read_state(path)))
        for check_mode in (True, False):
            for name, args in _tasks(path):
                for state in ("present", "absent"):
                    attempt(functools.partial(_run, name, {**args, "state": state}, check_mode=check_mode))
        attempt(lambda: build_manifest(read_state(path)))
    finally:
        shutil.rmtree(directory)


# --- control characters in single-line options ------------------------------------------------

# Written from the fields' meaning (names, slugs, URLs, icons, keys, paths, cron), not from the code.
_AGENT = {"name": "main", "arch": "amd64", "os": "linux"}
_SCRIPT = {"agent_id": "A", "display_name": "S", "script": "x", "run_on_start": True}
_SINGLE_LINE_OPTIONS: list[tuple[str, dict[str, t.Any], str]] = [
    ("workspace_agent", {"arch": "amd64", "os": "linux"}, "name"),
    *(("workspace_agent", _AGENT, option) for option in ("troubleshooting_url", "motd_file", "dir", "url", "agent_id")),
    *(("workspace_app", {"agent_id": "A", "slug": "code", "url": "http://x"}, option) for option in ("display_name", "icon", "group", "agent_id")),
    ("workspace_app", {"agent_id": "A", "command": "x"}, "slug"),
    ("workspace_app", {"agent_id": "A", "slug": "code"}, "url"),
    *(("workspace_env", {"agent_id": "A", "name": "E", "value": "v"}, option) for option in ("name", "key", "agent_id")),
    *(("workspace_script", _SCRIPT, option) for option in ("display_name", "log_path", "icon", "cron")),
    *(("workspace_devcontainer", {"agent_id": "A", "name": "d", "workspace_folder": "/w"}, option) for option in ("name", "workspace_folder", "config_path")),
    ("workspace_external_agent", {}, "agent_id"),
    *(("workspace_metadata", {"resource_id": "vm"}, option) for option in ("resource_id", "icon")),
]


@_SETTINGS
@given(case=st.sampled_from(_SINGLE_LINE_OPTIONS), value=with_control_character(), check_mode=st.booleans())
def test_control_characters_in_a_single_line_option_are_refused_before_anything_is_touched(
    case: tuple[str, dict[str, t.Any], str], value: str, check_mode: bool
) -> None:
    name, args, option = case
    directory = tempfile.mkdtemp()
    try:
        path = os.path.join(directory, "state.json")
        with pytest.raises(WorkspaceValidationError) as raised:
            _run(name, {**args, option: value, "state_file": path}, check_mode=check_mode)
        assert str(raised.value).startswith(f"{option}: must be one line without control characters (the control character U+")
        assert os.listdir(directory) == []
    finally:
        shutil.rmtree(directory)


@pytest.mark.parametrize(
    ("name", "args", "option"),
    [
        ("workspace_agent", {"name": "main", "arch": "amd64", "os": "linux"}, "startup_script"),
        ("workspace_agent", {"name": "main", "arch": "amd64", "os": "linux", "env": {"K": "a\x00b"}}, "env.K"),
        ("workspace_script", {"agent_id": "A", "display_name": "S", "run_on_start": True}, "script"),
        ("workspace_env", {"agent_id": "A", "name": "E"}, "value"),
    ],
)
def test_a_nul_is_refused_even_in_multi_line_options(tmp_path: t.Any, name: str, args: dict[str, t.Any], option: str) -> None:
    if "." not in option:
        args = {**args, option: "DVTSECRET\nline\x00"}
    with pytest.raises(WorkspaceValidationError, match=rf"^{option}: must not contain a NUL character \(U\+0000 at position \d+\)$"):
        _run(name, {**args, "state_file": str(tmp_path / "state.json")}, check_mode=False)
    assert os.listdir(tmp_path) == []


# --- messages built from a lower layer's error never carry a secret ------------------------------


@pytest.mark.parametrize(
    ("name", "args", "option"),
    [
        ("workspace_app", {"agent_id": "A", "slug": "code", "url": "http://x", "icon": "https://u:DVTSECRET-p@h/%zz"}, "icon"),
        ("workspace_agent", {"name": "main", "arch": "amd64", "os": "linux", "url": "https://u:DVTSECRET-p@bad host/"}, "url"),
    ],
)
def test_a_url_that_does_not_parse_is_named_without_its_password(tmp_path: t.Any, name: str, args: dict[str, t.Any], option: str) -> None:
    with pytest.raises(WorkspaceValidationError) as raised:
        _run(name, {**args, "state_file": str(tmp_path / "state.json")}, check_mode=False)
    assert str(raised.value).startswith(f'{option}: parse "')
    assert ":xxxxx@" in str(raised.value)
    assert "DVTSECRET" not in str(raised.value)


def test_a_state_file_that_is_not_json_or_utf8_is_named_without_its_content(tmp_path: t.Any) -> None:
    path = tmp_path / "state.json"
    for content in (b'{"format": "devinfra.providers.workspace", "token": "DVTSECRET-t" oops', b'{"token": "DVTSECRET-t\xff"}'):
        path.write_bytes(content)
        path.chmod(0o600)
        with pytest.raises(StateFileError) as raised:
            read_state(str(path))
        assert "DVTSECRET" not in str(raised.value)
        assert str(raised.value).startswith(f"{path} is not valid ")


# --- a crafted state (whoever can write the bucket object): checked when it is read ---------------

TOKEN_INJECTION = "0c5b1d2e-0000-4000-8000-000000000002\nLD_PRELOAD=/tmp/evil.so"
# (address prefix, path in the entry, crafted value, what the message names)
_CRAFTED = [
    ("workspace_agent.", ("computed", "token"), TOKEN_INJECTION, "computed.token must be a UUID"),
    ("workspace_agent.", ("computed", "token"), "DVTSECRET-not-a-uuid", "computed.token must be a UUID"),
    ("workspace_agent.", ("computed", "id"), AGENT_ID + "\ninstance-id: other", "computed.id must be a UUID"),
    ("workspace_agent.", ("arguments", "name"), "main\nCODER_AGENT_URL=http://evil", "arguments.name: must be one line"),
    ("workspace_agent.", ("arguments", "env", "TOKEN"), "DVTSECRET\u2028x", None),  # env values are multi-line
    ("workspace_agent.", ("arguments", "dir"), "/home\u202e/x", "arguments.dir: must be one line"),
    ("workspace_app.", ("computed", "id"), "../../etc", "computed.id must be a UUID"),
    ("workspace_app.", ("arguments", "url"), "http://x/\x85y", "arguments.url: must be one line"),
    ("workspace_devcontainer.", ("computed", "subagent_id"), "x\ny", "computed.subagent_id must be a UUID"),
    ("workspace_env.", ("arguments", "value"), "line one\nline two", None),
    ("workspace_env.", ("arguments", "name"), "PATH\nLD_PRELOAD", "arguments.name: must be one line"),
    ("workspace_script.", ("replaced_ids",), ["not-an-id"], "replaced_ids[0] must be a UUID"),
    ("workspace_metadata.", ("arguments", "item", 0, "key"), "k\x1b[2Jx", "arguments.item[0].key: must be one line"),
    ("workspace_metadata.", ("arguments", "item", 0, "value"), "DVTSECRET\nsecond line", None),
]


@pytest.mark.parametrize(("prefix", "path", "value", "named"), _CRAFTED, ids=lambda v: str(v)[:24])
def test_a_crafted_state_is_refused_when_it_is_read(
    valid_state: dict[str, t.Any], prefix: str, path: tuple[t.Any, ...], value: t.Any, named: str | None
) -> None:
    crafted = copy.deepcopy(valid_state)
    address = sorted(a for a in crafted["resources"] if a.startswith(prefix))[0]
    parent = crafted["resources"][address]
    for step in path[:-1]:
        parent = parent[step]
    parent[path[-1]] = value
    directory = tempfile.mkdtemp()
    try:
        state_path = write_state(directory, crafted)
        if named is None:
            assert read_state(state_path).get(address) is not None
            return
        with pytest.raises(StateFileError) as raised:
            read_state(state_path)
        assert f"is corrupt: the entry {address}: {named}" in str(raised.value)
        assert "DVTSECRET" not in str(raised.value) and "LD_PRELOAD" not in str(raised.value)
    finally:
        shutil.rmtree(directory)


def test_a_claimed_token_from_the_environment_is_a_uuid() -> None:
    rtype = RESOURCE_TYPES["workspace_agent"]
    directory = tempfile.mkdtemp()
    try:
        args = {"name": "main", "arch": "amd64", "os": "linux", "state_file": os.path.join(directory, "s.json")}
        environ = {RUNNING_AGENT_TOKEN_ENV: "DVTSECRET\nLD_PRELOAD=/x"}
        with pytest.raises(WorkspaceValidationError) as raised:
            apply_resource(rtype, _params(rtype, args), check_mode=False, want_diff=True, environ=environ)
        assert "is not an agent token (a UUID)" in str(raised.value) and "DVTSECRET" not in str(raised.value)
        assert os.listdir(directory) == []
    finally:
        shutil.rmtree(directory)


def test_an_adopted_agent_id_is_a_uuid() -> None:
    with pytest.raises(WorkspaceValidationError, match="^agent_id: must be a UUID"):
        _run("workspace_agent", {"name": "main", "arch": "amd64", "os": "linux", "agent_id": "main", "state_file": "/nonexistent/s.json"}, check_mode=True)
