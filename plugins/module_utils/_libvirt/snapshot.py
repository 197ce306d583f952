# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""libvirt_domain_snapshot: create a domain snapshot, revert to it, remove it; and the
snapshot as the listing (libvirt_domain_info) and the module report it.

A snapshot is identified by its name within its domain. What it holds (the disks and, for
a running domain, the memory, at the moment it was taken) never changes afterwards: only
its description is metadata libvirt lets us edit (a redefinition, as ``virsh
snapshot-edit`` does). So an existing snapshot of another kind than asked for is an error,
never a silent re-creation that would throw away the state it saved."""

from __future__ import annotations

import typing as t

from . import schema
from .connection import libvirt
from .data_sources import lookup_domain
from .errors import LibvirtError, LibvirtNotFoundError, LibvirtValidationError, is_not_found, is_unsupported
from .resource import Outcome, definition_xml, lookup_by_name
from .text import NOT_XML_CHARS, check_one_line

__all__ = ["MAX_NAME_BYTES", "SNAPSHOT_ARGSPEC", "check_snapshot_name", "describe_snapshot", "domain_state_name", "ensure_snapshot", "list_snapshots"]

SNAPSHOT_ARGSPEC: dict[str, dict[str, t.Any]] = {
    "domain": {"type": "str", "required": True},
    "name": {"type": "str", "required": True},
    "state": {"type": "str", "choices": ["present", "absent"], "default": "present"},
    "revert": {"type": "bool", "default": False},
    "disk_only": {"type": "bool"},
    "description": {"type": "str"},
    "metadata_only": {"type": "bool", "default": False},
}

# virDomainState, by value: the names virsh uses (and the snapshot XML's <state>).
_DOMAIN_STATES = ("nostate", "running", "blocked", "paused", "shutdown", "shutoff", "crashed", "pmsuspended")
# The longest name, in bytes of UTF-8, a snapshot can have: the QEMU driver keeps each
# snapshot's metadata in <snapshot dir>/<domain>/<name>.xml, written first as <name>.xml.new
# (virFileRewrite), a file name of at most NAME_MAX (255) bytes. A longer name is refused
# by libvirt only after QEMU has taken the snapshot: the internal snapshot stays in the
# qcow2 image, which libvirt no longer knows (seen with libvirt 9.0 and QEMU 7.2, for a
# running and a shut-off domain; 247 bytes worked, 248 left an orphan). QEMU's own limits
# are higher: the qcow2 snapshot table stores a 16-bit name length, and QEMUSnapshotInfo
# holds 255 bytes (longer names are cut there).
_NAME_MAX = 255
MAX_NAME_BYTES = _NAME_MAX - len(".xml.new")
# libvirt error codes with which a driver says it cannot do this to such a snapshot.
_UNSUPPORTED = frozenset({67, 84})  # VIR_ERR_CONFIG_UNSUPPORTED, VIR_ERR_OPERATION_UNSUPPORTED


def domain_state_name(dom: t.Any) -> str:
    """The domain's state as virsh names it (running, paused, shutoff...)."""
    code = int(dom.state()[0])
    return _DOMAIN_STATES[code] if 0 <= code < len(_DOMAIN_STATES) else "nostate"


def check_snapshot_name(name: str) -> str:
    """A name libvirt can keep: libvirt stores each snapshot in a file named after it."""
    if not name:
        raise LibvirtValidationError("name: must not be empty")
    check_one_line("name", name)
    if "/" in name:
        raise LibvirtValidationError(f"name: {name!r} contains '/'; libvirt keeps each snapshot in a file named after it")
    size = len(name.encode("utf-8", "surrogatepass"))
    if size > MAX_NAME_BYTES:
        raise LibvirtValidationError(
            f"name: is {size} bytes long (UTF-8); a snapshot's name has at most {MAX_NAME_BYTES}, as libvirt keeps it in a file "
            f"named after it (<name>.xml.new, at most {_NAME_MAX} bytes)"
        )
    return name


