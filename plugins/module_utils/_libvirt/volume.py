# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""libvirt_volume: create (empty, or streamed from a URL or a local file), grow, replace
when asked, remove. A volume's format, backing store and other settings cannot change
in place: changing them loses data, so it is an error unless ``replace`` asks for it."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import typing as t

from . import schema
from .connection import libvirt
from .errors import LibvirtError, LibvirtValidationError
from .resource import Outcome, lookup_by_name, normalize_value
from .stream_upload import STREAM_CHUNK_SIZE, upload_file
from .units import to_bytes

__all__ = ["VOLUME_ARGSPEC", "ensure_volume"]

STRUCT = "StorageVolume"
SCHEMA_SPEC = schema.argument_spec(STRUCT, exclude=("name", "capacity", "capacity_unit"))
VOLUME_ARGSPEC: dict[str, dict[str, t.Any]] = {
    **SCHEMA_SPEC,
    "name": {"type": "str", "required": True},
    "pool": {"type": "str", "required": True},
    "capacity": {"type": "int"},
    "capacity_unit": {"type": "str"},
    "state": {"type": "str", "choices": ["present", "absent"], "default": "present"},
    "create": {
        "type": "dict",
        "options": {"content": {"type": "dict", "required": True, "options": {"url": {"type": "str", "required": True}}}},
    },
    "sparse": {"type": "bool"},
    "replace": {"type": "bool", "default": False},
    "url_timeout": {"type": "int", "default": 30},
    "validate_certs": {"type": "bool", "default": True},
}


@dataclasses.dataclass
class _Source:
    """Where the content comes from, opened before anything is created."""

    url: str
    size: int | None  # None: unknown (HTTP without Content-Length)
    local_path: str | None = None
    response: t.Any = None

    def close(self) -> None:
        if self.response is not None:
            with contextlib.suppress(Exception):
                self.response.close()


def _open_source(url: str, params: dict[str, t.Any]) -> _Source:
    """Upstream's rules: http(s) is one GET that must answer 200 (size from Content-Length);
    anything else is a local file on the managed host (file:// stripped), not a directory."""
    if url.startswith(("http://", "https://")):
        from ansible.module_utils.urls import open_url  # noqa: PLC0415 - only uploads need it

        try:
            response = open_url(url, timeout=params["url_timeout"], validate_certs=params["validate_certs"], follow_redirects="all")
        except Exception as exc:  # urllib errors carry the status and reason
            raise LibvirtError(f"Failed to Open URL: Could not open URL for upload: {exc}") from exc
        status = getattr(response, "status", None) or response.getcode()
        if status != 200:
            response.close()
            raise LibvirtError(f"Failed to Open URL: Could not open URL for upload: HTTP request failed with status {status}")
        length = response.headers.get("Content-Length")
        return _Source(url, int(length) if length and length.isdigit() else None, response=response)
    path = url[len("file://") :] if url.startswith("file://") else url
    try:
        info = os.stat(path)
    except OSError as exc:
        raise LibvirtError(f"Failed to Open URL: Could not open URL for upload: failed to stat file: {exc}") from exc
    if os.path.isdir(path):
        raise LibvirtError(f"Failed to Open URL: Could not open URL for upload: path is a directory, not a file: {path}")
    return _Source(url, info.st_size, local_path=path)


def _stream_response(volume: t.Any, response: t.Any) -> None:
    """HTTP body into the volume, in the chunk size the research measured as fast."""
    stream = volume.connect().newStream(0)
    try:
        volume.upload(stream, 0, 0, 0)
        while True:
            data = response.read(STREAM_CHUNK_SIZE)
            if not data:
                break
            view = memoryview(data)
            while view:
                sent = stream.send(bytes(view))
                view = view[sent:]
        stream.finish()
    except BaseException:
        with contextlib.suppress(libvirt.libvirtError):
            stream.abort()
        raise


def _describe(volume: t.Any, pool_name: str) -> dict[str, t.Any]:
    described = schema.read(STRUCT, schema.parse(volume.XMLDesc(0)))
    described.update(key=volume.key(), path=volume.path(), pool=pool_name)
    return described


def _wanted_bytes(params: dict[str, t.Any]) -> int | None:
    if params["capacity"] is None:
        return None
    return to_bytes(params["capacity"], params["capacity_unit"], path="capacity_unit")


