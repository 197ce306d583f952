# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Move a workspace state from one location to another (a local file, ``gs://BUCKET/OBJECT``).

The state is copied as it is (the same resources, ids and tokens), so the workspace modules
find every resource unchanged at the new location. The copy is idempotent: a destination that
already holds the same resources is left alone, an empty one is written, and one that holds
other resources is only replaced with ``force``. The write goes through the destination
backend's transaction (under the file's lock, or conditional on the object's generation).

The same ``gs://`` location with two keys re-encrypts the object: it is read with the old
customer-supplied key and written with the new one, conditional on the generation read, so a
run that changed the state in between is never overwritten. Once the object is under the new
key, the old key no longer reads it; the new one does, and finds the same resources.

Results, errors and diffs name resource addresses and locations only: the entries hold agent
tokens, and the options hold keys and credentials."""

from __future__ import annotations

import copy
import dataclasses
import json
import re
import typing as t

from .backend import StateBackend, open_backend
from .backend_options import STATE_BACKEND_ARGSPEC, STATE_BACKEND_OPTIONS
from .document import WorkspaceState
from .errors import StateFileError, WorkspaceError

if t.TYPE_CHECKING:
    from .state_gcs import GcsStateBackend

__all__ = ["MIGRATION_ARGSPEC", "Migration", "migrate_state"]

MIGRATION_ARGSPEC: dict[str, dict[str, t.Any]] = {
    "src": {"type": "str", "required": True},
    "dest": {"type": "str", "required": True},
    "force": {"type": "bool", "default": False},
    "src_encryption_key": {"type": "str", "no_log": True},
    **STATE_BACKEND_ARGSPEC,
}

# At most this many addresses are named in the message about a differing destination.
_SHOWN_ADDRESSES = 10


class MigrationError(WorkspaceError):
    """The state cannot be moved; the message names locations and addresses only."""


@dataclasses.dataclass
class Migration:
    changed: bool
    src: str
    dest: str
    addresses: list[str]
    diff: dict[str, t.Any] | None = None
    warnings: list[str] = dataclasses.field(default_factory=list)
    created: bool = False  # dest held no resources before
    changed_paths: list[str] = dataclasses.field(default_factory=list)  # names only, for the plan

    def result(self) -> dict[str, t.Any]:
        operation = "none" if not self.changed else "create" if self.created else "update"
        result: dict[str, t.Any] = {
            "changed": self.changed,
            "operation": operation,
            "address": f"workspace_state.{self.dest}",
            "changed_paths": self.changed_paths if operation == "update" else [],
            "src": self.src,
            "dest": self.dest,
            "resources": len(self.addresses),
            "addresses": self.addresses,
        }
        if self.diff is not None:
            result["diff"] = self.diff
        return result


def _for_option(message: str, option: str, *, key_option: str | None = None) -> str:
    """A backend's message about ``state_file`` (and ``state_encryption_key``) as one about ``option``."""
    if message.startswith("state_file: "):
        message = f"{option}: {message.removeprefix('state_file: ')}"
    message = message.replace(" of state_file", f" of {option}")
    if key_option is not None:
        message = re.sub(r"\bstate_encryption_key\b", key_option, message)
    return message


def _open(option: str, location: str, options: t.Mapping[str, t.Any], *, environ: t.Mapping[str, str], key_option: str | None) -> StateBackend:
    try:
        return open_backend(location, options, environ=environ)
    except StateFileError as exc:
        raise MigrationError(_for_option(str(exc), option, key_option=key_option)) from None


def _read(option: str, backend: StateBackend, *, key_option: str | None) -> WorkspaceState:
    try:
        return backend.read()
    except StateFileError as exc:
        raise MigrationError(_for_option(str(exc), option, key_option=key_option)) from None


def _canonical(resources: t.Mapping[str, t.Any]) -> str:
    return json.dumps(resources, sort_keys=True)


def _differing(src: t.Mapping[str, t.Any], dest: t.Mapping[str, t.Any]) -> list[str]:
    """The addresses whose entries are not the same on both sides (values are compared, never shown)."""
    return sorted(
        address for address in set(src) | set(dest) if address not in src or address not in dest or _canonical(src[address]) != _canonical(dest[address])
    )


def _empty_src(location: str) -> MigrationError:
    return MigrationError(f"src {location} holds no workspace state (it does not exist or holds no resources); nothing was written")


def _diff(before: t.Iterable[str], after: t.Iterable[str]) -> dict[str, t.Any]:
    before, after = sorted(before), sorted(after)
    return {"before": {"exists": bool(before), "addresses": before}, "after": {"exists": bool(after), "addresses": after}}


