# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""libvirt_volume: create (empty, streamed from a URL or a local file, or cloned from another
volume of the host), grow, replace when asked, remove. A volume's format, backing store and other settings cannot change
in place: changing them loses data, so it is an error unless ``replace`` asks for it.

Content can be cut off (a dropped HTTP connection, a full pool, a daemon that stops, a run
killed while libvirt copies a clone), and two runs may fill one volume at once. While a volume is filled, an empty marker volume
named after the run sits next to it (volume_markers.py): a later run waits while that run
is alive, makes the volume anew when it died, and leaves it alone when it cannot tell.
A replacement with content is first uploaded into a staging volume of the run, so a failed
upload never costs the volume it was to replace; only a complete copy is then cloned into
the name."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import stat
import time
import typing as t
import urllib.parse

from .._common.plan import not_there_yet
from . import image, schema, volume_markers
from .connection import libvirt
from .errors import LibvirtError, LibvirtValidationError, is_unsupported
from .pool import target_path, target_paths
from .resource import Outcome, lookup_by_name
from .stream_upload import (
    STREAM_CHUNK_SIZE,
    Digest,
    NotTheVolumeFileError,
    copy_fd_into_file,
    digest_volume,
    head_sections,
    read_volume_head,
    upload_fd,
)
from .text import check_one_line
from .units import ULONG_MAX, split_size, to_bytes
from .xml_option import XML_ARGSPEC, options_from_xml

if t.TYPE_CHECKING:
    from . import decompress, volume_users

__all__ = ["VOLUME_ARGSPEC", "describe_volume", "ensure_volume"]

POLL_SECONDS = 1.0  # while another run fills the volume
_NAME_TAKEN = re.compile(r"already in use|already exists|exists already")
_ATTEMPTS = 3  # a run that loses the race to create the volume looks again

STRUCT = "StorageVolume"
SCHEMA_SPEC = schema.argument_spec(STRUCT, exclude=("name", "capacity", "capacity_unit"))
VOLUME_ARGSPEC: dict[str, dict[str, t.Any]] = {
    **SCHEMA_SPEC,
    **XML_ARGSPEC,
    "name": {"type": "str"},  # or the <name> of xml
    "pool": {"type": "str", "required": True},
    "capacity": {"type": "raw"},  # 10GiB as well as 10737418240: _wanted_bytes() reads it
    "capacity_unit": {"type": "str"},
    "state": {"type": "str", "choices": ["present", "absent"], "default": "present"},
    "create": {
        "type": "dict",
        "options": {
            "content": {
                "type": "dict",
                "options": {"url": {"type": "str", "required": True}, "checksum": {"type": "str"}},
            },
            "clone_from": {"type": "dict", "options": {"pool": {"type": "str", "required": True}, "volume": {"type": "str", "required": True}}},
            "allow_backing_in_pool": {"type": "bool", "default": False},
        },
        "mutually_exclusive": [["content", "clone_from"]],
        "required_one_of": [["content", "clone_from"]],
    },
    "sparse": {"type": "bool"},
    "replace": {"type": "bool", "default": False},
    "url_timeout": {"type": "int", "default": 30},
    "validate_certs": {"type": "bool", "default": True},
    "wipe": {"type": "str", "choices": ["zero", "nnsa", "dod", "bsi", "gutmann", "schneier", "pfitzner7", "pfitzner33", "random", "trim"]},
}


def wipe_algorithm(name: str) -> int:
    """virStorageVolWipePattern's algorithm for a ``wipe`` choice (VIR_STORAGE_VOL_WIPE_ALG_<NAME>)."""
    if name not in VOLUME_ARGSPEC["wipe"]["choices"]:
        raise LibvirtValidationError(f"wipe: unknown algorithm {name!r}")
    return int(getattr(libvirt, f"VIR_STORAGE_VOL_WIPE_ALG_{name.upper()}"))


@dataclasses.dataclass
class _Source:
    """Where the content comes from, opened before anything is created, with its first bytes
    read and inspected: those very bytes are what the upload sends first."""

    url: str
    size: int | None  # None: unknown (HTTP without Content-Length)
    head: bytes = b""
    image: image.Image = dataclasses.field(default_factory=lambda: image.Image("raw"))
    fd: int | None = None  # a local file, opened once
    response: t.Any = None
    # Compressed content: read forward only through the reader (``head`` is then decompressed),
    # its compressed bytes fed to ``digest`` as they are read.
    reader: decompress.DecompressedReader | None = None
    digest: Digest | None = None

    @property
    def shown(self) -> str:
        """The source as messages show it: a URL without user, password, query or fragment."""
        if self.fd is not None:
            return repr(_local_path(self.url))
        parts = urllib.parse.urlsplit(self.url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
        return repr(f"{parts.scheme}://{host}{port}{parts.path}")

    def close(self) -> None:
        if self.response is not None:
            with contextlib.suppress(Exception):
                self.response.close()
        if self.fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = None


def _local_path(url: str) -> str:
    return url[len("file://") :] if url.startswith("file://") else url


def _read_head(read: t.Callable[[int], bytes]) -> bytes:
    """The first ``image.HEADER_BYTES`` bytes (fewer when the content is shorter)."""
    parts: list[bytes] = []
    got = 0
    while got < image.HEADER_BYTES:
        chunk = read(image.HEADER_BYTES - got)
        if not chunk:
            break
        parts.append(chunk)
        got += len(chunk)
    return b"".join(parts)


def _open_source(url: str, params: dict[str, t.Any]) -> _Source:
    """Upstream's rules: http(s) is one GET that must answer 200 (size from Content-Length);
    anything else is a local file on the managed host (file:// stripped), not a directory.
    The file is opened once, and everything is read from that descriptor."""
    from . import decompress  # noqa: PLC0415 - only content from a source decompresses

    if url.startswith(("http://", "https://")):
        from ansible.module_utils.urls import open_url  # noqa: PLC0415 - only uploads need it

        try:
            response = open_url(url, timeout=params["url_timeout"], validate_certs=params["validate_certs"], follow_redirects="all")
        except Exception as exc:  # whatever urllib raises, only its safe facts are shown
            raise LibvirtError(f"Failed to Open URL: Could not open URL for upload: {_open_failure(exc)}") from None
        status = getattr(response, "status", None) or response.getcode()
        if status != 200:
            response.close()
            raise LibvirtError(f"Failed to Open URL: Could not open URL for upload: HTTP request failed with status {status}")
        length = response.headers.get("Content-Length")
        source = _Source(url, int(length) if length and length.isdigit() else None, response=response)
        try:
            source.head = _read_head(response.read)
            if decompress.detect(source.head):
                _decompressing(source, response.read, params)
        except LibvirtError:
            source.close()
            raise
        except Exception as exc:
            source.close()
            raise LibvirtError(f"Failed to Open URL: Could not read from URL for upload: {_open_failure(exc)}") from None
        source.image = image.inspect(source.head[: image.HEADER_BYTES], source.size)
        return source
    path = _local_path(url)
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused below).
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError as exc:
        raise LibvirtError(f"Failed to Open URL: Could not open URL for upload: failed to stat file: {exc}") from exc
    source = _Source(url, None, fd=fd)
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise LibvirtError(f"Failed to Open URL: Could not open URL for upload: path is a directory, not a file: {path}")
        if not stat.S_ISREG(info.st_mode):
            # A FIFO blocks the upload forever, a device (/dev/zero) never ends or reads as empty.
            raise LibvirtError(f"Failed to Open URL: Could not open URL for upload: not a regular file (a FIFO, socket or device): {path}")
        source.size = info.st_size
        source.head = _read_head(lambda n: os.read(fd, n))  # a fresh descriptor reads from byte 0
        if decompress.detect(source.head):
            _decompressing(source, lambda n: os.read(fd, n), params)
        source.image = image.inspect(source.head[: image.HEADER_BYTES], source.size)
    except OSError as exc:
        source.close()
        raise LibvirtError(f"Failed to Open URL: Could not open URL for upload: failed to read file: {exc}") from exc
    except BaseException:
        source.close()
        raise
    return source


