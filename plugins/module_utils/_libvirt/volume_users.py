# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The domains of the host that use a storage volume, read from their XML: a running one's
live definition (what QEMU has open), a stopped one's persistent definition.

A volume that is a disk of a running domain is grown through that domain
(virDomainBlockResize): QEMU holds the image's write lock, so libvirt's resize of the volume
(qemu-img resize) fails, and only QEMU can tell the guest that its disk grew. A volume that is
a writable disk of any domain holds what its guest wrote: it is not compared with the content
it was made from (volume.py)."""

from __future__ import annotations

import contextlib
import dataclasses
import typing as t

from . import schema
from .connection import libvirt
from .errors import LibvirtError, is_not_found

__all__ = ["DiskUse", "VolumeRef", "disk_uses", "grow_method", "volume_users"]

_LIST_ACTIVE = 1  # VIR_CONNECT_LIST_DOMAINS_ACTIVE
_XML_INACTIVE = 2  # VIR_DOMAIN_XML_INACTIVE


@dataclasses.dataclass(frozen=True)
class VolumeRef:
    """How a disk can name the volume: its file (``source file=`` or ``dev=``), or its pool and name."""

    path: str | None
    pool: str
    name: str


@dataclasses.dataclass(frozen=True)
class DiskUse:
    """One disk of a domain on the volume: ``backing`` when the volume is only in the disk's
    backing chain (QEMU reads it, never writes it)."""

    domain: str
    target: str
    running: bool
    writable: bool
    backing: bool = False

    @property
    def shown(self) -> str:
        what = "a backing file of disk" if self.backing else "disk"
        return f"{what} {self.target} of {'running ' if self.running else ''}domain '{self.domain}'"


def _names(source: t.Any, ref: VolumeRef) -> bool:
    if source is None:
        return False
    if ref.path and ref.path in (source.get("file"), source.get("dev")):
        return True
    return (source.get("pool"), source.get("volume")) == (ref.pool, ref.name)


def disk_uses(domain: str, xml: str, ref: VolumeRef, *, running: bool) -> list[DiskUse]:
    """The disks of the domain XML ``xml`` that are on the volume, or have it in their backing
    chain (the chain a running domain's live XML lists)."""
    uses = []
    for disk in schema.parse(xml).iterfind("devices/disk"):
        target = disk.find("target")
        name = target.get("dev", "?") if target is not None else "?"
        if _names(disk.find("source"), ref):
            writable = disk.get("device", "disk") in ("disk", "lun") and disk.find("readonly") is None
            uses.append(DiskUse(domain, name, running, writable))
        elif any(_names(store.find("source"), ref) for store in disk.iterfind(".//backingStore")):
            uses.append(DiskUse(domain, name, running, writable=False, backing=True))
    return uses


def volume_users(conn: t.Any, ref: VolumeRef, *, running_only: bool) -> list[DiskUse]:
    """The disks of the host's domains on the volume (of the running ones only, with
    ``running_only``). A domain that goes away while it is read is left out."""
    try:
        domains = conn.listAllDomains(_LIST_ACTIVE if running_only else 0)
    except libvirt.libvirtError as exc:
        raise LibvirtError(f"Failed to list the domains that may use volume '{ref.name}': {exc}") from exc
    uses: list[DiskUse] = []
    for domain in domains:
        try:
            running = bool(domain.isActive())
            xml = domain.XMLDesc(0 if running else _XML_INACTIVE)
            uses.extend(disk_uses(domain.name(), xml, ref, running=running))
        except libvirt.libvirtError as exc:
            if not is_not_found(exc):
                raise LibvirtError(f"Failed to read domain '{_name_of(domain)}' that may use volume '{ref.name}': {exc}") from exc
    return uses


def _name_of(domain: t.Any) -> str:
    with contextlib.suppress(libvirt.libvirtError):
        return str(domain.name())
    return "?"


def grow_method(uses: list[DiskUse], where: str) -> tuple[str, DiskUse | None]:
    """How to grow a volume with these disks of running domains on it: ``resize`` (libvirt
    resizes the volume, nobody has it open) or ``block_resize`` through the one domain whose
    disk it is. Refused, naming them, when two running domains have it open, or when it is
    the backing file of a running domain's disk (QEMU holds it; a base does not grow)."""
    running = [use for use in uses if use.running]
    backing = [use for use in running if use.backing]
    if backing:
        raise LibvirtError(
            f"capacity: {where} is {', '.join(use.shown for use in backing)}: a base image cannot grow while a guest "
            "reads it through an overlay; grow the overlay instead"
        )
    if len(running) > 1:
        raise LibvirtError(
            f"capacity: {where} is {' and '.join(use.shown for use in running)}: a disk two running guests share cannot "
            "grow under them; stop all but one of them first"
        )
    if running:
        return "block_resize", running[0]
    return "resize", None
