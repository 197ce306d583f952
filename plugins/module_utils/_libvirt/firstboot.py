# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""First-boot files of terraform-provider-libvirt 0.9 (cloud-init disk, combustion script,
ignition config), built on the managed host: upstream ids, file names and modes; atomic,
content-addressed files; a small reference store so a replaced file is removed only when
no other resource still uses it; an optional copy in a storage pool volume.

The modules run as root on hosts other users share, and dest defaults to a directory in
/tmp: nothing is acted on that another user could have made or could change (see
check_dest() and _read_ref())."""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import hashlib
import io
import json
import os
import re
import stat
import typing as t

from .._common.plan import not_there_yet
from .._common.safe_files import UnsafeFileError, check_directory_chain, not_ours, open_ours, read_bounded, write_atomic
from .errors import LibvirtError, LibvirtValidationError
from .iso import IsoFile, build_iso, read_iso
from .text import check_one_line

__all__ = [
    "CLOUDINIT_DISK",
    "COMBUSTION",
    "IGNITION",
    "KINDS",
    "Artifact",
    "FirstbootError",
    "FirstbootResult",
    "Kind",
    "Plan",
    "apply",
    "artifact_matches",
    "check_dest",
    "default_dest",
    "desired_plan",
    "dest_of",
    "remove",
    "resource_id",
    "validate",
    "volume_name",
]

_STORE_DIR = ".devinfra-firstboot"
# A volume larger than this is never read back to be compared: it is not a seed volume.
_VOLUME_COMPARE_LIMIT = 64 << 20
# A record is a few hundred bytes; a larger file is not one.
_REF_LIMIT = 1 << 16
_FILE_ID = "[0-9a-f]{16}"


class FirstbootError(LibvirtError):
    """Building, writing or removing a first-boot file failed."""


@dataclasses.dataclass(frozen=True)
class Kind:
    """One of the three resources: the result key, upstream's directory and file name,
    the file's mode and the content options."""

    key: str
    upstream_dir: str
    file_name: str  # with {id}
    mode: int
    content_options: tuple[str, ...]
    drive_label: str | None = None  # format=config_drive: the ISO's label ...
    drive_path: str | None = None  # ... the file's path in it ...
    drive_file_name: str | None = None  # ... and the image's name in dest, with {id}
    volume_suffix: str = ".iso"

    @property
    def file_pattern(self) -> re.Pattern[str]:
        """The names of the files this kind makes in dest (any id)."""
        names = [n for n in (self.file_name, self.drive_file_name) if n]
        return re.compile("|".join(re.escape(n).replace(re.escape("{id}"), _FILE_ID) for n in names))


CLOUDINIT_DISK = Kind(
    key="cloudinit_disk",
    upstream_dir="terraform-provider-libvirt-cloudinit",
    file_name="cloudinit-{id}.iso",
    mode=0o644,
    content_options=("user_data", "meta_data", "network_config"),
)
COMBUSTION = Kind(
    key="combustion",
    upstream_dir="terraform-provider-libvirt-combustion",
    file_name="script-{id}.sh",
    mode=0o755,
    content_options=("content",),
    drive_label="combustion",
    drive_path="combustion/script",
    drive_file_name="combustion-{id}.iso",
    volume_suffix=".sh",
)
IGNITION = Kind(
    key="ignition",
    upstream_dir="terraform-provider-libvirt-ignition",
    file_name="ignition-{id}.ign",
    mode=0o644,
    content_options=("content",),
    drive_label="ignition",
    drive_path="ignition/config.ign",
    drive_file_name="ignition-{id}.iso",
    volume_suffix=".ign",
)
KINDS = {kind.key: kind for kind in (CLOUDINIT_DISK, COMBUSTION, IGNITION)}


@dataclasses.dataclass(frozen=True)
class Artifact:
    """A file to have on disk: plain ``data``, or an ISO labelled ``iso_label``."""

    path: str
    mode: int
    data: bytes = b""
    iso_label: str | None = None
    iso_files: tuple[IsoFile, ...] = ()

    def render(self) -> bytes:
        return build_iso(self.iso_label, self.iso_files) if self.iso_label else self.data

    def content_matches(self, blob: t.BinaryIO) -> bool:
        """True when ``blob`` holds this artifact (an ISO: the same label and files, in
        both the Rock Ridge and the Joliet view; a plain file: the same bytes, then
        nothing but zeros, as a volume rounded up to its allocation unit holds it)."""
        if self.iso_label is None:
            head = blob.read(len(self.data))
            if head != self.data:
                return False
            while True:
                rest = blob.read(1 << 16)
                if not rest:
                    return True
                if rest.count(0) != len(rest):
                    return False
        try:
            seen = read_iso(blob)
        except ValueError:
            return False
        want = {f.path: f.data for f in self.iso_files}
        modes = {f.path: f.mode for f in self.iso_files}
        return seen.label == self.iso_label and seen.rock_ridge == want and seen.joliet == want and seen.modes == modes


