# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Files the modules keep for themselves (the workspace state, first-boot records, digest
records), opened and written one way, by all three families.

The modules run as root in directories others may write (/tmp, a shared project). A file is
only ours when it was opened without following a link (and without blocking on a FIFO someone
put there), is a regular file of the running user, nobody else can write it, and it has no
second name (a hard link made by another user to a file of ours elsewhere would make us read
or rewrite that one). What is read is bounded; what is written goes to a new file of ours
(O_EXCL) in the same directory and is renamed over the old one, so a reader sees either."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import pwd
import re
import secrets
import stat
import string

__all__ = [
    "OPEN_FLAGS",
    "UnsafeFileError",
    "check_directory_chain",
    "exposed_directory",
    "is_temp_of",
    "not_ours",
    "open_ours",
    "private_directory",
    "read_bounded",
    "read_private",
    "record_path",
    "records_location",
    "who",
    "write_atomic",
]

# Never follow a link, never block on a FIFO, never leak into children, never take a terminal.
OPEN_FLAGS = os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK | os.O_NOCTTY
_TEMP_CHARS = string.ascii_lowercase + string.digits + "_"


class UnsafeFileError(Exception):
    """A file that is not ours; ``why`` completes "the file ..." (``is a symbolic link``)."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


def who(uid: int) -> str:
    try:
        return f"{pwd.getpwuid(uid).pw_name} (uid {uid})"
    except KeyError:
        return f"uid {uid}"


def not_ours(info: os.stat_result, *, directory: bool = False) -> str | None:
    """Why what ``info`` describes is not a file (or directory) of the running user that only
    they can write, or None."""
    me = os.geteuid()
    if stat.S_ISLNK(info.st_mode):
        return "is a symbolic link"
    if not (stat.S_ISDIR if directory else stat.S_ISREG)(info.st_mode):
        return "is not a directory" if directory else "is not a regular file"
    if info.st_uid != me:
        return f"is owned by {who(info.st_uid)}, not by {who(me)} who runs this"
    if info.st_mode & 0o022:
        return f"is writable by group or others (mode {stat.S_IMODE(info.st_mode):04o})"
    if not directory and info.st_nlink > 1:
        return f"has {info.st_nlink} hard links"
    return None


def _is_link(name: str, dir_fd: int | None) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def open_ours(name: str, flags: int, *, dir_fd: int | None = None, mode: int = 0o600) -> int:
    """``name`` (relative to ``dir_fd`` when given) opened with ``flags`` and checked on the open
    descriptor. UnsafeFileError when it is not ours; OSError (FileNotFoundError...) otherwise."""
    try:
        fd = os.open(name, flags | OPEN_FLAGS, mode, dir_fd=dir_fd)
    except OSError as exc:
        # O_NOFOLLOW answers a link with ELOOP; a kernel that protects links in sticky
        # directories (fs.protected_symlinks) may answer EACCES first.
        if exc.errno in (errno.ELOOP, errno.EMLINK) or _is_link(name, dir_fd):
            raise UnsafeFileError("is a symbolic link") from None
        raise
    problem = not_ours(os.fstat(fd))
    if problem:
        os.close(fd)
        raise UnsafeFileError(problem)
    return fd


def read_bounded(fd: int, limit: int) -> bytes | None:
    """At most ``limit`` bytes of ``fd``; None when it holds more (it is not what we wrote)."""
    chunks, size = [], 0
    while size <= limit:
        chunk = os.read(fd, min(1 << 20, limit + 1 - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return None if size > limit else b"".join(chunks)


def records_location(name: str) -> str:
    """Where a module keeps the records ``name``: /var/lib/devinfra.providers/<name> for root,
    else the user's cache directory."""
    if os.geteuid() == 0:
        return os.path.join("/var/lib/devinfra.providers", name)
    return os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "devinfra.providers", name)


def private_directory(path: str) -> str | None:
    """``path`` as the directory of a module's records (digests it remembers): made (0700) when
    missing; None unless it and its parent are directories of the running user's (or root's)
    that nobody else can write, and it lets nobody else in."""
    with contextlib.suppress(OSError):
        os.makedirs(path, mode=0o700, exist_ok=True)
    for directory in (path, os.path.dirname(path)):
        try:
            info = os.lstat(directory)
        except OSError:
            return None
        if not stat.S_ISDIR(info.st_mode) or info.st_uid not in (os.geteuid(), 0) or info.st_mode & 0o022:
            return None
    return None if stat.S_IMODE(os.lstat(path).st_mode) & 0o077 else path


def record_path(directory: str, identity: str) -> str:
    """The file of ``identity``'s record in ``directory`` (named by a digest of the identity)."""
    return os.path.join(directory, hashlib.sha256(identity.encode("utf-8", "surrogateescape")).hexdigest()[:40] + ".json")


def read_private(path: str, limit: int) -> bytes | None:
    """A record's bytes: a file of ours (see open_ours) that nobody else may read, of at most
    ``limit`` bytes; None for anything else."""
    try:
        fd = open_ours(path, os.O_RDONLY)
    except (UnsafeFileError, OSError):
        return None
    try:
        return None if stat.S_IMODE(os.fstat(fd).st_mode) & 0o077 else read_bounded(fd, limit)
    except OSError:
        return None
    finally:
        os.close(fd)


