# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""libvirt_pool: define, build, autostart, start, refresh, update in place, remove."""

from __future__ import annotations

import contextlib
import posixpath
import typing as t

from ansible.module_utils.parsing.convert_bool import boolean

from . import schema
from .connection import libvirt
from .errors import LibvirtError, LibvirtValidationError
from .resource import Outcome, Persistent, converge, definition_xml, lookup_by_name
from .xml_option import XML_ARGSPEC, options_from_xml

__all__ = ["POOL_ARGSPEC", "ensure_pool", "split_refresh", "target_path", "target_paths"]

STRUCT = "StoragePool"
SCHEMA_SPEC = schema.argument_spec(STRUCT)
POOL_ARGSPEC: dict[str, dict[str, t.Any]] = {
    **SCHEMA_SPEC,
    **XML_ARGSPEC,
    "name": {"type": "str"},  # or the <name> of xml
    "type": {"type": "str"},
    "state": {"type": "str", "choices": ["present", "absent"], "default": "present"},
    "autostart": {"type": "bool"},
    "running": {"type": "bool"},
    "restart": {"type": "bool", "default": False},
    # upstream's <refresh> element (a dict), or true: read the pool's storage again now
    "refresh": {"type": "raw"},
    "create": {
        "type": "dict",
        "options": {
            "build": {"type": "bool"},
            "build_mode": {"type": "str", "choices": ["new", "repair", "resize", "overwrite", "no_overwrite"], "default": "new"},
            "start": {"type": "bool"},
            "autostart": {"type": "bool"},
        },
    },
    "destroy": {"type": "dict", "options": {"delete": {"type": "bool"}, "delete_mode": {"type": "str", "choices": ["normal", "zeroed"], "default": "normal"}}},
}


def build_flags(mode: str) -> int:
    """virStoragePoolBuild's flags for create.build_mode."""
    names = {"repair": "REPAIR", "resize": "RESIZE", "overwrite": "OVERWRITE", "no_overwrite": "NO_OVERWRITE"}
    if mode == "new":
        return 0  # VIR_STORAGE_POOL_BUILD_NEW
    if mode not in names:
        raise LibvirtValidationError(f"create.build_mode: unknown mode {mode!r}")
    return int(getattr(libvirt, f"VIR_STORAGE_POOL_BUILD_{names[mode]}"))


# Pool types whose storage backend (virStorageBackendDeleteLocal) takes no delete flag.
_NO_ZEROED_DELETE = ("dir", "fs", "netfs")


def delete_flags(mode: str) -> int:
    """virStoragePoolDelete's flags for destroy.delete_mode."""
    if mode not in ("normal", "zeroed"):
        raise LibvirtValidationError(f"destroy.delete_mode: unknown mode {mode!r}")
    return int(getattr(libvirt, f"VIR_STORAGE_POOL_DELETE_{mode.upper()}"))


def _describe(pool: t.Any) -> dict[str, t.Any]:
    described = schema.read(STRUCT, schema.parse(definition_xml(pool, libvirt.VIR_STORAGE_XML_INACTIVE)))
    # Capacity, allocation and available are computed: take the live figures.
    live = schema.read(STRUCT, schema.parse(pool.XMLDesc(0)))
    for key in ("capacity", "capacity_unit", "allocation", "allocation_unit", "available", "available_unit"):
        if key in live:
            described[key] = live[key]
    described.update(uuid=pool.UUIDString(), autostart=bool(pool.autostart()), running=bool(pool.isActive()))
    return described


def _should_build(params: dict[str, t.Any], desired: dict[str, t.Any]) -> bool:
    """Upstream's default: build, except a logical pool without source devices."""
    build = (params.get("create") or {}).get("build")
    if build is not None:
        return bool(build)
    return not (desired.get("type") == "logical" and not (desired.get("source") or {}).get("device"))


