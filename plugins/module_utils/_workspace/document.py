# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The workspace state document: the JSON every backend stores, and its outer shape.

It sits below the resource model: what an entry of a resource type must hold is checked one
layer up (entries.parse_state), so the backends and the resources never import each other."""

from __future__ import annotations

import dataclasses
import json
import typing as t

from .errors import StateFileError

__all__ = ["MAX_STATE_BYTES", "STATE_FORMAT", "STATE_VERSION", "WorkspaceState", "parse_document"]

STATE_FORMAT = "devinfra.providers.workspace"
STATE_VERSION = 1
# A state of a thousand workspaces' resources is a few MiB; a larger object or file is not a
# state, and is never read whole.
MAX_STATE_BYTES = 16 << 20


@dataclasses.dataclass
class WorkspaceState:
    """The resources of one state file, keyed by address (``<type>.<name>``)."""

    resources: dict[str, dict[str, t.Any]] = dataclasses.field(default_factory=dict)
    warnings: list[str] = dataclasses.field(default_factory=list)

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


def parse_document(path: str, data: bytes) -> WorkspaceState:
    """The state in ``data``, read from ``path`` (named in messages; the content never is: it
    holds tokens), with the document's shape checked; the entries' shape is entries.parse_state's."""
    if len(data) > MAX_STATE_BYTES:
        raise StateFileError(f"{path} is larger than a workspace state can be ({len(data)} bytes, at most {MAX_STATE_BYTES}); it was left untouched")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise StateFileError(f"{path} is not valid UTF-8 (byte {exc.start}); it was left untouched") from None
    if not text.strip():
        # An empty file is what `touch` or a failed first run of another tool leaves; it holds nothing.
        return WorkspaceState()
    try:
        document = json.loads(text)
    except ValueError as exc:
        # json's message gives a position only, never the text (which holds tokens).
        raise StateFileError(f"{path} is not valid JSON ({exc}); it was left untouched") from None
    except RecursionError:
        # Thousands of nested brackets: no state is shaped like that.
        raise StateFileError(f"{path} is not a workspace state file (its JSON is nested too deeply); it was left untouched") from None
    if not isinstance(document, dict) or document.get("format") != STATE_FORMAT:
        raise StateFileError(f'{path} is not a workspace state file (no "format": "{STATE_FORMAT}"); it was left untouched')
    version = document.get("version")
    if version != STATE_VERSION:
        raise StateFileError(f"{path} has state version {version!r}, this collection reads version {STATE_VERSION}; it was left untouched")
    resources = document.get("resources")
    if not isinstance(resources, dict) or not all(isinstance(entry, dict) and "." in address for address, entry in resources.items()):
        raise StateFileError(f'{path} is corrupt ("resources" must map addresses to objects); it was left untouched')
    return WorkspaceState(resources=resources)
