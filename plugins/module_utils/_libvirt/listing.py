# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The listing info modules: every domain, network, pool or volume of a host (or those a
filter names), each with the facts a listing needs and, under ``options``, the options of
its resource module that describe it as it is, read by the same schema the module
compares with. Fed back to the module, those options change nothing.

Each kind's resource module is imported by the functions that list that kind: an info
module compiles (AnsiballZ ships sources) only the code of what it lists."""

from __future__ import annotations

import fnmatch
import typing as t

from . import schema
from .connection import libvirt
from .data_sources import DataSourceResult
from .errors import LibvirtError, is_not_found
from .info_module import XML_INACTIVE_OPTIONS, XML_OPTIONS, check_xml_options, object_xml
from .resource import definition_xml
from .text import check_one_line

__all__ = [
    "DOMAIN_INFO_ARGSPEC",
    "DOMAIN_STATES",
    "NETWORK_INFO_ARGSPEC",
    "NETWORK_STATES",
    "POOL_INFO_ARGSPEC",
    "POOL_STATES",
    "VOLUME_INFO_ARGSPEC",
    "NameStateFilter",
    "list_domains",
    "list_networks",
    "list_pools",
    "list_volumes",
]

DOMAIN_STATES = ("running", "blocked", "paused", "shutdown", "shutoff", "crashed", "pmsuspended", "nostate")
NETWORK_STATES = ("active", "inactive")
# virStoragePoolState, by value.
POOL_STATES = ("inactive", "building", "running", "degraded", "inaccessible")
# virStorageVolType, by value.
_VOLUME_TYPES = ("file", "block", "dir", "network", "netdir", "ploop")

_NAMES = {"type": "list", "elements": "str"}


def _states(choices: t.Sequence[str]) -> dict[str, t.Any]:
    return {"type": "list", "elements": "str", "choices": sorted({*choices, "active", "inactive"})}


DOMAIN_INFO_ARGSPEC: dict[str, dict[str, t.Any]] = {"name": _NAMES, "state": _states(DOMAIN_STATES), **XML_INACTIVE_OPTIONS}
NETWORK_INFO_ARGSPEC: dict[str, dict[str, t.Any]] = {"name": _NAMES, "state": _states(NETWORK_STATES), **XML_INACTIVE_OPTIONS}
POOL_INFO_ARGSPEC: dict[str, dict[str, t.Any]] = {"name": _NAMES, "state": _states(POOL_STATES), **XML_OPTIONS}
VOLUME_INFO_ARGSPEC: dict[str, dict[str, t.Any]] = {"name": _NAMES, "pool": _NAMES, **XML_OPTIONS}


class NameStateFilter:
    """Names (exact, or shell-style patterns such as ``ws-*``) and states an object must match."""

    def __init__(self, option: str, names: list[str] | None, states: list[str] | None = None) -> None:
        for index, name in enumerate(names or []):
            check_one_line(f"{option}[{index}]", name)
        self.names = names
        self.states = set(states or [])

    def exact(self) -> list[str]:
        """The names given without pattern characters."""
        return [name for name in self.names or [] if not any(char in name for char in "*?[")]

    def name(self, name: str) -> bool:
        return self.names is None or any(name == pattern or fnmatch.fnmatchcase(name, pattern) for pattern in self.names)

    def state(self, state: str, active: bool) -> bool:
        if not self.states:
            return True
        return state in self.states or ("active" if active else "inactive") in self.states


def _options(struct: str, argspec: dict[str, t.Any], obj: t.Any, inactive_flag: int) -> dict[str, t.Any]:
    """The object's persistent definition as the options its module takes (what libvirt
    computes, such as sizes and ids, left out)."""
    described = schema.read(struct, schema.parse(definition_xml(obj, inactive_flag)))
    return {key: value for key, value in described.items() if key in argspec}


def _defined(obj: t.Any, struct: str, argspec: dict[str, t.Any], inactive_flag: int) -> tuple[dict[str, bool], dict[str, t.Any]]:
    """The lifecycle facts every listed object has (active, persistent, autostart), and its
    definition as its module's options, with name, running and autostart."""
    active = bool(obj.isActive())
    persistent = bool(obj.isPersistent())
    autostart = bool(obj.autostart()) if persistent else False
    options = _options(struct, argspec, obj, inactive_flag)
    options.update(name=obj.name(), running=active, autostart=autostart)
    return {"active": active, "persistent": persistent, "autostart": autostart}, options


