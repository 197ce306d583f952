# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: libvirt_node_devices
short_description: List the devices of a libvirt host
version_added: 0.1.0
description:
  - Returns the device names of the C(libvirt_node_devices) data source of the upstream Terraform provider
    (terraform-provider-libvirt 0.9), with the same field names and the same C(id), as one dictionary.
  - Runs on the controller; use M(devinfra.providers.libvirt_node_devices_info) to ask from the managed host.
author:
  - devinfra.providers contributors (@devinfra)
options:
  _terms:
    description: At most one term, the O(capability).
    required: false
  capability:
    description:
      - Only list devices with this capability, for example V(pci), V(net), V(usb_device) or V(storage).
      - All devices are listed when not set. The value is passed to libvirt unchecked, as upstream does.
    type: str
extends_documentation_fragment:
  - devinfra.providers.libvirt.lookup
seealso:
  - module: devinfra.providers.libvirt_node_devices_info
"""

EXAMPLES = r"""
- name: List the host's network devices
  ansible.builtin.debug:
    msg: "{{ lookup('devinfra.providers.libvirt_node_devices', 'net').devices }}"

- name: The same, with the option named
  ansible.builtin.debug:
    msg: "{{ lookup('devinfra.providers.libvirt_node_devices', capability='net').devices }}"
"""

RETURN = r"""
_raw:
  description:
    - One dictionary with the keys C(id), C(capability) and C(devices) (sorted names);
      see M(devinfra.providers.libvirt_node_devices_info).
  type: list
  elements: dict
"""

import typing as t

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.data_sources import DataSourceResult, node_devices
from ansible_collections.devinfra.providers.plugins.plugin_utils._libvirt_lookup import LibvirtDataSourceLookup


class LookupModule(LibvirtDataSourceLookup):
    term_option = "capability"

    def query(self, conn: t.Any) -> DataSourceResult:
        return node_devices(conn, self.get_option("capability"))
