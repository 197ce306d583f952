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
the caller allows that. A backing file that is a volume of a pool is then read in turn (its
first bytes only, and only once it is known to be a file directly in a pool's directory), and
so on down the chain, at most ``MAX_BACKING_CHAIN`` links: no other file is ever opened.

The format is the one QEMU probes from the same bytes (qcow2, qcow, qed, vmdk, vdi, vpc, vhdx,
parallels, bochs, cloop, luks; raw when none matches), so that an image is never recorded as one
format while QEMU opens it as another.

The layouts are those of the formats' specifications (QEMU's docs/interop/qcow2.txt and
qed_spec.txt, VMware's Virtual Disk Format 1.1, Microsoft's VHD and VHDX specifications,
VirtualBox's VDI header, the Parallels disk image header, the Bochs redolog and cloop v2
headers, LUKS1)."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import stat
import struct
import typing as t

from .errors import LibvirtValidationError

__all__ = ["HEADER_BYTES", "MAX_BACKING_CHAIN", "Image", "check_format", "inspect", "pool_file", "read_pool_file", "refuse_references", "volume_format_for"]

# How much of an image ``inspect`` needs: a qcow2 backing file name and its header extensions
# lie in the first cluster (2 MiB at most; QEMU refuses a name past it), a vmdk descriptor and a
# qed backing name sit a few sectors in. An image whose structures point further is refused.
HEADER_BYTES = (2 << 20) + 4096

# The most backing files followed below an image: a longer chain is refused, never read on.
MAX_BACKING_CHAIN = 16

# QEMU probes the first 2 KiB, the bytes past the end of a shorter file read as zeros.
_PROBE_BYTES = 2048

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
_PARALLELS_MAGICS = (b"WithoutFreeSpace", b"WithouFreSpacExt")
_PARALLELS_VERSION = 2
_BOCHS_MAGIC = b"Bochs Virtual HD Image\0"
_BOCHS_VERSIONS = (0x00010000, 0x00020000)
_CLOOP_MAGIC = b"#!/bin/sh\n#V2.0 Format\nmodprobe cloop file=$0 && mount -r -t iso9660 /dev/cloop $1\n"
_LUKS_MAGIC = b"LUKS\xba\xbe"

_QCOW2_EXT_END = 0
_QCOW2_EXT_DATA_FILE = 0x44415441
_QCOW2_EXT_BACKING_FORMAT = 0xE2792ACA
_QCOW2_INCOMPAT_DATA_FILE = 1 << 2
_QED_F_BACKING_FILE = 1
_QED_F_BACKING_FORMAT_NO_PROBE = 4  # the backing file is raw
# vmdk create types that are one file: the grains and the descriptor are the image itself.
_VMDK_ONE_FILE = {"monolithicSparse", "streamOptimized"}

# What each detected format may be written as in a libvirt volume: the first is the default.
# vhdx has no libvirt volume format (storagecommon.rng): it is refused, with the way out. Nor
# have the formats after it: QEMU probes them, and libvirt's ploop is a directory of files, not
# one parallels file (a parallels image in a raw volume is then seen as ploop, and libvirt
# cannot delete it); bochs, cloop and dmg volumes cannot be created; a LUKS image needs a volume
# that declares its encryption.
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
    "parallels": (),
    "bochs": (),
    "cloop": (),
    "dmg": (),
    "luks": (),
}
# Formats QEMU opens by probing that libvirt records otherwise (raw, or ploop).
_PROBED_ONLY = frozenset({"parallels", "bochs", "cloop", "dmg", "luks"})


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
    backing_format: str | None = None  # what QEMU opens the backing file as; None: it probes


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
    data_file = backing_format = None
    while pos + 8 <= end:
        kind, length = _field(data, ">I", pos), _field(data, ">I", pos + 4)
        if kind == _QCOW2_EXT_END:
            break
        if kind == _QCOW2_EXT_DATA_FILE:
            data_file = _text(data, pos + 8, length)
        elif kind == _QCOW2_EXT_BACKING_FORMAT:
            backing_format = _text(data, pos + 8, length)
        pos += 8 + (length + 7) // 8 * 8
    if data_file is not None:
        refs.append(Reference("external data file", data_file))
    elif incompatible & _QCOW2_INCOMPAT_DATA_FILE:
        return Image("qcow2", size, tuple(refs), unsafe="it keeps its data in an external data file it does not name")
    return Image("qcow2", size, tuple(refs), backing_format=(backing_format or None) if backing_offset else None)