@dataclasses.dataclass(frozen=True)
class Plan:
    """What one resource should be: its id, files (``main`` first) and volume."""

    kind: Kind
    name: str
    resource_id: str
    dest: str
    main: Artifact
    drive: Artifact | None
    content: dict[str, t.Any]
    pool: str | None
    volume: str | None

    @property
    def artifacts(self) -> tuple[Artifact, ...]:
        return (self.main, self.drive) if self.drive else (self.main,)

    @property
    def upload(self) -> Artifact:
        """The file that goes into the volume: the config drive when there is one."""
        return self.drive or self.main


@dataclasses.dataclass
class FirstbootResult:
    changed: bool
    resource: dict[str, t.Any]
    diff: dict[str, dict[str, t.Any]]
    warnings: list[str] = dataclasses.field(default_factory=list)


# --- ids, paths and validation ---------------------------------------------------------


def resource_id(kind: Kind, content: t.Mapping[str, t.Any]) -> str:
    """Upstream's id: the first 16 hex digits of sha256 over the contents, concatenated
    without separators in upstream's order (an unset network_config adds nothing)."""
    digest = hashlib.sha256()
    for option in kind.content_options:
        value = content.get(option)
        if value is not None:
            digest.update(value.encode("utf-8"))
    return digest.hexdigest()[:16]


def default_dest(kind: Kind, *, environ: t.Mapping[str, str] | None = None) -> str:
    """Upstream's directory (Go's os.TempDir(): $TMPDIR, else /tmp, plus the kind's name)
    with ``-<euid>`` appended: upstream's fixed name in a directory anyone can write to lets
    another user make it before root's first run."""
    tmp = (os.environ if environ is None else environ).get("TMPDIR") or "/tmp"  # upstream's location
    return os.path.join(tmp, f"{kind.upstream_dir}-{os.geteuid()}")


def _normal_path(path: str) -> str:
    """``path`` without empty and ``.`` components; ``..`` is refused, never resolved:
    ``a/link/..`` is the link target's parent, not ``a``."""
    parts = path.split("/")
    if ".." in parts:
        raise LibvirtValidationError(f"dest: must not contain '..', got {path!r}")
    return "/" + "/".join(p for p in parts if p not in ("", "."))


def dest_of(kind: Kind, params: t.Mapping[str, t.Any]) -> str:
    """The directory of the files: ``dest`` or the default, normalised."""
    dest = params.get("dest") or default_dest(kind)
    if not os.path.isabs(dest):
        raise LibvirtValidationError(f"dest: must be an absolute path, got {dest!r}")
    return _normal_path(dest)


# --- who may have made a path ------------------------------------------------------------
#
# Everything read from dest decides what is deleted, shown or rewritten, so dest, every
# directory on the way to it and the record store must be beyond other users' reach:
# owned by root or the running user and not writable by group or others (a sticky
# directory such as /tmp on the way is fine: others cannot rename or remove our entries
# in it). Once that holds, nobody else can swap anything under dest between a check and
# its use.


def check_dest(dest: str) -> bool:
    """Refuse a ``dest`` (or its record store) that another user made or can change;
    True when it exists. Raises LibvirtValidationError naming ``dest``."""
    try:
        exists = check_directory_chain(dest, runner="the module")
    except UnsafeFileError as exc:
        raise LibvirtValidationError(f"dest: {exc.why}") from None
    if not exists:
        return False
    _check_store(dest)
    return True


def _check_store(dest: str) -> bool:
    """Refuse a record store another user made or can write to; True when it exists."""
    store = _store(dest)
    try:
        st = os.lstat(store)
    except FileNotFoundError:
        return False
    problem = not_ours(st, directory=True)
    if problem:
        raise LibvirtValidationError(f"dest: the record store {store} {problem}; remove it if you did not make it")
    return True


def _make_dest(dest: str) -> None:
    """Create dest (0755: qemu reads the images) and its store (0700), each with mkdir,
    which never takes over what exists; then check again what is there, since another
    user may have made a directory between the first check and the mkdir."""
    missing = []
    path = dest
    while not os.path.lexists(path):
        missing.append(path)
        path = os.path.dirname(path)
    for directory in reversed(missing):
        try:
            os.mkdir(directory, 0o755)
        except FileExistsError:
            continue  # made meanwhile: check_dest() below decides
        os.chmod(directory, 0o755)  # whatever the umask
    check_dest(dest)
    with contextlib.suppress(FileExistsError):
        os.mkdir(_store(dest), 0o700)
    _check_store(dest)