def _should_delete(params: dict[str, t.Any], pool_type: str, pool: t.Any) -> tuple[bool, str | None]:
    """Whether absent deletes the storage, and a warning when it is kept. Upstream deletes
    a dir pool's directory by default; that never happens here to a non-empty one unless
    destroy.delete asks for it. Decided the same way in a check run: nothing is started to look."""
    asked = (params.get("destroy") or {}).get("delete")
    if asked is not None:
        return bool(asked), None
    if pool_type not in ("dir", "logical"):
        return False, None
    if not pool.isActive():
        # Its volumes cannot be listed without starting it, which a check run cannot do.
        return False, (
            f"storage pool '{params['name']}' is not active, so the volumes it may hold cannot be listed; its storage, if any, "
            "was kept (destroy.delete: true removes the volumes and the storage too)"
        )
    volumes = pool.listVolumes()
    if volumes:
        return False, (
            f"storage pool '{params['name']}' still holds {len(volumes)} volume(s); its storage was kept "
            "(destroy.delete: true removes the volumes and the storage too)"
        )
    return True, None


def _absent(conn: t.Any, params: dict[str, t.Any], check_mode: bool) -> Outcome:
    pool = lookup_by_name(conn.storagePoolLookupByName, params["name"], "storage pool")
    if pool is None:
        return Outcome(False, {}, {}, {})
    removed = _describe(pool)
    asked = (params.get("destroy") or {}).get("delete")
    if (params.get("destroy") or {}).get("delete_mode") == "zeroed" and asked is not False and removed.get("type") in _NO_ZEROED_DELETE:
        # libvirt refuses the flag for these only after the volumes would be gone: fail first.
        raise LibvirtValidationError(
            f"destroy.delete_mode: libvirt cannot delete a '{removed.get('type')}' pool's storage zeroed; "
            "wipe its volumes first (libvirt_volume wipe) and use delete_mode: normal"
        )
    delete, warning = _should_delete(params, removed.get("type", ""), pool)
    if not check_mode:
        try:
            if delete and not pool.isActive():
                pool.create()  # volumes can only be listed and deleted on an active pool
            if delete:
                from . import digest_records  # noqa: PLC0415  # only deleting volumes touches their records (and safe_files)

                for volume in pool.listAllVolumes():
                    identity = digest_records.volume_identity(volume)
                    volume.delete(0)
                    digest_records.forget(identity)  # the volume's digest record goes with it
            if pool.isActive():
                pool.destroy()
            if delete:
                pool.delete(delete_flags((params.get("destroy") or {}).get("delete_mode") or "normal"))
            pool.undefine()
        except libvirt.libvirtError as exc:
            raise LibvirtError(f"Failed to remove storage pool '{params['name']}': {exc}") from exc
    return Outcome(True, removed, removed, {}, [warning] if warning else [], extra={"storage_deleted": delete})


def _create(conn: t.Any, params: dict[str, t.Any], desired: dict[str, t.Any], check_mode: bool) -> Outcome:
    create = params.get("create") or {}
    autostart = next((v for v in (create.get("autostart"), params["autostart"]) if v is not None), True)
    running = next((v for v in (create.get("start"), params["running"]) if v is not None), True)
    after = {**desired, "autostart": autostart, "running": running}
    if check_mode:
        return Outcome(True, after, {}, after)
    xml = schema.serialize(schema.build(STRUCT, desired))
    try:
        pool = conn.storagePoolDefineXML(xml, 0)
    except libvirt.libvirtError as exc:
        raise LibvirtError(f"Failed to define storage pool '{params['name']}': {exc}") from exc
    built = False
    try:
        if _should_build(params, desired):
            pool.build(build_flags(create.get("build_mode") or "new"))
            built = True
        pool.setAutostart(1 if autostart else 0)  # before start, as upstream
        if running:
            pool.create(0)
            pool.refresh(0)
    except libvirt.libvirtError as exc:
        # Leave nothing half-made behind: what was started, built and defined goes again.
        for step in (pool.destroy if pool.isActive() else None, (lambda: pool.delete(0)) if built else None, pool.undefine):
            if step is not None:
                with contextlib.suppress(libvirt.libvirtError):
                    step()
        raise LibvirtError(f"Failed to create storage pool '{params['name']}': {exc}") from exc
    return Outcome(True, _describe(pool), {}, after)


