# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import hashlib
import json
import os
import re
import struct
import subprocess
import threading
import time
import typing as t

import pytest

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt import digest_records, volume_markers
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt import volume as volume_utils
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.connection import libvirt
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.errors import LibvirtError, LibvirtValidationError
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.units import to_bytes
from ansible_collections.devinfra.providers.plugins.modules import libvirt_volume

TEST_URI = "test:///default"
POOL = "default-pool"
Run = t.Callable[..., dict[str, t.Any]]


@pytest.mark.parametrize(
    ("value", "unit", "expected"),
    [
        (5, None, 5),
        (5, "bytes", 5),
        (5, "b", 5),
        (1, "KiB", 1024),
        (1, "k", 1024),
        (1, "KB", 1000),
        (2, "G", 2 * 1024**3),
        (2, "GiB", 2 * 1024**3),
        (2, "gib", 2 * 1024**3),
        (2, "GB", 2 * 10**9),
        (1, "TiB", 1024**4),
        (1, "E", 1024**6),
    ],
)
def test_to_bytes_follows_libvirt(value: int, unit: str | None, expected: int) -> None:
    assert to_bytes(value, unit) == expected


@pytest.mark.parametrize("unit", ["parsecs", "Gx", "KiBB"])
def test_to_bytes_rejects_unknown_units(unit: str) -> None:
    with pytest.raises(LibvirtValidationError, match="^capacity_unit: unknown unit"):
        to_bytes(1, unit, path="capacity_unit")


@pytest.fixture
def conn() -> t.Iterator[t.Any]:
    connection = libvirt.open(TEST_URI)  # keeps the test driver's state across module runs
    yield connection
    connection.close()


def _volumes(conn: t.Any) -> list[str]:
    names: list[str] = conn.storagePoolLookupByName(POOL).listVolumes()
    return names


VOLUME: dict[str, t.Any] = {"uri": TEST_URI, "pool": POOL, "name": "unit.img", "capacity": 1, "capacity_unit": "MiB", "target": {"format": {"type": "raw"}}}


def test_volume_lifecycle(conn: t.Any, run_module: Run) -> None:
    result = run_module(libvirt_volume.main, VOLUME, check_mode=True, diff=True)
    assert result["changed"] is True
    assert result["diff"] == {"before": {}, "after": {"name": "unit.img", "capacity": 1048576, "capacity_unit": "bytes", "target": {"format": {"type": "raw"}}}}
    assert "unit.img" not in _volumes(conn)

    result = run_module(libvirt_volume.main, VOLUME)
    assert result["changed"] is True
    assert result["volume"]["capacity"] == 1048576
    assert result["volume"]["pool"] == POOL
    assert result["volume"]["key"]
    assert run_module(libvirt_volume.main, VOLUME)["changed"] is False
    assert run_module(libvirt_volume.main, {**VOLUME, "capacity": 1048576, "capacity_unit": None})["changed"] is False  # same size
    assert run_module(libvirt_volume.main, VOLUME, check_mode=True)["changed"] is False


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"capacity": 512, "capacity_unit": "KiB"}, "capacity: volume 'unit.img' in pool 'default-pool' differs"),
        ({"target": {"format": {"type": "qcow2"}}}, "target.format.type: volume 'unit.img'"),
    ],
)
def test_volume_changes_that_lose_data_need_replace(conn: t.Any, run_module: Run, change: dict[str, t.Any], message: str) -> None:
    run_module(libvirt_volume.main, VOLUME)
    key = conn.storagePoolLookupByName(POOL).storageVolLookupByName("unit.img").key()
    result = run_module(libvirt_volume.main, {**VOLUME, **change})
    assert result["failed"] is True
    assert result["msg"].startswith(message)
    assert "set replace: true" in result["msg"]
    assert conn.storagePoolLookupByName(POOL).storageVolLookupByName("unit.img").key() == key  # untouched

    result = run_module(libvirt_volume.main, {**VOLUME, **change, "replace": True}, check_mode=True)
    assert result["changed"] is True
    assert "unit.img" in _volumes(conn)
    result = run_module(libvirt_volume.main, {**VOLUME, **change, "replace": True})
    assert (result["changed"], result["replaced"]) == (True, True)
    assert run_module(libvirt_volume.main, {**VOLUME, **change})["changed"] is False


def test_volume_grows_in_place(conn: t.Any, run_module: Run) -> None:
    run_module(libvirt_volume.main, VOLUME)
    result = run_module(libvirt_volume.main, {**VOLUME, "capacity": 2}, check_mode=True, diff=True)
    assert result["changed"] is True
    assert (result["diff"]["before"]["capacity"], result["diff"]["after"]["capacity"]) == (1048576, 2 * 1048576)
    assert conn.storagePoolLookupByName(POOL).storageVolLookupByName("unit.img").info()[1] == 1048576
    # The test driver cannot resize (the integration target grows volumes on the real daemon):
    # the error names the volume and the size, and the volume is left as it was.
    result = run_module(libvirt_volume.main, {**VOLUME, "capacity": 2})
    assert result["failed"] is True
    assert result["msg"].startswith("Failed to resize volume 'unit.img' to 2097152 bytes: ")
    assert conn.storagePoolLookupByName(POOL).storageVolLookupByName("unit.img").info()[1] == 1048576


def test_volume_absent(conn: t.Any, run_module: Run) -> None:
    run_module(libvirt_volume.main, VOLUME)
    args = {"uri": TEST_URI, "pool": POOL, "name": "unit.img", "state": "absent"}
    assert run_module(libvirt_volume.main, args, check_mode=True)["changed"] is True
    assert "unit.img" in _volumes(conn)
    result = run_module(libvirt_volume.main, args)
    assert (result["changed"], result["volume"]["name"]) == (True, "unit.img")
    assert "unit.img" not in _volumes(conn)
    assert run_module(libvirt_volume.main, args)["changed"] is False


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"capacity": None}, "Missing Capacity: Volume capacity is required when not uploading from a URL"),
        ({"capacity_unit": "parsecs"}, "capacity_unit: unknown unit 'parsecs'"),
        ({"pool": "no-such-pool"}, "Pool Not Found: Storage pool 'no-such-pool' not found"),
        ({"create": {"content": {"url": "/nonexistent/image.qcow2"}}}, "Failed to Open URL: Could not open URL for upload: failed to stat file"),
        ({"create": {"content": {"url": "/"}}}, "path is a directory, not a file: /"),
        ({"target": {"format": {}}}, "type"),
        ({"capacity": -1}, "capacity: a size cannot be negative, got -1"),
        ({"url_timeout": -3}, "url_timeout: must be 1 or more seconds, got -3"),
    ],
)
def test_volume_bad_input_touches_nothing(conn: t.Any, run_module: Run, args: dict[str, t.Any], message: str) -> None:
    result = run_module(libvirt_volume.main, {**VOLUME, **args})
    assert result["failed"] is True
    assert message in result["msg"]
    assert "unit.img" not in _volumes(conn)


