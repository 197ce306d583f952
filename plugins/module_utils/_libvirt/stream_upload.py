# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Streaming a local file into a libvirt storage volume (and reading a small one back),
in-process through virStream: constant memory, holes of sparse files skipped."""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import errno
import hashlib
import os
import queue
import stat
import threading
import typing as t

from .connection import libvirt
from .errors import LibvirtError, LibvirtValidationError, is_unsupported

__all__ = [
    "STREAM_CHUNK_SIZE",
    "Digest",
    "NotTheVolumeFileError",
    "UploadResult",
    "copy_fd_into_file",
    "data_sections",
    "digest_volume",
    "file_has_holes",
    "read_volume",
    "read_volume_head",
    "upload_fd",
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


class Digest:
    """A hash of the bytes an upload writes, computed on a thread of its own: hashlib, libvirt's
    stream and the kernel's copy all let go of the GIL, so hashing runs beside the upload.
    Holes count as the zeros they read as. ``hexdigest`` waits for what was fed."""

    _ZEROS = bytes(1 << 20)
    _READ_SIZE = 1 << 20

    def __init__(self, algorithm: str) -> None:
        self.algorithm = algorithm
        self._hash = hashlib.new(algorithm)
        self._queue: queue.Queue[t.Any] = queue.Queue(maxsize=64)  # bounds memory: 64 chunks
        # Buffers for the pieces of a file read for the hash: at most 8, each reused once hashed.
        self._free: queue.Queue[memoryview] = queue.Queue()
        self._buffers_to_make = 8
        self._thread = threading.Thread(target=self._run, name="devinfra-digest", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            if isinstance(item, int):  # a hole of that many zero bytes
                while item > 0:
                    step = min(item, len(self._ZEROS))
                    self._hash.update(self._ZEROS[:step] if step < len(self._ZEROS) else self._ZEROS)
                    item -= step
            elif isinstance(item, tuple):  # a pooled buffer and how much of it was read
                buffer, count = item
                self._hash.update(buffer[:count])
                self._free.put(buffer)
            else:
                self._hash.update(item)

    def update(self, data: bytes) -> None:
        if data:
            self._queue.put(data)

    def update_zeros(self, count: int) -> None:
        if count > 0:
            self._queue.put(count)

    def update_from_file(self, fd: int, start: int, end: int) -> None:
        """Bytes ``start..end`` of the open file ``fd``: read here (from the page cache, into
        reused buffers) while the digest's thread hashes the previous ones."""
        pos = start
        while pos < end:
            if self._free.empty() and self._buffers_to_make > 0:
                self._buffers_to_make -= 1
                buffer = memoryview(bytearray(self._READ_SIZE))
            else:
                buffer = self._free.get()  # waits for the thread to hash one
            count = os.preadv(fd, [buffer[: min(len(buffer), end - pos)]], pos)
            if count == 0:
                self._free.put(buffer)
                raise LibvirtError(f"the volume's file ended at byte {pos}")
            self._queue.put((buffer, count))
            pos += count

    def hexdigest(self) -> str:
        if self._thread.is_alive():
            self._queue.put(None)
            self._thread.join()
        return self._hash.hexdigest()


_ZERO_BLOCK = bytes(4096)


def head_sections(head: bytes, *, sparse: bool) -> list[tuple[bool, int, int]]:
    """The head's sections as ``(in_data, start, end)``: with ``sparse``, runs of whole 4 KiB
    blocks of zeros are holes (the head is what was inspected, so its holes are found in its
    bytes, not in the file, which may have changed since), the rest data."""
    if not sparse:
        return [(True, 0, len(head))] if head else []
    sections: list[tuple[bool, int, int]] = []
    for start in range(0, len(head), len(_ZERO_BLOCK)):
        end = min(start + len(_ZERO_BLOCK), len(head))
        in_data = head[start:end] != _ZERO_BLOCK[: end - start]
        if sections and sections[-1][0] == in_data:
            sections[-1] = (in_data, sections[-1][1], end)
        else:
            sections.append((in_data, start, end))
    return sections


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


