# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""libvirt_secret and libvirt_secret_info: define, give a value, redefine, undefine, list.

The value never leaves this file: it is compared in memory (a non-private secret's value read
back, a private one's against the keyed digest secret_records.py keeps) and results and diffs
show ``********`` in its place.

What libvirt allows on an existing secret (libvirt 9.0, virsecretd): the description and the
ephemeral flag change by redefining it with the same UUID, which keeps its value; the private
flag and the usage cannot change ("cannot change private flag on existing secret", "a secret
with UUID ... is already defined for use with ..."), so such a change is refused naming the
option, before anything is touched."""

from __future__ import annotations

import base64
import binascii
import contextlib
import dataclasses
import fnmatch
import hmac
import os
import re
import stat
import typing as t
import xml.etree.ElementTree as ET

from .._common.safe_files import OPEN_FLAGS, read_bounded, who
from .._common.text import printable
from . import secret_records
from .connection import libvirt
from .data_sources import DataSourceResult
from .errors import LibvirtError, LibvirtValidationError
from .resource import Outcome
from .text import NOT_XML_CHARS, check_one_line

__all__ = [
    "MASK",
    "SECRET_ARGSPEC",
    "SECRET_INFO_ARGSPEC",
    "SECRET_MUTUALLY_EXCLUSIVE",
    "USAGE_KEYS",
    "Desired",
    "desired_from",
    "ensure_secret",
    "list_secrets",
    "validate_params",
]

MASK = "********"
# The usage's element and what names it (libvirt's formatsecret: <usage type='volume'><volume>...).
USAGE_KEYS = {"volume": "volume", "ceph": "name", "iscsi": "target", "tls": "name", "vtpm": "name"}
_USAGE_CODES = {"volume": 1, "ceph": 2, "iscsi": 3, "tls": 4, "vtpm": 5}
# libvirt's RPC limit for a secret value (REMOTE_SECRET_VALUE_MAX).
MAX_VALUE_BYTES = 65536
_UUID = re.compile(r"[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}")
_NO_SECRET = 66  # VIR_ERR_NO_SECRET: no such secret, or no value
_MAX_TEXT = 4096

SECRET_ARGSPEC: dict[str, dict[str, t.Any]] = {
    "uuid": {"type": "str"},
    "description": {"type": "str"},
    "ephemeral": {"type": "bool"},
    "private": {"type": "bool"},
    "usage": {
        "type": "dict",
        "options": {
            "type": {"type": "str", "required": True, "choices": sorted(USAGE_KEYS)},
            "volume": {"type": "str"},
            "name": {"type": "str"},
            "target": {"type": "str"},
        },
    },
    "value": {"type": "str", "no_log": True},
    "value_base64": {"type": "str", "no_log": True},
    "value_file": {"type": "path"},
    "state": {"type": "str", "choices": ["present", "absent"], "default": "present"},
}
SECRET_MUTUALLY_EXCLUSIVE = [["value", "value_base64", "value_file"]]

SECRET_INFO_ARGSPEC: dict[str, dict[str, t.Any]] = {
    "uuid": {"type": "list", "elements": "str"},
    "usage_type": {"type": "list", "elements": "str", "choices": sorted(USAGE_KEYS)},
    "usage_id": {"type": "list", "elements": "str"},
}


@dataclasses.dataclass
class Desired:
    uuid: str | None
    description: str | None
    ephemeral: bool | None
    private: bool | None
    usage: tuple[str, str] | None  # (type, id)
    value: bytes | None = dataclasses.field(default=None, repr=False)
    warnings: list[str] = dataclasses.field(default_factory=list)  # about the value's file


def _uuid(path: str, text: str) -> str:
    if not _UUID.fullmatch(text.strip()):
        raise LibvirtValidationError(f"{path}: must be a UUID such as 8f0a5b6e-3c1d-4e2f-9a7b-6c5d4e3f2a1b")
    hexes = text.strip().replace("-", "").lower()
    return f"{hexes[:8]}-{hexes[8:12]}-{hexes[12:16]}-{hexes[16:20]}-{hexes[20:]}"


def _text(path: str, text: str, *, one_line: bool = True) -> str:
    if len(text) > _MAX_TEXT:
        raise LibvirtValidationError(f"{path}: at most {_MAX_TEXT} characters")
    if NOT_XML_CHARS.search(text):
        raise LibvirtValidationError(f"{path}: contains a character XML cannot hold")
    return check_one_line(path, text) if one_line else text


def _usage(usage: dict[str, t.Any] | None) -> tuple[str, str] | None:
    if usage is None:
        return None
    kind = usage["type"]
    key = USAGE_KEYS[kind]
    for other in ("volume", "name", "target"):
        if other != key and usage.get(other) is not None:
            raise LibvirtValidationError(f"usage.{other}: not an option of a usage of type {kind} (it takes usage.{key})")
    ident = usage.get(key)
    if not ident:
        raise LibvirtValidationError(f"usage.{key}: required by a usage of type {kind}")
    _text(f"usage.{key}", ident)
    if kind == "volume" and not ident.startswith("/"):
        raise LibvirtValidationError("usage.volume: must be an absolute path (the volume's path)")
    return kind, ident


def _value_file(path: str) -> tuple[bytes, str | None]:
    """The file's bytes, and a warning when group or others can read it. Refused: a symbolic
    link (not followed), anything but a regular file, a file with more than one name (a hard
    link another user made to a file they cannot read themselves would hand its content to
    libvirt), more than MAX_VALUE_BYTES. No message holds any of the value."""
    shown = printable(path)
    try:
        fd = os.open(path, os.O_RDONLY | OPEN_FLAGS)
    except OSError as exc:
        raise LibvirtValidationError(f"value_file: cannot open {shown}: {exc.strerror} (a symbolic link is refused)") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise LibvirtValidationError(f"value_file: {shown} is not a regular file")
        if info.st_nlink > 1:
            raise LibvirtValidationError(
                f"value_file: {shown} has {info.st_nlink} hard links (other names of the same file, which may be another "
                "user's file linked here): put the value in a file of its own with one name (cp makes a new file), mode 0600"
            )
        data = read_bounded(fd, MAX_VALUE_BYTES)
    except OSError as exc:
        raise LibvirtValidationError(f"value_file: cannot read {shown}: {exc.strerror}") from None
    finally:
        os.close(fd)
    if data is None:
        raise LibvirtValidationError(f"value_file: {shown} holds more than {MAX_VALUE_BYTES} bytes")
    warning = None
    if info.st_mode & 0o044:
        warning = (
            f"value_file: {shown} can be read by group or others (mode {stat.S_IMODE(info.st_mode):04o}, owner "
            f"{who(info.st_uid)}), so they have the secret's value: chmod 600 {shown}"
        )
    return data, warning


def _value(params: dict[str, t.Any], warnings: list[str]) -> bytes | None:
    if params.get("value") is not None:
        value: bytes = params["value"].encode("utf-8", "surrogateescape")
        where = "value"
    elif params.get("value_base64") is not None:
        where = "value_base64"
        try:
            value = base64.b64decode("".join(params["value_base64"].split()), validate=True)
        except (binascii.Error, ValueError):
            raise LibvirtValidationError("value_base64: not valid base64") from None
    elif params.get("value_file") is not None:
        where = "value_file"
        value, warning = _value_file(params["value_file"])
        if warning:
            warnings.append(warning)
    else:
        return None
    if not value:
        raise LibvirtValidationError(f"{where}: a secret value must not be empty (libvirt refuses one)")
    if len(value) > MAX_VALUE_BYTES:
        raise LibvirtValidationError(f"{where}: at most {MAX_VALUE_BYTES} bytes")
    return value


def desired_from(params: dict[str, t.Any], *, read_value: bool = True) -> Desired:
    """The checked options; LibvirtValidationError naming the option otherwise."""
    uuid = _uuid("uuid", params["uuid"]) if params.get("uuid") is not None else None
    usage = _usage(params.get("usage"))
    if uuid is None and usage is None:
        raise LibvirtValidationError("uuid or usage: one of them is required to find the secret")
    description = _text("description", params["description"]) if params.get("description") is not None else None
    warnings: list[str] = []
    value = _value(params, warnings) if read_value and params.get("state", "present") == "present" else None
    return Desired(uuid, description, params.get("ephemeral"), params.get("private"), usage, value, warnings)


def validate_params(params: dict[str, t.Any]) -> None:
    """run_resource_module's ``prepare``: refuse bad input before connecting."""
    desired_from(params)


# --- reading libvirt's secrets -----------------------------------------------------------


def _describe(secret: t.Any) -> dict[str, t.Any]:
    root = ET.fromstring(secret.XMLDesc(0))
    described: dict[str, t.Any] = {
        "uuid": secret.UUIDString(),
        "description": root.findtext("description"),
        "ephemeral": root.get("ephemeral", "no") == "yes",
        "private": root.get("private", "no") == "yes",
        "usage": None,
    }
    usage = root.find("usage")
    if usage is not None and usage.get("type") in USAGE_KEYS:
        kind = t.cast("str", usage.get("type"))
        described["usage"] = {"type": kind, USAGE_KEYS[kind]: usage.findtext(USAGE_KEYS[kind])}
    return described


def _libvirt_value(secret: t.Any) -> bytes | None:
    """A non-private secret's value, in memory only (None when it has none)."""
    try:
        value: bytes = secret.value()
    except libvirt.libvirtError as exc:
        if exc.get_error_code() == _NO_SECRET:
            return None
        raise
    return value


def _value_set(secret: t.Any, described: dict[str, t.Any]) -> bool | None:
    """Whether the secret has a value; None when libvirt cannot tell (private, or not allowed)."""
    if described["private"]:
        return None
    try:
        return _libvirt_value(secret) is not None
    except libvirt.libvirtError:
        return None


def _lookup(conn: t.Any, desired: Desired) -> t.Any:
    try:
        if desired.uuid is not None:
            return conn.secretLookupByUUIDString(desired.uuid)
        if desired.usage is not None:
            return conn.secretLookupByUsage(_USAGE_CODES[desired.usage[0]], desired.usage[1])
    except libvirt.libvirtError as exc:
        if exc.get_error_code() == _NO_SECRET:
            return None
        raise LibvirtError(f"Failed to look up the secret: {exc}") from exc
    return None


def _by_usage(conn: t.Any, usage: tuple[str, str]) -> t.Any:
    try:
        return conn.secretLookupByUsage(_USAGE_CODES[usage[0]], usage[1])
    except libvirt.libvirtError as exc:
        if exc.get_error_code() == _NO_SECRET:
            return None
        raise LibvirtError(f"Failed to look up the secret: {exc}") from exc


def _xml(uuid: str | None, description: str | None, ephemeral: bool, private: bool, usage: dict[str, t.Any] | None) -> str:
    root = ET.Element("secret", {"ephemeral": "yes" if ephemeral else "no", "private": "yes" if private else "no"})
    if uuid is not None:
        ET.SubElement(root, "uuid").text = uuid
    if description is not None:
        ET.SubElement(root, "description").text = description
    if usage is not None:
        node = ET.SubElement(root, "usage", {"type": usage["type"]})
        key = USAGE_KEYS[usage["type"]]
        ET.SubElement(node, key).text = usage[key]
    return ET.tostring(root, encoding="unicode")


def _usage_dict(usage: tuple[str, str] | None) -> dict[str, str] | None:
    return None if usage is None else {"type": usage[0], USAGE_KEYS[usage[0]]: usage[1]}


def _definition(described: dict[str, t.Any]) -> dict[str, t.Any]:
    return {k: described[k] for k in ("uuid", "description", "ephemeral", "private", "usage")}


# --- libvirt_secret ----------------------------------------------------------------------


def _absent(conn: t.Any, desired: Desired, check_mode: bool) -> Outcome:
    secret = _lookup(conn, desired)
    if secret is None:
        return Outcome(False, {}, {}, {}, extra={"operation": "none"})
    removed = _definition(_describe(secret))
    if not check_mode:
        try:
            secret.undefine()
        except libvirt.libvirtError as exc:
            raise LibvirtError(f"Failed to remove secret {removed['uuid']}: {exc}") from exc
        secret_records.forget(conn.getURI(), removed["uuid"])
    return Outcome(True, removed, removed, {}, extra={"operation": "delete"})


def _set_value(conn: t.Any, secret: t.Any, uuid: str, value: bytes) -> None:
    try:
        secret.setValue(value)
    except libvirt.libvirtError as exc:
        # libvirt's message names the secret, never its value; code only, to be sure.
        raise LibvirtError(f"Failed to set the value of secret {uuid} (libvirt error code {exc.get_error_code()}: {_safe(exc, value)})") from None
    secret_records.remember(conn.getURI(), uuid, value)


def _safe(exc: BaseException, value: bytes) -> str:
    text = str(exc)
    for form in (value.decode("utf-8", "replace"), base64.b64encode(value).decode()):
        if form and form in text:
            return "(message withheld)"
    return printable(text)


def _create(conn: t.Any, desired: Desired, check_mode: bool) -> Outcome:
    if desired.uuid is None and desired.usage is None:  # desired_from() refuses it; kept for the type checker
        raise LibvirtValidationError("uuid or usage: one of them is required to find the secret")
    after: dict[str, t.Any] = {
        "uuid": desired.uuid,
        "description": desired.description,
        "ephemeral": bool(desired.ephemeral),
        "private": bool(desired.private),
        "usage": _usage_dict(desired.usage),
    }
    if desired.value is not None:
        after["value"] = f"{MASK} (changed)"
    resource = {k: v for k, v in after.items() if k != "value"}
    resource["value_set"] = desired.value is not None
    if check_mode:
        return Outcome(True, resource, {}, after, extra={"operation": "create"})
    xml = _xml(desired.uuid, desired.description, bool(desired.ephemeral), bool(desired.private), _usage_dict(desired.usage))
    try:
        secret = conn.secretDefineXML(xml)
    except libvirt.libvirtError as exc:
        raise LibvirtError(f"Failed to define the secret: {exc}") from exc
    uuid = secret.UUIDString()
    if desired.value is not None:
        try:
            _set_value(conn, secret, uuid, desired.value)
        except LibvirtError:
            # Leave nothing half-made behind: a secret without the value asked for.
            with contextlib.suppress(libvirt.libvirtError):
                secret.undefine()
            raise
    resource["uuid"] = after["uuid"] = uuid
    return Outcome(True, resource, {}, after, extra={"operation": "create"})


def _value_differs(conn: t.Any, secret: t.Any, current: dict[str, t.Any], value: bytes) -> tuple[bool, str | None]:
    """(whether the value is to be set, a warning)."""
    if current["private"]:
        if secret_records.matches(conn.getURI(), current["uuid"], value):
            return False, None
        if secret_records.recall(conn.getURI(), current["uuid"]) is None:
            return True, (
                f"secret {current['uuid']} is private: libvirt cannot show its value and no record of the value this module set "
                "exists here, so the value is set again (reported as a change once)"
            )
        return True, None
    try:
        held = _libvirt_value(secret)
    except libvirt.libvirtError as exc:
        raise LibvirtError(f"Failed to read back the value of secret {current['uuid']} to compare it: {printable(str(exc))}") from None
    return held is None or not hmac.compare_digest(held, value), None


def _update(conn: t.Any, secret: t.Any, desired: Desired, check_mode: bool) -> Outcome:
    current = _describe(secret)
    uuid = current["uuid"]
    if desired.usage is not None and current["usage"] != _usage_dict(desired.usage):
        raise LibvirtValidationError(
            f"usage: secret {uuid} has the usage {current['usage']}; libvirt cannot change the usage of an existing secret "
            "(remove it with state=absent and create it again)"
        )
    if desired.private is not None and desired.private != current["private"]:
        raise LibvirtValidationError(
            f"private: secret {uuid} is {'' if current['private'] else 'not '}private; libvirt cannot change that on an existing "
            "secret (remove it with state=absent and create it again, with its value)"
        )
    wanted = dict(current)
    if desired.description is not None:
        wanted["description"] = desired.description
    if desired.ephemeral is not None:
        wanted["ephemeral"] = desired.ephemeral
    redefine = wanted != current
    before = _definition(current)
    after = _definition(wanted)
    warnings: list[str] = []
    set_value = False
    if desired.value is not None:
        set_value, warning = _value_differs(conn, secret, current, desired.value)
        if warning:
            warnings.append(warning)
        before["value"] = MASK
        after["value"] = f"{MASK} (changed)" if set_value else MASK
    changed = redefine or set_value
    if changed and not check_mode:
        if redefine:
            try:
                secret = conn.secretDefineXML(_xml(uuid, wanted["description"], wanted["ephemeral"], wanted["private"], wanted["usage"]))
            except libvirt.libvirtError as exc:
                raise LibvirtError(f"Failed to redefine secret {uuid}: {exc}") from exc
        if set_value and desired.value is not None:
            _set_value(conn, secret, uuid, desired.value)
    elif desired.value is not None and not check_mode and not current["private"] and secret_records.recall(conn.getURI(), uuid) is None:
        secret_records.remember(conn.getURI(), uuid, desired.value)  # the value read back is the one asked for
    resource = _definition(wanted)
    resource["value_set"] = True if desired.value is not None else _value_set(secret, current)
    return Outcome(changed, resource, before, after, warnings, extra={"operation": "update" if changed else "none"})


def ensure_secret(conn: t.Any, params: dict[str, t.Any], check_mode: bool) -> Outcome:
    desired = desired_from(params)
    if params["state"] == "absent":
        return _absent(conn, desired, check_mode)
    secret = _lookup(conn, desired)
    if secret is None:
        if desired.uuid is not None and desired.usage is not None:
            other = _by_usage(conn, desired.usage)
            if other is not None:
                raise LibvirtValidationError(
                    f"usage: secret {other.UUIDString()} already has this usage; libvirt allows one secret per usage (uuid: {desired.uuid} is another)"
                )
        outcome = _create(conn, desired, check_mode)
    else:
        outcome = _update(conn, secret, desired, check_mode)
    outcome.warnings[:0] = desired.warnings
    return outcome


# --- libvirt_secret_info -----------------------------------------------------------------


def list_secrets(conn: t.Any, params: dict[str, t.Any]) -> DataSourceResult:
    uuids = {_uuid(f"uuid[{i}]", u) for i, u in enumerate(params.get("uuid") or [])}
    types = set(params.get("usage_type") or [])
    ids = params.get("usage_id") or []
    for i, pattern in enumerate(ids):
        _text(f"usage_id[{i}]", pattern)
    try:
        secrets = conn.listAllSecrets(0)
        found = []
        for secret in secrets:
            described = _describe(secret)
            usage = described["usage"] or {}
            usage_id = usage.get(USAGE_KEYS.get(usage.get("type", ""), ""), None)
            if uuids and described["uuid"] not in uuids:
                continue
            if types and usage.get("type") not in types:
                continue
            if ids and not (usage_id is not None and any(usage_id == p or fnmatch.fnmatchcase(usage_id, p) for p in ids)):
                continue
            described["usage_type"] = usage.get("type")
            described["usage_id"] = usage_id
            described["value_set"] = _value_set(secret, described)
            found.append(described)
    except libvirt.libvirtError as exc:
        raise LibvirtError(f"Failed to list the secrets: {exc}") from exc
    return DataSourceResult({"secrets": sorted(found, key=lambda s: s["uuid"])})
