# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""What the libvirt inventory plugin trusts: which domain names may become inventory hosts,
where its cache may live, and what a cached record may hold.

Domain names are chosen by whoever defines domains on a shared hypervisor; a cache file is
whatever its directory's writers made it. Neither may turn ``localhost`` into a guest, join an
existing group, or feed the controller a template."""

from __future__ import annotations

import ipaddress
import json
import os
import re
import socket
import typing as t

from .._common.addresses import unmapped
from .._common.safe_files import UnsafeFileError, check_directory_chain, not_ours
from .._common.text import one_line_problem
from .guest_addresses import address_problem

__all__ = [
    "PLUGIN_GROUP_PREFIXES",
    "RESERVED_NAMES",
    "CacheRecordError",
    "StaleCacheRecordError",
    "cache_location_problem",
    "checked_records",
    "name_problem",
]

# Ansible's own groups, and the names that mean the controller itself (Ansible's localhost,
# and what /etc/hosts and RFC 6761 make resolve to the loopback).
RESERVED_NAMES = frozenset(
    {
        "all",
        "ungrouped",
        "localhost",
        "localhost.localdomain",
        "localhost4",
        "localhost4.localdomain4",
        "localhost6",
        "localhost6.localdomain6",
        "ip6-localhost",
        "ip6-loopback",
    }
)
# The plugin's own groups: hypervisor_<name> and state_<state>.
PLUGIN_GROUP_PREFIXES = ("hypervisor_", "state_")
# A name that Ansible reads as a host pattern operator or a range, not a name.
_PATTERN_CHARS = re.compile(r"^[&!~]|[\[\]:,*?]")


def _address_literal(name: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The address ``name`` stands for when it is an IP literal, in any form the resolver takes
    (``127.1``, ``0x7f.0.0.1``, ``2130706433``, ``[::1]``, ``::1%lo``)."""
    text = name[1:-1] if name.startswith("[") and name.endswith("]") else name
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        pass
    try:
        return ipaddress.IPv4Address(socket.inet_aton(text))
    except (OSError, ValueError):
        return None


def name_problem(name: t.Any) -> str | None:
    """Why a domain name cannot be an inventory host name whatever the inventory holds, or None."""
    if not isinstance(name, str) or not name:
        return "is not a non-empty string"
    problem = one_line_problem(name)
    if problem:
        return f"contains {problem}"
    lowered = name.lower().rstrip(".")
    if lowered in RESERVED_NAMES or lowered.endswith(".localhost"):
        return "is reserved (an Ansible group, or a name of the controller itself)"
    ip = _address_literal(name)
    if ip is not None:
        judged = unmapped(ip)
        if judged.is_loopback or judged.is_unspecified:
            return "is an address of the controller itself"
    if name.startswith(PLUGIN_GROUP_PREFIXES):
        return "is reserved for the plugin's groups (hypervisor_*, state_*)"
    if _PATTERN_CHARS.search(name) and ip is None:
        return "reads as a host pattern, not a name"
    return None


# --- the cache's location ---------------------------------------------------------------


def cache_location_problem(directory: str, files: t.Iterable[str] = ()) -> str | None:
    """Why the cache directory, or one of the cache ``files`` in it, is not one only the running
    user (or root) can write (and so a record another user may have written), or None."""
    try:
        check_directory_chain(os.path.abspath(directory), runner="the inventory")
    except UnsafeFileError as exc:
        return exc.why
    for path in files:
        try:
            problem = not_ours(os.lstat(path))
        except FileNotFoundError:
            continue
        except OSError as exc:
            return f"{path} cannot be inspected: {exc.strerror}"
        if problem:
            return f"{path} {problem}"
    return None


# --- a cached record ----------------------------------------------------------------------


class CacheRecordError(ValueError):
    """A cached record without the shape the plugin writes."""


class StaleCacheRecordError(CacheRecordError):
    """A cached record of other hypervisors than the inventory's: written before its
    configuration changed."""


_MAX_TEXT = 1 << 20  # a description may be long; 1 MiB is more than any libvirt field holds
_MAX_DOMAINS = 100_000
_MAX_ITEMS = 4_096
_MAX_DEPTH = 16
_STATES = frozenset({"nostate", "running", "blocked", "paused", "shutdown", "shutoff", "crashed", "pmsuspended"})
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
_MAC = re.compile(r"^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5,19}$")


def _fail(path: str, what: str) -> t.NoReturn:
    raise CacheRecordError(f"{path}: {what}")


def _text(value: t.Any, path: str, *, null: bool = False, limit: int = _MAX_TEXT) -> None:
    if value is None and null:
        return
    if not isinstance(value, str):
        _fail(path, "not a string")
    if len(value) > limit:
        _fail(path, f"longer than {limit} characters")


def _integer(value: t.Any, path: str, *, null: bool = False) -> None:
    if value is None and null:
        return
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 1 << 64:
        _fail(path, "not an integer from 0 to 2**64")


def _flag(value: t.Any, path: str) -> None:
    if not isinstance(value, bool):
        _fail(path, "not a boolean")


def _keys(value: t.Any, path: str, keys: frozenset[str]) -> dict[str, t.Any]:
    if not isinstance(value, dict) or set(value) != keys:
        _fail(path, f"not a dict with exactly the keys {', '.join(sorted(keys))}")
    return value


def _items(value: t.Any, path: str, limit: int = _MAX_ITEMS) -> list[t.Any]:
    if not isinstance(value, list):
        _fail(path, "not a list")
    if len(value) > limit:
        _fail(path, f"more than {limit} items")
    return value


