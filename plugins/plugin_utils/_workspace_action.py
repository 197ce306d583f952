# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Run a workspace resource on the controller, as an action plugin.

Upstream's resources live in the provisioner's state and read the provisioner's CODER_*
variables; here that is the controller, where the lookups also run. So the module code
runs in-process on the controller (no transfer to the managed host), with the argument
spec validated exactly as AnsibleModule would.

The agent's result carries its token, which later tasks need (it goes into the VM's
cloud-init). Listing it in no_log_values would replace it by a placeholder in the
registered result too; instead, as community.crypto's openssl_privatekey_pipe does with
module.no_log, the result is marked ``_ansible_no_log``: it is registered whole, and every
callback (at every verbosity) shows only ``changed``, warnings and a censored notice.

The CODER_* and DEVINFRA_* variables are the controller's environment with the task's
``environment:`` (play, block and task, templated as Ansible does for modules) on top, as
a module would see them on its host."""

from __future__ import annotations

import os
import typing as t

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.module_utils.errors import UnsupportedError
from ansible.plugins.action import ActionBase

from ansible_collections.devinfra.providers.plugins.module_utils._common.plan import hidden_result_plan
from ansible_collections.devinfra.providers.plugins.module_utils._workspace.engine import apply_resource
from ansible_collections.devinfra.providers.plugins.module_utils._workspace.errors import WorkspaceError
from ansible_collections.devinfra.providers.plugins.module_utils._workspace.fields import unwrap_single_blocks
from ansible_collections.devinfra.providers.plugins.module_utils._workspace.resources import DEVCONTAINER, ResourceType, subagent_label

__all__ = ["ControllerAction", "TaskEnvironmentError", "WorkspaceResourceAction", "task_environment"]


class ControllerAction(ActionBase):
    """A module that runs on the controller: its arguments validated as AnsibleModule would,
    then ``apply`` in the controller's environment with the task's on top. Subclasses give the
    validator and ``apply``; an error of the family or of the environment fails the task."""

    TRANSFERS_FILES = False
    _requires_connection = False
    _supports_check_mode = True
    _supports_async = False

    def validator(self) -> ArgumentSpecValidator:
        raise NotImplementedError

    def prepare(self, args: dict[str, t.Any]) -> dict[str, t.Any]:
        """The task's arguments as the argument spec takes them (a subclass may reshape them)."""
        return args

    def apply(self, params: dict[str, t.Any], *, check_mode: bool, want_diff: bool, environ: dict[str, str]) -> dict[str, t.Any]:
        raise NotImplementedError

    def run(self, tmp: str | None = None, task_vars: dict[str, t.Any] | None = None) -> dict[str, t.Any]:
        result: dict[str, t.Any] = super().run(tmp, task_vars)
        try:
            args = self.prepare(dict(self._task.args))
        except WorkspaceError as exc:
            result.update(failed=True, msg=str(exc))
            return result
        validation = self.validator().validate(args)
        if validation.error_messages:
            message = validation.errors.msg
            if isinstance(validation.errors[0], UnsupportedError):
                message = f"Unsupported parameters for ({self._task.action}) module: {message}"
            result.update(failed=True, msg=message)
            return result
        try:
            environ = task_environment(self._task, self._templar)
            result.update(
                self.apply(
                    validation.validated_parameters,
                    check_mode=bool(self._play_context.check_mode),
                    want_diff=bool(self._play_context.diff),
                    environ=environ,
                )
            )
        except (WorkspaceError, TaskEnvironmentError) as exc:
            result.update(failed=True, msg=str(exc))
            return result
        if "operation" in result:
            hidden = bool(result.get("_ansible_no_log") or self._play_context.no_log)
            aliases = self.aliases(result)
            if hidden or aliases:
                # Hidden from callbacks, the plan still names what the task does.
                result["ansible_stats"] = hidden_result_plan(self._task.action.rsplit(".", 1)[-1], result, aliases, hidden=hidden)
        return result

    def aliases(self, result: dict[str, t.Any]) -> dict[str, str]:
        """The ids children name this resource by, each mapped to the key that addresses them."""
        return {}


class WorkspaceResourceAction(ControllerAction):
    """Subclasses set ``resource_type``."""

    resource_type: ResourceType

    def validator(self) -> ArgumentSpecValidator:
        rtype = self.resource_type
        return ArgumentSpecValidator(rtype.full_argument_spec(), mutually_exclusive=rtype.mutually_exclusive, required_if=rtype.required_if)

    def prepare(self, args: dict[str, t.Any]) -> dict[str, t.Any]:
        return unwrap_single_blocks(args, self.resource_type.single_blocks)

    def aliases(self, result: dict[str, t.Any]) -> dict[str, str]:
        # In a check run a new agent's id is only planned: its children name it by that id where
        # the real run finds the agent and keys them by its name.
        if not self._play_context.check_mode or result.get("operation") not in ("create", "replace"):
            return {}  # the children find an id that is not only planned
        rtype = self.resource_type
        resource = result.get(rtype.noun)
        if not rtype.referenced_id or not isinstance(resource, dict) or not resource.get(rtype.referenced_id):
            return {}
        key = result["address"].split(".", 1)[1]
        return {resource[rtype.referenced_id]: subagent_label(key) if rtype is DEVCONTAINER else key}

    def apply(self, params: dict[str, t.Any], *, check_mode: bool, want_diff: bool, environ: dict[str, str]) -> dict[str, t.Any]:
        outcome = apply_resource(self.resource_type, params, check_mode=check_mode, want_diff=want_diff, environ=environ)
        result = outcome.result()
        if outcome.has_secret:
            # Errors stay readable: they never carry a secret.
            result["_ansible_no_log"] = True
        if outcome.warnings:
            result["warnings"] = outcome.warnings
        return result


def task_environment(task: t.Any, templar: t.Any) -> dict[str, str]:
    """os.environ with the task's templated ``environment:`` on top (play, block, task: later levels win),
    as a module would see it on its host."""
    merged = dict(os.environ)
    levels = task.environment or []
    for level in levels if isinstance(levels, list) else [levels]:
        if not level:
            continue
        values = templar.template(level)
        if not isinstance(values, dict):
            raise TaskEnvironmentError("environment must be a dictionary of variables")
        for name, value in values.items():
            if isinstance(value, (t.Mapping, list)):
                kind = "dictionary" if isinstance(value, t.Mapping) else "list"
                raise TaskEnvironmentError(f"environment variable {name} must be a string, not a {kind}")
            merged[str(name)] = "" if value is None else str(value)
    return merged


class TaskEnvironmentError(Exception):
    """A task environment that cannot be an environment; its message names no value."""
