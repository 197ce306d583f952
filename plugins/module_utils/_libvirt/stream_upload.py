# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Streaming a local file into a libvirt storage volume (and reading a small one back),
in-process through virStream: constant memory, holes of sparse files skipped."""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import os
import typing as t

from .connection import libvirt
from .errors import LibvirtError, is_unsupported

__all__ = [
    "STREAM_CHUNK_SIZE",
    "UploadResult",
    "data_sections",
    "file_has_holes",
    "read_volume",
    "upload_file",
]

# 96 KiB: one RPC stream message per send(), and the steadiest fast size measured on the
# real daemon. Whole uploads of 512 MiB (bench/volume_upload.py method, 12 rounds): 96 KiB
# 0.44-0.50 s in every round and 0.41 s in process, where 128 KiB and 256 KiB fell to 0.8-1.1 s
# for hours on the same daemon (they had been as fast as 96 KiB the day before) and virsh
# (262,120-byte chunks) took 0.53 s. Chunks of 1 MiB and more are about four times slower
# (measured on the real daemon).
STREAM_CHUNK_SIZE = 98304

_VOL_UPLOAD_SPARSE_STREAM = 1  # VIR_STORAGE_VOL_UPLOAD_SPARSE_STREAM


@dataclasses.dataclass(frozen=True)
class UploadResult:
    """What an upload did: ``size`` bytes written to the volume, ``data_bytes`` of them
    sent as data and ``hole_bytes`` skipped as holes (only with ``sparse``)."""

    size: int
    data_bytes: int
    hole_bytes: int
    sparse: bool


def _section(fd: int, pos: int, size: int) -> tuple[bool, int]:
    """(in_data, end) of the data or hole section starting at ``pos``."""
    try:
        data = os.lseek(fd, pos, os.SEEK_DATA)
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # only a hole up to the end of the file
            return False, size
        raise
    if data > pos:
        return False, min(data, size)
    return True, min(os.lseek(fd, pos, os.SEEK_HOLE), size)


def data_sections(fd: int, size: int) -> t.Iterator[tuple[bool, int, int]]:
    """The file's sections as ``(in_data, start, end)``; one data section where the
    platform or file system cannot tell holes apart."""
    if not hasattr(os, "SEEK_DATA"):
        if size:
            yield True, 0, size
        return
    pos = 0
    while pos < size:
        try:
            in_data, end = _section(fd, pos, size)
        except OSError as exc:
            if exc.errno != errno.EINVAL:
                raise
            in_data, end = True, size  # the file system does not support SEEK_DATA
        yield in_data, pos, end
        pos = end


def file_has_holes(path: str) -> bool:
    """True when the file at ``path`` has at least one hole."""
    fd = os.open(path, os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        return any(not in_data for in_data, _start, _end in data_sections(fd, size))
    finally:
        os.close(fd)


def _send_all(stream: t.Any, data: bytes) -> None:
    # A blocking stream normally takes the whole chunk; only a partial send copies the rest.
    while data:
        sent = stream.send(data)
        if sent is None or sent < 0:
            raise LibvirtError(f"the stream refused data (virStreamSend returned {sent})")
        data = data[sent:]


def _stream_file(stream: t.Any, fd: int, size: int, *, sparse: bool, chunk_size: int) -> UploadResult:
    data_bytes = hole_bytes = 0
    sections = data_sections(fd, size) if sparse else iter([(True, 0, size)] if size else [])
    for in_data, start, end in sections:
        if not in_data:
            stream.sendHole(end - start)
            hole_bytes += end - start
            continue
        pos = start
        while pos < end:
            chunk = os.pread(fd, min(chunk_size, end - pos), pos)
            if not chunk:
                raise LibvirtError(f"the file shrank while it was read (at byte {pos} of {size})")
            _send_all(stream, chunk)
            pos += len(chunk)
            data_bytes += len(chunk)
    return UploadResult(size=size, data_bytes=data_bytes, hole_bytes=hole_bytes, sparse=sparse)


def upload_file(
    volume: t.Any,
    path: str,
    *,
    offset: int = 0,
    sparse: bool | None = None,
    chunk_size: int = STREAM_CHUNK_SIZE,
) -> UploadResult:
    """Write the local file ``path`` into the libvirt storage volume ``volume`` (a
    ``virStorageVol``), starting at byte ``offset`` of the volume.

    The file goes through one ``virStream`` opened on the volume's own connection
    (``volume.connect()``), in ``chunk_size`` pieces read with ``pread``, so memory stays
    constant whatever the file size. The file must fit into the volume's capacity (checked
    first: libvirt itself would silently grow a file-backed volume); the volume's size,
    format and the regions outside ``offset .. offset + file size`` are left as they are.

    ``sparse``: ``None`` (the default) streams holes of the file as holes
    (``VIR_STORAGE_VOL_UPLOAD_SPARSE_STREAM``: they are skipped, not sent) when the file has
    any, and falls back to a plain stream when the daemon or driver refuses sparse streams;
    ``True`` requires a sparse stream; ``False`` sends every byte. A hole is not written:
    the volume keeps what it held there, so upload sparse files into new (zeroed) volumes.

    Raises LibvirtError with a message naming the file and the volume; a failed stream is
    aborted, so the daemon never commits a partial upload as a finished one."""
    if chunk_size <= 0:
        raise LibvirtError(f"chunk_size must be positive, got {chunk_size}")
    try:
        name = volume.name()
    except libvirt.libvirtError:
        name = "?"
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError as exc:
        raise LibvirtError(f"Failed to upload {path} to volume {name}: {exc.strerror}") from exc
    try:
        size = os.fstat(fd).st_size
        capacity = int(volume.info()[1])
        if offset < 0 or offset + size > capacity:
            # libvirt would grow a file-backed volume past its capacity instead of failing
            raise LibvirtError(f"the file ({size} bytes) does not fit into the volume ({capacity} bytes) at offset {offset}")
        want_sparse = bool(sparse) if sparse is not None else any(not d for d, _s, _e in data_sections(fd, size))
        conn = volume.connect()
        stream = conn.newStream(0)
        try:
            volume.upload(stream, offset, size, _VOL_UPLOAD_SPARSE_STREAM if want_sparse else 0)
        except libvirt.libvirtError as exc:
            with contextlib.suppress(libvirt.libvirtError):
                stream.abort()
            if not (sparse is None and want_sparse and is_unsupported(exc)):
                raise
            want_sparse = False
            stream = conn.newStream(0)
            volume.upload(stream, offset, size, 0)
        try:
            result = _stream_file(stream, fd, size, sparse=want_sparse, chunk_size=chunk_size)
            stream.finish()
        except BaseException:
            with contextlib.suppress(Exception):
                stream.abort()
            raise
        return result
    except libvirt.libvirtError as exc:
        raise LibvirtError(f"Failed to upload {path} to volume {name}: {exc}") from exc
    except OSError as exc:
        raise LibvirtError(f"Failed to upload {path} to volume {name}: {exc}") from exc
    except LibvirtError as exc:
        raise LibvirtError(f"Failed to upload {path} to volume {name}: {exc}") from exc
    finally:
        os.close(fd)


def read_volume(volume: t.Any, *, limit: int) -> bytes | None:
    """The whole content of a small volume (its capacity), or None when it is larger than
    ``limit`` bytes. Used to compare a volume with the file it should hold."""
    try:
        capacity = int(volume.info()[1])
        if capacity > limit:
            return None
        stream = volume.connect().newStream(0)
        volume.download(stream, 0, capacity, 0)
        chunks: list[bytes] = []
        received = 0
        try:
            while True:
                chunk = stream.recv(STREAM_CHUNK_SIZE)
                if not chunk:
                    break
                if isinstance(chunk, int):
                    raise LibvirtError(f"the stream failed (virStreamRecv returned {chunk})")
                received += len(chunk)
                if received > limit:
                    stream.abort()
                    return None
                chunks.append(chunk)
            stream.finish()
        except BaseException:
            with contextlib.suppress(Exception):
                stream.abort()
            raise
    except libvirt.libvirtError as exc:
        raise LibvirtError(f"Failed to read volume {volume.name()}: {exc}") from exc
    return b"".join(chunks)
