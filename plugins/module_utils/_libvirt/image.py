# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""What a disk image is, read from its first bytes, never from what its name or anyone says.

A disk image can name other files of the host: a qcow, qcow2 or qed backing file, a qcow2
external data file, the extents of a vmdk or a vmdk's parent. QEMU opens them with the rights
of the hypervisor, so an image another user made can turn any file root can read into a
guest's disk. ``inspect`` reads the header of an image from bytes already in memory (the very
bytes that are then written into the volume) and says what the image is and what it names;
``refuse_references`` turns what it names into an error unless it is a volume of a pool and
the caller allows that. Nothing here opens a file an image names.

The layouts are those of the formats' specifications (QEMU's docs/interop/qcow2.txt and
qed_spec.txt, VMware's Virtual Disk Format 1.1, Microsoft's VHD and VHDX specifications,
VirtualBox's VDI header)."""

from __future__ import annotations

import dataclasses
import os
import re
import struct
import typing as t

from .errors import LibvirtValidationError

__all__ = ["HEADER_BYTES", "Image", "check_format", "inspect", "refuse_references", "volume_format_for"]

# How much of an image ``inspect`` needs: a qcow2 backing file name and its header extensions
# lie in the first cluster (2 MiB at most; QEMU refuses a name past it), a vmdk descriptor and a
# qed backing name sit a few sectors in. An image whose structures point further is refused.
HEADER_BYTES = (2 << 20) + 4096

_QCOW_MAGIC = b"QFI\xfb"
_QED_MAGIC = b"QED\x00"
_VMDK4_MAGIC = b"KDMV"
_VMDK3_MAGIC = b"COWD"
_VMDK_DESCRIPTOR = b"# Disk DescriptorFile"
_VMDK_DESC_OFFSET, _VMDK_DESC_SIZE = 0x200, 10240  # where QEMU looks for a sparse vmdk's parent
_VHDX_MAGIC = b"vhdxfile"
_VPC_MAGIC = b"conectix"
_VDI_MAGIC = 0xBEDA107F
_ISO_MAGIC = b"CD001"

_QCOW2_EXT_END = 0
_QCOW2_EXT_DATA_FILE = 0x44415441
_QCOW2_INCOMPAT_DATA_FILE = 1 << 2
_QED_F_BACKING_FILE = 1
# vmdk create types that are one file: the grains and the descriptor are the image itself.
_VMDK_ONE_FILE = {"monolithicSparse", "streamOptimized"}

# What each detected format may be written as in a libvirt volume: the first is the default.
# vhdx has no libvirt volume format (storagecommon.rng): it is refused, with the way out.
_VOLUME_FORMATS: dict[str, tuple[str, ...]] = {
    "raw": ("raw",),
    "iso": ("raw", "iso"),
    "qcow": ("qcow",),
    "qcow2": ("qcow2",),
    "qed": ("qed",),
    "vmdk": ("vmdk",),
    "vpc": ("vpc", "vhd"),
    "vdi": ("vdi",),
    "vhdx": (),
}


@dataclasses.dataclass(frozen=True)
class Reference:
    """A file of the host an image names: what it is to the image, and the name as written."""

    kind: str  # "backing file", "external data file", "vmdk extent", "vmdk parent"
    path: str


@dataclasses.dataclass(frozen=True)
class Image:
    """What ``inspect`` found: the format (a name of QEMU's), the virtual size when the header
    gives one, the files it names, and a reason when the header cannot be trusted at all."""

    format: str
    virtual_size: int | None = None
    references: tuple[Reference, ...] = ()
    unsafe: str | None = None  # why the image is refused whatever it names


class _TruncatedError(Exception):
    """A structure the header points to lies past the bytes read."""


def _field(data: bytes, fmt: str, offset: int) -> t.Any:
    size = struct.calcsize(fmt)
    if offset < 0 or offset + size > len(data):
        raise _TruncatedError
    return struct.unpack_from(fmt, data, offset)[0]


def _text(data: bytes, offset: int, length: int) -> str:
    """A file name stored in the header, as QEMU reads it: a C string, ending at a NUL."""
    if offset < 0 or length < 0 or offset + length > len(data):
        raise _TruncatedError
    return data[offset : offset + length].split(b"\0", 1)[0].decode("utf-8", "replace")