# Without a capacity, compressed content is decompressed this far only (its head inspected);
# the capacity is then required (``_create``).
COMPRESSED_LIMIT = 1 << 40


def _decompressing(source: _Source, read: t.Callable[[int], bytes], params: dict[str, t.Any]) -> None:
    """Turn ``source``, whose head starts with a compression's magic, into its decompressed
    content: the size is unknown until the end, the head is the decompressed one (what the
    image rules inspect), and what follows is read through the reader. The checksum is over
    the compressed bytes, the file as published."""
    from . import decompress  # noqa: PLC0415 - only content from a source decompresses

    raw = [source.head]

    def read_raw(size: int) -> bytes:
        return raw.pop() if raw else read(size)

    checksum = _checksum(params)
    source.digest = Digest(checksum.algorithm) if checksum is not None else None
    wanted = _wanted_bytes(params)
    kind = decompress.detect(source.head) or ""
    source.reader = decompress.DecompressedReader(
        kind,
        read_raw,
        limit=wanted if wanted is not None else COMPRESSED_LIMIT,
        option="create.content.url",
        on_compressed=source.digest.update if source.digest is not None else None,
    )
    source.size = None
    source.head = _read_head_from(source.reader)


def _read_head_from(reader: decompress.DecompressedReader) -> bytes:
    """At least ``image.HEADER_BYTES`` decompressed bytes (fewer when the content is shorter);
    all of them are uploaded first."""
    parts: list[bytes] = []
    got = 0
    while got < image.HEADER_BYTES:
        chunk = reader.read()
        if not chunk:
            break
        parts.append(chunk)
        got += len(chunk)
    return b"".join(parts)


def _open_failure(exc: BaseException) -> str:
    """What went wrong opening a URL, without the text of the exception: urllib and http.client
    put parts of the URL in it, which can carry a user's password."""
    code = getattr(exc, "code", None)
    if isinstance(code, int):
        return f"HTTP request failed with status {code}"
    reason = getattr(exc, "reason", exc)
    strerror = getattr(reason, "strerror", None)
    if isinstance(strerror, str) and strerror:
        return f"{strerror} ({type(reason).__name__})"
    return f"the request failed ({type(reason).__name__})"


@dataclasses.dataclass
class _Clone:
    """The volume a new one is cloned from (``create.clone_from``), found complete before
    anything is created."""

    pool: str
    name: str
    volume: t.Any
    size: int  # its capacity: the clone's, as the size of a download is the upload's

    def close(self) -> None:
        pass


def _check_clone_from(params: dict[str, t.Any], desired: dict[str, t.Any]) -> None:
    """``create.clone_from`` as given, before libvirt sees anything."""
    clone = (params.get("create") or {}).get("clone_from")
    if clone is None:
        return
    for key in ("pool", "volume"):
        if not clone[key]:
            raise LibvirtValidationError(f"create.clone_from.{key}: must not be empty")
        check_one_line(f"create.clone_from.{key}", clone[key])
    if (clone["pool"], clone["volume"]) == (params["pool"], params["name"]):
        raise LibvirtValidationError(f"create.clone_from: volume '{params['name']}' in pool '{params['pool']}' cannot be cloned from itself")
    if desired.get("backing_store"):
        raise LibvirtValidationError(
            "create.clone_from: a clone is a full copy of its source and has no backing store; "
            "leave out backing_store, or make an overlay (backing_store without create)"
        )


def _fill_state(pool: t.Any, name: str) -> tuple[str, list[str]]:
    """Whether volume ``name`` of ``pool`` is complete: ``complete``, or ``running``, ``gone``
    or ``unknown`` (the run that fills it, or left it incomplete), with the markers that say so."""
    markers = [leftover for leftover in volume_markers.leftovers(name, pool.listVolumes()) if leftover.purpose == volume_markers.INCOMPLETE]
    states: dict[str, list[str]] = {}
    for leftover in markers:
        found = lookup_by_name(pool.storageVolLookupByName, leftover.name, "volume")
        if found is None or int(found.info()[1]) > volume_markers.MARKER_MAX_BYTES:
            continue  # gone meanwhile, or a volume of somebody's named like a marker
        states.setdefault(volume_markers.owner_state(leftover.run), []).append(leftover.name)
    for state in ("unknown", "running", "gone"):
        if state in states:
            return state, states[state]
    return "complete", []


def _open_clone(pool: t.Any, params: dict[str, t.Any], check_mode: bool, warnings: list[str]) -> _Clone:
    """The source of ``create.clone_from``: its pool active, the volume there and complete. A
    source another run is still filling is waited for (check mode does not wait); one a run
    left incomplete, or that a run elsewhere fills, is refused: its copy would be incomplete."""
    clone = params["create"]["clone_from"]
    where = f"volume '{clone['volume']}' in storage pool '{clone['pool']}'"
    source_pool = lookup_by_name(pool.connect().storagePoolLookupByName, clone["pool"], "storage pool")
    if source_pool is None:
        raise LibvirtValidationError(f"create.clone_from.pool: storage pool '{clone['pool']}' not found")
    if not source_pool.isActive():
        raise LibvirtValidationError(f"create.clone_from.pool: storage pool '{clone['pool']}' is not active: start it first")
    while True:
        volume = lookup_by_name(source_pool.storageVolLookupByName, clone["volume"], "volume")
        if volume is None:
            raise LibvirtValidationError(f"create.clone_from.volume: volume '{clone['volume']}' not found in storage pool '{clone['pool']}'")
        state, markers = _fill_state(source_pool, clone["volume"])
        if state == "complete":
            break
        if state == "gone":
            raise LibvirtError(
                f"create.clone_from: {where} was left incomplete by an interrupted run (marker {', '.join(markers)}): "
                "run the task that fills it again (it makes it anew), then clone it"
            )
        if state == "unknown":
            raise LibvirtError(
                f"create.clone_from: {where} is being filled by a run on another host or container, or was left incomplete "
                f"by one ({', '.join(markers)}): wait for that run to end; if none is running, delete {', '.join(markers)} "
                f"and '{clone['volume']}' and fill it again"
            )
        if check_mode:
            warnings.append(f"create.clone_from: {where} is being filled by another run: a real run waits for it")
            break
        time.sleep(POLL_SECONDS)
    return _Clone(clone["pool"], clone["volume"], volume, int(volume.info()[1]))


class _CloneLeftoverError(LibvirtError):
    """A failed clone left a volume under the name that could not be deleted: the marker stays,
    so no run takes it for complete."""


