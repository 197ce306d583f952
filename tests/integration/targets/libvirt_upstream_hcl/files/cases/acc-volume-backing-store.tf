# From dmacvicar/terraform-provider-libvirt 6bd1e07319af, internal/provider/volume_resource_test.go, testAccVolumeResourceConfigBackingStore (Go placeholders filled with test values)
# SPDX-FileCopyrightText: terraform-provider-libvirt contributors
# SPDX-License-Identifier: Apache-2.0
resource "libvirt_pool" "test" {
  name = "test-pool-backing"
  type = "dir"
  target = {
    path = "/tmp/tf-acc-pool"
  }
}

resource "libvirt_volume" "base" {
  name     = "tf-acc-test-base.qcow2"
  pool     = libvirt_pool.test.name
  capacity = 1073741824
  target = {
    format = {
      type = "qcow2"
    }
  }
}

resource "libvirt_volume" "cow" {
  name     = "tf-acc-test.qcow2"
  pool     = libvirt_pool.test.name
  capacity = 1073741824
  target = {
    format = {
      type = "qcow2"
    }
  }

  backing_store = {
    path = libvirt_volume.base.path
    format = {
      type = "qcow2"
    }
  }
}
