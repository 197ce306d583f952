# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The workspace provider's data sources (but coder_parameter, see parameter.py).

Upstream makes no network call: every value is a function of the deployment URL, the
CODER_* variables the provisioner sets, the inputs, and random UUIDs."""

from __future__ import annotations

import json
import platform
import re
import typing as t
import uuid

from .cron import CronError, known_zone, parse_cron
from .errors import WorkspaceValidationError
from .fields import unwrap_single_blocks
from .gourl import GoURL, GoURLError, go_quote, parse_go_url
from .parameter import go_atoi

__all__ = [
    "SECRET_OUTPUTS",
    "external_auth",
    "provisioner",
    "task",
    "workspace",
    "workspace_owner",
    "workspace_preset",
    "workspace_tags",
]

# Secret outputs of the data sources: never logged by the lookups.
SECRET_OUTPUTS = frozenset({"ssh_private_key", "session_token", "oidc_access_token", "access_token"})

_NIL_UUID = "00000000-0000-0000-0000-000000000000"


def _require_env(environ: t.Mapping[str, str], name: str) -> str:
    """helpers.RequireEnv: required only during a real build (CODER_WORKSPACE_BUILD_ID set)."""
    value = environ.get(name, "")
    if environ.get("CODER_WORKSPACE_BUILD_ID", "") and not value:
        raise ValueError(f"{name} is required")
    return value


def _is_true(environ: t.Mapping[str, str], name: str) -> bool:
    return environ.get(name, "").lower() == "true"  # strings.EqualFold(v, "true")


def workspace(*, environ: t.Mapping[str, str], url: str, parsed_url: GoURL) -> dict[str, t.Any]:
    """coder_workspace."""
    transition = environ.get("CODER_WORKSPACE_TRANSITION") or "start"
    is_prebuild = _is_true(environ, "CODER_WORKSPACE_IS_PREBUILD")
    is_claim = _is_true(environ, "CODER_WORKSPACE_IS_PREBUILD_CLAIM")
    if is_claim:
        is_prebuild = False  # the claim wins when both are set
    template: dict[str, str] = {}
    for key, what in (("ID", "template ID"), ("NAME", "template name"), ("VERSION", "template version")):
        try:
            template[key] = _require_env(environ, f"CODER_WORKSPACE_TEMPLATE_{key}")
        except ValueError as exc:
            raise WorkspaceValidationError(f"{what} is missing: {exc}") from None
    raw_port = parsed_url.port or ("443" if parsed_url.scheme == "https" else "80")
    port = go_atoi(raw_port)
    if port is None:
        raise WorkspaceValidationError(f"couldn't parse port {go_quote(raw_port)}")
    return {
        "id": environ.get("CODER_WORKSPACE_ID") or str(uuid.uuid4()),
        "name": environ.get("CODER_WORKSPACE_NAME") or "default",
        "transition": transition,
        "start_count": 1 if transition == "start" else 0,
        "is_prebuild": is_prebuild,
        "prebuild_count": 1 if is_prebuild else 0,
        "is_prebuild_claim": is_claim,
        "template_id": template["ID"],
        "template_name": template["NAME"],
        "template_version": template["VERSION"],
        "access_url": url,  # as given: upstream does not normalise it
        "access_port": port,
    }


def _go_json_kind(value: t.Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _decode_first(raw: str) -> t.Any:
    """json.NewDecoder(...).Decode: the first JSON value; trailing data is ignored."""
    text = raw.lstrip(" \t\r\n")
    if not text:
        raise ValueError("EOF")
    try:
        value, _end = json.JSONDecoder().raw_decode(text)
    except json.JSONDecodeError as exc:
        if exc.pos >= len(text):
            raise ValueError("unexpected EOF") from None
        raise ValueError(f"invalid character '{text[exc.pos]}' looking for beginning of value") from None
    return value


def _decode_groups(raw: str) -> list[str]:
    value = _decode_first(raw)
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError(f"json: cannot unmarshal {_go_json_kind(value)} into Go value of type []string")
    for item in value:
        if item is not None and not isinstance(item, str):
            raise ValueError(f"json: cannot unmarshal {_go_json_kind(item)} into Go value of type string")
    return [item or "" for item in value]


def _decode_roles(raw: str) -> list[dict[str, str]]:
    value = _decode_first(raw)
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError(f"json: cannot unmarshal {_go_json_kind(value)} into Go value of type []map[string]string")
    roles = []
    for raw_item in value:
        item = {} if raw_item is None else raw_item
        if not isinstance(item, dict):
            raise ValueError(f"json: cannot unmarshal {_go_json_kind(item)} into Go value of type map[string]string")
        for field in item.values():
            if field is not None and not isinstance(field, str):
                raise ValueError(f"json: cannot unmarshal {_go_json_kind(field)} into Go value of type string")
        roles.append({"name": item.get("name") or "", "org_id": item.get("org_id") or ""})
    return roles


def workspace_owner(*, environ: t.Mapping[str, str]) -> dict[str, t.Any]:
    """coder_workspace_owner. Groups and roles are decoded only when their variable is present:
    an empty value is an error, as upstream."""
    groups: list[str] = []
    if "CODER_WORKSPACE_OWNER_GROUPS" in environ:
        try:
            groups = _decode_groups(environ["CODER_WORKSPACE_OWNER_GROUPS"])
        except ValueError as exc:
            raise WorkspaceValidationError(f"invalid user groups: {exc}") from None
    roles: list[dict[str, str]] = []
    if "CODER_WORKSPACE_OWNER_RBAC_ROLES" in environ:
        try:
            roles = _decode_roles(environ["CODER_WORKSPACE_OWNER_RBAC_ROLES"])
        except ValueError as exc:
            raise WorkspaceValidationError(f"invalid user rbac roles: {exc}") from None
    return {
        "id": environ.get("CODER_WORKSPACE_OWNER_ID") or str(uuid.uuid4()),
        "name": environ.get("CODER_WORKSPACE_OWNER") or "default",
        "full_name": environ.get("CODER_WORKSPACE_OWNER_NAME") or "default",
        "email": environ.get("CODER_WORKSPACE_OWNER_EMAIL") or "default@example.com",
        "ssh_public_key": environ.get("CODER_WORKSPACE_OWNER_SSH_PUBLIC_KEY", ""),
        "ssh_private_key": environ.get("CODER_WORKSPACE_OWNER_SSH_PRIVATE_KEY", ""),
        "groups": groups,
        "session_token": environ.get("CODER_WORKSPACE_OWNER_SESSION_TOKEN", ""),
        "oidc_access_token": environ.get("CODER_WORKSPACE_OWNER_OIDC_ACCESS_TOKEN", ""),
        "login_type": environ.get("CODER_WORKSPACE_OWNER_LOGIN_TYPE") or None,
        "rbac_roles": roles,
    }


def external_auth(*, auth_id: str | None, optional: bool | None, environ: t.Mapping[str, str]) -> dict[str, t.Any]:
    """coder_external_auth: the token of CODER_EXTERNAL_AUTH_ACCESS_TOKEN_<id> (the raw id, not hashed)."""
    if auth_id is None:
        raise WorkspaceValidationError('The argument "id" is required, but no definition was found.')
    if auth_id == "":
        raise WorkspaceValidationError("id is required")
    return {"id": auth_id, "optional": optional, "access_token": environ.get(f"CODER_EXTERNAL_AUTH_ACCESS_TOKEN_{auth_id}", "")}


_GOARCH = {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64", "armv7l": "armv7", "armv7": "armv7", "armv6l": "armv7",
           "i386": "386", "i686": "386", "x86": "386", "ppc64le": "ppc64le", "s390x": "s390x", "riscv64": "riscv64"}  # fmt: skip


def provisioner(*, system: str | None = None, machine: str | None = None) -> dict[str, t.Any]:
    """coder_provisioner: Go's GOOS and GOARCH of the host running the provider (the controller),
    with upstream's special case of 32-bit ARM reported as armv7."""
    goos = (system if system is not None else platform.system()).lower()
    raw_arch = (machine if machine is not None else platform.machine()).lower()
    goarch = _GOARCH.get(raw_arch, raw_arch)
    if goarch == "arm" or raw_arch.startswith("armv"):
        goarch = "armv7"
    return {"id": str(uuid.uuid4()), "os": goos, "arch": goarch}


