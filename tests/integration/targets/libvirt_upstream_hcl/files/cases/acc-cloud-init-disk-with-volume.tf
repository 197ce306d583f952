# From dmacvicar/terraform-provider-libvirt 6bd1e07319af, internal/provider/cloudinit_disk_resource_test.go, testAccCloudInitDiskResourceConfigWithVolume (Go placeholders filled with test values)
# SPDX-FileCopyrightText: terraform-provider-libvirt contributors
# SPDX-License-Identifier: Apache-2.0
resource "libvirt_pool" "test" {
  name = "test-pool-cloudinit"
  type = "dir"
  target = {
    path = "/tmp/tf-acc-pool"
  }
}

resource "libvirt_cloudinit_disk" "test" {
  name      = "tf-acc-test"
  user_data = <<-EOF
    #cloud-config
    password: password
    chpasswd:
      expire: false
    ssh_pwauth: true
  EOF

  meta_data = <<-EOF
    instance-id: tf-acc-test-001
    local-hostname: tf-acc-test
  EOF
}

resource "libvirt_volume" "cloudinit" {
  name   = "tf-acc-test.iso"
  pool   = libvirt_pool.test.name
  # Let libvirt auto-detect format (it will detect as "iso")

  create = {
    content = {
      url = libvirt_cloudinit_disk.test.path
    }
  }
}
