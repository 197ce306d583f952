# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: libvirt_node_device_info
short_description: Read the details of one device of a libvirt host
version_added: 0.1.0
description:
  - Returns the details of the C(libvirt_node_device_info) data source of the upstream Terraform provider
    (terraform-provider-libvirt 0.9), with the same field names, as one dictionary.
  - Runs on the controller; use M(devinfra.providers.libvirt_node_device_info) to ask from the managed host.
author:
  - devinfra.providers contributors (@devinfra)
options:
  _terms:
    description: At most one term, the O(name).
    required: false
  name:
    description:
      - The device name, as listed by P(devinfra.providers.libvirt_node_devices#lookup). Required, as a term or as this option.
    type: str
extends_documentation_fragment:
  - devinfra.providers.libvirt.lookup
seealso:
  - module: devinfra.providers.libvirt_node_device_info
"""

EXAMPLES = r"""
- name: Show the host's "computer" device
  ansible.builtin.debug:
    msg: "{{ lookup('devinfra.providers.libvirt_node_device_info', 'computer').capability.type }}"
"""

RETURN = r"""
_raw:
  description:
    - One dictionary with the keys C(id), C(name), C(path), C(parent) and C(capability);
      see M(devinfra.providers.libvirt_node_device_info) for every key of C(capability).
  type: list
  elements: dict
"""

import typing as t

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.data_sources import DataSourceResult, node_device_info
from ansible_collections.devinfra.providers.plugins.plugin_utils._libvirt_lookup import LibvirtDataSourceLookup


class LookupModule(LibvirtDataSourceLookup):
    term_option = "name"
    required_option = "name"

    def query(self, conn: t.Any) -> DataSourceResult:
        return node_device_info(conn, self.get_option("name"))