_UUID = re.compile(r"^(?:urn:uuid:|\{)?[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}\}?$")


def _parse_uuid(text: str) -> str:
    """google/uuid.Parse's accepted forms and its messages, normalised to the canonical form."""
    length = len(text)
    if length not in (32, 36, 38, 45):
        raise ValueError(f"invalid UUID length: {length}")
    if length == 36 and not (text[8] == text[13] == text[18] == text[23] == "-"):
        raise ValueError("invalid UUID format")
    if length == 38 and not (text[0] == "{" and text[-1] == "}"):
        raise ValueError("invalid UUID format")
    if length == 45 and not text.lower().startswith("urn:uuid:"):
        raise ValueError(f"invalid urn prefix: {go_quote(text[:9])}")
    if not _UUID.match(text):
        raise ValueError("invalid UUID format")
    return str(uuid.UUID(text.replace("urn:uuid:", "").strip("{}")))


def task(*, environ: t.Mapping[str, str]) -> dict[str, t.Any]:
    """coder_task: enabled when CODER_TASK_ID is a UUID other than the nil one."""
    raw = environ.get("CODER_TASK_ID", "")
    prompt = environ.get("CODER_TASK_PROMPT", "")
    if raw in ("", _NIL_UUID):
        return {"id": str(uuid.uuid4()), "enabled": False, "prompt": prompt}
    try:
        task_id = _parse_uuid(raw)
    except ValueError as exc:
        raise WorkspaceValidationError(str(exc)) from None
    if task_id == _NIL_UUID:
        return {"id": str(uuid.uuid4()), "enabled": False, "prompt": prompt}
    return {"id": task_id, "enabled": True, "prompt": prompt}


