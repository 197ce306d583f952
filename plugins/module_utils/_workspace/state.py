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
write at once queue on the lock instead of losing each other's entries. The file holds
agent tokens, so it and its lock are created with mode 0600 and the data file is set to
0600 after every write. Nothing in the file names its own path, so a copied file works
where it is copied to."""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import fcntl
import json
import os
import re
import tempfile
import typing as t

from .errors import WorkspaceError

__all__ = [
    "DEFAULT_STATE_FILE",
    "STATE_FILE_ENV",
    "STATE_FORMAT",
    "STATE_VERSION",
    "StateFileError",
    "WorkspaceState",
    "open_state",
    "read_state",
    "resolve_state_file",
]

STATE_FORMAT = "devinfra.providers.workspace"
STATE_VERSION = 1
STATE_FILE_ENV = "DEVINFRA_WORKSPACE_STATE"
DEFAULT_STATE_FILE = "workspace-state.json"
_MODE = 0o600


class StateFileError(WorkspaceError):
    """The state file cannot be read, is corrupt or is not a workspace state file."""


@dataclasses.dataclass
class WorkspaceState:
    """The resources of one state file, keyed by address (``<type>.<name>``)."""

    resources: dict[str, dict[str, t.Any]] = dataclasses.field(default_factory=dict)

    def get(self, address: str) -> dict[str, t.Any] | None:
        return self.resources.get(address)

    def put(self, address: str, entry: dict[str, t.Any]) -> None:
        self.resources[address] = entry

    def remove(self, address: str) -> dict[str, t.Any] | None:
        return self.resources.pop(address, None)

    def of_type(self, resource_type: str) -> dict[str, dict[str, t.Any]]:
        """The entries of one resource type, keyed by name, in address order."""
        prefix = f"{resource_type}."
        return {address[len(prefix) :]: entry for address, entry in sorted(self.resources.items()) if address.startswith(prefix)}

    def to_json(self) -> str:
        document = {"format": STATE_FORMAT, "version": STATE_VERSION, "resources": dict(sorted(self.resources.items()))}
        return json.dumps(document, indent=2, sort_keys=False) + "\n"


def resolve_state_file(path: str | None, *, environ: t.Mapping[str, str] | None = None) -> str:
    """The option, else a non-empty DEVINFRA_WORKSPACE_STATE, else the default in the current directory."""
    if path is None:
        path = (os.environ if environ is None else environ).get(STATE_FILE_ENV) or DEFAULT_STATE_FILE
    if not path:
        raise StateFileError("state_file: must not be empty")
    return os.path.abspath(os.path.expanduser(path))


def _parse(path: str, text: str) -> WorkspaceState:
    if not text.strip():
        # An empty file is what `touch` or a failed first run of another tool leaves; it holds nothing.
        return WorkspaceState()
    try:
        document = json.loads(text)
    except ValueError as exc:
        raise StateFileError(f"{path} is not valid JSON ({exc}); it was left untouched") from None
    if not isinstance(document, dict) or document.get("format") != STATE_FORMAT:
        raise StateFileError(f'{path} is not a workspace state file (no "format": "{STATE_FORMAT}"); it was left untouched')
    version = document.get("version")
    if version != STATE_VERSION:
        raise StateFileError(f"{path} has state version {version!r}, this collection reads version {STATE_VERSION}; it was left untouched")
    resources = document.get("resources")
    if not isinstance(resources, dict) or not all(isinstance(entry, dict) and "." in address for address, entry in resources.items()):
        raise StateFileError(f'{path} is corrupt ("resources" must map addresses to objects); it was left untouched')
    return WorkspaceState(resources=resources)


def _read(path: str) -> WorkspaceState:
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError:
        return WorkspaceState()
    except (OSError, UnicodeDecodeError) as exc:
        raise StateFileError(f"cannot read the state file {path}: {exc}") from None
    return _parse(path, text)


def read_state(path: str) -> WorkspaceState:
    """A consistent snapshot without writing anything (check mode, lookups)."""
    if not os.path.exists(path):
        return WorkspaceState()
    with _locked(path, exclusive=False, create=False):
        return _read(path)


@contextlib.contextmanager
def _locked(path: str, *, exclusive: bool, create: bool) -> t.Iterator[None]:
    lock_path = f"{path}.lock"
    flags = os.O_RDWR | (os.O_CREAT if create else 0)
    try:
        fd = os.open(lock_path, flags, _MODE)
    except FileNotFoundError:
        if create:
            raise StateFileError(f"cannot create the state file's lock {lock_path}: the directory does not exist") from None
        # Nobody ever wrote next to this file (a copied state file): nothing to wait for.
        yield
        return
    except OSError as exc:
        if not create and exc.errno in (errno.EACCES, errno.EROFS):  # a read-only copy can still be read
            yield
            return
        raise StateFileError(f"cannot open the state file's lock {lock_path}: {exc}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _temp_prefix(path: str) -> str:
    return f".{os.path.basename(path)}."


def _remove_stale_temps(path: str) -> None:
    """Remove what a writer killed between its temporary file and the rename left behind.
    Called under the exclusive lock, when no other writer can be half-way: every temporary
    file of this state file (mkstemp's 8 random characters, nothing else) is stale then."""
    stale = re.compile(re.escape(_temp_prefix(path)) + r"[a-z0-9_]{8}\.tmp")
    directory = os.path.dirname(path)
    for name in os.listdir(directory):
        if stale.fullmatch(name):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(os.path.join(directory, name))


def _write(path: str, state: WorkspaceState) -> None:
    directory = os.path.dirname(path)
    fd, tmp_path = tempfile.mkstemp(prefix=_temp_prefix(path), suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            os.fchmod(handle.fileno(), _MODE)
            handle.write(state.to_json())
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_path, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp_path)
        raise
    os.chmod(path, _MODE)
    dir_fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


@contextlib.contextmanager
def open_state(path: str, *, write: bool) -> t.Iterator[WorkspaceState]:
    """Yield the state under the lock; with ``write``, store it when the block ends without
    an exception and the content changed. Without ``write`` (check mode) nothing is created."""
    if not write:
        yield read_state(path)
        return
    if not os.path.isdir(os.path.dirname(path)):
        raise StateFileError(f"cannot write the state file {path}: the directory {os.path.dirname(path)} does not exist")
    with _locked(path, exclusive=True, create=True):
        _remove_stale_temps(path)
        state = _read(path)
        before = state.to_json()
        yield state
        if state.to_json() != before:
            try:
                _write(path, state)
            except OSError as exc:
                raise StateFileError(f"cannot write the state file {path}: {exc}") from None
