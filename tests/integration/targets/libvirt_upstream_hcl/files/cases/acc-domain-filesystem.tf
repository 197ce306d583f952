# From dmacvicar/terraform-provider-libvirt 6bd1e07319af, internal/provider/domain_resource_test.go, testAccDomainResourceConfigFilesystem (Go placeholders filled with test values)
# SPDX-FileCopyrightText: terraform-provider-libvirt contributors
# SPDX-License-Identifier: Apache-2.0
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
    filesystems = [
      {
        source = {
          mount = {
            dir = "/tmp/tf-acc-shared"
          }
        }
        target = {
          dir = "shared"
        }
        access_mode = "mapped"
        read_only   = true
      },
      {
        source = {
          mount = {
            dir = "/tmp/tf-acc-data"
          }
        }
        target = {
          dir = "data"
        }
        access_mode = "passthrough"
        read_only   = false
      }
    ]
  }
}