def workspace_tags(*, tags: dict[str, t.Any] | None) -> dict[str, t.Any]:
    """coder_workspace_tags. coderd reads the tags statically from the template, not from here."""
    values = {}
    for key, value in (tags or {}).items():
        if isinstance(value, (dict, list)):
            raise WorkspaceValidationError(f"tags.{key}: must be a string, got {type(value).__name__}")
        values[str(key)] = ("true" if value else "false") if isinstance(value, bool) else str(value)
    return {"id": str(uuid.uuid4()), "tags": values}


# ---------------------------------------------------------------------------- presets


def _check_url(key: str, value: str | None) -> None:
    if value:
        try:
            parse_go_url(value)
        except GoURLError as exc:
            raise WorkspaceValidationError(f"{key}: {exc}") from None


def _preset_cron(key: str, spec: str) -> None:
    fields = spec.split()
    if len(fields) != 5:
        raise WorkspaceValidationError(f"{key}: cron spec failed validation: cron specification should consist of 5 fields")
    if fields[0] != "*":
        raise WorkspaceValidationError(f"{key}: cron spec failed validation: minute field should be *")
    try:
        parse_cron(spec, seconds=False)
    except CronError as exc:
        raise WorkspaceValidationError(f"{key}: failed to parse cron spec: {exc}") from None


def _parse_range(text: str, high: int) -> set[int]:
    if text == "*":
        return set(range(high + 1))
    result: set[int] = set()
    for part in text.split(","):
        if "-" in part:
            pieces = part.split("-")
            start, end = go_atoi(pieces[0]), go_atoi(pieces[1])
            if start is None:
                raise ValueError(f"invalid start value in range: strconv.Atoi: parsing {go_quote(pieces[0])}: invalid syntax")
            if end is None:
                raise ValueError(f"invalid end value in range: strconv.Atoi: parsing {go_quote(pieces[1])}: invalid syntax")
            if start < 0 or end > high or start > end:
                raise ValueError(f"invalid range {start}-{end}: values must be between 0 and {high}")
            result.update(range(start, end + 1))
        else:
            value = go_atoi(part)
            if value is None:
                raise ValueError(f"invalid value: strconv.Atoi: parsing {go_quote(part)}: invalid syntax")
            if not 0 <= value <= high:
                raise ValueError(f"invalid value {value}: must be between 0 and {high}")
            result.add(value)
    return result


def _overlap(first: str, second: str, high: int) -> bool:
    return bool(_parse_range(first, high) & _parse_range(second, high))


def _schedules_overlap(first: str, second: str) -> bool:
    one, two = first.split(), second.split()
    for spec, fields in ((first, one), (second, two)):
        if len(fields) != 5:
            raise ValueError(f"schedule {go_quote(spec)} has {len(fields)} fields, expected 5 fields (minute hour day-of-month month day-of-week)")
    try:
        if not _overlap(one[3], two[3], 12):
            return False
    except ValueError as exc:
        raise ValueError(f"invalid month range: {exc}") from None
    try:
        if one[2] == "*" or two[2] == "*":
            days = _overlap(one[4], two[4], 6)
        elif one[4] == "*" or two[4] == "*":
            days = _overlap(one[2], two[2], 31)
        else:
            days = _overlap(one[2], two[2], 31) or _overlap(one[4], two[4], 6)
    except ValueError as exc:
        raise ValueError(f"invalid day range: {exc}") from None
    if not days:
        return False
    try:
        return _overlap(one[1], two[1], 23)
    except ValueError as exc:
        raise ValueError(f"invalid hour range: {exc}") from None


def _validate_schedules(specs: list[str]) -> None:
    for i, first in enumerate(specs):
        for second in specs[i + 1 :]:
            try:
                overlap = _schedules_overlap(first, second)
            except ValueError as exc:
                raise WorkspaceValidationError(f"schedules overlap with each other: invalid schedule: {exc}") from None
            if overlap:
                raise WorkspaceValidationError(f"schedules overlap with each other: schedules overlap: {first} and {second}")


