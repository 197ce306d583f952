# From dmacvicar/terraform-provider-libvirt 6bd1e07319af, internal/provider/network_resource_test.go, testAccNetworkResourceConfigBasic (Go placeholders filled with test values)
# SPDX-FileCopyrightText: terraform-provider-libvirt contributors
# SPDX-License-Identifier: Apache-2.0
resource "libvirt_network" "test" {
  name      = "tf-acc-test"
  autostart = false

  forward = {
    mode = "nat"
  }

  ips = [
    {
      address = "10.17.3.1"
      netmask = "255.255.255.0"
    }
  ]
}
