# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Compressed content for create.content.url: the reader on its own, then the source as the
# module opens it (HTTP on 127.0.0.1 and local files) streamed into a fake volume (the test
# driver refuses uploads), then the module on test:///default for what fails before an upload.

from __future__ import annotations

import bz2
import gzip
import hashlib
import http.server
import lzma
import os
import shutil
import subprocess
import threading
import typing as t

import pytest

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt import decompress
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt import volume as volume_utils
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.connection import libvirt
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.errors import LibvirtError
from ansible_collections.devinfra.providers.plugins.modules import libvirt_volume

TEST_URI = "test:///default"
POOL = "default-pool"
MiB = 1 << 20
TOOLS = {"gzip": ["gzip", "-c"], "xz": ["xz", "-c", "--check=crc64"], "bzip2": ["bzip2", "-c"], "zstd": ["zstd", "-q", "-c"]}
SUFFIX = {"gzip": ".gz", "xz": ".xz", "bzip2": ".bz2", "zstd": ".zst"}


def _kinds() -> list[t.Any]:
    return [
        pytest.param(kind, marks=pytest.mark.skipif(not decompress.zstd_available(), reason="the Python package zstandard is not installed"))
        if kind == "zstd"
        else kind
        for kind in TOOLS
    ]


def _compress(kind: str, path: str) -> bytes:
    if shutil.which(TOOLS[kind][0]) is None:
        pytest.skip(f"{TOOLS[kind][0]} is not installed")
    return subprocess.run([*TOOLS[kind], path], check=True, capture_output=True).stdout


def _image(tmp_path: t.Any, fmt: str, *, backing: str | None = None) -> str:
    """A small image with data and zero runs: a raw one of 3 MiB, or a qcow2 of it."""
    raw = tmp_path / "disk.raw"
    raw.write_bytes(os.urandom(5000) + bytes(MiB) + os.urandom(70000) + bytes(2 * MiB - 75000) + b"end")
    if fmt == "raw":
        return str(raw)
    out = str(tmp_path / "disk.qcow2")
    args = ["-b", backing, "-F", "raw"] if backing else []
    cmd = ["qemu-img", "create", "-f", "qcow2", *args, out] if backing else ["qemu-img", "convert", "-O", "qcow2", str(raw), out]
    subprocess.run(cmd, check=True, capture_output=True)
    return out


def _reader(data: bytes, kind: str, *, limit: int = 1 << 40, piece: int = 7000) -> decompress.DecompressedReader:
    chunks = [data[i : i + piece] for i in range(0, len(data), piece)]
    return decompress.DecompressedReader(kind, lambda _n: chunks.pop(0) if chunks else b"", limit=limit, option="create.content.url")


def _all(reader: decompress.DecompressedReader) -> bytes:
    parts = []
    while chunk := reader.read():
        parts.append(chunk)
    return b"".join(parts)


@pytest.mark.parametrize("kind", _kinds())
def test_each_compression_reads_back_the_bytes_compressed(tmp_path: t.Any, kind: str) -> None:
    path = _image(tmp_path, "raw")
    packed = _compress(kind, path)
    assert decompress.detect(packed) == kind
    with open(path, "rb") as source:
        assert _all(_reader(packed, kind)) == source.read()


@pytest.mark.parametrize("kind", _kinds())
def test_members_written_one_after_the_other_are_all_read(tmp_path: t.Any, kind: str) -> None:
    (tmp_path / "a").write_bytes(b"first " * 1000)
    (tmp_path / "b").write_bytes(b"second " * 1000)
    packed = _compress(kind, str(tmp_path / "a")) + _compress(kind, str(tmp_path / "b"))
    if kind == "xz":
        packed = _compress(kind, str(tmp_path / "a")) + bytes(8) + _compress(kind, str(tmp_path / "b")) + bytes(4)  # stream padding
    assert _all(_reader(packed, kind, piece=3)) == b"first " * 1000 + b"second " * 1000


@pytest.mark.parametrize("kind", _kinds())
@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda data: data[: len(data) // 2], r"content ends before its end \(\d+ compressed bytes read\): it was cut short"),
        (lambda data: data[:-1], r"(content ends before its end|content is corrupt)"),
        (lambda data: data + b"garbage!", r"data after the end of the \w+ content \(trailing garbage\)"),
        (lambda data: data + b"\0\0\0", r"(trailing garbage|not a multiple of 4 bytes)"),
    ],
    ids=["cut-in-half", "last-byte-missing", "trailing-garbage", "trailing-zeros"],
)
def test_content_cut_short_or_followed_by_garbage_is_refused(tmp_path: t.Any, kind: str, damage: t.Callable[[bytes], bytes], message: str) -> None:
    path = _image(tmp_path, "raw")
    with pytest.raises(LibvirtError, match=r"^create\.content\.url: the \w+ " + message if "garbage" not in message else message):
        _all(_reader(damage(_compress(kind, path)), kind))