def _clone_volume(pool: t.Any, spec: dict[str, t.Any], source: _Clone) -> t.Any:
    """libvirt's copy of ``source`` (converted to the format of ``spec``) under the name of ``spec``."""
    try:
        return pool.createXMLFrom(schema.serialize(schema.build(STRUCT, spec)), source.volume, 0)
    except libvirt.libvirtError as exc:
        error = exc
    left = lookup_by_name(pool.storageVolLookupByName, spec["name"], "volume")
    # The name was taken (createXMLFrom says so in words: "already in use" in libvirt 9, "already
    # exists" elsewhere): another run made the volume a moment ago.
    if left is not None and _NAME_TAKEN.search(str(error)):
        raise _RaceLostError from error
    # Else what is there is this run's: libvirt deletes a copy that failed, but a daemon that
    # stopped half-way may leave one.
    if left is not None:
        try:
            left.delete(0)
        except libvirt.libvirtError as exc:
            raise _CloneLeftoverError(
                f"Volume Clone Failed: Failed to clone volume '{source.name}' of pool '{source.pool}': {error}; "
                f"what was copied into '{spec['name']}' could not be deleted ({exc}): it stays marked incomplete"
            ) from error
    raise LibvirtError(f"Volume Clone Failed: Failed to clone volume '{source.name}' of pool '{source.pool}': {error}") from error


class _RaceLostError(Exception):
    """Another run created the volume at the same moment: look at it again."""


@contextlib.contextmanager
def _finished_or_aborted(stream: t.Any) -> t.Iterator[None]:
    """The upload ``stream`` finished when the block completes, aborted when anything is raised
    in it (the volume then stays marked incomplete and is removed, never taken for whole)."""
    try:
        yield
        stream.finish()
    except BaseException:
        with contextlib.suppress(libvirt.libvirtError):
            stream.abort()
        raise


def _stream_response(volume: t.Any, source: _Source, verifier: _Verifier | None) -> None:
    """HTTP body into the volume, in the chunk size the research measured as fast: the head
    already read and inspected first, then the rest. http.client ends a body cut short by the
    server like a complete one (read() returns b""), so the bytes are counted against
    Content-Length before the stream is finished."""
    stream = volume.connect().newStream(0)
    with _finished_or_aborted(stream):
        volume.upload(stream, 0, 0, 0)
        received = 0
        data = source.head
        while True:
            if not data:
                data = source.response.read(STREAM_CHUNK_SIZE)
                if not data:
                    break
            received += len(data)
            if verifier is not None:
                verifier.digest.update(data)
            view = memoryview(data)
            while view:
                sent = stream.send(bytes(view[:STREAM_CHUNK_SIZE]))
                view = view[sent:]
            data = b""
        if source.size is not None and received != source.size:
            raise LibvirtError(f"the download ended after {received} of {source.size} bytes (Content-Length): the connection was cut")
        if verifier is not None:
            verifier.check()


def _format(spec: dict[str, t.Any]) -> str | None:
    return ((spec.get("target") or {}).get("format") or {}).get("type")


def _stream_decompressed(volume: t.Any, source: _Source, verifier: _Verifier | None, *, sparse: bool) -> None:
    """Compressed content into the volume as it is decompressed: the decompressed head first,
    then the rest, whole 4 KiB blocks of zeros sent as holes with ``sparse`` (only into a new
    raw volume, which reads as zeros there; falls back to sending them where the daemon cannot).
    The reader refuses content cut short, trailing garbage and more than the capacity; the
    checksum of the compressed bytes is checked before the stream is finished."""
    if source.reader is None:  # only a compressed source is streamed here
        raise LibvirtError("internal error: compressed content without its reader")
    conn = volume.connect()
    stream = conn.newStream(0)
    try:
        volume.upload(stream, 0, 0, _VOL_UPLOAD_SPARSE_STREAM if sparse else 0)
    except libvirt.libvirtError as exc:
        with contextlib.suppress(libvirt.libvirtError):
            stream.abort()
        if not (sparse and is_unsupported(exc)):
            raise
        sparse = False
        stream = conn.newStream(0)
        volume.upload(stream, 0, 0, 0)
    with _finished_or_aborted(stream):
        data = source.head
        while data:
            for in_data, start, end in head_sections(data, sparse=sparse):
                if not in_data:
                    stream.sendHole(end - start)
                    continue
                for pos in range(start, end, STREAM_CHUNK_SIZE):
                    _send_all(stream, data[pos : min(pos + STREAM_CHUNK_SIZE, end)])
            data = source.reader.read()
        if verifier is not None:
            verifier.check()


_VOL_UPLOAD_SPARSE_STREAM = 1  # VIR_STORAGE_VOL_UPLOAD_SPARSE_STREAM


def _send_all(stream: t.Any, data: bytes) -> None:
    view = memoryview(data)
    while view:
        sent = stream.send(bytes(view))
        if sent is None or sent < 0:
            raise LibvirtError(f"the stream refused data (virStreamSend returned {sent})")
        view = view[sent:]


_CHECKSUM = re.compile(r"(sha256|sha384|sha512):([0-9a-fA-F]+)")
_HEX_DIGITS = {"sha256": 64, "sha384": 96, "sha512": 128}


class _Checksum(t.NamedTuple):
    """A digest as ``create.content.checksum`` gives it; ``str()`` is ``algorithm:hex``, as the
    results and the digest records write it."""

    algorithm: str
    hex: str

    def __str__(self) -> str:
        return f"{self.algorithm}:{self.hex}"


def _checksum(params: dict[str, t.Any]) -> _Checksum | None:
    """``create.content.checksum`` with its hex digits in lower case, checked before anything."""
    value = ((params.get("create") or {}).get("content") or {}).get("checksum")
    if value is None:
        return None
    match = _CHECKSUM.fullmatch(value)
    if match is None or len(match[2]) != _HEX_DIGITS[match[1]]:
        raise LibvirtValidationError(f"create.content.checksum: must be sha256:<64 hex digits> (or sha384:, sha512:), got {value[:200]!r}")
    return _Checksum(match[1], match[2].lower())


class _Verifier:
    """The digest of what an upload sends, and the check of it against the checksum, made
    before the stream is finished: on a mismatch the stream is aborted and the volume deleted."""

    def __init__(self, checksum: _Checksum, shown: str, digest: Digest | None = None) -> None:
        self.checksum = checksum
        self.digest = digest if digest is not None else Digest(checksum.algorithm)
        self.shown = shown

    def check(self) -> None:
        actual = _Checksum(self.checksum.algorithm, self.digest.hexdigest())
        if actual != self.checksum:
            raise _ChecksumMismatchError(f"create.content.checksum: the content read from {self.shown} has {actual}, not {self.checksum}: nothing was made")


def _verify_file(source: _Source | _Clone | None, params: dict[str, t.Any]) -> None:
    """Check mode: a local file's checksum is verified by reading the file (nothing is
    written), so that a check run fails where the real run's upload would. A URL is not
    downloaded for it: its checksum is checked by the real run's upload only."""
    checksum = _checksum(params)
    if checksum is None or not isinstance(source, _Source) or source.fd is None:
        return
    verifier = _Verifier(checksum, source.shown)
    offset = 0
    while chunk := os.pread(source.fd, 1 << 20, offset):
        verifier.digest.update(chunk)
        offset += len(chunk)
    verifier.check()