def _pieces(fd: int, size: int, *, head: bytes, sparse: bool) -> t.Iterator[tuple[str, int, int]]:
    """What an upload of ``size`` bytes of ``fd`` writes, in order, as ``(kind, start, end)``:
    ``head`` (bytes of the head, already read and inspected: written as they are, never read
    again), ``hole`` (zeros, skipped with ``sparse``: the head's blocks of zeros, the file's
    holes) or ``file`` (data read from ``fd`` past the head)."""
    for in_data, start, end in head_sections(head, sparse=sparse):
        yield ("head" if in_data else "hole"), start, end
    sections = data_sections(fd, size) if sparse else iter([(True, 0, size)] if size else [])
    for in_data, section_start, end in sections:
        start = max(section_start, len(head))  # the head is written already
        if start < end:
            yield ("file" if in_data else "hole"), start, end


def _stream_file(stream: t.Any, fd: int, size: int, *, sparse: bool, chunk_size: int, head: bytes, digest: Digest | None) -> UploadResult:
    """Send the file through ``stream``: the head as inspected, then the rest from ``fd``."""
    data_bytes = hole_bytes = 0
    for kind, start, end in _pieces(fd, size, head=head, sparse=sparse):
        if kind == "hole":
            stream.sendHole(end - start)
            hole_bytes += end - start
            if digest is not None:
                digest.update_zeros(end - start)
            continue
        pos = start
        while pos < end:
            chunk = head[pos : min(pos + chunk_size, end)] if kind == "head" else os.pread(fd, min(chunk_size, end - pos), pos)
            if not chunk:
                raise LibvirtError(f"the file shrank while it was read (at byte {pos} of {size})")
            _send_all(stream, chunk)
            if digest is not None:
                digest.update(chunk)
            pos += len(chunk)
        data_bytes += end - start
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
    ``virStorageVol``), starting at byte ``offset`` of the volume: ``upload_fd`` on the
    file opened once."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError as exc:
        raise LibvirtError(f"Failed to upload {path} to volume {_name(volume)}: {exc.strerror}") from exc
    try:
        return upload_fd(volume, fd, os.fstat(fd).st_size, offset=offset, sparse=sparse, chunk_size=chunk_size, label=path)
    finally:
        os.close(fd)


def _name(volume: t.Any) -> str:
    try:
        return str(volume.name())
    except libvirt.libvirtError:
        return "?"


def upload_fd(
    volume: t.Any,
    fd: int,
    size: int,
    *,
    offset: int = 0,
    sparse: bool | None = None,
    chunk_size: int = STREAM_CHUNK_SIZE,
    head: bytes = b"",
    digest: Digest | None = None,
    before_finish: t.Callable[[], None] | None = None,
    label: str = "the file",
) -> UploadResult:
    """Write ``size`` bytes of the open file ``fd`` into the libvirt storage volume ``volume``
    (a ``virStorageVol``), starting at byte ``offset`` of the volume.

    The file goes through one ``virStream`` opened on the volume's own connection
    (``volume.connect()``), in ``chunk_size`` pieces read with ``pread``, so memory stays
    constant whatever the file size. The file must fit into the volume's capacity (checked
    first: libvirt itself would silently grow a file-backed volume); the volume's size,
    format and the regions outside ``offset .. offset + size`` are left as they are.

    ``head``: the file's first bytes, already read (and inspected) by the caller: they are sent
    as they are, and the file is read from ``len(head)`` on. ``digest``: fed every byte sent
    (holes as zeros). ``before_finish``: called once everything is sent, before the stream is
    finished; what it raises aborts the stream (a digest that does not match).

    ``sparse``: ``None`` (the default) streams holes of the file as holes
    (``VIR_STORAGE_VOL_UPLOAD_SPARSE_STREAM``: they are skipped, not sent) when the file has
    any, and falls back to a plain stream when the daemon or driver refuses sparse streams;
    ``True`` requires a sparse stream; ``False`` sends every byte. A hole is not written:
    the volume keeps what it held there, so upload sparse files into new (zeroed) volumes.

    Raises LibvirtError with a message naming ``label`` and the volume; a failed stream is
    aborted, so the daemon never commits a partial upload as a finished one."""
    if chunk_size <= 0:
        raise LibvirtError(f"chunk_size must be positive, got {chunk_size}")
    name = _name(volume)
    try:
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
            result = _stream_file(stream, fd, size, sparse=want_sparse, chunk_size=chunk_size, head=head[:size], digest=digest)
            if before_finish is not None:
                before_finish()
            stream.finish()
        except BaseException:
            with contextlib.suppress(Exception):
                stream.abort()
            raise
        return result
    except libvirt.libvirtError as exc:
        raise LibvirtError(f"Failed to upload {label} to volume {name}: {exc}") from exc
    except OSError as exc:
        raise LibvirtError(f"Failed to upload {label} to volume {name}: {exc}") from exc
    except LibvirtValidationError:
        raise  # the caller's own check (before_finish): its message is whole
    except LibvirtError as exc:
        raise LibvirtError(f"Failed to upload {label} to volume {name}: {exc}") from exc


