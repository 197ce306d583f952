# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Digests verified once, remembered so that a run that changes nothing reads no image again.

A record says: the object with this identity had this digest when it had this stamp (size,
modification and change times, and for files the device and inode). The change time (ctime)
is set by the kernel on every write, chmod, chown or utime and cannot be set by any user, so
an object whose stamp is unchanged still has the digest. A volume's record says more: the
volume was made from (or once verified to hold) that content, which stays true while the
volume lives, and ``lived`` says its bytes are since its guest's (written, or grown), so they
are never compared with the digest again (volume.py). The record goes with the volume (forget).

Records live in a directory of the running user's (root: /var/lib/devinfra.providers/digests)
that nobody else can write; a record is opened without following links, must belong to the
running user, is read up to 4 KiB and is used only when every field has the shape it must have.
Anything else is no record: the object is read again."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import re
import typing as t

from .._common.safe_files import private_directory, read_private, record_path, records_location, write_atomic

__all__ = ["Record", "file_stamp", "forget", "location", "recall", "recorded", "remember", "volume_identity"]

_MAX_BYTES = 4096
_DIGEST = re.compile(r"(sha256|sha384|sha512):[0-9a-f]{64,128}")
_STAMP_VALUE = re.compile(r"[0-9]{1,30}(\.[0-9]{1,9})?")


def _location() -> str:
    return records_location("digests")


def location() -> str:
    """The directory of the records, for messages."""
    return _location()


def _record_path(identity: str) -> str | None:
    directory = private_directory(_location())
    return None if directory is None else record_path(directory, identity)


def volume_identity(volume: t.Any) -> str:
    """What the record of a libvirt storage volume is keyed by: its connection's URI and its key."""
    return f"volume\0{volume.connect().getURI()}\0{volume.key()}"


def file_stamp(info: os.stat_result) -> dict[str, str]:
    """What says a file is unchanged: its device, inode, size, mtime and ctime."""
    return {
        "dev": str(info.st_dev),
        "ino": str(info.st_ino),
        "size": str(info.st_size),
        "mtime": str(info.st_mtime_ns),
        "ctime": str(info.st_ctime_ns),
    }


@dataclasses.dataclass(frozen=True)
class Record:
    digest: str  # algorithm:hex
    stamp: dict[str, str]  # the object's when the digest was last verified ({}: it has none)
    lived: bool  # the object's bytes are since its user's: never compared with the digest again


def recorded(identity: str) -> Record | None:
    """The record of ``identity`` whatever its stamp, or None."""
    path = _record_path(identity)
    if path is None:
        return None
    raw = read_private(path, _MAX_BYTES)
    if raw is None:
        return None
    try:
        record = json.loads(raw.decode("utf-8"))
    except ValueError:
        return None
    # Records of earlier versions have no "lived".
    if not isinstance(record, dict) or set(record) - {"lived"} != {"identity", "stamp", "digest"}:
        return None
    digest, saved, lived = record["digest"], record["stamp"], record.get("lived", False)
    if record["identity"] != identity or not isinstance(digest, str) or not _DIGEST.fullmatch(digest) or not isinstance(lived, bool):
        return None
    if not isinstance(saved, dict) or not all(isinstance(v, str) and _STAMP_VALUE.fullmatch(v) for v in saved.values()):
        return None
    return Record(digest, saved, lived)


def recall(identity: str, stamp: dict[str, str]) -> str | None:
    """The digest (``algorithm:hex``) recorded for ``identity`` at exactly ``stamp``, or None."""
    record = recorded(identity)
    return record.digest if record is not None and record.stamp == stamp else None


def remember(identity: str, stamp: dict[str, str], digest: str, *, lived: bool = False) -> None:
    """Record ``digest`` for ``identity`` at ``stamp`` (atomically; quietly nothing when the
    directory is not private or cannot be written: the next run reads the object again)."""
    path = _record_path(identity)
    if path is None or not _DIGEST.fullmatch(digest) or not all(_STAMP_VALUE.fullmatch(v) for v in stamp.values()):
        return
    data = json.dumps({"identity": identity, "stamp": stamp, "digest": digest, "lived": lived}, sort_keys=True).encode()
    if len(data) > _MAX_BYTES:
        return
    with contextlib.suppress(OSError):
        write_atomic(path, data, 0o600)


def forget(identity: str) -> None:
    """Remove the record of ``identity`` (its object is gone); quietly nothing when there is none."""
    if not os.path.isdir(_location()):
        return  # nothing recorded: the directory is not made for nothing
    path = _record_path(identity)
    if path is not None:
        with contextlib.suppress(OSError):  # none there (a record left behind names a volume that is gone)
            os.unlink(path)