def ensure_pool(conn: t.Any, params: dict[str, t.Any], check_mode: bool) -> Outcome:
    refresh_now = bool(params.get("refresh_now"))
    xml_options = options_from_xml(params, STRUCT, SCHEMA_SPEC, "storage pool") if params.get("xml") else None
    if params["state"] == "absent":
        return _absent(conn, params, check_mode)
    desired = xml_options or schema.options_of(STRUCT, {name: params.get(name) for name in SCHEMA_SPEC})
    desired["name"] = params["name"]
    pool = lookup_by_name(conn.storagePoolLookupByName, params["name"], "storage pool")
    if pool is None:
        if not desired.get("type"):
            raise LibvirtValidationError("type: required to create storage pool '{}' (for example dir)".format(params["name"]))
        schema.build(STRUCT, desired)  # bad input fails here, before anything is touched
        return _create(conn, params, desired, check_mode)
    schema.build(STRUCT, desired)
    current_type = schema.read(STRUCT, schema.parse(definition_xml(pool, libvirt.VIR_STORAGE_XML_INACTIVE))).get("type")
    if desired.get("type") and current_type != desired["type"]:
        raise LibvirtValidationError(
            f"type: storage pool '{params['name']}' is of type {current_type}, not {desired['type']}; "
            "a pool's type cannot change in place (remove the pool first)"
        )
    kind = Persistent(
        what="storage pool",
        struct=STRUCT,
        inactive_flag=libvirt.VIR_STORAGE_XML_INACTIVE,
        define=lambda xml: conn.storagePoolDefineXML(xml, 0),
        start=_start,
        describe=_describe,
    )
    outcome = converge(kind, pool, desired, params, check_mode)
    if refresh_now:
        _refresh(pool, params["name"], outcome.warnings)
        if not outcome.changed:  # what the pool holds may have changed: describe it as it is now
            outcome.resource = _describe(pool)
    return outcome


def split_refresh(params: dict[str, t.Any]) -> None:
    """``refresh`` is upstream's <refresh> element when a dictionary (left for the schema), else
    a boolean: whether to read the pool's storage again now (``refresh_now``)."""
    value = params.get("refresh")
    params["refresh_now"] = False
    if value is None or isinstance(value, dict):
        return
    params["refresh"] = None
    try:
        params["refresh_now"] = boolean(value, strict=True)
    except TypeError:
        raise LibvirtValidationError(
            f"refresh: expected a boolean (read the pool's storage now) or a dictionary (the pool's <refresh> element), got {value!r}"
        ) from None


def _refresh(pool: t.Any, name: str, warnings: list[str]) -> None:
    """Read the pool's storage again (files put into its directory by hand become volumes).
    Nothing stored changes, so it is no change and runs in check mode too; an inactive pool
    has nothing to read, and a pool another run uploads into refuses it (warned)."""
    if not pool.isActive():
        return
    try:
        pool.refresh(0)
    except libvirt.libvirtError as exc:
        warnings.append(f"refresh: storage pool '{name}' could not be refreshed now (another job on it?): {exc}")


def _start(pool: t.Any) -> None:
    """Start an inactive pool. A dir pool is built first: building an existing directory
    keeps its content and applies the defined owner and mode, which a plain start does not
    (other pool types are never rebuilt: their build may format storage)."""
    if schema.parse(definition_xml(pool, libvirt.VIR_STORAGE_XML_INACTIVE)).get("type") == "dir":
        pool.build(0)
    pool.create(0)
    pool.refresh(0)


def target_path(pool: t.Any) -> str | None:
    """The pool's target directory (normalised), or None (no path, or libvirt cannot say)."""
    try:
        path = schema.parse(pool.XMLDesc(0)).findtext("target/path")
    except libvirt.libvirtError:
        return None
    return posixpath.normpath(path) if path else None


def target_paths(conn: t.Any) -> list[str]:
    """The target directories of every pool of the host, active or not (empty when libvirt
    does not list them)."""
    try:
        pools = conn.listAllStoragePools(0)
    except libvirt.libvirtError:
        return []
    return [path for path in map(target_path, pools) if path]
