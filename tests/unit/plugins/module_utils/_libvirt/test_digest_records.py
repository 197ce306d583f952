# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Digest records are trusted only in a private directory, as private files of the running user,
# with every field in its shape: anything else is no record (the object is read again).

from __future__ import annotations

import hashlib
import json
import os
import struct
import typing as t

import pytest

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt import digest_records, image_file
from ansible_collections.devinfra.providers.plugins.modules import libvirt_image_info

STAMP = {"mtime": "1700000000.123456789", "ctime": "1700000001.5", "capacity": "1048576", "allocation": "4096"}
DIGEST = "sha256:" + "ab" * 32


@pytest.fixture
def records(tmp_path: t.Any, monkeypatch: pytest.MonkeyPatch) -> str:
    parent = tmp_path / "private"
    parent.mkdir(mode=0o700)
    location = str(parent / "digests")
    monkeypatch.setattr(digest_records, "_location", lambda: location)
    return location


def _only_record(location: str) -> str:
    (name,) = [n for n in os.listdir(location) if n.endswith(".json")]
    return os.path.join(location, name)


def test_a_record_is_recalled_at_its_stamp_only(records: str) -> None:
    digest_records.remember("volume\0uri\0key", STAMP, DIGEST)
    assert digest_records.recall("volume\0uri\0key", STAMP) == DIGEST
    assert digest_records.recall("volume\0uri\0key", {**STAMP, "ctime": "1700000009.5"}) is None
    assert digest_records.recall("volume\0uri\0other", STAMP) is None
    assert os.stat(records).st_mode & 0o777 == 0o700
    assert os.stat(_only_record(records)).st_mode & 0o777 == 0o600


@pytest.mark.parametrize(
    "content",
    [
        b"not json",
        b"[]",
        json.dumps({"identity": "volume\0uri\0key", "stamp": STAMP, "digest": "md5:" + "a" * 32}).encode(),
        json.dumps({"identity": "volume\0uri\0key", "stamp": STAMP, "digest": DIGEST, "extra": 1}).encode(),
        json.dumps({"identity": "volume\0uri\0key", "stamp": {**STAMP, "ctime": "$(id)"}, "digest": DIGEST}).encode(),
        json.dumps({"identity": "volume\0uri\0key", "stamp": {"ctime": 5}, "digest": DIGEST}).encode(),
        json.dumps({"identity": "someone else", "stamp": STAMP, "digest": DIGEST}).encode(),
        b"{" * 100000,  # deeply nested, and larger than a record can be
        b" " * 5000 + json.dumps({"identity": "volume\0uri\0key", "stamp": STAMP, "digest": DIGEST}).encode(),
    ],
)
def test_a_record_of_the_wrong_shape_is_no_record(records: str, content: bytes) -> None:
    digest_records.remember("volume\0uri\0key", STAMP, DIGEST)
    path = _only_record(records)
    with open(path, "wb") as handle:
        handle.write(content)
    assert digest_records.recall("volume\0uri\0key", STAMP) is None


def test_a_record_others_can_write_or_a_link_is_no_record(records: str, tmp_path: t.Any) -> None:
    digest_records.remember("volume\0uri\0key", STAMP, DIGEST)
    path = _only_record(records)
    os.chmod(path, 0o666)
    assert digest_records.recall("volume\0uri\0key", STAMP) is None
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps({"identity": "volume\0uri\0key", "stamp": STAMP, "digest": DIGEST}))
    os.chmod(forged, 0o600)
    os.unlink(path)
    os.symlink(forged, path)
    assert digest_records.recall("volume\0uri\0key", STAMP) is None


def test_a_directory_others_can_write_holds_no_record(records: str) -> None:
    digest_records.remember("volume\0uri\0key", STAMP, DIGEST)
    os.chmod(records, 0o777)
    assert digest_records.recall("volume\0uri\0key", STAMP) is None
    digest_records.remember("volume\0uri\0two", STAMP, DIGEST)  # nothing written there either
    assert len([n for n in os.listdir(records) if n.endswith(".json")]) == 1


