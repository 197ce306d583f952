# From dmacvicar/terraform-provider-libvirt 6bd1e07319af, internal/provider/data_source_node_device_info_test.go, testAccNodeDeviceInfoDataSourceConfigPCI (Go placeholders filled with test values)
# SPDX-FileCopyrightText: terraform-provider-libvirt contributors
# SPDX-License-Identifier: Apache-2.0
# Then get details about the first PCI device
data "libvirt_node_device_info" "test" {
  name = "pci_0000_00_00_0"
}
