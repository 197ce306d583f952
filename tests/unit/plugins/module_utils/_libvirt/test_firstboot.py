# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import hashlib
import io
import os
import typing as t

import pytest

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.errors import LibvirtValidationError
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.firstboot import (
    CLOUDINIT_DISK,
    COMBUSTION,
    IGNITION,
    Artifact,
    Kind,
    default_dest,
    desired_plan,
    resource_id,
    validate,
    write_atomic,
)
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.iso import IsoFile, build_iso

# sha256("abc") = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad (FIPS 180-2).
ABC = "ba7816bf8f01cfea"


@pytest.mark.parametrize(
    ("kind", "content", "expected"),
    [
        # upstream concatenates user_data, meta_data, network_config with no separator
        (CLOUDINIT_DISK, {"user_data": "abc", "meta_data": "", "network_config": None}, ABC),
        (CLOUDINIT_DISK, {"user_data": "a", "meta_data": "bc", "network_config": None}, ABC),
        (CLOUDINIT_DISK, {"user_data": "a", "meta_data": "b", "network_config": "c"}, ABC),
        (CLOUDINIT_DISK, {"user_data": "", "meta_data": "", "network_config": "abc"}, ABC),
        (CLOUDINIT_DISK, {"user_data": "abc", "meta_data": "", "network_config": ""}, ABC),  # empty adds nothing
        (CLOUDINIT_DISK, {"user_data": "", "meta_data": "", "network_config": None}, "e3b0c44298fc1c14"),
        (COMBUSTION, {"content": "abc"}, ABC),
        (IGNITION, {"content": "abc"}, ABC),
    ],
)
def test_resource_id(kind: Kind, content: dict[str, t.Any], expected: str) -> None:
    assert resource_id(kind, content) == expected


def test_resource_id_hashes_utf8() -> None:
    # Go hashes the string's UTF-8 bytes: sha256(c3 a9), not sha256 of a Latin-1 byte e9
    assert resource_id(COMBUSTION, {"content": "é"}) == hashlib.sha256(b"\xc3\xa9").hexdigest()[:16]
    assert resource_id(COMBUSTION, {"content": "é"}) != hashlib.sha256(b"\xe9").hexdigest()[:16]


@pytest.mark.parametrize(
    ("kind", "environ", "expected"),
    [
        (CLOUDINIT_DISK, {}, "/tmp/terraform-provider-libvirt-cloudinit"),
        (CLOUDINIT_DISK, {"TMPDIR": ""}, "/tmp/terraform-provider-libvirt-cloudinit"),  # Go: empty = unset
        (COMBUSTION, {"TMPDIR": "/var/tmp"}, "/var/tmp/terraform-provider-libvirt-combustion"),
        (IGNITION, {"TMPDIR": "/run/user/0"}, "/run/user/0/terraform-provider-libvirt-ignition"),
    ],
)
def test_default_dest(kind: Kind, environ: dict[str, str], expected: str) -> None:
    assert default_dest(kind, environ=environ) == expected


@pytest.mark.parametrize(
    ("kind", "params", "expected_name", "drive"),
    [
        (CLOUDINIT_DISK, {"user_data": "abc", "meta_data": ""}, f"cloudinit-{ABC}.iso", None),
        (COMBUSTION, {"content": "abc"}, f"script-{ABC}.sh", None),
        (COMBUSTION, {"content": "abc", "format": "config_drive"}, f"script-{ABC}.sh", f"combustion-{ABC}.iso"),
        (IGNITION, {"content": "abc"}, f"ignition-{ABC}.ign", None),
        (IGNITION, {"content": "abc", "format": "config_drive"}, f"ignition-{ABC}.ign", f"ignition-{ABC}.iso"),
    ],
)
def test_upstream_paths_and_modes(kind: Kind, params: dict[str, t.Any], expected_name: str, drive: str | None) -> None:
    plan = desired_plan(kind, {"name": "n", "dest": "/d", "format": "file", **params})
    assert plan.main.path == f"/d/{expected_name}"
    assert plan.main.mode == {"cloudinit_disk": 0o644, "combustion": 0o755, "ignition": 0o644}[kind.key]
    assert (plan.drive.path if plan.drive else None) == (f"/d/{drive}" if drive else None)


@pytest.mark.parametrize(
    ("kind", "params", "volume"),
    [
        (CLOUDINIT_DISK, {"user_data": "u", "meta_data": "m", "pool": "p"}, "n.iso"),
        (COMBUSTION, {"content": "c", "pool": "p"}, "n.sh"),
        (COMBUSTION, {"content": "c", "pool": "p", "format": "config_drive"}, "n.iso"),
        (IGNITION, {"content": "{}", "pool": "p"}, "n.ign"),
        (IGNITION, {"content": "{}", "pool": "p", "volume": "seed.raw"}, "seed.raw"),
        (IGNITION, {"content": "{}"}, None),
    ],
)
def test_default_volume_names(kind: Kind, params: dict[str, t.Any], volume: str | None) -> None:
    assert desired_plan(kind, {"name": "n", "format": "file", **params}).volume == volume


BASE = {"name": "n", "state": "present", "dest": None, "pool": None, "volume": None, "format": "file"}


