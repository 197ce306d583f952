# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# A Coder template whose workspaces are libvirt VMs built by the devinfra.providers.workspace_vm
# playbook. Terraform makes the agent coderd knows; a local-exec provisioner runs the playbook.
# Push it with: coder templates push libvirt-vm -d examples/coder_template --variable hypervisor=NAME

terraform {
  required_providers {
    coder = {
      source  = "coder/coder"
      version = ">= 2.0.0"
    }
  }
}

# Set by the template admin (coder templates push --variable NAME=VALUE): where and how the
# playbook builds. No credential goes here: the provisioner's environment holds them.
variable "hypervisor" {
  type        = string
  description = "The provisioner tag value (hypervisor=...) of the provisioners that build this template's workspaces."
  default     = "libvirt"
}

variable "libvirt_uri" {
  type        = string
  description = "The libvirt URI the playbook builds on: qemu:///system on the provisioner's own machine, or qemu+ssh://USER@HOST/system."
  default     = "qemu:///system"
}

variable "arch" {
  type        = string
  description = "The VMs' architecture, which is also the agent's and the base image's: amd64 or arm64."
  default     = "amd64"
  validation {
    condition     = contains(["amd64", "arm64"], var.arch)
    error_message = "The arch must be amd64 or arm64."
  }
}

variable "state_location" {
  type        = string
  description = "Where the workspace state files are kept (one per workspace): a directory of the provisioner that outlives it, or gs://BUCKET/PREFIX."
  default     = "/var/lib/coder-devinfra/state"
}

variable "seed_dir" {
  type        = string
  description = "The directory the provisioner builds the cloud-init seed ISOs in (and, when serial_log_dir is empty, where each VM's console log is written on the libvirt host)."
  default     = "/var/lib/coder-devinfra/cloudinit"
}

variable "serial_log_dir" {
  type        = string
  description = "A directory of the libvirt host for the VMs' console logs; empty: beside the seed ISO. Set it (for example /var/log/libvirt/qemu) when the libvirt host is another machine."
  default     = ""
}

data "coder_provisioner" "me" {}
data "coder_workspace" "me" {}
data "coder_workspace_owner" "me" {}

# Only provisioners started with --tag hypervisor=<var.hypervisor> build these workspaces.
data "coder_workspace_tags" "hypervisor" {
  tags = {
    "hypervisor" = var.hypervisor
  }
}

# The parameters the workspace_vm role reads (its workspace_parameter lookups): the same names,
# types, defaults and validations, so that a value coderd accepts is one the role accepts.
data "coder_parameter" "cpu" {
  name         = "cpu"
  display_name = "CPUs"
  type         = "number"
  default      = 2
  mutable      = true
  order        = 1
  validation {
    min = 1
    max = 64
  }
}

data "coder_parameter" "memory" {
  name         = "memory"
  display_name = "Memory (MiB)"
  type         = "number"
  default      = 2048
  mutable      = true
  order        = 2
  validation {
    min = 256
  }
}

data "coder_parameter" "disk_size" {
  name         = "disk_size"
  display_name = "Disk size (GiB)"
  type         = "number"
  default      = 10
  mutable      = true
  order        = 3
  validation {
    min       = 1
    monotonic = "increasing"
  }
}

# The root disk is an overlay on this image: chosen once, when the workspace is created.
data "coder_parameter" "base_image" {
  name         = "base_image"
  display_name = "Operating system"
  type         = "string"
  default      = "debian-13"
  mutable      = false
  order        = 4
  option {
    name  = "Debian 13"
    value = "debian-13"
  }
  option {
    name  = "Ubuntu 24.04"
    value = "ubuntu-24.04"
  }
}