def _qcow2(data: bytes) -> Image:
    version = _field(data, ">I", 4)
    if version == 1:  # qcow (version 1): backing name only
        offset, length = _field(data, ">Q", 8), _field(data, ">I", 16)
        backing = (Reference("backing file", _text(data, offset, length)),) if offset else ()
        return Image("qcow", _field(data, ">Q", 24), backing)
    if version not in (2, 3):
        return Image("qcow2", unsafe=f"qcow2 version {version} is unknown")
    backing_offset, backing_size = _field(data, ">Q", 8), _field(data, ">I", 16)
    cluster_bits, size = _field(data, ">I", 20), _field(data, ">Q", 24)
    refs: list[Reference] = []
    if backing_offset:
        if backing_size > 1023 or not 9 <= cluster_bits <= 21 or backing_offset > 1 << cluster_bits:
            return Image("qcow2", size, unsafe="its backing file name lies outside its first cluster")
        refs.append(Reference("backing file", _text(data, backing_offset, backing_size)))
    incompatible, header_length = (0, 72) if version == 2 else (_field(data, ">Q", 72), _field(data, ">I", 100))
    # Header extensions run from the header's end to the first cluster's (or the backing name).
    pos, end = header_length, backing_offset or (1 << min(max(cluster_bits, 9), 21))
    data_file = None
    while pos + 8 <= end:
        kind, length = _field(data, ">I", pos), _field(data, ">I", pos + 4)
        if kind == _QCOW2_EXT_END:
            break
        if kind == _QCOW2_EXT_DATA_FILE:
            data_file = _text(data, pos + 8, length)
        pos += 8 + (length + 7) // 8 * 8
    if data_file is not None:
        refs.append(Reference("external data file", data_file))
    elif incompatible & _QCOW2_INCOMPAT_DATA_FILE:
        return Image("qcow2", size, tuple(refs), unsafe="it keeps its data in an external data file it does not name")
    return Image("qcow2", size, tuple(refs))


def _qed(data: bytes) -> Image:
    features, size = _field(data, "<Q", 16), _field(data, "<Q", 48)
    if not features & _QED_F_BACKING_FILE:
        return Image("qed", size)
    offset, length = _field(data, "<I", 56), _field(data, "<I", 60)
    return Image("qed", size, (Reference("backing file", _text(data, offset, length)),))


def _vmdk_descriptor(text: str, size: int | None) -> Image:
    """A vmdk descriptor: its create type, its extents (files, or this file) and its parent."""
    create_type = None
    refs: list[Reference] = []
    extent = re.compile(r'^\s*(RW|RDONLY|NOACCESS)\s+\d+\s+(\w+)(?:\s+"([^"]*)")?')
    for line in text.splitlines():
        match = re.match(r'^\s*createType\s*=\s*"?([^"\s]*)"?', line)
        if match:
            create_type = match.group(1)
            continue
        match = re.match(r'^\s*parentFileNameHint\s*=\s*"([^"]*)"', line)
        if match and match.group(1):
            refs.append(Reference("vmdk parent", match.group(1)))
            continue
        match = extent.match(line)
        if match and match.group(3) is not None:
            refs.append(Reference("vmdk extent", match.group(3)))
    if create_type not in _VMDK_ONE_FILE:
        return Image("vmdk", size, tuple(refs), unsafe=f"a vmdk of type {create_type or 'unknown'} is a set of files, not one image")
    # A one-file vmdk's extent line names the file itself: only its parent leaves the image.
    return Image("vmdk", size, tuple(ref for ref in refs if ref.kind == "vmdk parent"))


def _vmdk_parent(data: bytes) -> Reference | None:
    """The parent QEMU opens for a sparse vmdk: it searches the 10 KiB at byte 512 for
    ``parentFileNameHint="`` wherever it is (a comment, mid-line, past the descriptor)."""
    region = data[_VMDK_DESC_OFFSET : _VMDK_DESC_OFFSET + _VMDK_DESC_SIZE]
    start = region.find(b'parentFileNameHint="')
    if start < 0:
        return None
    name = region[start + len(b'parentFileNameHint="') :].split(b'"', 1)[0].split(b"\0", 1)[0]
    return Reference("vmdk parent", name.decode("utf-8", "replace")) if name else None


def _with_parent(found: Image, data: bytes) -> Image:
    parent = _vmdk_parent(data)
    if parent is None or parent in found.references:
        return found
    return dataclasses.replace(found, references=(*found.references, parent))


def _vmdk4(data: bytes) -> Image:
    capacity = _field(data, "<Q", 12)
    desc_offset, desc_size = _field(data, "<Q", 28), _field(data, "<Q", 36)
    if not desc_offset:
        return Image("vmdk", capacity * 512)
    text = _text(data, desc_offset * 512, desc_size * 512).split("\x00", 1)[0]
    image = _vmdk_descriptor(text, capacity * 512)
    if capacity == 0:
        # QEMU then reads the embedded descriptor as a descriptor file: its extents are files.
        refs = [Reference("vmdk extent", ref.path) for ref in image.references] or [Reference("vmdk extent", "(descriptor)")]
        return Image("vmdk", None, tuple(refs), unsafe="a vmdk with capacity 0 takes its extents from its descriptor")
    return image


_PARSERS: tuple[tuple[bytes, str, t.Callable[[bytes], Image]], ...] = (
    (_QCOW_MAGIC, "qcow2", _qcow2),
    (_QED_MAGIC, "qed", _qed),
    (_VMDK4_MAGIC, "vmdk", lambda data: _with_parent(_vmdk4(data), data)),
    (_VMDK3_MAGIC, "vmdk", lambda data: _with_parent(Image("vmdk", _field(data, "<I", 12) * 512), data)),
    (_VHDX_MAGIC, "vhdx", lambda data: Image("vhdx")),
    (_VPC_MAGIC, "vpc", lambda data: Image("vpc", _vpc_size(data))),
)