class _ChecksumMismatchError(LibvirtValidationError):
    """The content is not what the checksum says."""


def _stamp(volume: t.Any) -> dict[str, str] | None:
    """What says the volume's content is unchanged (None when libvirt gives no change time
    for it: a volume that is not a file)."""
    tree = schema.parse(volume.XMLDesc(0))
    # Not the allocation: a file system that allocates on writeback changes it on its own.
    stamp = {key: tree.findtext(f"target/timestamps/{key}") or "" for key in ("mtime", "ctime")}
    stamp["capacity"] = tree.findtext("capacity") or ""
    return stamp if all(stamp.values()) else None


def _remember_digest(volume: t.Any, digest: str, *, lived: bool = False) -> None:
    from . import digest_records  # noqa: PLC0415 - a no-op without a checksum needs no record

    with contextlib.suppress(libvirt.libvirtError):
        digest_records.remember(digest_records.volume_identity(volume), _stamp(volume) or {}, digest, lived=lived)


def _record_lived(volume: t.Any) -> None:
    """The volume grew: a record of the content it was made from stays, its bytes are since its guest's."""
    from . import digest_records  # noqa: PLC0415 - a no-op without a checksum needs no record

    with contextlib.suppress(libvirt.libvirtError):
        record = digest_records.recorded(digest_records.volume_identity(volume))
        if record is not None and not record.lived:
            _remember_digest(volume, record.digest, lived=True)


def _forget_digest(volume: t.Any) -> None:
    from . import digest_records  # noqa: PLC0415 - a no-op without a checksum needs no record

    with contextlib.suppress(libvirt.libvirtError):
        digest_records.forget(digest_records.volume_identity(volume))


def _writers(volume: t.Any, params: dict[str, t.Any]) -> list[volume_users.DiskUse]:
    """The disks of the host's domains (running or not) that write to the volume."""
    from . import volume_users  # noqa: PLC0415 - only growing a volume asks who uses it

    ref = volume_users.VolumeRef(_volume_file(volume), params["pool"], params["name"])
    return [use for use in volume_users.volume_users(volume.connect(), ref, running_only=False) if use.writable]


def _grown(saved: dict[str, str], stamp: dict[str, str] | None) -> bool:
    """Larger than when its digest was last verified."""
    with contextlib.suppress(KeyError, TypeError, ValueError):
        return int(stamp["capacity"]) > int(saved["capacity"])  # type: ignore[index]
    return False


def _content_problem(volume: t.Any, params: dict[str, t.Any], checksum: _Checksum) -> str | None:
    """Why the volume is not the content of ``create.content.checksum``, or None.

    The checksum says what a volume was made from: it is verified over the bytes uploaded, and
    recorded. Later, a volume of that record whose bytes nobody writes (a base image) is the
    same content while its size and times are unchanged, and is read back when they changed; a
    volume that lived - a writable disk of a domain of the host, or grown - holds what its
    guest wrote and is not compared again. A volume without a record is read back once."""
    from . import digest_records  # noqa: PLC0415 - a no-op without a checksum needs no record

    try:
        identity = digest_records.volume_identity(volume)
        stamp = _stamp(volume)
    except libvirt.libvirtError as exc:
        raise LibvirtError(f"Failed to read volume '{params['name']}': {exc}") from exc
    record = digest_records.recorded(identity)
    if record is not None and record.digest.partition(":")[0] == checksum.algorithm:
        if record.digest != str(checksum):
            return f"was made from content of {record.digest}, not {checksum}"
        if record.lived or (stamp is not None and record.stamp == stamp):
            return None
        if _grown(record.stamp, stamp) or _writers(volume, params):
            digest_records.remember(identity, stamp or {}, str(checksum), lived=True)
            return None
    else:
        writers = _writers(volume, params)
        if writers:
            raise LibvirtValidationError(
                f"create.content.checksum: volume '{params['name']}' in pool '{params['pool']}' is {writers[0].shown}, so it holds "
                f"what its guest wrote, and no record of this host says it was made from {checksum} (records are kept in "
                f"{digest_records.location()} by the user who runs the module): leave out create.content.checksum to take it as it is"
            )
    if digest_volume(volume, checksum.algorithm) != checksum.hex:
        return f"does not hold the content of {checksum}" + (" (it changed since it was verified)" if record is not None else "")
    digest_records.remember(identity, stamp or {}, str(checksum))
    return None


def describe_volume(volume: t.Any, pool_name: str) -> dict[str, t.Any]:
    described = schema.read(STRUCT, schema.parse(volume.XMLDesc(0)))
    # The file's times change with every read: an output beside the options, not one of
    # target's (fed back, target then compares equal).
    timestamps = (described.get("target") or {}).pop("timestamps", None)
    described.update(key=volume.key(), path=volume.path(), pool=pool_name)
    if timestamps is not None:
        described["timestamps"] = timestamps
    return described


def _wanted_bytes(params: dict[str, t.Any]) -> int | None:
    """The capacity asked for in bytes: an integer in capacity_unit (bytes without it) or a
    string with its unit (10GiB), refused naming the option when libvirt would not take it."""
    if params["capacity"] is None:
        return None
    number, unit = split_size(params["capacity"], path="capacity")
    if unit is not None and params["capacity_unit"] is not None:
        raise LibvirtValidationError(f"capacity: {params['capacity']!r} carries its unit, so capacity_unit must not be given too")
    size = to_bytes(number, unit or params["capacity_unit"], path="capacity_unit")
    if size > ULONG_MAX:
        raise LibvirtValidationError(f"capacity: {params['capacity']!r} is more than libvirt takes ({ULONG_MAX} bytes)")
    return size


def _mark(pool: t.Any, name: str, run: str | None) -> t.Any:
    """The empty marker that says ``name`` is being filled by this run. A pool that cannot
    hold an empty volume gets the smallest it can; one that cannot hold a marker at all
    cannot take content: a run killed mid-upload would leave a volume taken as complete."""
    if run is None:
        raise LibvirtError(f"Volume Upload Failed: cannot mark '{name}' as being filled: this host's /proc does not tell runs apart")
    marker = volume_markers.volume_name(name, volume_markers.INCOMPLETE, run)
    error = None
    for capacity in (0, 1):
        xml = schema.serialize(schema.build(STRUCT, {"name": marker, "capacity": capacity, "capacity_unit": "bytes"}))
        try:
            return pool.createXML(xml, 0)
        except libvirt.libvirtError as exc:
            error = exc
    raise LibvirtError(f"Volume Upload Failed: cannot create the marker volume '{marker}' that says '{name}' is being filled: {error}")


def _delete_quietly(volume: t.Any) -> None:
    if volume is not None:
        with contextlib.suppress(libvirt.libvirtError):
            _delete(volume)


def _grow(volume: t.Any, wanted: int | None) -> bool:
    """Grow a new volume to a larger capacity than its content; whether it did."""
    if wanted is not None and wanted > volume.info()[1]:
        volume.resize(wanted, 0)
        return True
    return False