def test_check_mode_plans_a_volume_in_a_pool_not_made_yet(conn: t.Any, run_module: Run) -> None:
    # An earlier task of the run (libvirt_host, libvirt_pool) makes the pool: a check run plans on, saying so.
    args = {**VOLUME, "pool": "made-later"}
    planned = run_module(libvirt_volume.main, args, check_mode=True, diff=True)
    assert (planned["changed"], planned["operation"], planned["address"]) == (True, "create", "libvirt_volume.made-later/unit.img")
    assert "Pool Not Found: Storage pool 'made-later' not found (yet: in check mode, an earlier task may only have predicted it)" in str(planned["warnings"])
    assert planned["diff"]["after"]["name"] == "unit.img"
    # An inactive pool likewise; the real run still refuses both, and a removal is no change.
    conn.storagePoolLookupByName(POOL).destroy()
    try:
        planned = run_module(libvirt_volume.main, VOLUME, check_mode=True)
        assert (planned["changed"], planned["operation"]) == (True, "create")
        assert "is not active" in str(planned["warnings"])
        assert "is not active" in run_module(libvirt_volume.main, VOLUME)["msg"]
    finally:
        conn.storagePoolLookupByName(POOL).create(0)
    assert run_module(libvirt_volume.main, args)["msg"] == "Pool Not Found: Storage pool 'made-later' not found"
    assert run_module(libvirt_volume.main, {**args, "state": "absent"}, check_mode=True)["changed"] is False


def test_a_failed_upload_leaves_no_volume(conn: t.Any, run_module: Run, tmp_path: t.Any) -> None:
    # The test driver refuses uploads: the volume the module created for the content goes again.
    image = tmp_path / "image.raw"
    image.write_bytes(b"x" * 4096)
    result = run_module(libvirt_volume.main, {**VOLUME, "capacity": None, "create": {"content": {"url": str(image)}}})
    assert result["failed"] is True
    assert result["msg"].startswith("Volume Upload Failed: Failed to upload content to volume: ")
    assert "unit.img" not in _volumes(conn)


class _FakeStream:
    def __init__(self) -> None:
        self.sent = b""
        self.state = "open"

    def send(self, data: bytes) -> int:
        self.sent += data
        return len(data)

    def finish(self) -> None:
        self.state = "finished"

    def abort(self) -> None:
        self.state = "aborted"


class _FakeVolume:
    """Just the calls _stream_response makes (the test driver refuses uploads)."""

    def __init__(self) -> None:
        self.stream = _FakeStream()

    def connect(self) -> _FakeVolume:
        return self

    def newStream(self, _flags: int) -> _FakeStream:
        return self.stream

    def upload(self, *_args: t.Any) -> None:
        pass


class _CutResponse:
    """What http.client does when the server closes mid-body: read() returns b"" early."""

    def __init__(self, body: bytes) -> None:
        self.body = body

    def read(self, size: int) -> bytes:
        data, self.body = self.body[:size], self.body[size:]
        return data


def _http_source(body: bytes, length: int | None) -> t.Any:
    return volume_utils._Source("http://example.invalid/image", length, response=_CutResponse(body))


def test_a_body_cut_short_is_an_error_not_a_short_volume() -> None:
    volume = _FakeVolume()
    with pytest.raises(LibvirtError, match=r"^the download ended after 10 of 20 bytes \(Content-Length\)"):
        volume_utils._stream_response(volume, _http_source(b"x" * 10, 20), None)
    assert volume.stream.state == "aborted"
    complete = _FakeVolume()
    volume_utils._stream_response(complete, _http_source(b"x" * 20, 20), None)
    assert (complete.stream.state, complete.stream.sent) == ("finished", b"x" * 20)
    unknown = _FakeVolume()  # no Content-Length: whatever came is the content
    volume_utils._stream_response(unknown, _http_source(b"x" * 7, None), None)
    assert unknown.stream.state == "finished"


def test_a_failed_replacement_upload_keeps_the_volume(conn: t.Any, run_module: Run, tmp_path: t.Any) -> None:
    run_module(libvirt_volume.main, VOLUME)
    key = conn.storagePoolLookupByName(POOL).storageVolLookupByName("unit.img").key()
    image = tmp_path / "image.qcow2"
    image.write_bytes(QCOW2_HEADER)
    replacement = {**VOLUME, "capacity": None, "target": {"format": {"type": "qcow2"}}, "replace": True, "create": {"content": {"url": str(image)}}}
    result = run_module(libvirt_volume.main, replacement)
    assert result["failed"] is True
    assert result["msg"].startswith("Volume Upload Failed: ")
    # The upload went into a staging volume, which is gone; the volume is untouched.
    assert sorted(v for v in _volumes(conn) if v.startswith("unit.img")) == ["unit.img"]
    kept = conn.storagePoolLookupByName(POOL).storageVolLookupByName("unit.img")
    assert kept.key() == key
    assert "raw" in kept.XMLDesc(0)


# The smallest qcow2 header (version 2, 64 KiB clusters, 1 MiB, no backing file): content the
# inspection takes for qcow2.
QCOW2_HEADER = (b"QFI\xfb" + struct.pack(">IQIIQ", 2, 0, 0, 16, 1 << 20)).ljust(4096, b"\0")


def _make(conn: t.Any, name: str, capacity: int) -> None:
    xml = f"<volume><name>{name}</name><capacity unit='bytes'>{capacity}</capacity></volume>"
    conn.storagePoolLookupByName(POOL).createXML(xml, 0)


def _run_of(pid: int, start: str | None = None) -> str:
    """A run id as volume_markers makes it: this host key, ``pid`` and its start time."""
    host = volume_markers._host_key()
    return f"{host}-{pid}-{start or volume_markers._process_start(pid)}"


def _marker(volume: str, run: str) -> str:
    return volume_markers.volume_name(volume, volume_markers.INCOMPLETE, run)


def _staging(volume: str, run: str) -> str:
    return volume_markers.volume_name(volume, volume_markers.STAGING, run)


def _unit_volumes(conn: t.Any) -> list[str]:
    return sorted(v for v in _volumes(conn) if v.startswith("unit.img"))


def test_a_volume_left_incomplete_is_made_anew(conn: t.Any, run_module: Run) -> None:
    # What a run killed mid-upload leaves: the volume, its marker and a staging copy, of a
    # process that is gone (this pid with another start time: the pid was reused).
    dead = _run_of(os.getpid(), "1")
    _make(conn, "unit.img", 4096)
    _make(conn, _marker("unit.img", dead), 0)
    _make(conn, _staging("unit.img", dead), 4096)
    result = run_module(libvirt_volume.main, VOLUME, check_mode=True)
    assert result["changed"] is True
    assert "left incomplete by an interrupted run" in str(result["warnings"])
    assert len(_unit_volumes(conn)) == 3  # check mode touches nothing

    result = run_module(libvirt_volume.main, VOLUME)
    assert result["changed"] is True
    assert result["volume"]["capacity"] == 1048576
    assert "left incomplete by an interrupted run" in str(result["warnings"])
    assert _unit_volumes(conn) == ["unit.img"]
    assert run_module(libvirt_volume.main, VOLUME)["changed"] is False


def test_removing_a_volume_left_incomplete(conn: t.Any, run_module: Run) -> None:
    _make(conn, "unit.img", 4096)
    _make(conn, _marker("unit.img", _run_of(os.getpid(), "1")), 0)
    args = {"uri": TEST_URI, "pool": POOL, "name": "unit.img", "state": "absent"}
    assert run_module(libvirt_volume.main, args)["changed"] is True
    assert _unit_volumes(conn) == []
    assert run_module(libvirt_volume.main, args)["changed"] is False


