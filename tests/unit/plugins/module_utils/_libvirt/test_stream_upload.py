# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# The real upload (virStorageVolUpload) is tested against the real daemon in the
# libvirt_stream_upload integration target: test:///default does not implement it. Here the
# stream is replaced at its boundary (newStream/upload/send/sendHole/finish) to pin down
# chunking, holes and the fallback, and test:///default checks the error path.

from __future__ import annotations

import hashlib
import os
import typing as t

import pytest

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.connection import libvirt
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.errors import LibvirtError, LibvirtValidationError
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.stream_upload import (
    STREAM_CHUNK_SIZE,
    Digest,
    NotTheVolumeFileError,
    copy_fd_into_file,
    data_sections,
    file_has_holes,
    read_volume,
    upload_fd,
    upload_file,
)

MiB = 1 << 20


class CodedError(libvirt.libvirtError):
    def __init__(self, code: int) -> None:
        super().__init__(f"error code {code}")
        self.code = code

    def get_error_code(self) -> int:
        return self.code


class FakeStream:
    def __init__(self, *, max_send: int | None = None) -> None:
        self.ops: list[tuple[str, int]] = []
        self.data = bytearray()
        self.max_send = max_send
        self.state = "open"

    def send(self, data: bytes) -> int:
        n = min(len(data), self.max_send or len(data))
        self.ops.append(("data", n))
        self.data += data[:n]
        return n

    def sendHole(self, length: int) -> int:
        self.ops.append(("hole", length))
        self.data += b"\0" * length
        return 0

    def finish(self) -> None:
        self.state = "finished"

    def abort(self) -> None:
        self.state = "aborted"


class FakeVolume:
    def __init__(self, *, refuse_sparse: int | None = None, max_send: int | None = None, capacity: int = 1 << 40) -> None:
        self.capacity = capacity
        self.streams: list[FakeStream] = []
        self.uploads: list[tuple[int, int, int]] = []
        self.refuse_sparse = refuse_sparse
        self.max_send = max_send

    def name(self) -> str:
        return "vol.img"

    def info(self) -> list[int]:
        return [0, self.capacity, 0]

    def connect(self) -> FakeVolume:
        return self

    def newStream(self, flags: int) -> FakeStream:
        self.streams.append(FakeStream(max_send=self.max_send))
        return self.streams[-1]

    def upload(self, stream: FakeStream, offset: int, length: int, flags: int) -> int:
        if flags and self.refuse_sparse is not None:
            raise CodedError(self.refuse_sparse)
        self.uploads.append((offset, length, flags))
        return 0


