# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Runs M(devinfra.providers.workspace_state) on the controller, as the workspace resources run
(see plugin_utils/_workspace_action.py); the logic is module_utils/_workspace/migration.py."""

from __future__ import annotations

import typing as t

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.devinfra.providers.plugins.module_utils._workspace.migration import MIGRATION_ARGSPEC, migrate_state
from ansible_collections.devinfra.providers.plugins.plugin_utils._workspace_action import ControllerAction


class ActionModule(ControllerAction):
    """Moves a workspace state on the controller, in the environment the workspace resources see."""

    def validator(self) -> ArgumentSpecValidator:
        return ArgumentSpecValidator(MIGRATION_ARGSPEC)

    def apply(self, params: dict[str, t.Any], *, check_mode: bool, want_diff: bool, environ: dict[str, str]) -> dict[str, t.Any]:
        migration = migrate_state(params, check_mode=check_mode, want_diff=want_diff, environ=environ)
        result = migration.result()
        if migration.warnings:
            result["warnings"] = migration.warnings
        return result
