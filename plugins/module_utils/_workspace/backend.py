# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Where the workspace state lives: the interface of a state backend, and the choice of one
by the ``state_file`` value (a path: the local file; ``gs://BUCKET/OBJECT``: Cloud Storage).

A backend gives a consistent snapshot (``read``) and runs a change as one transaction
(``transact``): the change function gets the current state, mutates it, and the backend
stores the result so that no concurrent change is lost. A backend without locks (Cloud
Storage) may call the change function again on a fresher state, so it must be a pure plan
of the state it is given. Another scheme (``s3://``) is one more entry in ``_SCHEMES``."""

from __future__ import annotations

import re
import typing as t

from .errors import StateFileError

if t.TYPE_CHECKING:
    from .document import WorkspaceState

__all__ = ["DEFAULT_STATE_FILE", "STATE_FILE_ENV", "StateBackend", "open_backend", "state_location"]

T = t.TypeVar("T")

STATE_FILE_ENV = "DEVINFRA_WORKSPACE_STATE"
DEFAULT_STATE_FILE = "workspace-state.json"


class StateBackend(t.Protocol):
    """What the engine and the lookups need of a state store."""

    @property
    def location(self) -> str:
        """The state's location as results show it (an absolute path, or ``gs://bucket/object``)."""

    def read(self) -> WorkspaceState:
        """A consistent snapshot; writes nothing (check mode, lookups)."""

    def transact(self, change: t.Callable[[WorkspaceState], T], *, write: bool) -> T:
        """``change(state)``'s result; with ``write``, the state it leaves is stored when it
        differs from what was read, without losing a concurrent change."""


# A scheme at the start of the value; anything else is a local path.
_SCHEME = re.compile(r"([a-z][a-z0-9+.\-]*)://")
_SCHEMES = ("gs",)


def state_location(state_file: str | None, *, environ: t.Mapping[str, str]) -> str:
    """The option, else a non-empty DEVINFRA_WORKSPACE_STATE, else the default file in the current directory."""
    if state_file is None:
        state_file = environ.get(STATE_FILE_ENV) or DEFAULT_STATE_FILE
    if not state_file:
        raise StateFileError("state_file: must not be empty")
    return state_file


def open_backend(state_file: str | None, options: t.Mapping[str, t.Any], *, environ: t.Mapping[str, str]) -> StateBackend:
    """The backend ``state_file`` names, its options checked; nothing is read or sent yet."""
    location = state_location(state_file, environ=environ)
    scheme = _SCHEME.match(location)
    # The backends are imported on use: google-auth (gs://) is slow to import where the file
    # backend never needs it.
    if scheme is None:
        from .state import FileStateBackend  # noqa: PLC0415

        return FileStateBackend(location)
    if scheme.group(1) == "gs":
        from .state_gcs import GcsStateBackend  # noqa: PLC0415

        return GcsStateBackend.from_options(location, options, environ=environ)
    supported = ", ".join(f"{name}://" for name in _SCHEMES)
    raise StateFileError(f"state_file: {scheme.group(1)}:// is not a supported state location (a local path, or {supported})")