def test_volumes_of_the_user_named_like_markers_are_never_touched(conn: t.Any, run_module: Run) -> None:
    """A no-op on X used to delete the user's X.incomplete and X.replacement (with data) and
    make X anew, empty."""
    run_module(libvirt_volume.main, VOLUME)
    key = conn.storagePoolLookupByName(POOL).storageVolLookupByName("unit.img").key()
    for name in ("unit.img.incomplete", "unit.img.replacement", "unit.img.incomplete-x", _marker("unit.img", "0" * 12 + "-1")):
        _make(conn, name, 4096)
    # named exactly like a marker of a dead run, but holding data: somebody's volume
    _make(conn, _marker("unit.img", _run_of(os.getpid(), "1")), 64 << 20)
    before = _unit_volumes(conn)
    result = run_module(libvirt_volume.main, VOLUME)
    assert result["changed"] is False, result
    assert _unit_volumes(conn) == before
    assert conn.storagePoolLookupByName(POOL).storageVolLookupByName("unit.img").key() == key


def test_a_live_run_is_waited_for_never_taken_over(conn: t.Any, run_module: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another run (a live process) is filling the volume: check mode says it cannot know,
    a real run waits; when the other run finishes (its marker goes) the volume is complete."""
    monkeypatch.setattr(volume_utils, "POLL_SECONDS", 0.05)
    other = subprocess.Popen(["sleep", "30"])
    try:
        live = _run_of(other.pid)
        _make(conn, "unit.img", 1048576)
        _make(conn, _marker("unit.img", live), 0)
        checked = run_module(libvirt_volume.main, VOLUME, check_mode=True)
        assert checked["changed"] is True
        assert "being filled by another run" in str(checked["warnings"])
        assert len(_unit_volumes(conn)) == 2

        def finish() -> None:  # the other run completes: it removes its own marker
            time.sleep(0.5)
            libvirt.open(TEST_URI).storagePoolLookupByName(POOL).storageVolLookupByName(_marker("unit.img", live)).delete(0)

        finisher = threading.Thread(target=finish)
        finisher.start()
        started = time.monotonic()
        result = run_module(libvirt_volume.main, VOLUME)
        finisher.join()
        assert time.monotonic() - started >= 0.4  # it waited
        assert result["changed"] is False
        assert _unit_volumes(conn) == ["unit.img"]
    finally:
        other.kill()
        other.wait()


def test_a_run_that_dies_while_waited_for_is_made_anew(conn: t.Any, run_module: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(volume_utils, "POLL_SECONDS", 0.05)
    other = subprocess.Popen(["sleep", "0.5"])
    try:
        _make(conn, "unit.img", 4096)
        _make(conn, _marker("unit.img", _run_of(other.pid)), 0)
        result = run_module(libvirt_volume.main, VOLUME)  # waits until the sleep ends, then sees it died
        assert result["changed"] is True
        assert "left incomplete by an interrupted run" in str(result["warnings"])
        assert _unit_volumes(conn) == ["unit.img"]
        assert result["volume"]["capacity"] == 1048576
    finally:
        other.wait()


def test_a_marker_of_another_host_is_left_alone(conn: t.Any, run_module: Run) -> None:
    foreign = ("e" if str(volume_markers._host_key()).startswith("f") else "f") * 12 + "-4242-99"
    _make(conn, "unit.img", 4096)
    _make(conn, _marker("unit.img", foreign), 0)
    result = run_module(libvirt_volume.main, VOLUME)
    assert result["failed"] is True
    assert "is being filled by a run on another host or container, or was left incomplete by one" in result["msg"]
    assert _unit_volumes(conn) == sorted(["unit.img", _marker("unit.img", foreign)])


def test_losing_the_race_to_create_looks_again(conn: t.Any, run_module: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two runs saw no volume; the other created it first: this one finds it and compares."""
    real = volume_utils._create_volume
    calls: list[str] = []

    def other_run_first(pool: t.Any, spec: dict[str, t.Any]) -> t.Any:
        if not calls:
            calls.append(spec["name"])
            real(pool, spec)  # the other run's volume, made a moment before
        return real(pool, spec)

    monkeypatch.setattr(volume_utils, "_create_volume", other_run_first)
    result = run_module(libvirt_volume.main, VOLUME)
    assert result["changed"] is False
    assert calls == ["unit.img"]
    assert _unit_volumes(conn) == ["unit.img"]


def test_a_pool_that_cannot_hold_a_marker_cannot_take_content(conn: t.Any, run_module: Run, tmp_path: t.Any, monkeypatch: pytest.MonkeyPatch) -> None:
    image = tmp_path / "image.raw"
    image.write_bytes(b"x" * 4096)

    def no_marker(pool: t.Any, name: str, run: str | None) -> t.Any:
        raise LibvirtError(f"Volume Upload Failed: cannot create the marker volume '{name}.incomplete-...' that says '{name}' is being filled: no")

    monkeypatch.setattr(volume_utils, "_mark", no_marker)
    result = run_module(libvirt_volume.main, {**VOLUME, "capacity": None, "create": {"content": {"url": str(image)}}})
    assert result["failed"] is True and "cannot create the marker volume" in result["msg"]
    assert _unit_volumes(conn) == []


@pytest.mark.parametrize("kind", ["fifo", "device", "directory"])
def test_an_upload_source_must_be_a_regular_file(conn: t.Any, run_module: Run, tmp_path: t.Any, kind: str) -> None:
    """A FIFO hung the upload forever, /dev/zero never ended or gave an empty volume."""
    if kind == "fifo":
        source = str(tmp_path / "fifo")
        os.mkfifo(source)
    else:
        source = "/dev/zero" if kind == "device" else str(tmp_path)
    result = run_module(libvirt_volume.main, {**VOLUME, "capacity": None, "create": {"content": {"url": source}}})
    assert result["failed"] is True
    expected = "path is a directory, not a file" if kind == "directory" else "not a regular file (a FIFO, socket or device)"
    assert expected in result["msg"]
    assert _unit_volumes(conn) == []


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://user:DVTSECRETpw@127.0.0.1:1/image.img", r"Connection refused \(ConnectionRefusedError\)$"),
        ("http://user:DVTSECRETpw@127.0.0.1:notaport/image.img", r"the request failed \(InvalidURL\)$"),
        ("http://user:DVTSECRETpw@[::1/image.img", r"the request failed \(ValueError\)$"),
    ],
)
def test_a_url_that_cannot_be_opened_is_never_repeated(conn: t.Any, run_module: Run, url: str, expected: str) -> None:
    """urllib and http.client put parts of the URL (a password) in their exceptions' text."""
    result = run_module(libvirt_volume.main, {**VOLUME, "capacity": None, "create": {"content": {"url": url}}})
    assert result["failed"] is True
    assert re.search(r"^Failed to Open URL: Could not open URL for upload: " + expected, result["msg"]), result["msg"]
    assert "DVTSECRET" not in json.dumps(result)
    assert _unit_volumes(conn) == []


SOURCE = "unit-source.img"
CLONE: dict[str, t.Any] = {
    "uri": TEST_URI,
    "pool": POOL,
    "name": "unit.img",
    "target": {"format": {"type": "qcow2"}},
    "create": {"clone_from": {"pool": POOL, "volume": SOURCE}},
}


@pytest.fixture
def source(conn: t.Any) -> t.Iterator[None]:
    _make(conn, SOURCE, 3 << 20)
    yield
    # A failed run's volume objects can keep the test driver's state past the test: clean up.
    for name in _volumes(conn):
        if name.startswith((SOURCE, "unit.img")):
            conn.storagePoolLookupByName(POOL).storageVolLookupByName(name).delete(0)