def _create_volume(pool: t.Any, spec: dict[str, t.Any]) -> t.Any:
    try:
        return pool.createXML(schema.serialize(schema.build(STRUCT, spec)), 0)
    except libvirt.libvirtError as exc:
        if lookup_by_name(pool.storageVolLookupByName, spec["name"], "volume") is not None:
            raise _RaceLostError from exc  # another run made it a moment ago
        raise LibvirtError(f"Volume Creation Failed: Failed to create storage volume: {exc}") from exc


def _fill(pool: t.Any, spec: dict[str, t.Any], source: _Source | _Clone | None, params: dict[str, t.Any], *, run: str | None, mark: bool) -> t.Any:
    """Create the volume of ``spec`` and write the content into it (a clone: libvirt copies it);
    on failure nothing is left, or what is left stays marked incomplete."""
    marker = _mark(pool, spec["name"], run) if mark and source is not None else None
    try:
        volume = _clone_volume(pool, spec, source) if isinstance(source, _Clone) else _create_volume(pool, spec)
    except _CloneLeftoverError:
        raise  # its marker stays: the next run makes it anew
    except BaseException:
        _delete_quietly(marker)
        raise
    checksum = _checksum(params)
    verifier = _Verifier(checksum, source.shown, source.digest) if checksum is not None and isinstance(source, _Source) else None
    try:
        if isinstance(source, _Source) and source.reader is not None:
            _stream_decompressed(volume, source, verifier, sparse=params["sparse"] is not False and _format(spec) == "raw")
        elif isinstance(source, _Source) and source.fd is not None:
            _upload_local(pool, volume, source, source.fd, params, verifier)
        elif isinstance(source, _Source):
            _stream_response(volume, source, verifier)
        grown = _grow(volume, _wanted_bytes(params))
    except _ChecksumMismatchError:
        _delete_quietly(volume)
        _delete_quietly(marker)
        raise
    except (libvirt.libvirtError, LibvirtError, OSError) as exc:
        # An upload that fails leaves no volume behind (upstream deletes it too).
        _delete_quietly(volume)
        _delete_quietly(marker)
        if isinstance(source, _Clone):
            raise LibvirtError(f"Volume Clone Failed: the clone of '{source.name}' could not be grown to the capacity asked for: {exc}") from exc
        raise LibvirtError(f"Volume Upload Failed: Failed to upload content to volume: {exc}") from exc
    _delete_quietly(marker)
    if verifier is not None:
        # Grown, its bytes are no longer those of the content: never compared again.
        _remember_digest(volume, str(verifier.checksum), lived=grown)
    else:
        _forget_digest(volume)  # a record of a volume of its key that was deleted by other means
    return volume


def _upload_local(pool: t.Any, volume: t.Any, source: _Source, fd: int, params: dict[str, t.Any], verifier: _Verifier | None) -> None:
    """A local file into the new volume: copied straight into the volume's file when the daemon
    runs on this host and the pool keeps its volumes as files (the kernel copies, as cp does),
    streamed through libvirt otherwise."""
    size = source.size or 0  # a local file's size is known (fstat)
    how: dict[str, t.Any] = {
        "head": source.head,
        "sparse": params["sparse"],
        "digest": verifier.digest if verifier else None,
        "before_finish": verifier.check if verifier else None,
    }
    target = _same_host_file(pool, volume)
    if target is not None:
        # The copy declines before it writes or feeds the digest anything.
        with contextlib.suppress(NotTheVolumeFileError):
            copy_fd_into_file(target[0], fd, size, is_volume_file=target[1], **how)
            return
    upload_fd(volume, fd, size, label=_local_path(source.url), **how)


def _same_host_file(pool: t.Any, volume: t.Any) -> tuple[str, t.Callable[[os.stat_result], bool]] | None:
    """The volume's file, and how to recognise it (the modification and change times libvirt
    reports for it, to the nanosecond), when the daemon may run on this host and the pool keeps
    volumes as files; else None."""
    try:
        if not _files_of_this_host(pool):
            return None
        tree = schema.parse(volume.XMLDesc(0))
        path = volume.path()
    except libvirt.libvirtError:
        return None
    times = [_nanoseconds(tree.findtext(f"target/timestamps/{key}")) for key in ("mtime", "ctime")]
    if not os.path.isabs(path) or None in times:
        return None
    return path, lambda info: [info.st_mtime_ns, info.st_ctime_ns] == times


def _files_of_this_host(pool: t.Any) -> bool:
    """Whether the pool keeps its volumes as files of its directory and its daemon may run on
    this host (no host, no remote transport in the URI). Raises libvirtError."""
    uri = urllib.parse.urlsplit(pool.connect().getURI())
    if uri.hostname or uri.scheme.partition("+")[2] not in ("", "unix"):
        return False
    return schema.parse(pool.XMLDesc(0)).get("type") in ("dir", "fs")


def _nanoseconds(value: str | None) -> int | None:
    """libvirt's ``<seconds>.<nanoseconds>`` as nanoseconds."""
    match = re.fullmatch(r"([0-9]{1,20})(?:\.([0-9]{1,9}))?", value or "")
    if match is None:
        return None
    return int(match[1]) * 1_000_000_000 + int((match[2] or "0").ljust(9, "0"))


def _swap(pool: t.Any, spec: dict[str, t.Any], staging: t.Any, existing: t.Any, params: dict[str, t.Any], run: str | None) -> tuple[t.Any, bool]:
    """Replace ``existing`` by a copy of the complete ``staging`` volume under the name;
    returns it and whether it was grown beyond the content."""
    marker = _mark(pool, spec["name"], run)
    try:
        _delete(existing)
    except libvirt.libvirtError as exc:
        _delete_quietly(marker)
        raise LibvirtError(f"Failed to Delete Volume: Could not delete storage volume: {exc}") from exc
    try:
        volume = pool.createXMLFrom(schema.serialize(schema.build(STRUCT, spec)), staging, 0)
        grown = _grow(volume, _wanted_bytes(params))
    except libvirt.libvirtError as exc:
        # The name is this run's (its marker says so): what is there now is its half-made copy.
        _delete_quietly(lookup_by_name(pool.storageVolLookupByName, spec["name"], "volume"))
        _delete_quietly(marker)
        raise LibvirtError(f"Volume Replacement Failed: the new content was uploaded but could not be copied into '{spec['name']}': {exc}") from exc
    _delete_quietly(marker)
    return volume, grown


