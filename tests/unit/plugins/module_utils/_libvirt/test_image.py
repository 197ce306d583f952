# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""What ``image.inspect`` reads from an image's first bytes, checked two ways.

Headers are built here with struct from the formats' specifications (QEMU's
docs/interop/qcow2.txt and qed_spec.txt, VMware's Virtual Disk Format 1.1, Microsoft's VHD and
VHDX specifications, VirtualBox's VDI header), each with what it must give, including cut short
and with hostile field values. Then qemu-img, the program that will open the volume, is the
oracle: for every format it creates, and for a few hand-built files it is handed, what ``inspect``
says must be what ``qemu-img info`` reads (format, virtual size, backing file, data file, vmdk
extents). Those cases are skipped only when qemu-img is not installed."""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import struct
import subprocess
import typing as t
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt import image
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.errors import LibvirtValidationError
from ansible_collections.devinfra.providers.tests.unit.hostile_strings import hostile_text
from ansible_collections.devinfra.providers.tests.unit.hypothesis_profile import DEADLINE, examples

Ref = tuple[str, str]

KiB = 1 << 10
MiB = 1 << 20
GiB = 1 << 30
U32_MAX = (1 << 32) - 1
U64_MAX = (1 << 64) - 1

OPTION = "create.source"
WHERE = "'/srv/upload/disk.img'"

_SETTINGS = settings(
    max_examples=examples(20),
    deadline=DEADLINE,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# --- Headers built from the specifications ---------------------------------------------------


def _with(data: bytes, offset: int, fmt: str, value: int) -> bytes:
    """``data`` with the field at ``offset`` set to ``value``."""
    buf = bytearray(data)
    struct.pack_into(fmt, buf, offset, value)
    return bytes(buf)


def _put(buf: bytearray, offset: int, chunk: bytes) -> None:
    """Write ``chunk`` at ``offset``, growing ``buf`` with zeros as needed."""
    if len(buf) < offset + len(chunk):
        buf.extend(bytes(offset + len(chunk) - len(buf)))
    buf[offset : offset + len(chunk)] = chunk


def qcow2(
    *,
    version: int = 3,
    size: int = GiB,
    cluster_bits: int = 16,
    backing: bytes = b"",
    backing_offset: int | None = None,
    backing_size: int | None = None,
    incompatible: int = 0,
    header_length: int = 104,
    extensions: t.Sequence[tuple[int, bytes]] = (),
    name_before_extensions: bool = False,
) -> bytes:
    """A qcow2 header (qcow2.txt): the fields of version 2 (72 bytes), those version 3 adds up to
    header_length, the header extensions (type, length, data padded to 8) and their end marker,
    then the backing file name (also at ``backing_offset`` when that lies in the first 4 MiB)."""
    buf = bytearray()
    _put(buf, 0, struct.pack(">4sIQIIQIIQQIIQ", b"QFI\xfb", version, 0, 0, cluster_bits, size, 0, 1, 0x30000, 0x10000, 1, 0, 0))
    start = 72
    if version >= 3:
        _put(buf, 72, struct.pack(">QQQII", incompatible, 0, 0, 4, header_length))
        start = header_length
    pos = start
    if name_before_extensions:
        pos += (len(backing) + 7) & ~7
    for kind, data in extensions:
        padded = data.ljust((len(data) + 7) & ~7, b"\0")
        _put(buf, pos, struct.pack(">II", kind, len(data)) + padded)
        pos += 8 + len(padded)
    _put(buf, pos, bytes(8))  # end of the header extensions
    if backing:
        natural = start if name_before_extensions else pos + 8
        _put(buf, natural, backing)
        offset = natural if backing_offset is None else backing_offset
        if offset < 4 * MiB:
            _put(buf, offset, backing)
        _put(buf, 8, struct.pack(">QI", offset, len(backing) if backing_size is None else backing_size))
    return bytes(buf)


def qcow1(*, size: int = GiB, backing: bytes = b"") -> bytes:
    """A qcow (version 1) header: magic, version, backing offset and size, mtime, size, cluster
    and L2 bits, crypt method, L1 offset (48 bytes), then the backing name."""
    return struct.pack(">4sIQIIQBBHIQ", b"QFI\xfb", 1, 48 if backing else 0, len(backing), 0, size, 12, 9, 0, 0, 4 * KiB) + backing


QED_F_BACKING_FILE = 1


def qed(*, size: int = GiB, backing: bytes = b"", features: int | None = None, backing_offset: int = 64, backing_size: int | None = None) -> bytes:
    """A qed header (qed_spec.txt), little-endian: magic, cluster size, table size, header size
    (in clusters), features, compat and autoclear features, L1 offset, image size, backing name
    offset and size (64 bytes), then the backing name (at 64, whatever the header says)."""
    if features is None:
        features = QED_F_BACKING_FILE if backing else 0
    head = struct.pack(
        "<4sIIIQQQQQII",
        b"QED\x00",
        64 * KiB,
        4,
        1,
        features,
        0,
        0,
        64 * KiB,
        size,
        backing_offset if backing else 0,
        len(backing) if backing_size is None else backing_size,
    )
    return head + backing


def vmdk_descriptor(create_type: str, extents: t.Sequence[str] = (), *, parent: str | None = None, first_line: str = "# Disk DescriptorFile") -> bytes:
    """A vmdk descriptor (Virtual Disk Format 1.1, section 'The Descriptor File')."""
    lines = [first_line, "version=1", "CID=fffffffe", "parentCID=ffffffff", f'createType="{create_type}"']
    if parent is not None:
        lines.append(f'parentFileNameHint="{parent}"')
    lines += ["", "# Extent description"]
    lines += [f'RW 2048 FLAT "{name}" 0' if "flat" in name else f'RW 2048 SPARSE "{name}"' for name in extents]
    lines += ["", "# The Disk Data Base", "#DDB", 'ddb.virtualHWVersion = "4"', 'ddb.adapterType = "ide"', ""]
    return "\n".join(lines).encode()


def vmdk4(*, capacity: int = 2048, descriptor: bytes = b"", desc_offset: int = 1, desc_size: int = 20, sector1: bytes | None = None) -> bytes:
    """A hosted sparse extent (KDMV, Virtual Disk Format 1.1 'SparseExtentHeader'): capacity and
    grain in sectors, descriptor offset and size in sectors, 512 grain table entries, no
    redundant grain directory, the grain directory at sector 21 (all zero: no grain allocated)
    and the grains from sector 22; the embedded descriptor at its offset. qemu-img opens it."""
    head = struct.pack(
        "<4sIIQQQQIQQQBccccH",
        b"KDMV",
        1,
        1,  # flags: valid new line detection test
        capacity,
        128,
        desc_offset if descriptor else 0,
        desc_size if descriptor else 0,
        512,
        0,
        21,
        22,
        0,
        b"\n",
        b" ",
        b"\r",
        b"\n",
        0,
    )
    buf = bytearray(head.ljust(22 * 512, b"\0"))
    if descriptor:
        _put(buf, desc_offset * 512, descriptor)
    if sector1 is not None:
        _put(buf, 512, sector1)
    return bytes(buf)


def cowd(*, sectors: int = 2048, at_0x200: bytes = b"CID=1\nparentCID=ffffffff\n") -> bytes:
    """A VMware 3 sparse extent (COWD): version, flags, sectors, granularity (sectors), grain
    directory offset (sectors) and entries, free sector; the grain directory at sector 8 (zero:
    nothing allocated). QEMU reads a descriptor-like text at 0x200."""
    buf = bytearray(struct.pack("<4sIIIIIII", b"COWD", 1, 3, sectors, 16, 8, 1, 128).ljust(8 * KiB, b"\0"))
    _put(buf, 0x200, at_0x200)
    return bytes(buf)


def vhdx() -> bytes:
    """A VHDX file type identifier: the signature and the creator in UTF-16."""
    return (b"vhdxfile" + "devinfra test".encode("utf-16-le")).ljust(64 * KiB, b"\0")


def _vhd_checksum(data: bytes | bytearray) -> int:
    return ~sum(data) & U32_MAX  # one's complement of the byte sum, the checksum field taken as 0


def vpc(*, size: int = GiB, creator: bytes = b"qem2", geometry: tuple[int, int, int] = (2, 16, 63)) -> bytes:
    """A dynamic VHD, big-endian. The footer (and its copy at offset 0): cookie, features,
    version, data offset, timestamp, creator application, version and host, original and
    current size, geometry (cylinders, heads, sectors per track), disk type, checksum, UUID,
    saved state. The dynamic disk header at 512: cookie, data and table offsets, version, table
    entries, block size, checksum. The block allocation table at 1536: nothing allocated."""
    footer = bytearray(
        struct.pack(">8sIIQI4sI4sQQHBBII16sB", b"conectix", 2, 0x10000, 512, 0, creator, 0x50003, b"Wi2k", size, size, *geometry, 3, 0, bytes(16), 0).ljust(
            512, b"\0"
        )
    )
    struct.pack_into(">I", footer, 64, _vhd_checksum(footer))
    blocks = max(1, min(-(-size // (2 * MiB)), 512))
    dynamic = bytearray(struct.pack(">8sQQIII", b"cxsparse", U64_MAX, 1536, 0x10000, blocks, 2 * MiB).ljust(1024, b"\0"))
    struct.pack_into(">I", dynamic, 36, _vhd_checksum(dynamic))
    table = b"\xff" * 4 * blocks
    return bytes(footer + dynamic + table.ljust(-(-len(table) // 512) * 512, b"\0") + footer)


def vdi(*, size: int = GiB) -> bytes:
    """A VDI header: the 64-byte text pre-header, the signature 0xbeda107f at 0x40, version 1.1,
    header size, image type, flags, description, block and data offsets, legacy geometry,
    the disk size at 0x170, the block size and counts."""
    pre = b"<<< Oracle VM VirtualBox Disk Image >>>\n".ljust(64, b"\0")
    head = struct.pack(
        "<IIIII256sIIIIIIIQIIII", 0xBEDA107F, 0x00010001, 0x190, 1, 0, b"", 512, 4096, 0, 0, 0, 512, 0, size, MiB, 0, min(size // MiB, U32_MAX), 0
    )
    return (pre + head).ljust(512, b"\0")


def iso(size: int = 0x8800) -> bytes:
    """An ISO 9660 image: 16 sectors of system area, then a primary volume descriptor (type 1,
    standard identifier CD001, version 1)."""
    return (bytes(0x8000) + b"\x01CD001\x01").ljust(size, b"\0")


def raw_random() -> bytes:
    return random.Random(1).randbytes(64 * KiB)


PARALLELS_MAGIC = b"WithouFreSpacExt"
PARALLELS_OLD_MAGIC = b"WithoutFreeSpace"


def parallels(*, size: int = GiB, magic: bytes = PARALLELS_MAGIC, version: int = 2, sectors: int | None = None) -> bytes:
    """A Parallels disk image header (64 bytes, little-endian): magic, version, heads, cylinders,
    sectors per cluster, BAT entries, the disk's sectors (64 bits), in use, data offset (in
    sectors), flags, extension offset; then the BAT (no cluster allocated) and zeros up to the
    data offset (1 MiB clusters, data at the first cluster boundary, as qemu-img makes it)."""
    count = size // 512 if sectors is None else sectors
    bat = max(1, -(-(size // 512) // 2048))
    data_off = 2048 * (1 + (64 + 4 * bat) // MiB)
    head = struct.pack("<16sIIIIIQIIIQ", magic, version, 16, 4, 2048, bat, count, 0, data_off, 0, 0)
    return head.ljust(64 + 4 * bat, b"\0")


def bochs(*, size: int = MiB, version: int = 0x00020000, subtype: bytes = b"Growing") -> bytes:
    """A Bochs growing redolog header (512 bytes): magic, type and subtype (C strings in 32, 16
    and 16 bytes), version, header size, catalog entries, bitmap and extent sizes, (a timestamp
    from version 2 on,) the disk size; then the catalog (every extent unallocated)."""
    extent = 512 * KiB
    catalog = -(-size // extent)
    tail = struct.pack("<IIIIQ", catalog, 1, extent, 0, size) if version == 0x00020000 else struct.pack("<IIIQ", catalog, 1, extent, size)
    head = struct.pack("<32s16s16sII", b"Bochs Virtual HD Image", b"Redolog", subtype, version, 512) + tail
    return head.ljust(512, b"\0") + b"\xff" * 4 * catalog


CLOOP_MAGIC = b"#!/bin/sh\n#V2.0 Format\nmodprobe cloop file=$0 && mount -r -t iso9660 /dev/cloop $1\n"


def cloop(*, block_size: int = 512, blocks: int = 2) -> bytes:
    """A cloop v2 image: the shell preamble in 128 bytes, block size and count (big-endian),
    the offsets of the compressed blocks (one more than blocks), then the blocks."""
    first = 136 + 8 * (blocks + 1)
    offsets = struct.pack(f">{blocks + 1}Q", *(first + 16 * i for i in range(blocks + 1)))
    return CLOOP_MAGIC.ljust(128, b"\0") + struct.pack(">II", block_size, blocks) + offsets + bytes(16 * blocks)


def luks(*, version: int = 1) -> bytes:
    """A LUKS header's start: magic, version (big-endian), then the rest of its 592 bytes."""
    return (b"LUKS\xba\xbe" + struct.pack(">H", version)).ljust(592, b"\0")


