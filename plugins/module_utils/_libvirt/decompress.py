# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Compressed content (gzip, xz, bzip2, zstd), recognised by its magic bytes and decompressed
while it is read, forward only: never a temporary copy, memory bounded whatever the ratio."""

from __future__ import annotations

import bz2
import lzma
import typing as t
import zlib

from .errors import LibvirtError, LibvirtValidationError

try:
    import zstandard  # optional: only zstd content needs it
except ImportError:
    zstandard = None

__all__ = ["CHUNK", "MAGIC", "DecompressedReader", "detect", "zstd_available"]

CHUNK = 98304  # compressed bytes read at a time, and the most a decompressor returns at once
MAGIC: tuple[tuple[str, bytes], ...] = (
    ("gzip", b"\x1f\x8b\x08"),
    ("xz", b"\xfd7zXZ\x00"),
    ("bzip2", b"BZh"),
    ("zstd", b"\x28\xb5\x2f\xfd"),
)
# zstd has no bound on the output of one call: its input is fed in slices this small (an RLE
# block of 4 bytes is 128 KiB, so at most some 32 MiB come out of one slice).
_ZSTD_SLICE = 1024


def zstd_available() -> bool:
    return zstandard is not None


# After "BZh" and its block size digit, bzip2 writes a block's magic (the digits of pi) or, for an
# empty stream, the end-of-stream magic (those of sqrt(pi)): three bytes alone could be raw data.
_BZIP2_NEXT = (b"\x31\x41\x59\x26\x53\x59", b"\x17\x72\x45\x38\x50\x90")


def detect(head: bytes) -> str | None:
    """The compression of content starting with ``head``, or None."""
    for kind, magic in MAGIC:
        if head.startswith(magic):
            if kind == "bzip2" and not (head[3:4].isdigit() and head[3:4] != b"0" and head[4:10] in _BZIP2_NEXT):
                continue
            return kind
    return None


class _Member:
    """One member (stream, frame) of the content, with one interface over the libraries."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.tail = b""  # input taken but not decompressed yet (zlib, zstd)
        if kind == "gzip":
            self._obj: t.Any = zlib.decompressobj(31)  # gzip header and trailer (CRC, size) checked
        elif kind == "xz":
            self._obj = lzma.LZMADecompressor(format=lzma.FORMAT_XZ)
        elif kind == "bzip2":
            self._obj = bz2.BZ2Decompressor()
        else:
            self._obj = zstandard.ZstdDecompressor().decompressobj()

    @property
    def eof(self) -> bool:
        return bool(self._obj.eof)

    @property
    def needs_input(self) -> bool:
        if self.kind in ("xz", "bzip2"):
            return bool(self._obj.needs_input)
        return not self.tail

    @property
    def unused_data(self) -> bytes:
        return bytes(self._obj.unused_data) + (self.tail if self.kind == "zstd" else b"")

    def decompress(self, data: bytes, limit: int) -> bytes:
        if self.kind in ("xz", "bzip2"):
            return bytes(self._obj.decompress(data, max_length=limit))
        if self.kind == "gzip":
            out = self._obj.decompress(self.tail + data, limit)
            self.tail = self._obj.unconsumed_tail
            return bytes(out)
        data = self.tail + data
        out = self._obj.decompress(data[:_ZSTD_SLICE])
        self.tail = data[_ZSTD_SLICE:]
        return bytes(out)


class DecompressedReader:
    """The decompressed bytes of compressed content read through ``read``, a piece at a time.

    Every compressed byte goes to ``on_compressed`` (the checksum is over the file as
    published). Members the tools write one after the other (gzip -c a >> b, xz's concatenated
    streams with their NUL padding, pbzip2, zstd frames) are all read; content cut short, or
    anything after the last member, is an error, and so is more than ``limit`` decompressed
    bytes (a decompression bomb): read stops there."""

    def __init__(self, kind: str, read: t.Callable[[int], bytes], *, limit: int, option: str, on_compressed: t.Callable[[bytes], None] | None = None) -> None:
        if kind == "zstd" and zstandard is None:
            raise LibvirtValidationError(
                f"{option}: the content is zstd-compressed, and reading it needs the Python package 'zstandard' on the managed host "
                "(pip install zstandard), or a gzip, xz or bzip2 copy of it"
            )
        self.kind = kind
        self.limit = limit
        self.option = option
        self.total = 0  # decompressed bytes returned so far
        self.compressed = 0
        self._read = read
        self._on_compressed = on_compressed
        self._member = _Member(kind)
        self._pending = b""  # compressed bytes read, not fed to a member yet
        self._source_done = False
        self._done = False

    def _more(self) -> bytes:
        if self._pending:
            data, self._pending = self._pending, b""
            return data
        if self._source_done:
            return b""
        data = self._read(CHUNK)
        if not data:
            self._source_done = True
            return b""
        self.compressed += len(data)
        if self._on_compressed is not None:
            self._on_compressed(data)
        return data

    def _next_member(self) -> bool:
        """After a member: whether another follows (else the content must end here)."""
        rest = self._member.unused_data
        while True:
            if self.kind == "xz":
                stripped = rest.lstrip(b"\0")
                if len(rest) - len(stripped) and stripped == b"":  # padding: it may run on into the next read
                    more = self._more()
                    if more:
                        rest += more
                        continue
                if (len(rest) - len(stripped)) % 4:
                    raise LibvirtError(f"{self.option}: the xz content has stream padding that is not a multiple of 4 bytes")
                rest = stripped
            if rest:
                break
            rest = self._more()
            if not rest:
                return False
        magic = dict(MAGIC)[self.kind]
        if not magic.startswith(rest[: len(magic)]) or (len(rest) >= len(magic) and not rest.startswith(magic)):
            raise LibvirtError(f"{self.option}: data after the end of the {self.kind} content (trailing garbage): refused, it is not what the tools write")
        self._member = _Member(self.kind)
        self._pending = rest
        return True

    def read(self) -> bytes:
        """The next decompressed bytes (at most ``CHUNK``); b"" once the content ended whole."""
        while not self._done:
            if self._member.eof:
                if not self._next_member():
                    self._done = True
                    break
                continue
            data = self._more() if self._member.needs_input else b""
            if not data and self._member.needs_input:
                raise LibvirtError(f"{self.option}: the {self.kind} content ends before its end ({self.compressed} compressed bytes read): it was cut short")
            try:
                out = self._member.decompress(data, CHUNK)
            except (zlib.error, lzma.LZMAError, OSError, EOFError, ValueError) as exc:
                raise LibvirtError(f"{self.option}: the {self.kind} content is corrupt: {exc}") from None
            except Exception as exc:  # zstandard.ZstdError
                if zstandard is not None and isinstance(exc, zstandard.ZstdError):
                    raise LibvirtError(f"{self.option}: the {self.kind} content is corrupt: {exc}") from None
                raise
            if out:
                self.total += len(out)
                if self.total > self.limit:
                    raise LibvirtValidationError(
                        f"{self.option}: the content decompresses to more than {self.limit} bytes (capacity): refused "
                        "(a larger image, or a decompression bomb); give a capacity it fits into"
                    )
                return out
        return b""
