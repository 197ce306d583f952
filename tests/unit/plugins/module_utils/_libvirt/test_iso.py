# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import io

import pytest

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.iso import IsoFile, build_iso, iso9660_name, read_iso

# ISO9660 primary volume descriptor: the volume identifier is 32 bytes at offset 32808
# (what the busybox test guest and blkid read).
PVD_LABEL = slice(32808, 32808 + 32)


@pytest.mark.parametrize(
    ("component", "directory", "expected"),
    [
        ("user-data", False, "USER_DATA.;1"),
        ("meta-data", False, "META_DATA.;1"),
        ("network-config", False, "NETWORK_CONFIG.;1"),
        ("config.ign", False, "CONFIG.IGN;1"),
        ("script", False, "SCRIPT.;1"),
        ("archive.tar.gz", False, "ARCHIVE_TAR.GZ;1"),
        ("ignition", True, "IGNITION"),
        ("my-dir.d", True, "MY_DIR_D"),
    ],
)
def test_iso9660_name(component: str, directory: bool, expected: str) -> None:
    assert iso9660_name(component, directory=directory) == expected


@pytest.mark.parametrize(
    ("label", "files"),
    [
        ("cidata", [IsoFile("user-data", b"#cloud-config\n"), IsoFile("meta-data", b"instance-id: a\n")]),
        ("cidata", [IsoFile("user-data", b"x"), IsoFile("meta-data", b"y"), IsoFile("network-config", b"version: 2\n")]),
        ("ignition", [IsoFile("ignition/config.ign", b'{"ignition": {"version": "3.4.0"}}')]),
        ("combustion", [IsoFile("combustion/script", b"#!/bin/sh\necho hi\n", 0o555)]),
        ("cidata", [IsoFile("user-data", bytes(range(256)) * 40), IsoFile("meta-data", b"")]),
    ],
)
def test_build_and_read_back(label: str, files: list[IsoFile]) -> None:
    image = build_iso(label, files)
    assert len(image) % 2048 == 0
    assert image[PVD_LABEL].decode().rstrip() == label
    seen = read_iso(io.BytesIO(image))
    want = {f.path: f.data for f in files}
    assert (seen.label, seen.rock_ridge, seen.joliet) == (label, want, want)
    assert seen.modes == {f.path: f.mode for f in files}


@pytest.mark.parametrize(
    "mangle",
    [
        lambda image: image[:100],  # truncated inside the system area
        lambda image: image[:40000],  # truncated inside the volume descriptors
        lambda image: b"\0" * len(image),  # not an ISO at all
        lambda image: b"",
    ],
)
def test_read_rejects_broken_images(mangle: object) -> None:
    image = build_iso("cidata", [IsoFile("user-data", b"a"), IsoFile("meta-data", b"b")])
    with pytest.raises(ValueError, match="^not a readable ISO image"):
        read_iso(io.BytesIO(mangle(image)))  # type: ignore[operator]
