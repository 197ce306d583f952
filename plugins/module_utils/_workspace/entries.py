# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The shape of a stored entry, checked once when the state is read.

The modules, the manifest and the lookups read entries as they were written; an entry edited
by hand or by another tool (a missing ``token``, a number where a string was) would otherwise
fail somewhere deep with a bare KeyError or TypeError. The expected shape is derived from each
resource's argument spec (what the module stored, with defaults applied), plus what the
resource computes.

A state is also data from whoever can write it (a bucket object): stored ids and tokens must
be UUIDs, as the modules make them, and every stored argument keeps the text rule its option
has (one line unless the option is documented as multi-line), because these values end up in
files in the guest (the agent's environment file, cloud-init's meta-data). Messages name the
entry's address and the field, never its value: values hold tokens."""

from __future__ import annotations

import typing as t

from .document import WorkspaceState, parse_document
from .errors import StateFileError, WorkspaceValidationError
from .fields import check_text_options, is_uuid
from .resources import AGENT, APP, DEVCONTAINER, ENV, METADATA, RESOURCE_TYPES, SCRIPT

__all__ = ["check_entries", "parse_state"]

Spec = dict[str, dict[str, t.Any]]

_STR = {"type": "str"}
_REQUIRED_STR = {"type": "str", "required": True}

# Where the stored arguments differ from the argument spec (see each resource's ``arguments``).
_STORED_ARGUMENTS: dict[str, Spec] = {
    AGENT.name: {
        "url": {"type": "absent"},  # the provider's, never stored
        "token": {"type": "absent"},  # a secret: with what is computed
        "arch": {"type": "str", "required": True},
        "os": {"type": "str", "required": True},
        "env": {"type": "dict", "values": "str"},
        "display_apps": {**AGENT.argument_spec["display_apps"], "required": True},
    },
    APP.name: {"external": {"type": "bool", "required": True}, "share": _REQUIRED_STR},
    ENV.name: {"value": _STR},
    METADATA.name: {
        "items": {"type": "absent"},
        "item": {
            "type": "list",
            "elements": "dict",
            "required": True,
            "options": {**METADATA.argument_spec["items"]["options"], "is_null": {"type": "bool", "required": True}},
        },
    },
    SCRIPT.name: {"timeout": {"type": "int", "required": True}},
}

# Ids and tokens: every resource makes them with uuid4 (coderd's are UUIDs too).
_UUID = {"type": "uuid"}

_COMPUTED: dict[str, Spec] = {
    AGENT.name: {"token": _UUID, "init_script": _STR},
    DEVCONTAINER.name: {"subagent_id": {**_UUID, "required": True}},
}

_ENTRY: Spec = {
    "arguments": {"type": "dict", "required": True},
    "computed": {"type": "dict", "required": True},
    "replaced_ids": {"type": "list", "elements": "uuid"},
}

# Stored multi-line arguments besides each resource's own (the stored name of metadata's items).
_STORED_MULTI_LINE = {METADATA.name: frozenset({"item.value"})}

_PYTHON_TYPES: dict[str, tuple[type, ...]] = {
    "str": (str,),
    "uuid": (str,),
    "path": (str,),
    "int": (int,),
    "bool": (bool,),
    "dict": (dict,),
    "list": (list,),
}
_EXPECTED = {"uuid": "a UUID", "str": "a string", "path": "a string", "int": "an integer", "bool": "a boolean", "dict": "an object", "list": "a list"}


def _json_type(value: t.Any) -> str:
    if value is None:
        return "null"
    for name in ("bool", "int", "str", "dict", "list"):
        if isinstance(value, _PYTHON_TYPES[name]):
            return _EXPECTED[name]
    return "a number"


def _value_problem(value: t.Any, spec: dict[str, t.Any], field: str) -> str | None:
    kind = spec.get("type", "str")
    if kind == "absent":
        return None  # not read from the state: whatever is there is ignored
    expected = _PYTHON_TYPES.get(kind)
    if expected is None:  # raw: anything JSON holds
        return None
    if not isinstance(value, expected) or (kind == "int" and isinstance(value, bool)):
        return f"{field} must be {_EXPECTED[kind]}, got {_json_type(value)}"
    if kind == "uuid" and not (isinstance(value, str) and is_uuid(value)):
        return f"{field} must be a UUID (8-4-4-4-12 hexadecimal digits), as the modules make it"
    if kind == "dict" and isinstance(value, dict):
        if "options" in spec:
            return _options_problem(value, spec["options"], f"{field}.")
        if "values" in spec:
            for key, item in value.items():
                problem = _value_problem(item, {"type": spec["values"]}, f"{field}.{key}")
                if problem:
                    return problem
    if kind == "list" and isinstance(value, list) and spec.get("elements"):
        element = {"type": spec["elements"], **({"options": spec["options"]} if "options" in spec else {})}
        for index, item in enumerate(value):
            problem = _value_problem(item, element, f"{field}[{index}]")
            if problem:
                return problem
    return None


def _options_problem(values: dict[str, t.Any], options: Spec, prefix: str) -> str | None:
    for name, spec in options.items():
        value = values.get(name)
        if value is None:
            # Stored arguments hold every option, with defaults applied: required and
            # defaulted ones are read without a check.
            if spec.get("required") or spec.get("default") is not None:
                return f"{prefix}{name} is missing"
            continue
        problem = _value_problem(value, spec, f"{prefix}{name}")
        if problem:
            return problem
    return None


def _entry_problem(resource_type: str, entry: dict[str, t.Any]) -> str | None:
    rtype = RESOURCE_TYPES[resource_type]
    arguments: Spec = {**rtype.argument_spec, **_STORED_ARGUMENTS.get(resource_type, {})}
    computed: Spec = {"id": {**_UUID, "required": True}, **_COMPUTED.get(resource_type, {})}
    return (
        _options_problem(entry, _ENTRY, "")
        or _options_problem(entry["arguments"], arguments, "arguments.")
        or _options_problem(entry["computed"], computed, "computed.")
        or _text_problem(entry["arguments"], arguments, rtype.multi_line | _STORED_MULTI_LINE.get(resource_type, frozenset()))
    )


def _text_problem(arguments: dict[str, t.Any], spec: Spec, multi_line: frozenset[str]) -> str | None:
    """The text rule the module applied when it stored the arguments, applied again."""
    try:
        check_text_options(spec, arguments, multi_line=multi_line)
    except WorkspaceValidationError as exc:
        return f"arguments.{exc}"
    return None


def check_entries(resources: dict[str, dict[str, t.Any]]) -> str | None:
    """The first problem of an entry of a known type, naming its address and field; None if none."""
    for address, entry in sorted(resources.items()):
        resource_type = address.split(".", 1)[0]
        if resource_type not in RESOURCE_TYPES:
            continue  # nothing reads it; kept as it is
        problem = _entry_problem(resource_type, entry)
        if problem:
            return f"the entry {address}: {problem}"
    return None


def parse_state(path: str, data: bytes) -> WorkspaceState:
    """The state in ``data`` (read from ``path``), the document and every entry checked."""
    state = parse_document(path, data)
    problem = check_entries(state.resources)
    if problem is not None:
        raise StateFileError(f"{path} is corrupt: {problem}; it was left untouched")
    return state