@pytest.mark.parametrize("kind", _kinds())
def test_a_decompression_bomb_stops_at_the_limit(tmp_path: t.Any, kind: str) -> None:
    (tmp_path / "zeros").write_bytes(bytes(10 * MiB))
    reader = _reader(_compress(kind, str(tmp_path / "zeros")), kind, limit=MiB)
    with pytest.raises(LibvirtError, match=r"^create\.content\.url: the content decompresses to more than 1048576 bytes \(capacity\): refused"):
        _all(reader)
    # stopped at once: one call returns at most CHUNK (zstd: what one slice of its input makes)
    assert reader.total <= MiB + (32 * MiB if kind == "zstd" else decompress.CHUNK)


def test_zstd_without_the_package_names_the_option_and_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(decompress, "zstandard", None)
    with pytest.raises(LibvirtError, match=r"^create\.content\.url: the content is zstd-compressed, and reading it needs the Python package 'zstandard'"):
        decompress.DecompressedReader("zstd", lambda _n: b"", limit=1, option="create.content.url")


class FakeStream:
    def __init__(self) -> None:
        self.data = bytearray()
        self.holes = 0
        self.state = "open"

    def send(self, data: bytes) -> int:
        self.data += data
        return len(data)

    def sendHole(self, length: int) -> int:
        self.data += bytes(length)
        self.holes += length
        return 0

    def finish(self) -> None:
        self.state = "finished"

    def abort(self) -> None:
        self.state = "aborted"


class FakeVolume:
    def __init__(self) -> None:
        self.streams: list[FakeStream] = []
        self.flags: list[int] = []

    def connect(self) -> FakeVolume:
        return self

    def newStream(self, _flags: int) -> FakeStream:
        self.streams.append(FakeStream())
        return self.streams[-1]

    def upload(self, _stream: FakeStream, _offset: int, _length: int, flags: int) -> None:
        self.flags.append(flags)