def _download(volume: t.Any, length: int, take: t.Callable[[bytes], bool]) -> None:
    """Stream the volume's first ``length`` bytes (0: all of it) from the daemon into ``take``,
    a piece at a time, until it returns False; a failed or stopped stream is aborted."""
    try:
        stream = volume.connect().newStream(0)
        volume.download(stream, 0, length, 0)
        try:
            while True:
                chunk = stream.recv(STREAM_CHUNK_SIZE)
                if isinstance(chunk, int):
                    raise LibvirtError(f"the stream failed (virStreamRecv returned {chunk})")
                if not chunk:
                    break
                if not take(chunk):
                    stream.abort()
                    return
            stream.finish()
        except BaseException:
            with contextlib.suppress(Exception):
                stream.abort()
            raise
    except libvirt.libvirtError as exc:
        raise LibvirtError(f"Failed to read volume {_name(volume)}: {exc}") from exc


def digest_volume(volume: t.Any, algorithm: str) -> str:
    """The hex digest of the volume's whole content, streamed from the daemon (works on a
    remote host too), in constant memory."""
    digest = hashlib.new(algorithm)

    def take(chunk: bytes) -> bool:
        digest.update(chunk)
        return True

    _download(volume, 0, take)
    return digest.hexdigest()


def read_volume(volume: t.Any, *, limit: int) -> bytes | None:
    """The whole content of a small volume (its capacity), or None when it is larger than
    ``limit`` bytes. Used to compare a volume with the file it should hold."""
    try:
        capacity = int(volume.info()[1])
    except libvirt.libvirtError as exc:
        raise LibvirtError(f"Failed to read volume {_name(volume)}: {exc}") from exc
    if capacity > limit:
        return None
    chunks: list[bytes] = []
    received = [0]

    def take(chunk: bytes) -> bool:
        received[0] += len(chunk)
        chunks.append(chunk)
        return received[0] <= limit

    _download(volume, capacity, take)
    return None if received[0] > limit else b"".join(chunks)


def read_volume_head(volume: t.Any, length: int) -> bytes:
    """The first ``length`` bytes of the volume (all of it when it is shorter)."""
    try:
        size = min(length, int(volume.info()[1]))
    except libvirt.libvirtError as exc:
        raise LibvirtError(f"Failed to read volume {_name(volume)}: {exc}") from exc
    chunks: list[bytes] = []

    def take(chunk: bytes) -> bool:
        chunks.append(chunk)
        return True

    if size:
        _download(volume, size, take)
    return b"".join(chunks)[:size]


# The same-host fast path: the pieces copy_file_range moves in the kernel (each read back for
# the digest as soon as it is copied).
_COPY_CHUNK = 8 << 20


class NotTheVolumeFileError(LibvirtError):
    """The file at the volume's path here is not the volume's file (the daemon runs elsewhere):
    nothing was written; stream the content instead."""


