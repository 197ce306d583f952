# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""terraform_import on configurations never applied (src_dir): upstream's own .tf files (the
examples and acceptance-test HCL of terraform-provider-libvirt, under the libvirt_upstream_hcl
target), literal count and for_each, the provider version, and hostile .tf content (Jinja in
strings, interpolations that are not literal, huge and oddly encoded files)."""

from __future__ import annotations

import glob
import json
import os
import re
import typing as t

import pytest
from ansible.parsing.yaml.loader import AnsibleLoader
from ansible.template import Templar, trust_as_template

from ansible_collections.devinfra.providers.plugins.module_utils._terraform import hcl
from ansible_collections.devinfra.providers.plugins.modules import terraform_import

Run = t.Callable[..., dict[str, t.Any]]
CASES = os.path.join(os.path.dirname(__file__), *[os.pardir] * 3, "integration", "targets", "libvirt_upstream_hcl", "files", "cases")
UPSTREAM = sorted(glob.glob(os.path.join(CASES, "*.tf")))
REQUIRED = """
terraform {
  required_providers {
    libvirt = {
      source  = "dmacvicar/libvirt"
      version = "~> 0.9.0"
    }
  }
}
"""
# Upstream's resources that are not converted, and the attribute the reason names: what is known
# only after apply (a volume's path), or what the module refuses as upstream wrote it.
NOT_CONVERTED = {
    "acc-cloud-init-disk-with-volume.tf": {"libvirt_volume.cloudinit": "create.content.url: libvirt_cloudinit_disk.test.path is known only after apply"},
    "acc-domain-tpm.tf": {"libvirt_domain.test": "devices.tpms[0].backend_type: unsupported option"},
    "acc-volume-backing-store.tf": {"libvirt_volume.cow": "backing_store.path: libvirt_volume.base.path is known only after apply"},
    "acc-volume-with-domain.tf": {"libvirt_domain.test": "os.arch: unsupported option"},
    "example-alpine_cloudinit.tf": {
        "libvirt_volume.alpine_disk": "backing_store.path: libvirt_volume.alpine_base.path is known only after apply",
        "libvirt_volume.alpine_seed_volume": "create.content.url: libvirt_cloudinit_disk.alpine_seed.path is known only after apply",
    },
    "example-resources-libvirt_volume.tf": {"libvirt_volume.overlay": "backing_store.path: libvirt_volume.base.path is known only after apply"},
    "example-two_vms_with_cloudinit.tf": {
        "libvirt_volume.vm1_disk": "backing_store.path: libvirt_volume.ubuntu_base.path",
        "libvirt_volume.vm2_disk": "backing_store.path: libvirt_volume.alpine_base.path",
        "libvirt_volume.vm1_cloudinit": "create.content.url: libvirt_cloudinit_disk.vm1_init.path",
        "libvirt_volume.vm2_cloudinit": "create.content.url: libvirt_cloudinit_disk.vm2_init.path",
    },
}


def _import(run_module: Run, src_dir: t.Any, dest: t.Any, *, check_mode: bool = False, **args: t.Any) -> dict[str, t.Any]:
    return run_module(terraform_import.main, {"src_dir": str(src_dir), "dest": str(dest), **args}, check_mode=check_mode, diff=True)


def _configuration(tmp_path: t.Any, text: str | bytes, name: str = "main.tf") -> t.Any:
    directory = tmp_path / "config"
    directory.mkdir(exist_ok=True)
    path = directory / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return directory


def _rendered(path: t.Any) -> dict[str, tuple[str, dict[str, t.Any]]]:
    """Task name -> (module short name, options) as Ansible templates them when the play runs."""
    with open(path, encoding="utf-8") as handle:
        (play,) = AnsibleLoader(trust_as_template(handle.read())).get_single_data()
    out = {}
    for task in play["tasks"]:
        (module,) = [key for key in task if key.startswith("devinfra.providers.")]
        templar = Templar(loader=None, variables=task.get("vars", {}))
        out[str(templar.template(task["name"]))] = (module.rsplit(".", 1)[1], json.loads(json.dumps(templar.template(task[module]))))
    return out


# ---------------------------------------------------------------------------- upstream's configurations


@pytest.mark.parametrize("case", UPSTREAM, ids=[os.path.basename(case) for case in UPSTREAM])
def test_upstream_configurations(run_module: Run, tmp_path: t.Any, case: str) -> None:
    """Every resource block of upstream's files is a task or is listed with its reason; the tasks
    hold upstream's values (the references to other resources' names resolved)."""
    with open(case, encoding="utf-8") as handle:
        text = handle.read()
    dest = tmp_path / "site.yml"
    result = _import(run_module, _configuration(tmp_path, text), dest)
    assert not result.get("failed"), result.get("msg")
    blocks = re.findall(r'^(resource|data) "(\w+)" "(\w+)"', text, flags=re.MULTILINE)
    addresses = [f"{'data.' if mode == 'data' else ''}{kind}.{name}" for mode, kind, name in blocks]
    converted = [item["address"] for item in result["converted"]]
    listed = {item["address"]: item["reason"] for item in result["not_converted"]}
    assert sorted(converted + list(listed)) == sorted(addresses)
    expected = NOT_CONVERTED.get(os.path.basename(case), {})
    assert {address for address in listed if not address.startswith("data.")} == set(expected)
    for address, why in expected.items():
        assert why in listed[address]
    if blocks and any(mode == "resource" for mode, _kind, _name in blocks):
        assert result["configuration"]["libvirt_provider_version"] == "0.9"
    tasks = _rendered(dest) if converted else {}
    assert list(tasks) == converted
    for _module, options in tasks.values():
        assert "${" not in json.dumps(options)  # no interpolation is carried as text


def test_upstream_references_resolve_to_the_names_the_configuration_gives(run_module: Run, tmp_path: t.Any) -> None:
    with open(os.path.join(CASES, "example-alpine_cloudinit.tf"), encoding="utf-8") as handle:
        text = handle.read()
    dest = tmp_path / "site.yml"
    result = _import(run_module, _configuration(tmp_path, text), dest)
    assert result["configuration"] == {
        "files": ["main.tf"],
        "libvirt_provider_version": "0.9",
        "libvirt_provider_version_from": "assumed from the attributes the resources set (required_providers gives no version constraint)",
    }
    tasks = _rendered(dest)
    disks = tasks["libvirt_domain.alpine"][1]["devices"]["disks"]
    assert [disk["source"]["volume"] for disk in disks] == [
        {"pool": "default", "volume": "alpine-vm.qcow2"},
        {"pool": "default", "volume": "alpine-cloudinit.iso"},
    ]
    seed = tasks["libvirt_cloudinit_disk.alpine_seed"][1]
    assert seed["user_data"].startswith("#cloud-config\nchpasswd:\n  list: |\n    root:password\n")  # the heredoc, its indent cut
    assert seed["meta_data"] == "instance-id: alpine-001\nlocal-hostname: alpine-vm\n"
    # the domain runs after the volumes it names (the reference is a dependency)
    assert [item["address"] for item in result["converted"]].index("libvirt_domain.alpine") == len(result["converted"]) - 1


# ---------------------------------------------------------------------------- count and for_each

COUNTED = (
    REQUIRED
    + """
