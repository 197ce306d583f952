#!/usr/bin/python
# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: libvirt_node_device_info
short_description: Read the details of one device of a libvirt host
version_added: 0.1.0
description:
  - Returns the details of the C(libvirt_node_device_info) data source of the upstream Terraform provider
    (terraform-provider-libvirt 0.9), with the same field names.
  - Only the first capability of the device is read, as upstream does.
  - The same data is available on the controller through the P(devinfra.providers.libvirt_node_device_info#lookup) lookup.
author:
  - devinfra.providers contributors (@devinfra)
options:
  name:
    description:
      - The device name, as listed by M(devinfra.providers.libvirt_node_devices_info).
    type: str
    required: true
extends_documentation_fragment:
  - devinfra.providers.libvirt
  - devinfra.providers.attributes
  - devinfra.providers.attributes.info_module
  - devinfra.providers.attributes.actiongroup_libvirt
notes:
  - Upstream stores the bus name of a V(storage) device (for example V(ata)) in the numeric RV(capability.bus)
    field, which fails. Here RV(capability.bus) stays null for storage devices and the bus name is
    returned in RV(capability.storage_bus).
seealso:
  - plugin: devinfra.providers.libvirt_node_device_info
    plugin_type: lookup
  - module: devinfra.providers.libvirt_node_devices_info
"""

EXAMPLES = r"""
- name: Read the details of the host's first network card
  devinfra.providers.libvirt_node_device_info:
    name: net_eth0_52_54_00_12_34_56
  register: nic

- name: Show its MAC address and link state
  ansible.builtin.debug:
    msg: "{{ nic.capability.address }} is {{ nic.capability.link_state }}"
"""

RETURN = r"""
id:
  description: Upstream's id for this data, the device name.
  returned: success
  type: str
  sample: pci_0000_00_01_0
name:
  description: The device name.
  returned: success
  type: str
  sample: pci_0000_00_01_0
path:
  description: The sysfs path of the device, an empty string when libvirt gives none.
  returned: success
  type: str
  sample: /sys/devices/pci0000:00/0000:00:01.0
parent:
  description: The name of the parent device, an empty string when there is none.
  returned: success
  type: str
  sample: computer
capability:
  description:
    - The device's first capability. Every key is present; the ones its type does not set are null.
  returned: success
  type: dict
  contains:
    type:
      description:
        - The capability type, V(pci), V(usb_device), V(net), V(storage), V(scsi), V(scsi_host),
          V(system), V(usb), V(drm), or V(unknown) for any other.
      type: str
      sample: pci
    domain:
      description: PCI domain.
      type: int
    bus:
      description: PCI bus, USB bus or SCSI bus number.
      type: int
    slot:
      description: PCI slot.
      type: int
    function:
      description: PCI function.
      type: int
    class:
      description: PCI class code.
      type: str
      sample: "0x020000"
    product_id:
      description: PCI or USB product id.
      type: str
      sample: "0x1000"
    product_name:
      description: PCI or USB product name.
      type: str
    vendor_id:
      description: PCI or USB vendor id.
      type: str
      sample: "0x1af4"
    vendor_name:
      description: PCI, USB or storage vendor name.
      type: str
    iommu_group:
      description: IOMMU group number of a PCI device.
      type: int
    device_number:
      description: USB device number.
      type: int
    interface:
      description: Network interface name.
      type: str
      sample: eth0
    address:
      description: Network interface MAC address.
      type: str
      sample: "52:54:00:12:34:56"
    link_speed:
      description: Network link speed in Mbit/s.
      type: str
      sample: "1000"
    link_state:
      description: Network link state.
      type: str
      sample: up
    block:
      description: Block device path of a storage device.
      type: str
      sample: /dev/sda
    storage_bus:
      description:
        - Bus name of a storage device. Not in upstream, see the notes.
      type: str
      sample: ata
      version_added: 0.1.0
    drive_type:
      description: Drive type of a storage device.
      type: str
      sample: disk
    model:
      description: Model of a storage device.
      type: str
    serial:
      description: Serial number of a storage device.
      type: str
    size:
      description: Size of a storage device in bytes.
      type: int
    logical_block_size:
      description: Logical block size of a storage device in bytes.
      type: int
    num_blocks:
      description: Number of blocks of a storage device.
      type: int
    host:
      description: SCSI host number.
      type: int
    target:
      description: SCSI target number.
      type: int
    lun:
      description: SCSI LUN.
      type: int
    scsi_type:
      description: SCSI device type.
      type: str
      sample: disk
"""

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.data_sources import node_device_info
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.info_module import run_info_module


def main() -> None:
    run_info_module({"name": {"type": "str", "required": True}}, lambda conn, params: node_device_info(conn, params["name"]))


if __name__ == "__main__":
    main()
