# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Small data ISOs (seed and config drives) with pycdlib: ISO9660 level 3 + Joliet + Rock
Ridge 1.09, as ``genisoimage -joliet -rock`` makes them, so every guest reads the real
file names (upstream's plain ISO9660 seeds are not read: https://github.com/dmacvicar/terraform-provider-libvirt/issues/1329).
Built and read in memory; the images are a few KiB."""

from __future__ import annotations

import dataclasses
import io
import re
import struct
import traceback
import typing as t

try:
    import pycdlib
except ImportError:
    pycdlib = None  # type: ignore[assignment]  # reported through HAS_PYCDLIB at run time
    HAS_PYCDLIB = False
    PYCDLIB_IMPORT_ERROR: str | None = traceback.format_exc()
else:
    HAS_PYCDLIB = True
    PYCDLIB_IMPORT_ERROR = None

__all__ = [
    "HAS_PYCDLIB",
    "PYCDLIB_IMPORT_ERROR",
    "IsoContent",
    "IsoFile",
    "build_iso",
    "iso9660_name",
    "read_iso",
]

_NOT_D_CHARS = re.compile(r"[^A-Z0-9_]")


@dataclasses.dataclass(frozen=True)
class IsoFile:
    """A file of the image: ``path`` is its Rock Ridge and Joliet path ("user-data",
    "ignition/config.ign"); ``mode`` its Rock Ridge permission bits."""

    path: str
    data: bytes
    mode: int = 0o444


@dataclasses.dataclass(frozen=True)
class IsoContent:
    """What a guest sees in an image: the volume label and the files of each name space."""

    label: str
    rock_ridge: dict[str, bytes]
    joliet: dict[str, bytes]
    modes: dict[str, int]


def iso9660_name(component: str, *, directory: bool = False) -> str:
    """The plain ISO9660 name of one path component, as genisoimage maps it: upper case,
    characters outside the d-characters replaced by ``_``, ``;1`` after file names."""
    if directory:
        return _NOT_D_CHARS.sub("_", component.upper())[:31]
    stem, dot, ext = component.upper().rpartition(".")
    if not dot:
        stem, ext = ext, ""
    return f"{_NOT_D_CHARS.sub('_', stem)[: 30 - len(ext[:3])]}.{_NOT_D_CHARS.sub('_', ext)[:3]};1"


def build_iso(label: str, files: t.Sequence[IsoFile]) -> bytes:
    """The bytes of an image labelled ``label`` holding ``files`` (directories are made
    for paths with slashes, mode 0555)."""
    iso = pycdlib.PyCdlib()
    iso.new(interchange_level=3, joliet=3, rock_ridge="1.09", vol_ident=label, sys_ident="LINUX")
    made: set[str] = set()
    for item in files:
        parts = item.path.split("/")
        for depth in range(1, len(parts)):
            rr_dir = "/".join(parts[:depth])
            if rr_dir in made:
                continue
            iso.add_directory(
                "/" + "/".join(iso9660_name(p, directory=True) for p in parts[:depth]),
                rr_name=parts[depth - 1],
                joliet_path="/" + rr_dir,
                file_mode=0o040555,
            )
            made.add(rr_dir)
        iso_path = "/" + "/".join([*(iso9660_name(p, directory=True) for p in parts[:-1]), iso9660_name(parts[-1])])
        iso.add_fp(io.BytesIO(item.data), len(item.data), iso_path, rr_name=parts[-1], joliet_path="/" + item.path, file_mode=0o100000 | item.mode)
    out = io.BytesIO()
    iso.write_fp(out)
    iso.close()
    return out.getvalue()


def _files(iso: t.Any, facade: t.Any) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    for root, _dirs, names in facade.walk("/"):
        for name in names:
            path = f"{root.rstrip('/')}/{name}"
            buf = io.BytesIO()
            facade.get_file_from_iso_fp(buf, path)
            files[path.lstrip("/")] = buf.getvalue()
    return files


def read_iso(fp: t.BinaryIO) -> IsoContent:
    """Read back an image; raises ValueError when it is not a readable ISO with both
    Rock Ridge and Joliet (a truncated or foreign file)."""
    iso = pycdlib.PyCdlib()
    try:
        iso.open_fp(fp)
    except (pycdlib.pycdlibexception.PyCdlibException, OSError, ValueError, IndexError, struct.error) as exc:
        raise ValueError(f"not a readable ISO image: {exc}") from exc
    try:
        if not iso.has_rock_ridge() or not iso.has_joliet():
            raise ValueError("the image lacks Rock Ridge or Joliet names")
        rr = iso.get_rock_ridge_facade()
        modes: dict[str, int] = {}
        for root, _dirs, names in rr.walk("/"):
            for name in names:
                path = f"{root.rstrip('/')}/{name}"
                rock_ridge = getattr(iso.get_record(rr_path=path), "rock_ridge", None)
                if rock_ridge is None:
                    raise ValueError(f"{path} has no Rock Ridge entry")
                modes[path.lstrip("/")] = rock_ridge.get_file_mode() & 0o7777
        return IsoContent(
            label=iso.pvd.volume_identifier.decode("ascii", "replace").rstrip(" \x00"),
            rock_ridge=_files(iso, rr),
            joliet=_files(iso, iso.get_joliet_facade()),
            modes=modes,
        )
    except (pycdlib.pycdlibexception.PyCdlibException, OSError, IndexError, struct.error) as exc:
        raise ValueError(f"not a readable ISO image: {exc}") from exc
    finally:
        iso.close()
