# From dmacvicar/terraform-provider-libvirt 6bd1e07319af, internal/provider/volume_resource_test.go, testAccVolumeResourceConfigCapacityUnit (Go placeholders filled with test values)
# SPDX-FileCopyrightText: terraform-provider-libvirt contributors
# SPDX-License-Identifier: Apache-2.0
resource "libvirt_pool" "test" {
  name = "test-pool-cap-unit"
  type = "dir"
  target = {
    path = "/tmp/tf-acc-pool"
  }
}

resource "libvirt_volume" "test" {
  name          = "tf-acc-test.qcow2"
  pool          = libvirt_pool.test.name
  capacity      = 1
  capacity_unit = "GiB"
  target = {
    format = {
      type = "qcow2"
    }
  }
}