# File systems of the kernel's own, where no directory of ours can be made (root's access
# check says yes all the same): refused before anything, in a check run too.
_PSEUDO_FILE_SYSTEMS = frozenset(
    (
        "proc",
        "sysfs",
        "devpts",
        "cgroup",
        "cgroup2",
        "securityfs",
        "debugfs",
        "tracefs",
        "pstore",
        "bpf",
        "configfs",
        "efivarfs",
        "fusectl",
        "mqueue",
        "binfmt_misc",
    )
)
_MOUNTINFO_BYTES = 4 << 20


def _file_system(path: str) -> tuple[str, bool] | None:
    """(type, read-only) of the file system ``path`` is on, from /proc/self/mountinfo; None
    when it cannot be told."""
    try:
        with open("/proc/self/mountinfo", "rb") as handle:
            lines = handle.read(_MOUNTINFO_BYTES).decode("utf-8", "replace").splitlines()
    except OSError:
        return None
    real, found, best = os.path.realpath(path), None, -1
    for line in lines:
        fields, _sep, rest = line.partition(" - ")
        parts, tail = fields.split(), rest.split()
        if len(parts) < 6 or not tail:
            continue
        mount = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), parts[4])
        inside = real == mount or real.startswith(mount.rstrip("/") + "/")
        if inside and len(mount) > best:
            found, best = (tail[0], "ro" in parts[5].split(",")), len(mount)
    return found


def _check_writable(dest: str) -> None:
    """Fail before anything is written when ``dest`` cannot hold files."""
    probe = dest
    while not os.path.lexists(probe):
        probe = os.path.dirname(probe)
    if not os.access(probe, os.W_OK | os.X_OK):
        raise LibvirtValidationError(f"dest: {probe} is not writable")
    file_system = _file_system(probe)
    if file_system is None:
        return
    if file_system[0] in _PSEUDO_FILE_SYSTEMS and probe != dest:  # upstream's words when the directory cannot be made
        raise FirstbootError(f"Failed to Create Temp Directory: Could not create directory {dest}: {probe} is on a {file_system[0]} file system")
    if file_system[1]:
        raise LibvirtValidationError(f"dest: {probe} is on a read-only file system")


def validate(kind: Kind, params: t.Mapping[str, t.Any]) -> None:
    """Check the module options; raises LibvirtValidationError naming the option."""
    if not params["name"]:
        raise LibvirtValidationError("name: must not be empty")
    for option in ("name", "dest", "pool", "volume"):  # file and volume names: one line each
        if params.get(option) is not None:
            check_one_line(option, params[option])
    dest = dest_of(kind, params)
    volume = params.get("volume")
    if volume is not None and (not volume or "/" in volume):
        raise LibvirtValidationError(f"volume: must be a volume name without '/', got {volume!r}")
    if volume is not None and not params.get("pool"):
        raise LibvirtValidationError("volume: needs pool")
    if params["state"] != "present":
        check_dest(dest)
        return
    for option in kind.content_options:
        value = params.get(option)
        if option != "network_config" and not value:
            raise LibvirtValidationError(f"{option}: must not be empty")
    if kind is IGNITION:
        try:
            config = json.loads(params["content"])
        except ValueError as exc:
            raise LibvirtValidationError(f"content: not valid JSON, so not an Ignition config: {exc}") from exc
        if not isinstance(config, dict):
            raise LibvirtValidationError(f"content: an Ignition config is a JSON object, got a JSON {type(config).__name__}")
    check_dest(dest)
    _check_writable(dest)


def volume_name(kind: Kind, params: t.Mapping[str, t.Any]) -> str | None:
    """The volume in ``pool``: ``volume``, else the name plus .iso (an image) or the plain
    file's suffix; None without a pool."""
    if not params.get("pool"):
        return None
    image = kind is CLOUDINIT_DISK or params.get("format") == "config_drive"
    return str(params.get("volume") or params["name"] + (".iso" if image else kind.volume_suffix))