# --- inspect on headers built here -----------------------------------------------------------

DATA_FILE = 0x44415441
BACKING_FORMAT = 0xE2792ACA
FEATURE_TABLE = 0x6803F857
BITMAPS = 0x23852875
INCOMPAT_DATA_FILE = 1 << 2

SHADOW = b"/etc/shadow"
HOSTILE_NAME = b"\xff\xfe/etc/\xc0\xafpasswd"


class Case(t.NamedTuple):
    data: bytes
    format: str
    size: int | None  # not compared when unsafe
    refs: tuple[Ref, ...] = ()  # when unsafe: what the refusal must name at least
    unsafe: bool = False


def _backing(name: bytes) -> tuple[Ref, ...]:
    return (("backing file", name.decode("utf-8", "replace")),)


HEADERS: dict[str, Case] = {
    # qcow2
    "qcow2 v2": Case(qcow2(version=2), "qcow2", GiB),
    "qcow2 v3": Case(qcow2(), "qcow2", GiB),
    "qcow2 v3 header_length 112 (compression type)": Case(qcow2(header_length=112, backing=b"base.qcow2"), "qcow2", GiB, _backing(b"base.qcow2")),
    "qcow2 v2 relative backing": Case(qcow2(version=2, backing=b"base.img"), "qcow2", GiB, _backing(b"base.img")),
    "qcow2 v3 absolute backing": Case(qcow2(backing=b"/var/lib/libvirt/images/base.qcow2"), "qcow2", GiB, _backing(b"/var/lib/libvirt/images/base.qcow2")),
    "qcow2 backing name 1023 bytes": Case(qcow2(backing=b"b" * 1023), "qcow2", GiB, _backing(b"b" * 1023)),
    "qcow2 backing name 1024 bytes": Case(qcow2(backing=b"b" * 1024), "qcow2", None, unsafe=True),
    "qcow2 backing name past the first cluster": Case(qcow2(backing=SHADOW, backing_offset=64 * KiB + 8), "qcow2", None, unsafe=True),
    "qcow2 backing name at the end of a 2 MiB cluster": Case(
        qcow2(cluster_bits=21, backing=b"base.raw", backing_offset=2 * MiB - 8), "qcow2", GiB, _backing(b"base.raw")
    ),
    "qcow2 backing with cluster_bits 8": Case(qcow2(cluster_bits=8, backing=b"base.raw"), "qcow2", None, unsafe=True),
    "qcow2 backing with cluster_bits 22": Case(qcow2(cluster_bits=22, backing=b"base.raw"), "qcow2", None, unsafe=True),
    "qcow2 backing with backing format extension": Case(qcow2(backing=b"base.raw", extensions=[(BACKING_FORMAT, b"raw")]), "qcow2", GiB, _backing(b"base.raw")),
    "qcow2 data file": Case(
        qcow2(incompatible=INCOMPAT_DATA_FILE, extensions=[(DATA_FILE, b"disk.data")]), "qcow2", GiB, (("external data file", "disk.data"),)
    ),
    "qcow2 data file extension without the incompatible bit": Case(
        qcow2(extensions=[(DATA_FILE, b"/dev/sda")]), "qcow2", GiB, (("external data file", "/dev/sda"),)
    ),
    "qcow2 data file after other extensions": Case(
        qcow2(
            backing=b"base.raw",
            incompatible=INCOMPAT_DATA_FILE,
            extensions=[(BACKING_FORMAT, b"raw"), (FEATURE_TABLE, bytes(48 * 3)), (BITMAPS, bytes(20)), (DATA_FILE, SHADOW)],
        ),
        "qcow2",
        GiB,
        (*_backing(b"base.raw"), ("external data file", "/etc/shadow")),
    ),
    "qcow2 data file bit without the extension": Case(
        qcow2(incompatible=INCOMPAT_DATA_FILE, extensions=[(BACKING_FORMAT, b"raw")]), "qcow2", None, unsafe=True
    ),
    # QEMU reads the extensions up to the backing name: one after it is not there for QEMU either.
    "qcow2 data file extension after the backing name": Case(
        qcow2(backing=b"base.raw", name_before_extensions=True, incompatible=INCOMPAT_DATA_FILE, extensions=[(DATA_FILE, SHADOW)]),
        "qcow2",
        None,
        _backing(b"base.raw"),
        unsafe=True,
    ),
    "qcow2 version 4": Case(qcow2(version=4), "qcow2", None, unsafe=True),
    # qcow (version 1)
    "qcow": Case(qcow1(), "qcow", GiB),
    "qcow backing": Case(qcow1(backing=b"base.raw"), "qcow", GiB, _backing(b"base.raw")),
    # qed
    "qed": Case(qed(), "qed", GiB),
    "qed backing": Case(qed(backing=b"/var/lib/libvirt/images/base.raw"), "qed", GiB, _backing(b"/var/lib/libvirt/images/base.raw")),
    "qed backing name without the backing feature": Case(qed(backing=SHADOW, features=0), "qed", GiB),
    # vmdk
    "vmdk monolithicSparse": Case(vmdk4(descriptor=vmdk_descriptor("monolithicSparse", ["disk.vmdk"])), "vmdk", MiB),
    "vmdk streamOptimized": Case(vmdk4(capacity=4096, descriptor=vmdk_descriptor("streamOptimized", ["disk.vmdk"])), "vmdk", 2 * MiB),
    "vmdk sparse without descriptor": Case(vmdk4(), "vmdk", MiB),
    "vmdk parentFileNameHint": Case(
        vmdk4(descriptor=vmdk_descriptor("monolithicSparse", ["disk.vmdk"], parent="/etc/shadow")), "vmdk", MiB, (("vmdk parent", "/etc/shadow"),)
    ),
    "vmdk capacity 0 naming other files": Case(
        vmdk4(capacity=0, descriptor=vmdk_descriptor("monolithicFlat", ["/etc/shadow-flat", "/dev/sda-flat"])),
        "vmdk",
        None,
        (("vmdk extent", "/etc/shadow-flat"), ("vmdk extent", "/dev/sda-flat")),
        unsafe=True,
    ),
    "vmdk capacity 0 naming nothing": Case(vmdk4(capacity=0, descriptor=vmdk_descriptor("monolithicFlat")), "vmdk", None, unsafe=True),
    "vmdk sparse whose descriptor is of a set of files": Case(
        vmdk4(descriptor=vmdk_descriptor("twoGbMaxExtentSparse", ["disk-s001.vmdk"])), "vmdk", None, (("vmdk extent", "disk-s001.vmdk"),), unsafe=True
    ),
    "vmdk descriptor file": Case(vmdk_descriptor("monolithicFlat", ["/etc/shadow-flat"]), "vmdk", None, (("vmdk extent", "/etc/shadow-flat"),), unsafe=True),
    "vmdk descriptor file with a parent": Case(
        vmdk_descriptor("vmfsSparse", ["disk-delta.vmdk"], parent="base.vmdk"),
        "vmdk",
        None,
        (("vmdk parent", "base.vmdk"), ("vmdk extent", "disk-delta.vmdk")),
        unsafe=True,
    ),
    "vmdk COWD": Case(cowd(), "vmdk", MiB),
    # the others
    "vhdx": Case(vhdx(), "vhdx", None),
    "vpc": Case(vpc(), "vpc", GiB),
    # QEMU sizes a VHD from Virtual PC or from an older QEMU by its geometry (block/vpc.c, vpc_open).
    "vpc from Virtual PC, size from the geometry": Case(vpc(size=MiB, creator=b"vpc "), "vpc", 2 * 16 * 63 * 512),
    "vpc from an older QEMU, size from the geometry": Case(vpc(size=MiB, creator=b"qemu"), "vpc", 2 * 16 * 63 * 512),
    "vpc from Virtual PC with the largest geometry": Case(vpc(size=MiB, creator=b"vpc ", geometry=(65535, 16, 255)), "vpc", MiB),
    "vpc from Hyper-V": Case(vpc(size=MiB, creator=b"win "), "vpc", MiB),
    "vdi": Case(vdi(), "vdi", GiB),
    "iso": Case(iso(), "iso", 0x8800),
    "raw random bytes": Case(raw_random(), "raw", 64 * KiB),
    "raw zeros": Case(bytes(64 * KiB), "raw", 64 * KiB),
    "raw empty": Case(b"", "raw", 0),
    "raw CD001 one byte off": Case(bytes(0x8000) + b"CD001", "raw", 0x8005),
    # hostile values
    "qcow2 backing offset 2**64-1": Case(qcow2(backing=SHADOW, backing_offset=U64_MAX), "qcow2", None, unsafe=True),
    "qcow2 backing size 2**32-1": Case(qcow2(backing=SHADOW, backing_size=U32_MAX), "qcow2", None, unsafe=True),
    "qcow2 backing with cluster_bits 2**32-1": Case(qcow2(cluster_bits=U32_MAX, backing=SHADOW), "qcow2", None, unsafe=True),
    "qcow2 cluster_bits 2**32-1, no backing": Case(qcow2(cluster_bits=U32_MAX), "qcow2", GiB),
    "qcow2 size 2**64-1": Case(qcow2(size=U64_MAX), "qcow2", U64_MAX),
    "qcow2 header_length 2**32-1 and the data file bit": Case(
        _with(qcow2(incompatible=INCOMPAT_DATA_FILE, extensions=[(DATA_FILE, SHADOW)]), 100, ">I", U32_MAX), "qcow2", None, unsafe=True
    ),
    "qcow2 header_length 0 (reads the header as extensions)": Case(
        _with(qcow2(incompatible=INCOMPAT_DATA_FILE, extensions=[(DATA_FILE, SHADOW)]), 100, ">I", 0), "qcow2", None, unsafe=True
    ),
    "qcow2 data file extension length 2**32-8": Case(
        _with(qcow2(incompatible=INCOMPAT_DATA_FILE, extensions=[(DATA_FILE, SHADOW)]), 108, ">I", U32_MAX - 7), "qcow2", None, unsafe=True
    ),
    "qcow2 unknown extension length 2**32-1": Case(_with(qcow2(extensions=[(0x12345678, b"x")]), 108, ">I", U32_MAX), "qcow2", GiB),
    "qcow2 non-UTF-8 backing name": Case(qcow2(backing=HOSTILE_NAME), "qcow2", GiB, _backing(HOSTILE_NAME)),
    "qcow2 non-UTF-8 data file name": Case(
        qcow2(incompatible=INCOMPAT_DATA_FILE, extensions=[(DATA_FILE, HOSTILE_NAME)]),
        "qcow2",
        GiB,
        (("external data file", HOSTILE_NAME.decode("utf-8", "replace")),),
    ),
    "qcow backing offset 2**64-1": Case(_with(qcow1(backing=SHADOW), 8, ">Q", U64_MAX), "qcow", None, unsafe=True),
    "qcow backing size 2**32-1": Case(_with(qcow1(backing=SHADOW), 16, ">I", U32_MAX), "qcow", None, unsafe=True),
    "qed backing offset 2**32-1": Case(qed(backing=SHADOW, backing_offset=U32_MAX), "qed", None, unsafe=True),
    "qed backing size 2**32-1": Case(qed(backing=SHADOW, backing_size=U32_MAX), "qed", None, unsafe=True),
    "qed non-UTF-8 backing name": Case(qed(backing=HOSTILE_NAME), "qed", GiB, _backing(HOSTILE_NAME)),
    "vmdk capacity 2**64-1": Case(vmdk4(capacity=U64_MAX), "vmdk", U64_MAX * 512),
    "vmdk descriptor offset 2**64-1": Case(_with(vmdk4(descriptor=vmdk_descriptor("monolithicSparse")), 28, "<Q", U64_MAX), "vmdk", None, unsafe=True),
    "vmdk descriptor size 2**64-1": Case(_with(vmdk4(descriptor=vmdk_descriptor("monolithicSparse")), 36, "<Q", U64_MAX), "vmdk", None, unsafe=True),
    "vmdk non-UTF-8 parent": Case(
        vmdk4(descriptor=vmdk_descriptor("monolithicSparse").replace(b"version=1", b'version=1\nparentFileNameHint="' + HOSTILE_NAME + b'"')),
        "vmdk",
        MiB,
        (("vmdk parent", HOSTILE_NAME.decode("utf-8", "replace")),),
    ),
    "vpc size 2**64-1": Case(vpc(size=U64_MAX), "vpc", U64_MAX),
    "vdi size 2**64-1": Case(vdi(size=U64_MAX), "vdi", U64_MAX),
    # Formats QEMU probes that were taken for raw: QEMU reads 2 KiB, zeros past a shorter file.
    "parallels": Case(parallels(), "parallels", GiB),
    "parallels, the old magic": Case(parallels(magic=PARALLELS_OLD_MAGIC), "parallels", GiB),
    "parallels, the old magic's sector count is 32 bits": Case(parallels(magic=PARALLELS_OLD_MAGIC, sectors=(1 << 32) + 2048), "parallels", MiB),
    "parallels, the new magic's is 64": Case(parallels(sectors=(1 << 32) + 2048), "parallels", ((1 << 32) + 2048) * 512),
    "parallels cut after its version": Case(parallels()[:20], "parallels", 0),
    "parallels version 1": Case(parallels(version=1), "raw", len(parallels(version=1))),
    "parallels magic without its version": Case(PARALLELS_MAGIC, "raw", 16),
    "bochs": Case(bochs(), "bochs", MiB),
    "bochs version 1": Case(bochs(version=0x00010000), "bochs", MiB),
    "bochs of another subtype": Case(bochs(subtype=b"Undoable"), "raw", 512 + 8),
    "cloop": Case(cloop(), "cloop", 1024),
    "cloop preamble cut short": Case(CLOOP_MAGIC[:40], "raw", 40),
    "luks": Case(luks(), "luks", None),
    "luks version 2 (QEMU opens only version 1)": Case(luks(version=2), "raw", 592),
    "vdi shorter than its header": Case(vdi()[:0x50], "vdi", 0),
}