locals {
  # Cloud images with cloud-init. Without a checksum a URL's base volume is named after the URL
  # and fetched once; pin a dated image's sha256 ("sha256:<hex>") to have it verified.
  images = {
    "debian-13" = {
      url      = "https://cloud.debian.org/images/cloud/trixie/latest/debian-13-genericcloud-${var.arch}.qcow2"
      checksum = ""
    }
    "ubuntu-24.04" = {
      url      = "https://cloud-images.ubuntu.com/noble/current/noble-server-cloudimg-${var.arch}.img"
      checksum = ""
    }
  }
  image = local.images[data.coder_parameter.base_image.value]

  # One workspace state file per workspace, where the next build finds it.
  state_file = "${var.state_location}/${data.coder_workspace.me.id}.json"

  # What every run of the playbook needs, start, stop or destroy. The hypervisor is prepared once
  # by its admin (the libvirt_host role), never by a build.
  common_vars = {
    workspace_vm_prepare_host = false
    workspace_vm_uri          = var.libvirt_uri
    workspace_vm_seed_dir     = var.seed_dir
    workspace_vm_serial_log   = var.serial_log_dir == "" ? "" : "${var.serial_log_dir}/${data.coder_workspace.me.id}.log"
  }

  # The playbook's extra variables (JSON, in an environment variable) on start and stop. The role
  # reads the parameters from the CODER_PARAMETER_* variables coderd sets; they are passed here
  # too, so that a run outside coderd builds what the dashboard shows.
  start_vars = {
    workspace_vm_arch                = var.arch
    workspace_vm_base_image          = local.image.url
    workspace_vm_base_image_checksum = local.image.checksum
    workspace_vm_cpu                 = tonumber(data.coder_parameter.cpu.value)
    workspace_vm_memory              = tonumber(data.coder_parameter.memory.value)
    workspace_vm_disk_size           = tonumber(data.coder_parameter.disk_size.value)
  }

  # And when the workspace is deleted (coderd says destroy too; the playbook is told outright).
  destroy_vars = {
    workspace_vm_transition = "destroy"
  }
}

# The agent coderd knows: Terraform makes its id, token and init script.
resource "coder_agent" "main" {
  os   = "linux"
  arch = var.arch

  metadata {
    key          = "load"
    display_name = "Load average"
    script       = "cut -d' ' -f1 /proc/loadavg"
    interval     = 60
    timeout      = 1
  }

  metadata {
    key          = "disk"
    display_name = "Root disk"
    script       = "df -h --output=used,size / | tail -n 1"
    interval     = 600
    timeout      = 5
  }
}

# Every build, start or stop, runs the playbook: coderd gives the agent a new token on every
# build, so the token replaces this resource each time. The dashboard shows the agent under it.
resource "terraform_data" "workspace_vm" {
  triggers_replace = [data.coder_workspace.me.transition, coder_agent.main.token, local.start_vars]

  provisioner "local-exec" {
    # The shell expands the variable as one word: the JSON is never parsed by it.
    command = "ansible-playbook devinfra.providers.workspace_vm -e \"$WORKSPACE_VM_VARS\""
    # Terraform hides all of a provisioner's output when its configuration holds a sensitive
    # value. The playbook never shows the token (its tasks are no_log): nonsensitive() keeps the
    # playbook's output in the build log. The token is in the environment, never on a command line.
    environment = {
      WORKSPACE_VM_VARS              = jsonencode(merge(local.common_vars, local.start_vars))
      WORKSPACE_VM_AGENT_ID          = coder_agent.main.id
      WORKSPACE_VM_AGENT_TOKEN       = nonsensitive(coder_agent.main.token)
      WORKSPACE_VM_AGENT_INIT_SCRIPT = coder_agent.main.init_script
      DEVINFRA_WORKSPACE_STATE       = local.state_file
    }
  }
}

# Deleting the workspace removes the VM, its disks and its seed ISO. A resource of its own, made
# once: replacing the one above on every build must never run this. A destroy-time provisioner
# reads only its own resource, so what it needs travels in its input.
resource "terraform_data" "workspace_vm_destroy" {
  input = {
    state_file = local.state_file
    vars       = jsonencode(merge(local.common_vars, local.destroy_vars))
  }

  provisioner "local-exec" {
    when    = destroy
    command = "ansible-playbook devinfra.providers.workspace_vm -e \"$WORKSPACE_VM_VARS\""
    environment = {
      WORKSPACE_VM_VARS        = self.input.vars
      DEVINFRA_WORKSPACE_STATE = self.input.state_file
    }
  }
}

# What the dashboard shows beside the VM; the destroy-time resource stays out of sight.
resource "coder_metadata" "workspace_vm" {
  resource_id = terraform_data.workspace_vm.id
  item {
    key   = "CPUs"
    value = data.coder_parameter.cpu.value
  }
  item {
    key   = "Memory (MiB)"
    value = data.coder_parameter.memory.value
  }
  item {
    key   = "Disk size (GiB)"
    value = data.coder_parameter.disk_size.value
  }
  item {
    key   = "Base image"
    value = local.image.url
  }
  item {
    key   = "Hypervisor"
    value = var.hypervisor
  }
}

resource "coder_metadata" "workspace_vm_destroy" {
  resource_id = terraform_data.workspace_vm_destroy.id
  hide        = true
}