def _block(value: t.Any, name: str, allowed: tuple[str, ...]) -> dict[str, t.Any]:
    """A nested block: a dictionary with only the schema's keys, as Terraform checks it."""
    if not isinstance(value, dict):
        raise WorkspaceValidationError(f'Incorrect attribute value type: "{name}" must be a dictionary ({", ".join(allowed)})')
    for key in value:
        if key not in allowed:
            raise WorkspaceValidationError(f'An argument named "{key}" is not expected here.')
    return value


def _number(value: t.Any, attribute: str) -> int:
    """Terraform's conversion to a number attribute: integers, or strings holding one."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and go_atoi(value) is not None:
        return int(value)
    raise WorkspaceValidationError(f'Inappropriate value for attribute "{attribute}": a number is required.')


def _required(block: dict[str, t.Any], key: str) -> t.Any:
    if block.get(key) is None:
        raise WorkspaceValidationError(f'The argument "{key}" is required, but no definition was found.')
    return block[key]


# prebuilds and its expiration_policy and scheduling are blocks of at most one item upstream.
_PRESET_SINGLE_BLOCKS = ("prebuilds", "prebuilds.expiration_policy", "prebuilds.scheduling")


def _validate_prebuilds(raw: t.Any) -> None:
    prebuilds = _block(raw, "prebuilds", ("instances", "expiration_policy", "scheduling"))
    instances = _number(_required(prebuilds, "instances"), "instances")
    if instances < 0:
        raise WorkspaceValidationError(f"expected prebuilds.0.instances to be at least (0), got {instances}")
    if prebuilds.get("expiration_policy") is not None:
        policy = _block(prebuilds["expiration_policy"], "expiration_policy", ("ttl",))
        ttl = _number(_required(policy, "ttl"), "ttl")
        if ttl != 0 and not 3600 <= ttl <= 31536000:
            raise WorkspaceValidationError(f'"prebuilds.0.expiration_policy.0.ttl" must be 0 or between 3600 and 31536000, got {ttl}')
    if prebuilds.get("scheduling") is None:
        return
    scheduling = _block(prebuilds["scheduling"], "scheduling", ("timezone", "schedule"))
    timezone = str(_required(scheduling, "timezone"))
    if not known_zone(timezone):
        raise WorkspaceValidationError(f"failed to load timezone {go_quote(timezone)}: unknown time zone {timezone}")
    schedules = scheduling.get("schedule") or []
    if not schedules:
        raise WorkspaceValidationError('Insufficient schedule blocks: At least 1 "schedule" blocks are required.')
    for index, raw_schedule in enumerate(schedules):
        schedule = _block(raw_schedule, "schedule", ("cron", "instances"))
        _preset_cron(f"prebuilds.0.scheduling.0.schedule.{index}.cron", str(_required(schedule, "cron")))
        _number(_required(schedule, "instances"), "instances")
    _validate_schedules([str(schedule["cron"]) for schedule in schedules])


def _as_string(value: t.Any) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def workspace_preset(options: dict[str, t.Any]) -> dict[str, t.Any]:
    """coder_workspace_preset: the id is the name (upstream's code, whatever its docs say)."""
    name = options.get("name")
    if name is None:
        raise WorkspaceValidationError('The argument "name" is required, but no definition was found.')
    if name == "":
        raise WorkspaceValidationError('expected "name" to not be an empty string, got ')
    description = options.get("description")
    if description is not None and len(description) > 128:
        raise WorkspaceValidationError(f"expected length of description to be in the range (0 - 128), got {description}")
    icon = options.get("icon")
    _check_url("icon", icon)
    if icon is not None and len(icon) > 256:
        raise WorkspaceValidationError(f"expected length of icon to be in the range (0 - 256), got {icon}")
    raw_parameters = options.get("parameters") or {}
    if any(isinstance(value, (dict, list)) or value is None for value in raw_parameters.values()):
        raise WorkspaceValidationError('Inappropriate value for attribute "parameters": map of string required.')
    parameters = {str(key): _as_string(value) for key, value in raw_parameters.items()}
    prebuilds = unwrap_single_blocks({"prebuilds": options.get("prebuilds")}, _PRESET_SINGLE_BLOCKS)["prebuilds"]
    if prebuilds is not None:
        _validate_prebuilds(prebuilds)
    return {
        "id": name,
        "name": name,
        "description": description,
        "icon": icon,
        "default": bool(options.get("default")),
        "parameters": parameters,
        "prebuilds": prebuilds,
    }
