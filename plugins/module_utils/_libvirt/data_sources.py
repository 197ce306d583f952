# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The four data sources of terraform-provider-libvirt, shared by the lookups and the
``*_info`` modules: same fields, same ids, same error texts as upstream."""

from __future__ import annotations

import dataclasses
import typing as t
import xml.etree.ElementTree as ET  # stdlib is enough here and keeps the info modules light

from .._common.text import printable
from .connection import libvirt
from .domain_lookup import AmbiguousDomainError, DomainNotFoundError, find_domain
from .errors import LibvirtError, LibvirtNotFoundError, LibvirtValidationError, is_not_found
from .ids import go_hash_string

__all__ = [
    "ADDRESS_SOURCES",
    "NODE_DEVICE_CAPABILITY_KEYS",
    "DataSourceResult",
    "domain_interface_addresses",
    "lookup_domain",
    "node_device_info",
    "node_devices",
    "node_info",
    "node_memory_total_kb",
    "parse_node_device_xml",
]


@dataclasses.dataclass
class DataSourceResult:
    values: dict[str, t.Any]
    warnings: list[str] = dataclasses.field(default_factory=list)


# --- libvirt_node_info -----------------------------------------------------------------


def node_memory_total_kb(conn: libvirt.virConnect, info: list[t.Any]) -> int:
    """The node memory in KiB exactly as virNodeGetInfo reports it (what upstream reads
    over RPC). libvirt-python's getInfo() only gives MiB, so rebuild the KiB value from
    the per-NUMA-cell totals virNodeGetInfo sums up (falling back to the whole-host
    total, then to MiB * 1024), keeping only a figure that agrees with the MiB value."""
    mib, cells = int(info[1]), int(info[4])
    candidates: list[t.Callable[[], int]] = [
        lambda: sum(conn.getMemoryStats(cell)["total"] for cell in range(cells)),
        lambda: conn.getMemoryStats(libvirt.VIR_NODE_MEMORY_STATS_ALL_CELLS)["total"],
    ]
    for candidate in candidates:
        try:
            kib = int(candidate())
        except (libvirt.libvirtError, KeyError):
            continue
        if kib >> 10 == mib:
            return kib
    return mib * 1024


def node_info(conn: libvirt.virConnect) -> DataSourceResult:
    try:
        for _attempt in range(3):
            info = conn.getInfo()
            memory_kb = node_memory_total_kb(conn, info)
            # Node memory can grow between the two calls on lazily initialised VMs; the
            # KiB figure is exact only when getInfo() still agrees with it afterwards.
            if conn.getInfo()[1] == info[1]:
                break
    except libvirt.libvirtError as exc:
        raise LibvirtError(f"Failed to get node information: Unable to retrieve host node information: {exc}") from exc
    model, _mib, cpus, _mhz, nodes, sockets, cores, threads = info
    values = {
        "cpu_model": model,
        "memory_total_kb": memory_kb,
        "cpu_cores_total": cpus,
        "numa_nodes": nodes,
        "cpu_sockets": sockets,
        "cpu_cores_per_socket": cores,
        "cpu_threads_per_core": threads,
    }
    values["id"] = str(go_hash_string(f"{model}-{memory_kb}-{cpus}-{nodes}-{sockets}-{cores}-{threads}"))
    return DataSourceResult(values)


# --- libvirt_node_devices --------------------------------------------------------------


def node_devices(conn: libvirt.virConnect, capability: str | None) -> DataSourceResult:
    # Count first, as upstream does, so a rejected capability fails with upstream's message.
    try:
        conn.numOfDevices(capability, 0)
    except libvirt.libvirtError as exc:
        raise LibvirtError(f"Failed to get device count: Unable to retrieve number of devices: {exc}") from exc
    try:
        names = conn.listDevices(capability, 0)
    except libvirt.libvirtError as exc:
        raise LibvirtError(f"Failed to list devices: Unable to list devices: {exc}") from exc
    devices = sorted(names)
    return DataSourceResult(
        {
            "id": str(go_hash_string(f"{capability or 'all'}-{len(devices)}")),
            "capability": capability,
            "devices": devices,
        }
    )


# --- libvirt_node_device_info ----------------------------------------------------------

# Every key of upstream's capability object; all null unless the device type sets them.
NODE_DEVICE_CAPABILITY_KEYS: tuple[str, ...] = (
    "type", "domain", "bus", "slot", "function", "class", "product_id", "product_name",
    "vendor_id", "vendor_name", "iommu_group", "device_number", "interface", "address",
    "link_speed", "link_state", "block", "drive_type", "model", "serial", "size",
    "logical_block_size", "num_blocks", "host", "target", "lun", "scsi_type",
    # Not upstream: upstream puts the storage bus name (a string) into the numeric `bus`,
    # which fails; it is returned here under its own key instead.
    "storage_bus",
)  # fmt: skip


def _text(parent: ET.Element, tag: str) -> str:
    return (parent.findtext(tag) or "").strip()


def _int(parent: ET.Element, tag: str, *, required: bool = False) -> int | None:
    """An integer child element; absent = None (or 0 where libvirtxml's field is not a pointer)."""
    text = _text(parent, tag)
    if not text:
        return 0 if required else None
    try:
        return int(text, 0) if text.lower().startswith("0x") else int(text)
    except ValueError:
        raise ValueError(f"<{tag}> is not an integer: {text!r}") from None


def _id_and_name(parent: ET.Element, tag: str) -> tuple[str | None, str | None]:
    elem = parent.find(tag)
    if elem is None:
        return None, None
    return elem.get("id") or None, (elem.text or "").strip() or None


def _capability_values(cap: ET.Element | None) -> dict[str, t.Any]:
    values: dict[str, t.Any] = dict.fromkeys(NODE_DEVICE_CAPABILITY_KEYS)
    kind = cap.get("type") if cap is not None else None
    if cap is None or kind is None:
        values["type"] = "unknown"
        return values
    if kind == "pci":
        values.update(
            type="pci",
            domain=_int(cap, "domain"),
            bus=_int(cap, "bus"),
            slot=_int(cap, "slot"),
            function=_int(cap, "function"),
            **{"class": _text(cap, "class") or None},
        )
        values["product_id"], values["product_name"] = _id_and_name(cap, "product")
        values["vendor_id"], values["vendor_name"] = _id_and_name(cap, "vendor")
        group = cap.find("iommuGroup")
        if group is not None:
            values["iommu_group"] = int(group.get("number", "0"))
    elif kind == "usb_device":
        values.update(type="usb_device", bus=_int(cap, "bus", required=True), device_number=_int(cap, "device", required=True))
        values["product_id"], values["product_name"] = _id_and_name(cap, "product")
        values["vendor_id"], values["vendor_name"] = _id_and_name(cap, "vendor")
    elif kind == "net":
        values.update(type="net", interface=_text(cap, "interface") or None, address=_text(cap, "address") or None)
        link = cap.find("link")
        if link is not None:
            values.update(link_speed=link.get("speed") or None, link_state=link.get("state") or None)
    elif kind == "storage":
        values.update(
            type="storage",
            block=_text(cap, "block") or None,
            storage_bus=_text(cap, "bus") or None,
            drive_type=_text(cap, "drive_type") or None,
            model=_text(cap, "model") or None,
            vendor_name=_text(cap, "vendor") or None,
            serial=_text(cap, "serial") or None,
            size=_int(cap, "size"),
            logical_block_size=_int(cap, "logical_block_size"),
            num_blocks=_int(cap, "num_blocks"),
        )
    elif kind == "scsi":
        values.update(
            type="scsi",
            host=_int(cap, "host", required=True),
            bus=_int(cap, "bus", required=True),
            target=_int(cap, "target", required=True),
            lun=_int(cap, "lun", required=True),
            scsi_type=_text(cap, "type") or None,
        )
    elif kind == "scsi_host":
        values.update(type="scsi_host", host=_int(cap, "host", required=True))
    elif kind in ("system", "usb", "drm"):
        values["type"] = kind
    else:
        values["type"] = "unknown"
    return values


def parse_node_device_xml(name: str, xml: str) -> dict[str, t.Any]:
    """Upstream's fields from a node device XML (its first capability only, as libvirtxml reads it)."""
    try:
        root = ET.fromstring(xml)
        capability = _capability_values(root.find("capability"))
    except (ET.ParseError, ValueError) as exc:
        raise LibvirtError(f"Failed to parse device XML: Unable to parse device XML for {name}: {exc}") from exc
    return {
        "id": name,
        "name": name,
        "path": _text(root, "path"),
        "parent": _text(root, "parent"),
        "capability": capability,
    }


def node_device_info(conn: libvirt.virConnect, name: str) -> DataSourceResult:
    if not name:
        raise LibvirtValidationError("name: must not be empty")
    try:
        xml = conn.nodeDeviceLookupByName(name).XMLDesc(0)
    except libvirt.libvirtError as exc:
        error = LibvirtNotFoundError if is_not_found(exc) else LibvirtError
        raise error(f"Failed to get device information: Unable to retrieve device {name}: {exc}") from exc
    return DataSourceResult(parse_node_device_xml(name, xml))


# --- libvirt_domain_interface_addresses ------------------------------------------------

ADDRESS_SOURCES = ("lease", "agent", "any")


def lookup_domain(conn: libvirt.virConnect, name_or_uuid: str) -> libvirt.virDomain:
    """A domain by UUID first, then by name, as upstream looks it up; a value that is one
    domain's UUID and another's name is refused (domain_lookup says why)."""
    try:
        return find_domain(conn, name_or_uuid)
    except AmbiguousDomainError as exc:
        raise LibvirtValidationError(f"domain '{printable(name_or_uuid)}' {exc}: give that domain's name, or the other's UUID, instead") from None
    except DomainNotFoundError as exc:
        raise LibvirtNotFoundError(
            f"Domain Not Found: Unable to find domain '{name_or_uuid}': domain not found by UUID or name '{name_or_uuid}': {exc.libvirt_error}"
        ) from exc.libvirt_error
    except libvirt.libvirtError as exc:
        raise LibvirtError(f"Domain Not Found: Unable to find domain '{name_or_uuid}': {exc}") from exc


def _address_sources(source: str) -> list[int]:
    lease = libvirt.VIR_DOMAIN_INTERFACE_ADDRESSES_SRC_LEASE
    agent = libvirt.VIR_DOMAIN_INTERFACE_ADDRESSES_SRC_AGENT
    return {"lease": [lease], "agent": [agent], "any": [lease, agent]}[source]


def interface_addresses(dom: libvirt.virDomain, source: str) -> tuple[list[dict[str, t.Any]], libvirt.libvirtError | None]:
    """The domain's interfaces with their addresses from DHCP leases and/or the guest agent
    ("any" tries the lease first and keeps the first non-empty answer), and the last error
    a source gave."""
    found: dict[str, t.Any] = {}
    last_error: libvirt.libvirtError | None = None
    for src in _address_sources(source):
        try:
            found = dom.interfaceAddresses(src, 0) or {}
        except libvirt.libvirtError as exc:
            last_error = exc
            continue
        if found:
            break
    interfaces = [
        {
            "name": ifname,
            "hwaddr": iface.get("hwaddr") or None,
            "addrs": [
                {
                    "type": "ipv6" if addr["type"] == libvirt.VIR_IP_ADDR_TYPE_IPV6 else "ipv4",
                    "addr": addr["addr"],
                    "prefix": addr["prefix"],
                }
                for addr in iface.get("addrs") or []
            ],
        }
        for ifname, iface in found.items()
    ]
    return interfaces, last_error


def domain_interface_addresses(conn: libvirt.virConnect, domain: str, source: str = "any") -> DataSourceResult:
    """Addresses from DHCP leases and/or the guest agent. Failing sources give a warning,
    not an error."""
    if not domain:
        raise LibvirtValidationError("domain: must not be empty")
    if source not in ADDRESS_SOURCES:
        raise LibvirtValidationError(f"source: must be one of {', '.join(ADDRESS_SOURCES)}, got {source!r}")
    dom = lookup_domain(conn, domain)
    interfaces, last_error = interface_addresses(dom, source)
    warnings = []
    if not interfaces and last_error is not None:
        warnings.append(
            f"No Interface Addresses Found: Unable to retrieve interface addresses for domain '{domain}': {last_error}. "
            "This may be normal if the domain has not obtained an IP address yet, DHCP is not configured "
            "(for source='lease'), or the QEMU guest agent is not running (for source='agent')."
        )
    return DataSourceResult(
        {"id": dom.UUIDString(), "domain": domain, "source": source, "interfaces": interfaces},
        warnings,
    )
