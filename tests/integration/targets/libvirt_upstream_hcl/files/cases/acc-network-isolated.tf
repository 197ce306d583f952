# From dmacvicar/terraform-provider-libvirt 6bd1e07319af, internal/provider/network_resource_test.go, testAccNetworkResourceConfigIsolated (Go placeholders filled with test values)
# SPDX-FileCopyrightText: terraform-provider-libvirt contributors
# SPDX-License-Identifier: Apache-2.0
resource "libvirt_network" "test" {
  name = "tf-acc-test"

  # No forward block = isolated network

  ips = [
    {
      address = "192.168.100.1"
      netmask = "255.255.255.0"
    }
  ]
}
