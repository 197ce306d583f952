# From dmacvicar/terraform-provider-libvirt 6bd1e07319af, internal/provider/data_source_node_info_test.go, testAccNodeInfoDataSourceConfigBasic
# SPDX-FileCopyrightText: terraform-provider-libvirt contributors
# SPDX-License-Identifier: Apache-2.0
data "libvirt_node_info" "test" {
}