def _workspace_value(value: t.Any, path: str, depth: int) -> None:
    """The workspace metadata: text, a dict of such values, a list of them (what
    parse_workspace_metadata makes), bounded in depth and width."""
    if depth > _MAX_DEPTH:
        _fail(path, f"nested deeper than {_MAX_DEPTH}")
    if isinstance(value, str):
        _text(value, path)
    elif isinstance(value, dict):
        if len(value) > _MAX_ITEMS:
            _fail(path, f"more than {_MAX_ITEMS} keys")
        for key, item in value.items():
            _text(key, f"{path} key", limit=1024)
            _workspace_value(item, f"{path}.{key}", depth + 1)
    elif isinstance(value, list):
        for index, item in enumerate(_items(value, path)):
            _workspace_value(item, f"{path}[{index}]", depth + 1)
    else:
        _fail(path, "not text, a dict or a list")


_RECORD_KEYS = frozenset({"uri", "name", "host", "domains"})
_DOMAIN_KEYS = frozenset(
    {
        "name", "uuid", "id", "state", "persistent", "autostart", "vcpu", "vcpu_current", "memory", "current_memory",
        "title", "description", "workspace", "interfaces", "address",
    }
)  # fmt: skip
_INTERFACE_KEYS = frozenset({"name", "hwaddr", "addrs"})
_ADDR_KEYS = frozenset({"type", "addr", "prefix"})


def _check_domain(domain: t.Any, path: str) -> None:
    _keys(domain, path, _DOMAIN_KEYS)
    _text(domain["name"], f"{path}.name", limit=1024)
    if not isinstance(domain["uuid"], str) or not _UUID.match(domain["uuid"]):
        _fail(f"{path}.uuid", "not a UUID")
    _integer(domain["id"], f"{path}.id", null=True)
    if domain["state"] not in _STATES:
        _fail(f"{path}.state", "not a domain state")
    _flag(domain["persistent"], f"{path}.persistent")
    _flag(domain["autostart"], f"{path}.autostart")
    for key in ("vcpu", "vcpu_current"):
        _integer(domain[key], f"{path}.{key}", null=True)
    for key in ("memory", "current_memory"):
        _integer(domain[key], f"{path}.{key}")
    _text(domain["title"], f"{path}.title", null=True)
    _text(domain["description"], f"{path}.description", null=True)
    if not isinstance(domain["workspace"], dict):
        _fail(f"{path}.workspace", "not a dict")
    _workspace_value(domain["workspace"], f"{path}.workspace", 0)
    for index, iface in enumerate(_items(domain["interfaces"], f"{path}.interfaces")):
        where = f"{path}.interfaces[{index}]"
        _keys(iface, where, _INTERFACE_KEYS)
        _text(iface["name"], f"{where}.name", limit=1024)
        if iface["hwaddr"] is not None and (not isinstance(iface["hwaddr"], str) or not _MAC.match(iface["hwaddr"])):
            _fail(f"{where}.hwaddr", "not a MAC address")
        for number, addr in enumerate(_items(iface["addrs"], f"{where}.addrs")):
            at = f"{where}.addrs[{number}]"
            _keys(addr, at, _ADDR_KEYS)
            if addr["type"] not in ("ipv4", "ipv6"):
                _fail(f"{at}.type", "neither ipv4 nor ipv6")
            _text(addr["addr"], f"{at}.addr", limit=64)
            if not isinstance(addr["prefix"], int) or isinstance(addr["prefix"], bool) or not 0 <= addr["prefix"] <= 128:
                _fail(f"{at}.prefix", "not a prefix length")
    address = domain["address"]
    if address is not None:
        _text(address, f"{path}.address", limit=64)
        # The hypervisor's networks are not in the record: the part of the filter that needs
        # no context, so a rewritten record cannot point ansible_host at the controller.
        problem = address_problem(address)
        if problem:
            _fail(f"{path}.address", f"not an address to reach a guest at ({problem})")


def checked_records(value: t.Any, hypervisors: t.Sequence[tuple[str, str]]) -> list[dict[str, t.Any]]:
    """A copy of a cached value holding only JSON's plain types (whatever the cache plugin made
    of it, no tag of any kind, so nothing in it is trusted as a template), after checking it has
    the shape the plugin writes: one record per hypervisor of ``hypervisors`` (shown URI, name),
    in that order. Raises CacheRecordError naming the first thing wrong."""
    try:
        # A round trip through the standard library's JSON: str, int, float, bool, None, list
        # and dict, never a subclass a cache plugin or Ansible's decoder made (tagged strings
        # such as TrustedAsTemplate are str subclasses).
        text = json.dumps(value, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:
        raise CacheRecordError(f"not JSON data: {exc}") from None
    if len(text) > 64 * _MAX_TEXT:
        raise CacheRecordError(f"larger than {64 * _MAX_TEXT} bytes")
    plain = json.loads(text)
    records = _items(plain, "records", limit=_MAX_ITEMS)
    for index, record in enumerate(records):
        _keys(record, f"records[{index}]", _RECORD_KEYS)
    if [(record["uri"], record["name"]) for record in records] != list(hypervisors):
        raise StaleCacheRecordError("the records are of other hypervisors than the inventory's")
    for index, record in enumerate(records):
        path = f"records[{index}]"
        _text(record["host"], f"{path}.host", null=True, limit=1024)
        for number, domain in enumerate(_items(record["domains"], f"{path}.domains", limit=_MAX_DOMAINS)):
            _check_domain(domain, f"{path}.domains[{number}]")
    return t.cast("list[dict[str, t.Any]]", plain)
