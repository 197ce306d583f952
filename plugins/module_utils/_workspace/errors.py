# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The workspace family's exceptions."""

from __future__ import annotations

__all__ = ["StateFileError", "WorkspaceError", "WorkspaceValidationError"]


class WorkspaceError(Exception):
    """Base class: the message is ready to be shown to the user as it is."""


class WorkspaceValidationError(WorkspaceError):
    """User input is invalid; raised before anything is touched."""


class StateFileError(WorkspaceError):
    """The state file cannot be read, is corrupt, is not a workspace state file or is not safe to use."""
