# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The Terraform import's exceptions."""

from __future__ import annotations

__all__ = ["NotConvertedError", "TerraformImportError"]


class TerraformImportError(Exception):
    """The import cannot go on (a state that is not one, a destination it must not write); the
    message is ready to be shown as it is and never holds a value of the state."""


class NotConvertedError(Exception):
    """One resource cannot be converted; the message is the reason, listed in the result."""