Describe = t.Callable[[t.Any], dict[str, t.Any]]


def _with_xml(describe: Describe, params: dict[str, t.Any], inactive_flag: int | None = None) -> Describe:
    """``describe`` adding the object's XML (masked) under ``xml`` when the task asks for it:
    the persistent definition with ``inactive`` (``inactive_flag``), else the live one."""
    check_xml_options(params)
    if not params.get("xml"):
        return describe
    flag = inactive_flag if params.get("inactive") else None

    def described(obj: t.Any) -> dict[str, t.Any]:
        return {**describe(obj), "xml": object_xml(obj, flag)}

    return described


def _gone(exc: libvirt.libvirtError) -> bool:
    """An object that went away between the listing and the read is left out, not an error."""
    return is_not_found(exc)


def _each(
    noun: str,
    list_all: t.Callable[[int], list[t.Any]],
    wanted: NameStateFilter,
    state_of: t.Callable[[t.Any], str],
    describe: t.Callable[[t.Any], dict[str, t.Any]],
) -> list[dict[str, t.Any]]:
    """The objects ``wanted`` lets through, described and sorted by name."""
    try:
        objects = list_all(0)
    except libvirt.libvirtError as exc:
        raise LibvirtError(f"Failed to list {noun}s: {exc}") from exc
    found = []
    for obj in objects:
        try:
            if wanted.name(obj.name()) and wanted.state(state_of(obj), bool(obj.isActive())):
                found.append(describe(obj))
        except libvirt.libvirtError as exc:
            if not _gone(exc):
                raise LibvirtError(f"Failed to read {noun} '{obj.name()}': {exc}") from exc
    return sorted(found, key=lambda item: item["name"])


# --- domains -------------------------------------------------------------------------


def _domain(dom: t.Any) -> dict[str, t.Any]:
    from . import domain  # noqa: PLC0415  # see the module's docstring
    from .snapshot import domain_state_name, list_snapshots  # noqa: PLC0415

    lifecycle, options = _defined(dom, domain.STRUCT, domain.DOMAIN_ARGSPEC, libvirt.VIR_DOMAIN_XML_INACTIVE)
    options["uuid"] = dom.UUIDString()
    snapshots = list_snapshots(dom)
    return {
        "name": dom.name(),
        "uuid": dom.UUIDString(),
        "id": dom.ID() if lifecycle["active"] else None,
        "state": domain_state_name(dom),
        **lifecycle,
        "current_snapshot": next((snap["name"] for snap in snapshots if snap["current"]), None),
        "snapshots": snapshots,
        "options": options,
    }


def list_domains(conn: t.Any, params: dict[str, t.Any]) -> DataSourceResult:
    from .snapshot import domain_state_name  # noqa: PLC0415

    wanted = NameStateFilter("name", params.get("name"), params.get("state"))
    describe = _with_xml(_domain, params, libvirt.VIR_DOMAIN_XML_INACTIVE)
    return DataSourceResult({"domains": _each("domain", conn.listAllDomains, wanted, domain_state_name, describe)})


# --- networks ------------------------------------------------------------------------


def _network(net: t.Any) -> dict[str, t.Any]:
    from . import network  # noqa: PLC0415

    lifecycle, options = _defined(net, network.STRUCT, network.NETWORK_ARGSPEC, libvirt.VIR_NETWORK_XML_INACTIVE)
    return {
        "name": net.name(),
        "uuid": net.UUIDString(),
        "state": "active" if lifecycle["active"] else "inactive",
        **lifecycle,
        "bridge": (options.get("bridge") or {}).get("name"),
        "options": options,
    }


def list_networks(conn: t.Any, params: dict[str, t.Any]) -> DataSourceResult:
    wanted = NameStateFilter("name", params.get("name"), params.get("state"))
    describe = _with_xml(_network, params, libvirt.VIR_NETWORK_XML_INACTIVE)
    return DataSourceResult({"networks": _each("network", conn.listAllNetworks, wanted, lambda net: "active" if net.isActive() else "inactive", describe)})


