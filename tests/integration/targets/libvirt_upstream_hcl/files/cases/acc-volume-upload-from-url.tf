# From dmacvicar/terraform-provider-libvirt 6bd1e07319af, internal/provider/volume_resource_test.go, testAccVolumeResourceConfigUploadFromURL (Go placeholders filled with test values)
# SPDX-FileCopyrightText: terraform-provider-libvirt contributors
# SPDX-License-Identifier: Apache-2.0
resource "libvirt_pool" "test" {
  name = "test-pool-upload-url"
  type = "dir"
  target = {
    path = "/tmp/tf-acc-pool"
  }
}

resource "libvirt_volume" "test" {
  name = "tf-acc-test.img"
  pool = libvirt_pool.test.name
  target = {
    format = {
      type = "raw"
    }
  }

  create = {
    content = {
      url = "http://127.0.0.1/tf-acc-source.img"
    }
  }
}
