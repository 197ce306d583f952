# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Runs M(devinfra.providers.workspace_env) on the controller (see plugin_utils/_workspace_action.py)."""

from __future__ import annotations

from ansible_collections.devinfra.providers.plugins.module_utils._workspace.resources import ENV
from ansible_collections.devinfra.providers.plugins.plugin_utils._workspace_action import WorkspaceResourceAction


class ActionModule(WorkspaceResourceAction):
    resource_type = ENV
