# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations


class ModuleDocFragment:
    # What each attribute means; modules state their support level.
    DOCUMENTATION = r"""
options: {}
attributes:
  check_mode:
    description: Can run in C(check_mode) and return changed status prediction without modifying target.
  diff_mode:
    description: Will return details on what has changed (or possibly needs changing in C(check_mode)), when in diff mode.
  idempotent:
    description:
      - When run twice in a row outside check mode, with the same arguments, the second invocation indicates no change.
"""

    # For *_info modules, which never change anything.
    INFO_MODULE = r"""
options: {}
attributes:
  check_mode:
    support: full
    details:
      - This action does not modify state.
  diff_mode:
    support: N/A
    details:
      - This action does not modify state.
  idempotent:
    support: full
"""

    # For resource modules with full check mode, diff and idempotence.
    RESOURCE = r"""
options: {}
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
  idempotent:
    support: full
"""

    ACTIONGROUP_LIBVIRT = r"""
options: {}
attributes:
  action_group:
    description: Use C(group/devinfra.providers.libvirt) in C(module_defaults) to set defaults for this module.
    support: full
    membership:
      - devinfra.providers.libvirt
"""

    ACTIONGROUP_STORAGE = r"""
options: {}
attributes:
  action_group:
    description: Use C(group/devinfra.providers.storage) in C(module_defaults) to set defaults for this module.
    support: full
    membership:
      - devinfra.providers.storage
"""

    ACTIONGROUP_WORKSPACE = r"""
options: {}
attributes:
  action_group:
    description: Use C(group/devinfra.providers.workspace) in C(module_defaults) to set defaults for this module.
    support: full
    membership:
      - devinfra.providers.workspace
"""

    # For the workspace resources, which run on the controller (an action plugin and a docs-only module file).
    CONTROLLER_ACTION = r"""
options: {}
attributes:
  action:
    description: Runs as an action plugin of the same name on the controller; the module file holds only its documentation.
    support: full
  async:
    description: Supports being used with the C(async) keyword.
    support: none
  platform:
    description: Target OS/families that can be operated against.
    support: N/A
    details:
      - Runs on the controller and does not contact the managed host; the task's C(environment) applies on top of
        the controller's environment.
    platforms: controller
"""