def _refs(img: image.Image) -> tuple[Ref, ...]:
    return tuple((ref.kind, ref.path) for ref in img.references)


@pytest.mark.parametrize("name", list(HEADERS))
def test_inspect(name: str) -> None:
    case = HEADERS[name]
    img = image.inspect(case.data, len(case.data))
    assert (img.format, img.unsafe is not None) == (case.format, case.unsafe), img
    if case.unsafe:
        assert set(case.refs) <= set(_refs(img)), img
    else:
        assert (_refs(img), img.virtual_size) == (case.refs, case.size)


# What QEMU opens a backing file as: the format the image records for it, or None (it probes).
BACKING_FORMATS: dict[str, tuple[bytes, str | None]] = {
    "qcow2 without the backing format extension": (qcow2(backing=b"base.raw"), None),
    "qcow2 recording raw": (qcow2(backing=b"base.raw", extensions=[(BACKING_FORMAT, b"raw")]), "raw"),
    "qcow2 recording qcow2 after another extension": (
        qcow2(backing=b"base.qcow2", extensions=[(FEATURE_TABLE, bytes(48)), (BACKING_FORMAT, b"qcow2")]),
        "qcow2",
    ),
    "qcow2 v2 recording parallels": (qcow2(version=2, backing=b"b.hds", extensions=[(BACKING_FORMAT, b"parallels")]), "parallels"),
    "qcow2 recording a format but no backing file": (qcow2(extensions=[(BACKING_FORMAT, b"raw")]), None),
    "qed probing": (qed(backing=b"base.raw"), None),
    "qed with the no-probe feature (raw)": (qed(backing=b"base.raw", features=QED_F_BACKING_FILE | 4), "raw"),
    "qcow (none is recorded)": (qcow1(backing=b"base.raw"), None),
}


