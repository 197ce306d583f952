# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""libvirt_network: define, start, autostart, update in place, remove."""

from __future__ import annotations

import ipaddress
import re
import typing as t

from . import schema
from .connection import libvirt
from .errors import LibvirtError, LibvirtValidationError
from .resource import Outcome, Persistent, converge, definition_xml, lookup_by_name
from .xml_option import XML_ARGSPEC, options_from_xml

__all__ = ["NETWORK_ARGSPEC", "ensure_network"]

STRUCT = "Network"
SCHEMA_SPEC = schema.argument_spec(STRUCT)
NETWORK_ARGSPEC: dict[str, dict[str, t.Any]] = {
    **SCHEMA_SPEC,
    **XML_ARGSPEC,
    "name": {"type": "str"},  # or the <name> of xml
    "state": {"type": "str", "choices": ["present", "absent"], "default": "present"},
    "autostart": {"type": "bool"},
    "running": {"type": "bool", "default": True},
    "restart": {"type": "bool", "default": False},
}

# Lists libvirt can change on a running network without a restart (virNetworkUpdate):
# option path pattern -> (section constant name, whether the parent index is the ip's).
_LIVE_SECTIONS = (
    (re.compile(r"^ips\[(\d+)\]\.dhcp\.hosts$"), "VIR_NETWORK_SECTION_IP_DHCP_HOST", "NetworkDHCPHost", "host"),
    (re.compile(r"^ips\[(\d+)\]\.dhcp\.ranges$"), "VIR_NETWORK_SECTION_IP_DHCP_RANGE", "NetworkDHCPRange", "range"),
    (re.compile(r"^dns\.host$"), "VIR_NETWORK_SECTION_DNS_HOST", "NetworkDNSHost", "host"),
    (re.compile(r"^dns\.txts$"), "VIR_NETWORK_SECTION_DNS_TXT", "NetworkDNSTXT", "txt"),
    (re.compile(r"^dns\.srvs$"), "VIR_NETWORK_SECTION_DNS_SRV", "NetworkDNSSRV", "srv"),
)


def _state(net: t.Any) -> dict[str, t.Any]:
    return {"uuid": net.UUIDString(), "autostart": bool(net.autostart()), "running": bool(net.isActive())}


def _describe(net: t.Any) -> dict[str, t.Any]:
    """The whole network as options (its persistent definition), with its computed fields."""
    described = schema.read(STRUCT, schema.parse(definition_xml(net, libvirt.VIR_NETWORK_XML_INACTIVE)))
    described.update(_state(net))
    return described


def _live_changes(desired: dict[str, t.Any], current_root: t.Any, paths: list[str]) -> list[tuple[int, int, int, str]] | None:
    """virNetworkUpdate calls (command, section, parent index, xml) that turn the current
    lists into the desired ones, or None when a difference is not in such a list."""
    sections: dict[str, tuple[str, str, str, int]] = {}
    for path in paths:
        list_path = _list_path(path)
        found = _match_live(list_path)
        if found is None:
            return None
        sections[list_path] = found
    current_all = schema.read(STRUCT, current_root)
    calls: list[tuple[int, int, int, str]] = []
    for path, (section_name, struct, element, parent_index) in sections.items():
        section = getattr(libvirt, section_name)
        want = [schema.clean(item) for item in schema.value_at(desired, path) or []]
        have = schema.value_at(current_all, path) or []
        for item in have:
            if not any(not schema.compare(struct, w, item) for w in want):
                calls.append((libvirt.VIR_NETWORK_UPDATE_COMMAND_DELETE, section, parent_index, _item_xml(struct, element, item)))
        for item in want:
            if not any(not schema.compare(struct, item, h) for h in have):
                calls.append((libvirt.VIR_NETWORK_UPDATE_COMMAND_ADD_LAST, section, parent_index, _item_xml(struct, element, item)))
    return calls


def _list_path(path: str) -> str:
    """``dns.host[1].ip`` -> ``dns.host``: the live sections change whole items."""
    for pattern, *_rest in _LIVE_SECTIONS:
        prefix = re.match(pattern.pattern.rstrip("$"), path)
        if prefix:
            return prefix.group(0)
    return path


def _match_live(path: str) -> tuple[str, str, str, int] | None:
    for pattern, section, struct, element in _LIVE_SECTIONS:
        match = pattern.match(path)
        if match:
            return section, struct, element, int(match.group(1)) if match.groups() else -1
    return None


def _item_xml(struct: str, element: str, item: dict[str, t.Any]) -> str:
    node = schema.element(element)
    schema.apply(struct, node, item, path=element)
    return schema.serialize(node)