@pytest.fixture(scope="module")
def http_dir(tmp_path_factory: pytest.TempPathFactory) -> t.Iterator[tuple[str, str]]:
    """A directory served over HTTP on 127.0.0.1, and its base URL."""
    root = str(tmp_path_factory.mktemp("served"))

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: t.Any, **kwargs: t.Any) -> None:
            super().__init__(*args, directory=root, **kwargs)

        def log_message(self, *_args: t.Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield root, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _params(url: str, **more: t.Any) -> dict[str, t.Any]:
    return {"url_timeout": 10, "validate_certs": True, "capacity": 8 * MiB, "capacity_unit": None, "create": {"content": {"url": url, **more}}}


def _publish(tmp_path: t.Any, http_dir: tuple[str, str], kind: str, fmt: str, *, over: str) -> tuple[str, bytes, bytes]:
    """The image compressed, as a URL (HTTP or a local path), with its bytes and the compressed ones."""
    path = _image(tmp_path, fmt)
    packed = _compress(kind, path)
    name = f"{tmp_path.name}-{fmt}{SUFFIX[kind]}"
    with open(os.path.join(http_dir[0], name), "wb") as out:
        out.write(packed)
    with open(path, "rb") as source:
        plain = source.read()
    url = f"{http_dir[1]}/{name}" if over == "http" else os.path.join(http_dir[0], name)
    return url, plain, packed


@pytest.mark.parametrize("over", ["http", "file"])
@pytest.mark.parametrize("fmt", ["raw", "qcow2"])
@pytest.mark.parametrize("kind", _kinds())
def test_compressed_content_uploads_the_decompressed_bytes(tmp_path: t.Any, http_dir: tuple[str, str], kind: str, fmt: str, over: str) -> None:
    url, plain, packed = _publish(tmp_path, http_dir, kind, fmt, over=over)
    checksum = f"sha256:{hashlib.sha256(packed).hexdigest()}"
    source = volume_utils._open_source(url, _params(url, checksum=checksum))
    try:
        assert source.size is None and source.reader is not None
        assert source.image.format == fmt  # detected after decompression: a compressed qcow2 is qcow2
        volume = FakeVolume()
        verifier = volume_utils._Verifier(volume_utils._Checksum("sha256", checksum[7:]), source.shown, source.digest)
        volume_utils._stream_decompressed(volume, source, verifier, sparse=fmt == "raw")
    finally:
        source.close()
    stream = volume.streams[-1]
    assert (stream.state, bytes(stream.data) == plain) == ("finished", True)
    assert (stream.holes >= MiB) == (fmt == "raw")  # zero runs stay holes


@pytest.mark.parametrize("kind", ["gzip", "xz"])
def test_the_checksum_is_over_the_compressed_file(tmp_path: t.Any, http_dir: tuple[str, str], kind: str) -> None:
    url, plain, _packed = _publish(tmp_path, http_dir, kind, "raw", over="http")
    wrong = hashlib.sha256(plain).hexdigest()  # of the decompressed bytes: not the file as published
    params = _params(url, checksum=f"sha256:{wrong}")
    source = volume_utils._open_source(url, params)
    try:
        volume = FakeVolume()
        verifier = volume_utils._Verifier(volume_utils._Checksum("sha256", wrong), source.shown, source.digest)
        with pytest.raises(LibvirtError, match=r"^create\.content\.checksum: the content read from .* has sha256:[0-9a-f]{64}, not sha256:"):
            volume_utils._stream_decompressed(volume, source, verifier, sparse=True)
    finally:
        source.close()
    assert volume.streams[-1].state == "aborted"


def test_a_stream_cut_short_is_aborted(tmp_path: t.Any, http_dir: tuple[str, str]) -> None:
    url, _plain, packed = _publish(tmp_path, http_dir, "xz", "raw", over="file")
    with open(url, "wb") as out:
        out.write(packed[: len(packed) - 100])
    source = volume_utils._open_source(url, _params(url))
    volume = FakeVolume()
    try:
        with pytest.raises(LibvirtError, match="it was cut short|is corrupt"):
            volume_utils._stream_decompressed(volume, source, None, sparse=True)
    finally:
        source.close()
    assert volume.streams[-1].state == "aborted"


@pytest.fixture
def conn() -> t.Iterator[t.Any]:
    connection = libvirt.open(TEST_URI)
    yield connection
    connection.close()


def _unit_volumes(conn: t.Any) -> list[str]:
    return [name for name in conn.storagePoolLookupByName(POOL).listVolumes() if name.startswith("packed")]


@pytest.mark.parametrize("check_mode", [True, False])
def test_module_refusals_leave_nothing(
    conn: t.Any, run_module: t.Callable[..., dict[str, t.Any]], tmp_path: t.Any, http_dir: tuple[str, str], check_mode: bool
) -> None:
    args: dict[str, t.Any] = {"uri": TEST_URI, "pool": POOL, "name": "packed.img"}
    # a bomb: 10 MiB of zeros into a capacity of 1 MiB
    (tmp_path / "zeros").write_bytes(bytes(10 * MiB))
    bomb = tmp_path / "zeros.gz"
    bomb.write_bytes(_compress("gzip", str(tmp_path / "zeros")))
    result = run_module(libvirt_volume.main, {**args, "capacity": "1MiB", "create": {"content": {"url": str(bomb)}}}, check_mode=check_mode)
    assert "create.content.url: the content decompresses to more than 1048576 bytes (capacity): refused" in result["msg"], result
    # no capacity: required, the size is known only at the end
    url, _plain, _packed = _publish(tmp_path, http_dir, "gzip", "qcow2", over="http")
    result = run_module(libvirt_volume.main, {**args, "create": {"content": {"url": url}}}, check_mode=check_mode)
    assert result["msg"].startswith("Missing Capacity: capacity is required for gzip-compressed content"), result
    # a compressed qcow2 with a backing file: refused as an uncompressed one is
    backing = _image(tmp_path, "qcow2", backing=str(tmp_path / "disk.raw"))
    packed = tmp_path / "overlay.qcow2.xz"
    packed.write_bytes(_compress("xz", backing))
    result = run_module(libvirt_volume.main, {**args, "capacity": "8MiB", "create": {"content": {"url": str(packed)}}}, check_mode=check_mode)
    assert result["failed"] is True and "backing file" in result["msg"], result
    # trailing garbage
    garbage = tmp_path / "garbage.raw.gz"
    garbage.write_bytes(_compress("gzip", str(tmp_path / "disk.raw")) + b"x" * 10)
    result = run_module(libvirt_volume.main, {**args, "capacity": "8MiB", "create": {"content": {"url": str(garbage)}}}, check_mode=check_mode)
    if not check_mode:  # the end is read by the upload (refused by the test driver before it)
        assert result["failed"] is True
    assert _unit_volumes(conn) == []


def test_check_mode_plans_the_decompressed_format(run_module: t.Callable[..., dict[str, t.Any]], tmp_path: t.Any, http_dir: tuple[str, str]) -> None:
    url, _plain, _packed = _publish(tmp_path, http_dir, "xz", "qcow2", over="http")
    args = {"uri": TEST_URI, "pool": POOL, "name": "packed.img", "capacity": "8MiB", "create": {"content": {"url": url}}}
    result = run_module(libvirt_volume.main, args, check_mode=True)
    assert result["changed"] is True, result
    assert result["volume"]["target"]["format"]["type"] == "qcow2"


@pytest.mark.parametrize(
    ("head", "kind"),
    [
        (bz2.compress(b"x" * 100)[:16], "bzip2"),
        (bz2.compress(b"")[:16], "bzip2"),
        (b"BZh9" + b"\x00" * 12, None),
        (b"BZhx1AY&SY" + b"\x00" * 6, None),
        (b"BZh01AY&SY" + b"\x00" * 6, None),
        (gzip.compress(b"x")[:16], "gzip"),
        (lzma.compress(b"x")[:16], "xz"),
        (b"\x00" * 16, None),
    ],
)
def test_detect_reads_more_than_three_bytes_of_bzip2(head: bytes, kind: str | None) -> None:
    """Raw content that merely starts with "BZh" is not taken for bzip2."""
    assert decompress.detect(head) == kind
