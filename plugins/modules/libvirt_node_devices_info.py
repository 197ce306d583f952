#!/usr/bin/python
# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: libvirt_node_devices_info
short_description: List the devices of a libvirt host
version_added: 0.1.0
description:
  - Returns the device names of the C(libvirt_node_devices) data source of the upstream Terraform provider
    (terraform-provider-libvirt 0.9), with the same field names and the same RV(id).
  - The same data is available on the controller through the P(devinfra.providers.libvirt_node_devices#lookup) lookup.
author:
  - devinfra.providers contributors (@devinfra)
options:
  capability:
    description:
      - Only list devices with this capability, for example V(system), V(pci), V(usb_device), V(usb),
        V(net), V(scsi_host), V(scsi), V(storage), V(drm), V(mdev), V(ccw), V(css), V(ap_queue),
        V(ap_card), V(ap_matrix) or V(ccw_group).
      - All devices are listed when not set. As upstream, the value is passed to libvirt unchecked;
        a capability libvirt does not know lists no devices.
    type: str
extends_documentation_fragment:
  - devinfra.providers.libvirt
  - devinfra.providers.attributes
  - devinfra.providers.attributes.info_module
  - devinfra.providers.attributes.actiongroup_libvirt
seealso:
  - plugin: devinfra.providers.libvirt_node_devices
    plugin_type: lookup
  - module: devinfra.providers.libvirt_node_device_info
"""

EXAMPLES = r"""
- name: List the PCI devices of the host
  devinfra.providers.libvirt_node_devices_info:
    capability: pci
  register: pci

- name: Read the details of each of them
  devinfra.providers.libvirt_node_device_info:
    name: "{{ item }}"
  loop: "{{ pci.devices }}"
"""

RETURN = r"""
id:
  description: Upstream's id for this data, a decimal hash of the filter and the number of devices.
  returned: success
  type: str
  sample: "106486012"
capability:
  description: The capability filter, as given (null when not set).
  returned: success
  type: str
  sample: pci
devices:
  description: The device names, sorted.
  returned: success
  type: list
  elements: str
  sample: [computer, net_eth0_52_54_00_12_34_56, pci_0000_00_00_0]
"""

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.data_sources import node_devices
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.info_module import run_info_module


def main() -> None:
    run_info_module({"capability": {"type": "str"}}, lambda conn, params: node_devices(conn, params["capability"]))


if __name__ == "__main__":
    main()