# --- pools ---------------------------------------------------------------------------


def _pool_state(info: list[int]) -> str:
    return POOL_STATES[info[0]] if 0 <= info[0] < len(POOL_STATES) else "inaccessible"


def _pool(obj: t.Any) -> dict[str, t.Any]:
    from . import pool  # noqa: PLC0415

    info = obj.info()  # state, capacity, allocation, available (bytes)
    lifecycle, options = _defined(obj, pool.STRUCT, pool.POOL_ARGSPEC, libvirt.VIR_STORAGE_XML_INACTIVE)
    return {
        "name": obj.name(),
        "uuid": obj.UUIDString(),
        "type": options.get("type"),
        "state": _pool_state(info),
        **lifecycle,
        "path": (options.get("target") or {}).get("path"),
        "capacity": int(info[1]),
        "allocation": int(info[2]),
        "available": int(info[3]),
        "volume_count": obj.numOfVolumes() if lifecycle["active"] else None,
        "options": options,
    }


def list_pools(conn: t.Any, params: dict[str, t.Any]) -> DataSourceResult:
    wanted = NameStateFilter("name", params.get("name"), params.get("state"))
    describe = _with_xml(_pool, params)
    return DataSourceResult({"pools": _each("storage pool", conn.listAllStoragePools, wanted, lambda obj: _pool_state(obj.info()), describe)})


# --- volumes -------------------------------------------------------------------------


def _volume(vol: t.Any, pool_name: str) -> dict[str, t.Any]:
    from . import volume  # noqa: PLC0415

    described = volume.describe_volume(vol, pool_name)  # the file's times apart from the options
    info = vol.info()  # type, capacity, allocation (bytes)
    options = {key: value for key, value in described.items() if key in volume.VOLUME_ARGSPEC}
    # The capacity in bytes, as libvirt reports it: what the module compares it with.
    options.update(name=vol.name(), pool=pool_name, capacity=int(info[1]), capacity_unit="bytes")
    target = described.get("target") or {}
    return {
        "name": vol.name(),
        "pool": pool_name,
        "key": vol.key(),
        "path": vol.path(),
        "type": _VOLUME_TYPES[info[0]] if 0 <= info[0] < len(_VOLUME_TYPES) else None,
        "format": (target.get("format") or {}).get("type"),
        "capacity": int(info[1]),
        "allocation": int(info[2]),
        "backing_store": (described.get("backing_store") or {}).get("path"),
        "options": options,
    }


def list_volumes(conn: t.Any, params: dict[str, t.Any]) -> DataSourceResult:
    pools_wanted = NameStateFilter("pool", params.get("pool"))
    wanted = NameStateFilter("name", params.get("name"))
    with_xml = _with_xml(lambda vol: {}, params)
    warnings = []
    found = []
    try:
        pools = conn.listAllStoragePools(0)
    except libvirt.libvirtError as exc:
        raise LibvirtError(f"Failed to list storage pools: {exc}") from exc
    for obj in pools:
        pool_name = obj.name()
        if not pools_wanted.name(pool_name):
            continue
        try:
            if not obj.isActive():
                # libvirt lists the volumes of an active pool only.
                if pool_name in pools_wanted.exact():
                    warnings.append(f"storage pool '{pool_name}' is not active: its volumes cannot be listed")
                continue
            for vol in obj.listAllVolumes(0):
                try:
                    if wanted.name(vol.name()):
                        found.append({**_volume(vol, pool_name), **with_xml(vol)})
                except libvirt.libvirtError as exc:
                    if not _gone(exc):
                        raise LibvirtError(f"Failed to read volume '{vol.name()}' of storage pool '{pool_name}': {exc}") from exc
        except libvirt.libvirtError as exc:
            if not _gone(exc):
                raise LibvirtError(f"Failed to list the volumes of storage pool '{pool_name}': {exc}") from exc
    return DataSourceResult({"volumes": sorted(found, key=lambda item: (item["pool"], item["name"]))}, warnings)
