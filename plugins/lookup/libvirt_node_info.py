# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: libvirt_node_info
short_description: Read the CPU and memory facts of a libvirt host
version_added: 0.1.0
description:
  - Returns the host facts of the C(libvirt_node_info) data source of the upstream Terraform provider
    (terraform-provider-libvirt 0.9), with the same field names and the same C(id), as one dictionary.
  - Runs on the controller; use M(devinfra.providers.libvirt_node_info) to ask from the managed host.
author:
  - devinfra.providers contributors (@devinfra)
options: {}
extends_documentation_fragment:
  - devinfra.providers.libvirt.lookup
seealso:
  - module: devinfra.providers.libvirt_node_info
"""

EXAMPLES = r"""
- name: Show the host's memory
  ansible.builtin.debug:
    msg: "{{ lookup('devinfra.providers.libvirt_node_info').memory_total_kb }} KiB"

- name: Ask another host
  ansible.builtin.debug:
    msg: "{{ lookup('devinfra.providers.libvirt_node_info', uri='qemu+ssh://root@hypervisor.example.com/system') }}"
"""

RETURN = r"""
_raw:
  description:
    - One dictionary with the keys C(id), C(cpu_model), C(memory_total_kb), C(cpu_cores_total), C(numa_nodes),
      C(cpu_sockets), C(cpu_cores_per_socket) and C(cpu_threads_per_core); see M(devinfra.providers.libvirt_node_info).
  type: list
  elements: dict
"""

import typing as t

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.data_sources import DataSourceResult, node_info
from ansible_collections.devinfra.providers.plugins.plugin_utils._libvirt_lookup import LibvirtDataSourceLookup


class LookupModule(LibvirtDataSourceLookup):
    def query(self, conn: t.Any) -> DataSourceResult:
        return node_info(conn)
