# From dmacvicar/terraform-provider-libvirt 6bd1e07319af, internal/provider/data_source_node_devices_test.go, testAccNodeDevicesDataSourceConfigFiltered (Go string concatenation filled with test values)
# SPDX-FileCopyrightText: terraform-provider-libvirt contributors
# SPDX-License-Identifier: Apache-2.0
data "libvirt_node_devices" "test" {
  capability = "pci"
}
