# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The body of every workspace resource module when it runs as a module.

In a playbook the collection's action plugins of the same names run this logic on the
controller instead (see plugins/plugin_utils/_workspace_action.py): the state file, the
CODER_* variables and the lookups then all live where the provisioner runs."""

from __future__ import annotations

import os

from ansible.module_utils.basic import AnsibleModule

from .engine import apply_resource
from .errors import WorkspaceError
from .resources import ResourceType

__all__ = ["run_resource_module"]


def run_resource_module(rtype: ResourceType) -> None:
    module = AnsibleModule(
        argument_spec=rtype.full_argument_spec(),
        mutually_exclusive=rtype.mutually_exclusive,
        required_if=rtype.required_if,
        supports_check_mode=True,
    )
    try:
        outcome = apply_resource(rtype, module.params, check_mode=module.check_mode, want_diff=module._diff, environ=os.environ)
    except WorkspaceError as exc:
        module.fail_json(msg=str(exc))
    for warning in outcome.warnings:
        module.warn(warning)
    module.exit_json(**outcome.result())
