# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""A Terraform state file (format version 4, what Terraform 0.12 and later and OpenTofu write),
read as data from whoever could write it.

The outer shape is checked once: a file that is not JSON, not a state, of another format
version, larger than MAX_TFSTATE_BYTES or nested deeper than MAX_DEPTH is refused as a whole.
Inside, each resource instance is taken on its own: one that is malformed, has a name the
one-line rule refuses, or comes from a provider this collection does not port is listed with
the reason, never dropped. Messages name the file and the addresses (made printable), never an
attribute's value: values hold tokens and passwords."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import stat
import typing as t

from .._common.safe_files import OPEN_FLAGS, read_bounded
from .._common.text import NOT_ONE_LINE, one_line_problem, printable
from .errors import TerraformImportError

__all__ = [
    "MAX_DEPTH",
    "MAX_INSTANCES",
    "MAX_TFSTATE_BYTES",
    "Instance",
    "Output",
    "TerraformImportError",
    "TerraformState",
    "parse_tfstate",
    "provider_of",
    "read_local",
    "strings_in",
    "values_at",
]

# A state of a few hundred resources is a few MiB; 64 MiB is no state this module should parse.
MAX_TFSTATE_BYTES = 64 << 20
# The libvirt domain schema nests about a dozen levels; a state nested deeper is not one.
MAX_DEPTH = 64
MAX_INSTANCES = 10000
STATE_FORMAT_VERSION = 4

# provider["registry.terraform.io/dmacvicar/libvirt"], with an optional module. prefix and .alias suffix.
_PROVIDER = re.compile(r'^(?:module\.[^\[\]"]+\.)?provider\["(?:(?P<host>[^"/]+)/)?(?P<namespace>[^"/]+)/(?P<type>[^"/]+)"\](?:\.[A-Za-z0-9_-]+)?\Z')
_LEGACY_PROVIDER = re.compile(r"^(?:module\.[^\[\]\"]+\.)?provider\.(?P<type>[A-Za-z0-9_-]+)(?:\.[A-Za-z0-9_-]+)?\Z")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*\Z")
_KEY_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t", '"': '\\"', "\\": "\\\\"}


@dataclasses.dataclass
class Instance:
    """One object of the state: a resource instance or a data source's last read."""

    address: str  # as Terraform prints it: module.a.libvirt_domain.web[0], data.coder_workspace.me
    mode: str  # managed or data
    type: str
    name: str
    provider: str  # namespace/type (dmacvicar/libvirt), "" when it cannot be read
    attributes: dict[str, t.Any]
    sensitive_paths: list[list[t.Any]]
    dependencies: list[str]
    problem: str | None = None  # why it cannot be taken (it is still listed)
    index_key: t.Any = None
    instances_of_resource: int = 1
    private: str | None = None  # the provider's private data (base64), as the state holds it
    resource: str = ""  # the resource's address without instance keys, as dependencies name it
    position: int = 0  # its place in the state (ties of the teardown's order go by it)
    tainted: bool = False  # its only problem: Terraform would replace it (the teardown still removes it)


@dataclasses.dataclass
class TerraformState:
    version: int
    terraform_version: str
    serial: int
    lineage: str
    instances: list[Instance]
    outputs: list[Output] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Output:
    """One of the state's root module outputs."""

    name: str  # as the state holds it (shown escaped where it is not one line)
    value: t.Any
    sensitive: bool
    problem: str | None = None  # why it is not written as a variable