def test_a_clone_lifecycle(conn: t.Any, run_module: Run, source: None) -> None:
    result = run_module(libvirt_volume.main, CLONE, check_mode=True, diff=True)
    assert result["changed"] is True
    assert result["volume"]["capacity"] == 3 << 20  # its source's
    assert result["diff"]["before"] == {}
    assert "unit.img" not in _volumes(conn)

    result = run_module(libvirt_volume.main, CLONE, diff=True)
    assert result["changed"] is True
    assert (result["volume"]["capacity"], result["volume"]["target"]["format"]["type"]) == (3 << 20, "qcow2")
    assert _unit_volumes(conn) == ["unit.img"]  # no marker left
    assert run_module(libvirt_volume.main, CLONE)["changed"] is False
    assert run_module(libvirt_volume.main, CLONE, check_mode=True)["changed"] is False
    # A smaller capacity than the source's is no change (the source decided the size), and
    # the source is not looked at once the clone exists: it may go.
    conn.storagePoolLookupByName(POOL).storageVolLookupByName(SOURCE).delete(0)
    assert run_module(libvirt_volume.main, {**CLONE, "capacity": 1, "capacity_unit": "MiB"})["changed"] is False


def test_a_clone_is_made_anew_from_the_source_when_replaced(conn: t.Any, run_module: Run, source: None) -> None:
    run_module(libvirt_volume.main, CLONE)
    key = conn.storagePoolLookupByName(POOL).storageVolLookupByName("unit.img").key()
    result = run_module(libvirt_volume.main, {**CLONE, "target": {"format": {"type": "raw"}}})
    assert result["failed"] is True and "set replace: true" in result["msg"]
    result = run_module(libvirt_volume.main, {**CLONE, "target": {"format": {"type": "raw"}}, "replace": True})
    assert (result["changed"], result["replaced"], result["volume"]["target"]["format"]["type"]) == (True, True, "raw")
    assert _unit_volumes(conn) == ["unit.img"]  # the staging copy and the marker are gone
    assert conn.storagePoolLookupByName(POOL).storageVolLookupByName("unit.img").key() == key


@pytest.mark.parametrize(
    ("clone_from", "extra", "message"),
    [
        ({"pool": "no-such-pool", "volume": SOURCE}, {}, "create.clone_from.pool: storage pool 'no-such-pool' not found"),
        ({"pool": POOL, "volume": "no-such.img"}, {}, "create.clone_from.volume: volume 'no-such.img' not found in storage pool 'default-pool'"),
        ({"pool": POOL, "volume": ""}, {}, "create.clone_from.volume: must not be empty"),
        ({"pool": POOL, "volume": "a\nb"}, {}, "create.clone_from.volume: contains a control character (U+000A)"),
        ({"pool": "p\x7f", "volume": SOURCE}, {}, "create.clone_from.pool: contains a control character (U+007F)"),
        ({"pool": POOL, "volume": "unit.img"}, {}, "create.clone_from: volume 'unit.img' in pool 'default-pool' cannot be cloned from itself"),
        ({"pool": POOL, "volume": SOURCE}, {"backing_store": {"path": "/default-pool/base.img"}}, "create.clone_from: a clone is a full copy"),
        ({"pool": POOL}, {}, "missing required arguments: volume found in create -> clone_from"),
    ],
)
def test_a_bad_clone_source_touches_nothing(
    conn: t.Any, run_module: Run, source: None, clone_from: dict[str, t.Any], extra: dict[str, t.Any], message: str
) -> None:
    for check_mode in (True, False):
        result = run_module(libvirt_volume.main, {**CLONE, **extra, "create": {"clone_from": clone_from}}, check_mode=check_mode)
        assert result["failed"] is True
        assert message in result["msg"], result["msg"]
        assert _unit_volumes(conn) == []


@pytest.mark.parametrize(
    ("create", "message"),
    [
        ({"content": {"url": "/x"}, "clone_from": {"pool": POOL, "volume": SOURCE}}, "parameters are mutually exclusive: content|clone_from found in create"),
        ({}, "one of the following is required: content, clone_from found in create"),
    ],
)
def test_create_takes_content_or_a_clone(conn: t.Any, run_module: Run, source: None, create: dict[str, t.Any], message: str) -> None:
    result = run_module(libvirt_volume.main, {**CLONE, "create": create})
    assert result["failed"] is True
    assert message in result["msg"], result["msg"]
    assert _unit_volumes(conn) == []


def test_a_source_left_incomplete_is_not_cloned(conn: t.Any, run_module: Run, source: None) -> None:
    marker = _marker(SOURCE, _run_of(os.getpid(), "1"))  # a run that died filling the source
    _make(conn, marker, 0)
    result = run_module(libvirt_volume.main, CLONE)
    assert result["failed"] is True
    assert f"create.clone_from: volume '{SOURCE}' in storage pool '{POOL}' was left incomplete by an interrupted run (marker {marker})" in result["msg"]
    assert _unit_volumes(conn) == []
    assert marker in _volumes(conn)  # the source is its own task's to make anew

    foreign = ("e" if str(volume_markers._host_key()).startswith("f") else "f") * 12 + "-4242-99"
    conn.storagePoolLookupByName(POOL).storageVolLookupByName(marker).delete(0)
    _make(conn, _marker(SOURCE, foreign), 0)
    result = run_module(libvirt_volume.main, CLONE)
    assert result["failed"] is True and "is being filled by a run on another host or container" in result["msg"]
    assert _unit_volumes(conn) == []