def describe_snapshot(snap: t.Any) -> dict[str, t.Any]:
    """The snapshot's facts: its name, description, the state the domain was in, when it was
    taken, whether it is current, disk-only or with memory, its parent and its disks."""
    root = schema.parse(snap.getXMLDesc(0))
    memory = root.find("memory")
    disks = [
        {"name": disk.get("name"), "snapshot": disk.get("snapshot"), "file": disk.find("source").get("file") if disk.find("source") is not None else None}
        for disk in root.iterfind("disks/disk")
    ]
    memory_kind = memory.get("snapshot") if memory is not None else None
    state = root.findtext("state")
    # Disk-only: the disks went to overlays and no memory was saved (libvirt names the state
    # disk-snapshot for a running domain, and keeps the shut-off state of a stopped one).
    disk_only = state == "disk-snapshot" or (memory_kind in (None, "no") and any(d["snapshot"] == "external" for d in disks))
    created = root.findtext("creationTime")
    return {
        "name": snap.getName(),
        "domain": snap.getDomain().name(),
        "description": root.findtext("description"),
        "state": state,
        "creation_time": int(created) if created and created.strip().isdigit() else None,
        "current": bool(snap.isCurrent(0)),
        "disk_only": disk_only,
        "memory": memory_kind or "no",
        "parent": root.findtext("parent/name"),
        "disks": disks,
    }


def snapshot_options(described: dict[str, t.Any]) -> dict[str, t.Any]:
    """What libvirt_domain_snapshot takes to keep this snapshot as it is."""
    options = {key: described[key] for key in ("domain", "name", "disk_only")}
    if described.get("description") is not None:
        options["description"] = described["description"]
    return options


def list_snapshots(dom: t.Any) -> list[dict[str, t.Any]]:
    """The domain's snapshots, oldest first (a parent before its children when they were taken
    within the same second), each with the options that keep it."""
    try:
        snapshots = dom.listAllSnapshots(libvirt.VIR_DOMAIN_SNAPSHOT_LIST_TOPOLOGICAL)
    except libvirt.libvirtError as exc:
        if not is_unsupported(exc):
            raise
        snapshots = dom.listAllSnapshots(0)
    found = []
    for snap in snapshots:
        try:
            described = describe_snapshot(snap)
        except libvirt.libvirtError:
            continue  # removed meanwhile
        described["options"] = snapshot_options(described)
        found.append(described)
    found.sort(key=lambda snap: snap["creation_time"] or 0)  # stable: the topological order within a second
    return found


def _current_name(dom: t.Any) -> str | None:
    """The name of the domain's current snapshot (the one a new snapshot takes as parent)."""
    try:
        return str(dom.snapshotCurrent(0).getName()) if dom.hasCurrentSnapshot(0) else None
    except libvirt.libvirtError as exc:
        if is_not_found(exc):  # deleted meanwhile
            return None
        raise


def _check(params: dict[str, t.Any]) -> None:
    check_snapshot_name(params["name"])
    if not params["domain"]:
        raise LibvirtValidationError("domain: must not be empty")
    check_one_line("domain", params["domain"])
    description = params.get("description")
    if description is not None:
        bad = NOT_XML_CHARS.search(description)
        if bad:
            raise LibvirtValidationError(f"description: contains a character XML cannot hold (U+{ord(bad.group()):04X})")
    if params["state"] == "absent" and params["revert"]:
        raise LibvirtValidationError("revert: cannot be combined with state: absent")
    if params["metadata_only"] and params["state"] != "absent":
        raise LibvirtValidationError("metadata_only: only applies to state: absent")


def _diff_view(described: dict[str, t.Any], domain_state: str) -> dict[str, t.Any]:
    view = {key: described.get(key) for key in ("name", "description", "disk_only", "current")}
    view["domain_state"] = domain_state
    return view


def _new_xml(dom: t.Any, params: dict[str, t.Any], disk_only: bool) -> str:
    root = schema.element("domainsnapshot")
    for tag in ("name", "description"):
        if params.get(tag) is not None:
            child = schema.element(tag)
            child.text = params[tag]
            root.append(child)
    if disk_only:
        disks = _volume_overlays(dom, params["name"])
        if len(disks):
            root.append(disks)
    return schema.serialize(root)