def _qed(data: bytes) -> Image:
    features, size = _field(data, "<Q", 16), _field(data, "<Q", 48)
    if not features & _QED_F_BACKING_FILE:
        return Image("qed", size)
    offset, length = _field(data, "<I", 56), _field(data, "<I", 60)
    raw = "raw" if features & _QED_F_BACKING_FORMAT_NO_PROBE else None
    return Image("qed", size, (Reference("backing file", _text(data, offset, length)),), backing_format=raw)


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


def _probed(probe: bytes) -> Image | None:
    """The formats QEMU probes that have no reference to another file: what QEMU opens the
    bytes as (``probe``: at least ``_PROBE_BYTES``, zeros past the end of the image)."""
    u32 = struct.unpack_from("<I", probe, 16)[0]
    if probe[:16] in _PARALLELS_MAGICS and u32 == _PARALLELS_VERSION:
        sectors = struct.unpack_from("<Q", probe, 36)[0]
        if probe[:16] == _PARALLELS_MAGICS[0]:
            sectors &= 0xFFFFFFFF  # the old header's count is 32 bits
        return Image("parallels", sectors * 512)
    if (
        probe.startswith(_BOCHS_MAGIC)
        and probe[32:40] == b"Redolog\0"
        and probe[48:56] == b"Growing\0"
        and struct.unpack_from("<I", probe, 64)[0] in _BOCHS_VERSIONS
    ):
        # The disk size follows catalog, bitmap and extent, and a timestamp from version 2 on.
        disk = struct.unpack_from("<Q", probe, 88 if struct.unpack_from("<I", probe, 64)[0] == _BOCHS_VERSIONS[1] else 84)[0]
        return Image("bochs", disk // 512 * 512)
    if probe.startswith(_CLOOP_MAGIC):
        block_size, blocks = struct.unpack_from(">II", probe, 128)
        return Image("cloop", block_size * blocks)
    if probe.startswith(_LUKS_MAGIC) and struct.unpack_from(">H", probe, 6)[0] == 1:
        return Image("luks")
    if struct.unpack_from("<I", probe, 0x40)[0] == _VDI_MAGIC:
        return Image("vdi", struct.unpack_from("<Q", probe, 0x170)[0])
    return None


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
    if data:  # QEMU takes an empty file for raw
        found = _probed(data[:_PROBE_BYTES].ljust(_PROBE_BYTES, b"\0"))
        if found is not None:
            return found
    if data[0x8001:0x8006] == _ISO_MAGIC:
        return Image("iso", total_size)
    return Image("raw", total_size)


def refuse_references(
    image: Image,
    option: str,
    where: str,
    pool_paths: t.Sequence[str],
    *,
    allow_in_pool: bool,
    base_dir: str | None = None,
    top: str | None = None,
    read: t.Callable[[str], tuple[bytes, int, tuple[int, int]]] | None = None,
) -> None:
    """Refuse an image that names a file of the host, with ``option`` and the path found. With
    ``allow_in_pool``, a backing file that is a file of one of ``pool_paths`` (the target
    directories of the host's pools) is accepted, once the whole chain below it is: each link
    is read (``read``, ``read_pool_file`` by default) and inspected as the image was, its format
    must be the one QEMU would open it as, and it may name nothing but a backing file of a pool
    in turn, at most ``MAX_BACKING_CHAIN`` links deep, never a link twice. Nothing else is ever
    accepted. ``base_dir``: where a relative name is resolved (QEMU resolves it against the
    image's own directory); ``top``: the image's own file, when it is one (a loop back to it)."""
    read = read or read_pool_file
    seen: dict[tuple[int, int], int] = {}
    if top is not None:
        with _suppressed():
            info = os.stat(top)
            seen[(info.st_dev, info.st_ino)] = 0
    current, link, shown = image, 0, where
    while True:
        backing = _only_pool_backing(current, option, where, link, shown, pool_paths, allow_in_pool=allow_in_pool, base_dir=base_dir, top_format=image.format)
        if backing is None:
            return
        named, real = backing
        link += 1
        shown = repr(named)
        at = f"{option}: {where} is refused: link {link} of its backing chain ({shown})"
        if link > MAX_BACKING_CHAIN:
            raise LibvirtValidationError(
                f"{option}: {where} is refused: its backing chain is longer than {MAX_BACKING_CHAIN} links, the most that is "
                f"followed (flatten it first: qemu-img convert -O {image.format} IMAGE FLAT)"
            )
        try:
            head, size, identity = read(real)
        except OSError as exc:
            raise LibvirtValidationError(f"{at} cannot be read: {exc.strerror or type(exc).__name__}") from None
        if identity in seen:
            raise LibvirtValidationError(f"{at} is link {seen[identity]} again: the chain loops")
        seen[identity] = link
        found = inspect(head, size)
        _check_link_format(found, current.backing_format, named, at)
        current, base_dir = found, os.path.dirname(named)


def _only_pool_backing(
    image: Image,
    option: str,
    where: str,
    link: int,
    shown: str,
    pool_paths: t.Sequence[str],
    *,
    allow_in_pool: bool,
    base_dir: str | None,
    top_format: str,
) -> tuple[str, str] | None:
    """The backing file of link ``link`` of a chain (0: the image itself) as QEMU names it and
    as it resolves, when it is a file of a pool and allowed; None when the link names nothing.
    Anything else it names is refused."""
    prefix = f"{option}: {where}" if link == 0 else f"{option}: {where} is refused: link {link} of its backing chain, {shown},"
    if image.unsafe:
        named = f" (it names {', '.join(repr(ref.path) for ref in image.references)})" if image.references else ""
        prefix = f"{option}: {where} is refused" if link == 0 else prefix[:-1]
        raise LibvirtValidationError(f"{prefix}: {image.unsafe}{named}")
    backing = None
    for ref in image.references:
        real = pool_file(ref.path, base_dir, pool_paths) if ref.kind == "backing file" and allow_in_pool else None
        if real is not None and backing is None:
            backing = (ref.path if base_dir is None else os.path.join(base_dir, ref.path), real)
            continue
        hint = (
            "; allow a backing file that is a volume of a pool with create.allow_backing_in_pool: true"
            if ref.kind == "backing file" and not allow_in_pool
            else ""
        )
        if link:
            hint = "; every link of the chain must be a volume of a pool"
        raise LibvirtValidationError(
            f"{prefix} is a {image.format} image whose {ref.kind} is {ref.path!r}: QEMU would open that file of the host "
            f"for the guest; refused (flatten it first: qemu-img convert -O {top_format if link else image.format} IMAGE FLAT){hint}"
        )
    return backing


def _check_link_format(found: Image, recorded: str | None, named: str, at: str) -> None:
    """A link must be opened by QEMU as what it is: the format its parent records for it, or
    when none is recorded, the format QEMU probes (by the name too: QEMU takes a raw file whose
    name ends in .dmg for dmg); either must be a format a volume holds."""
    actual = "raw" if found.format == "iso" else found.format
    probed = "dmg" if actual == "raw" and named.endswith(".dmg") else actual
    if recorded is not None and recorded != actual:
        raise LibvirtValidationError(f"{at} is a {actual} image, but the link above records it as {recorded}: QEMU would open it as {recorded}")
    opened = recorded or probed
    if opened in _PROBED_ONLY or not _VOLUME_FORMATS.get(opened):
        raise LibvirtValidationError(f"{at}: QEMU would open it as {opened}, a format no volume holds (its content is {actual})")


@contextlib.contextmanager
def _suppressed() -> t.Iterator[None]:
    with contextlib.suppress(OSError, ValueError, UnicodeError):
        yield


def pool_file(path: str, base_dir: str | None, pool_paths: t.Sequence[str]) -> str | None:
    """Where the backing name ``path`` leads (resolved against ``base_dir`` when relative, every
    link followed) when that is a regular file directly in one of ``pool_paths``; else None."""
    if "://" in path or ":" in path.split("/", 1)[0]:
        return None  # a protocol (nbd:, http://, json:): never a pool's file
    if not os.path.isabs(path):
        if base_dir is None:
            return None
        path = os.path.join(base_dir, path)
    try:
        real = os.path.realpath(path)
        if any(os.path.dirname(real) == os.path.realpath(pool) for pool in pool_paths) and os.path.isfile(real):
            return real
    except (ValueError, UnicodeError):  # a NUL or a lone surrogate: no file of the host
        pass
    return None


def read_pool_file(real: str) -> tuple[bytes, int, tuple[int, int]]:
    """The first ``HEADER_BYTES`` of the pool file ``real`` (a path ``pool_file`` resolved), its
    size and identity. Opened without following a link and without waiting (a FIFO), it must
    still be a regular file at that very path."""
    fd = os.open(real, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK | os.O_NOFOLLOW)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(0, "not a regular file")
        try:
            opened = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:  # no /proc: the path was resolved a moment ago
            opened = real
        if opened != real:
            raise OSError(0, "it was moved while it was read")
        return os.pread(fd, HEADER_BYTES, 0), info.st_size, (info.st_dev, info.st_ino)
    finally:
        os.close(fd)


def _formats(image: Image, encrypted: bool) -> tuple[str, ...]:
    # A LUKS image is the content of a raw volume that declares LUKS encryption.
    return ("raw",) if image.format == "luks" and encrypted else _VOLUME_FORMATS.get(image.format, ())


def volume_format_for(image: Image, option: str, where: str, *, encrypted: bool = False) -> str:
    """The libvirt volume format an upload of ``image`` gets when none is given (``encrypted``:
    the volume declares LUKS encryption)."""
    formats = _formats(image, encrypted)
    if formats:
        return formats[0]
    if image.format in _PROBED_ONLY:
        hint = "; or declare target.encryption with format luks and its secret" if image.format == "luks" else ""
        raise LibvirtValidationError(
            f"{option}: {where} is a {image.format} image, which a libvirt volume cannot hold: QEMU probes it as {image.format}, "
            f"not as the format the volume would record; convert it first (qemu-img convert -O qcow2 IMAGE NEW){hint}"
        )
    raise LibvirtValidationError(
        f"{option}: {where} is a {image.format} image, which a libvirt volume cannot hold: convert it first (qemu-img convert -O qcow2 IMAGE NEW)"
    )


def check_format(image: Image, given: str, option: str, where: str, *, encrypted: bool = False) -> None:
    """Refuse a given volume format that contradicts what the content is (what QEMU would open
    it as)."""
    formats = _formats(image, encrypted)
    if given in formats:
        return
    if not formats:
        volume_format_for(image, option, where, encrypted=encrypted)
    raise LibvirtValidationError(
        f"{option}: '{given}' contradicts the content: {where} is a {image.format} image"
        + (f" (give {' or '.join(repr(f) for f in formats)}, or leave the option out to take it from the content)" if formats else "")
    )