def _create(
    pool: t.Any, params: dict[str, t.Any], desired: dict[str, t.Any], check_mode: bool, run: str | None, warnings: list[str], existing: t.Any = None
) -> dict[str, t.Any]:
    """Create the volume (and fill it), in place of ``existing`` when there is one; returns what it is."""
    create = params.get("create") or {}
    url = (create.get("content") or {}).get("url")
    wanted = _wanted_bytes(params)
    # Opened before anything is deleted: an unreachable source costs the old volume nothing.
    source: _Source | _Clone | None = None
    if url:
        source = _open_source(url, params)
    elif create.get("clone_from"):
        source = _open_clone(pool, params, check_mode, warnings)
    try:
        if isinstance(source, _Source):
            desired = _check_content(pool, params, desired, source)
        elif isinstance(source, _Clone):
            _check_clone_content(pool, params, source)
        else:
            _check_overlay_base(pool, desired)
        if source is not None:
            # Upstream: the stream's size wins; the capacity option only when the size is unknown.
            # A clone is the size of its source; a larger capacity grows it afterwards.
            capacity = source.size if source.size is not None else wanted
            if capacity is None and isinstance(source, _Source) and source.reader is not None:
                raise LibvirtValidationError(
                    f"Missing Capacity: capacity is required for {source.reader.kind}-compressed content: its size is known only "
                    "once it is decompressed; give a capacity the decompressed image fits into (more is refused)"
                )
            if capacity is None:
                raise LibvirtValidationError("Missing Capacity: Volume capacity is required when the upload source does not provide Content-Length")
        elif wanted is None:
            raise LibvirtValidationError("Missing Capacity: Volume capacity is required when not uploading from a URL")
        else:
            capacity = wanted
        spec = {**desired, "capacity": capacity, "capacity_unit": "bytes"}
        schema.build(STRUCT, spec)
        if check_mode:
            _verify_file(source, params)
            return {**spec, "pool": params["pool"]}
        if existing is not None and source is None:
            # Without content there is nothing to lose in between: delete, then create.
            _delete_or_fail(existing, "storage volume")
            existing = None
        if existing is None:
            return _described(_fill(pool, spec, source, params, run=run, mark=True), params)
        # New content goes into a staging volume first (a copy costs time and space, losing
        # the volume to a cut download costs more); only a complete upload replaces it.
        if run is None:
            raise LibvirtError(f"Volume Replacement Failed: cannot stage the new content of '{spec['name']}': this host's /proc does not tell runs apart")
        staging_name = volume_markers.volume_name(spec["name"], volume_markers.STAGING, run)
        staging = _fill(pool, {**spec, "name": staging_name}, source, params, run=run, mark=False)
        try:
            volume, grown = _swap(pool, spec, staging, existing, params, run)
            checksum = _checksum(params)
            if checksum is not None:  # the staging copy was verified; the swap copied it
                _remember_digest(volume, str(checksum), lived=grown)
            return _described(volume, params)
        finally:
            _delete_quietly(staging)
    finally:
        if source is not None:
            source.close()


def _described(volume: t.Any, params: dict[str, t.Any]) -> dict[str, t.Any]:
    """The volume as the module returns it; with the checksum it was verified against."""
    described = describe_volume(volume, params["pool"])
    checksum = _checksum(params)
    if checksum is not None:
        described["content_checksum"] = str(checksum)
    return described


def _refuse_references(pool: t.Any, params: dict[str, t.Any], found: image.Image, option: str, where: str, top: str | None = None) -> None:
    """An image naming a file of the host is refused; a backing file that is a volume of a pool
    only with ``create.allow_backing_in_pool``, and only when the whole chain below it is made
    of volumes of pools (relative names resolve in the pool the volume is in). ``top``: the
    image's own file, when it has one."""
    if found.unsafe or found.references:
        allow = bool((params.get("create") or {}).get("allow_backing_in_pool"))
        image.refuse_references(found, option, where, target_paths(pool.connect()), allow_in_pool=allow, base_dir=target_path(pool), top=top)


def _check_content(pool: t.Any, params: dict[str, t.Any], desired: dict[str, t.Any], source: _Source) -> dict[str, t.Any]:
    """The content of ``create.content.url`` as inspected from its first bytes: what it names
    refused, its format checked against ``target.format.type`` or taken as that when not given."""
    _refuse_references(pool, params, source.image, "create.content.url", source.shown, top=_local_path(source.url) if source.fd is not None else None)
    target = desired.get("target") or {}
    encrypted = ((target.get("encryption") or {}).get("format") or "") == "luks"
    given = (target.get("format") or {}).get("type")
    if given:
        image.check_format(source.image, given, "target.format.type", source.shown, encrypted=encrypted)
        return desired
    detected = image.volume_format_for(source.image, "create.content.url", source.shown, encrypted=encrypted)
    return {**desired, "target": {**target, "format": {"type": detected}}}


def _check_overlay_base(pool: t.Any, desired: dict[str, t.Any]) -> None:
    """The base of an overlay that is a volume of a pool, and the chain below it, follow the
    rules of a backing chain (``image.refuse_references``): its format is the one
    ``backing_store.format.type`` gives, every further link a volume of a pool. A base outside
    every pool is only warned about (``_backing_warnings``): it is the user's own choice."""
    backing = desired.get("backing_store") or {}
    pools = target_paths(pool.connect())
    base_dir = target_path(pool)
    if not backing.get("path") or image.pool_file(backing["path"], base_dir, pools) is None:
        return
    overlay = image.Image(
        ((desired.get("target") or {}).get("format") or {}).get("type") or "qcow2",
        references=(image.Reference("backing file", backing["path"]),),
        backing_format=(backing.get("format") or {}).get("type"),
    )
    image.refuse_references(overlay, "backing_store.path", f"the overlay '{desired['name']}'", pools, allow_in_pool=True, base_dir=base_dir)


def _inspect_volume(volume: t.Any) -> image.Image:
    """What a volume's content is, from its first bytes; where the driver cannot stream a
    volume (libvirt's test driver), from what libvirt read of its header instead."""
    try:
        return image.inspect(read_volume_head(volume, image.HEADER_BYTES), int(volume.info()[1]))
    except LibvirtError as exc:
        if exc.__cause__ is None or not is_unsupported(exc.__cause__):
            raise
    tree = schema.parse(volume.XMLDesc(0))
    backing = tree.findtext("backingStore/path")
    declared = tree.find("target/format")
    kind = declared.get("type") if declared is not None and declared.get("type") else "raw"
    backing_format = tree.find("backingStore/format")
    return image.Image(
        kind,
        references=(image.Reference("backing file", backing),) if backing else (),
        backing_format=backing_format.get("type") if backing and backing_format is not None else None,
    )


def _volume_file(volume: t.Any) -> str | None:
    with contextlib.suppress(libvirt.libvirtError):
        path = volume.path()
        return path if isinstance(path, str) and os.path.isabs(path) else None
    return None


def _check_clone_content(pool: t.Any, params: dict[str, t.Any], source: _Clone) -> None:
    """The source of a clone, inspected from its first bytes as an upload is: libvirt's copy
    (qemu-img convert) would read whatever file its header names into the new volume."""
    where = f"volume '{source.name}' of storage pool '{source.pool}'"
    found = _inspect_volume(source.volume)
    _refuse_references(source.volume.storagePoolLookupByVolume(), params, found, "create.clone_from.volume", where, top=_volume_file(source.volume))
    declared = schema.parse(source.volume.XMLDesc(0)).find("target/format")
    if declared is not None and declared.get("type"):
        image.check_format(found, declared.get("type"), "create.clone_from.volume", f"{where} (stored as {declared.get('type')})")


