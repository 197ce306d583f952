# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""A short, JSON-ready summary of a domain (what an inventory or a listing shows): its
identity, state, size, the workspace metadata in its definition, and its addresses."""

from __future__ import annotations

import typing as t
import xml.etree.ElementTree as ET  # stdlib is enough here: the XML is libvirt's own output

from .connection import libvirt
from .data_sources import ADDRESS_SOURCES, interface_addresses
from .errors import LibvirtError, LibvirtValidationError, is_not_found
from .guest_addresses import AGENT_ADDRESS_RULES, HostAddresses, address_problem, choose_address, domain_attachments, host_addresses
from .listing import NameStateFilter
from .snapshot import domain_state_name

__all__ = [
    "WORKSPACE_METADATA_ELEMENT",
    "WORKSPACE_METADATA_NS",
    "address_problem",
    "domain_summaries",
    "domain_summary",
    "parse_workspace_metadata",
    "primary_address",
]

# The element a workspace writes into the domain's <metadata>, in the collection's namespace.
WORKSPACE_METADATA_NS = "https://github.com/devinfra/devinfra.providers/xmlns/workspace/1.0"
WORKSPACE_METADATA_ELEMENT = "workspace"


def _local_name(tag: str) -> str:
    return tag.rpartition("}")[2]


def _element_value(element: ET.Element) -> t.Any:
    """A leaf element is its text; an element with children a dict of its children by local
    name (a name that repeats becomes a list)."""
    children = list(element)
    if not children:
        return (element.text or "").strip()
    values: dict[str, t.Any] = {}
    for child in children:
        key, value = _local_name(child.tag), _element_value(child)
        if key not in values:
            values[key] = value
        elif isinstance(values[key], list):
            values[key].append(value)
        else:
            values[key] = [values[key], value]
    return values


def parse_workspace_metadata(root: ET.Element) -> dict[str, t.Any]:
    """The workspace element of a domain's <metadata> as a dict (empty when there is none)."""
    element = root.find(f"metadata/{{{WORKSPACE_METADATA_NS}}}{WORKSPACE_METADATA_ELEMENT}")
    if element is None:
        return {}
    value = _element_value(element)
    return value if isinstance(value, dict) else {}


def primary_address(interfaces: list[dict[str, t.Any]]) -> str | None:
    """The first IPv4 address that passes the context-free part of the filter (no loopback,
    link-local, multicast, broadcast, unspecified or reserved address, IPv4-mapped forms
    included), in the order libvirt lists the interfaces, else the first such IPv6 address.
    :func:`domain_summary` also knows the hypervisor's networks and where the addresses came
    from; this is for a list of interfaces alone."""
    return choose_address(interfaces, origin="lease", host=HostAddresses(), attachments={})


def _int(text: str | None, default: int | None = None) -> int | None:
    try:
        return int((text or "").strip())
    except ValueError:
        return default


def _addresses(
    dom: libvirt.virDomain,
    root: ET.Element,
    *,
    source: str,
    host: HostAddresses,
    agent_addresses: str,
) -> tuple[list[dict[str, t.Any]], str | None]:
    """The interfaces to show and the address to reach the guest at. ``any`` asks the lease
    first and keeps it when it gives a usable address (libvirt's DHCP server is a better witness
    than the guest's own word); else the agent's answer when it gives one."""
    attachments = domain_attachments(root)
    answers: list[tuple[str, list[dict[str, t.Any]]]] = []
    for origin in ("lease", "agent") if source == "any" else (source,):
        interfaces, _error = interface_addresses(dom, origin)
        address = choose_address(interfaces, origin=origin, host=host, attachments=attachments, agent_addresses=agent_addresses)
        if address is not None:
            return interfaces, address
        answers.append((origin, interfaces))
    # No usable address: the first non-empty answer, as the data source shows it.
    return next((interfaces for _origin, interfaces in answers if interfaces), []), None