@pytest.mark.parametrize("name", list(BACKING_FORMATS))
def test_backing_format(name: str) -> None:
    data, expected = BACKING_FORMATS[name]
    assert image.inspect(data).backing_format == expected


def test_inspect_without_total_size() -> None:
    assert image.inspect(bytes(4096)) == image.Image("raw")
    assert image.inspect(iso()) == image.Image("iso")
    assert image.inspect(qcow2()).virtual_size == GiB


# QEMU reads a sparse vmdk's parent wherever ``parentFileNameHint="`` occurs in the 10240 bytes
# at 0x200 (block/vmdk.c: vmdk_parent_open, strstr on the text at s->desc_offset = 0x200), for
# both KDMV and COWD, whatever the header's descriptor offset and size and whatever the line
# holds before it. Each of these makes qemu-img report the parent (see test_qemu_img_reads_crafted).
_HINT = b'parentFileNameHint="/etc/shadow"\n'
_SPARSE = vmdk_descriptor("monolithicSparse", ["disk.vmdk"])
QEMU_PARENTS: dict[str, bytes] = {
    "COWD with a parent at 0x200": cowd(at_0x200=b"CID=1\nparentCID=2\n" + _HINT),
    "KDMV without descriptor offset, parent at 0x200": vmdk4(sector1=b"CID=1\nparentCID=2\n" + _HINT),
    "KDMV parent in a comment line": vmdk4(descriptor=_SPARSE.replace(b"# Extent description", b"# " + _HINT.rstrip())),
    "KDMV parent after a word on its line": vmdk4(descriptor=_SPARSE.replace(b"version=1", b"version=1\nddb.x " + _HINT.rstrip())),
    "KDMV parent past the descriptor size": vmdk4(descriptor=_SPARSE + b"#" * 600 + b"\n" + _HINT, desc_size=1),
    "KDMV descriptor moved to sector 2, parent at 0x200": vmdk4(descriptor=_SPARSE, desc_offset=2, desc_size=19, sector1=b"CID=1\nparentCID=2\n" + _HINT),
}


@pytest.mark.parametrize("name", list(QEMU_PARENTS))
def test_vmdk_parent_where_qemu_reads_it(name: str) -> None:
    data = QEMU_PARENTS[name]
    img = image.inspect(data, len(data))
    assert img.unsafe is not None or ("vmdk parent", "/etc/shadow") in _refs(img), img
    with pytest.raises(LibvirtValidationError, match="/etc/shadow"):
        image.refuse_references(img, OPTION, WHERE, [], allow_in_pool=True)


# QEMU probes as vmdk any text whose first line that is not a comment or blank is version=1, 2
# or 3 (block/vmdk.c: vmdk_probe), and opens it as a descriptor file.
QEMU_DESCRIPTORS: dict[str, bytes] = {
    "version first": vmdk_descriptor("monolithicFlat", ["/etc/shadow-flat"])[len(b"# Disk DescriptorFile\n") :],
    "another comment first": vmdk_descriptor("monolithicFlat", ["/etc/shadow-flat"], first_line="# written by hand"),
    "blank lines first": b"   \n \r\n" + vmdk_descriptor("monolithicFlat", ["/etc/shadow-flat"])[len(b"# Disk DescriptorFile\n") :],
    "CRLF line ends": vmdk_descriptor("monolithicFlat", ["/etc/shadow-flat"], first_line="#").replace(b"\n", b"\r\n"),
}


@pytest.mark.parametrize("name", list(QEMU_DESCRIPTORS))
def test_vmdk_descriptor_file_as_qemu_probes_it(name: str) -> None:
    data = QEMU_DESCRIPTORS[name]
    img = image.inspect(data, len(data))
    assert (img.format, img.unsafe is not None) == ("vmdk", True), img


# --- Cut short, and hostile values ------------------------------------------------------------

TRUNCATED = {name: case.data for name, case in HEADERS.items() if case.data and len(case.data) <= 64 * KiB + 1024}
TRUNCATED.update({f"qemu parent: {name}": data for name, data in QEMU_PARENTS.items()})


@settings(_SETTINGS, max_examples=examples(200))
@given(name=st.sampled_from(sorted(TRUNCATED)), cut=st.integers(min_value=0, max_value=70 * KiB))
def test_truncated_header(name: str, cut: int) -> None:
    """A header cut short gives raw, an unsafe image or the whole header's format, never an
    exception; a qcow, qcow2 or qed header locates its names by offset and length, so one cut
    before the end of a name is unsafe, never an image that names less."""
    length = cut % len(TRUNCATED[name])
    whole = image.inspect(TRUNCATED[name])
    img = image.inspect(TRUNCATED[name][:length], length)
    assert isinstance(img, image.Image)
    if img.unsafe is None:
        assert img.format in ("raw", whole.format)
        if img.format in ("qcow", "qcow2", "qed"):
            assert img.references == whole.references
    else:
        with pytest.raises(LibvirtValidationError, match=OPTION):
            image.refuse_references(img, OPTION, WHERE, [], allow_in_pool=False)


_EXTREMES = (0, 1, 0x7F, 0x80, 0xFF, 0x7FFF_FFFF, 0x8000_0000, U32_MAX, 1 << 63, U64_MAX)
_FIELD = st.tuples(
    st.integers(min_value=0, max_value=600),
    st.sampled_from(["<I", ">I", "<Q", ">Q"]),
    st.sampled_from(_EXTREMES),
)


@settings(_SETTINGS, max_examples=examples(150))
@given(
    name=st.sampled_from(sorted(TRUNCATED)),
    fields=st.lists(_FIELD, max_size=4),
    noise=st.lists(st.tuples(st.integers(min_value=0, max_value=2048), st.binary(min_size=1, max_size=8)), max_size=3),
)
def test_hostile_fields(name: str, fields: list[tuple[int, str, int]], noise: list[tuple[int, bytes]]) -> None:
    """Extreme values in any field and random bytes anywhere: inspect gives an Image, and the
    functions that use it raise nothing but LibvirtValidationError."""
    buf = bytearray(TRUNCATED[name])
    for offset, fmt, value in fields:
        _put(buf, offset, struct.pack(fmt, value & ((1 << (8 * struct.calcsize(fmt))) - 1)))
    for offset, chunk in noise:
        _put(buf, offset, chunk)
    img = image.inspect(bytes(buf), len(buf))
    assert isinstance(img.format, str)
    assert img.virtual_size is None or img.virtual_size >= 0
    assert all(isinstance(ref.path, str) for ref in img.references)
    try:
        image.refuse_references(img, OPTION, WHERE, [], allow_in_pool=False)
    except LibvirtValidationError as exc:
        assert str(exc).startswith(f"{OPTION}: {WHERE} ")
    else:
        assert img.unsafe is None
        assert not img.references
    for call in (lambda: image.volume_format_for(img, OPTION, WHERE), lambda: image.check_format(img, "raw", OPTION, WHERE)):
        try:
            call()
        except LibvirtValidationError as exc:
            assert OPTION in str(exc)


# --- refuse_references ------------------------------------------------------------------------


@pytest.fixture
def pool(tmp_path: Path) -> Path:
    """A pool directory holding base.raw, a subdirectory with a file, a directory, and a link
    out of the pool; a file outside; a link to the pool directory itself."""
    pool = tmp_path / "pool"
    (pool / "sub").mkdir(parents=True)
    (pool / "dir").mkdir()
    (pool / "base.raw").write_bytes(bytes(512))
    (pool / "sub" / "base.raw").write_bytes(bytes(512))
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "secret.raw").write_bytes(bytes(512))
    (pool / "link.raw").symlink_to(tmp_path / "out" / "secret.raw")
    (tmp_path / "poollink").symlink_to(pool)
    return pool


def _fill(template: str, pool: Path) -> str:
    return template.replace("{pool}", str(pool)).replace("{tmp}", str(pool.parent))