def migrate_state(params: t.Mapping[str, t.Any], *, check_mode: bool, want_diff: bool, environ: t.Mapping[str, str]) -> Migration:
    """Copy the state at ``params['src']`` to ``params['dest']`` (see the module's documentation)."""
    dest_options = {option: params.get(option) for option in STATE_BACKEND_OPTIONS}
    src_options = dict(dest_options)
    src_key_option = None
    if params.get("src_encryption_key") is not None:
        # An empty value is a real choice: read a src that has no customer-supplied key.
        src_options["state_encryption_key"] = params["src_encryption_key"]
        src_key_option = "src_encryption_key"
    src = _open("src", params["src"], src_options, environ=environ, key_option=src_key_option)
    dest = _open("dest", params["dest"], dest_options, environ=environ, key_option=None)

    if src.location == dest.location and src.location.startswith("gs://"):
        # Imported here as open_backend does: google-auth is slow to import and a file never needs it.
        from .state_gcs import GcsStateBackend  # noqa: PLC0415

        if isinstance(src, GcsStateBackend) and isinstance(dest, GcsStateBackend) and src.key_headers != dest.key_headers:
            return _rotate(src, dest, check_mode=check_mode, want_diff=want_diff, src_key_option=src_key_option)

    source = _read("src", src, key_option=src_key_option)
    if not source.resources:
        raise _empty_src(src.location)
    wanted = source.resources
    force = bool(params.get("force"))

    def change(state: WorkspaceState) -> tuple[bool, list[str], list[str], list[str]]:
        """(changed, the destination's addresses before, the differing ones, its warnings); a pure plan of ``state``."""
        before = sorted(state.resources)
        differing = _differing(wanted, state.resources)
        if not differing:
            return False, before, differing, list(state.warnings)
        if state.resources and not force:
            shown = ", ".join(differing[:_SHOWN_ADDRESSES])
            more = f" and {len(differing) - _SHOWN_ADDRESSES} more" if len(differing) > _SHOWN_ADDRESSES else ""
            noun = "resource differs" if len(differing) == 1 else "resources differ"
            raise MigrationError(
                f"dest {dest.location} holds a different workspace state: {len(differing)} {noun} from src {src.location} "
                f"({shown}{more}); nothing was written. Set force=true to replace it with the state of src"
            )
        if not check_mode:
            state.resources = copy.deepcopy(wanted)  # a copy: a retried plan starts from src again
        return True, before, differing, list(state.warnings)

    try:
        changed, before, differing, dest_warnings = dest.transact(change, write=not check_mode)
    except StateFileError as exc:
        raise MigrationError(_for_option(str(exc), "dest")) from None
    addresses = sorted(wanted)
    return Migration(
        changed=changed,
        src=src.location,
        dest=dest.location,
        addresses=addresses,
        diff=_diff(before, addresses if changed else before) if want_diff else None,
        warnings=[*source.warnings, *dest_warnings],
        created=not before,
        changed_paths=[f"resources.{address}" for address in differing],
    )


def _rotate(src: GcsStateBackend, dest: GcsStateBackend, *, check_mode: bool, want_diff: bool, src_key_option: str | None) -> Migration:
    """Re-encrypt one object: read it with src's key, write it with dest's, conditional on the
    generation read. An object the old key cannot read but the new one can is done already."""
    from .state_gcs import _BACKOFF, MAX_ATTEMPTS  # noqa: PLC0415

    written: str | None = None  # what an upload refused as stale held (it may have landed on a retry)
    for attempt in range(MAX_ATTEMPTS):
        try:
            state, generation = src._download()
        except StateFileError as exc:
            message = _for_option(str(exc), "src", key_option=src_key_option)
            try:
                current = dest.read()
            except StateFileError:
                raise MigrationError(message) from None
            if not current.resources:
                raise MigrationError(message) from None
            addresses = sorted(current.resources)
            changed = written is not None and written == current.to_json()
            return Migration(
                changed=changed,
                src=src.location,
                dest=dest.location,
                addresses=addresses,
                diff=_diff(addresses, addresses) if want_diff else None,
            )
        if not state.resources:
            raise _empty_src(src.location)
        addresses = sorted(state.resources)
        migration = Migration(
            changed=True,
            src=src.location,
            dest=dest.location,
            addresses=addresses,
            diff=_diff(addresses, addresses) if want_diff else None,
            changed_paths=["state_encryption_key"],
        )
        if check_mode:
            return migration
        try:
            if dest._upload(state, generation):
                return migration
        except StateFileError as exc:
            raise MigrationError(_for_option(str(exc), "dest")) from None
        written = state.to_json()
        dest.sleep(_BACKOFF.delay(attempt))
    raise MigrationError(
        f"cannot write the state {dest.location}: another run changed it before each of {MAX_ATTEMPTS} attempts "
        "(HTTP 412 on every conditional write); nothing was written, run it again"
    )