def read_local(path: str) -> bytes:
    """The bytes of the state file ``path``, at most MAX_TFSTATE_BYTES (a FIFO or a device is refused, not read)."""
    try:
        fd = os.open(path, os.O_RDONLY | (OPEN_FLAGS & ~os.O_NOFOLLOW))
    except FileNotFoundError:
        raise TerraformImportError(f"src: {printable(path)} does not exist") from None
    except OSError as exc:
        raise TerraformImportError(f"src: cannot read {printable(path)}: {exc.strerror}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise TerraformImportError(f"src: {printable(path)} is not a regular file")
        data = read_bounded(fd, MAX_TFSTATE_BYTES)
    except OSError as exc:
        raise TerraformImportError(f"src: cannot read {printable(path)}: {exc.strerror}") from None
    finally:
        os.close(fd)
    if data is None:
        raise TerraformImportError(f"src: {printable(path)} is larger than this module reads ({MAX_TFSTATE_BYTES} bytes); it is not a state it converts")
    return data


def _reject_constant(name: str) -> t.NoReturn:
    raise ValueError(f"{name} is not JSON")


def _depth_problem(value: t.Any) -> bool:
    """True when ``value`` nests deeper than MAX_DEPTH (checked without recursion)."""
    stack: list[tuple[t.Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth > MAX_DEPTH:
                return True
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def parse_tfstate(where: str, data: bytes) -> TerraformState:
    """The state in ``data`` (read from ``where``, named in messages)."""
    shown = printable(where)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TerraformImportError(f"{shown} is not a Terraform state (not UTF-8 at byte {exc.start})") from None
    try:
        document = json.loads(text, parse_constant=_reject_constant)
    except RecursionError:
        raise TerraformImportError(f"{shown} is not a Terraform state (its JSON is nested too deeply)") from None
    except ValueError as exc:
        # json's message gives a position only, never the text.
        raise TerraformImportError(f"{shown} is not a Terraform state (not JSON: {printable(str(exc))})") from None
    if not isinstance(document, dict) or "version" not in document:
        raise TerraformImportError(f'{shown} is not a Terraform state (no "version")')
    version = document["version"]
    if version != STATE_FORMAT_VERSION or isinstance(version, bool):
        raise TerraformImportError(
            f"{shown} is a Terraform state of format version {printable(json.dumps(version))[:40]}; this module reads version {STATE_FORMAT_VERSION} "
            "(Terraform 0.12 and later, OpenTofu): run 'terraform state pull' with a current Terraform first"
        )
    if _depth_problem(document):
        raise TerraformImportError(f"{shown} is not a Terraform state this module converts (nested deeper than {MAX_DEPTH} levels)")
    serial, lineage, terraform_version = document.get("serial"), document.get("lineage"), document.get("terraform_version", "")
    if not isinstance(serial, int) or isinstance(serial, bool) or serial < 0:
        raise TerraformImportError(f'{shown} is corrupt ("serial" must be a non-negative integer)')
    if not isinstance(lineage, str) or one_line_problem(lineage):
        raise TerraformImportError(f'{shown} is corrupt ("lineage" must be a one-line string)')
    if not isinstance(terraform_version, str) or one_line_problem(terraform_version):
        raise TerraformImportError(f'{shown} is corrupt ("terraform_version" must be a one-line string)')
    resources = document.get("resources", [])
    if not isinstance(resources, list):
        raise TerraformImportError(f'{shown} is corrupt ("resources" must be a list)')
    instances: list[Instance] = []
    for index, resource in enumerate(resources):
        instances.extend(_instances(index, resource))
        if len(instances) > MAX_INSTANCES:
            raise TerraformImportError(f"{shown} holds more than {MAX_INSTANCES} resource instances; this module converts at most {MAX_INSTANCES} at once")
    for position, instance in enumerate(instances):
        instance.position = position
    outputs = document.get("outputs") or {}
    if not isinstance(outputs, dict):
        raise TerraformImportError(f'{shown} is corrupt ("outputs" must be an object)')
    return TerraformState(
        version=version,
        terraform_version=terraform_version,
        serial=serial,
        lineage=lineage,
        instances=instances,
        outputs=[_output(n, o) for n, o in outputs.items()],
    )


def _output(name: str, raw: t.Any) -> Output:
    """An output; a malformed one (or one whose name is no identifier) is kept with its problem,
    and is sensitive unless it says it is not (what it holds is never shown)."""
    if not isinstance(raw, dict) or "value" not in raw:
        return Output(name=name, value=None, sensitive=True, problem='the output is not an object with a "value"')
    sensitive = raw.get("sensitive", False)
    if not isinstance(sensitive, bool):
        return Output(name=name, value=None, sensitive=True, problem='its "sensitive" is not a boolean, so the value is not shown')
    problem = None if _NAME.match(name) else "its name is not a Terraform identifier"
    return Output(name=name, value=raw["value"], sensitive=sensitive, problem=problem)


def _quoted_key(key: str) -> str:
    """``key`` in double quotes as Terraform prints an instance key in an address: line breaks,
    tabs, quotes and backslashes escaped, ``${``/``%{`` doubled (HCL's template introducers),
    every other character that is not printable as ``\\uXXXX`` (``\\UXXXXXXXX`` outside the BMP).
    The address is then one line, whatever the key holds, and reads as Terraform shows it."""
    out = []
    for position, char in enumerate(key):
        if char in _KEY_ESCAPES:
            out.append(_KEY_ESCAPES[char])
        elif char in "$%" and key[position + 1 : position + 2] == "{":
            out.append(char * 2)
        elif char.isprintable() and not NOT_ONE_LINE.match(char):
            out.append(char)
        else:
            code = ord(char)
            out.append(f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
    return '"' + "".join(out) + '"'


def _index_text(key: t.Any) -> str:
    if key is None:
        return ""
    if isinstance(key, int) and not isinstance(key, bool):
        return f"[{key}]"
    return f"[{_quoted_key(key)}]"


def _without_keys(module: str) -> str:
    """A module path (``module.a["x"].module.b[0]``) without its instance keys, as the
    ``dependencies`` of a state name resources (``module.a.module.b``)."""
    out, depth, quoted, escaped = [], 0, False, False
    for char in module:
        if depth:
            if escaped:
                escaped = False
            elif quoted and char == "\\":
                escaped = True
            elif char == '"':
                quoted = not quoted
            elif not quoted and char == "]":
                depth = 0
            continue
        if char == "[":
            depth = 1
            continue
        out.append(char)
    return "".join(out)


def provider_of(value: t.Any) -> str:
    """``namespace/type`` of a resource's provider string, or "" when it is not one."""
    if not isinstance(value, str):
        return ""
    found = _PROVIDER.match(value)
    if found:
        namespace, kind = found.group("namespace"), found.group("type")
        # Terraform 0.12 wrote providers without a namespace: provider["libvirt"] is impossible, provider.libvirt is the form.
        return f"{namespace}/{kind}"
    legacy = _LEGACY_PROVIDER.match(value)
    if legacy:
        return f"-/{legacy.group('type')}"
    return ""


def _instances(index: int, resource: t.Any) -> list[Instance]:
    """The instances of one entry of ``resources``; a malformed entry is one Instance with its problem."""
    if not isinstance(resource, dict):
        return [_broken(f"resources[{index}]", "the entry is not an object")]
    mode, kind, name, module = resource.get("mode"), resource.get("type"), resource.get("name"), resource.get("module")
    for field, value in (("mode", mode), ("type", kind), ("name", name)):
        if not isinstance(value, str) or not value:
            return [_broken(f"resources[{index}]", f'"{field}" must be a non-empty string')]
    mode, kind, name = str(mode), str(kind), str(name)
    if module is not None and not isinstance(module, str):
        return [_broken(f"resources[{index}]", '"module" must be a string')]
    prefix = f"{module}." if module else ""
    base = f"{prefix}{'data.' if mode == 'data' else ''}{kind}.{name}"
    problem = None
    for what, value in (("name", name), ("type", kind), ("module", module or "")):
        found = one_line_problem(value)
        if found:
            problem = f"its {what} contains {found}"
            break
    if problem is None and mode not in ("managed", "data"):
        problem = f'its mode is {printable(mode, 40)!r}, neither "managed" nor "data"'
    if problem is None and (not _NAME.match(name) or not _NAME.match(kind)):
        problem = "its type or name is not a Terraform identifier"
    provider = provider_of(resource.get("provider"))
    raw_instances = resource.get("instances")
    if not isinstance(raw_instances, list):
        return [_broken(base, '"instances" must be a list')]
    if not raw_instances:
        return []  # a resource whose instances are all gone (count = 0): nothing to convert
    out = []
    for number, raw in enumerate(raw_instances):
        if not isinstance(raw, dict):
            out.append(_broken(f"{base}[{number}]", "the instance is not an object"))
            continue
        key = raw.get("index_key")
        if key is not None and not isinstance(key, (int, str)):
            out.append(_broken(f"{base}[{number}]", "its index_key is neither a number nor a string"))
            continue
        # Terraform's own form (a key's control characters escaped); a module or name with one is shown escaped.
        address = printable(base + _index_text(key), 1000)
        attributes = raw.get("attributes")
        instance = Instance(
            address=address,
            mode=mode,
            type=kind,
            name=name,
            provider=provider,
            attributes=attributes if isinstance(attributes, dict) else {},
            sensitive_paths=_sensitive_paths(raw.get("sensitive_attributes")),
            dependencies=[d for d in raw.get("dependencies") or [] if isinstance(d, str)] if isinstance(raw.get("dependencies"), list) else [],
            problem=problem,
            index_key=key,
            instances_of_resource=len(raw_instances),
            private=raw.get("private") if isinstance(raw.get("private"), str) else None,
            resource=printable(f"{_without_keys(prefix)}{'data.' if mode == 'data' else ''}{kind}.{name}", 1000),
        )
        if instance.problem is None:
            if not isinstance(attributes, dict):
                instance.problem = '"attributes" is missing or not an object (an instance only in the flat form of Terraform 0.11, attributes_flat)'
            elif raw.get("deposed"):
                instance.problem = "a deposed object (left over from a create_before_destroy replacement); Terraform would destroy it"
            elif raw.get("status") == "tainted":
                instance.problem = "tainted: Terraform would destroy and create it again; converting it would keep what Terraform gave up on"
                instance.tainted = True
        out.append(instance)
    return out


def _broken(where: str, why: str) -> Instance:
    return Instance(address=printable(where), mode="", type="", name="", provider="", attributes={}, sensitive_paths=[], dependencies=[], problem=why)


def _sensitive_paths(value: t.Any) -> list[list[t.Any]]:
    """The attribute paths Terraform marked sensitive: lists of steps, each a name (get_attr) or
    an index. Terraform writes them as ``[[{"type": "get_attr", "value": "token"}]]``."""
    paths: list[list[t.Any]] = []
    if not isinstance(value, list):
        return paths
    for path in value:
        if not isinstance(path, list):
            continue
        steps: list[t.Any] = []
        for step in path:
            if not isinstance(step, dict):
                break
            if step.get("type") == "get_attr" and isinstance(step.get("value"), str):
                steps.append(step["value"])
            elif step.get("type") == "index" and isinstance(step.get("value"), dict):
                steps.append(step["value"].get("value"))
            else:
                break
        else:
            if steps:
                paths.append(steps)
    return paths


def values_at(attributes: t.Any, path: list[t.Any]) -> list[t.Any]:
    """The values at ``path`` in ``attributes`` (several when a step is an index into a set)."""
    current = [attributes]
    for step in path:
        following = []
        for value in current:
            if isinstance(value, dict) and isinstance(step, str) and step in value:
                following.append(value[step])
            elif isinstance(value, list):
                if isinstance(step, int) and not isinstance(step, bool) and 0 <= step < len(value):
                    following.append(value[step])
                elif not isinstance(step, int):
                    following.extend(value)  # a set element: Terraform names it by value
        current = following
    return current


def strings_in(value: t.Any) -> list[str]:
    """Every string in ``value``, keys included."""
    found: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, dict):
            found.extend(k for k in item if isinstance(k, str))
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found