def copy_fd_into_file(
    target: str,
    fd: int,
    size: int,
    *,
    is_volume_file: t.Callable[[os.stat_result], bool],
    sparse: bool | None = None,
    head: bytes = b"",
    digest: Digest | None = None,
    before_finish: t.Callable[[], None] | None = None,
) -> UploadResult:
    """Write ``size`` bytes of the open file ``fd`` into the file ``target`` of a volume that
    lives on this host (a file of a ``dir`` pool, just created): what ``upload_fd`` does,
    without the stream. ``head`` is written as it is; the rest is copied by the kernel
    (``copy_file_range``: no copy through this process, a reflink where the file system has
    them), holes of the source left as holes unless ``sparse`` is false. The digest is of what
    the target holds afterwards (only root can write it), so a source that changes meanwhile
    is caught by ``before_finish``: each piece copied is read back from the page cache at once,
    into reused buffers, and hashed on the digest's thread while the next one is copied.

    ``target`` is opened without following links and must be a regular file of this user with
    one link that ``is_volume_file`` recognises (the times libvirt reports for the volume), or
    nothing is written (NotTheVolumeFileError)."""
    try:
        out = os.open(target, os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError as exc:
        raise NotTheVolumeFileError(f"cannot open the volume's file {target} here: {exc.strerror}") from exc
    try:
        info = os.fstat(out)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid() or info.st_nlink != 1 or not is_volume_file(info):
            raise NotTheVolumeFileError(f"{target} here is not the volume's file (a regular file of this user with one link)")
        # The content's size, deallocated: what libvirt wrote when it made the volume (a raw
        # volume's preallocation, a qcow2 header) goes, and the copy writes into holes, as cp
        # does into a new file (writing over preallocated extents was 1.5x slower). Not by a
        # truncation to 0: ext4 then flushes the whole file on close (its replace-via-truncate
        # rule), which made the copy 2.5x slower than cp.
        os.ftruncate(out, size)
        _punch_hole(out, 0, size)
        want_sparse = sparse is not False
        data_bytes = hole_bytes = 0
        for kind, start, end in _pieces(fd, size, head=head[:size], sparse=want_sparse):
            if kind == "hole":  # the range was punched: it reads as zeros
                hole_bytes += end - start
                if digest is not None:
                    digest.update_zeros(end - start)
                continue
            if kind == "head":
                _write_all(out, head[start:end], start)
                if digest is not None:
                    digest.update(head[start:end])
            else:
                _copy_range(fd, out, start, end, size, digest)
            data_bytes += end - start
        if before_finish is not None:
            before_finish()
        return UploadResult(size=size, data_bytes=data_bytes, hole_bytes=hole_bytes, sparse=want_sparse)
    except OSError as exc:
        raise LibvirtError(f"Failed to copy into {target}: {exc}") from exc
    finally:
        os.close(out)


_FALLOC_FL_KEEP_SIZE_PUNCH_HOLE = 0x01 | 0x02


def _punch_hole(out: int, offset: int, length: int) -> None:
    """Deallocate a range of ``out``: it reads as zeros afterwards. Where the C library or the
    file system cannot, zeros are written over what the range holds that is not a hole."""
    if length <= 0:
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_longlong, ctypes.c_longlong]
        if libc.fallocate(out, _FALLOC_FL_KEEP_SIZE_PUNCH_HOLE, offset, length) == 0:
            return
    except (OSError, AttributeError):
        pass
    zeros = bytes(1 << 20)
    for in_data, start, end in list(data_sections(out, offset + length)):
        if in_data and end > offset:
            pos = max(start, offset)
            while pos < end:
                _write_all(out, zeros[: min(len(zeros), end - pos)], pos)
                pos += min(len(zeros), end - pos)


def _write_all(out: int, data: bytes, offset: int) -> None:
    view = memoryview(data)
    while view:
        written = os.pwrite(out, view, offset)
        view, offset = view[written:], offset + written


def _copy_range(src: int, out: int, start: int, end: int, size: int, digest: Digest | None) -> None:
    """Bytes ``start..end`` of ``src`` to the same place in ``out``: in the kernel, or through
    this process where copy_file_range cannot (another file system, an old kernel). Each piece
    copied is read back for ``digest``, whose thread hashes it while the next is copied."""
    pos, kernel = start, hasattr(os, "copy_file_range")
    while pos < end:
        count = min(_COPY_CHUNK, end - pos)
        copied = -1
        if kernel:
            try:
                copied = os.copy_file_range(src, out, count, pos, pos)
            except OSError as exc:
                if exc.errno not in (errno.EXDEV, errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
                    raise
                kernel = False
        if copied < 0:
            chunk = os.pread(src, min(count, 1 << 20), pos)
            _write_all(out, chunk, pos)
            copied = len(chunk)
        if copied == 0:
            raise LibvirtError(f"the file shrank while it was read (at byte {pos} of {size})")
        if digest is not None:
            digest.update_from_file(out, pos, pos + copied)
        pos += copied