variable "prefix" { default = "tfx" }
variable "sizes" {
  type    = map(number)
  default = { data = 1048576, logs = 2097152 }
}
locals { pool = "${var.prefix}-pool" }
resource "libvirt_pool" "main" {
  name   = local.pool
  type   = "dir"
  target = { path = "/var/lib/x/${local.pool}" }
}
resource "libvirt_volume" "root" {
  count    = 2
  name     = "${var.prefix}-root-${count.index}.img"
  pool     = libvirt_pool.main.name
  capacity = 1048576
}
resource "libvirt_volume" "extra" {
  for_each = var.sizes
  name     = "${var.prefix}-${each.key}.img"
  pool     = libvirt_pool.main.name
  capacity = each.value
}
resource "libvirt_volume" "named" {
  for_each = toset(["b", "a", "b"])
  name     = "${each.value}.img"
  pool     = "default"
  capacity = 1024
}
resource "libvirt_volume" "none" {
  count    = 0
  name     = "never"
  pool     = "default"
}
resource "libvirt_domain" "vm" {
  count  = 1
  name   = "${var.prefix}-vm-${count.index}"
  memory = 65536
  memory_unit = "KiB"
  type   = "qemu"
  os     = { type = "hvm" }
  devices = {
    disks = [{
      source = { volume = { pool = libvirt_pool.main.name, volume = libvirt_volume.root[count.index].name } }
      target = { dev = "vda", bus = "virtio" }
    }]
  }
  depends_on = [libvirt_volume.extra]
}
"""
)


def test_count_and_for_each_make_one_task_per_instance(run_module: Run, tmp_path: t.Any) -> None:
    dest = tmp_path / "site.yml"
    result = _import(run_module, _configuration(tmp_path, COUNTED), dest)
    assert [item["address"] for item in result["converted"]] == [
        "libvirt_pool.main",
        "libvirt_volume.root[0]",
        "libvirt_volume.root[1]",
        'libvirt_volume.extra["data"]',
        'libvirt_volume.extra["logs"]',
        'libvirt_volume.named["a"]',  # a set's elements in order, once each
        'libvirt_volume.named["b"]',
        "libvirt_domain.vm[0]",
    ]
    assert result["not_converted"] == []
    tasks = _rendered(dest)
    assert tasks["libvirt_pool.main"][1] == {"name": "tfx-pool", "type": "dir", "target": {"path": "/var/lib/x/tfx-pool"}}
    assert tasks["libvirt_volume.root[1]"][1] == {"name": "tfx-root-1.img", "pool": "tfx-pool", "capacity": 1048576}
    assert tasks['libvirt_volume.extra["logs"]'][1] == {"name": "tfx-logs.img", "pool": "tfx-pool", "capacity": 2097152}
    assert tasks['libvirt_volume.named["a"]'][1]["name"] == "a.img"
    disk = tasks["libvirt_domain.vm[0]"][1]["devices"]["disks"][0]
    assert disk["source"]["volume"] == {"pool": "tfx-pool", "volume": "tfx-root-0.img"}
    again = _import(run_module, _configuration(tmp_path, COUNTED), dest)
    assert again["changed"] is False and again["operation"] == "none"


@pytest.mark.parametrize(
    ("meta", "reason"),
    [
        ("count = var.missing", "count: var.missing is not declared"),
        ("count = length(var.list)", "count: length(...) (a function this import does not evaluate)"),
        ("count = -1", "count: count is not a whole number of at least 0"),
        ("count = 100001", "count: count is larger than 10000"),
        ('for_each = ["a", "b"]', "for_each: for_each is neither a map nor a set of strings"),
        ("for_each = data.libvirt_node_info.host.cpus", "for_each: data.libvirt_node_info.host is a data source, read when Terraform runs"),
        ("count = 1\n  for_each = {}", "count and for_each are both set"),
    ],
)
def test_count_and_for_each_that_are_not_literal_are_listed(run_module: Run, tmp_path: t.Any, meta: str, reason: str) -> None:
    text = REQUIRED + f'variable "list" {{}}\nresource "libvirt_pool" "p" {{\n  {meta}\n  name = "p"\n  type = "dir"\n}}\n'
    result = _import(run_module, _configuration(tmp_path, text), tmp_path / "site.yml")
    assert result["converted"] == []
    ((address, why),) = [(item["address"], item["reason"]) for item in result["not_converted"]]
    assert address == "libvirt_pool.p" and reason in why


@pytest.mark.parametrize(
    ("expression", "reason"),
    [
        ("var.nodefault", "name: var.nodefault has no default (its value is given when Terraform runs)"),
        ('"${var.nodefault}-x"', "name: var.nodefault has no default"),
        ('upper("p")', "name: upper(...) (a function this import does not evaluate)"),
        ('"p" == "q" ? "a" : "b"', "name: a conditional expression"),
        ('"%{ if true }p%{ endif }"', "name: a template directive"),
        ("libvirt_pool.other.uuid", "name: libvirt_pool.other.uuid is known only after apply"),
        ("path.module", "name: path.module is not known before Terraform runs"),
        ("local.loop", "name: local.loop refers to itself"),
        ("[for x in [1] : x]", "name: a for expression"),
    ],
)
def test_what_is_not_literal_is_never_guessed(run_module: Run, tmp_path: t.Any, expression: str, reason: str) -> None:
    text = (
        REQUIRED
        + 'variable "nodefault" {}\nlocals { loop = local.loop }\n'
        + 'resource "libvirt_pool" "other" {\n  name = "o"\n  type = "dir"\n}\n'
        + f'resource "libvirt_pool" "p" {{\n  name = {expression}\n  type = "dir"\n}}\n'
    )
    dest = tmp_path / "site.yml"
    result = _import(run_module, _configuration(tmp_path, text), dest)
    listed = {item["address"]: item["reason"] for item in result["not_converted"]}
    assert reason in listed["libvirt_pool.p"]
    assert listed["libvirt_pool.p"].startswith("not carried, not literal in the configuration: ")
    assert "{{" not in dest.read_text(encoding="utf-8")  # nothing became a template


def test_tfvars_give_the_variables_their_values(run_module: Run, tmp_path: t.Any) -> None:
    text = (
        REQUIRED
        + 'variable "n" {\n  default = 1\n}\nvariable "pool" {}\n'
        + 'resource "libvirt_pool" "p" {\n  count = var.n\n  name = "${var.pool}-${count.index}"\n  type = "dir"\n}\n'
    )
    directory = _configuration(tmp_path, text)
    (directory / "terraform.tfvars").write_text('n = 2\npool = "from-tfvars"\n', encoding="utf-8")
    (directory / "z.auto.tfvars").write_text("n = 3\n", encoding="utf-8")
    result = _import(run_module, directory, tmp_path / "site.yml")
    assert result["configuration"]["files"] == ["main.tf", "terraform.tfvars", "z.auto.tfvars"]
    assert [item["address"] for item in result["converted"]] == ["libvirt_pool.p[0]", "libvirt_pool.p[1]", "libvirt_pool.p[2]"]
    assert _rendered(tmp_path / "site.yml")["libvirt_pool.p[2]"][1]["name"] == "from-tfvars-2"


def test_a_sensitive_variable_is_masked(run_module: Run, tmp_path: t.Any) -> None:
    secret = "s3cret-Passw0rd"
    text = (
        REQUIRED
        + f'variable "password" {{\n  default = "{secret}"\n  sensitive = true\n}}\n'
        + 'resource "libvirt_cloudinit_disk" "seed" {\n  name = "seed"\n  meta_data = "instance-id: x\\n"\n'
        + '  user_data = "#cloud-config\\npassword: ${var.password}\\n"\n}\n'
    )
    result = _import(run_module, _configuration(tmp_path, text), tmp_path / "site.yml")
    assert [item["address"] for item in result["converted"]] == ["libvirt_cloudinit_disk.seed"]
    assert secret not in json.dumps(result)
    assert secret in (tmp_path / "site.yml").read_text(encoding="utf-8")


# ---------------------------------------------------------------------------- the provider version


@pytest.mark.parametrize(
    ("constraint", "body", "version", "why"),
    [
        ('version = "~> 0.8.0"', 'path = "/p"', "0.8", 'required_providers (version "~> 0.8.0")'),
        ('version = "0.8.3"', 'path = "/p"', "0.8", 'required_providers (version "0.8.3")'),
        ('version = ">= 0.7.0, < 0.9.0"', "", "0.8", "required_providers"),
        ('version = "~> 0.9"', "", "0.9", 'required_providers (version "~> 0.9")'),
        ('version = ">= 0.9.1"', "", "0.9", "required_providers"),
        ('version = "~> 0.8"', 'path = "/p"', "0.8", 'the version constraint "~> 0.8", which does not tell 0.8 from 0.9'),
        ("", 'path = "/p"', "0.8", "assumed from the attributes the resources set (required_providers gives no version constraint)"),
        ("", "", "0.9", "assumed from the attributes"),
    ],
)
def test_the_provider_version(run_module: Run, tmp_path: t.Any, constraint: str, body: str, version: str, why: str) -> None:
    text = (
        f'terraform {{\n  required_providers {{\n    libvirt = {{\n      source = "dmacvicar/libvirt"\n      {constraint}\n    }}\n  }}\n}}\n'
        f'resource "libvirt_pool" "p" {{\n  name = "p"\n  type = "dir"\n  {body}\n}}\n'
    )
    dest = tmp_path / "site.yml"
    result = _import(run_module, _configuration(tmp_path, text), dest)
    assert result["configuration"]["libvirt_provider_version"] == version
    assert why in result["configuration"]["libvirt_provider_version_from"]
    assert [item["address"] for item in result["converted"]] == ["libvirt_pool.p"]
    options = _rendered(dest)["libvirt_pool.p"][1]
    assert ("running" in options) is (version == "0.8")  # 0.8 started its pools: the 0.8 converter wrote the task


def test_attributes_of_the_other_version_than_required_providers_asks_for(run_module: Run, tmp_path: t.Any) -> None:
    text = REQUIRED + 'resource "libvirt_pool" "p" {\n  name = "p"\n  type = "dir"\n  path = "/p"\n}\n'
    result = _import(run_module, _configuration(tmp_path, text), tmp_path / "site.yml")
    assert result["not_converted"] == [
        {
            "address": "libvirt_pool.p",
            "reason": "its attributes are those of terraform-provider-libvirt 0.8, and required_providers asks for 0.9 (~> 0.9.0)",
        }
    ]


def test_08_blocks_become_the_lists_the_08_converter_reads(run_module: Run, tmp_path: t.Any) -> None:
    text = (
        'terraform {\n  required_providers {\n    libvirt = {\n      source = "dmacvicar/libvirt"\n      version = "0.8.1"\n    }\n  }\n}\n'
        'resource "libvirt_network" "n" {\n  name = "n"\n  mode = "nat"\n  addresses = ["10.17.3.0/24"]\n'
        "  dhcp {\n    enabled = true\n  }\n  dns {\n    enabled = true\n    local_only = true\n  }\n}\n"
    )
    dest = tmp_path / "site.yml"
    _import(run_module, _configuration(tmp_path, text), dest)
    network = _rendered(dest)["libvirt_network.n"][1]
    assert network["ips"] == [{"address": "10.17.3.1", "prefix": 24, "family": "ipv4", "dhcp": {"ranges": [{"start": "10.17.3.2", "end": "10.17.3.254"}]}}]
    assert network["forward"] == {"mode": "nat"}


def test_coder_resources_need_a_state(run_module: Run, tmp_path: t.Any) -> None:
    text = 'resource "coder_agent" "main" {\n  os = "linux"\n  arch = "amd64"\n}\n'
    result = _import(run_module, _configuration(tmp_path, text), tmp_path / "site.yml")
    ((item),) = result["not_converted"]
    assert item["address"] == "coder_agent.main" and "import the state after the first apply" in item["reason"]
    assert result["configuration"]["libvirt_provider_version"] is None


# ---------------------------------------------------------------------------- hostile content


def test_what_a_configuration_holds_is_never_templated(run_module: Run, tmp_path: t.Any) -> None:
    marker = tmp_path / "PWNED"
    plain = f"{{{{ lookup('pipe', 'touch {marker}-plain') }}}}"
    header = f"#jinja2:variable_start_string:'[[',variable_end_string:']]'\n[[ lookup('pipe', 'touch {marker}-header') ]]\n"
    text = (
        REQUIRED
        + f'variable "v" {{\n  default = "{plain}"\n}}\n'
        + 'resource "libvirt_cloudinit_disk" "seed" {\n'
        + '  name = "{% raw %}seed"\n'
        + "  meta_data = var.v\n"
        + "  user_data = <<-EOT\n"
        + "".join(f"    {line}\n" for line in header.splitlines())
        + "    escaped: $${var.v} %%{ if } {{ x }}\n"
        + "  EOT\n"
        + "}\n"
    )
    dest = tmp_path / "site.yml"
    result = _import(run_module, _configuration(tmp_path, text), dest)
    assert [item["address"] for item in result["converted"]] == ["libvirt_cloudinit_disk.seed"]
    seed = _rendered(dest)["libvirt_cloudinit_disk.seed"][1]
    assert seed["name"] == "{% raw %}seed"
    assert seed["meta_data"] == plain
    assert seed["user_data"] == header + "escaped: ${var.v} %{ if } {{ x }}\n"
    assert not list(tmp_path.glob("PWNED*"))


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("résumé = 1\n".encode("utf-16"), "main.tf is not UTF-8 (at byte 0)"),
        (b'resource "libvirt_pool" "p" {\n  name = "secret-value\x00\n}\n', "main.tf is not HCL this module reads (line 2"),
        ('resource "libvirt_pool" "p" {\n  name = "secret-value"\n', "main.tf is not HCL this module reads (line "),
        ("x = 1\n", "main.tf has an attribute (x) outside any block"),
        ('resource "a_b" "c" {\n  x = ' + "[" * 3000 + "]" * 3000 + "\n}\n", "nests deeper than this module reads"),
        ('resource "libvirt_pool" "p" {}\nresource "libvirt_pool" "p" {}\n', "libvirt_pool.p is declared twice"),
    ],
)
def test_what_is_not_a_configuration_is_refused_whole(run_module: Run, tmp_path: t.Any, content: str | bytes, message: str) -> None:
    dest = tmp_path / "site.yml"
    result = _import(run_module, _configuration(tmp_path, content), dest)
    assert result["failed"] is True and message in result["msg"]
    assert "secret-value" not in result["msg"]
    assert not dest.exists()


def test_crlf_and_a_bom_are_read(run_module: Run, tmp_path: t.Any) -> None:
    text = "\ufeff" + (REQUIRED + 'resource "libvirt_pool" "p" {\n  name = "p"\n  type = "dir"\n}\n').replace("\n", "\r\n")
    result = _import(run_module, _configuration(tmp_path, text.encode("utf-8")), tmp_path / "site.yml")
    assert [item["address"] for item in result["converted"]] == ["libvirt_pool.p"]


def test_files_that_are_not_read(run_module: Run, tmp_path: t.Any, monkeypatch: pytest.MonkeyPatch) -> None:
    directory = _configuration(tmp_path, REQUIRED)
    (directory / "big.tf").write_text("# " + "x" * hcl.MAX_FILE_BYTES + "\n", encoding="utf-8")
    result = _import(run_module, directory, tmp_path / "site.yml")
    assert "big.tf is larger than" in result["msg"]
    (directory / "big.tf").unlink()
    monkeypatch.setattr(hcl, "MAX_TOTAL_BYTES", 100)
    assert "the configuration is larger than 100 bytes" in _import(run_module, directory, tmp_path / "site.yml")["msg"]
    monkeypatch.undo()
    (directory / "link.tf").symlink_to(directory / "main.tf")
    assert "link.tf" in _import(run_module, directory, tmp_path / "site.yml")["msg"]
    (directory / "link.tf").unlink()
    for name, message in (("x_override.tf", "is an override file"), ("x.tf.json", "Terraform's JSON syntax")):
        (directory / name).write_text("{}\n", encoding="utf-8")
        assert message in _import(run_module, directory, tmp_path / "site.yml")["msg"]
        (directory / name).unlink()
    (tmp_path / "empty").mkdir()
    assert "holds no .tf file" in _import(run_module, _configuration(tmp_path / "empty", "", "notes.txt"), tmp_path / "site.yml")["msg"]
    assert "is not a directory" in _import(run_module, directory / "main.tf", tmp_path / "site.yml")["msg"]


def test_src_and_src_dir(run_module: Run, tmp_path: t.Any, monkeypatch: pytest.MonkeyPatch) -> None:
    directory = _configuration(tmp_path, REQUIRED)
    both = run_module(terraform_import.main, {"src": str(tmp_path / "x.tfstate"), "src_dir": str(directory), "dest": str(tmp_path / "site.yml")})
    assert "mutually exclusive: src|src_dir" in both["msg"]
    neither = run_module(terraform_import.main, {"dest": str(tmp_path / "site.yml")})
    assert "one of the following is required: src, src_dir" in neither["msg"]
    monkeypatch.setattr(terraform_import, "HAS_HCL2", False)
    missing = _import(run_module, directory, tmp_path / "site.yml")
    assert "python-hcl2" in missing["msg"] and "to read the .tf files of src_dir" in missing["msg"]


def test_check_mode_writes_nothing(run_module: Run, tmp_path: t.Any) -> None:
    dest = tmp_path / "site.yml"
    checked = _import(run_module, _configuration(tmp_path, COUNTED), dest, check_mode=True)
    assert checked["changed"] is True and not dest.exists()
    done = _import(run_module, _configuration(tmp_path, COUNTED), dest)
    assert (done["changed"], done["converted"]) == (True, checked["converted"])
    assert dest.read_text(encoding="utf-8").startswith(f"---\n# Written by devinfra.providers.terraform_import from {tmp_path / 'config'}\n")