def _create(pool: t.Any, params: dict[str, t.Any], desired: dict[str, t.Any], check_mode: bool) -> dict[str, t.Any]:
    """Create the volume (and fill it); returns what it is."""
    url = ((params.get("create") or {}).get("content") or {}).get("url")
    wanted = _wanted_bytes(params)
    source = _open_source(url, params) if url else None
    try:
        if source is not None:
            # Upstream: the stream's size wins; the capacity option only when the size is unknown.
            capacity = source.size if source.size is not None else wanted
            if capacity is None:
                raise LibvirtValidationError("Missing Capacity: Volume capacity is required when the upload source does not provide Content-Length")
        elif wanted is None:
            raise LibvirtValidationError("Missing Capacity: Volume capacity is required when not uploading from a URL")
        else:
            capacity = wanted
        spec = {**desired, "capacity": capacity, "capacity_unit": "bytes"}
        xml = schema.serialize(schema.build(STRUCT, spec))
        if check_mode:
            return {**spec, "pool": params["pool"]}
        try:
            volume = pool.createXML(xml, 0)
        except libvirt.libvirtError as exc:
            raise LibvirtError(f"Volume Creation Failed: Failed to create storage volume: {exc}") from exc
        try:
            if source is not None and source.local_path is not None:
                upload_file(volume, source.local_path, sparse=params["sparse"])
            elif source is not None:
                _stream_response(volume, source.response)
            if wanted is not None and wanted > volume.info()[1]:
                volume.resize(wanted, 0)  # a larger capacity than the content: grow it
        except (libvirt.libvirtError, LibvirtError, OSError) as exc:
            # An upload that fails leaves no volume behind (upstream deletes it too).
            with contextlib.suppress(libvirt.libvirtError):
                volume.delete(0)
            raise LibvirtError(f"Volume Upload Failed: Failed to upload content to volume: {exc}") from exc
        return _describe(volume, params["pool"])
    finally:
        if source is not None:
            source.close()


def _lookup_pool(conn: t.Any, name: str) -> t.Any:
    pool = lookup_by_name(conn.storagePoolLookupByName, name, "storage pool")
    if pool is None:
        raise LibvirtError(f"Pool Not Found: Storage pool '{name}' not found")
    if not pool.isActive():
        raise LibvirtError(f"storage pool '{name}' is not active: start it first (libvirt_pool running: true)")
    return pool


def ensure_volume(conn: t.Any, params: dict[str, t.Any], check_mode: bool) -> Outcome:
    name = params["name"]
    desired = schema.clean({key: params.get(key) for key in SCHEMA_SPEC})
    desired["name"] = name
    schema.build(STRUCT, desired)  # bad input fails here, before anything is touched
    wanted = _wanted_bytes(params)
    pool = _lookup_pool(conn, params["pool"])
    volume = lookup_by_name(pool.storageVolLookupByName, name, f"volume in pool '{params['pool']}'")

    if params["state"] == "absent":
        if volume is None:
            return Outcome(False, {}, {}, {})
        removed = _describe(volume, params["pool"])
        if not check_mode:
            try:
                volume.delete(0)
            except libvirt.libvirtError as exc:
                raise LibvirtError(f"Failed to Delete Volume: Could not delete storage volume: {exc}") from exc
        return Outcome(True, removed, removed, {})

    after = {**desired, **({"capacity": wanted, "capacity_unit": "bytes"} if wanted is not None else {})}
    if volume is None:
        return Outcome(True, _create(pool, params, desired, check_mode), {}, after)

    current = schema.read(STRUCT, schema.parse(volume.XMLDesc(0)), like=desired)
    paths = schema.differences(desired, current, normalize=normalize_value)
    size = int(volume.info()[1])
    from_content = bool((params.get("create") or {}).get("content"))
    before = {**current, **({"capacity": size, "capacity_unit": "bytes"} if wanted is not None else {})}
    # The content decides the size of a volume made from it; the option only grows it.
    shrink = wanted is not None and wanted < size and not from_content
    grow = wanted is not None and wanted > size
    if (paths or shrink) and not params["replace"]:
        what = ", ".join(paths + (["capacity"] if shrink else []))
        raise LibvirtValidationError(
            f"{what}: volume '{name}' in pool '{params['pool']}' differs in what cannot change in place without losing "
            "its data (format, backing store, encryption, permissions... or a smaller capacity); set replace: true "
            "to delete it and create it anew"
        )
    if paths or shrink:
        if not check_mode:
            try:
                volume.delete(0)
            except libvirt.libvirtError as exc:
                raise LibvirtError(f"Failed to Delete Volume: Could not delete storage volume: {exc}") from exc
        return Outcome(True, _create(pool, params, desired, check_mode), before, after, extra={"replaced": True})
    if grow and not check_mode:
        try:
            volume.resize(wanted, 0)
        except libvirt.libvirtError as exc:
            raise LibvirtError(f"Failed to resize volume '{name}' to {wanted} bytes: {exc}") from exc
    resource = _describe(volume, params["pool"])
    if grow and check_mode:
        resource = {**resource, **after}
    return Outcome(grow, resource, before if grow else after, after)