def _volume_overlays(dom: t.Any, name: str) -> t.Any:
    """<disks> naming the overlay file of each writable disk taken from a storage pool
    volume: libvirt names one itself (next to the image, its extension replaced by the
    snapshot's name) for a disk given by its file only, and refuses a volume's."""
    disks = schema.element("disks")
    definition = schema.parse(definition_xml(dom, libvirt.VIR_DOMAIN_XML_INACTIVE))
    for disk in definition.iterfind("devices/disk"):
        source, target = disk.find("source"), disk.find("target")
        if disk.get("type") != "volume" or disk.get("device", "disk") != "disk" or disk.find("readonly") is not None:
            continue
        if source is None or target is None or not source.get("pool") or not source.get("volume"):
            continue
        pool_name, volume_name = source.get("pool"), source.get("volume")
        try:
            path = dom.connect().storagePoolLookupByName(pool_name).storageVolLookupByName(volume_name).path()
        except libvirt.libvirtError as exc:
            raise LibvirtError(f"Failed to find volume '{volume_name}' of storage pool '{pool_name}' (disk {target.get('dev')}): {exc}") from exc
        directory, _slash, base = str(path).rpartition("/")
        stem = base.rsplit(".", 1)[0] if "." in base else base
        overlay_name = f"{stem}.{name}"
        size = len(overlay_name.encode("utf-8", "surrogatepass"))
        if size > _NAME_MAX:
            # libvirt refuses it too, before it makes anything, but only says it cannot stat the file.
            raise LibvirtValidationError(
                f"name: the overlay of disk {target.get('dev')} would be {directory}/{stem}.<name>, a file name of {size} bytes "
                f"(at most {_NAME_MAX}); a disk-only snapshot of this domain needs a shorter name"
            )
        overlay = schema.element("disk")
        overlay.set("name", target.get("dev"))
        overlay.set("snapshot", "external")
        file_source = schema.element("source")
        file_source.set("file", f"{directory}/{overlay_name}")
        overlay.append(file_source)
        disks.append(overlay)
    return disks


def _failure(action: str, name: str, dom_name: str, exc: Exception, *, disk_only: bool) -> LibvirtError:
    message = f"Failed to {action} snapshot '{name}' of domain '{dom_name}': {exc}"
    code = exc.get_error_code() if isinstance(exc, libvirt.libvirtError) else None
    if disk_only and action == "delete":
        # libvirt before 9.7 deletes no external snapshot; later ones refuse some (a disk changed since).
        message += "; metadata_only: true removes only libvirt's record of this disk-only snapshot and leaves its overlay files in use"
    elif disk_only and action == "revert to" and code in _UNSUPPORTED:
        message += "; this libvirt cannot revert to a disk-only (external) snapshot (libvirt 9.9 and later can)"
    return LibvirtError(message)


def _absent(conn: t.Any, params: dict[str, t.Any], check_mode: bool) -> Outcome:
    try:
        dom = lookup_domain(conn, params["domain"])
    except LibvirtNotFoundError:
        # No domain, no snapshot of it: a teardown that ran before (or removed the domain) is done.
        return Outcome(False, {}, {}, {}, extra={"current_snapshot": None})
    snap = lookup_by_name(lambda name: dom.snapshotLookupByName(name, 0), params["name"], "snapshot")
    if snap is None:
        return Outcome(False, {}, {}, {}, extra={"current_snapshot": _current_name(dom)})
    removed = describe_snapshot(snap)
    before = _diff_view(removed, domain_state_name(dom))
    if check_mode:
        # libvirt makes the parent current when the current snapshot goes.
        current = removed["parent"] if removed["current"] else _current_name(dom)
        return Outcome(True, removed, before, {}, extra={"current_snapshot": current})
    flags = libvirt.VIR_DOMAIN_SNAPSHOT_DELETE_METADATA_ONLY if params["metadata_only"] else 0
    try:
        snap.delete(flags)
    except libvirt.libvirtError as exc:
        raise _failure("delete", params["name"], dom.name(), exc, disk_only=removed["disk_only"]) from exc
    return Outcome(True, removed, before, {}, extra={"current_snapshot": _current_name(dom)})