def desired_plan(kind: Kind, params: t.Mapping[str, t.Any]) -> Plan:
    """The files and volume for the module options (after validate())."""
    content = {option: params.get(option) for option in kind.content_options}
    rid = resource_id(kind, content)
    dest = dest_of(kind, params)
    main_path = os.path.join(dest, kind.file_name.format(id=rid))
    drive: Artifact | None = None
    if kind is CLOUDINIT_DISK:
        files = [IsoFile("user-data", str(content["user_data"]).encode()), IsoFile("meta-data", str(content["meta_data"]).encode())]
        if content["network_config"] is not None:
            files.append(IsoFile("network-config", str(content["network_config"]).encode()))
        main = Artifact(path=main_path, mode=kind.mode, iso_label="cidata", iso_files=tuple(files))
    else:
        data = str(content["content"]).encode()
        main = Artifact(path=main_path, mode=kind.mode, data=data)
        if params.get("format") == "config_drive":
            if kind.drive_label is None or kind.drive_path is None or kind.drive_file_name is None:
                raise FirstbootError(f"{kind.key} has no config drive layout")
            drive = Artifact(
                path=os.path.join(dest, kind.drive_file_name.format(id=rid)),
                mode=0o644,
                iso_label=kind.drive_label,
                iso_files=(IsoFile(kind.drive_path, data, 0o555 if kind is COMBUSTION else 0o444),),
            )
    pool = params.get("pool")
    return Plan(
        kind=kind, name=params["name"], resource_id=rid, dest=dest, main=main, drive=drive, content=content, pool=pool, volume=volume_name(kind, params)
    )


# --- files -------------------------------------------------------------------------------


