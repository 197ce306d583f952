#!/usr/bin/python
# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: libvirt_domain_interface_addresses_info
short_description: Read the IP addresses of a libvirt domain's network interfaces
version_added: 0.1.0
description:
  - Returns the addresses of the C(libvirt_domain_interface_addresses) data source of the upstream
    Terraform provider (terraform-provider-libvirt 0.9), with the same field names and the same RV(id).
  - Addresses come from the DHCP leases of libvirt's networks or from the QEMU guest agent.
  - When no source answers, the module warns and returns an empty RV(interfaces) list, as upstream does.
    It does not wait for an address to appear.
  - The same data is available on the controller through the P(devinfra.providers.libvirt_domain_interface_addresses#lookup) lookup.
author:
  - devinfra.providers contributors (@devinfra)
options:
  domain:
    description:
      - The domain's UUID or name. A UUID is tried first, then the name.
    type: str
    required: true
  source:
    description:
      - Where the addresses come from.
      - V(lease) asks the DHCP server of libvirt's networks; no guest agent is needed.
      - V(agent) asks the QEMU guest agent running in the guest.
      - V(any) tries V(lease), then V(agent), and returns the first non-empty answer.
      - ARP is not offered, as upstream.
    type: str
    choices: [lease, agent, any]
    default: any
extends_documentation_fragment:
  - devinfra.providers.libvirt
  - devinfra.providers.attributes
  - devinfra.providers.attributes.info_module
  - devinfra.providers.attributes.actiongroup_libvirt
seealso:
  - plugin: devinfra.providers.libvirt_domain_interface_addresses
    plugin_type: lookup
"""

EXAMPLES = r"""
- name: Wait until the guest has a DHCP lease
  devinfra.providers.libvirt_domain_interface_addresses_info:
    domain: workspace-vm
    source: lease
  register: addresses
  until: addresses.interfaces | map(attribute='addrs') | flatten | length > 0
  retries: 30
  delay: 2

- name: Show the first IPv4 address
  ansible.builtin.debug:
    msg: "{{ addresses.interfaces | map(attribute='addrs') | flatten | selectattr('type', '==', 'ipv4') | map(attribute='addr') | first }}"
"""

RETURN = r"""
id:
  description: Upstream's id for this data, the domain UUID.
  returned: success
  type: str
  sample: 6695eb01-f6a4-8304-79aa-97f2502e193f
domain:
  description: The domain, as given.
  returned: success
  type: str
  sample: workspace-vm
source:
  description: The source that was asked.
  returned: success
  type: str
  sample: any
interfaces:
  description: The domain's interfaces that have addresses.
  returned: success
  type: list
  elements: dict
  contains:
    name:
      description: Interface name (on the host for V(lease), in the guest for V(agent)).
      type: str
      sample: vnet0
    hwaddr:
      description: MAC address of the interface, null when unknown.
      type: str
      sample: "52:54:00:0e:f6:86"
    addrs:
      description: The addresses of the interface.
      type: list
      elements: dict
      contains:
        type:
          description: V(ipv4) or V(ipv6).
          type: str
          sample: ipv4
        addr:
          description: The address.
          type: str
          sample: 192.168.122.3
        prefix:
          description: The network prefix length.
          type: int
          sample: 24
"""

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.data_sources import (
    ADDRESS_SOURCES,
    domain_interface_addresses,
)
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.info_module import run_info_module


def main() -> None:
    run_info_module(
        {
            "domain": {"type": "str", "required": True},
            "source": {"type": "str", "choices": list(ADDRESS_SOURCES), "default": "any"},
        },
        lambda conn, params: domain_interface_addresses(conn, params["domain"], params["source"]),
        # The guest agent source is refused on read-only connections.
        read_only=False,
    )


if __name__ == "__main__":
    main()
