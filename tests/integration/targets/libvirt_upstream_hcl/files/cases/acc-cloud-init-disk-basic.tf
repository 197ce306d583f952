# From dmacvicar/terraform-provider-libvirt 6bd1e07319af, internal/provider/cloudinit_disk_resource_test.go, testAccCloudInitDiskResourceConfigBasic (Go placeholders filled with test values)
# SPDX-FileCopyrightText: terraform-provider-libvirt contributors
# SPDX-License-Identifier: Apache-2.0
resource "libvirt_cloudinit_disk" "test" {
  name      = "tf-acc-test"
  user_data = <<-EOF
    #cloud-config
    users:
      - name: root
        ssh_authorized_keys:
          - ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC0/Ho1w+1D4vJccMzEQBzREzCY4NjkrJYh8+9rQJgDrYPrWLe1PJYvDG6r1uDlLrZJhwwq1PcJQw test@example.com
  EOF

  meta_data = <<-EOF
    instance-id: tf-acc-test-001
    local-hostname: tf-acc-test
  EOF
}
