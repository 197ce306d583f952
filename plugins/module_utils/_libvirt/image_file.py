# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""libvirt_image_info: a disk image file on the managed host, as image.py reads it, with its
digest; the digest read once per version of the file (digest_records.py)."""

from __future__ import annotations

import hashlib
import os
import stat
import typing as t

from . import digest_records, image
from .errors import LibvirtError, LibvirtValidationError

__all__ = ["IMAGE_INFO_ARGSPEC", "describe_image_file"]

IMAGE_INFO_ARGSPEC: dict[str, dict[str, t.Any]] = {
    "path": {"type": "str", "required": True},
    "checksum_algorithm": {"type": "str", "choices": ["sha256", "sha384", "sha512"], "default": "sha256"},
    "get_checksum": {"type": "bool", "default": True},
}

_CHUNK = 1 << 20


def describe_image_file(params: dict[str, t.Any]) -> dict[str, t.Any]:
    """The image at ``path`` (``file://`` allowed): its size, format, virtual size, the files
    its header names, why it would be refused as a volume's content, and its digest."""
    path = params["path"][len("file://") :] if params["path"].startswith("file://") else params["path"]
    if not path or "\0" in path:
        raise LibvirtValidationError("path: must be the path of a file on the managed host")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError as exc:
        raise LibvirtError(f"path: cannot open {path!r}: {exc.strerror}") from exc
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise LibvirtValidationError(f"path: {path!r} is not a regular file")
        head = os.pread(fd, image.HEADER_BYTES, 0)
        found = image.inspect(head, info.st_size)
        described: dict[str, t.Any] = {
            "path": path,
            "size": info.st_size,
            "format": found.format,
            "virtual_size": found.virtual_size,
            "references": [{"kind": ref.kind, "path": ref.path} for ref in found.references],
            "refused": _refusal(found, path),
        }
        if params["get_checksum"]:
            described["checksum"] = _digest(fd, info, path, params["checksum_algorithm"])
        return described
    except OSError as exc:
        raise LibvirtError(f"path: cannot read {path!r}: {exc.strerror}") from exc
    finally:
        os.close(fd)


def _refusal(found: image.Image, path: str) -> str | None:
    """Why an upload of this image would be refused (with no backing file allowed), or None."""
    try:
        image.refuse_references(found, "create.content.url", repr(path), (), allow_in_pool=False)
        image.volume_format_for(found, "create.content.url", repr(path))
    except LibvirtValidationError as exc:
        return str(exc)
    return None


def _digest(fd: int, info: os.stat_result, path: str, algorithm: str) -> str:
    """``algorithm:hex`` of the file read through ``fd``; from a record when the file has not
    changed since it was last read (the same device, inode, size, mtime and ctime). A record
    can only name the file's content the last time it was read: an upload checks the bytes it
    sends against the digest again, so a stale one makes that upload fail, never pass."""
    identity = f"file\0{algorithm}\0{os.path.realpath(path)}"
    stamp = digest_records.file_stamp(info)
    recorded = digest_records.recall(identity, stamp)
    if recorded is not None and recorded.startswith(f"{algorithm}:"):
        return recorded
    digest = hashlib.new(algorithm)
    offset = 0
    while True:
        chunk = os.pread(fd, _CHUNK, offset)
        if not chunk:
            break
        digest.update(chunk)
        offset += len(chunk)
    value = f"{algorithm}:{digest.hexdigest()}"
    if digest_records.file_stamp(os.fstat(fd)) == stamp:  # unchanged while it was read
        digest_records.remember(identity, stamp, value)
    return value