def _vpc_size(data: bytes) -> int:
    """The disk size QEMU gives a VHD: from the CHS geometry for images made by Virtual PC or an
    older QEMU (creator ``vpc `` or ``qemu``) unless the geometry is the largest one, else the
    footer's current size."""
    size = int(_field(data, ">Q", 48))
    cylinders, heads, sectors = _field(data, ">H", 56), _field(data, "B", 58), _field(data, "B", 59)
    if data[28:32] in (b"vpc ", b"qemu") and (cylinders, heads, sectors) != (65535, 16, 255):
        return int(cylinders * heads * sectors * 512)
    return size


def _vmdk_descriptor_text(data: bytes) -> bool:
    """Whether QEMU takes ``data`` for a vmdk descriptor file: its first line that is neither
    blank nor a comment is ``version=1``, ``2`` or ``3``."""
    for line in data[:_VMDK_DESC_SIZE].split(b"\n"):
        text = line.rstrip(b"\r").strip()
        if not text or text.startswith(b"#"):
            continue
        return text in (b"version=1", b"version=2", b"version=3")
    return False


def inspect(data: bytes, total_size: int | None = None) -> Image:
    """What the image whose first bytes are ``data`` is. ``total_size``: the whole image's size
    (None when unknown); ``data`` holds all of it when it is shorter than ``HEADER_BYTES``."""
    for magic, name, parse in _PARSERS:
        if data.startswith(magic):
            try:
                return parse(data)
            except _TruncatedError:
                shown = "qcow" if magic == _QCOW_MAGIC and data[4:8] == b"\0\0\0\1" else name
                return Image(shown, unsafe=f"its header points past the first {len(data)} bytes")
    if data.startswith(_VMDK_DESCRIPTOR) or _vmdk_descriptor_text(data):
        image = _vmdk_descriptor(data[:65536].decode("utf-8", "replace"), None)
        return Image("vmdk", None, image.references, unsafe="a vmdk descriptor file keeps its data in other files")
    if len(data) >= 0x178 and struct.unpack_from("<I", data, 0x40)[0] == _VDI_MAGIC:
        return Image("vdi", struct.unpack_from("<Q", data, 0x170)[0])
    if data[0x8001:0x8006] == _ISO_MAGIC:
        return Image("iso", total_size)
    return Image("raw", total_size)


def refuse_references(image: Image, option: str, where: str, pool_paths: t.Sequence[str], *, allow_in_pool: bool, base_dir: str | None = None) -> None:
    """Refuse an image that names a file of the host, with ``option`` and the path found. With
    ``allow_in_pool``, a backing file that is a file of one of ``pool_paths`` (the target
    directories of the host's pools) is accepted; nothing else ever is. ``base_dir``: where a
    relative name is resolved (QEMU resolves it against the image's own directory)."""
    if image.unsafe:
        named = f" (it names {', '.join(repr(ref.path) for ref in image.references)})" if image.references else ""
        raise LibvirtValidationError(f"{option}: {where} is refused: {image.unsafe}{named}")
    for ref in image.references:
        if ref.kind == "backing file" and allow_in_pool and _in_pool(ref.path, base_dir, pool_paths):
            continue
        hint = (
            "; allow a backing file that is a volume of a pool with create.allow_backing_in_pool: true"
            if ref.kind == "backing file" and not allow_in_pool
            else ""
        )
        raise LibvirtValidationError(
            f"{option}: {where} is a {image.format} image whose {ref.kind} is {ref.path!r}: QEMU would open that file of the host "
            f"for the guest; refused (flatten it first: qemu-img convert -O {image.format} IMAGE FLAT){hint}"
        )


def _in_pool(path: str, base_dir: str | None, pool_paths: t.Sequence[str]) -> bool:
    if "://" in path or ":" in path.split("/", 1)[0]:
        return False  # a protocol (nbd:, http://, json:): never a pool's file
    if not os.path.isabs(path):
        if base_dir is None:
            return False
        path = os.path.join(base_dir, path)
    try:
        real = os.path.realpath(path)
        return any(os.path.dirname(real) == os.path.realpath(pool) and os.path.isfile(real) for pool in pool_paths)
    except (ValueError, UnicodeError):  # a NUL or a lone surrogate: no file of the host
        return False


def volume_format_for(image: Image, option: str, where: str) -> str:
    """The libvirt volume format an upload of ``image`` gets when none is given."""
    formats = _VOLUME_FORMATS.get(image.format, ())
    if not formats:
        raise LibvirtValidationError(
            f"{option}: {where} is a {image.format} image, which a libvirt volume cannot hold: convert it first (qemu-img convert -O qcow2 IMAGE NEW)"
        )
    return formats[0]


def check_format(image: Image, given: str, option: str, where: str) -> None:
    """Refuse a given volume format that contradicts what the content is."""
    formats = _VOLUME_FORMATS.get(image.format, ())
    if given in formats:
        return
    if not formats:
        volume_format_for(image, option, where)
    raise LibvirtValidationError(
        f"{option}: '{given}' contradicts the content: {where} is a {image.format} image"
        + (f" (give {' or '.join(repr(f) for f in formats)}, or leave the option out to take it from the content)" if formats else "")
    )