def test_an_image_file_is_digested_once_per_version(records: str, tmp_path: t.Any, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "image.raw"
    path.write_bytes(b"x" * 5000)
    reads: list[int] = []
    real = os.pread

    def counted(fd: int, n: int, offset: int) -> bytes:
        reads.append(offset)
        return real(fd, n, offset)

    params = {"path": str(path), "get_checksum": True, "checksum_algorithm": "sha256"}
    first = image_file.describe_image_file(params)
    monkeypatch.setattr(os, "pread", counted)
    second = image_file.describe_image_file(params)
    assert first == second
    assert first["checksum"].startswith("sha256:") and first["format"] == "raw" and first["refused"] is None
    assert reads == [0]  # the header only: the digest came from the record
    path.write_bytes(b"y" * 5000)  # same size: the change time tells
    reads.clear()
    third = image_file.describe_image_file(params)
    assert third["checksum"] != first["checksum"]
    assert len(reads) > 1


def test_libvirt_image_info_reports_what_an_upload_would_refuse(records: str, tmp_path: t.Any, run_module: t.Any) -> None:
    backed = tmp_path / "backed.qcow2"
    name = b"/root/secret.img"
    header = b"QFI\xfb" + struct.pack(">IQIIQ", 2, 512, len(name), 16, 1 << 20)
    backed.write_bytes((header.ljust(512, b"\0") + name).ljust(4096, b"\0"))
    result = run_module(libvirt_image_info.main, {"path": f"file://{backed}"})
    assert result["changed"] is False
    image = result["image"]
    assert (image["format"], image["virtual_size"], image["size"]) == ("qcow2", 1 << 20, 4096)
    assert image["references"] == [{"kind": "backing file", "path": "/root/secret.img"}]
    assert image["refused"].startswith(f"create.content.url: '{backed}' is a qcow2 image whose backing file is '/root/secret.img'")
    assert image["checksum"] == "sha256:" + hashlib.sha256(backed.read_bytes()).hexdigest()
    missing = run_module(libvirt_image_info.main, {"path": str(tmp_path / "missing")})
    assert missing["failed"] is True and missing["msg"].startswith("path: cannot open")
    directory = run_module(libvirt_image_info.main, {"path": str(tmp_path), "get_checksum": False})
    assert directory["failed"] is True and directory["msg"].endswith("is not a regular file")


def test_a_volume_record_says_what_it_was_made_from_whatever_its_stamp(records: str) -> None:
    digest_records.remember("volume\0uri\0key", STAMP, DIGEST, lived=True)
    assert digest_records.recorded("volume\0uri\0key") == digest_records.Record(DIGEST, STAMP, lived=True)
    assert digest_records.recall("volume\0uri\0key", STAMP) == DIGEST
    assert digest_records.recall("volume\0uri\0key", {**STAMP, "ctime": "1700000009.5"}) is None
    digest_records.remember("volume\0uri\0key", {}, DIGEST)  # a volume that is not a file: no stamp
    assert digest_records.recorded("volume\0uri\0key") == digest_records.Record(DIGEST, {}, lived=False)


def test_a_record_of_an_earlier_release_has_not_lived(records: str) -> None:
    digest_records.remember("volume\0uri\0key", STAMP, DIGEST)
    with open(_only_record(records), "w", encoding="utf-8") as handle:
        json.dump({"identity": "volume\0uri\0key", "stamp": STAMP, "digest": DIGEST}, handle)
    assert digest_records.recorded("volume\0uri\0key") == digest_records.Record(DIGEST, STAMP, lived=False)
    with open(_only_record(records), "w", encoding="utf-8") as handle:
        json.dump({"identity": "volume\0uri\0key", "stamp": STAMP, "digest": DIGEST, "lived": "yes"}, handle)
    assert digest_records.recorded("volume\0uri\0key") is None


def test_a_forgotten_record_is_gone_and_forgetting_makes_nothing(records: str) -> None:
    digest_records.forget("volume\0uri\0key")
    assert not os.path.exists(records)  # not even the directory
    digest_records.remember("volume\0uri\0key", STAMP, DIGEST)
    digest_records.remember("volume\0uri\0two", STAMP, DIGEST)
    digest_records.forget("volume\0uri\0key")
    digest_records.forget("volume\0uri\0key")
    assert digest_records.recorded("volume\0uri\0key") is None
    assert digest_records.recorded("volume\0uri\0two") is not None
