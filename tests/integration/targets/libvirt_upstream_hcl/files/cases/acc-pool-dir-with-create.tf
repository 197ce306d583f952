# From dmacvicar/terraform-provider-libvirt 6bd1e07319af, internal/provider/pool_resource_test.go, testAccPoolResourceConfigDirWithCreate (Go placeholders filled with test values)
# SPDX-FileCopyrightText: terraform-provider-libvirt contributors
# SPDX-License-Identifier: Apache-2.0
resource "libvirt_pool" "test" {
  name = "tf-acc-test"
  type = "dir"
  target = {
    path = "/tmp/tf-acc-pool"
  }
  create = {
    start     = true
    autostart = true
  }
}