def sparse_file(path: str, layout: list[tuple[int, int]], size: int) -> bytes:
    """A file of ``size`` bytes with data (0xA5..) at the (offset, length) ranges, holes elsewhere."""
    content = bytearray(size)
    with open(path, "wb") as fh:
        fh.truncate(size)
        for offset, length in layout:
            chunk = hashlib.sha256(str(offset).encode()).digest() * (length // 32 + 1)
            fh.seek(offset)
            fh.write(chunk[:length])
            content[offset : offset + length] = chunk[:length]
    return bytes(content)


@pytest.mark.parametrize(
    ("layout", "size", "sections"),
    [
        ([(0, 1 * MiB)], 1 * MiB, [(True, 0, 1 * MiB)]),
        ([], 3 * MiB, [(False, 0, 3 * MiB)]),
        ([(1 * MiB, 1 * MiB)], 3 * MiB, [(False, 0, 1 * MiB), (True, 1 * MiB, 2 * MiB), (False, 2 * MiB, 3 * MiB)]),
        ([(0, 4096), (2 * MiB, 4096)], 2 * MiB + 4096, [(True, 0, 4096), (False, 4096, 2 * MiB), (True, 2 * MiB, 2 * MiB + 4096)]),
        ([], 0, []),
    ],
)
def test_data_sections(tmp_path: t.Any, layout: list[tuple[int, int]], size: int, sections: list[tuple[bool, int, int]]) -> None:
    path = str(tmp_path / "f")
    sparse_file(path, layout, size)
    fd = os.open(path, os.O_RDONLY)
    try:
        assert list(data_sections(fd, size)) == sections
    finally:
        os.close(fd)
    assert file_has_holes(path) is any(not s[0] for s in sections)


@pytest.mark.parametrize(
    ("sparse", "layout", "size", "flags", "data_bytes", "hole_bytes"),
    [
        (None, [(0, 3 * MiB)], 3 * MiB, 0, 3 * MiB, 0),  # no holes: a plain stream
        (None, [(1 * MiB, 1 * MiB)], 4 * MiB, 1, 1 * MiB, 3 * MiB),  # holes: a sparse stream
        (False, [(1 * MiB, 1 * MiB)], 4 * MiB, 0, 4 * MiB, 0),  # sparse refused by the caller
        (True, [(0, 3 * MiB)], 3 * MiB, 1, 3 * MiB, 0),  # sparse required
        (None, [], 0, 0, 0, 0),  # empty file
    ],
)
def test_upload(tmp_path: t.Any, sparse: bool | None, layout: list[tuple[int, int]], size: int, flags: int, data_bytes: int, hole_bytes: int) -> None:
    path = str(tmp_path / "f")
    content = sparse_file(path, layout, size)
    volume = FakeVolume()
    result = upload_file(volume, path, sparse=sparse)
    (stream,) = volume.streams
    assert volume.uploads == [(0, size, flags)]
    assert (result.size, result.data_bytes, result.hole_bytes, result.sparse) == (size, data_bytes, hole_bytes, bool(flags))
    assert bytes(stream.data) == content
    assert stream.state == "finished"
    assert all(n <= STREAM_CHUNK_SIZE for op, n in stream.ops if op == "data")


def test_upload_chunk_size_and_short_sends(tmp_path: t.Any) -> None:
    path = str(tmp_path / "f")
    content = sparse_file(path, [(0, 100_000)], 100_000)
    volume = FakeVolume(max_send=7000)
    upload_file(volume, path, offset=512, chunk_size=65536)
    (stream,) = volume.streams
    assert bytes(stream.data) == content
    assert volume.uploads == [(512, 100_000, 0)]
    assert max(n for _op, n in stream.ops) == 7000


@pytest.mark.parametrize("code", [3, 74])
def test_falls_back_to_a_plain_stream_when_sparse_is_refused(tmp_path: t.Any, code: int) -> None:
    path = str(tmp_path / "f")
    content = sparse_file(path, [(MiB, 4096)], 2 * MiB)
    volume = FakeVolume(refuse_sparse=code)
    result = upload_file(volume, path)
    assert (result.sparse, result.data_bytes) == (False, 2 * MiB)
    assert [s.state for s in volume.streams] == ["aborted", "finished"]
    assert bytes(volume.streams[1].data) == content


def test_required_sparse_is_not_downgraded(tmp_path: t.Any) -> None:
    path = str(tmp_path / "f")
    sparse_file(path, [(0, 10)], MiB)
    with pytest.raises(LibvirtError, match=r"^Failed to upload .*/f to volume vol.img: error code 3"):
        upload_file(FakeVolume(refuse_sparse=3), path, sparse=True)


def test_a_failing_stream_is_aborted(tmp_path: t.Any) -> None:
    path = str(tmp_path / "f")
    sparse_file(path, [(0, MiB)], MiB)
    volume = FakeVolume()

    def broken_send(data: bytes) -> int:
        raise CodedError(1)

    original = volume.newStream

    def new_stream(flags: int) -> FakeStream:
        stream = original(flags)
        stream.send = broken_send  # type: ignore[method-assign]
        return stream

    volume.newStream = new_stream  # type: ignore[method-assign]
    with pytest.raises(LibvirtError, match="^Failed to upload .* to volume vol.img: error code 1"):
        upload_file(volume, path)
    assert volume.streams[0].state == "aborted"


@pytest.mark.parametrize(
    ("capacity", "offset", "message"),
    [
        (4095, 0, r"the file \(4096 bytes\) does not fit into the volume \(4095 bytes\) at offset 0$"),
        (8192, 4097, r"the file \(4096 bytes\) does not fit into the volume \(8192 bytes\) at offset 4097$"),
        (8192, -1, r"the file \(4096 bytes\) does not fit into the volume \(8192 bytes\) at offset -1$"),
    ],
)
def test_the_file_must_fit(tmp_path: t.Any, capacity: int, offset: int, message: str) -> None:
    path = str(tmp_path / "f")
    sparse_file(path, [(0, 4096)], 4096)
    volume = FakeVolume(capacity=capacity)
    with pytest.raises(LibvirtError, match="^Failed to upload .*/f to volume vol.img: " + message):
        upload_file(volume, path, offset=offset)
    assert volume.streams == []  # refused before any stream was opened


@pytest.mark.parametrize(
    ("path", "kwargs", "message"),
    [
        ("/nonexistent/file", {}, "^Failed to upload /nonexistent/file to volume vol.img: No such file or directory"),
        ("/dev/null", {"chunk_size": 0}, "^chunk_size must be positive, got 0"),
    ],
)
def test_bad_arguments(path: str, kwargs: dict[str, t.Any], message: str) -> None:
    with pytest.raises(LibvirtError, match=message):
        upload_file(FakeVolume(), path, **kwargs)


def test_the_test_driver_refuses_uploads_cleanly(tmp_path: t.Any) -> None:
    path = str(tmp_path / "f")
    sparse_file(path, [(0, 4096)], 4096)
    conn = libvirt.open("test:///default")
    try:
        pool = conn.storagePoolLookupByName("default-pool")
        vol = pool.createXML("<volume><name>stream-upload-test.img</name><capacity>4096</capacity></volume>", 0)
        try:
            with pytest.raises(LibvirtError, match=r"^Failed to upload .*/f to volume stream-upload-test.img: .*(not supported|unsupported)"):
                upload_file(vol, path)
            with pytest.raises(LibvirtError, match=r"^Failed to read volume stream-upload-test.img: "):
                read_volume(vol, limit=1 << 20)
            assert read_volume(vol, limit=100) is None  # larger than the limit: not read at all
        finally:
            vol.delete(0)
    finally:
        conn.close()


class FakeDownloadVolume:
    """A volume whose download stream yields ``chunks`` (the transport boundary)."""

    def __init__(self, chunks: list[bytes], capacity: int) -> None:
        self.chunks = list(chunks)
        self.capacity = capacity
        self.state = "new"
        self.downloads: list[tuple[int, int]] = []

    def info(self) -> list[int]:
        return [0, self.capacity, 0]

    def name(self) -> str:
        return "seed.iso"

    def connect(self) -> FakeDownloadVolume:
        return self

    def newStream(self, flags: int) -> FakeDownloadVolume:
        return self

    def download(self, stream: object, offset: int, length: int, flags: int) -> int:
        self.downloads.append((offset, length))
        return 0

    def recv(self, nbytes: int) -> bytes:
        assert nbytes == STREAM_CHUNK_SIZE
        return self.chunks.pop(0) if self.chunks else b""

    def finish(self) -> None:
        self.state = "finished"

    def abort(self) -> None:
        self.state = "aborted"


@pytest.mark.parametrize(
    ("chunks", "capacity", "limit", "expected", "state", "downloads"),
    [
        ([b"ab", b"cd"], 4, 100, b"abcd", "finished", [(0, 4)]),
        ([], 0, 100, b"", "finished", [(0, 0)]),
        ([b"ab"], 200, 100, None, "new", []),  # larger than the limit: not even opened
        ([b"a" * 60, b"b" * 60], 100, 100, None, "aborted", [(0, 100)]),  # the stream says more than the capacity
    ],
)
def test_read_volume(chunks: list[bytes], capacity: int, limit: int, expected: bytes | None, state: str, downloads: list[tuple[int, int]]) -> None:
    volume = FakeDownloadVolume(chunks, capacity)
    assert read_volume(volume, limit=limit) == expected
    assert (volume.state, volume.downloads) == (state, downloads)


@pytest.mark.parametrize(
    ("layout", "size", "head_bytes"),
    [
        ([(0, 3 * MiB)], 3 * MiB, 0),
        ([(0, 3 * MiB)], 3 * MiB, 2 * MiB + 4096),
        ([(0, 64 * 1024), (2 * MiB, 64 * 1024)], 4 * MiB, 1 * MiB),  # holes inside and after the head
        ([(3 * MiB, 4096)], 4 * MiB, 2 * MiB),  # the head is all hole
        ([], 1 * MiB, 0),
    ],
)
def test_the_digest_covers_every_byte_sent_holes_as_zeros(tmp_path: t.Any, layout: list[tuple[int, int]], size: int, head_bytes: int) -> None:
    path = str(tmp_path / "image")
    content = sparse_file(path, layout, size)
    digest = Digest("sha256")
    volume = FakeVolume()
    fd = os.open(path, os.O_RDONLY)
    try:
        upload_fd(volume, fd, size, head=content[:head_bytes], digest=digest)
    finally:
        os.close(fd)
    assert bytes(volume.streams[-1].data) == content
    assert digest.hexdigest() == hashlib.sha256(content).hexdigest()


def test_the_head_is_sent_as_inspected_not_read_again(tmp_path: t.Any) -> None:
    """A file rewritten after its head was read and inspected: the head that goes out is the
    inspected one (and the digest is of what went out), never the file's new first bytes."""
    path = tmp_path / "image"
    path.write_bytes(b"A" * (3 * MiB))
    inspected = path.read_bytes()[: 2 * MiB]
    fd = os.open(path, os.O_RDONLY)
    try:
        with open(path, "r+b") as writer:
            writer.write(b"QFI\xfb" + b"B" * 100)  # the attacker's header, after inspection
        digest = Digest("sha256")
        volume = FakeVolume()
        upload_fd(volume, fd, 3 * MiB, head=inspected, digest=digest, sparse=False)
    finally:
        os.close(fd)
    sent = bytes(volume.streams[-1].data)
    assert sent[: 2 * MiB] == inspected
    assert digest.hexdigest() == hashlib.sha256(sent).hexdigest()


def test_a_file_changed_during_the_upload_fails_the_check_and_aborts(tmp_path: t.Any) -> None:
    """The checksum is of the file as it was; the file changes after the first chunk: the check
    before finish() sees the digest of what was sent, fails, and the stream is aborted."""
    path = tmp_path / "image"
    good = os.urandom(4 * STREAM_CHUNK_SIZE)
    path.write_bytes(good)
    expected = hashlib.sha256(good).hexdigest()

    class Swapping(FakeStream):
        def send(self, data: bytes) -> int:
            if not self.ops:
                path.write_bytes(b"\0" * len(good))  # swapped in place while the upload runs
            return super().send(data)

    class SwappingVolume(FakeVolume):
        def newStream(self, flags: int) -> FakeStream:
            self.streams.append(Swapping())
            return self.streams[-1]

    volume = SwappingVolume()
    digest = Digest("sha256")

    def check() -> None:
        if digest.hexdigest() != expected:
            raise LibvirtValidationError("checksum mismatch")

    fd = os.open(path, os.O_RDONLY)
    try:
        with pytest.raises(LibvirtValidationError, match="checksum mismatch"):
            upload_fd(volume, fd, len(good), digest=digest, before_finish=check, sparse=False)
    finally:
        os.close(fd)
    assert volume.streams[-1].state == "aborted"


def test_a_digest_with_nothing_fed_is_the_empty_digest() -> None:
    assert Digest("sha512").hexdigest() == hashlib.sha512(b"").hexdigest()
    zeros = Digest("sha256")
    zeros.update_zeros(3 * MiB + 5)
    assert zeros.hexdigest() == hashlib.sha256(bytes(3 * MiB + 5)).hexdigest()


@pytest.mark.parametrize("with_digest", [True, False])
@pytest.mark.parametrize(
    ("layout", "size", "head_bytes"),
    [
        ([(0, 3 * MiB)], 3 * MiB, 2 * MiB),
        ([(0, 64 * 1024), (9 * MiB, 64 * 1024)], 12 * MiB, 1 * MiB),
        ([(10 * MiB, 4096)], 12 * MiB, 2 * MiB),
        ([(0, 20 * MiB)], 20 * MiB, 2 * MiB),  # dense, in three pieces of the kernel's copy
        ([], 0, 0),
    ],
)
def test_the_same_host_copy_keeps_holes_and_digests_what_the_volume_holds(
    tmp_path: t.Any, layout: list[tuple[int, int]], size: int, head_bytes: int, with_digest: bool
) -> None:
    source = str(tmp_path / "image")
    content = sparse_file(source, layout, size)
    target = tmp_path / "volume"
    target.write_bytes(b"QFI\xfb" + b"\x01" * 300000)  # what libvirt made first (a qcow2 header) goes
    digest = Digest("sha256") if with_digest else None
    fd = os.open(source, os.O_RDONLY)
    try:
        result = copy_fd_into_file(str(target), fd, size, is_volume_file=lambda info: True, head=content[:head_bytes], digest=digest)
    finally:
        os.close(fd)
    assert target.read_bytes() == content
    assert result.data_bytes + result.hole_bytes == size
    if digest is not None:
        assert digest.hexdigest() == hashlib.sha256(content).hexdigest()
    if layout and layout[0][0] >= head_bytes:  # holes stay holes, in the head too (its zeros)
        assert os.stat(target).st_blocks * 512 <= sum(length for _offset, length in layout) + 64 * 1024


def test_the_same_host_copy_writes_only_into_the_volumes_own_file(tmp_path: t.Any) -> None:
    source = tmp_path / "image"
    source.write_bytes(b"x" * 4096)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_bytes(b"keep")
    link = tmp_path / "link"
    link.symlink_to(elsewhere)
    hardlinked = tmp_path / "hard"
    os.link(elsewhere, hardlinked)
    fd = os.open(source, os.O_RDONLY)
    try:
        for target, recognised in ((link, True), (hardlinked, True), (tmp_path / "missing", True), (elsewhere, False)):

            def is_volume_file(info: os.stat_result, ok: bool = recognised) -> bool:
                return ok

            with pytest.raises(NotTheVolumeFileError):
                copy_fd_into_file(str(target), fd, 4096, is_volume_file=is_volume_file)
    finally:
        os.close(fd)
    assert elsewhere.read_bytes() == b"keep"


def test_the_same_host_copy_leaves_zeros_in_the_holes_of_a_volume_that_held_data(tmp_path: t.Any) -> None:
    """A fully allocated volume file (what libvirt makes for a raw volume) that held data: the
    holes of the source read as zeros afterwards (punched), not as the old data."""
    source = str(tmp_path / "image")
    content = sparse_file(source, [(0, 64 * 1024), (6 * MiB, 4096)], 8 * MiB)
    target = tmp_path / "volume"
    target.write_bytes(b"\x01" * (8 * MiB))
    fd = os.open(source, os.O_RDONLY)
    try:
        copy_fd_into_file(str(target), fd, 8 * MiB, is_volume_file=lambda info: True, head=content[: 2 * MiB])
    finally:
        os.close(fd)
    assert target.read_bytes() == content


def test_a_digest_hashes_ranges_of_a_file_bytes_and_holes_in_the_order_fed(tmp_path: t.Any) -> None:
    """Ranges of a file (many more pieces than the digest has buffers: each is hashed before
    it is read into again), bytes and holes, fed in turn, are hashed in the order fed."""
    path = tmp_path / "file"
    content = os.urandom(40 * MiB + 7)
    path.write_bytes(content)
    fd = os.open(path, os.O_RDONLY)
    try:
        digest = Digest("sha256")
        digest.update(b"head")
        for start in range(5, len(content), 3 * MiB):
            digest.update_from_file(fd, start, min(start + 3 * MiB, len(content)))
        digest.update_zeros(10)
        digest.update_from_file(fd, 0, 5)
        digest.update_from_file(fd, 9, 9)  # nothing
        got = digest.hexdigest()
    finally:
        os.close(fd)
    assert got == hashlib.sha256(b"head" + content[5:] + bytes(10) + content[:5]).hexdigest()


def test_a_range_past_the_end_of_the_file_fails_the_digest(tmp_path: t.Any) -> None:
    """The volume's file shorter than what was copied (cut meanwhile): the digest is refused,
    never the digest of fewer bytes."""
    path = tmp_path / "file"
    path.write_bytes(b"x" * MiB)
    fd = os.open(path, os.O_RDONLY)
    try:
        digest = Digest("sha256")
        with pytest.raises(LibvirtError, match="^the volume's file ended at byte 1048576$"):
            digest.update_from_file(fd, 0, 2 * MiB)
    finally:
        os.close(fd)
