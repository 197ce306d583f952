#!/usr/bin/python
# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: libvirt_network
short_description: Manage a libvirt virtual network
version_added: 0.1.0
description:
  - Defines, starts, sets to autostart, updates and removes a libvirt virtual network, with the options of the
    C(libvirt_network) resource of terraform-provider-libvirt 0.9 (the libvirt network XML, key by key).
  - Only the options you set are managed and compared, against the network's persistent (inactive) definition;
    what libvirt adds by itself (UUID, MAC address, generated bridge name, defaults) is left alone and is no change.
  - A change to DHCP hosts or ranges or to DNS hosts, TXT or SRV records is applied to the running network in place
    (C(virNetworkUpdate)). Any other change redefines the network with the same UUID; a running network keeps its
    old configuration until it is restarted, which O(restart=true) does.
author:
  - devinfra.providers contributors (@devinfra)
options:
  name:
    description:
      - The network's name, unique on the host. It identifies the network.
      - Required unless O(xml) is given (its C(<name>)).
    type: str
  state:
    description:
      - V(present) defines the network (and starts it unless O(running=false)); V(absent) stops and undefines it.
    type: str
    choices: [present, absent]
    default: present
  autostart:
    description:
      - Whether libvirt starts the network when the host boots. Not managed when not set.
    type: bool
  running:
    description:
      - Whether the network is active. Checked and enforced on every run.
    type: bool
    default: true
  restart:
    description:
      - When a change cannot be applied to the running network in place, restart it (destroy and start) after
        redefining it, so the change takes effect now. Guests on the network lose connectivity for a moment.
      - Without it, such a change returns RV(restart_required=true) and a warning.
    type: bool
    default: false
  xml:
    description:
      - A whole network definition, C(<network>) as C(virsh net-dumpxml) prints it or a community.libvirt
        template holds it, instead of the network options (O(forward), O(bridge), O(ips)...).
      - It is read into those options, so the same checks and the same comparison apply; what libvirt adds or
        computes (a UUID, a MAC address) is no change, and a second run with the same XML is no change.
      - Its C(<name>) and O(name) agree; without O(name), the name is taken from the XML.
      - Mutually exclusive with the network options. An XML that is not well-formed, has another root element or a
        C(<!DOCTYPE>) (entities are never resolved, nothing is fetched) fails before anything is touched.
      - To turn it into options instead, read the existing network with M(devinfra.providers.libvirt_network_info) and take its C(options).
    type: str
    version_added: 0.7.0
extends_documentation_fragment:
  - devinfra.providers.libvirt
  - devinfra.providers.libvirt_schema.network
  - devinfra.providers.attributes
  - devinfra.providers.attributes.resource
  - devinfra.providers.attributes.actiongroup_libvirt
notes:
  - Upstream (terraform-provider-libvirt 0.9) replaces the network on any change but autostart; here changes are
    applied in place, keeping the UUID, and the running state is enforced on every run.
seealso:
  - module: devinfra.providers.libvirt_pool
"""

EXAMPLES = r"""
- name: An isolated network with DHCP
  devinfra.providers.libvirt_network:
    name: workspaces
    bridge:
      name: wsbr0
      stp: true
      delay: "0"
    ips:
      - address: 192.168.150.1
        prefix: 24
        dhcp:
          ranges:
            - start: 192.168.150.100
              end: 192.168.150.199
          hosts:
            - mac: "52:54:00:00:00:10"
              name: ws1
              ip: 192.168.150.10
    autostart: true

- name: A NAT network whose DNS answers for the guests
  devinfra.providers.libvirt_network:
    name: nat
    forward:
      mode: nat
    domain:
      name: ws.internal
      local_only: true
    ips:
      - address: 10.77.0.1
        netmask: 255.255.255.0
        dhcp:
          ranges:
            - start: 10.77.0.10
              end: 10.77.0.99

- name: Remove it
  devinfra.providers.libvirt_network:
    name: nat
    state: absent

- name: A network from a community.libvirt template (the name is the XML's)
  devinfra.providers.libvirt_network:
    xml: "{{ lookup('ansible.builtin.template', 'network.xml.j2') }}"
    autostart: true
"""

RETURN = r"""
operation:
  description:
    - What the task did, or would do in check mode, as Terraform's plan names it, C(create), C(update) (in place),
      C(replace), C(delete) or C(none); the C(devinfra.providers.plan) callback shows it.
  returned: always
  type: str
  sample: update
address:
  description:
    - The resource as Terraform prints it, C(<module>.<name>); an object inside another one names both,
      C(libvirt_volume.<pool>/<name>), C(libvirt_domain_snapshot.<domain>/<name>).
  returned: always
  type: str
  sample: libvirt_domain.web
changed_paths:
  description:
    - The option paths that change (C(update), C(replace)), never their values; empty otherwise.
  returned: always
  type: list
  elements: str
  sample: [memory, vcpu]
network:
  description:
    - The network as options (every option libvirt holds for it, including what it added), with C(uuid),
      C(autostart) and C(running). With O(state=absent), what was removed (empty when there was nothing).
  returned: always
  type: dict
  sample:
    name: workspaces
    uuid: 6dafdad1-4890-49dc-939c-5b08a145d865
    bridge: {name: wsbr0, stp: true, delay: "0"}
    mac: {address: "52:54:00:ca:46:bd"}
    ips:
      - {address: 192.168.150.1, prefix: 24, dhcp: {ranges: [{start: 192.168.150.100, end: 192.168.150.199}]}}
    autostart: true
    running: true
update_method:
  description:
    - How a change was applied; V(update) (in place, live), V(redefine) (the definition, same UUID), V(restart)
      (to bring the running object to its definition), or a combination such as V(redefine+restart).
  returned: when an existing network changed, or was restarted
  type: str
  sample: update
restart_required:
  description: True when the running network keeps its old configuration until it is restarted.
  returned: when a change was redefined without O(restart)
  type: bool
  sample: true
"""

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.network import NETWORK_ARGSPEC, ensure_network
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.resource import run_resource_module


def main() -> None:
    run_resource_module(noun="network", argument_spec=NETWORK_ARGSPEC, run=ensure_network, schema_struct="Network", required_one_of=[("name", "xml")])


if __name__ == "__main__":
    main()
