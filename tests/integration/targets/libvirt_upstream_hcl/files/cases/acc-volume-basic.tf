# From dmacvicar/terraform-provider-libvirt 6bd1e07319af, internal/provider/volume_resource_test.go, testAccVolumeResourceConfigBasic (Go placeholders filled with test values)
# SPDX-FileCopyrightText: terraform-provider-libvirt contributors
# SPDX-License-Identifier: Apache-2.0
resource "libvirt_pool" "test" {
  name = "test-pool-volume"
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