# kind, name ({pool}: the pool directory, {tmp}: its parent), allow_in_pool, base_dir, pool paths, accepted
REFERENCES = {
    "in pool, allowed": ("backing file", "{pool}/base.raw", True, None, ["{pool}"], True),
    "in pool, not allowed": ("backing file", "{pool}/base.raw", False, None, ["{pool}"], False),
    "in the second pool": ("backing file", "{pool}/base.raw", True, None, ["{tmp}/out", "{pool}"], True),
    "pool path with a trailing slash": ("backing file", "{pool}/base.raw", True, None, ["{pool}/"], True),
    "pool path through a link": ("backing file", "{pool}/base.raw", True, None, ["{tmp}/poollink"], True),
    "name through a link to the pool": ("backing file", "{tmp}/poollink/base.raw", True, None, ["{pool}"], True),
    "relative, resolved in base_dir": ("backing file", "base.raw", True, "{pool}", ["{pool}"], True),
    "relative, up and back into the pool": ("backing file", "../pool/base.raw", True, "{pool}", ["{pool}"], True),
    "relative without base_dir": ("backing file", "base.raw", True, None, ["{pool}"], False),
    "relative, out of the pool": ("backing file", "../out/secret.raw", True, "{pool}", ["{pool}"], False),
    "dot-dot out of the pool": ("backing file", "{pool}/../out/secret.raw", True, None, ["{pool}"], False),
    "in a subdirectory": ("backing file", "{pool}/sub/base.raw", True, None, ["{pool}"], False),
    "a link out of the pool": ("backing file", "{pool}/link.raw", True, None, ["{pool}"], False),
    "a directory of the pool": ("backing file", "{pool}/dir", True, None, ["{pool}"], False),
    "missing file": ("backing file", "{pool}/missing.raw", True, None, ["{pool}"], False),
    "the pool itself": ("backing file", "{pool}", True, None, ["{pool}"], False),
    "no pools": ("backing file", "{pool}/base.raw", True, None, [], False),
    "outside": ("backing file", "{tmp}/out/secret.raw", True, None, ["{pool}"], False),
    "nbd protocol": ("backing file", "nbd:host:1", True, "{pool}", ["{pool}"], False),
    "nbd URL": ("backing file", "nbd://host:10809/export", True, "{pool}", ["{pool}"], False),
    "json pseudo-protocol naming a pool file": (
        "backing file",
        'json:{"driver": "raw", "file": {"filename": "{pool}/base.raw"}}',
        True,
        "{pool}",
        ["{pool}"],
        False,
    ),
    "file protocol naming a pool file": ("backing file", "file:{pool}/base.raw", True, None, ["{pool}"], False),
    "relative protocol-looking name": ("backing file", "base.raw:x", True, "{pool}", ["{pool}"], False),
    "data file in pool": ("external data file", "{pool}/base.raw", True, None, ["{pool}"], False),
    "vmdk parent in pool": ("vmdk parent", "{pool}/base.raw", True, None, ["{pool}"], False),
    "vmdk extent in pool": ("vmdk extent", "{pool}/base.raw", True, None, ["{pool}"], False),
}


@pytest.mark.parametrize(("kind", "name", "allow", "base_dir", "pools", "accepted"), list(REFERENCES.values()), ids=list(REFERENCES))
def test_refuse_references(pool: Path, kind: str, name: str, allow: bool, base_dir: str | None, pools: list[str], accepted: bool) -> None:
    path = _fill(name, pool)
    img = image.Image("qcow2" if kind != "vmdk parent" else "vmdk", GiB, (image.Reference(kind, path),))

    def refuse() -> None:
        base = None if base_dir is None else _fill(base_dir, pool)
        image.refuse_references(img, OPTION, WHERE, [_fill(p, pool) for p in pools], allow_in_pool=allow, base_dir=base)

    if accepted:
        refuse()
        return
    with pytest.raises(LibvirtValidationError) as info:
        refuse()
    message = str(info.value)
    assert message.startswith(f"{OPTION}: {WHERE} is a {img.format} image whose {kind} is {path!r}")
    assert f"qemu-img convert -O {img.format}" in message
    assert ("create.allow_backing_in_pool" in message) == (kind == "backing file" and not allow)


def test_refuse_references_nothing_named(pool: Path) -> None:
    image.refuse_references(image.Image("qcow2", GiB), OPTION, WHERE, [str(pool)], allow_in_pool=False)
    image.refuse_references(image.Image("raw"), OPTION, WHERE, [], allow_in_pool=True)


@pytest.mark.parametrize("allow", [False, True])
def test_refuse_unsafe_even_in_pool(pool: Path, allow: bool) -> None:
    img = image.inspect(qcow2(backing=str(pool / "base.raw").encode(), backing_size=1024))
    assert img.unsafe is not None
    with pytest.raises(LibvirtValidationError, match=f"^{OPTION}: {WHERE} is refused: its backing file name lies outside its first cluster$"):
        image.refuse_references(img, OPTION, WHERE, [str(pool)], allow_in_pool=allow, base_dir=str(pool))
    named = image.inspect(vmdk4(capacity=0, descriptor=vmdk_descriptor("monolithicFlat", [str(pool / "base.raw")])))
    with pytest.raises(
        LibvirtValidationError, match=f"^{OPTION}: {WHERE} is refused: .*capacity 0.* \\(it names {re.escape(repr(str(pool / 'base.raw')))}\\)$"
    ):
        image.refuse_references(named, OPTION, WHERE, [str(pool)], allow_in_pool=allow, base_dir=str(pool))


# QEMU reads a qcow, qcow2 or qed backing name as a C string: it ends at the first NUL.
NUL_NAMES = {
    "qcow2": qcow2(backing=b"base.raw\x00/../../../etc/shadow"),
    "qcow": qcow1(backing=b"base.raw\x00/../../../etc/shadow"),
    "qed": qed(backing=b"base.raw\x00/../../../etc/shadow"),
}


@pytest.mark.parametrize("name", list(NUL_NAMES))
def test_refuse_backing_name_with_nul(pool: Path, name: str) -> None:
    """A NUL in a backing name is refused (or the name taken up to it, as QEMU does, and
    accepted as base.raw of the pool), never an exception of another kind."""
    img = image.inspect(NUL_NAMES[name])
    try:
        image.refuse_references(img, OPTION, WHERE, [str(pool)], allow_in_pool=True, base_dir=str(pool))
    except LibvirtValidationError as exc:
        assert str(exc).startswith(f"{OPTION}: {WHERE} ")


