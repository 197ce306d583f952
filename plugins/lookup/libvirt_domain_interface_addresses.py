# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: libvirt_domain_interface_addresses
short_description: Read the IP addresses of a libvirt domain's network interfaces
version_added: 0.1.0
description:
  - Returns the addresses of the C(libvirt_domain_interface_addresses) data source of the upstream Terraform
    provider (terraform-provider-libvirt 0.9), with the same field names and the same C(id), as one dictionary.
  - When no source answers, a warning is shown and C(interfaces) is empty, as upstream does.
  - Runs on the controller; use M(devinfra.providers.libvirt_domain_interface_addresses_info) to ask from the managed host.
author:
  - devinfra.providers contributors (@devinfra)
options:
  _terms:
    description: At most one term, the O(domain).
    required: false
  domain:
    description:
      - The domain's UUID or name. A UUID is tried first, then the name. Required, as a term or as this option.
    type: str
  source:
    description:
      - Where the addresses come from. V(lease) asks the DHCP server of libvirt's networks, V(agent) the QEMU
        guest agent, V(any) tries V(lease) then V(agent) and returns the first non-empty answer.
    type: str
    choices: [lease, agent, any]
    default: any
extends_documentation_fragment:
  - devinfra.providers.libvirt.lookup
seealso:
  - module: devinfra.providers.libvirt_domain_interface_addresses_info
"""

EXAMPLES = r"""
- name: Show the addresses the DHCP server gave a guest
  ansible.builtin.debug:
    msg: "{{ lookup('devinfra.providers.libvirt_domain_interface_addresses', 'workspace-vm', source='lease').interfaces }}"
"""

RETURN = r"""
_raw:
  description:
    - One dictionary with the keys C(id) (the domain UUID), C(domain), C(source) and C(interfaces)
      (each with C(name), C(hwaddr) and C(addrs), a list of C(type), C(addr) and C(prefix));
      see M(devinfra.providers.libvirt_domain_interface_addresses_info).
  type: list
  elements: dict
"""

import typing as t

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.data_sources import (
    DataSourceResult,
    domain_interface_addresses,
)
from ansible_collections.devinfra.providers.plugins.plugin_utils._libvirt_lookup import LibvirtDataSourceLookup


class LookupModule(LibvirtDataSourceLookup):
    term_option = "domain"
    required_option = "domain"
    read_only = False  # the guest agent source is refused on read-only connections

    def query(self, conn: t.Any) -> DataSourceResult:
        return domain_interface_addresses(conn, self.get_option("domain"), self.get_option("source"))
