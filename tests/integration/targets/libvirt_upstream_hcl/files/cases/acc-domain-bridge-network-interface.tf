# From dmacvicar/terraform-provider-libvirt 6bd1e07319af, internal/provider/domain_resource_test.go, TestAccDomainResource_bridgeNetworkInterface
# SPDX-FileCopyrightText: terraform-provider-libvirt contributors
# SPDX-License-Identifier: Apache-2.0
resource "libvirt_network" "public_bridge" {
  name = "public_bridge"

  # Bridge mode network
  forward = {
    mode = "bridge"
  }

  # Bridge configuration
  bridge = {
    name = "virbr0"
  }
}

resource "libvirt_domain" "worker_node" {
  name   = "test-domain-bridge-network"
  memory = 512
  memory_unit   = "MiB"
  vcpu   = 1
  type   = "kvm"

  os = {
    type    = "hvm"
    type_arch    = "x86_64"
    type_machine = "q35"
  }

  devices = {
    interfaces = [
      {
        model = {
          type = "virtio"
        }
        # Bridge type interface with bridge attribute from network resource
        source = {
          bridge = {
            bridge = libvirt_network.public_bridge.bridge.name
          }
        }
      }
    ]
  }
}