@pytest.fixture(scope="module")
def hostile_pool(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pool = tmp_path_factory.mktemp("pool")
    (pool / "base.raw").write_bytes(bytes(512))
    return pool


@settings(_SETTINGS, max_examples=examples(60))
@given(name=hostile_text())
@example(name="base.raw\x00/../../../etc/shadow")
@example(name="/etc/shadow\x00")
def test_refuse_hostile_backing_names(hostile_pool: Path, name: str) -> None:
    """Whatever a backing name holds, refuse_references accepts it only when QEMU (which stops a
    name at its first NUL) would open the pool's file, and otherwise raises LibvirtValidationError."""
    img = image.Image("qcow2", GiB, (image.Reference("backing file", name),))
    try:
        image.refuse_references(img, OPTION, WHERE, [str(hostile_pool)], allow_in_pool=True, base_dir=str(hostile_pool))
    except LibvirtValidationError as exc:
        assert str(exc).startswith(f"{OPTION}: {WHERE} ")
    else:
        opened = os.path.realpath(os.path.join(hostile_pool, name.split("\x00", 1)[0]))
        assert opened == os.path.realpath(hostile_pool / "base.raw")


# --- Backing chains ---------------------------------------------------------------------------
#
# A tree in tmp: pools p1 and p2, a directory out/ that is no pool (holding a root-only secret),
# up/ where uploads come from. Each file: ("qcow2", backing name, recorded backing format or
# None), ("qed", backing name), ("raw",), ("parallels",), ("link", target), ("fifo",), or
# ("secret",) (a raw file only root may read). {root} is the tree. The top image is inspected
# as an upload into p1 (relative names resolve there), with create.allow_backing_in_pool.

CHAIN_OPTION = "create.content.url"
Spec = tuple[t.Any, ...]  # a kind, then names (or None: no backing format recorded)


def _chain(depth: int, *, last: Spec = ("raw",)) -> dict[str, Spec]:
    """up/top.qcow2 -> p1/l1.qcow2 -> ... -> p1/l<depth> (``last``): ``depth`` backing files."""
    files: dict[str, Spec] = {"up/top.qcow2": ("qcow2", "{root}/p1/l1.qcow2" if depth > 1 else "{root}/p1/l1", "qcow2" if depth > 1 else None)}
    for n in range(1, depth):
        files[f"p1/l{n}.qcow2"] = ("qcow2", f"l{n + 1}.qcow2" if n + 1 < depth else f"l{n + 1}", "qcow2" if n + 1 < depth else None)
    files[f"p1/l{depth}" if depth > 1 else "p1/l1"] = last
    return files


# files, the error's patterns (None: accepted)
CHAINS: dict[str, tuple[dict[str, Spec], Spec | None]] = {
    "one link, raw": (_chain(1), None),
    "three links in two pools, raw at the end": (
        {
            "up/top.qcow2": ("qcow2", "{root}/p1/a.qcow2", "qcow2"),
            "p1/a.qcow2": ("qcow2", "{root}/p2/b.qcow2", "qcow2"),
            "p2/b.qcow2": ("qcow2", "c.raw", "raw"),  # relative: in p2, b's own directory
            "p2/c.raw": ("raw",),
        },
        None,
    ),
    "three links, the last a root-only file outside every pool": (
        {
            "up/top.qcow2": ("qcow2", "{root}/p1/a.qcow2", "qcow2"),
            "p1/a.qcow2": ("qcow2", "{root}/p2/b.qcow2", "qcow2"),
            "p2/b.qcow2": ("qcow2", "{root}/out/secret.raw", "raw"),
            "out/secret.raw": ("secret",),
        },
        (
            r"^create\.content\.url: '/srv/upload/disk\.img' is refused: link 2 of its backing chain, '.*/p2/b\.qcow2', is a qcow2 image "
            r"whose backing file is '.*/out/secret\.raw': QEMU would open that file of the host for the guest; refused \(flatten it first: "
            r"qemu-img convert -O qcow2 IMAGE FLAT\); every link of the chain must be a volume of a pool$",
        ),
    ),
    "a relative name is resolved in the link's directory, not the upload's pool": (
        {
            "up/top.qcow2": ("qcow2", "{root}/p2/b.qcow2", "qcow2"),
            "p2/b.qcow2": ("qcow2", "c.raw", "raw"),
            "p1/c.raw": ("raw",),
        },
        (r"link 1 of its backing chain, '.*/p2/b\.qcow2', is a qcow2 image whose backing file is 'c\.raw'",),
    ),
    "a relative name up out of the pool": (
        {"up/top.qcow2": ("qcow2", "{root}/p1/a.qcow2", "qcow2"), "p1/a.qcow2": ("qcow2", "../out/secret.raw", "raw"), "out/secret.raw": ("secret",)},
        (r"link 1 of its backing chain, '.*/p1/a\.qcow2', is a qcow2 image whose backing file is '\.\./out/secret\.raw'",),
    ),
    "a link in the pool to a file outside": (
        {
            "up/top.qcow2": ("qcow2", "{root}/p1/a.qcow2", "qcow2"),
            "p1/a.qcow2": ("qcow2", "{root}/p1/link.raw", "raw"),
            "p1/link.raw": ("link", "{root}/out/secret.raw"),
            "out/secret.raw": ("secret",),
        },
        (r"link 1 .* whose backing file is '.*/p1/link\.raw'",),
    ),
    "a FIFO in the pool": (
        {"up/top.qcow2": ("qcow2", "{root}/p1/a.qcow2", "qcow2"), "p1/a.qcow2": ("qcow2", "{root}/p1/fifo", "raw"), "p1/fifo": ("fifo",)},
        (r"link 1 .* whose backing file is '.*/p1/fifo'",),
    ),
    "a qed link naming a file outside": (
        {"up/top.qcow2": ("qcow2", "{root}/p1/a.qed", "qed"), "p1/a.qed": ("qed", "{root}/out/secret.raw"), "out/secret.raw": ("secret",)},
        (r"link 1 of its backing chain, '.*/p1/a\.qed', is a qed image whose backing file is '.*/out/secret\.raw'",),
    ),
    "a loop of two links": (
        {"up/top.qcow2": ("qcow2", "{root}/p1/a.qcow2", "qcow2"), "p1/a.qcow2": ("qcow2", "b.qcow2", "qcow2"), "p1/b.qcow2": ("qcow2", "a.qcow2", "qcow2")},
        (r"^create\.content\.url: '/srv/upload/disk\.img' is refused: link 3 of its backing chain \('.*/p1/a\.qcow2'\) is link 1 again: the chain loops$",),
    ),
    "a link that is its own backing file": (
        {"up/top.qcow2": ("qcow2", "{root}/p1/a.qcow2", "qcow2"), "p1/a.qcow2": ("qcow2", "a.qcow2", "qcow2")},
        (r"link 2 of its backing chain \('.*/p1/a\.qcow2'\) is link 1 again: the chain loops$",),
    ),
    "a loop through a second name of the same file": (
        {
            "up/top.qcow2": ("qcow2", "{root}/p1/a.qcow2", "qcow2"),
            "p1/a.qcow2": ("qcow2", "{root}/p2/a.qcow2", "qcow2"),
            "p2/a.qcow2": ("link", "{root}/p1/a.qcow2"),
        },
        (r"link 2 .* is link 1 again: the chain loops$",),
    ),
    f"{image.MAX_BACKING_CHAIN} links, the most followed": (_chain(image.MAX_BACKING_CHAIN), None),
    "one link more than the most followed": (
        _chain(image.MAX_BACKING_CHAIN + 1),
        (rf"^create\.content\.url: '/srv/upload/disk\.img' is refused: its backing chain is longer than {image.MAX_BACKING_CHAIN} links",),
    ),
    "a parallels link QEMU probes": (
        {"up/top.qcow2": ("qcow2", "{root}/p1/a.qcow2", "qcow2"), "p1/a.qcow2": ("qcow2", "b.img", None), "p1/b.img": ("parallels",)},
        (r"link 2 of its backing chain \('.*/p1/b\.img'\): QEMU would open it as parallels, a format no volume holds \(its content is parallels\)$",),
    ),
    "a parallels link recorded as raw": (
        {"up/top.qcow2": ("qcow2", "{root}/p1/b.img", "raw"), "p1/b.img": ("parallels",)},
        (r"link 1 of its backing chain \('.*/p1/b\.img'\) is a parallels image, but the link above records it as raw: QEMU would open it as raw$",),
    ),
    "a qcow2 link recorded as raw": (
        {"up/top.qcow2": ("qcow2", "{root}/p1/a.qcow2", "raw"), "p1/a.qcow2": ("qcow2", "{root}/out/secret.raw", "raw"), "out/secret.raw": ("secret",)},
        (r"link 1 .* is a qcow2 image, but the link above records it as raw",),
    ),
    "a raw link recorded as qcow2": (
        {"up/top.qcow2": ("qcow2", "{root}/p1/a.raw", "qcow2"), "p1/a.raw": ("raw",)},
        (r"link 1 .* is a raw image, but the link above records it as qcow2",),
    ),
    "a raw link named .dmg, probed": (
        {"up/top.qcow2": ("qcow2", "{root}/p1/a.dmg", None), "p1/a.dmg": ("raw",)},
        (r"link 1 .*: QEMU would open it as dmg, a format no volume holds \(its content is raw\)$",),
    ),
    "a raw link named .dmg, recorded as raw": ({"up/top.qcow2": ("qcow2", "{root}/p1/a.dmg", "raw"), "p1/a.dmg": ("raw",)}, None),
    "a qcow2 link probed": ({"up/top.qcow2": ("qcow2", "{root}/p1/a.qcow2", None), "p1/a.qcow2": ("qcow2", "b.raw", "raw"), "p1/b.raw": ("raw",)}, None),
    "a link with an external data file in the pool": (
        {"up/top.qcow2": ("qcow2", "{root}/p1/a.qcow2", "qcow2"), "p1/a.qcow2": ("qcow2-data", "{root}/p1/b.raw"), "p1/b.raw": ("raw",)},
        (r"link 1 of its backing chain, '.*/p1/a\.qcow2', is a qcow2 image whose external data file is '.*/p1/b\.raw'",),
    ),
    "a link whose header cannot be trusted": (
        {"up/top.qcow2": ("qcow2", "{root}/p1/a.qcow2", "qcow2"), "p1/a.qcow2": ("qcow2-v4",)},
        (r"is refused: link 1 of its backing chain, '.*/p1/a\.qcow2': qcow2 version 4 is unknown$",),
    ),
}


def _chain_file(root: Path, name: str, spec: Spec) -> None:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    kind, *args = spec
    named = [arg.replace("{root}", str(root)) if arg else arg for arg in args]
    if kind == "link":
        path.symlink_to(named[0])
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "qcow2":
        path.write_bytes(qcow2(size=MiB, backing=named[0].encode(), extensions=[(BACKING_FORMAT, named[1].encode())] if named[1] else []))
    elif kind == "qcow2-data":
        path.write_bytes(qcow2(size=MiB, incompatible=INCOMPAT_DATA_FILE, extensions=[(DATA_FILE, named[0].encode())]))
    elif kind == "qcow2-v4":
        path.write_bytes(qcow2(version=4))
    elif kind == "qed":
        path.write_bytes(qed(size=MiB, backing=named[0].encode()))
    elif kind == "parallels":
        path.write_bytes(parallels(size=MiB))
    else:  # raw, secret
        path.write_bytes(bytes(4096))
        if kind == "secret":
            path.chmod(0o600)


def _check_chain(root: Path, top: str, *, allow: bool = True) -> None:
    path = root / top
    img = image.inspect(path.read_bytes(), path.stat().st_size)
    pools = [str(root / "p1"), str(root / "p2")]
    image.refuse_references(img, CHAIN_OPTION, WHERE, pools, allow_in_pool=allow, base_dir=pools[0], top=str(path))


@pytest.mark.parametrize("name", list(CHAINS))
def test_backing_chain(tmp_path: Path, name: str) -> None:
    files, errors = CHAINS[name]
    (tmp_path / "p2").mkdir()
    for file_name, spec in files.items():
        _chain_file(tmp_path, file_name, spec)
    if errors is None:
        _check_chain(tmp_path, "up/top.qcow2")
        return
    with pytest.raises(LibvirtValidationError) as info:
        _check_chain(tmp_path, "up/top.qcow2")
    for pattern in errors:
        assert re.search(pattern, str(info.value)), str(info.value)
    # Without create.allow_backing_in_pool the image's own backing file is refused, as before.
    with pytest.raises(
        LibvirtValidationError, match=r"^create\.content\.url: '/srv/upload/disk\.img' is a qcow2 image whose backing file is .*allow_backing_in_pool: true$"
    ):
        _check_chain(tmp_path, "up/top.qcow2", allow=False)


def test_a_loop_back_to_the_image_itself(tmp_path: Path) -> None:
    """A volume of a pool (a clone's source, an existing volume) whose chain comes back to it."""
    _chain_file(tmp_path, "p1/a.qcow2", ("qcow2", "b.qcow2", "qcow2"))
    _chain_file(tmp_path, "p1/b.qcow2", ("qcow2", "a.qcow2", "qcow2"))
    (tmp_path / "p2").mkdir()
    with pytest.raises(LibvirtValidationError, match=r"link 2 of its backing chain \('.*/p1/a\.qcow2'\) is link 0 again: the chain loops$"):
        _check_chain(tmp_path, "p1/a.qcow2")


def test_a_link_is_read_no_further_than_its_header(tmp_path: Path) -> None:
    """Each link is read once, HEADER_BYTES at most, from a descriptor opened without following
    a last symbolic link; nothing the chain names outside the pools is opened."""
    files = CHAINS["three links, the last a root-only file outside every pool"][0]
    (tmp_path / "p2").mkdir()
    for file_name, spec in files.items():
        _chain_file(tmp_path, file_name, spec)
    (tmp_path / "p2" / "b.qcow2").write_bytes(qcow2(size=MiB, backing=str(tmp_path / "out" / "secret.raw").encode()).ljust(8 * MiB, b"\0"))
    read: list[str] = []

    def reader(real: str) -> tuple[bytes, int, tuple[int, int]]:
        read.append(real)
        head, size, identity = image.read_pool_file(real)
        assert len(head) <= image.HEADER_BYTES
        return head, size, identity

    path = tmp_path / "up" / "top.qcow2"
    with pytest.raises(LibvirtValidationError, match="link 2"):
        image.refuse_references(
            image.inspect(path.read_bytes()), CHAIN_OPTION, WHERE, [str(tmp_path / "p1"), str(tmp_path / "p2")], allow_in_pool=True, read=reader
        )
    assert read == [str(tmp_path / "p1" / "a.qcow2"), str(tmp_path / "p2" / "b.qcow2")]
    with pytest.raises(OSError):
        image.read_pool_file(str(tmp_path / "missing"))
    (tmp_path / "p1" / "link.qcow2").symlink_to(tmp_path / "p1" / "a.qcow2")
    with pytest.raises(OSError):
        image.read_pool_file(str(tmp_path / "p1" / "link.qcow2"))  # never a link, even in a pool


def test_qemu_follows_the_chain_refused(qemu_img: str, tmp_path: Path) -> None:
    """The refused three-link chain made with qemu-img: qemu-img itself reads the root-only file
    at its end (what a guest would get), and the inspection stops at link 2 naming it."""
    for name in ("p1", "p2", "out", "up"):
        (tmp_path / name).mkdir()
    secret = tmp_path / "out" / "secret.raw"
    secret.write_bytes(bytes(MiB))
    secret.chmod(0o600)
    _run(tmp_path, qemu_img, "create", "-q", "-f", "qcow2", "-b", str(secret), "-F", "raw", "p2/b.qcow2", "1M")
    _run(tmp_path, qemu_img, "create", "-q", "-f", "qcow2", "-b", str(tmp_path / "p2" / "b.qcow2"), "-F", "qcow2", "p1/a.qcow2", "1M")
    _run(tmp_path, qemu_img, "create", "-q", "-f", "qcow2", "-b", str(tmp_path / "p1" / "a.qcow2"), "-F", "qcow2", "up/top.qcow2", "1M")
    chain = json.loads(_run(tmp_path, qemu_img, "info", "--output=json", "--backing-chain", "-U", "up/top.qcow2"))
    assert [link["filename"] for link in chain][-1] == str(secret)
    with pytest.raises(
        LibvirtValidationError, match=f"link 2 of its backing chain, '.*/p2/b.qcow2', is a qcow2 image whose backing file is {re.escape(repr(str(secret)))}"
    ):
        _check_chain(tmp_path, "up/top.qcow2")


# --- volume_format_for and check_format -------------------------------------------------------

VOLUME_FORMATS = {
    "raw": "raw",
    "iso": "raw",
    "qcow": "qcow",
    "qcow2": "qcow2",
    "qed": "qed",
    "vmdk": "vmdk",
    "vpc": "vpc",
    "vdi": "vdi",
}


@pytest.mark.parametrize(("detected", "volume"), list(VOLUME_FORMATS.items()), ids=list(VOLUME_FORMATS))
def test_volume_format_for(detected: str, volume: str) -> None:
    assert image.volume_format_for(image.Image(detected), OPTION, WHERE) == volume


# Formats QEMU probes that no volume holds as such: refused, naming what QEMU would see.
PROBED_ONLY = {"parallels": parallels(), "bochs": bochs(), "cloop": cloop(), "luks": luks()}


@pytest.mark.parametrize("name", list(PROBED_ONLY))
def test_volume_format_for_what_qemu_probes(name: str) -> None:
    img = image.inspect(PROBED_ONLY[name])
    pattern = f"^{OPTION}: {WHERE} is a {name} image, which a libvirt volume cannot hold: QEMU probes it as {name}, not as the format the volume would record"
    with pytest.raises(LibvirtValidationError, match=pattern):
        image.volume_format_for(img, OPTION, WHERE)
    for declared in ("raw", "ploop", "qcow2"):
        with pytest.raises(LibvirtValidationError, match=pattern):
            image.check_format(img, declared, OPTION, WHERE)


def test_a_luks_image_is_the_content_of_an_encrypted_raw_volume() -> None:
    img = image.inspect(luks())
    assert image.volume_format_for(img, OPTION, WHERE, encrypted=True) == "raw"
    image.check_format(img, "raw", OPTION, WHERE, encrypted=True)
    with pytest.raises(LibvirtValidationError, match="declare target.encryption with format luks"):
        image.volume_format_for(img, OPTION, WHERE)
    with pytest.raises(LibvirtValidationError, match="'qcow2' contradicts the content"):
        image.check_format(img, "qcow2", OPTION, WHERE, encrypted=True)


def test_volume_format_for_vhdx() -> None:
    img = image.inspect(vhdx())
    with pytest.raises(LibvirtValidationError, match=f"^{OPTION}: {WHERE} is a vhdx image, .*qemu-img convert -O qcow2 IMAGE NEW"):
        image.volume_format_for(img, OPTION, WHERE)


# content, given, error pattern (None: accepted)
CHECK_FORMAT: dict[str, tuple[bytes, str, str | None]] = {
    "qcow2 given raw": (qcow2(), "raw", f"^{OPTION}: 'raw' contradicts the content: {WHERE} is a qcow2 image \\(give 'qcow2'"),
    "qcow2 given qcow2": (qcow2(), "qcow2", None),
    "qcow2 given qcow": (qcow2(), "qcow", "'qcow' contradicts the content: .* is a qcow2 image"),
    "qcow given qcow2": (qcow1(), "qcow2", "'qcow2' contradicts the content: .* is a qcow image"),
    "iso given raw": (iso(), "raw", None),
    "iso given iso": (iso(), "iso", None),
    "iso given qcow2": (iso(), "qcow2", "'qcow2' contradicts the content: .* is a iso image \\(give 'raw' or 'iso'"),
    "raw given raw": (raw_random(), "raw", None),
    "raw given qcow2": (raw_random(), "qcow2", f"^{OPTION}: 'qcow2' contradicts the content: {WHERE} is a raw image"),
    "raw given dmg": (raw_random(), "dmg", "'dmg' contradicts the content: .* is a raw image \\(give 'raw'"),
    "raw given iso": (raw_random(), "iso", "'iso' contradicts the content"),
    "vpc given vhd": (vpc(), "vhd", None),
    "vpc given vpc": (vpc(), "vpc", None),
    "vdi given vdi": (vdi(), "vdi", None),
    "vmdk given vmdk": (vmdk4(), "vmdk", None),
    "qed given qcow2": (qed(), "qcow2", "'qcow2' contradicts the content: .* is a qed image"),
    "vhdx given raw": (vhdx(), "raw", f"^{OPTION}: {WHERE} is a vhdx image, which a libvirt volume cannot hold: convert it first \\(qemu-img convert -O qcow2"),
}


@pytest.mark.parametrize("name", list(CHECK_FORMAT))
def test_check_format(name: str) -> None:
    data, given_format, error = CHECK_FORMAT[name]
    img = image.inspect(data, len(data))
    if error is None:
        image.check_format(img, given_format, OPTION, WHERE)
        return
    with pytest.raises(LibvirtValidationError, match=error):
        image.check_format(img, given_format, OPTION, WHERE)


# --- qemu-img as the oracle -------------------------------------------------------------------


@pytest.fixture
def qemu_img() -> str:
    path = shutil.which("qemu-img")
    if path is None:
        pytest.skip("qemu-img is not installed")
    return path


def _run(cwd: Path, *args: str) -> str:
    result = subprocess.run(args, cwd=cwd, check=False, capture_output=True, text=True)
    assert result.returncode == 0, f"{' '.join(args)}: {result.stderr}"
    return result.stdout


def _qemu_info(qemu_img: str, path: Path) -> dict[str, t.Any]:
    info: dict[str, t.Any] = json.loads(_run(path.parent, qemu_img, "info", "--output=json", "-U", path.name))
    return info


def _qemu_refs(info: dict[str, t.Any], name: str) -> set[Ref]:
    """The files qemu-img says the image names: its backing file, its data file, the extents of
    a vmdk that are not the image itself."""
    refs: set[Ref] = set()
    if "backing-filename" in info:
        refs.add(("vmdk parent" if info["format"] == "vmdk" else "backing file", info["backing-filename"]))
    specific = info.get("format-specific", {}).get("data", {})
    if "data-file" in specific:
        refs.add(("external data file", specific["data-file"]))
    refs.update(("vmdk extent", extent["filename"]) for extent in specific.get("extents", ()) if extent["filename"] != name)
    return refs


def _inspect_file(path: Path) -> image.Image:
    with path.open("rb") as f:
        return image.inspect(f.read(image.HEADER_BYTES), path.stat().st_size)


def _qemu_format(img: image.Image) -> str:
    return "raw" if img.format == "iso" else img.format  # an ISO is a raw image to QEMU


# qemu-img create arguments (run in tmp_path, which holds base.raw, and parent.vmdk for the case
# that names it; {tmp} is tmp_path), and whether
# inspect gives the virtual size (not for vhdx, whose size is in its metadata region, nor for a
# vmdk descriptor file, whose extents are other files).
CREATED: dict[str, tuple[list[str], bool]] = {
    "raw": (["-f", "raw", "img", "1M"], True),
    "qcow2 compat 0.10": (["-f", "qcow2", "-o", "compat=0.10", "img", "1M"], True),
    "qcow2 compat 1.1": (["-f", "qcow2", "-o", "compat=1.1", "img", "1M"], True),
    "qcow2 2M clusters": (["-f", "qcow2", "-o", "cluster_size=2M", "img", "1M"], True),
    "qcow2 relative backing": (["-f", "qcow2", "-b", "base.raw", "-F", "raw", "-u", "img", "1M"], True),
    "qcow2 compat 0.10 absolute backing": (["-f", "qcow2", "-o", "compat=0.10", "-b", "{tmp}/base.raw", "-F", "raw", "-u", "img", "1M"], True),
    "qcow2 data file": (["-f", "qcow2", "-o", "data_file=img.data", "img", "1M"], True),
    "qcow2 raw data file": (["-f", "qcow2", "-o", "data_file={tmp}/img.data,data_file_raw=on", "img", "1M"], True),
    "qcow2 data file and backing": (["-f", "qcow2", "-o", "data_file=img.data", "-b", "base.raw", "-F", "raw", "-u", "img", "1M"], True),
    "qed": (["-f", "qed", "img", "1M"], True),
    "qed backing": (["-f", "qed", "-b", "base.raw", "-F", "raw", "img", "1M"], True),
    "vmdk monolithicSparse": (["-f", "vmdk", "-o", "subformat=monolithicSparse", "img", "1M"], True),
    "vmdk streamOptimized": (["-f", "vmdk", "-o", "subformat=streamOptimized", "img", "1M"], True),
    "vmdk monolithicFlat": (["-f", "vmdk", "-o", "subformat=monolithicFlat", "img", "1M"], False),
    "vmdk twoGbMaxExtentSparse": (["-f", "vmdk", "-o", "subformat=twoGbMaxExtentSparse", "img", "1M"], False),
    "vmdk twoGbMaxExtentFlat": (["-f", "vmdk", "-o", "subformat=twoGbMaxExtentFlat", "img", "1M"], False),
    "vmdk parent": (["-f", "vmdk", "-b", "parent.vmdk", "-F", "vmdk", "img"], True),
    "vhdx": (["-f", "vhdx", "img", "1M"], False),
    "vpc": (["-f", "vpc", "img", "1M"], True),
    "vpc force_size": (["-f", "vpc", "-o", "force_size=on", "img", "1M"], True),
    "vpc fixed (footer at the end: raw)": (["-f", "vpc", "-o", "subformat=fixed", "img", "1M"], True),
    "vdi": (["-f", "vdi", "img", "1M"], True),
    "parallels": (["-f", "parallels", "img", "1M"], True),
    "parallels 3G": (["-f", "parallels", "img", "3G"], True),
    "qcow": (["-f", "qcow", "img", "1M"], True),
    "qcow backing": (["-f", "qcow", "-b", "base.raw", "-F", "raw", "-u", "img", "1M"], True),
}


@pytest.mark.parametrize(("args", "sized"), list(CREATED.values()), ids=list(CREATED))
def test_qemu_img_created(qemu_img: str, tmp_path: Path, args: list[str], sized: bool) -> None:
    (tmp_path / "base.raw").write_bytes(bytes(MiB))
    if "parent.vmdk" in args:
        _run(tmp_path, qemu_img, "create", "-q", "-f", "vmdk", "parent.vmdk", "1M")
    _run(tmp_path, qemu_img, "create", "-q", *(arg.replace("{tmp}", str(tmp_path)) for arg in args))
    info = _qemu_info(qemu_img, tmp_path / "img")
    img = _inspect_file(tmp_path / "img")
    expected = _qemu_refs(info, "img")
    assert (_qemu_format(img), set(_refs(img))) == (info["format"], expected)
    assert len(img.references) == len(expected)
    # Only a vmdk descriptor file is refused outright: its data are other files.
    assert (img.unsafe is not None) == any(ref[0] == "vmdk extent" for ref in expected)
    if sized:
        assert img.virtual_size == info["virtual-size"]
    else:
        assert img.virtual_size is None


def test_qemu_img_created_luks(qemu_img: str, tmp_path: Path) -> None:
    """QEMU probes a LUKS (version 1) image as luks; qemu-img's key derivation benchmark fails
    now and then on a busy machine ("Unable to get accurate CPU usage"): it is tried again."""
    for _attempt in range(5):
        made = subprocess.run(
            [qemu_img, "create", "-q", "--object", "secret,id=s0,data=x", "-f", "luks", "-o", "key-secret=s0", "img", "1M"],
            cwd=tmp_path,
            check=False,
            capture_output=True,
            text=True,
        )
        if made.returncode == 0:
            break
        assert "CPU usage" in made.stderr, made.stderr
    else:
        pytest.skip("qemu-img could not time its key derivation on this machine")
    img = _inspect_file(tmp_path / "img")
    assert (img.format, img.references, img.unsafe) == (_qemu_info(qemu_img, tmp_path / "img")["format"], (), None) == ("luks", (), None)


# Hand-built files qemu-img is handed; "flat.raw" is created next to them.
CRAFTED: dict[str, bytes] = {
    "iso": iso(),
    "vmdk sparse": vmdk4(descriptor=vmdk_descriptor("monolithicSparse", ["img"])),
    "vmdk sparse with a parent": vmdk4(descriptor=vmdk_descriptor("monolithicSparse", ["img"], parent="/etc/shadow")),
    "vmdk COWD": cowd(),
    "vmdk descriptor file": vmdk_descriptor("monolithicFlat", ["flat.raw"]),
    "vpc": vpc(size=MiB),
    "vpc from Virtual PC": vpc(size=MiB, creator=b"vpc "),
    "vpc from an older QEMU": vpc(size=MiB, creator=b"qemu"),
    "vpc from Virtual PC with the largest geometry": vpc(size=MiB, creator=b"vpc ", geometry=(65535, 16, 255)),
    "vdi": vdi(size=MiB),
    "parallels": parallels(size=MiB).ljust(MiB, b"\0"),
    "parallels, the old magic": parallels(size=MiB, magic=PARALLELS_OLD_MAGIC).ljust(MiB, b"\0"),
    "bochs": bochs(),
    "bochs version 1": bochs(version=0x00010000),
    "cloop": cloop(),
    **{f"vmdk {name}": data for name, data in QEMU_PARENTS.items()},
    **{f"vmdk descriptor file, {name}": data.replace(b"/etc/shadow-flat", b"flat.raw") for name, data in QEMU_DESCRIPTORS.items()},
}


@pytest.mark.parametrize("name", list(CRAFTED))
def test_qemu_img_reads_crafted(qemu_img: str, tmp_path: Path, name: str) -> None:
    """qemu-img reads these files as they are written here: inspect gives the format and the
    virtual size qemu-img gives, and every file qemu-img says it names (or refuses the image)."""
    (tmp_path / "flat.raw").write_bytes(bytes(MiB))
    (tmp_path / "img").write_bytes(CRAFTED[name])
    info = _qemu_info(qemu_img, tmp_path / "img")
    img = _inspect_file(tmp_path / "img")
    assert _qemu_format(img) == info["format"], img
    missing = _qemu_refs(info, "img") - set(_refs(img))
    assert not missing or img.unsafe is not None, (missing, img)
    if img.unsafe is None:
        assert img.virtual_size == info["virtual-size"]