def _is_file(path: str) -> bool:
    """True for a regular file at ``path`` (never followed), False when there is none."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise FirstbootError(f"Failed to Stat File: Could not stat {path}: {exc.strerror}") from exc
    if not stat.S_ISREG(st.st_mode):
        raise FirstbootError(f"{path} exists and is not a regular file; remove it or choose another dest")
    return True


def _open_own(path: str) -> t.BinaryIO | None:
    """``path`` opened for reading when it is one of our files (_common.safe_files), else None."""
    try:
        return os.fdopen(open_ours(path, os.O_RDONLY), "rb")
    except (UnsafeFileError, OSError):
        return None


def artifact_matches(artifact: Artifact) -> tuple[bool, bool]:
    """(content_ok, mode_ok) of the file at the artifact's path. A file another user owns
    never matches: it is replaced by one of ours."""
    if not _is_file(artifact.path):
        return False, False
    try:
        fh = _open_own(artifact.path)
        if fh is None:
            return False, False
        with fh:
            content_ok = artifact.content_matches(fh)
            mode_ok = stat.S_IMODE(os.fstat(fh.fileno()).st_mode) == artifact.mode
    except OSError as exc:
        raise FirstbootError(f"Could not read {artifact.path}: {exc.strerror}") from exc
    return content_ok, mode_ok


# --- the reference store -----------------------------------------------------------------
#
# dest/.devinfra-firstboot/<kind>-<sha256(name)[:16]>.json records which files (and volume)
# the resource called <name> owns. Upstream keeps this in Terraform state; without it a
# changed content could not find the file it replaces, and two resources with the same
# content (one shared file) could not tell whether the other still needs it.


def _store(dest: str) -> str:
    return os.path.join(dest, _STORE_DIR)


def _ref_file_name(kind: Kind, name: str) -> str:
    return f"{kind.key}-{hashlib.sha256(name.encode()).hexdigest()[:16]}.json"


def _ref_path(dest: str, kind: Kind, name: str) -> str:
    return os.path.join(_store(dest), _ref_file_name(kind, name))


def _is_our_file(dest: str, kind: Kind, path: t.Any) -> bool:
    """True for one of the file names ``kind`` makes, directly in ``dest``."""
    if not isinstance(path, str) or not path.startswith("/") or ".." in path.split("/"):
        return False
    path = _normal_path(path)
    return os.path.dirname(path) == dest and kind.file_pattern.fullmatch(os.path.basename(path)) is not None


def _ref_problem(dest: str, file_name: str, ref: t.Any) -> str | None:
    """Why ``ref`` (read from ``file_name`` in dest's store) is not a record of ours, or None."""
    if not isinstance(ref, dict):
        return "not a JSON object"
    kind = KINDS.get(ref.get("kind"))  # type: ignore[arg-type]
    name = ref.get("name")
    if kind is None or not isinstance(name, str) or _ref_file_name(kind, name) != file_name:
        return "its kind and name do not match its file name"
    if not isinstance(ref.get("id"), str) or not re.fullmatch(_FILE_ID, ref["id"]):
        return "no id"
    files = ref.get("files")
    if not isinstance(files, list) or len(files) > 2:
        return "no list of files"
    for path in files:
        if not _is_our_file(dest, kind, path):
            return f"{path!r} is not a file of {kind.key} in {dest}"
    volume = ref.get("volume")
    if volume is not None and not (
        isinstance(volume, dict) and all(isinstance(volume.get(k), str) and volume[k] for k in ("pool", "name")) and "/" not in volume["name"]
    ):
        return "a malformed volume"
    return None


def _read_ref(dest: str, path: str, *, kind: Kind | None = None, name: str | None = None) -> dict[str, t.Any] | None:
    """The record at ``path`` in dest's store (checked by check_dest()), None when there is
    none. Only a regular file of the running user, not writable by others, whose files are
    this kind's names in dest (and, with ``kind``, of that kind and name) is a record:
    anything else is an error, so nothing it names is ever deleted, read or shown."""
    blob: bytes | None = b""
    try:
        fd = open_ours(path, os.O_RDONLY)
        try:
            blob = read_bounded(fd, _REF_LIMIT)
        finally:
            os.close(fd)
        problem = None
    except FileNotFoundError:
        return None
    except UnsafeFileError as exc:
        problem = exc.why
    except OSError as exc:
        problem = f"cannot be read ({exc.strerror})"
    if problem:
        raise FirstbootError(f"dest: the reference file {path} {problem}; it is not one of ours: remove it to start afresh")
    try:
        ref: t.Any = json.loads(blob) if blob is not None else None
    except ValueError as exc:
        raise FirstbootError(f"dest: Could not read the reference file {path}: {exc}; remove it to start afresh") from exc
    problem = _ref_problem(dest, os.path.basename(path), ref)
    if problem is None and kind is not None and (ref["kind"], ref["name"]) != (kind.key, name):
        problem = "it is another resource's"
    if problem:
        raise FirstbootError(f"dest: the reference file {path} is not one of ours ({problem}); remove it to start afresh")
    return {**ref, "files": [_normal_path(p) for p in ref["files"]]}


def _referenced_elsewhere(dest: str, own_ref: str, path: str) -> bool:
    try:
        names = os.listdir(_store(dest))
    except FileNotFoundError:
        return False
    for entry in names:
        ref_path = os.path.join(_store(dest), entry)
        if not entry.endswith(".json") or ref_path == own_ref:
            continue
        ref = _read_ref(dest, ref_path)
        if ref and path in ref["files"]:
            return True
    return False


def _lock_path(dest: str) -> str:
    return os.path.join(_store(dest), "lock")


def _open_lock(dest: str) -> int:
    lock = _lock_path(dest)
    try:
        return open_ours(lock, os.O_RDWR | os.O_CREAT)
    except UnsafeFileError as exc:
        raise FirstbootError(f"dest: the lock file {lock} {exc.why}; remove it if you did not make it") from None


# The run that removes the last resource of a dest removes the store and its lock (and the
# default dest) while it holds the lock. A run that waited on that lock then holds a lock file
# nobody else can open any more: it sees that its file is no longer the one at the lock's path
# and starts again, making dest anew; every run that gets through holds the lock file that is
# there. Each new attempt follows a removal, so the attempts are bounded.
_LOCK_ATTEMPTS = 100


def _is_lock_file(fd: int, dest: str) -> bool:
    try:
        there = os.lstat(_lock_path(dest))
    except FileNotFoundError:
        return False
    here = os.fstat(fd)
    return (there.st_dev, there.st_ino) == (here.st_dev, here.st_ino)


def _lock(dest: str) -> int:
    """Make dest and its store, and hold the lock of the store; returns the lock's descriptor."""
    missing: OSError | None = None
    for _attempt in range(_LOCK_ATTEMPTS):
        try:
            _make_dest(dest)
            fd = _open_lock(dest)
        except FileNotFoundError as exc:
            # Removed meanwhile by the run that removed its last resource; or dest cannot be made.
            missing = exc
            continue
        except OSError as exc:
            raise FirstbootError(f"Failed to Create Temp Directory: Could not create directory {dest}: {exc.strerror}") from exc
        missing = None
        fcntl.flock(fd, fcntl.LOCK_EX)
        if _is_lock_file(fd, dest):
            return fd
        os.close(fd)
    if missing is not None:
        raise FirstbootError(f"Failed to Create Temp Directory: Could not create directory {dest}: {missing.strerror}") from missing
    raise FirstbootError(f"dest: {dest} was removed and made again {_LOCK_ATTEMPTS} times while this run waited for its lock")


@contextlib.contextmanager
def _store_session(dest: str, *, create: bool, check_mode: bool) -> t.Iterator[bool]:
    """Check dest and its store; in a real run make them (when ``create`` or dest exists)
    and hold the lock, which serialises runs on one dest (parallel hosts delegating to one
    machine). Yields whether there is a store to read records from."""
    exists = check_dest(dest)
    if check_mode or not (exists or create):
        yield exists and _check_store(dest)
        return
    fd = _lock(dest)
    try:
        yield True
    finally:
        os.close(fd)


def _remove_if_unused(kind: Kind, dest: str) -> None:
    """With the lock held: once no record is left in the store, remove the lock and the store,
    and the default dest when nothing else is in it (a dest given is the user's directory and
    stays). Anything another program put there keeps what holds it."""
    store = _store(dest)
    if any(entry != "lock" for entry in os.listdir(store)):
        return
    _remove_file(_lock_path(dest))
    with contextlib.suppress(OSError):
        os.rmdir(store)
        if dest == default_dest(kind):
            os.rmdir(dest)


def _remove_file(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise FirstbootError(f"Failed to Delete File: Could not delete {path}: {exc.strerror}") from exc


# --- the resource view (result and diff) -------------------------------------------------


def _file_size(path: str) -> int | None:
    try:
        return os.lstat(path).st_size
    except OSError:
        return None


def _artifact_size(artifact: Artifact) -> int:
    """The size of the file an artifact is on disk, or will be: a check run predicts the size of
    a file it would write, as the real run then finds it."""
    size = _file_size(artifact.path)
    if size is not None and artifact_matches(artifact)[0]:
        return size
    return len(artifact.render())  # written anew: a missing or corrupt file takes the content's size


def _digests(content: t.Mapping[str, str | None]) -> dict[str, t.Any]:
    """sha256 and size of each content option, in the result and on both sides of the diff:
    the text itself (passwords, keys, megabytes) is never returned. The options are no_log,
    so Ansible would mask the new text in the diff anyway, but not the old one read back from
    the file it replaces (nor the one a removal reads back): digests show what changed
    without either."""
    view: dict[str, t.Any] = {}
    for option, value in content.items():
        data = None if value is None else value.encode("utf-8")
        view[f"{option}_sha256"] = None if data is None else hashlib.sha256(data).hexdigest()
        view[f"{option}_size"] = None if data is None else len(data)
    return view


def _view(plan: Plan, *, volume: dict[str, t.Any] | None) -> dict[str, t.Any]:
    view: dict[str, t.Any] = {
        "name": plan.name,
        "id": plan.resource_id,
        "path": plan.main.path,
        "size": _artifact_size(plan.main),
        "dest": plan.dest,
        **_digests(plan.content),
    }
    if plan.kind is not CLOUDINIT_DISK:
        view["mode"] = f"{plan.kind.mode:04o}"
        view["format"] = "config_drive" if plan.drive else "file"
        view["config_drive"] = (
            {"path": plan.drive.path, "size": _artifact_size(plan.drive), "label": plan.drive.iso_label, "file": plan.kind.drive_path} if plan.drive else None
        )
    view["volume"] = volume
    return view


def _read_back(kind: Kind, ref: dict[str, t.Any]) -> dict[str, t.Any]:
    """The content options as the recorded file holds them (their digests for the diff), or nothing; only
    from a file of ours (_read_ref() checked that the path is one of our names in dest)."""
    path = ref["files"][0] if ref["files"] else None
    if not path:
        return {}
    try:
        fh = _open_own(path)
        if fh is None:
            return {}
        with fh:
            blob = fh.read()
        if kind is not CLOUDINIT_DISK:
            return {"content": blob.decode("utf-8")}
        files = read_iso(io.BytesIO(blob)).rock_ridge
        return {
            "user_data": files.get("user-data", b"").decode("utf-8"),
            "meta_data": files.get("meta-data", b"").decode("utf-8"),
            "network_config": files["network-config"].decode("utf-8") if "network-config" in files else None,
        }
    except (OSError, ValueError):
        return {}


def _before(kind: Kind, ref: dict[str, t.Any] | None) -> dict[str, t.Any]:
    if ref is None:
        return {"exists": False}
    files = ref["files"]
    before: dict[str, t.Any] = {"exists": True, "id": ref.get("id"), "path": files[0] if files else None}
    before["size"] = _file_size(before["path"]) if before["path"] else None
    if kind is not CLOUDINIT_DISK:
        before["config_drive"] = files[1] if len(files) > 1 else None
    before["volume"] = ref.get("volume")
    read = _read_back(kind, ref)
    if read:
        before.update(_digests(read))
    return before


def _after(plan: Plan) -> dict[str, t.Any]:
    after: dict[str, t.Any] = {"exists": True, "id": plan.resource_id, "path": plan.main.path}
    after["size"] = _artifact_size(plan.main)
    if plan.kind is not CLOUDINIT_DISK:
        after["config_drive"] = plan.drive.path if plan.drive else None
    after["volume"] = {"pool": plan.pool, "name": plan.volume} if plan.pool else None
    after.update(_digests(plan.content))
    return after


# --- the pool volume ---------------------------------------------------------------------


def _volume_info(vol: t.Any, pool: str) -> dict[str, t.Any]:
    info = vol.info()
    return {"pool": pool, "name": vol.name(), "path": vol.path(), "key": vol.key(), "capacity": int(info[1])}


def _lookup_pool(conn: t.Any, name: str) -> t.Any:
    from .connection import libvirt  # noqa: PLC0415  # only with pool, which needs libvirt-python
    from .errors import is_not_found  # noqa: PLC0415

    try:
        pool = conn.storagePoolLookupByName(name)
    except libvirt.libvirtError as exc:
        if is_not_found(exc):
            raise LibvirtValidationError(f"pool: storage pool '{name}' not found") from exc
        raise FirstbootError(f"pool: Could not look up storage pool '{name}': {exc}") from exc
    if not pool.isActive():
        raise LibvirtValidationError(f"pool: storage pool '{name}' is not active")
    return pool


def _current_volume(pool: t.Any, plan: Plan) -> tuple[t.Any, bool]:
    """(the volume or None, whether it already holds the upload file)."""
    from .connection import libvirt  # noqa: PLC0415
    from .errors import is_not_found  # noqa: PLC0415
    from .stream_upload import read_volume  # noqa: PLC0415

    try:
        vol = pool.storageVolLookupByName(plan.volume)
    except libvirt.libvirtError as exc:
        if not is_not_found(exc):
            raise
        return None, False
    fmt = _volume_format(vol.XMLDesc(0))
    if fmt not in (None, "raw", "iso"):
        raise LibvirtValidationError(f"volume: {plan.pool}/{plan.volume} has format {fmt}; a first-boot file needs a raw volume")
    blob = read_volume(vol, limit=_VOLUME_COMPARE_LIMIT)
    return vol, blob is not None and plan.upload.content_matches(io.BytesIO(blob))


def _sync_volume(conn: t.Any, plan: Plan, *, check_mode: bool) -> tuple[bool, dict[str, t.Any] | None]:
    """Make the pool volume hold the plan's upload file; (changed, volume view)."""
    from xml.sax.saxutils import escape  # noqa: PLC0415  # it imports urllib.request, http.client and email (6 ms)

    from .connection import libvirt  # noqa: PLC0415
    from .stream_upload import upload_file  # noqa: PLC0415

    if plan.pool is None or plan.volume is None:
        raise FirstbootError("no pool volume to fill")
    try:
        pool = _lookup_pool(conn, plan.pool)
        vol, matches = _current_volume(pool, plan)
        if matches:
            return False, _volume_info(vol, plan.pool)
        if check_mode:
            return True, _volume_info(vol, plan.pool) if vol is not None else {"pool": plan.pool, "name": plan.volume}
        size = os.stat(plan.upload.path).st_size
        if vol is not None and int(vol.info()[1]) != size:
            # A volume cannot shrink below its allocation, and a larger one would keep a
            # stale tail: make it anew at the file's size (same name, same path).
            vol.delete(0)
            vol = None
        created = vol is None
        if vol is None:
            target = "<target><format type='raw'/></target>" if _pool_type(pool.XMLDesc(0)) in ("dir", "fs", "netfs") else ""
            vol = pool.createXML(f"<volume><name>{escape(plan.volume)}</name><capacity unit='bytes'>{size}</capacity>{target}</volume>", 0)
        try:
            upload_file(vol, plan.upload.path, sparse=False)
        except LibvirtError:
            if created:  # upstream: a failed upload deletes the volume it created
                with contextlib.suppress(libvirt.libvirtError):
                    vol.delete(0)
            raise
        return True, _volume_info(vol, plan.pool)
    except libvirt.libvirtError as exc:
        raise FirstbootError(f"Failed to upload to volume {plan.pool}/{plan.volume}: {exc}") from exc


def _delete_volume(conn: t.Any, pool_name: str, vol_name: str, *, check_mode: bool) -> dict[str, t.Any] | None:
    from .connection import libvirt  # noqa: PLC0415
    from .errors import is_not_found  # noqa: PLC0415

    try:
        vol = conn.storagePoolLookupByName(pool_name).storageVolLookupByName(vol_name)
        info = _volume_info(vol, pool_name)
        if not check_mode:
            vol.delete(0)
    except libvirt.libvirtError as exc:
        if is_not_found(exc):
            return None
        raise FirstbootError(f"Failed to delete volume {pool_name}/{vol_name}: {exc}") from exc
    return info


def _volume_format(xml: str) -> str | None:
    import xml.etree.ElementTree as ET  # noqa: PLC0415

    node = ET.fromstring(xml).find("target/format")
    return node.get("type") if node is not None else None


def _pool_type(xml: str) -> str | None:
    import xml.etree.ElementTree as ET  # noqa: PLC0415

    return ET.fromstring(xml).get("type")


# --- present / absent --------------------------------------------------------------------

ConnectFn = t.Callable[[], t.ContextManager[t.Any]]


def _sync_files(plan: Plan, *, check_mode: bool) -> bool:
    """Write the plan's files that are missing or wrong; True when any was."""
    changed = False
    for artifact in plan.artifacts:
        content_ok, mode_ok = artifact_matches(artifact)
        if content_ok and mode_ok:
            continue
        changed = True
        if check_mode:
            continue
        try:
            if content_ok:
                os.chmod(artifact.path, artifact.mode)
            else:
                write_atomic(artifact.path, artifact.render(), artifact.mode)
        except OSError as exc:
            raise FirstbootError(f"Failed to Write File: Could not write {artifact.path}: {exc.strerror or exc}") from exc
    return changed


def apply(plan: Plan, *, check_mode: bool, connect: ConnectFn) -> FirstbootResult:
    """Make the resource present: write what is missing, wrong or corrupt (never rewrite
    a correct file), drop files the resource no longer uses, fill the volume."""
    ref_path = _ref_path(plan.dest, plan.kind, plan.name)
    warnings: list[str] = []
    with contextlib.ExitStack() as stack:
        conn = None
        pool_there = True
        if plan.pool:
            # A missing or inactive pool is bad input: fail before any file is written. A check
            # run plans on: an earlier task of the run may make the pool.
            conn = stack.enter_context(connect())
            try:
                _lookup_pool(conn, plan.pool)
            except LibvirtValidationError as exc:
                if not check_mode:
                    raise
                pool_there = False
                warnings.append(not_there_yet(str(exc)))
        has_store = stack.enter_context(_store_session(plan.dest, create=True, check_mode=check_mode))
        ref = _read_ref(plan.dest, ref_path, kind=plan.kind, name=plan.name) if has_store else None
        before = _before(plan.kind, ref)
        changed = _sync_files(plan, check_mode=check_mode)
        wanted = [a.path for a in plan.artifacts]
        for old in ref["files"] if ref else []:
            if old in wanted or not _is_file(old) or _referenced_elsewhere(plan.dest, ref_path, old):
                continue
            changed = True
            if not check_mode:
                _remove_file(old)
        volume = None
        if conn is not None and not pool_there:
            changed, volume = True, {"pool": plan.pool, "name": plan.volume}
        elif conn is not None:
            volume_changed, volume = _sync_volume(conn, plan, check_mode=check_mode)
            changed = changed or volume_changed
        new_ref = {
            "kind": plan.kind.key,
            "name": plan.name,
            "id": plan.resource_id,
            "files": wanted,
            "volume": {"pool": plan.pool, "name": plan.volume} if plan.pool else None,
        }
        if ref != new_ref:
            changed = True
            if not check_mode:
                try:
                    write_atomic(ref_path, (json.dumps(new_ref, indent=1, sort_keys=True) + "\n").encode(), 0o600)
                except OSError as exc:
                    raise FirstbootError(f"Failed to Write File: Could not write {ref_path}: {exc.strerror or exc}") from exc
        return FirstbootResult(changed=changed, resource=_view(plan, volume=volume), diff={"before": before, "after": _after(plan)}, warnings=warnings)


def remove(kind: Kind, params: t.Mapping[str, t.Any], *, check_mode: bool, connect: ConnectFn) -> FirstbootResult:
    """Make the resource absent: its files (unless another resource uses them), its
    volume and its reference."""
    dest = dest_of(kind, params)
    name = params["name"]
    ref_path = _ref_path(dest, kind, name)
    with _store_session(dest, create=False, check_mode=check_mode) as has_store:
        ref = _read_ref(dest, ref_path, kind=kind, name=name) if has_store else None
        before = _before(kind, ref)
        if ref is None and all(params.get(o) for o in kind.content_options if o != "network_config"):
            # Not recorded (made by an earlier tool on this host): the content names the files.
            plan = desired_plan(kind, params)
            ref = {"id": plan.resource_id, "files": [a.path for a in plan.artifacts if _is_file(a.path)], "volume": None}
            if not ref["files"]:
                ref = None
        removed: dict[str, t.Any] = {}
        changed = False
        if ref is not None:
            changed = True
            removed = {"name": name, "id": ref.get("id"), "path": ref["files"][0] if ref["files"] else None, "dest": dest, "files": []}
            for path in ref["files"]:
                if _is_file(path) and not _referenced_elsewhere(dest, ref_path, path):
                    removed["files"].append(path)
                    if not check_mode:
                        _remove_file(path)
        volume_ref = (ref or {}).get("volume") or ({"pool": params["pool"], "name": volume_name(kind, params)} if params.get("pool") else None)
        if volume_ref:
            with connect() as conn:
                gone = _delete_volume(conn, volume_ref["pool"], volume_ref["name"], check_mode=check_mode)
            if gone:
                changed = True
                removed = removed or {"name": name, "dest": dest, "files": []}
                removed["volume"] = gone
        if has_store and not check_mode:
            _remove_file(ref_path)
            _remove_if_unused(kind, dest)
        return FirstbootResult(changed=changed, resource=removed, diff={"before": before, "after": {"exists": False}})
