# From dmacvicar/terraform-provider-libvirt 6bd1e07319af, internal/provider/domain_resource_test.go, testAccDomainResourceConfigDiskWWN (Go placeholders filled with test values)
# SPDX-FileCopyrightText: terraform-provider-libvirt contributors
# SPDX-License-Identifier: Apache-2.0
resource "libvirt_pool" "test" {
  name = "tf-acc-test"
  type = "dir"
  target = {
    path = "/tmp/terraform-provider-libvirt-pool-tf-acc-test"
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
  name   = "tf-acc-test"
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
    disks = [
      {
        source = {
          volume = {
            pool   = libvirt_pool.test.name
            volume = libvirt_volume.test.name
          }
        }
        target = {
          dev = "sda"
          bus = "scsi"
        }
        wwn = "5000c50015ea71ad"
      }
    ]
  }
}
