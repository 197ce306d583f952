#!/usr/bin/python
# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: libvirt_domain_action
short_description: Reboot or reset a running libvirt domain
version_added: 0.5.0
description:
  - Performs a one-shot action on a running domain, as the C(reboot) and C(reset) commands of community.libvirt's
    C(virt) module and C(virsh reboot) and C(virsh reset) do. Whether a domain runs or is paused is a state, managed by
    O(devinfra.providers.libvirt_domain#module:running) and O(devinfra.providers.libvirt_domain#module:paused); a reboot
    is an event, so it lives in this module.
  - V(reboot) asks the guest to reboot (C(virDomainReboot)), by its ACPI power button or through its guest agent (O(mode)),
    and waits until the domain has rebooted and runs again. The reboot is seen in libvirt's reboot event (QEMU's reset,
    which both a reboot inside the guest and libvirt's reboot after an ACPI power-off send), or in a new domain id; the
    guest's operating system may still be starting when the task ends.
  - V(reset) resets the domain at once, like the reset button of a machine (C(virDomainReset)); the guest gets no
    chance to write what it holds in memory.
  - Every run performs the action and reports a change (as M(ansible.builtin.reboot) does); in check mode the module
    checks that the action can be done (the domain exists, runs and is rebooted on a reboot) and reports a change
    without doing it.
  - A domain that is not running fails with a message that says so (a paused domain cannot answer a reboot; it can be
    reset). A domain whose C(on_reboot) is V(destroy) or V(preserve) is refused too, before anything is touched, since libvirt
    and QEMU turn its reboot and its reset into a shutdown.
author:
  - devinfra.providers contributors (@devinfra)
options:
  name:
    description:
      - The domain's name. It identifies the domain unless O(uuid) is given.
    type: str
  uuid:
    description:
      - Look the domain up by this UUID; with O(name) too, the domain's name must be O(name).
    type: str
  action:
    description:
      - V(reboot) asks the guest to reboot and waits for it (O(mode), O(timeout)); V(reset) resets the domain.
    type: str
    required: true
    choices: [reboot, reset]
  mode:
    description:
      - How O(action=reboot) asks the guest (C(virDomainReboot) flags). V(acpi) presses the ACPI power button; the guest
        must answer it (an ACPI daemon, systemd-logind) and the domain needs C(features.acpi). V(agent) asks the QEMU guest
        agent (a C(org.qemu.guest_agent.0) channel and the agent running in the guest).
      - Only for O(action=reboot). The default is V(acpi).
    type: str
    choices: [acpi, agent]
  timeout:
    description:
      - How long O(action=reboot) waits for the domain to have rebooted and to run again, in seconds (1 to 86400). The
        task fails when it has not by then, saying so; the request stays with the guest, which may still reboot later.
      - Only for O(action=reboot). The default is V(300).
    type: int
extends_documentation_fragment:
  - devinfra.providers.libvirt
  - devinfra.providers.attributes
  - devinfra.providers.attributes.actiongroup_libvirt
attributes:
  check_mode:
    support: full
    details:
      - Checks that the action can be done and reports a change without doing it.
  diff_mode:
    support: full
    details:
      - The domain's state before and after, with the action.
  idempotent:
    support: none
    details:
      - A one-shot action; every run performs it and reports a change.
notes:
  - The result's RV(operation) is V(update) for an action performed (or, in check mode, one that would be).
  - Upstream (terraform-provider-libvirt) has no reboot or reset; community.libvirt's C(virt) module reboots without
    waiting for the guest.
seealso:
  - module: devinfra.providers.libvirt_domain
  - module: ansible.builtin.reboot
"""

EXAMPLES = r"""
- name: Reboot ws1 through its ACPI power button and wait until it has rebooted (at most 2 minutes)
  devinfra.providers.libvirt_domain_action:
    name: ws1
    action: reboot
    timeout: 120

- name: Reboot it through the QEMU guest agent
  devinfra.providers.libvirt_domain_action:
    name: ws1
    action: reboot
    mode: agent

- name: Reset a guest that hangs
  devinfra.providers.libvirt_domain_action:
    name: ws1
    action: reset
"""

RETURN = r"""
operation:
  description:
    - V(update) for an action performed (or, in check mode, one that would be).
  returned: always
  type: str
  sample: update
address:
  description:
    - The domain's address, C(libvirt_domain.<name>).
  returned: always
  type: str
  sample: libvirt_domain.ws1
changed_paths:
  description:
    - What changed in the diff's view of the domain (V(action), and V(id) or V(state) when those changed).
  returned: always
  type: list
  elements: str
  sample: [action]
action:
  description: The action performed.
  returned: always
  type: str
  sample: reboot
mode:
  description: How the guest was asked to reboot.
  returned: when O(action=reboot)
  type: str
  sample: acpi
elapsed:
  description: The seconds from the reboot request until the domain had rebooted and ran again.
  returned: when O(action=reboot) and not in check mode
  type: float
  sample: 2.75
domain:
  description: The domain after the action (before it, in check mode).
  returned: always
  type: dict
  contains:
    name:
      description: The domain's name.
      type: str
      sample: ws1
    uuid:
      description: The domain's UUID.
      type: str
      sample: 4c7a3e53-02b8-4b8e-9f7e-2b5bb6a3f0c1
    id:
      description: The runtime domain ID.
      type: int
      sample: 7
    state:
      description: The domain's state as C(virsh list) names it.
      type: str
      sample: running
    running:
      description: Whether the domain runs (also when paused).
      type: bool
      sample: true
    paused:
      description: Whether the domain is paused.
      type: bool
      sample: false
"""

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.domain_action import run_domain_action_module


def main() -> None:
    run_domain_action_module()


if __name__ == "__main__":
    main()
