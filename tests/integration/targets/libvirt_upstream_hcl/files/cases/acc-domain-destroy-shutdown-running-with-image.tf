# From dmacvicar/terraform-provider-libvirt 6bd1e07319af, internal/provider/domain_resource_test.go, testAccDomainResourceConfigDestroyShutdownRunningWithImage (Go placeholders filled with test values)
# SPDX-FileCopyrightText: terraform-provider-libvirt contributors
# SPDX-License-Identifier: Apache-2.0
resource "libvirt_pool" "test" {
  name = "tf-acc-pool"
  type = "dir"
  target = {
    path = "/tmp/tf-acc-pool"
    permissions = {
      mode = "777"
    }
  }
}

resource "libvirt_volume" "test" {
  name = "tf-acc-volume.qcow2"
  pool = libvirt_pool.test.name
  target = {
    permissions = {
      mode = "666"
    }
    format = {
      type = "qcow2"
    }
  }
  create = {
    content = {
      url = "/tmp/tf-acc-image.qcow2"
    }
  }
}

resource "libvirt_domain" "test" {
  name    = "tf-acc-domain"
  memory  = 512
  memory_unit = "MiB"
  vcpu    = 1
  type    = "kvm"
  running = true

  destroy = {
    shutdown = {
      timeout = 30
    }
  }

  os = {
    type         = "hvm"
    type_arch    = "x86_64"
    type_machine = "q35"
  }

  features = {
    acpi = true
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
        driver = {
          name = "qemu"
          type = "qcow2"
        }
        target = {
          dev = "sda"
          bus = "sata"
        }
      }
    ]
    graphics = [
      {
        vnc = {
          auto_port = true
          listen    = "0.0.0.0"
        }
      }
    ]
  }
}