def _absent(conn: t.Any, params: dict[str, t.Any], check_mode: bool) -> Outcome:
    net = lookup_by_name(conn.networkLookupByName, params["name"], "network")
    if net is None:
        return Outcome(False, {}, {}, {})
    removed = _describe(net)
    if not check_mode:
        try:
            if net.isActive():
                net.destroy()
            net.undefine()
        except libvirt.libvirtError as exc:
            raise LibvirtError(f"Failed to remove network '{params['name']}': {exc}") from exc
    return Outcome(True, removed, removed, {})


def _create(conn: t.Any, params: dict[str, t.Any], desired: dict[str, t.Any], check_mode: bool) -> Outcome:
    root = schema.build(STRUCT, desired)
    wanted_state = {"running": params["running"], "autostart": bool(params["autostart"])}
    after = {**desired, **wanted_state}
    if check_mode:
        return Outcome(True, after, {}, after)
    try:
        net = conn.networkDefineXML(schema.serialize(root))
    except libvirt.libvirtError as exc:
        raise LibvirtError(f"Failed to define network '{params['name']}': {exc}") from exc
    try:
        if params["autostart"] is not None:
            net.setAutostart(1 if params["autostart"] else 0)
        if params["running"]:
            net.create()
    except libvirt.libvirtError as exc:
        # Leave nothing half-made behind (upstream: undefine on a failed start).
        try:
            if net.isActive():
                net.destroy()
            net.undefine()
        except libvirt.libvirtError:
            pass
        raise LibvirtError(f"Failed to start network '{params['name']}': {exc}") from exc
    return Outcome(True, _describe(net), {}, after)


# The options that hold an IP address (a MAC address), ``[]`` for each item of a list: libvirt
# refuses a bad one only when it defines the network, which a check run never gets to.
_ADDRESS_OPTIONS = (
    "ips[].address",
    "ips[].dhcp.ranges[].start",
    "ips[].dhcp.ranges[].end",
    "ips[].dhcp.hosts[].ip",
    "dns.host[].ip",
    "dns.forwarders[].addr",
    "routes[].address",
    "routes[].gateway",
    "forward.nat.addresses[].start",
    "forward.nat.addresses[].end",
)
_MAC_OPTIONS = ("mac.address", "ips[].dhcp.hosts[].mac")
_NETMASK_OPTIONS = ("ips[].netmask", "routes[].netmask")
_MAC = re.compile(r"^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}$")


def _check_addresses(desired: dict[str, t.Any]) -> None:
    """Every address as libvirt parses it (an IP, a MAC, a netmask, a prefix length for the
    address's family), then the DHCP ranges and hosts inside their subnet."""
    for pattern in _ADDRESS_OPTIONS:
        for where, value in schema.values_at(desired, pattern):
            _ip(where, value)
    for pattern in _MAC_OPTIONS:
        for where, value in schema.values_at(desired, pattern):
            if not _MAC.match(str(value)):
                raise LibvirtValidationError(f"{where}: {value!r} is not a MAC address (six hexadecimal bytes separated by colons)")
    for pattern in _NETMASK_OPTIONS:
        for where, value in schema.values_at(desired, pattern):
            if schema.prefix_length(value) is None:
                raise LibvirtValidationError(f"{where}: {value!r} is not an IPv4 netmask (for example 255.255.255.0)")
    for holder in ("ips", "routes"):
        for i, item in enumerate(desired.get(holder) or []):
            _check_prefix(f"{holder}[{i}]", item or {})
    _check_dhcp(desired)


def _ip(where: str, value: t.Any) -> t.Any:
    try:
        return ipaddress.ip_address(str(value))
    except ValueError:
        raise LibvirtValidationError(f"{where}: {value!r} is not an IP address") from None


def _check_prefix(where: str, item: dict[str, t.Any]) -> None:
    """A prefix length within the address's family, and a netmask for an IPv4 address only."""
    address = _ip(f"{where}.address", item["address"]) if item.get("address") is not None else None
    if item.get("netmask") is not None and address is not None and address.version != 4:
        raise LibvirtValidationError(f"{where}.netmask: only an IPv4 address takes a netmask; give prefix for {address}")
    most = 128 if address is not None and address.version == 6 else 32
    if item.get("prefix") is not None and not 0 <= item["prefix"] <= most:
        raise LibvirtValidationError(f"{where}.prefix: {item['prefix']} is not a prefix length of an IPv{6 if most == 128 else 4} address (0 to {most})")


