# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""A domain's disks and the storage volumes they are on.

A disk on a volume (``source.volume``, or a ``source.file``/``source.block`` path that is a
volume of an active pool) without ``driver.type`` is written with the volume's format as
libvirt reports it. Without it libvirt leaves the format to the hypervisor, and QEMU opens
a qcow2 volume as raw: the guest sees the qcow2 metadata and writes over it
(terraform-provider-libvirt 0.9 writes no driver type). A ``driver.type`` that contradicts the
volume's format is refused before anything is defined. What libvirt cannot tell (an inactive
pool, a missing volume, a format that says nothing of the content) leaves the disk as given:
libvirt reports its own errors."""

from __future__ import annotations

import dataclasses
import posixpath
import typing as t

from .._common.plan import not_there_yet
from . import schema
from .connection import libvirt
from .errors import LibvirtValidationError

__all__ = ["DRIVER_TYPES", "Volume", "settle_disks", "settle_driver_type"]

# The volume formats libvirt reports for content it knows (a file pool probes each file's
# header; a volume it created has the format it was asked for) and the driver types that
# read that content; the first is the one written. An ISO image is read as raw bytes
# (virt-install writes raw for it too); a raw volume is read as nothing else. Formats not listed say
# nothing of how to open the content (a disk pool's partition types, "none", "dir", "fat",
# "luks", which needs an <encryption> element): the disk stays as given.
DRIVER_TYPES: dict[str, tuple[str, ...]] = {
    "raw": ("raw",),
    "iso": ("raw", "iso"),
    **{fmt: (fmt,) for fmt in ("qcow2", "qcow", "qed", "vmdk", "vdi", "vpc", "vhdx", "bochs", "cloop", "dmg", "ploop")},
}


@dataclasses.dataclass(frozen=True)
class Volume:
    """What libvirt reports of the volume a disk is on."""

    name: str  # how messages name it: pool/volume
    path: str | None
    format: str | None  # target/format/@type
    backing: str | None  # backingStore/path, absolute


def settle_driver_type(disk: dict[str, t.Any], volume: Volume, *, where: str) -> bool:
    """Write the volume's format into ``disk`` (its options) when it has no ``driver.type``;
    refuse one that contradicts the format. True when ``disk`` was changed."""
    readers = DRIVER_TYPES.get(volume.format or "")
    if readers is None:
        return False
    driver = disk.get("driver") or {}
    given = driver.get("type")
    if given is None:
        disk["driver"] = {**driver, "type": readers[0]}
        return True
    if given not in readers:
        raise LibvirtValidationError(
            f"{where}.driver.type: {given!r} contradicts the format of volume {volume.name}, which libvirt reports as {volume.format!r}; "
            f"write {readers[0]!r} or leave driver.type out (it is then the volume's format)"
        )
    return False


def settle_disks(conn: t.Any, desired: dict[str, t.Any], *, check_mode: bool = False) -> tuple[bool, list[str]]:
    """Settle the driver type of every disk of ``desired`` (options, changed in place) that is
    on a volume, before anything is defined. Returns whether a disk changed, and warnings:
    a volume whose backing file lies outside every pool of the host, and in a check run a
    volume that is not there yet (an earlier task of the run would make it): its format, and
    so the driver type the real run writes, is known only then."""
    changed = False
    warnings: list[str] = []
    pool_paths: list[str] | None = None
    for index, disk in enumerate((desired.get("devices") or {}).get("disks") or []):
        volume = _volume_of(conn, disk or {})
        where = f"devices.disks[{index}]"
        if volume is None:
            missing = _missing_volume(conn, disk or {}) if check_mode and not ((disk or {}).get("driver") or {}).get("type") else None
            if missing is not None:
                warnings.append(
                    not_there_yet(
                        f"{where}: volume {missing} is not there, so the driver type its format gives is not planned; "
                        "the real run writes it (give driver.type to plan it)"
                    )
                )
            continue
        changed = settle_driver_type(disk, volume, where=where) or changed
        if volume.backing is not None:
            if pool_paths is None:
                pool_paths = _target_paths(conn)
            if pool_paths and not any(_inside(volume.backing, path) for path in pool_paths):
                warnings.append(
                    f"{where}: volume {volume.name} has its backing file at {volume.backing}, outside the target path of every storage pool "
                    "of the host; libvirt does not manage that file (nothing removes or refreshes it with a pool, and QEMU may be denied access to it)"
                )
    return changed, warnings


def _volume_of(conn: t.Any, disk: dict[str, t.Any]) -> Volume | None:
    """The volume the disk's source names or is the path of, or None when libvirt does not
    know one (no such pool or volume, an inactive pool, a path outside every active pool)."""
    source = disk.get("source") or {}
    by_name = source.get("volume") or {}
    path = (source.get("file") or {}).get("file") or (source.get("block") or {}).get("dev")
    try:
        if by_name.get("pool") and by_name.get("volume"):
            pool = conn.storagePoolLookupByName(by_name["pool"])
            if not pool.isActive():
                return None
            vol = pool.storageVolLookupByName(by_name["volume"])
        elif path:
            vol = conn.storageVolLookupByPath(path)  # active pools only
        else:
            return None
        root = schema.parse(vol.XMLDesc(0))
        name = f"{vol.storagePoolLookupByVolume().name()}/{vol.name()}"
    except libvirt.libvirtError:
        return None
    vol_path = root.findtext("target/path")
    backing = root.findtext("backingStore/path")
    if backing and vol_path and not posixpath.isabs(backing):  # relative to the volume's directory, as QEMU reads it
        backing = posixpath.join(posixpath.dirname(vol_path), backing)
    format_element = root.find("target/format")
    return Volume(
        name=name,
        path=vol_path,
        format=format_element.get("type") if format_element is not None else None,
        backing=posixpath.normpath(backing) if backing else None,
    )


def _missing_volume(conn: t.Any, disk: dict[str, t.Any]) -> str | None:
    """How to name the volume a disk is on that libvirt does not know (yet), None when the disk
    is not on a volume: its source names a pool's volume, or a path inside a pool's directory."""
    source = disk.get("source") or {}
    by_name = source.get("volume") or {}
    if by_name.get("pool") and by_name.get("volume"):
        return f"{by_name['pool']}/{by_name['volume']}"
    path = (source.get("file") or {}).get("file") or (source.get("block") or {}).get("dev")
    if path and any(_inside(posixpath.normpath(path), directory) for directory in _target_paths(conn)):
        return str(path)
    return None


def _target_paths(conn: t.Any) -> list[str]:
    from .pool import target_paths  # noqa: PLC0415  # only a disk on a volume or a path needs the pools (and pool's imports)

    return target_paths(conn)


def _inside(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip("/") + "/")
