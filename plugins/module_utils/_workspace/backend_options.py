# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The options every workspace module and lookup takes for a remote state backend. Their own
module, below the resource model and the backends: the resources' argument specs include them,
and nothing here imports a backend."""

from __future__ import annotations

import typing as t

__all__ = ["STATE_BACKEND_ARGSPEC", "STATE_BACKEND_OPTIONS"]

# The options of a remote backend, for every workspace module (the lookups declare them in
# their documentation). Defaults come from the controller's environment (see remote_options).
STATE_BACKEND_ARGSPEC: dict[str, dict[str, t.Any]] = {
    "auth_kind": {"type": "str", "choices": ["application", "serviceaccount", "accesstoken", "machineaccount"]},
    "access_token": {"type": "str", "no_log": True},
    "service_account_file": {"type": "path"},
    "service_account_contents": {"type": "raw", "no_log": True},  # a JSON string or a dictionary
    "service_account_email": {"type": "str"},
    "scopes": {"type": "list", "elements": "str"},
    "api_endpoint": {"type": "str"},
    "state_encryption_key": {"type": "str", "no_log": True},
}
STATE_BACKEND_OPTIONS = frozenset(STATE_BACKEND_ARGSPEC)