def test_a_source_being_filled_is_waited_for(conn: t.Any, run_module: Run, source: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(volume_utils, "POLL_SECONDS", 0.05)
    other = subprocess.Popen(["sleep", "30"])
    try:
        marker = _marker(SOURCE, _run_of(other.pid))
        _make(conn, marker, 0)
        checked = run_module(libvirt_volume.main, CLONE, check_mode=True)
        assert checked["changed"] is True
        assert "is being filled by another run: a real run waits for it" in str(checked["warnings"])

        def finish() -> None:
            time.sleep(0.5)
            other_conn = libvirt.open(TEST_URI)  # closed: the test driver forgets everything with the last one
            other_conn.storagePoolLookupByName(POOL).storageVolLookupByName(marker).delete(0)
            other_conn.close()

        finisher = threading.Thread(target=finish)
        finisher.start()
        started = time.monotonic()
        result = run_module(libvirt_volume.main, CLONE)
        finisher.join()
        assert time.monotonic() - started >= 0.4
        assert result["changed"] is True
        assert _unit_volumes(conn) == ["unit.img"]
    finally:
        other.kill()
        other.wait()


def test_a_clone_cut_off_is_never_taken_for_complete(conn: t.Any, run_module: Run, source: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """libvirt fails half-way and what it copied cannot be deleted (a daemon that stopped):
    the marker stays, and the next run makes the clone anew."""
    dead = _run_of(os.getpid(), "1")
    monkeypatch.setattr(volume_markers, "run_id", lambda: dead)  # this run dies after the failure

    def cut_off(self: t.Any, xml: str, _source: t.Any, _flags: int) -> t.Any:
        self.createXML(xml.replace("qcow2", "raw"), 0)  # half a copy
        libvirt.virResetLastError()
        raise libvirt.libvirtError("cut off")

    def refuse(self: t.Any, _flags: int) -> None:
        if self.name() == "unit.img":
            libvirt.virResetLastError()
            raise libvirt.libvirtError("daemon gone")
        real_delete(self, _flags)

    real_delete = libvirt.virStorageVol.delete
    with monkeypatch.context() as patched:
        patched.setattr(libvirt.virStoragePool, "createXMLFrom", cut_off)
        patched.setattr(libvirt.virStorageVol, "delete", refuse)
        result = run_module(libvirt_volume.main, CLONE)
    assert result["failed"] is True
    assert result["msg"].startswith(f"Volume Clone Failed: Failed to clone volume '{SOURCE}' of pool '{POOL}': cut off; ")
    assert "it stays marked incomplete" in result["msg"]
    assert _unit_volumes(conn) == sorted(["unit.img", _marker("unit.img", dead)])

    monkeypatch.undo()
    result = run_module(libvirt_volume.main, CLONE)
    assert result["changed"] is True
    assert "left incomplete by an interrupted run" in str(result["warnings"])
    assert result["volume"]["target"]["format"]["type"] == "qcow2"
    assert _unit_volumes(conn) == ["unit.img"]


def test_a_failed_clone_leaves_nothing(conn: t.Any, run_module: Run, source: None, monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(self: t.Any, xml: str, _source: t.Any, _flags: int) -> t.Any:
        self.createXML(xml, 0)  # what libvirt had copied, deleted by the module
        libvirt.virResetLastError()  # else the error takes the message of the last one libvirt raised
        raise libvirt.libvirtError("no space left on device")

    monkeypatch.setattr(libvirt.virStoragePool, "createXMLFrom", fail)
    result = run_module(libvirt_volume.main, CLONE)
    assert result["failed"] is True
    assert result["msg"] == f"Volume Clone Failed: Failed to clone volume '{SOURCE}' of pool '{POOL}': no space left on device"
    assert _unit_volumes(conn) == []


def test_losing_the_race_to_clone_looks_again(conn: t.Any, run_module: Run, source: None, monkeypatch: pytest.MonkeyPatch) -> None:
    real = libvirt.virStoragePool.createXMLFrom
    calls: list[str] = []

    def other_run_first(self: t.Any, xml: str, source_volume: t.Any, flags: int) -> t.Any:
        if not calls:
            calls.append("other")
            real(self, xml, source_volume, flags)  # the other run's clone, made a moment before
        return real(self, xml, source_volume, flags)

    monkeypatch.setattr(libvirt.virStoragePool, "createXMLFrom", other_run_first)
    result = run_module(libvirt_volume.main, CLONE)
    assert result["changed"] is False
    assert calls == ["other"]
    assert _unit_volumes(conn) == ["unit.img"]


class _VolumeWithTimes:
    """A volume as libvirt describes a file of a directory pool: with the file's times."""

    def XMLDesc(self, flags: int) -> str:  # libvirt's name
        return (
            "<volume type='file'><name>t.qcow2</name><key>/p/t.qcow2</key><capacity unit='bytes'>1048576</capacity>"
            "<target><path>/p/t.qcow2</path><format type='qcow2'/>"
            "<timestamps><atime>1795572504.697161963</atime><mtime>1795572507.5</mtime><ctime>1795572507.5</ctime></timestamps>"
            "</target></volume>"
        )

    def key(self) -> str:
        return "/p/t.qcow2"

    def path(self) -> str:
        return "/p/t.qcow2"


def test_volume_timestamps_are_an_output_not_an_option(conn: t.Any, run_module: Run) -> None:
    assert "timestamps" not in str(volume_utils.VOLUME_ARGSPEC["target"])
    described = volume_utils.describe_volume(_VolumeWithTimes(), "p")
    assert described["timestamps"] == {"atime": "1795572504.697161963", "mtime": "1795572507.5", "ctime": "1795572507.5"}
    assert described["target"] == {"path": "/p/t.qcow2", "format": {"type": "qcow2"}}
    # The module's own result fed back: target as it returned it changes nothing.
    made = run_module(libvirt_volume.main, {**VOLUME, "name": "times.img"})
    again = run_module(libvirt_volume.main, {**VOLUME, "name": "times.img", "target": made["volume"]["target"]})
    assert again["changed"] is False
    run_module(libvirt_volume.main, {**VOLUME, "name": "times.img", "state": "absent"})


def test_an_overlay_without_a_format_is_qcow2(conn: t.Any, run_module: Run) -> None:
    """Upstream's example overlay gives backing_store and no target.format: libvirt's default
    (raw) cannot have a backing store, so the overlay is qcow2, and a second run agrees."""
    base = {"uri": TEST_URI, "pool": POOL, "name": "overlay-base.qcow2", "capacity": 1, "capacity_unit": "MiB", "target": {"format": {"type": "qcow2"}}}
    path = run_module(libvirt_volume.main, base)["volume"]["path"]
    overlay = {
        "uri": TEST_URI,
        "pool": POOL,
        "name": "overlay.qcow2",
        "capacity": 1,
        "capacity_unit": "MiB",
        "backing_store": {"path": path, "format": {"type": "qcow2"}},
    }
    predicted = run_module(libvirt_volume.main, overlay, check_mode=True, diff=True)
    assert predicted["diff"]["after"]["target"] == {"format": {"type": "qcow2"}}
    assert run_module(libvirt_volume.main, overlay)["changed"] is True
    xml = conn.storagePoolLookupByName(POOL).storageVolLookupByName("overlay.qcow2").XMLDesc(0)
    assert "<format type='qcow2'/>" in xml
    assert run_module(libvirt_volume.main, overlay)["changed"] is False
    assert run_module(libvirt_volume.main, {**overlay, "target": {"format": {"type": "qcow2"}}})["changed"] is False


@pytest.mark.parametrize("check_mode", [False, True])
def test_absent_in_a_pool_that_is_gone_is_no_change(run_module: Run, check_mode: bool) -> None:
    # A teardown that removed the pool first: the volume went with it, nothing to do.
    args = {**VOLUME, "pool": "no-such-pool", "state": "absent"}
    result = run_module(libvirt_volume.main, args, check_mode=check_mode)
    assert result.get("failed") is not True, result
    assert result["changed"] is False


def test_wipe_choices_map_to_libvirt_algorithms() -> None:
    import libvirt

    from ansible_collections.devinfra.providers.plugins.module_utils._libvirt import volume as volume_utils

    expected = {
        "zero": libvirt.VIR_STORAGE_VOL_WIPE_ALG_ZERO,
        "nnsa": libvirt.VIR_STORAGE_VOL_WIPE_ALG_NNSA,
        "dod": libvirt.VIR_STORAGE_VOL_WIPE_ALG_DOD,
        "bsi": libvirt.VIR_STORAGE_VOL_WIPE_ALG_BSI,
        "gutmann": libvirt.VIR_STORAGE_VOL_WIPE_ALG_GUTMANN,
        "schneier": libvirt.VIR_STORAGE_VOL_WIPE_ALG_SCHNEIER,
        "pfitzner7": libvirt.VIR_STORAGE_VOL_WIPE_ALG_PFITZNER7,
        "pfitzner33": libvirt.VIR_STORAGE_VOL_WIPE_ALG_PFITZNER33,
        "random": libvirt.VIR_STORAGE_VOL_WIPE_ALG_RANDOM,
        "trim": libvirt.VIR_STORAGE_VOL_WIPE_ALG_TRIM,
    }
    assert {name: volume_utils.wipe_algorithm(name) for name in volume_utils.VOLUME_ARGSPEC["wipe"]["choices"]} == expected


def test_a_bad_wipe_fails_naming_the_option_and_touches_nothing(conn: t.Any, run_module: Run) -> None:
    assert run_module(libvirt_volume.main, VOLUME).get("failed") is not True
    result = run_module(libvirt_volume.main, {**VOLUME, "state": "absent", "wipe": "shred"})
    assert result["failed"] is True
    assert "wipe" in result["msg"]
    assert "unit.img" in _volumes(conn)
    run_module(libvirt_volume.main, {**VOLUME, "state": "absent"})


def test_wipe_in_check_mode_does_nothing(conn: t.Any, run_module: Run) -> None:
    # The test driver has no virStorageVolWipePattern: a wipe attempted would fail the task.
    assert run_module(libvirt_volume.main, VOLUME).get("failed") is not True
    result = run_module(libvirt_volume.main, {**VOLUME, "state": "absent", "wipe": "zero"}, check_mode=True)
    assert result.get("failed") is not True, result
    assert result["changed"] is True
    assert "unit.img" in _volumes(conn)
    run_module(libvirt_volume.main, {**VOLUME, "state": "absent"})


def test_a_failed_wipe_keeps_the_volume(conn: t.Any, run_module: Run) -> None:
    assert run_module(libvirt_volume.main, VOLUME).get("failed") is not True
    result = run_module(libvirt_volume.main, {**VOLUME, "state": "absent", "wipe": "zero"})
    assert result["failed"] is True
    assert result["msg"].startswith("Failed to Wipe Volume: Could not wipe storage volume with wipe: zero (it is kept): ")
    assert "unit.img" in _volumes(conn)
    # Without wipe it goes, and a second run is no change (wipe on a gone volume does nothing).
    assert run_module(libvirt_volume.main, {**VOLUME, "state": "absent"})["changed"] is True
    assert run_module(libvirt_volume.main, {**VOLUME, "state": "absent", "wipe": "zero"})["changed"] is False


# --- Images QEMU probes otherwise than they would be recorded, and backing chains --------------

# A Parallels disk image header (64 bytes): "WithouFreSpacExt", version 2, 16 heads, 4
# cylinders, 2048 sectors per cluster, 1 BAT entry, 2048 sectors (1 MiB), data at sector 2048.
PARALLELS_HEADER = struct.pack("<16sIIIIIQIIIQ", b"WithouFreSpacExt", 2, 16, 4, 2048, 1, 2048, 0, 2048, 0, 0).ljust(4096, b"\0")


@pytest.mark.parametrize("check_mode", [True, False])
@pytest.mark.parametrize(
    ("target", "option"),
    [(None, "create.content.url"), ({"format": {"type": "raw"}}, "target.format.type"), ({"format": {"type": "ploop"}}, "target.format.type")],
)
def test_a_parallels_image_is_not_uploaded_as_raw(
    conn: t.Any, run_module: Run, tmp_path: t.Any, check_mode: bool, target: dict[str, t.Any] | None, option: str
) -> None:
    """It was taken for raw: libvirt then saw a ploop volume (a directory) and could not delete it."""
    source = tmp_path / "disk.img"
    source.write_bytes(PARALLELS_HEADER)
    args = {**VOLUME, "capacity": None, "target": target, "create": {"content": {"url": str(source)}}}
    result = run_module(libvirt_volume.main, args, check_mode=check_mode)
    assert result["failed"] is True
    assert result["msg"].startswith(f"{option}: {str(source)!r} is a parallels image, which a libvirt volume cannot hold: QEMU probes it as parallels"), result
    assert _unit_volumes(conn) == []


class _Pool:
    """A dir pool at ``path`` of a connection to the daemon on this host, as the functions that
    read the pools' directories and the same-host fast path see it."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.refreshed = 0

    def XMLDesc(self, _flags: int) -> str:
        return f"<pool type='dir'><name>p</name><target><path>{self.path}</path></target></pool>"

    def connect(self) -> _Pool:
        return self

    def getURI(self) -> str:
        return "qemu:///system"

    def listAllStoragePools(self, _flags: int) -> list[_Pool]:
        return [self]

    def refresh(self, _flags: int) -> None:
        self.refreshed += 1


class _PloopVolume:
    """A file libvirt takes for a ploop volume: its delete fails as libvirt 9's does."""

    def __init__(self, pool: _Pool, path: str, fmt: str = "ploop") -> None:
        self.pool, self.file, self.fmt = pool, path, fmt

    def delete(self, _flags: int) -> None:
        raise libvirt.libvirtError(f"cannot open directory '{self.file}': Not a directory")

    def XMLDesc(self, _flags: int) -> str:
        info = os.stat(self.file)
        times = "".join(f"<{key}>{ns // 10**9}.{ns % 10**9:09d}</{key}>" for key, ns in (("mtime", info.st_mtime_ns), ("ctime", info.st_ctime_ns)))
        return f"<volume><name>v</name><target><path>{self.file}</path><format type='{self.fmt}'/><timestamps>{times}</timestamps></target></volume>"

    def storagePoolLookupByVolume(self) -> _Pool:
        return self.pool

    def connect(self) -> _Pool:
        return self.pool

    def key(self) -> str:
        return self.file

    def path(self) -> str:
        return self.file


def test_a_file_libvirt_takes_for_a_ploop_volume_is_deleted(tmp_path: t.Any) -> None:
    pool = _Pool(str(tmp_path))
    (tmp_path / "v").write_bytes(PARALLELS_HEADER)
    volume_utils._delete_or_fail(_PloopVolume(pool, str(tmp_path / "v")), "storage volume")
    assert not (tmp_path / "v").exists()
    assert pool.refreshed == 1


@pytest.mark.parametrize("case", ["not ploop", "a directory", "a link", "another pool's file", "changed since libvirt read it"])
def test_only_the_volume_file_itself_is_deleted_by_hand(tmp_path: t.Any, case: str) -> None:
    (tmp_path / "pool").mkdir()
    (tmp_path / "other").mkdir()
    pool = _Pool(str(tmp_path / "pool"))
    path = tmp_path / "pool" / "v"
    if case == "a directory":
        path.mkdir()
    elif case == "a link":
        (tmp_path / "other" / "v").write_bytes(PARALLELS_HEADER)
        path.symlink_to(tmp_path / "other" / "v")
    elif case == "another pool's file":
        path = tmp_path / "other" / "v"
        path.write_bytes(PARALLELS_HEADER)
    else:
        path.write_bytes(PARALLELS_HEADER)
    volume = _PloopVolume(pool, str(path), "raw" if case == "not ploop" else "ploop")
    if case == "changed since libvirt read it":
        xml = volume.XMLDesc(0)
        volume.XMLDesc = lambda _flags: xml  # type: ignore[method-assign]
        time.sleep(0.01)
        path.write_bytes(bytes(4096))
    with pytest.raises(LibvirtError, match="^Failed to Delete Volume: Could not delete storage volume: cannot open directory"):
        volume_utils._delete_or_fail(volume, "storage volume")
    assert os.path.lexists(path)
    assert pool.refreshed == 0


@pytest.mark.parametrize("there", [False, True])
def test_a_missing_volume_refreshes_the_pool_only_when_its_file_is_there(tmp_path: t.Any, there: bool) -> None:
    # A refresh holds the pool while it reads every file: parallel runs making new volumes
    # would queue on it. Only a file put into the directory by hand can be found by one.
    pool = _Pool(str(tmp_path))
    pool.storageVolLookupByName = lambda name: None  # type: ignore[attr-defined]
    if there:
        (tmp_path / "v").write_bytes(b"")
    volume_utils._refreshed_lookup(pool, "v")
    assert pool.refreshed == (1 if there else 0)


OVERLAY_BASES: dict[str, tuple[bytes, str, str | None]] = {
    "a raw base given as raw": (bytes(4096), "raw", None),
    "a qcow2 base given as qcow2": (QCOW2_HEADER, "qcow2", None),
    "a qcow2 base given as raw": (QCOW2_HEADER, "raw", r"link 1 of its backing chain \('.*/base'\) is a qcow2 image, but the link above records it as raw"),
    "a parallels base given as raw": (PARALLELS_HEADER, "raw", r"link 1 .* is a parallels image, but the link above records it as raw"),
    "a base whose own backing file is outside every pool": (
        (b"QFI\xfb" + struct.pack(">IQIIQ", 2, 72, 11, 16, 1 << 20)).ljust(72, b"\0") + b"/etc/shadow",
        "qcow2",
        r"link 1 of its backing chain, '.*/base', is a qcow2 image whose backing file is '/etc/shadow': .*every link of the chain must be a volume of a pool$",
    ),
}


@pytest.mark.parametrize("name", list(OVERLAY_BASES))
def test_the_base_of_an_overlay_and_its_chain(tmp_path: t.Any, name: str) -> None:
    data, declared, error = OVERLAY_BASES[name]
    (tmp_path / "base").write_bytes(data.ljust(4096, b"\0"))
    desired = {"name": "overlay.qcow2", "backing_store": {"path": str(tmp_path / "base"), "format": {"type": declared}}}
    if error is None:
        volume_utils._check_overlay_base(_Pool(str(tmp_path)), desired)
        return
    with pytest.raises(LibvirtValidationError, match=rf"^backing_store\.path: the overlay 'overlay\.qcow2' is refused: {error}"):
        volume_utils._check_overlay_base(_Pool(str(tmp_path)), desired)


def test_the_base_of_an_overlay_outside_every_pool_is_not_read(tmp_path: t.Any) -> None:
    """A base outside the pools is the user's choice, warned about: its content is not read."""
    (tmp_path / "pool").mkdir()
    (tmp_path / "base").write_bytes(PARALLELS_HEADER)
    desired = {"name": "overlay.qcow2", "backing_store": {"path": str(tmp_path / "base"), "format": {"type": "raw"}}}
    volume_utils._check_overlay_base(_Pool(str(tmp_path / "pool")), desired)


# --- Volumes that live: grown under a running guest, written by it ------------------------------

DIGEST = "sha256:" + "ab" * 32
OTHER_DIGEST = "sha256:" + "cd" * 32


class _FileVolume:
    """A file volume as libvirt reports it; its content read back is ``content_digest``."""

    def __init__(self, conn: t.Any, *, ctime: str = "1700000001.5", capacity: int = 1048576) -> None:
        self._conn, self.ctime, self.capacity = conn, ctime, capacity
        self.resized: list[int] = []

    def connect(self) -> t.Any:
        return self._conn

    def key(self) -> str:
        return "/pool/root.qcow2"

    def path(self) -> str:
        return "/pool/root.qcow2"

    def XMLDesc(self, flags: int) -> str:
        return (
            f"<volume><name>root.qcow2</name><capacity unit='bytes'>{self.capacity}</capacity><target><path>/pool/root.qcow2</path>"
            f"<timestamps><mtime>1700000000.1</mtime><ctime>{self.ctime}</ctime></timestamps></target></volume>"
        )

    def resize(self, capacity: int, flags: int) -> None:
        self.resized.append(capacity)


class _FakeDomain:
    def __init__(self, name: str, disk: str, *, running: bool = True) -> None:
        self._name, self._running = name, running
        self.xml = f"<domain><name>{name}</name><devices>{disk}</devices></domain>"
        self.block_resized: list[tuple[str, int, int]] = []

    def name(self) -> str:
        return self._name

    def isActive(self) -> int:
        return int(self._running)

    def XMLDesc(self, flags: int) -> str:
        return self.xml

    def blockResize(self, disk: str, size: int, flags: int) -> None:
        self.block_resized.append((disk, size, flags))


class _FakeConn:
    def __init__(self, *domains: _FakeDomain) -> None:
        self.domains = {d.name(): d for d in domains}

    def getURI(self) -> str:
        return "qemu:///system"

    def listAllDomains(self, flags: int) -> list[_FakeDomain]:
        return [d for d in self.domains.values() if d.isActive() or not flags]

    def lookupByName(self, name: str) -> _FakeDomain:
        return self.domains[name]


ROOT_DISK = "<disk type='volume' device='disk'><source pool='pool' volume='root.qcow2'/><target dev='vda'/></disk>"
AS_BASE = (
    "<disk type='file' device='disk'><source file='/pool/overlay.qcow2'/>"
    "<backingStore type='file'><source file='/pool/root.qcow2'/></backingStore><target dev='vda'/></disk>"
)
PARAMS = {"name": "root.qcow2", "pool": "pool"}


@pytest.fixture
def records(tmp_path: t.Any, monkeypatch: pytest.MonkeyPatch) -> str:
    parent = tmp_path / "private"
    parent.mkdir(mode=0o700)
    location = str(parent / "digests")
    monkeypatch.setattr(digest_records, "_location", lambda: location)
    return location


def _record(volume: t.Any) -> t.Any:
    return digest_records.recorded(digest_records.volume_identity(volume))


@pytest.mark.parametrize(
    ("recorded", "change", "domain", "read", "problem", "lived_after"),
    [
        # Verified at this stamp: nothing is read.
        ({"digest": DIGEST}, {}, None, None, None, False),
        # Changed since, nobody writes to it (a base image): read back, the same content...
        ({"digest": DIGEST}, {"ctime": "1700000009.5"}, None, DIGEST, None, False),
        # ... or not: refused.
        (
            {"digest": DIGEST},
            {"ctime": "1700000009.5"},
            None,
            OTHER_DIGEST,
            "does not hold the content of " + DIGEST + " (it changed since it was verified)",
            False,
        ),
        # Read by a running guest through an overlay: still a base, read back.
        ({"digest": DIGEST}, {"ctime": "1700000009.5"}, AS_BASE, DIGEST, None, False),
        # A guest's disk, running or not: what it wrote is its own, never read.
        ({"digest": DIGEST}, {"ctime": "1700000009.5"}, ROOT_DISK, None, None, True),
        ({"digest": DIGEST, "running": False}, {"ctime": "1700000009.5"}, ROOT_DISK, None, None, True),
        # Grown since: the content's digest cannot match any more, never read.
        ({"digest": DIGEST}, {"ctime": "1700000009.5", "capacity": 2097152}, None, None, None, True),
        # Once lived, always: its domain may be gone, it is still not compared.
        ({"digest": DIGEST, "lived": True}, {"ctime": "1700000009.5"}, None, None, None, True),
        # Made from other content: a change of the checksum, refused without reading.
        ({"digest": OTHER_DIGEST, "lived": True}, {}, ROOT_DISK, None, f"was made from content of {OTHER_DIGEST}, not {DIGEST}", True),
        # No record (or one of another algorithm): read back once, and recorded.
        (None, {}, None, DIGEST, None, False),
        ({"digest": "sha512:" + "ef" * 64}, {}, None, DIGEST, None, False),
        (None, {}, None, OTHER_DIGEST, "does not hold the content of " + DIGEST, None),
    ],
)
def test_what_a_checksum_says_of_a_volume_that_lives(
    records: str,
    monkeypatch: pytest.MonkeyPatch,
    recorded: dict[str, t.Any] | None,
    change: dict[str, t.Any],
    domain: str | None,
    read: str | None,
    problem: str | None,
    lived_after: bool | None,
) -> None:
    conn = _FakeConn(*([_FakeDomain("ws1", domain, running=(recorded or {}).get("running", True))] if domain else []))
    volume = _FileVolume(conn)
    if recorded is not None:
        volume_utils._remember_digest(volume, recorded["digest"], lived=recorded.get("lived", False))
    for key, value in change.items():
        setattr(volume, key, value)
    reads: list[str] = []

    def digest_volume(vol: t.Any, algorithm: str) -> str:
        reads.append(algorithm)
        return t.cast("str", read).partition(":")[2]

    monkeypatch.setattr(volume_utils, "digest_volume", digest_volume)
    checksum = volume_utils._Checksum("sha256", "ab" * 32)
    assert volume_utils._content_problem(volume, PARAMS, checksum) == problem
    assert reads == (["sha256"] if read else [])
    after = _record(volume)
    if lived_after is None:
        assert after is None
    else:
        assert after.lived is lived_after
        # The stamp of the last verification, or of when it was found to have lived
        updated = problem is None and not (recorded or {}).get("lived")
        assert after.stamp["ctime"] == (volume.ctime if updated else "1700000001.5")


def test_a_guests_disk_without_a_record_is_not_read_nor_taken(records: str, monkeypatch: pytest.MonkeyPatch) -> None:
    volume = _FileVolume(_FakeConn(_FakeDomain("ws1", ROOT_DISK, running=False)))
    monkeypatch.setattr(volume_utils, "digest_volume", lambda *_: pytest.fail("a guest's disk was read"))
    with pytest.raises(
        LibvirtValidationError,
        match=r"^create.content.checksum: volume 'root.qcow2' in pool 'pool' is disk vda of domain 'ws1'.*leave out create.content.checksum",
    ):
        volume_utils._content_problem(volume, PARAMS, volume_utils._Checksum("sha256", "ab" * 32))


@pytest.mark.parametrize("check_mode", [True, False], ids=["check", "real"])
@pytest.mark.parametrize(
    ("domains", "expected"),
    [
        ((), {"update_method": "resize"}),
        ((_FakeDomain("ws0", ROOT_DISK, running=False),), {"update_method": "resize"}),
        ((_FakeDomain("ws1", ROOT_DISK),), {"update_method": "block_resize", "resized_disk": {"domain": "ws1", "target": "vda"}}),
    ],
    ids=["unused", "stopped-guest", "running-guest"],
)
def test_a_volume_grows_through_the_running_guest_whose_disk_it_is(
    records: str, check_mode: bool, domains: tuple[_FakeDomain, ...], expected: dict[str, t.Any]
) -> None:
    for domain in domains:
        domain.block_resized.clear()
    volume = _FileVolume(_FakeConn(*domains))
    volume_utils._remember_digest(volume, DIGEST)
    assert volume_utils._grow_existing(volume, PARAMS, 2097152, check_mode) == expected  # the same in check mode
    through = [call for domain in domains for call in domain.block_resized]
    if check_mode:
        assert (volume.resized, through, _record(volume).lived) == ([], [], False)
    elif expected["update_method"] == "resize":
        assert (volume.resized, through, _record(volume).lived) == ([2097152], [], True)
    else:  # in bytes (VIR_DOMAIN_BLOCK_RESIZE_BYTES); the volume is not resized by libvirt
        assert (volume.resized, through, _record(volume).lived) == ([], [("vda", 2097152, 1)], True)


def test_growing_a_disk_two_running_guests_share_is_refused(records: str) -> None:
    volume = _FileVolume(_FakeConn(_FakeDomain("ws1", ROOT_DISK), _FakeDomain("ws2", ROOT_DISK)))
    with pytest.raises(
        LibvirtError, match=r"^capacity: volume 'root.qcow2' in pool 'pool' is disk vda of running domain 'ws1' and disk vda of running domain 'ws2'"
    ):
        volume_utils._grow_existing(volume, PARAMS, 2097152, True)
    assert volume.resized == []


def test_the_module_reports_how_it_grows_the_same_in_check_mode(conn: t.Any, run_module: Run) -> None:
    run_module(libvirt_volume.main, VOLUME)
    planned = run_module(libvirt_volume.main, {**VOLUME, "capacity": 2}, check_mode=True)
    assert (planned["changed"], planned["operation"], planned["changed_paths"], planned["update_method"]) == (True, "update", ["capacity"], "resize")
    # A running domain of the test driver with the volume as its disk: the volume grows through it.
    xml = (
        "<domain type='test'><name>unit-guest</name><memory>1024</memory><os><type>hvm</type></os><devices>"
        "<disk type='file' device='disk'><source file='/default-pool/unit.img'/><target dev='vdb'/></disk></devices></domain>"
    )
    guest = conn.createXML(xml, 0)
    try:
        planned = run_module(libvirt_volume.main, {**VOLUME, "capacity": 2}, check_mode=True)
        assert (planned["changed"], planned["update_method"], planned["resized_disk"]) == (True, "block_resize", {"domain": "unit-guest", "target": "vdb"})
        # The test driver cannot resize a block device: the error names the domain's disk.
        result = run_module(libvirt_volume.main, {**VOLUME, "capacity": 2})
        assert result["failed"] is True
        assert result["msg"].startswith("Failed to resize volume 'unit.img' to 2097152 bytes through disk vdb of running domain 'unit-guest': ")
    finally:
        guest.destroy()


def test_a_deleted_volume_takes_its_record_with_it(conn: t.Any, run_module: Run, records: str) -> None:
    run_module(libvirt_volume.main, VOLUME)
    volume = conn.storagePoolLookupByName(POOL).storageVolLookupByName("unit.img")
    volume_utils._remember_digest(volume, DIGEST)
    assert _record(volume) is not None
    assert run_module(libvirt_volume.main, {**VOLUME, "state": "absent"}, check_mode=True)["changed"] is True
    assert _record(volume) is not None
    assert run_module(libvirt_volume.main, {**VOLUME, "state": "absent"})["changed"] is True
    assert os.listdir(records) == []


def test_a_record_of_a_volume_deleted_by_other_means_does_not_vouch_for_a_new_one(conn: t.Any, run_module: Run, records: str) -> None:
    run_module(libvirt_volume.main, VOLUME)
    volume = conn.storagePoolLookupByName(POOL).storageVolLookupByName("unit.img")
    volume_utils._remember_digest(volume, DIGEST)
    volume.delete(0)  # virsh vol-delete: the record stays
    run_module(libvirt_volume.main, VOLUME)  # made anew, without content
    assert os.listdir(records) == []
    run_module(libvirt_volume.main, {**VOLUME, "state": "absent"})


@pytest.mark.parametrize("good", [True, False])
def test_a_check_run_verifies_a_local_files_checksum_as_the_real_run_would(conn: t.Any, run_module: Run, tmp_path: t.Any, good: bool) -> None:
    image = tmp_path / "image.raw"
    image.write_bytes(b"x" * (3 << 20))  # more than one read
    digest = hashlib.sha256(image.read_bytes()).hexdigest() if good else "0" * 64
    args = {**VOLUME, "capacity": None, "create": {"content": {"url": str(image), "checksum": f"sha256:{digest}"}}}
    result = run_module(libvirt_volume.main, args, check_mode=True)
    if good:
        assert result["changed"] is True and not result.get("failed")
    else:
        assert result["failed"] is True
        assert result["msg"] == (
            f"create.content.checksum: the content read from {str(image)!r} has sha256:{hashlib.sha256(image.read_bytes()).hexdigest()}, "
            f"not sha256:{digest}: nothing was made"
        )
    assert "unit.img" not in _volumes(conn)