def _create(dom: t.Any, params: dict[str, t.Any], check_mode: bool) -> Outcome:
    if params["revert"]:
        raise LibvirtNotFoundError(f"name: domain '{dom.name()}' has no snapshot '{params['name']}' to revert to")
    state = domain_state_name(dom)
    disk_only = bool(params.get("disk_only"))
    predicted = {
        "name": params["name"],
        "domain": dom.name(),
        "description": params.get("description"),
        "state": "disk-snapshot" if disk_only and state != "shutoff" else state,
        "creation_time": None,
        "current": True,
        "disk_only": disk_only,
        "memory": "internal" if not disk_only and state in ("running", "paused") else "no",
        "parent": _current_name(dom),
        "disks": [],
    }
    after = _diff_view(predicted, state)
    if check_mode:
        return Outcome(True, predicted, {}, after, extra={"current_snapshot": params["name"]})
    flags = libvirt.VIR_DOMAIN_SNAPSHOT_CREATE_DISK_ONLY if disk_only else 0
    try:
        snap = dom.snapshotCreateXML(_new_xml(dom, params, disk_only), flags)
    except libvirt.libvirtError as exc:
        raise _failure("create", params["name"], dom.name(), exc, disk_only=disk_only) from exc
    created = describe_snapshot(snap)
    return Outcome(True, created, {}, _diff_view(created, domain_state_name(dom)), extra={"current_snapshot": _current_name(dom)})


def _redescribe(dom: t.Any, snap: t.Any, description: str) -> t.Any:
    """Change the description: redefine the snapshot from its own XML (with its secrets, so
    the domain definition it restores keeps them), current if it was current."""
    root = schema.parse(snap.getXMLDesc(libvirt.VIR_DOMAIN_SNAPSHOT_XML_SECURE))
    node = root.find("description")
    if node is None:
        node = schema.element("description")
        root.insert(root.index(root.find("name")) + 1, node)
    node.text = description
    flags = libvirt.VIR_DOMAIN_SNAPSHOT_CREATE_REDEFINE
    if snap.isCurrent(0):
        flags |= libvirt.VIR_DOMAIN_SNAPSHOT_CREATE_CURRENT
    return dom.snapshotCreateXML(schema.serialize(root), flags)


def _existing(dom: t.Any, snap: t.Any, params: dict[str, t.Any], check_mode: bool) -> Outcome:
    name = params["name"]
    current = describe_snapshot(snap)
    wanted_kind = params.get("disk_only")
    if wanted_kind is not None and wanted_kind != current["disk_only"]:
        kinds = {True: "a disk-only snapshot", False: "a snapshot with the disks (and memory of a running domain) saved internally"}
        raise LibvirtValidationError(
            f"disk_only: snapshot '{name}' of domain '{dom.name()}' exists as {kinds[current['disk_only']]}, not "
            f"{kinds[wanted_kind]}; what a snapshot saved cannot change: remove it (state: absent) and take it again, or use another name"
        )
    state = domain_state_name(dom)
    before = _diff_view(current, state)
    describe = params.get("description") is not None and params["description"] != (current["description"] or "")
    after = dict(before)
    if describe:
        after["description"] = params["description"]
    if params["revert"]:
        after["current"] = True
        after["domain_state"] = "shutoff" if current["state"] == "disk-snapshot" else current["state"]
    changed = describe or params["revert"]
    if check_mode or not changed:
        resource = {**current, "description": after["description"], "current": after["current"]} if changed else current
        current_snapshot = name if params["revert"] else _current_name(dom)
        return Outcome(changed, resource, before, after, extra={"current_snapshot": current_snapshot})
    try:
        if describe:
            snap = _redescribe(dom, snap, params["description"])
    except libvirt.libvirtError as exc:
        raise _failure("change the description of", name, dom.name(), exc, disk_only=current["disk_only"]) from exc
    if params["revert"]:
        try:
            dom.revertToSnapshot(snap, 0)
        except libvirt.libvirtError as exc:
            raise _failure("revert to", name, dom.name(), exc, disk_only=current["disk_only"]) from exc
    result = describe_snapshot(snap)
    return Outcome(True, result, before, _diff_view(result, domain_state_name(dom)), extra={"current_snapshot": _current_name(dom)})


def ensure_snapshot(conn: t.Any, params: dict[str, t.Any], check_mode: bool) -> Outcome:
    _check(params)
    if params["state"] == "absent":
        return _absent(conn, params, check_mode)
    try:
        dom = lookup_domain(conn, params["domain"])
    except LibvirtNotFoundError:
        raise LibvirtNotFoundError(f"domain: no domain has the name or UUID {params['domain']!r}") from None
    snap = lookup_by_name(lambda name: dom.snapshotLookupByName(name, 0), params["name"], "snapshot")
    if snap is None:
        return _create(dom, params, check_mode)
    return _existing(dom, snap, params, check_mode)
