#!/usr/bin/python
# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: libvirt_node_info
short_description: Read the CPU and memory facts of a libvirt host
version_added: 0.1.0
description:
  - Returns the host facts of the C(libvirt_node_info) data source of the upstream Terraform provider
    (terraform-provider-libvirt 0.9), with the same field names and the same RV(id).
  - The same data is available on the controller through the P(devinfra.providers.libvirt_node_info#lookup) lookup.
author:
  - devinfra.providers contributors (@devinfra)
options: {}
extends_documentation_fragment:
  - devinfra.providers.libvirt
  - devinfra.providers.attributes
  - devinfra.providers.attributes.info_module
  - devinfra.providers.attributes.actiongroup_libvirt
seealso:
  - plugin: devinfra.providers.libvirt_node_info
    plugin_type: lookup
  - module: devinfra.providers.libvirt_node_devices_info
"""

EXAMPLES = r"""
- name: Read the facts of the local libvirt host
  devinfra.providers.libvirt_node_info:
  register: node

- name: Size a guest from them
  ansible.builtin.debug:
    msg: "{{ node.cpu_cores_total }} CPUs, {{ (node.memory_total_kb / 1024) | int }} MiB"

- name: Read the facts of a remote host
  devinfra.providers.libvirt_node_info:
    uri: qemu+ssh://root@hypervisor.example.com/system
"""

RETURN = r"""
id:
  description:
    - Upstream's id for this data, a decimal hash of all the other values.
  returned: success
  type: str
  sample: "3163122404942841546"
cpu_model:
  description: The CPU model (architecture) string of the host.
  returned: success
  type: str
  sample: x86_64
memory_total_kb:
  description:
    - Memory of the host in KiB, exactly as C(virsh nodeinfo) reports it.
  returned: success
  type: int
  sample: 3145728
cpu_cores_total:
  description: Number of active CPUs.
  returned: success
  type: int
  sample: 16
numa_nodes:
  description: Number of NUMA cells.
  returned: success
  type: int
  sample: 2
cpu_sockets:
  description: Number of CPU sockets per NUMA cell.
  returned: success
  type: int
  sample: 2
cpu_cores_per_socket:
  description: Number of cores per socket.
  returned: success
  type: int
  sample: 2
cpu_threads_per_core:
  description: Number of threads per core.
  returned: success
  type: int
  sample: 2
"""

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.data_sources import node_info
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.info_module import run_info_module


def main() -> None:
    run_info_module({}, lambda conn, _params: node_info(conn))


if __name__ == "__main__":
    main()
