# From dmacvicar/terraform-provider-libvirt 6bd1e07319af, internal/provider/volume_resource_test.go, testAccVolumeResourceConfigWithDomain (Go placeholders filled with test values)
# SPDX-FileCopyrightText: terraform-provider-libvirt contributors
# SPDX-License-Identifier: Apache-2.0
resource "libvirt_pool" "test" {
  name = "test-pool-integration"
  type = "dir"
  target = {
    path = "/tmp/tf-acc-pool"
  }
}

resource "libvirt_volume" "test" {
  name     = "tf-acc-test.qcow2"
  pool     = libvirt_pool.test.name
  capacity = 1073741824
  target = {
    format = {
      type = "qcow2"
    }
  }
}

resource "libvirt_domain" "test" {
  name   = "test-domain-integration"
  memory = 512
  vcpu   = 1
  type   = "kvm"

  os = {
    type    = "hvm"
    arch    = "x86_64"
    machine = "q35"
  }

  devices = {
    disks = [
      {
        source = {
          volume = {
            pool   = libvirt_pool.test.name
            volume = libvirt_volume.test.name
          }
        }
        target = {
          dev = "vda"
          bus = "virtio"
        }
      }
    ]
  }
}
