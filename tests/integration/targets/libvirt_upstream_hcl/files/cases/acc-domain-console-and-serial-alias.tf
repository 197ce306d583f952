# From dmacvicar/terraform-provider-libvirt 6bd1e07319af, internal/provider/domain_resource_test.go, testAccDomainResourceConfigConsoleAndSerialAlias (Go placeholders filled with test values)
# SPDX-FileCopyrightText: terraform-provider-libvirt contributors
# SPDX-License-Identifier: Apache-2.0
resource "libvirt_domain" "test" {
  name        = "tf-acc-test"
  running     = false
  memory      = 512
  memory_unit = "MiB"
  vcpu        = 1
  type        = "kvm"

  os = {
    type         = "hvm"
    type_arch    = "x86_64"
    type_machine = "q35"
  }

  devices = {
    serials = [
      {
        alias = {
          name = "serial0"
        }
        source = {
          tcp = {
            mode    = "bind"
            host    = "127.0.0.1"
            service = "12345"
            tls     = "no"
          }
        }
        protocol = {
          type = "telnet"
        }
        target = {
          type = "isa-serial"
          port = 0
          model = {
            name = "isa-serial"
          }
        }
      }
    ]

    consoles = [
      {
        alias = {
          name = "serial0"
        }
        source = {
          tcp = {
            mode    = "bind"
            host    = "127.0.0.1"
            service = "12345"
            tls     = "no"
          }
        }
        protocol = {
          type = "telnet"
        }
        target = {
          type = "serial"
          port = 0
        }
      }
    ]
  }
}
