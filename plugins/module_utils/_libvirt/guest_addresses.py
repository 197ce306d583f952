# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Which of the addresses a guest has is one to reach it at.

A guest agent reports whatever the guest says: the controller's loopback, the hypervisor's own
bridge address or a broadcast address would send the plays somewhere else. Leases come from
libvirt's own DHCP server, but go through the same filter. An agent's address must also lie in
a subnet of a libvirt network the interface (matched by MAC) is attached to, unless the
inventory allows any address."""

from __future__ import annotations

import dataclasses
import ipaddress
import typing as t
import xml.etree.ElementTree as ET  # stdlib is enough here: the XML is libvirt's own output

from .._common.addresses import unmapped
from .connection import libvirt

__all__ = [
    "AGENT_ADDRESS_RULES",
    "HostAddresses",
    "address_problem",
    "choose_address",
    "domain_attachments",
    "host_addresses",
]

IPAddress = t.Union[ipaddress.IPv4Address, ipaddress.IPv6Address]
IPNetwork = t.Union[ipaddress.IPv4Network, ipaddress.IPv6Network]

# agent_addresses: attached_networks (an agent address must lie in a subnet of a libvirt network
# the interface is on) or any (any address that passes the filter below).
AGENT_ADDRESS_RULES = ("attached_networks", "any")

# "This network" (RFC 1122 3.2.1.3): Linux connects 0.0.0.0 to the local host.
_THIS_NETWORK = ipaddress.ip_network("0.0.0.0/8")
_LIMITED_BROADCAST = ipaddress.ip_address("255.255.255.255")


@dataclasses.dataclass(frozen=True)
class HostAddresses:
    """What the hypervisor itself is: the subnets of its libvirt networks (by network name) and
    its own addresses (each network's ``<ip address>``, and the addresses of the host interfaces
    libvirt lists)."""

    subnets: dict[str, tuple[IPNetwork, ...]] = dataclasses.field(default_factory=dict)
    own: frozenset[IPAddress] = frozenset()

    def all_subnets(self) -> t.Iterator[IPNetwork]:
        for subnets in self.subnets.values():
            yield from subnets


def _ip_elements(xml: str) -> t.Iterator[ipaddress.IPv4Interface | ipaddress.IPv6Interface]:
    """Every ``<ip address=... prefix|netmask=...>`` of a network's or a host interface's XML."""
    for element in ET.fromstring(xml).iter("ip"):
        address = element.get("address")
        if not address:
            continue
        prefix = element.get("prefix") or element.get("netmask")
        try:
            if prefix:
                yield ipaddress.ip_interface(f"{address}/{prefix}")
            else:
                ip = ipaddress.ip_address(address)
                yield ipaddress.ip_interface(f"{ip}/{ip.max_prefixlen}")
        except ValueError:
            continue


def host_addresses(conn: libvirt.virConnect) -> HostAddresses:
    """The hypervisor's networks and own addresses, as far as libvirt tells them (a read-only
    connection is enough). What libvirt cannot list is left out: the filter then knows less,
    and with the strict agent rule fewer agent addresses pass, never more."""
    subnets: dict[str, tuple[IPNetwork, ...]] = {}
    own: set[IPAddress] = set()
    try:
        networks = conn.listAllNetworks(0)
    except libvirt.libvirtError:
        networks = []
    for network in networks:
        try:
            name, xml = network.name(), network.XMLDesc(0)
            found = list(_ip_elements(xml))
        except (libvirt.libvirtError, ET.ParseError):
            continue
        subnets[name] = tuple(item.network for item in found)
        own.update(item.ip for item in found)
    try:
        interfaces = conn.listAllInterfaces(0)
    except libvirt.libvirtError:
        interfaces = []  # no interface driver (netcf/udev): the networks' addresses still count
    for interface in interfaces:
        try:
            own.update(item.ip for item in _ip_elements(interface.XMLDesc(0)))
        except (libvirt.libvirtError, ET.ParseError):
            continue
    return HostAddresses(subnets, frozenset(own))


def domain_attachments(root: ET.Element) -> dict[str, str | None]:
    """The libvirt network of each interface of a domain's XML, by MAC address (lower case);
    None for an interface that is not on a libvirt network (a bridge, direct, user...)."""
    attached: dict[str, str | None] = {}
    for interface in root.findall("devices/interface"):
        mac = (interface.find("mac").get("address") if interface.find("mac") is not None else None) or ""  # type: ignore[union-attr]
        if not mac:
            continue
        source = interface.find("source")
        network = source.get("network") if interface.get("type") == "network" and source is not None else None
        attached[mac.lower()] = network or None
    return attached


def address_problem(
    addr: str,
    prefix: t.Any = None,
    *,
    host: HostAddresses | None = None,
    subnets: t.Sequence[IPNetwork] | None = None,
) -> str | None:
    """Why ``addr`` (with the prefix length it was reported with) is no address to reach a guest
    at, or None when it is one. ``subnets`` not None: the address must lie in one of them."""
    try:
        ip = ipaddress.ip_address(addr)
    except (ValueError, TypeError):
        return "not an IP address"
    judged = unmapped(ip)  # ::ffff:127.0.0.1 is loopback
    if judged.is_unspecified or judged in _THIS_NETWORK:
        return "unspecified"
    if judged.is_loopback:
        return "loopback"
    if judged.is_link_local:
        return "link-local"
    if judged.is_multicast:
        return "multicast"
    if judged == _LIMITED_BROADCAST:
        return "broadcast"
    if judged.is_reserved:
        return "reserved"
    own = host.own if host is not None else frozenset()
    if judged in own or ip in own:
        return "an address of the hypervisor itself"
    networks: list[IPNetwork] = list(host.all_subnets()) if host is not None else []
    if isinstance(prefix, int) and not isinstance(prefix, bool) and 0 <= prefix <= judged.max_prefixlen:
        networks.append(ipaddress.ip_interface(f"{judged}/{prefix}").network)
    for network in networks:
        if judged.version == 4 and network.version == 4 and network.prefixlen <= 30 and judged in network:
            if judged == network.broadcast_address:
                return "the broadcast address of its subnet"
            if judged == network.network_address:
                return "the network address of its subnet"
    if subnets is not None and not any(judged.version == net.version and judged in net for net in subnets):
        return "outside the subnets of the libvirt networks the interface is attached to"
    return None


def _first_usable(
    interfaces: list[dict[str, t.Any]], *, host: HostAddresses, subnets_of: t.Callable[[dict[str, t.Any]], t.Sequence[IPNetwork] | None]
) -> str | None:
    """The first usable IPv4 address, in the order libvirt lists the interfaces, else the first
    usable IPv6 address."""
    usable: list[IPAddress] = []
    for iface in interfaces:
        subnets = subnets_of(iface)
        for item in iface.get("addrs") or []:
            addr = item.get("addr")
            if address_problem(addr, item.get("prefix"), host=host, subnets=subnets) is None:
                usable.append(ipaddress.ip_address(addr))
    for version in (4, 6):
        for ip in usable:
            if ip.version == version:
                return str(ip)
    return None


def choose_address(
    interfaces: list[dict[str, t.Any]],
    *,
    origin: str,
    host: HostAddresses,
    attachments: dict[str, str | None],
    agent_addresses: str = "attached_networks",
) -> str | None:
    """The address to reach the guest at, from the ``interfaces`` one source (``origin``:
    ``lease`` or ``agent``) reported, or None."""
    if agent_addresses not in AGENT_ADDRESS_RULES:
        raise ValueError(f"agent_addresses: must be one of {', '.join(AGENT_ADDRESS_RULES)}, got {agent_addresses!r}")

    def subnets_of(iface: dict[str, t.Any]) -> t.Sequence[IPNetwork] | None:
        if origin != "agent" or agent_addresses == "any":
            return None
        network = attachments.get(str(iface.get("hwaddr") or "").lower())
        # Not on a libvirt network (a bridge, macvtap...), or on one without an <ip>: no subnet
        # to check the guest's word against, so none of its addresses is taken.
        return host.subnets.get(network, ()) if network else ()

    return _first_usable(interfaces, host=host, subnets_of=subnets_of)