def _settle(pool: t.Any, name: str, volume: t.Any, check_mode: bool, warnings: list[str]) -> tuple[t.Any, bool]:
    """Wait while another run fills the volume, then clean up after runs that died filling it.
    Returns the volume (None when it was incomplete) and whether another run is still at it
    (check mode does not wait)."""
    while True:
        others = volume_markers.leftovers(name, pool.listVolumes())
        states = {leftover: volume_markers.owner_state(leftover.run) for leftover in others}
        unknown = [leftover.name for leftover, owner in states.items() if owner == "unknown"]
        if unknown:
            raise LibvirtError(
                f"volume '{name}' is being filled by a run on another host or container, or was left incomplete by one "
                f"({', '.join(unknown)}): wait for that run to end; if none is running, delete {', '.join(unknown)} and '{name}'"
            )
        if "running" not in states.values():
            break
        if check_mode:
            warnings.append(f"volume '{name}' is being filled by another run: its content is not known yet")
            return volume, True
        time.sleep(POLL_SECONDS)
        volume = lookup_by_name(pool.storageVolLookupByName, name, "volume")
    for leftover in others:  # their runs are gone
        found = lookup_by_name(pool.storageVolLookupByName, leftover.name, "volume")
        if found is None:
            continue
        if leftover.purpose == volume_markers.INCOMPLETE:
            if int(found.info()[1]) > volume_markers.MARKER_MAX_BYTES:
                continue  # holds data: a volume of somebody's, not a marker of ours
            warnings.append(f"volume '{name}' was left incomplete by an interrupted run (marker {leftover.name}): it is made anew")
            if not check_mode:
                if volume is not None:
                    _delete_or_fail(volume, f"the incomplete volume '{name}'")
                _delete_or_fail(found, f"the marker {leftover.name}")
            volume = None
        elif not check_mode:
            _delete_or_fail(found, f"the staging volume {leftover.name} of an interrupted replacement")
    return volume, False


def _delete(volume: t.Any) -> None:
    """Delete the volume. libvirt takes a file whose content is a parallels image for a ploop
    volume, a directory, and fails to delete it ("Not a directory"): an earlier version uploaded
    such images as raw, and a guest can write one into its disk. That file is removed here when
    the daemon runs on this host and it is the volume's own regular file in the pool's directory;
    the pool is then read again. Its digest record goes with it."""
    from . import digest_records  # noqa: PLC0415 - a no-op without a checksum needs no record

    try:
        identity = digest_records.volume_identity(volume)
    except libvirt.libvirtError:
        identity = None
    try:
        volume.delete(0)
    except libvirt.libvirtError:
        if not _delete_ploop_file(volume):
            raise
    if identity is not None:
        digest_records.forget(identity)  # the record goes with the volume


def _delete_ploop_file(volume: t.Any) -> bool:
    try:
        declared = schema.parse(volume.XMLDesc(0)).find("target/format")
        pool = volume.storagePoolLookupByVolume()
    except libvirt.libvirtError:
        return False
    if declared is None or declared.get("type") != "ploop":
        return False
    target, directory = _same_host_file(pool, volume), target_path(pool)
    if target is None or directory is None:
        return False
    path, is_volume_file = target
    try:
        info = os.lstat(path)
        if not stat.S_ISREG(info.st_mode) or not is_volume_file(info):
            return False
        if os.path.realpath(os.path.dirname(path)) != os.path.realpath(directory):
            return False
        os.unlink(path)
    except OSError:
        return False
    with contextlib.suppress(libvirt.libvirtError):
        pool.refresh(0)
    return True


def _delete_or_fail(volume: t.Any, what: str) -> None:
    try:
        _delete(volume)
    except libvirt.libvirtError as exc:
        raise LibvirtError(f"Failed to Delete Volume: Could not delete {what}: {exc}") from exc


def _wipe_or_fail(volume: t.Any, algorithm: str) -> None:
    """Overwrite the volume's data before it is deleted; a failed wipe keeps the volume."""
    try:
        volume.wipePattern(wipe_algorithm(algorithm), 0)
    except libvirt.libvirtError as exc:
        raise LibvirtError(f"Failed to Wipe Volume: Could not wipe storage volume with wipe: {algorithm} (it is kept): {exc}") from exc


def _pool_problem(pool: t.Any, name: str) -> str | None:
    """Why volumes cannot be made in the pool found under ``name`` (None when found), if so."""
    if pool is None:
        return f"Pool Not Found: Storage pool '{name}' not found"
    if not pool.isActive():
        return f"storage pool '{name}' is not active: start it first (libvirt_pool running: true)"
    return None


def ensure_volume(conn: t.Any, params: dict[str, t.Any], check_mode: bool) -> Outcome:
    if params.get("xml"):
        desired = options_from_xml(params, STRUCT, [*SCHEMA_SPEC, "capacity", "capacity_unit"], "volume")
        # The capacity goes the way the option's goes (a volume only grows in place).
        params["capacity"], params["capacity_unit"] = desired.pop("capacity", None), desired.pop("capacity_unit", None)
    else:
        desired = schema.options_of(STRUCT, {key: params.get(key) for key in SCHEMA_SPEC})
    desired["name"] = params["name"]
    if desired.get("backing_store") and not (desired.get("target") or {}).get("format"):
        # An overlay needs a format that has a backing file; libvirt's default (raw, in a dir
        # pool) refuses one. Upstream passes no format and fails the same way.
        desired["target"] = {**(desired.get("target") or {}), "format": {"type": "qcow2"}}
    wanted = _wanted_bytes(params)
    # bad input fails here, before anything is touched (the capacity in bytes in its range too)
    schema.build(STRUCT, {**desired, "capacity": wanted, "capacity_unit": "bytes"} if wanted is not None else desired)
    if params["url_timeout"] <= 0:
        raise LibvirtValidationError(f"url_timeout: must be 1 or more seconds, got {params['url_timeout']}")
    _check_clone_from(params, desired)
    _checksum(params)
    pool = lookup_by_name(conn.storagePoolLookupByName, params["pool"], "storage pool")
    if params["state"] == "absent" and pool is None:
        # The pool went first (a teardown in reverse order): its volumes went with it.
        return Outcome(False, {}, {}, {})
    problem = _pool_problem(pool, params["pool"])
    if problem is not None:
        if not check_mode or params["state"] != "present":
            raise LibvirtError(problem)
        # A pool an earlier task of this run makes or starts (libvirt_host, libvirt_pool): the
        # volume is planned as the real run would make it there.
        after = {**desired, **({"capacity": wanted, "capacity_unit": "bytes"} if wanted is not None else {})}
        return Outcome(True, {"name": params["name"], "pool": params["pool"]}, {}, after, warnings=[not_there_yet(problem)])
    run = volume_markers.run_id()
    for _attempt in range(_ATTEMPTS - 1):
        with contextlib.suppress(_RaceLostError):
            return _ensure(pool, params, desired, check_mode, run)
    try:
        return _ensure(pool, params, desired, check_mode, run)
    except _RaceLostError:
        raise LibvirtError(f"Volume Creation Failed: other runs made volume '{params['name']}' each time this one tried") from None


