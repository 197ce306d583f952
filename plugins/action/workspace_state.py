# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Runs M(devinfra.providers.workspace_state) on the controller, as the workspace resources run
(see plugin_utils/_workspace_action.py); the logic is module_utils/_workspace/migration.py."""

from __future__ import annotations

import typing as t

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.module_utils.errors import UnsupportedError
from ansible.plugins.action import ActionBase

from ansible_collections.devinfra.providers.plugins.module_utils._workspace.errors import WorkspaceError
from ansible_collections.devinfra.providers.plugins.module_utils._workspace.migration import MIGRATION_ARGSPEC, migrate_state
from ansible_collections.devinfra.providers.plugins.plugin_utils._workspace_action import TaskEnvironmentError, task_environment


class ActionModule(ActionBase):
    """Moves a workspace state on the controller, in the environment the workspace resources see."""

    TRANSFERS_FILES = False
    _requires_connection = False
    _supports_check_mode = True
    _supports_async = False

    def run(self, tmp: str | None = None, task_vars: dict[str, t.Any] | None = None) -> dict[str, t.Any]:
        result: dict[str, t.Any] = super().run(tmp, task_vars)
        validation = ArgumentSpecValidator(MIGRATION_ARGSPEC).validate(dict(self._task.args))
        if validation.error_messages:
            message = validation.errors.msg
            if isinstance(validation.errors[0], UnsupportedError):
                message = f"Unsupported parameters for ({self._task.action}) module: {message}"
            result.update(failed=True, msg=message)
            return result
        try:
            migration = migrate_state(
                validation.validated_parameters,
                check_mode=bool(self._play_context.check_mode),
                want_diff=bool(self._play_context.diff),
                environ=task_environment(self._task, self._templar),
            )
        except (WorkspaceError, TaskEnvironmentError) as exc:
            result.update(failed=True, msg=str(exc))
            return result
        result.update(migration.result())
        if migration.warnings:
            result["warnings"] = migration.warnings
        return result
