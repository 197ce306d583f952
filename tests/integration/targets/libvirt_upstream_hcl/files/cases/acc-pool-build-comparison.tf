# From dmacvicar/terraform-provider-libvirt 6bd1e07319af, internal/provider/pool_resource_test.go, testAccPoolResourceConfigBuildComparison (Go placeholders filled with test values)
# SPDX-FileCopyrightText: terraform-provider-libvirt contributors
# SPDX-License-Identifier: Apache-2.0
resource "libvirt_pool" "no_build" {
  name = "tf-acc-pool-nobuild"
  type = "dir"
  target = {
    path = "/tmp/tf-acc-pool-nobuild"
  }
  create = {
    build     = false
    start     = false
    autostart = false
  }
  destroy = {
    delete = false
  }
}

resource "libvirt_pool" "with_build" {
  name = "tf-acc-pool-build"
  type = "dir"
  target = {
    path = "/tmp/tf-acc-pool-build"
  }
  create = {
    build     = true
    start     = false
    autostart = false
  }
  destroy = {
    delete = false
  }
}