def _check_dhcp(desired: dict[str, t.Any]) -> None:
    """DHCP ranges and hosts inside their subnet, a range's start before its end: what libvirt
    refuses only when it gets there, with a live update half-way through."""
    for i, ip in enumerate(item or {} for item in desired.get("ips") or []):
        dhcp = ip.get("dhcp") or {}
        if not ip.get("address") or not (dhcp.get("ranges") or dhcp.get("hosts")):
            continue
        mask = ip.get("prefix") if ip.get("prefix") is not None else ip.get("netmask")
        try:
            subnet = ipaddress.ip_network(f"{ip['address']}/{mask}" if mask is not None else ip["address"], strict=False)
        except ValueError as exc:
            raise LibvirtValidationError(f"ips[{i}]: {exc}") from None

        for j, dhcp_range in enumerate(dhcp.get("ranges") or []):
            where = f"ips[{i}].dhcp.ranges[{j}]"
            start = _address_in(subnet, f"{where}.start", (dhcp_range or {}).get("start"))
            end = _address_in(subnet, f"{where}.end", (dhcp_range or {}).get("end"))
            if start > end:
                raise LibvirtValidationError(f"{where}: start {start} is after end {end}")
        for j, host in enumerate(dhcp.get("hosts") or []):
            if (host or {}).get("ip") is not None:
                _address_in(subnet, f"ips[{i}].dhcp.hosts[{j}].ip", host["ip"])


def _address_in(subnet: t.Any, where: str, value: t.Any) -> t.Any:
    parsed = _ip(where, value)
    if parsed not in subnet:
        raise LibvirtValidationError(f"{where}: {value} is not in the network's subnet {subnet}")
    return parsed


def _update_live(net: t.Any, desired: dict[str, t.Any], current_root: t.Any, paths: list[str], check_mode: bool) -> bool:
    """Apply the changes libvirt can make live, all or none: when one is refused, the ones
    applied are undone on the running network and the definition is put back as it was."""
    calls = _live_changes(desired, current_root, paths)
    if calls is None:
        return False
    if check_mode:
        return True
    active = bool(net.isActive())
    flags = libvirt.VIR_NETWORK_UPDATE_AFFECT_CONFIG | (libvirt.VIR_NETWORK_UPDATE_AFFECT_LIVE if active else 0)
    definition = definition_xml(net, libvirt.VIR_NETWORK_XML_INACTIVE)
    applied: list[tuple[int, int, int, str]] = []
    try:
        for call in calls:
            net.update(*call, flags)
            applied.append(call)
    except libvirt.libvirtError as exc:
        delete, add = libvirt.VIR_NETWORK_UPDATE_COMMAND_DELETE, libvirt.VIR_NETWORK_UPDATE_COMMAND_ADD_LAST
        undo = {delete: add, add: delete}
        try:
            for command, section, parent_index, xml in reversed(applied if active else []):
                net.update(undo[command], section, parent_index, xml, libvirt.VIR_NETWORK_UPDATE_AFFECT_LIVE)
            net.connect().networkDefineXML(definition)
        except libvirt.libvirtError as undo_exc:
            raise LibvirtError(
                f"Failed to update network '{net.name()}': {exc}; undoing the {len(applied)} changes applied before it failed too: {undo_exc}"
            ) from exc
        raise LibvirtError(f"Failed to update network '{net.name()}': {exc}; the {len(applied)} changes applied before it were undone") from exc
    return True


def _kind(conn: t.Any) -> Persistent:
    return Persistent(
        what="network",
        struct=STRUCT,
        inactive_flag=libvirt.VIR_NETWORK_XML_INACTIVE,
        define=conn.networkDefineXML,
        start=lambda net: net.create(),
        describe=_describe,
        update_live=_update_live,
    )


def ensure_network(conn: t.Any, params: dict[str, t.Any], check_mode: bool) -> Outcome:
    xml_options = options_from_xml(params, STRUCT, SCHEMA_SPEC, "network") if params.get("xml") else None
    if params["state"] == "absent":
        return _absent(conn, params, check_mode)
    desired = xml_options or schema.options_of(STRUCT, {name: params.get(name) for name in SCHEMA_SPEC})
    desired["name"] = params["name"]
    schema.build(STRUCT, desired)  # bad input fails here, before anything is touched
    _check_addresses(desired)
    net = lookup_by_name(conn.networkLookupByName, params["name"], "network")
    if net is None:
        return _create(conn, params, desired, check_mode)
    return converge(_kind(conn), net, desired, params, check_mode)