def domain_summary(
    dom: libvirt.virDomain,
    *,
    source: str | None,
    host: HostAddresses | None = None,
    agent_addresses: str = "attached_networks",
) -> dict[str, t.Any]:
    """The summary of one domain. ``source`` is where addresses come from (the values of the
    C(libvirt_domain_interface_addresses) data source), None for no addresses. Addresses are
    only asked of an active domain; a source that fails leaves the list empty. ``host`` is what
    the hypervisor itself is (its networks and addresses, read once for all its domains by
    :func:`domain_summaries`); ``agent_addresses`` which agent addresses may be used."""
    if source is not None and source not in ADDRESS_SOURCES:
        raise LibvirtValidationError(f"source: must be one of {', '.join(ADDRESS_SOURCES)}, got {source!r}")
    if agent_addresses not in AGENT_ADDRESS_RULES:
        raise LibvirtValidationError(f"agent_addresses: must be one of {', '.join(AGENT_ADDRESS_RULES)}, got {agent_addresses!r}")
    state = domain_state_name(dom)
    max_memory, memory = dom.info()[1:3]
    root = ET.fromstring(dom.XMLDesc(0))
    vcpu_element = root.find("vcpu")
    vcpu = _int(vcpu_element.text if vcpu_element is not None else None)
    vcpu_current = _int(vcpu_element.get("current") if vcpu_element is not None else None, vcpu)
    persistent = bool(dom.isPersistent())
    interfaces: list[dict[str, t.Any]] = []
    address = None
    if source is not None and dom.isActive():
        if host is None:
            host = host_addresses(dom.connect())
        interfaces, address = _addresses(dom, root, source=source, host=host, agent_addresses=agent_addresses)
    dom_id = dom.ID()
    return {
        "name": dom.name(),
        "uuid": dom.UUIDString(),
        "id": dom_id if dom_id >= 0 else None,
        "state": state,
        "persistent": persistent,
        # A transient domain has no autostart flag.
        "autostart": bool(dom.autostart()) if persistent else False,
        "vcpu": vcpu,
        "vcpu_current": vcpu_current,
        "memory": int(max_memory),
        "current_memory": int(memory),
        "title": (root.findtext("title") or "").strip() or None,
        "description": root.findtext("description") or None,
        "workspace": parse_workspace_metadata(root),
        "interfaces": interfaces,
        "address": address,
    }


def domain_summaries(
    conn: libvirt.virConnect,
    *,
    source: str | None,
    names: list[str] | None = None,
    states: list[str] | None = None,
    agent_addresses: str = "attached_networks",
) -> list[dict[str, t.Any]]:
    """The summaries of the host's domains (sorted by name) that ``names`` (names or shell-style
    patterns) and ``states`` (state names, or active/inactive) select, with the filter of the
    listing info modules. A domain that disappears while it is read is left out; any other
    libvirt error is raised."""
    wanted = NameStateFilter("names", names, states)
    try:
        domains = conn.listAllDomains(0)
    except libvirt.libvirtError as exc:
        raise LibvirtError(f"Unable to list the domains: {exc}") from exc
    # The hypervisor's networks and addresses, once for all its domains.
    host = host_addresses(conn) if source is not None else None
    summaries = []
    for dom in sorted(domains, key=lambda d: d.name()):
        try:
            if wanted.name(dom.name()) and wanted.state(domain_state_name(dom), bool(dom.isActive())):
                summaries.append(domain_summary(dom, source=source, host=host, agent_addresses=agent_addresses))
        except libvirt.libvirtError as exc:
            if is_not_found(exc):
                continue  # undefined or stopped (transient) meanwhile
            raise LibvirtError(f"Unable to read the domain {dom.name()!r}: {exc}") from exc
        except ET.ParseError as exc:
            raise LibvirtError(f"Unable to parse the XML of the domain {dom.name()!r}: {exc}") from exc
    return summaries
