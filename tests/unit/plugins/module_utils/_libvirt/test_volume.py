# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import typing as t

import pytest

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
    ],
)
def test_volume_bad_input_touches_nothing(conn: t.Any, run_module: Run, args: dict[str, t.Any], message: str) -> None:
    result = run_module(libvirt_volume.main, {**VOLUME, **args})
    assert result["failed"] is True
    assert message in result["msg"]
    assert "unit.img" not in _volumes(conn)


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


def test_a_body_cut_short_is_an_error_not_a_short_volume() -> None:
    volume = _FakeVolume()
    with pytest.raises(LibvirtError, match=r"^the download ended after 10 of 20 bytes \(Content-Length\)"):
        volume_utils._stream_response(volume, _CutResponse(b"x" * 10), 20)
    assert volume.stream.state == "aborted"
    complete = _FakeVolume()
    volume_utils._stream_response(complete, _CutResponse(b"x" * 20), 20)
    assert (complete.stream.state, complete.stream.sent) == ("finished", b"x" * 20)
    unknown = _FakeVolume()  # no Content-Length: whatever came is the content
    volume_utils._stream_response(unknown, _CutResponse(b"x" * 7), None)
    assert unknown.stream.state == "finished"


def test_a_failed_replacement_upload_keeps_the_volume(conn: t.Any, run_module: Run, tmp_path: t.Any) -> None:
    run_module(libvirt_volume.main, VOLUME)
    key = conn.storagePoolLookupByName(POOL).storageVolLookupByName("unit.img").key()
    image = tmp_path / "image.qcow2"
    image.write_bytes(b"x" * 4096)
    replacement = {**VOLUME, "capacity": None, "target": {"format": {"type": "qcow2"}}, "replace": True, "create": {"content": {"url": str(image)}}}
    result = run_module(libvirt_volume.main, replacement)
    assert result["failed"] is True
    assert result["msg"].startswith("Volume Upload Failed: ")
    # The upload went into a staging volume, which is gone; the volume is untouched.
    assert sorted(v for v in _volumes(conn) if v.startswith("unit.img")) == ["unit.img"]
    kept = conn.storagePoolLookupByName(POOL).storageVolLookupByName("unit.img")
    assert kept.key() == key
    assert "raw" in kept.XMLDesc(0)


def _make(conn: t.Any, name: str, capacity: int) -> None:
    xml = f"<volume><name>{name}</name><capacity unit='bytes'>{capacity}</capacity></volume>"
    conn.storagePoolLookupByName(POOL).createXML(xml, 0)


def test_a_volume_left_incomplete_is_made_anew(conn: t.Any, run_module: Run) -> None:
    # What a run killed mid-upload leaves: the volume and its marker.
    _make(conn, "unit.img", 4096)
    _make(conn, "unit.img" + volume_utils.INCOMPLETE_SUFFIX, 0)
    _make(conn, "unit.img" + volume_utils.STAGING_SUFFIX, 4096)
    result = run_module(libvirt_volume.main, VOLUME, check_mode=True)
    assert result["changed"] is True
    assert "left incomplete by an interrupted run" in str(result["warnings"])
    assert len([v for v in _volumes(conn) if v.startswith("unit.img")]) == 3  # check mode touches nothing

    result = run_module(libvirt_volume.main, VOLUME)
    assert result["changed"] is True
    assert result["volume"]["capacity"] == 1048576
    assert "left incomplete by an interrupted run" in str(result["warnings"])
    assert [v for v in _volumes(conn) if v.startswith("unit.img")] == ["unit.img"]
    assert run_module(libvirt_volume.main, VOLUME)["changed"] is False


def test_removing_a_volume_left_incomplete(conn: t.Any, run_module: Run) -> None:
    _make(conn, "unit.img", 4096)
    _make(conn, "unit.img" + volume_utils.INCOMPLETE_SUFFIX, 0)
    args = {"uri": TEST_URI, "pool": POOL, "name": "unit.img", "state": "absent"}
    assert run_module(libvirt_volume.main, args)["changed"] is True
    assert [v for v in _volumes(conn) if v.startswith("unit.img")] == []
    assert run_module(libvirt_volume.main, args)["changed"] is False