def _temp_prefix(name: str) -> str:
    return f".{os.path.basename(name)}."


def is_temp_of(name: str, candidate: str) -> bool:
    """True when ``candidate`` has the name write_atomic gives its temporary files for ``name``."""
    return re.fullmatch(re.escape(_temp_prefix(name)) + r"[a-z0-9_]{8}\.tmp", candidate) is not None


def write_atomic(path: str, data: bytes, mode: int, *, dir_fd: int | None = None) -> None:
    """Replace ``path`` (a name in ``dir_fd`` when given) by a file holding ``data`` with ``mode``:
    written to a new temporary file of ours next to it, synced, renamed over it."""
    directory = os.path.dirname(path) if dir_fd is None else ""
    for _attempt in range(100):
        temp = os.path.join(directory, _temp_prefix(path) + "".join(secrets.choice(_TEMP_CHARS) for _position in range(8)) + ".tmp")
        try:
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | OPEN_FLAGS, 0o600, dir_fd=dir_fd)
            break
        except FileExistsError:
            continue
    else:
        raise FileExistsError(errno.EEXIST, "no free name for a temporary file")
    try:
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), mode)  # whatever the umask
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        target = path if dir_fd is None else os.path.basename(path)
        os.replace(temp, target, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp, dir_fd=dir_fd)
        raise
    with contextlib.suppress(OSError):
        sync_fd = dir_fd if dir_fd is not None else os.open(directory or ".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            os.fsync(sync_fd)
        finally:
            if dir_fd is None:
                os.close(sync_fd)


# --- the directories on the way to a file of ours -----------------------------------------
#
# What is read from a directory decides what is written, deleted or run, so the directory and
# every one on the way to it must be beyond other users' reach: owned by root or the running
# user and not writable by group or others. A sticky directory on the way (/tmp) is fine:
# others cannot rename or remove our entries in it; the directory itself may not be sticky
# and shared, since the names in it are predictable. Once that holds, nobody else can swap
# anything below it between a check and its use.


def _trusted_owners(runner: str) -> str:
    euid = os.geteuid()
    return f"root, who runs {runner}" if euid == 0 else f"root or {who(euid)}, who runs {runner}"


def _directory_problem(path: str, info: os.stat_result, *, final: bool, runner: str) -> str | None:
    if not stat.S_ISDIR(info.st_mode):
        return f"{path} is not a directory"
    if info.st_uid not in (0, os.geteuid()):
        return f"{path} is owned by {who(info.st_uid)}, not by {_trusted_owners(runner)}: its owner could replace the files in it"
    mode = stat.S_IMODE(info.st_mode)
    if mode & 0o022 and (final or not mode & stat.S_ISVTX):
        why = "the files' names are predictable, so others could make them first" if final else "others could replace what is below it"
        return f"{path} is writable by group or others (mode {mode:04o}): {why}; choose a directory only its owner can write to"
    return None


def _walk(path: str, *, real: bool, is_final: bool, runner: str) -> tuple[str | None, bool]:
    """Check each existing component of ``path`` (lstat, never followed; the last one as the
    directory itself when ``is_final``); the deepest one that exists, and whether a symbolic
    link was on the way."""
    existing: str | None = None
    links = False
    parts = [p for p in path.split("/") if p]
    for depth in range(len(parts) + 1):
        current = "/" + "/".join(parts[:depth])
        try:
            info = os.lstat(current)
        except FileNotFoundError:
            if real:  # realpath() gave it: a link points nowhere
                raise UnsafeFileError(f"{current} (the target of a symlink in {path}) does not exist") from None
            break
        except OSError as exc:
            raise UnsafeFileError(f"cannot inspect {current}: {exc.strerror}") from None
        existing = current
        if stat.S_ISLNK(info.st_mode):
            if info.st_uid not in (0, os.geteuid()):
                raise UnsafeFileError(f"{current} is a symlink owned by {who(info.st_uid)}, not by {_trusted_owners(runner)}")
            links = True
            continue
        problem = _directory_problem(current, info, final=is_final and depth == len(parts), runner=runner)
        if problem:
            raise UnsafeFileError(problem)
    return existing, links


def check_directory_chain(directory: str, *, runner: str) -> bool:
    """Refuse (UnsafeFileError, a sentence naming the component) a ``directory`` (absolute, without
    ``..``) that another user made or can change, or whose way there they can; True when it
    exists. ``runner`` names what runs, for the message (``the module``, ``the inventory``)."""
    existing, links = _walk(directory, real=False, is_final=True, runner=runner)
    if existing is not None and links:
        # Some components are links: check the directories they lead to as well.
        _walk(os.path.realpath(existing), real=True, is_final=existing == directory, runner=runner)
    return existing == directory


def exposed_directory(path: str, *, runner: str) -> str | None:
    """Why the directory a file ``path`` is written to is within another user's reach (owned by
    them, writable by group or others, or on a way they can change), or None. For files that
    are ours to write but hold what others should not change or read first (a plan, an imported
    playbook): the caller warns rather than refuses, since the user chose the place."""
    directory = os.path.dirname(os.path.abspath(path)) or "/"
    try:
        check_directory_chain(os.path.normpath(directory), runner=runner)
    except UnsafeFileError as exc:
        return exc.why
    return None