def _ensure(pool: t.Any, params: dict[str, t.Any], desired: dict[str, t.Any], check_mode: bool, run: str | None) -> Outcome:
    name = params["name"]
    wanted = _wanted_bytes(params)
    warnings: list[str] = _backing_warnings(pool, params, desired)
    found, adopted = _find(pool, params)
    volume, busy = _settle(pool, name, found, check_mode, warnings)
    if busy:  # check mode, another run at it: whatever it makes, this run could not tell now
        return Outcome(True, {"name": name, "pool": params["pool"]}, {}, {}, warnings=warnings)

    if params["state"] == "absent":
        if volume is None:
            return Outcome(found is not None, {}, {}, {}, warnings=warnings)
        removed = describe_volume(volume, params["pool"])
        if not check_mode:
            if params.get("wipe"):
                _wipe_or_fail(volume, params["wipe"])
            _delete_or_fail(volume, "storage volume")
        return Outcome(True, removed, removed, {})

    after = {**desired, **({"capacity": wanted, "capacity_unit": "bytes"} if wanted is not None else {})}
    if volume is None:
        created = _create(pool, params, desired, check_mode, run, warnings)
        return Outcome(True, created, {}, _with_detected_format(after, desired, created), warnings=warnings)

    if adopted or params.get("create"):
        # Content never names a file of the host, however it got there (by hand, or made by
        # an older version); the first bytes are read again on every run (a few milliseconds).
        _check_existing_content(pool, params, volume, adopted, warnings)
    current = schema.read(STRUCT, schema.parse(volume.XMLDesc(0)), like=desired)
    paths = schema.compare(STRUCT, desired, current)
    checksum = _checksum(params)
    problem = _content_problem(volume, params, checksum) if checksum is not None and not paths else None
    if problem is not None:
        if not params["replace"]:
            raise LibvirtValidationError(
                f"create.content.checksum: volume '{name}' in pool '{params['pool']}' {problem}: delete it (state: absent), "
                "or set replace: true to make it anew from create.content.url"
            )
        paths = ["create.content.checksum"]
    size = int(volume.info()[1])
    from_content = bool(params.get("create"))  # content or clone_from
    before = {**current, **({"capacity": size, "capacity_unit": "bytes"} if wanted is not None else {})}
    # The content decides the size of a volume made from it; the option only grows it.
    shrink = wanted is not None and wanted < size and not from_content
    grow = wanted is not None and wanted > size
    if (paths or shrink) and not params["replace"]:
        what = ", ".join(paths + (["capacity"] if shrink else []))
        raise LibvirtValidationError(
            f"{what}: volume '{name}' in pool '{params['pool']}' differs in what cannot change in place without losing "
            "its data (format, backing store, encryption, permissions... or a smaller capacity); set replace: true "
            "to delete it and create it anew"
        )
    if paths or shrink:
        replaced = _create(pool, params, desired, check_mode, run, warnings, existing=volume)
        return Outcome(True, replaced, before, after, warnings=warnings, extra={"replaced": True})
    extra: dict[str, t.Any] = {}
    if grow:
        extra = _grow_existing(volume, params, t.cast("int", wanted), check_mode)
    resource = _described(volume, params)
    if grow and check_mode:
        resource = {**resource, **after}
    return Outcome(grow, resource, before if grow else after, after, warnings=warnings, extra=extra)


_BLOCK_RESIZE_BYTES = 1  # VIR_DOMAIN_BLOCK_RESIZE_BYTES


def _grow_existing(volume: t.Any, params: dict[str, t.Any], wanted: int, check_mode: bool) -> dict[str, t.Any]:
    """Grow the volume to ``wanted`` bytes: through the running domain whose disk it is (QEMU
    holds its image, and the guest sees the larger disk at once), else libvirt resizes it.
    Returns how (``update_method``, and the disk it was grown through)."""
    from . import volume_users  # noqa: PLC0415 - only growing a volume asks who uses it

    name, where = params["name"], f"volume '{params['name']}' in pool '{params['pool']}'"
    ref = volume_users.VolumeRef(_volume_file(volume), params["pool"], name)
    method, use = volume_users.grow_method(volume_users.volume_users(volume.connect(), ref, running_only=True), where)
    extra: dict[str, t.Any] = {"update_method": method}
    if use is not None:
        extra["resized_disk"] = {"domain": use.domain, "target": use.target}
    if check_mode:
        return extra
    try:
        if use is None:
            volume.resize(wanted, 0)
        else:
            volume.connect().lookupByName(use.domain).blockResize(use.target, wanted, _BLOCK_RESIZE_BYTES)
    except libvirt.libvirtError as exc:
        through = f" through {use.shown}" if use is not None else ""
        raise LibvirtError(f"Failed to resize volume '{name}' to {wanted} bytes{through}: {exc}") from exc
    _record_lived(volume)
    return extra


def _find(pool: t.Any, params: dict[str, t.Any]) -> tuple[t.Any, bool]:
    """The volume, and whether it was found only after a refresh of the pool (a file put into
    the pool's directory by hand is no volume until the pool is read again, and creating one
    of its name would fail: "already exists")."""
    found = lookup_by_name(pool.storageVolLookupByName, params["name"], f"volume in pool '{params['pool']}'")
    if found is not None or params["state"] != "present":
        return found, False
    found = _refreshed_lookup(pool, params["name"])
    return found, found is not None


def _backing_warnings(pool: t.Any, params: dict[str, t.Any], desired: dict[str, t.Any]) -> list[str]:
    backing = (desired.get("backing_store") or {}).get("path")
    if not backing or params["state"] != "present" or _in_a_pool(pool.connect(), backing):
        return []
    return [
        f"backing_store.path: {backing!r} is not a volume of a storage pool of this host: the overlay's guest reads that file; "
        "keep base images in a pool (libvirt_volume with create.content), where only root puts files"
    ]


def _with_detected_format(after: dict[str, t.Any], desired: dict[str, t.Any], created: dict[str, t.Any]) -> dict[str, t.Any]:
    """The diff's after of a new volume, with the format read from its content when none was given."""
    detected = (created.get("target") or {}).get("format")
    if not detected or (desired.get("target") or {}).get("format"):
        return after
    return {**after, "target": {**(after.get("target") or {}), "format": detected}}


def _in_a_pool(conn: t.Any, path: str) -> bool:
    real = os.path.realpath(path)
    return any(os.path.dirname(real) == os.path.realpath(pool_path) for pool_path in target_paths(conn))


def _refreshed_lookup(pool: t.Any, name: str) -> t.Any:
    """The volume ``name`` after the pool is read again (None when still missing). A refresh
    libvirt refuses (another run uploads into the pool meanwhile) is skipped, and so is one that
    cannot find it: a refresh reads every file of the pool while holding the pool, so parallel
    runs making new volumes would queue on each other's."""
    if _no_file_named(pool, name):
        return None
    try:
        pool.refresh(0)
    except libvirt.libvirtError:
        return None
    return lookup_by_name(pool.storageVolLookupByName, name, "volume")


def _no_file_named(pool: t.Any, name: str) -> bool:
    """Whether the pool's directory, on this host, surely has no entry ``name`` (False when
    that cannot be told: another host's daemon, a pool not of files, an unreadable directory)."""
    try:
        directory = target_path(pool) if _files_of_this_host(pool) else None
    except libvirt.libvirtError:
        return False
    if directory is None or "/" in name:
        return False
    try:
        os.lstat(os.path.join(directory, name))
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return False


def _check_existing_content(pool: t.Any, params: dict[str, t.Any], volume: t.Any, adopted: bool, warnings: list[str]) -> None:
    """An existing volume of content (or one found only once the pool was read again: a file
    copied in by hand) is taken as it is, but inspected as any content is: one naming files of
    the host is refused."""
    where = f"volume '{params['name']}' of storage pool '{params['pool']}'" + (" (a file found in the pool's directory)" if adopted else "")
    _refuse_references(pool, params, _inspect_volume(volume), "name", where, top=_volume_file(volume))
    if adopted:
        warnings.append(f"{where} was not known to libvirt until the pool was refreshed: it is used as it is")
