# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The workspace state file: where the workspace resources persist between runs.

Upstream's resources are pure state holders that live in Terraform's state; here they
live in one JSON file. Every change is a read-modify-write under an exclusive ``fcntl``
lock on a sidecar ``<file>.lock`` (the data file itself is replaced by rename, so it
cannot carry the lock), written to a temporary file in the same directory, fsynced and
renamed over the old one: a reader sees either the old or the new file, and forks that
write at once queue on the lock instead of losing each other's entries. Nothing in the
file names its own path, so a copied file works where it is copied to.

The file holds agent tokens and the modules run as root, often with the current directory
(the default place of the file) somewhere others can write, such as /tmp. So everything is
opened relative to a descriptor of the checked directory, never through a symbolic link,
and refused unless it is a regular file of the running user that nobody else can write;
a directory others can write must be sticky. Every write-mode open tightens the file and
its lock to 0600 (check mode only warns)."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
import typing as t

from .._common.safe_files import UnsafeFileError, is_temp_of, open_ours, read_bounded, write_atomic
from .document import MAX_STATE_BYTES, WorkspaceState
from .entries import parse_state
from .errors import StateFileError

__all__ = ["FileStateBackend", "open_state", "read_state"]

_MODE = 0o600
_LOCK = "the state file's lock"
_FILE = "the state file"


def _refused(what: str, path: str, why: str) -> StateFileError:
    return StateFileError(f"refusing {what} {path}: {why}; it was left untouched")


def _open_directory(path: str) -> int:
    """A descriptor of the state file's directory, checked: every later open is relative to it,
    so swapping a directory of the path afterwards changes nothing. FileNotFoundError: none."""
    directory = os.path.dirname(path)
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except NotADirectoryError:
        raise FileNotFoundError(errno.ENOENT, directory) from None
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise StateFileError(f"cannot open the directory of the state file {path}: {exc.strerror}") from None
    info = os.fstat(fd)
    if info.st_mode & 0o022 and not info.st_mode & stat.S_ISVTX:
        os.close(fd)
        raise _refused(
            "the directory of the state file",
            directory,
            f"it is writable by group or others (mode {stat.S_IMODE(info.st_mode):04o}) and not sticky, so they could replace the state file",
        )
    return fd


def _open_ours(dir_fd: int, path: str, what: str, flags: int, *, tighten: bool) -> int:
    """Open ``path`` (in ``dir_fd``) as one of our files (_common.safe_files); with ``tighten``,
    set it to 0600 when it is not (a file an older version or the user left readable). Another
    user's file could feed us their entries, or make us write (or tighten) a file of theirs."""
    try:
        fd = open_ours(os.path.basename(path), flags, dir_fd=dir_fd, mode=_MODE)
    except UnsafeFileError as exc:
        raise _refused(what, path, f"it {exc.why}") from None
    if tighten and stat.S_IMODE(os.fstat(fd).st_mode) & 0o077:
        os.fchmod(fd, _MODE)
    return fd


@contextlib.contextmanager
def _locked(dir_fd: int, path: str, *, exclusive: bool) -> t.Iterator[None]:
    lock_path = f"{path}.lock"
    flags = os.O_RDWR | os.O_CREAT if exclusive else os.O_RDONLY
    try:
        fd = _open_ours(dir_fd, lock_path, _LOCK, flags, tighten=exclusive)
    except OSError as exc:
        if not exclusive and exc.errno == errno.ENOENT:
            # Nobody ever wrote next to this file (a copied state file): nothing to wait for.
            yield
            return
        if not exclusive and exc.errno in (errno.EACCES, errno.EROFS):  # a read-only copy can still be read
            yield
            return
        raise StateFileError(f"cannot open {_LOCK} {lock_path}: {exc.strerror}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _read(dir_fd: int, path: str, *, tighten: bool) -> WorkspaceState:
    try:
        fd = _open_ours(dir_fd, path, _FILE, os.O_RDONLY, tighten=tighten)
    except FileNotFoundError:
        return WorkspaceState()
    except OSError as exc:
        raise StateFileError(f"cannot read the state file {path}: {exc.strerror}") from None
    try:
        mode = stat.S_IMODE(os.fstat(fd).st_mode)  # after tightening
        data = read_bounded(fd, MAX_STATE_BYTES)
    finally:
        os.close(fd)
    if data is None:
        raise StateFileError(f"{path} is larger than a workspace state can be (more than {MAX_STATE_BYTES} bytes); it was left untouched")
    state = parse_state(path, data)
    if mode & 0o077:
        state.warnings.append(
            f"the state file {path} can be read by group or others (mode {mode:04o}) and holds agent tokens; "
            "the next run that is not in check mode sets it to 0600"
        )
    return state


def read_state(path: str) -> WorkspaceState:
    """A consistent snapshot without writing anything (check mode, lookups)."""
    try:
        dir_fd = _open_directory(path)
    except FileNotFoundError:
        return WorkspaceState()
    try:
        with _locked(dir_fd, path, exclusive=False):
            return _read(dir_fd, path, tighten=False)
    finally:
        os.close(dir_fd)


def _remove_stale_temps(dir_fd: int, path: str) -> None:
    """Remove what a writer killed between its temporary file and the rename left behind.
    Called under the exclusive lock, when no other writer can be half-way: every temporary
    file of this state file is stale then, if it is ours: in a shared directory a name that
    matches may be anybody's."""
    me = os.geteuid()
    for name in os.listdir(dir_fd):
        if not is_temp_of(path, name):
            continue
        with contextlib.suppress(FileNotFoundError):
            info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
            if stat.S_ISREG(info.st_mode) and info.st_uid == me and info.st_nlink == 1:
                os.unlink(name, dir_fd=dir_fd)


@contextlib.contextmanager
def open_state(path: str, *, write: bool) -> t.Iterator[WorkspaceState]:
    """Yield the state under the lock; with ``write``, store it when the block ends without
    an exception and the content changed. Without ``write`` (check mode) nothing is created
    or changed, not even a mode."""
    if not write:
        yield read_state(path)
        return
    try:
        dir_fd = _open_directory(path)
    except FileNotFoundError:
        raise StateFileError(f"cannot write the state file {path}: the directory {os.path.dirname(path)} does not exist") from None
    try:
        with _locked(dir_fd, path, exclusive=True):
            _remove_stale_temps(dir_fd, path)
            state = _read(dir_fd, path, tighten=True)
            before = state.to_json()
            yield state
            if state.to_json() != before:
                try:
                    write_atomic(path, state.to_json().encode("utf-8"), _MODE, dir_fd=dir_fd)
                except OSError as exc:
                    raise StateFileError(f"cannot write the state file {path}: {exc}") from None
    finally:
        os.close(dir_fd)


T = t.TypeVar("T")


class FileStateBackend:
    """The state in a local file (the default backend): ``transact`` runs under the file's lock."""

    def __init__(self, path: str) -> None:
        self.location = os.path.abspath(os.path.expanduser(path))

    def read(self) -> WorkspaceState:
        return read_state(self.location)

    def transact(self, change: t.Callable[[WorkspaceState], T], *, write: bool) -> T:
        with open_state(self.location, write=write) as state:
            return change(state)