@pytest.mark.parametrize(
    ("kind", "params", "message"),
    [
        (CLOUDINIT_DISK, {"name": "", "user_data": "u", "meta_data": "m"}, "^name: must not be empty$"),
        (CLOUDINIT_DISK, {"user_data": "", "meta_data": "m"}, "^user_data: must not be empty$"),
        (CLOUDINIT_DISK, {"user_data": "u", "meta_data": ""}, "^meta_data: must not be empty$"),
        (COMBUSTION, {"content": ""}, "^content: must not be empty$"),
        (IGNITION, {"content": ""}, "^content: must not be empty$"),
        (
            IGNITION,
            {"content": "{"},
            r"^content: not valid JSON, so not an Ignition config: Expecting property name enclosed in double quotes: line 1 column 2",
        ),
        (IGNITION, {"content": "ignition: {}"}, r"^content: not valid JSON, so not an Ignition config: Expecting value: line 1 column 1 \(char 0\)"),
        (IGNITION, {"content": "[1]"}, "^content: an Ignition config is a JSON object, got a JSON list$"),
        (IGNITION, {"content": '"x"'}, "^content: an Ignition config is a JSON object, got a JSON str$"),
        (COMBUSTION, {"content": "x", "dest": "relative/dir"}, "^dest: must be an absolute path, got 'relative/dir'$"),
        (COMBUSTION, {"content": "x", "dest": "/etc/hostname/sub"}, "^dest: /etc/hostname is not a directory$"),
        (COMBUSTION, {"content": "x", "volume": "v"}, "^volume: needs pool$"),
        (COMBUSTION, {"content": "x", "pool": "p", "volume": "a/b"}, "^volume: must be a volume name without '/', got 'a/b'$"),
        (COMBUSTION, {"content": "x", "pool": "p", "volume": ""}, "^volume: must be a volume name without '/', got ''$"),
    ],
)
def test_validate(kind: Kind, params: dict[str, t.Any], message: str) -> None:
    if not os.path.isfile("/etc/hostname") and "hostname" in message:
        pytest.skip("needs /etc/hostname")
    with pytest.raises(LibvirtValidationError, match=message):
        validate(kind, {**BASE, **params})


def test_validate_accepts_absent_without_content() -> None:
    validate(CLOUDINIT_DISK, {**BASE, "state": "absent"})
    validate(IGNITION, {**BASE, "state": "absent", "content": "not json"})


IGN = b'{"ignition": {"version": "3.4.0"}}'


@pytest.mark.parametrize(
    ("artifact", "blob", "matches"),
    [
        (Artifact(path="p", mode=0o644, data=IGN), IGN, True),
        (Artifact(path="p", mode=0o644, data=IGN), IGN + b"\0" * 5000, True),  # a volume rounded up
        (Artifact(path="p", mode=0o644, data=IGN), IGN[:-1], False),  # truncated
        (Artifact(path="p", mode=0o644, data=IGN), IGN + b"\n", False),
        (Artifact(path="p", mode=0o644, data=IGN), b"", False),
        (
            Artifact(path="p", mode=0o644, iso_label="cidata", iso_files=(IsoFile("user-data", b"u"), IsoFile("meta-data", b"m"))),
            build_iso("cidata", [IsoFile("meta-data", b"m"), IsoFile("user-data", b"u")]),
            True,
        ),
        (
            Artifact(path="p", mode=0o644, iso_label="cidata", iso_files=(IsoFile("user-data", b"u"), IsoFile("meta-data", b"m"))),
            build_iso("CIDATA", [IsoFile("user-data", b"u"), IsoFile("meta-data", b"m")]),
            False,
        ),
        (
            Artifact(path="p", mode=0o644, iso_label="cidata", iso_files=(IsoFile("user-data", b"u"), IsoFile("meta-data", b"m"))),
            build_iso("cidata", [IsoFile("user-data", b"u"), IsoFile("meta-data", b"m"), IsoFile("network-config", b"")]),
            False,
        ),
        (
            Artifact(path="p", mode=0o644, iso_label="combustion", iso_files=(IsoFile("combustion/script", b"s", 0o555),)),
            build_iso("combustion", [IsoFile("combustion/script", b"s", 0o444)]),
            False,  # the script must be executable
        ),
    ],
    ids=["plain", "plain-zero-padded", "plain-truncated", "plain-extra", "plain-empty", "iso", "iso-label", "iso-extra-file", "iso-mode"],
)
def test_content_matches(artifact: Artifact, blob: bytes, matches: bool) -> None:
    assert artifact.content_matches(io.BytesIO(blob)) is matches


def test_write_atomic_leaves_nothing_on_failure(tmp_path: t.Any, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "f"
    target.write_bytes(b"old")

    def fail(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError, match="No space left"):
        write_atomic(str(target), b"new", 0o644)
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f"]


@pytest.mark.parametrize("mode", [0o600, 0o644, 0o755])
def test_write_atomic_sets_the_exact_mode(tmp_path: t.Any, mode: int) -> None:
    old_umask = os.umask(0o077)
    try:
        write_atomic(str(tmp_path / "f"), b"x", mode)
    finally:
        os.umask(old_umask)
    assert (tmp_path / "f").stat().st_mode & 0o7777 == mode
