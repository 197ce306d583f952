#!/usr/bin/python
# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: libvirt_network_info
short_description: List the networks of a libvirt host
version_added: 0.1.0
description:
  - Lists the virtual networks of a libvirt host, all of them or those O(name) and O(state) select, sorted by name.
  - Each network comes with the facts a listing needs (UUID, whether it is active, persistent and set to autostart,
    its bridge), and under C(options) the options of M(devinfra.providers.libvirt_network) that describe it as it
    is. Passed back to M(devinfra.providers.libvirt_network), those options change nothing.
  - The module opens a read-only connection and changes nothing.
author:
  - devinfra.providers contributors (@devinfra)
options:
  name:
    description:
      - Only the networks with one of these names. A name with C(*), C(?) or C([) is a shell-style pattern
        (V(ws-*)); a name is also matched as it is.
      - When not set, every network is listed. A name that matches no network is no error, it lists nothing.
    type: list
    elements: str
  state:
    description:
      - Only the networks in one of these states. When not set, active and inactive networks are listed.
    type: list
    elements: str
    choices: [active, inactive]
  xml:
    description:
      - Also return each network's XML, under C(xml), the live definition of an active network (the persistent one of an inactive network).
      - Secrets are masked; see RV(networks[].xml).
    type: bool
    default: false
    version_added: 0.5.0
  inactive:
    description:
      - With O(xml=true), the XML is the network's persistent (inactive) definition, C(VIR_NETWORK_XML_INACTIVE), instead of the live
        one, which is what libvirt starts it with next time.
      - Only with O(xml=true).
    type: bool
    default: false
    version_added: 0.5.0
extends_documentation_fragment:
  - devinfra.providers.libvirt
  - devinfra.providers.attributes
  - devinfra.providers.attributes.info_module
  - devinfra.providers.attributes.actiongroup_libvirt
notes:
  - C(options) is read from the network's persistent (inactive) definition, as M(devinfra.providers.libvirt_network)
    compares it.
seealso:
  - module: devinfra.providers.libvirt_network
  - module: devinfra.providers.libvirt_domain_info
"""

EXAMPLES = r"""
- name: List the active networks
  devinfra.providers.libvirt_network_info:
    state: [active]
  register: listing

- name: Show each network's bridge
  ansible.builtin.debug:
    msg: "{{ listing.networks | items2dict(key_name='name', value_name='bridge') }}"

- name: Make every network autostart, as it is otherwise
  devinfra.providers.libvirt_network: "{{ item.options | combine({'autostart': true}) }}"
  loop: "{{ listing.networks }}"
  loop_control:
    label: "{{ item.name }}"
"""

RETURN = r"""
networks:
  description: The networks, sorted by name.
  returned: success
  type: list
  elements: dict
  contains:
    name:
      description: The network's name.
      type: str
      sample: default
    uuid:
      description: The network's UUID.
      type: str
      sample: dd8fe884-6c02-601e-7551-cca97df1c5df
    state:
      description: V(active) or V(inactive).
      type: str
      sample: active
    active:
      description: Whether the network is active.
      type: bool
      sample: true
    persistent:
      description: Whether the network has a persistent definition.
      type: bool
      sample: true
    autostart:
      description: Whether libvirt starts the network when the host boots.
      type: bool
      sample: true
    bridge:
      description: The name of the network's bridge device, V(null) for a network without one.
      type: str
      sample: virbr0
    options:
      description:
        - The options of M(devinfra.providers.libvirt_network) that describe the network as it is (every option of
          its persistent definition, with C(name), C(running) and C(autostart)).
      type: dict
      sample:
        name: default
        forward: {mode: nat}
        bridge: {name: virbr0, stp: true, delay: "0"}
        ips: [{address: 192.168.122.1, netmask: 255.255.255.0, dhcp: {ranges: [{start: 192.168.122.2, end: 192.168.122.254}]}}]
        running: true
        autostart: true
    xml:
      description:
        - The network's XML as libvirt gives it (its persistent definition with O(inactive=true)). no secure flag is asked for;
          any C(passwd) or C(password) attribute, and the text of a C(cookie), C(passwd), C(password) or C(passphrase)
          element, that still shows is replaced by C(********).
      returned: with O(xml=true)
      type: str
      sample: "<network>...</network>"
"""

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.info_module import run_info_module
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.listing import NETWORK_INFO_ARGSPEC, list_networks
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.schema import HAS_LXML, LXML_IMPORT_ERROR


def main() -> None:
    run_info_module(NETWORK_INFO_ARGSPEC, list_networks, libraries=[("lxml", HAS_LXML, LXML_IMPORT_ERROR)])


if __name__ == "__main__":
    main()
