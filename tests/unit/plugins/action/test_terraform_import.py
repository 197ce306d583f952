# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""terraform_import on hand-written Terraform states (fixtures/terraform_import/*.tfstate, made from
upstream's examples as Terraform writes them: format version 4, every attribute, nulls included)
and on hostile ones. The playbook it writes is read back with Ansible's YAML loader; each task's
options are checked against its module's argument spec and schema, the workspace tasks are run
with their action plugins against the workspace state it wrote (unchanged), and libvirt tasks for
objects made on test:///default are run with their modules (unchanged)."""

from __future__ import annotations

import copy
import json
import os
import shutil
import stat
import subprocess
import sys
import typing as t

import pytest
import requests
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.parsing.yaml.loader import AnsibleLoader
from ansible.template import Templar, trust_as_template

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt import schema
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.connection import LIBVIRT_CONNECTION_ARGSPEC, libvirt
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.domain import DOMAIN_ARGSPEC
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.firstboot_module import FIRSTBOOT_ARGSPECS
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.network import NETWORK_ARGSPEC
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.pool import POOL_ARGSPEC, split_refresh
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.volume import VOLUME_ARGSPEC
from ansible_collections.devinfra.providers.plugins.module_utils._terraform import tfstate
from ansible_collections.devinfra.providers.plugins.module_utils._terraform.importer import run_import
from ansible_collections.devinfra.providers.plugins.module_utils._terraform.libvirt08 import state_version
from ansible_collections.devinfra.providers.plugins.module_utils._terraform.yaml_text import Trusted, dump_yaml
from ansible_collections.devinfra.providers.plugins.module_utils._workspace.fields import unwrap_single_blocks
from ansible_collections.devinfra.providers.plugins.module_utils._workspace.resources import RESOURCE_TYPES
from ansible_collections.devinfra.providers.plugins.modules import libvirt_domain, libvirt_network, libvirt_pool, libvirt_volume, terraform_import
from ansible_collections.devinfra.providers.tests.gcs_emulator.server import Bucket, Emulator, State

Run = t.Callable[..., dict[str, t.Any]]
FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "terraform_import")
LIBVIRT_STATE = os.path.join(FIXTURES, "libvirt.tfstate")
CODER_STATE = os.path.join(FIXTURES, "coder.tfstate")
AGENT_TOKEN = "4e8c2a6f-1d3b-4f5a-9e7c-8b0d2f4a6c81"  # coder_agent.dev's token in coder.tfstate
AGENT_ID = "a3f1c9e2-5b7d-4e80-9c1a-2b3d4e5f6071"
TEST_URI = "test:///default"

# The libvirt modules' argument specs, their schema struct, what they check besides.
LIBVIRT_SPECS: dict[str, tuple[dict[str, t.Any], str | None, dict[str, t.Any]]] = {
    "libvirt_domain": (DOMAIN_ARGSPEC, "Domain", {"required_one_of": [("name", "uuid", "xml")]}),
    "libvirt_network": (NETWORK_ARGSPEC, "Network", {}),
    "libvirt_pool": (POOL_ARGSPEC, "StoragePool", {}),
    "libvirt_volume": (VOLUME_ARGSPEC, "StorageVolume", {}),
    "libvirt_cloudinit_disk": (FIRSTBOOT_ARGSPECS["cloudinit_disk"], None, {}),
    "libvirt_ignition": (FIRSTBOOT_ARGSPECS["ignition"], None, {}),
    "libvirt_combustion": (FIRSTBOOT_ARGSPECS["combustion"], None, {}),
}


@pytest.fixture(autouse=True)
def _test_driver() -> t.Iterator[None]:
    """The test driver forgets what it holds when its last connection closes: keep one open."""
    connection = libvirt.open(TEST_URI)
    yield
    connection.close()


def _import(run_module: Run, src: t.Any, dest: t.Any, *, check_mode: bool = False, diff: bool = True, **args: t.Any) -> dict[str, t.Any]:
    return run_module(terraform_import.main, {"src": str(src), "dest": str(dest), **args}, check_mode=check_mode, diff=diff)


def _play(path: t.Any) -> dict[str, t.Any]:
    with open(path, encoding="utf-8") as handle:
        plays = AnsibleLoader(handle.read()).get_single_data()
    assert isinstance(plays, list) and len(plays) == 1
    play: dict[str, t.Any] = plays[0]
    return play


def _tasks(path: t.Any) -> dict[str, tuple[str, dict[str, t.Any]]]:
    """Task name -> (module short name, options)."""
    out = {}
    for task in _play(path)["tasks"]:
        (module,) = [key for key in task if key.startswith("devinfra.providers.")]
        out[task["name"]] = (module.rsplit(".", 1)[1], task[module])
    return out


def _rendered(path: t.Any, registered: dict[str, t.Any]) -> dict[str, tuple[str, dict[str, t.Any]]]:
    """Task name -> (module short name, options) as Ansible templates them when the play runs:
    the file read as a playbook is (trusted, but what is !unsafe), each task with its vars and
    the ``registered`` results."""
    with open(path, encoding="utf-8") as handle:
        (play,) = AnsibleLoader(trust_as_template(handle.read())).get_single_data()
    out = {}
    for task in play["tasks"]:
        (module,) = [key for key in task if key.startswith("devinfra.providers.")]
        templar = Templar(loader=None, variables={**registered, **task.get("vars", {})})
        out[str(task["name"])] = (module.rsplit(".", 1)[1], _plain(templar.template(task[module])))
    return out


def _plain(value: t.Any) -> t.Any:
    """Ansible's YAML types (unsafe text, its dict and list classes) as plain Python."""
    return json.loads(json.dumps(value))


def _module_check(module: str, args: dict[str, t.Any]) -> None:
    """What the module checks before it touches anything: its argument spec, then what its
    objects and lists hold (a libvirt resource), or its resource's rules (a workspace module)."""
    if module in RESOURCE_TYPES:
        rtype = RESOURCE_TYPES[module]
        validator = ArgumentSpecValidator(rtype.full_argument_spec(), mutually_exclusive=rtype.mutually_exclusive, required_if=rtype.required_if)
        result = validator.validate(unwrap_single_blocks(copy.deepcopy(args), rtype.single_blocks))
        assert not result.error_messages, (module, result.error_messages)
        rtype.validate(result.validated_parameters)
        return
    spec, struct, rules = LIBVIRT_SPECS[module]
    result = ArgumentSpecValidator({**LIBVIRT_CONNECTION_ARGSPEC, **spec}, **rules).validate(copy.deepcopy(args))
    assert not result.error_messages, (module, result.error_messages)
    params = result.validated_parameters
    if module == "libvirt_pool":
        split_refresh(params)
    if struct is not None:
        schema.validate_params(struct, params, spec, set())


# ---------------------------------------------------------------------------- libvirt


def test_the_libvirt_state_becomes_one_task_per_resource(run_module: Run, tmp_path: t.Any) -> None:
    dest = tmp_path / "site.yml"
    result = _import(run_module, LIBVIRT_STATE, dest)
    assert result["changed"] is True
    assert (result["operation"], result["address"], result["changed_paths"]) == ("create", f"terraform_import.{dest}", [])
    assert result["state_file"] is None  # no Coder resource: no workspace state
    assert result["terraform"] == {"terraform_version": "1.9.8", "serial": 7, "lineage": "2b8d6a0e-3f1c-4e57-9a0b-6c2d1e4f5a71"}
    assert [(item["address"], item["module"]) for item in result["converted"]] == [
        ("libvirt_pool.test", "devinfra.providers.libvirt_pool"),
        ("libvirt_network.test", "devinfra.providers.libvirt_network"),
        ("libvirt_cloudinit_disk.alpine_seed", "devinfra.providers.libvirt_cloudinit_disk"),
        ("libvirt_volume.alpine_base", "devinfra.providers.libvirt_volume"),
        ("libvirt_volume.alpine_disk", "devinfra.providers.libvirt_volume"),
        ("libvirt_volume.alpine_seed_volume", "devinfra.providers.libvirt_volume"),
        ("libvirt_domain.alpine", "devinfra.providers.libvirt_domain"),
    ]
    assert result["not_converted"] == [
        {
            "address": "data.libvirt_node_info.host",
            "reason": "a data source: the devinfra.providers.libvirt_node_info lookup reads it when a play runs "
            "(the tasks hold the values this state had for it)",
        }
    ]
    assert stat.S_IMODE(os.stat(dest).st_mode) == 0o600
    play = _play(dest)
    assert play["hosts"] == "localhost" and play["gather_facts"] is False
    assert "module_defaults" not in play
    tasks = _tasks(dest)
    assert list(tasks) == [item["address"] for item in result["converted"]]

    module, domain = tasks["libvirt_domain.alpine"]
    assert module == "libvirt_domain"
    assert domain["uuid"] == "7c1f3a52-9d04-4be8-a1f6-2e9b5c0d8e13"  # kept: the task finds the domain
    assert "id" not in domain  # the runtime id: computed
    assert domain["devices"]["interfaces"] == [
        {"mac": {"address": "52:54:00:6b:3c:58"}, "model": {"type": "virtio"}, "source": {"network": {"network": "default"}}}
    ]  # the MAC kept; the type the source says, as the module takes it
    assert domain["devices"]["disks"][0] == {
        "driver": {"type": "qcow2"},
        "source": {"volume": {"pool": "default", "volume": "alpine-vm.qcow2"}},
        "target": {"bus": "virtio", "dev": "vda"},
    }
    assert domain["devices"]["graphics"] == [{"vnc": {"auto_port": True, "listen": "127.0.0.1"}}]
    assert domain["os"] == {"type": "hvm", "type_arch": "x86_64", "type_machine": "q35"}
    assert (domain["memory"], domain["vcpu"], domain["running"], domain["type"]) == (1048576, 1, True, "kvm")

    assert tasks["libvirt_pool.test"][1] == {"name": "tf-acc-test", "type": "dir", "target": {"path": "/tmp/tf-acc-pool"}}  # no sizes, no uuid
    assert tasks["libvirt_network.test"][1] == {
        "name": "tf-acc-test",
        "autostart": False,
        "forward": {"mode": "nat"},
        "ips": [{"address": "10.17.3.1", "netmask": "255.255.255.0"}],
    }
    base = tasks["libvirt_volume.alpine_base"][1]
    assert base["create"] == {
        "content": {"url": "https://dl-cdn.alpinelinux.org/alpine/v3.22/releases/cloud/generic_alpine-3.22.2-x86_64-bios-cloudinit-r0.qcow2"}
    }
    assert base["target"] == {"format": {"type": "qcow2"}}  # the path and times the pool chose: computed
    assert not {"key", "path", "allocation", "physical", "id"} & set(base)
    overlay = tasks["libvirt_volume.alpine_disk"][1]
    assert overlay["backing_store"] == {"format": {"type": "qcow2"}, "path": "/var/lib/libvirt/images/alpine-3.22-base.qcow2"}  # the reference, resolved
    seed = tasks["libvirt_cloudinit_disk.alpine_seed"][1]
    assert seed["dest"] == "/tmp/terraform-provider-libvirt-cloudinit"  # where upstream wrote cloudinit-<id>.iso
    assert seed["user_data"].startswith("#cloud-config\nchpasswd:\n") and seed["user_data"].endswith("timezone: UTC\n")
    assert not {"id", "path", "size"} & set(seed)


@pytest.mark.parametrize("fixture", [LIBVIRT_STATE, CODER_STATE])
def test_every_task_passes_its_module_checks(run_module: Run, tmp_path: t.Any, fixture: str) -> None:
    dest = tmp_path / "site.yml"
    _import(run_module, fixture, dest)
    tasks = _rendered(dest, {"tf_coder_agent_dev": {"agent": {"token": AGENT_TOKEN}}})
    assert tasks
    for name, (module, rendered) in tasks.items():
        try:
            _module_check(module, rendered)
        except Exception as exc:
            pytest.fail(f"{name}: {exc}")
    # and the checks can fail: an option the module does not take
    with pytest.raises(AssertionError):
        _module_check("libvirt_domain", {"name": "x", "no_such_option": 1})


def test_a_second_run_and_check_mode_change_nothing(run_module: Run, tmp_path: t.Any) -> None:
    dest = tmp_path / "site.yml"
    checked = _import(run_module, LIBVIRT_STATE, dest, check_mode=True)
    assert checked["changed"] is True
    assert not dest.exists()  # check mode writes nothing
    assert checked["diff"][0]["before"] == "" and "libvirt_domain.alpine" in checked["diff"][0]["after"]
    created = _import(run_module, LIBVIRT_STATE, dest)
    assert created["changed"] is True
    text = dest.read_text()
    inode = dest.stat().st_ino
    for check_mode in (True, False):
        again = _import(run_module, LIBVIRT_STATE, dest, check_mode=check_mode)
        assert again["changed"] is False and again["operation"] == "none"
        assert again["diff"][0]["before"] == again["diff"][0]["after"]
    assert dest.read_text() == text and dest.stat().st_ino == inode  # not even rewritten


def test_the_diff_masks_what_the_modules_keep_no_log(run_module: Run, tmp_path: t.Any) -> None:
    result = _import(run_module, LIBVIRT_STATE, tmp_path / "site.yml", check_mode=True)
    after = result["diff"][0]["after"]
    assert "root:password" not in after and "alpine-001" not in after
    assert 'user_data: !unsafe "********"' in after and 'meta_data: !unsafe "********"' in after
    assert "tf_literal_" not in after  # the pieces of a masked value are not shown either
    assert "root:password" not in json.dumps(result)


def test_an_existing_playbook_is_replaced_only_with_force(run_module: Run, tmp_path: t.Any) -> None:
    dest = tmp_path / "site.yml"
    dest.write_text("# mine\n")
    refused = _import(run_module, LIBVIRT_STATE, dest)
    assert refused["failed"] and "exists with other content; set force to replace it" in refused["msg"]
    assert dest.read_text() == "# mine\n"
    refused_check = _import(run_module, LIBVIRT_STATE, dest, check_mode=True)
    assert refused_check["failed"]  # check mode says what the run would do
    forced = _import(run_module, LIBVIRT_STATE, dest, force=True)
    assert forced["changed"] and forced["diff"][0]["before"] == "# mine\n"
    assert (forced["operation"], forced["changed_paths"]) == ("update", ["dest"])
    assert "libvirt_domain.alpine" in dest.read_text()


def test_the_state_and_the_playbook_are_never_one_file(run_module: Run, tmp_path: t.Any) -> None:
    src = tmp_path / "terraform.tfstate"
    shutil.copyfile(CODER_STATE, src)
    before = src.read_text()
    over = _import(run_module, src, src, force=True)
    assert over["failed"] and over["msg"] == "dest: is the Terraform state itself (src); the playbook is never written over it"
    into = _import(run_module, src, tmp_path / "site.yml", state_file=str(src), force=True)
    assert into["failed"] and into["msg"].startswith("state_file: is a playbook (dest, teardown_dest) or the Terraform state (src)")
    for teardown in (src, tmp_path / "site.yml"):
        refused = _import(run_module, src, tmp_path / "site.yml", teardown_dest=str(teardown), force=True)
        assert refused["failed"] and refused["msg"].startswith("teardown_dest: is the playbook (dest) or the Terraform state (src)")
    down = _import(run_module, src, tmp_path / "site.yml", teardown_dest=str(tmp_path / "down.yml"), state_file=str(tmp_path / "down.yml"))
    assert down["failed"] and down["msg"].startswith("state_file: is a playbook (dest, teardown_dest)")
    assert src.read_text() == before and not (tmp_path / "site.yml").exists()
    hosts = _import(run_module, src, tmp_path / "site.yml", hosts="all\n- hosts: evil")
    assert hosts["failed"] and hosts["msg"] == "hosts: contains the control character U+000A at position 3"


def test_the_playbook_is_never_written_through_a_link(run_module: Run, tmp_path: t.Any) -> None:
    target = tmp_path / "elsewhere.yml"
    target.write_text("kept\n")
    link = tmp_path / "site.yml"
    link.symlink_to(target)
    for force in (False, True):
        refused = _import(run_module, LIBVIRT_STATE, link, force=force)
        assert refused["failed"] and "is a symbolic link" in refused["msg"]
    assert target.read_text() == "kept\n" and link.is_symlink()
    missing = _import(run_module, LIBVIRT_STATE, tmp_path / "no" / "site.yml")
    assert missing["failed"] and "does not exist" in missing["msg"]


def test_a_playbook_where_others_reach_it_is_warned_of(tmp_path: t.Any) -> None:
    """(The backend's warnings: this process is a controller, where the module's go to the display.)"""
    params = {"src": LIBVIRT_STATE, "force": False, "hosts": "localhost"}
    assert run_import({**params, "dest": str(tmp_path / "site.yml")}, check_mode=True, environ={})["warnings"] == []
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    dest = shared / "site.yml"
    for check_mode in (True, False):
        result = run_import({**params, "dest": str(dest)}, check_mode=check_mode, environ={})
        assert result["changed"]
        (warning,) = result["warnings"]
        assert warning.startswith(f"dest: the playbook {dest} holds what the Terraform state held")
        assert f"{shared} is writable by group or others (mode 0777)" in warning and "choose a directory only its owner can write to" in warning
    assert dest.exists()


def _domain_state(created: dict[str, t.Any], network: dict[str, t.Any], pool: dict[str, t.Any], volume: dict[str, t.Any]) -> dict[str, t.Any]:
    """A state as Terraform would have written it for these objects (their UUIDs and MACs)."""
    provider = 'provider["registry.terraform.io/dmacvicar/libvirt"]'

    def resource(kind: str, name: str, attributes: dict[str, t.Any], dependencies: list[str] | None = None) -> dict[str, t.Any]:
        instance = {"schema_version": 0, "attributes": attributes, "sensitive_attributes": [], **({"dependencies": dependencies} if dependencies else {})}
        return {"mode": "managed", "type": kind, "name": name, "provider": provider, "instances": [instance]}

    return {
        "version": 4,
        "terraform_version": "1.9.8",
        "serial": 3,
        "lineage": "11111111-2222-4333-8444-555555555555",
        "outputs": {},
        "resources": [
            resource(
                "libvirt_pool",
                "pool",
                {
                    "name": pool["name"],
                    "type": "dir",
                    "uuid": pool["uuid"],
                    "id": pool["uuid"],
                    "target": {"path": pool["target"]["path"], "permissions": None},
                    "capacity": 1,
                    "allocation": 0,
                    "available": 1,
                    "source": None,
                    "create": None,
                    "destroy": None,
                },
            ),
            resource(
                "libvirt_network",
                "net",
                {"name": network["name"], "uuid": network["uuid"], "id": network["uuid"], "autostart": False, "bridge": None, "forward": None, "ips": None},
            ),
            resource(
                "libvirt_volume",
                "disk",
                {
                    "name": volume["name"],
                    "pool": pool["name"],
                    "capacity": 1048576,
                    "capacity_unit": None,
                    "key": volume["key"],
                    "id": volume["key"],
                    "path": volume["path"],
                    "allocation": 0,
                    "physical": 0,
                    "target": {"format": {"type": "raw"}, "path": volume["path"], "permissions": None, "timestamps": None},
                    "backing_store": None,
                    "create": None,
                },
                ["libvirt_pool.pool"],
            ),
            resource(
                "libvirt_domain",
                "vm",
                {
                    "name": created["name"],
                    "uuid": created["uuid"],
                    "id": None,
                    "type": "test",
                    "memory": 131072,
                    "memory_unit": "KiB",
                    "vcpu": 1,
                    "os": {"type": "hvm", "type_arch": None, "type_machine": None, "boot_devices": None},
                    "devices": {
                        "disks": [
                            {
                                "source": {"volume": {"pool": pool["name"], "volume": volume["name"]}, "file": None},
                                "target": {"dev": "vda", "bus": "virtio"},
                                "driver": None,
                            }
                        ],
                        "interfaces": [
                            {
                                "mac": {"address": created["devices"]["interfaces"][0]["mac"]["address"]},
                                "source": {"network": {"network": network["name"]}, "bridge": None},
                                "model": None,
                                "wait_for_ip": None,
                            }
                        ],
                        "graphics": None,
                    },
                    "running": None,
                    "autostart": None,
                    "create": None,
                    "destroy": None,
                    "update": None,
                },
                ["libvirt_network.net", "libvirt_volume.disk"],
            ),
        ],
    }


def test_the_tasks_find_what_terraform_made_unchanged(run_module: Run, tmp_path: t.Any) -> None:
    """Objects made on test:///default stand in for what Terraform made; a state describing them
    (their UUIDs, the domain's MAC) imported; every task of the playbook then changes nothing."""
    prefix = "tfimp"
    pool_args = {"uri": TEST_URI, "name": f"{prefix}-pool", "type": "dir", "target": {"path": f"/{prefix}-pool"}}
    net_args = {"uri": TEST_URI, "name": f"{prefix}-net", "autostart": False}
    vol_args = {"uri": TEST_URI, "name": f"{prefix}-disk.img", "pool": f"{prefix}-pool", "capacity": 1048576, "target": {"format": {"type": "raw"}}}
    try:
        pool = run_module(libvirt_pool.main, pool_args)["pool"]
        network = run_module(libvirt_network.main, net_args)["network"]
        volume = run_module(libvirt_volume.main, vol_args)["volume"]
        domain_args = {
            "uri": TEST_URI,
            "name": f"{prefix}-vm",
            "type": "test",
            "memory": 131072,
            "memory_unit": "KiB",
            "vcpu": 1,
            "os": {"type": "hvm"},
            "devices": {
                "disks": [{"source": {"volume": {"pool": pool["name"], "volume": volume["name"]}}, "target": {"dev": "vda", "bus": "virtio"}}],
                "interfaces": [{"source": {"network": {"network": network["name"]}}}],
            },
        }
        made = run_module(libvirt_domain.main, domain_args)
        assert made["changed"], made
        created = made["domain"]
        mac = created["devices"]["interfaces"][0]["mac"]["address"]
        src = tmp_path / "terraform.tfstate"
        src.write_text(json.dumps(_domain_state(created, network, pool, volume)))
        dest = tmp_path / "site.yml"
        result = _import(run_module, src, dest, libvirt_uri=TEST_URI)
        assert not result["not_converted"], result["not_converted"]
        assert _play(dest)["module_defaults"] == {"group/devinfra.providers.libvirt": {"uri": TEST_URI}}
        tasks = _tasks(dest)
        assert list(tasks) == ["libvirt_pool.pool", "libvirt_network.net", "libvirt_volume.disk", "libvirt_domain.vm"]
        assert tasks["libvirt_domain.vm"][1]["uuid"] == created["uuid"]
        assert tasks["libvirt_domain.vm"][1]["devices"]["interfaces"][0]["mac"]["address"] == mac
        mains = {
            "libvirt_pool": libvirt_pool.main,
            "libvirt_network": libvirt_network.main,
            "libvirt_volume": libvirt_volume.main,
            "libvirt_domain": libvirt_domain.main,
        }
        for name, (module, args) in tasks.items():
            for check_mode in (True, False):
                ran = run_module(mains[module], {**_plain(args), "uri": TEST_URI}, check_mode=check_mode, diff=True)
                assert ran.get("failed") is not True, (name, ran.get("msg"))
                assert ran["changed"] is False, (name, ran.get("diff"))
    finally:
        run_module(libvirt_domain.main, {"uri": TEST_URI, "name": f"{prefix}-vm", "state": "absent"})
        run_module(libvirt_volume.main, {"uri": TEST_URI, "name": f"{prefix}-disk.img", "pool": f"{prefix}-pool", "state": "absent"})
        run_module(libvirt_network.main, {"uri": TEST_URI, "name": f"{prefix}-net", "state": "absent"})
        run_module(libvirt_pool.main, {"uri": TEST_URI, "name": f"{prefix}-pool", "state": "absent"})


# ---------------------------------------------------------------------------- Coder


def test_the_coder_state_becomes_tasks_and_a_workspace_state(run_module: Run, tmp_path: t.Any) -> None:
    dest = tmp_path / "site.yml"
    workspace = tmp_path / "ws" / "state.json"
    workspace.parent.mkdir(mode=0o700)
    result = _import(run_module, CODER_STATE, dest, state_file=str(workspace))
    assert result["changed"] is True
    assert result["state_file"] == str(workspace)
    converted = [item["address"] for item in result["converted"]]
    assert converted[0] == "coder_agent.dev"  # what names it comes after it
    assert converted.index("libvirt_cloudinit_disk.seed") > converted.index("coder_agent.dev")
    assert set(converted) == {
        "coder_agent.dev",
        "libvirt_cloudinit_disk.seed",
        "coder_devcontainer.dev1",
        "coder_devcontainer.dev2",
        "coder_app.code-server",
        "coder_app.vim",
        "coder_script.nightly_update",
        "coder_script.shutdown",
        "coder_env.path_a",
        "coder_env.path_b",
        "coder_env.unique_env",
        "coder_external_agent.main",
        "coder_metadata.pod_info[0]",
    }
    reasons = {item["address"]: item["reason"] for item in result["not_converted"]}
    assert reasons == {
        "kubernetes_pod.dev[0]": "its provider hashicorp/kubernetes is not one this module converts (dmacvicar/libvirt, coder/coder)",
        "tls_private_key.example_key_pair": "its provider hashicorp/tls is not one this module converts (dmacvicar/libvirt, coder/coder)",
        "data.coder_workspace.me": "a data source: the devinfra.providers.workspace lookup reads it when a play runs "
        "(the tasks hold the values this state had for it)",
    }
    assert result["workspace_resources"] == [
        "workspace_agent.dev",
        "workspace_app.code-server",
        "workspace_app.vim",
        "workspace_devcontainer.dev1",
        "workspace_devcontainer.dev2",
        "workspace_env.dev.PATH.path_a",
        "workspace_env.dev.PATH.path_b",
        "workspace_env.dev.UNIQUE",
        "workspace_external_agent.dev",
        "workspace_metadata.example/k8s_example",
        "workspace_script.dev.Nightly update",
        "workspace_script.dev.Stop daemon server",
    ]

    # the workspace state: 0600, Terraform's ids and the agent's token
    assert stat.S_IMODE(workspace.stat().st_mode) == 0o600
    stored = json.loads(workspace.read_text())["resources"]
    assert stored["workspace_agent.dev"]["computed"]["id"] == AGENT_ID
    assert stored["workspace_agent.dev"]["computed"]["token"] == AGENT_TOKEN
    assert stored["workspace_app.code-server"]["computed"]["id"] == "d1e2f3a4-b5c6-4d7e-8f90-a1b2c3d4e5f6"
    assert stored["workspace_devcontainer.dev2"]["computed"]["subagent_id"] == "4c5d6e7f-8a9b-4c0d-8e1f-2a3b4c5d6e7f"

    # the token is nowhere but in the workspace state
    text = dest.read_text()
    assert AGENT_TOKEN not in text
    assert AGENT_TOKEN not in json.dumps(result)
    assert "PRIVATE KEY" not in text and "PRIVATE KEY" not in json.dumps(result)

    play = _play(dest)
    assert play["module_defaults"] == {"group/devinfra.providers.workspace": {"state_file": str(workspace)}}
    tasks = _tasks(dest)
    assert tasks["coder_agent.dev"][1] == {
        "name": "dev",
        "agent_id": AGENT_ID,
        "arch": "amd64",
        "dir": "/workspace",
        "display_apps": {"ssh_helper": False},
        "metadata": [
            {"display_name": "CPU Usage", "interval": 10, "key": "cpu_usage", "order": 2, "script": "coder stat cpu", "timeout": 1},
            {"display_name": "RAM Usage", "interval": 10, "key": "ram_usage", "order": 1, "script": "coder stat mem", "timeout": 1},
        ],
        "order": 1,
        "os": "linux",
        "startup_script": "curl -fsSL https://code-server.dev/install.sh | sh\ncode-server --auth none --port 13337\n",
    }
    agent_task = next(task for task in play["tasks"] if task["name"] == "coder_agent.dev")
    assert agent_task["register"] == "tf_coder_agent_dev"
    # SDK v2 zero values are not set: no subdomain: false (it conflicts with command), no share: owner, no timeout: 0
    assert tasks["coder_app.vim"][1] == {
        "slug": "vim",
        "display_name": "Vim",
        "agent_id": AGENT_ID,
        "command": "vim",
        "icon": "https://coder.example.com/icon/vim.svg",
    }
    assert tasks["coder_app.code-server"][1]["healthcheck"] == {"interval": 5, "threshold": 6, "url": "http://localhost:13337/healthz"}
    assert tasks["coder_script.shutdown"][1]["script"] == "    #!/bin/sh \n    kill $(lsof -i :3002 -t) >/tmp/pid.log 2>&1 &\n"
    assert "timeout" not in tasks["coder_script.shutdown"][1]
    assert [tasks[f"coder_env.{name}"][1].get("key") for name in ("path_a", "path_b", "unique_env")] == ["path_a", "path_b", None]
    assert tasks["coder_metadata.pod_info[0]"][1]["items"][3] == {"key": "unset"}  # is_null: no value
    assert tasks["coder_devcontainer.dev2"][1] == {
        "name": "dev2",
        "agent_id": AGENT_ID,
        "config_path": "/workspace2/.devcontainer/devcontainer.json",
        "workspace_folder": "/workspace2",
    }

    # the user-data refers to the agent's result for the token, its pieces task vars, and renders
    # to what Terraform had
    seed_task = next(task for task in play["tasks"] if task["name"] == "libvirt_cloudinit_disk.seed")
    assert tasks["libvirt_cloudinit_disk.seed"][1]["user_data"] == "{{ tf_literal_0 ~ tf_coder_agent_dev.agent.token ~ tf_literal_1 }}"
    assert AGENT_TOKEN not in "".join(seed_task["vars"].values())
    with open(CODER_STATE, encoding="utf-8") as handle:
        original = json.load(handle)
    expected = next(r for r in original["resources"] if r["name"] == "seed")["instances"][0]["attributes"]["user_data"]
    rendered = _rendered(dest, {"tf_coder_agent_dev": {"agent": {"token": AGENT_TOKEN}}})["libvirt_cloudinit_disk.seed"][1]["user_data"]
    assert rendered == expected  # {{ v1.local_hostname }} of cloud-init's own template kept as it was


def test_the_workspace_tasks_find_their_resources_unchanged(run_module: Run, run_action: Run, tmp_path: t.Any) -> None:
    dest = tmp_path / "site.yml"
    workspace = tmp_path / "state.json"
    _import(run_module, CODER_STATE, dest, state_file=str(workspace))
    before = workspace.read_text()
    registered: dict[str, t.Any] = {}
    ran = 0
    for task in _play(dest)["tasks"]:
        (fqcn,) = [key for key in task if key.startswith("devinfra.providers.")]
        module = fqcn.rsplit(".", 1)[1]
        if module not in RESOURCE_TYPES:
            continue
        args = {**_plain(task[fqcn]), "state_file": str(workspace)}
        for check_mode in (True, False):
            result = run_action(module, args, check_mode=check_mode, diff=True)
            assert not result.get("failed"), (task["name"], result.get("msg"))
            assert result["changed"] is False, (task["name"], result)
        ran += 1
        if "register" in task:
            registered[task["register"]] = result
    assert ran == 12
    assert registered["tf_coder_agent_dev"]["agent"]["token"] == AGENT_TOKEN  # running agents keep working
    assert registered["tf_coder_agent_dev"]["agent"]["id"] == AGENT_ID
    assert workspace.read_text() == before


def test_the_workspace_state_keeps_other_entries_and_refuses_other_tokens(run_module: Run, run_action: Run, tmp_path: t.Any) -> None:
    workspace = tmp_path / "state.json"
    other = {"name": "other", "arch": "amd64", "os": "linux", "state_file": str(workspace)}
    assert run_action("workspace_agent", other, diff=True)["changed"]
    imported = _import(run_module, CODER_STATE, tmp_path / "site.yml", state_file=str(workspace))
    assert imported["changed"]
    resources = json.loads(workspace.read_text())["resources"]
    assert "workspace_agent.other" in resources and "workspace_agent.dev" in resources
    assert imported["diff"][1]["before"] == {"addresses": ["workspace_agent.other"]}
    assert "workspace_agent.dev" in imported["diff"][1]["after"]["addresses"]

    # an agent made anew by the module (another token) is not overwritten without force
    resources["workspace_agent.dev"]["computed"]["token"] = "00000000-0000-4000-8000-000000000000"
    workspace.write_text(json.dumps({"format": "devinfra.providers.workspace", "version": 1, "resources": resources}))
    workspace.chmod(0o600)
    refused = _import(run_module, CODER_STATE, tmp_path / "site.yml", state_file=str(workspace))
    assert refused["failed"]
    assert "already holds workspace_agent.dev with other ids, tokens or arguments" in refused["msg"] and "set force" in refused["msg"]
    assert "00000000-0000-4000-8000-000000000000" not in refused["msg"]
    forced = _import(run_module, CODER_STATE, tmp_path / "site.yml", state_file=str(workspace), force=True)
    assert forced["changed"]
    assert json.loads(workspace.read_text())["resources"]["workspace_agent.dev"]["computed"]["token"] == AGENT_TOKEN


def test_check_mode_writes_no_workspace_state_and_masks_the_token(run_module: Run, tmp_path: t.Any) -> None:
    workspace = tmp_path / "state.json"
    checked = _import(run_module, CODER_STATE, tmp_path / "site.yml", state_file=str(workspace), check_mode=True)
    assert checked["changed"] is True
    assert not workspace.exists() and not (tmp_path / "site.yml").exists()
    shown = json.dumps(checked)
    assert AGENT_TOKEN not in shown
    assert "workspace_agent.dev" in checked["diff"][1]["after"]["addresses"]
    # the workspace state defaults to a file next to the playbook
    default = _import(run_module, CODER_STATE, tmp_path / "site.yml", check_mode=True)
    assert default["state_file"] == str(tmp_path / "workspace-state.json")


def test_a_token_of_an_agent_not_converted_keeps_its_holder_out(run_module: Run, tmp_path: t.Any) -> None:
    with open(CODER_STATE, encoding="utf-8") as handle:
        state = json.load(handle)
    agent = next(r for r in state["resources"] if r["type"] == "coder_agent")
    agent["instances"][0]["attributes"]["os"] = "plan9"  # the module refuses it
    src = tmp_path / "terraform.tfstate"
    src.write_text(json.dumps(state))
    result = _import(run_module, src, tmp_path / "site.yml")
    reasons = {item["address"]: item["reason"] for item in result["not_converted"]}
    assert "value of os must be one of: linux, darwin, windows, got: plan9" in reasons["coder_agent.dev"]
    assert reasons["libvirt_cloudinit_disk.seed"] == "it holds the token of coder_agent.dev, which is not converted (the playbook never holds a token)"
    assert "its agent_id is not the id of a coder_agent" in reasons["coder_app.vim"]
    assert AGENT_TOKEN not in (tmp_path / "site.yml").read_text()
    assert AGENT_TOKEN not in json.dumps(result)


# ---------------------------------------------------------------------------- hostile states


def _state(*resources: t.Any, version: t.Any = 4) -> str:
    return json.dumps({"version": version, "terraform_version": "1.9.8", "serial": 1, "lineage": "l", "resources": list(resources)})


def _resource(kind: str, name: str, attributes: dict[str, t.Any], provider: str = "dmacvicar/libvirt", **extra: t.Any) -> dict[str, t.Any]:
    instance = {"attributes": attributes, "sensitive_attributes": [], **extra.pop("instance", {})}
    return {"mode": "managed", "type": kind, "name": name, "provider": f'provider["registry.terraform.io/{provider}"]', "instances": [instance], **extra}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (_state(version=3), "is a Terraform state of format version 3; this module reads version 4"),
        ('{"version": "4"}', 'is a Terraform state of format version "4"'),
        ("not json", "is not a Terraform state (not JSON"),
        ("[1, 2]", 'is not a Terraform state (no "version")'),
        ('{"version": 4, "serial": 1, "lineage": "l", "resources": {}}', '"resources" must be a list'),
        ('{"version": 4, "serial": -1, "lineage": "l"}', '"serial" must be a non-negative integer'),
        ('{"version": 4, "serial": 1, "lineage": "a\\nb"}', '"lineage" must be a one-line string'),
        ('{"version": 4, "serial": 1, "lineage": "l", "x": NaN}', "not JSON"),
        (b"\xff\xfe", "not UTF-8"),
        ('{"version": 4, "serial": 1, "lineage": "l", "x": ' + "[" * 100 + "]" * 100 + "}", "nested deeper than 64 levels"),
        ('{"version": 4, "x": ' + "[" * 100000 + "]" * 100000 + "}", "nested too deeply"),
    ],
)
def test_what_is_no_state_is_refused_whole(run_module: Run, tmp_path: t.Any, content: str | bytes, message: str) -> None:
    src = tmp_path / "terraform.tfstate"
    if isinstance(content, bytes):
        src.write_bytes(content)
    else:
        src.write_text(content)
    result = _import(run_module, src, tmp_path / "site.yml")
    assert result["failed"] and message in result["msg"], result["msg"]
    assert not (tmp_path / "site.yml").exists()


def test_a_huge_or_special_file_is_not_read(run_module: Run, tmp_path: t.Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tfstate, "MAX_TFSTATE_BYTES", 1000)
    src = tmp_path / "terraform.tfstate"
    src.write_text(_state(_resource("libvirt_pool", "p", {"name": "x" * 2000, "type": "dir"})))
    with pytest.raises(tfstate.TerraformImportError, match="larger than this module reads"):
        tfstate.read_local(str(src))
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    result = _import(run_module, fifo, tmp_path / "site.yml")
    assert result["failed"] and "is not a regular file" in result["msg"]
    assert _import(run_module, tmp_path / "missing", tmp_path / "site.yml")["msg"].endswith("does not exist")


def test_what_cannot_be_converted_is_listed_with_its_reason(run_module: Run, tmp_path: t.Any) -> None:
    uuid = "5d3f0a2b-1c4e-4f6a-8b9c-0d1e2f3a4b5c"
    resources = [
        _resource("libvirt_domain", "bad\nname", {"name": "x", "type": "kvm"}),
        _resource("libvirt_domain", "web", {"name": "x", "type": "kvm"}, instance={"index_key": "a\x1b[31m"}),
        _resource("libvirt_domain", "tainted", {"name": "t", "type": "kvm"}, instance={"status": "tainted"}),
        _resource("libvirt_domain", "deposed", {"name": "d", "type": "kvm"}, instance={"deposed": "00000001"}),
        _resource("libvirt_domain", "unknown_option", {"name": "u", "type": "kvm", "frobnicate": True}),
        _resource("libvirt_domain", "bad_value", {"name": "v", "type": "kvm", "memory": "lots"}),
        _resource("libvirt_domain", "bad_nested", {"name": "n", "type": "kvm", "devices": {"disks": [{"target": {"dev": 7, "bus": ["x"]}}]}}),
        _resource("libvirt_secret", "s", {"uuid": uuid}),
        _resource("docker_container", "c", {"id": "x"}, provider="kreuzwerker/docker"),
        _resource("coder_ai_task", "t", {"id": uuid}, provider="coder/coder"),
        {"mode": "data", "type": "coder_secret", "name": "s", "provider": 'provider["registry.terraform.io/coder/coder"]', "instances": [{"attributes": {}}]},
        {"mode": "managed", "type": "libvirt_pool", "name": "p", "provider": "somewhere", "instances": [{"attributes": {"name": "p"}}]},
        {"mode": "managed", "type": "libvirt_pool", "name": "q", "provider": 'provider["registry.terraform.io/dmacvicar/libvirt"]', "instances": "x"},
        "not an object",
        _resource("libvirt_network", "good", {"name": "good-net", "uuid": uuid, "id": uuid, "autostart": True}),
    ]
    src = tmp_path / "terraform.tfstate"
    src.write_text(_state(*resources))
    dest = tmp_path / "site.yml"
    result = _import(run_module, src, dest)
    # an index key is written as Terraform prints it (escaped), so even a control character in it stays on one line
    escaped = 'libvirt_domain.web["a\\u001b[31m"]'
    assert [item["address"] for item in result["converted"]] == ["libvirt_network.good", escaped]
    reasons = {item["address"]: item["reason"] for item in result["not_converted"]}
    assert len(reasons) == len(resources) - 2  # every one listed, none dropped
    assert reasons["libvirt_domain.bad\\u000aname"] == "its name contains the control character U+000A at position 3"
    assert reasons["libvirt_domain.tainted"].startswith("tainted: Terraform would destroy and create it again")
    assert reasons["libvirt_domain.deposed"].startswith("a deposed object")
    assert reasons["libvirt_domain.unknown_option"] == "attributes the module does not take: frobnicate"
    assert "memory" in reasons["libvirt_domain.bad_value"] and reasons["libvirt_domain.bad_value"].startswith("the module refuses its options")
    assert "devices.disks[0].target.bus" in reasons["libvirt_domain.bad_nested"] or "devices.disks[0].target" in reasons["libvirt_domain.bad_nested"]
    assert reasons["libvirt_secret.s"] == "no module of this collection ports libvirt_secret"
    assert reasons["docker_container.c"] == "its provider kreuzwerker/docker is not one this module converts (dmacvicar/libvirt, coder/coder)"
    assert reasons["coder_ai_task.t"] == "no module of this collection ports coder_ai_task"
    assert reasons["data.coder_secret.s"] == "a data source no lookup of this collection reads (coder_secret)"
    assert reasons["libvirt_pool.p"].startswith("its provider is not written as Terraform writes one")
    assert reasons["libvirt_pool.q"] == '"instances" must be a list'
    assert reasons["resources[13]"] == "the entry is not an object"
    # the playbook stays one valid document, every line of its comments one line
    text = dest.read_text()
    assert "\x1b" not in text and "bad\nname" not in text
    assert [task["name"] for task in _play(dest)["tasks"]] == ["libvirt_network.good", escaped]
    assert text.count("\n# - ") == len(reasons)


def test_the_instance_limit(run_module: Run, tmp_path: t.Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tfstate, "MAX_INSTANCES", 3)
    many = [_resource("libvirt_network", f"n{i}", {"name": f"n{i}"}) for i in range(4)]
    with pytest.raises(tfstate.TerraformImportError, match="more than 3 resource instances"):
        tfstate.parse_tfstate("x", _state(*many).encode())


def test_a_state_in_cloud_storage(run_module: Run, tmp_path: t.Any) -> None:
    token = "tfimport-read-token"
    with Emulator(State(tokens={token: "write"}, buckets={"tf-states": Bucket("tf-states")})) as emulator:
        with open(LIBVIRT_STATE, "rb") as handle:
            uploaded = requests.post(
                f"{emulator.url}/upload/storage/v1/b/tf-states/o",
                params={"uploadType": "media", "name": "dev/default.tfstate"},
                data=handle.read(),
                headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
                timeout=10,
            )
        assert uploaded.status_code == 200
        options: dict[str, t.Any] = {"auth_kind": "accesstoken", "access_token": token, "api_endpoint": emulator.url}
        result = _import(run_module, "gs://tf-states/dev/default.tfstate", tmp_path / "site.yml", **options)
        assert result["changed"] and len(result["converted"]) == 7
        assert token not in json.dumps(result)
        missing = _import(run_module, "gs://tf-states/dev/none.tfstate", tmp_path / "other.yml", **options)
        assert missing["failed"] and missing["msg"] == "src: gs://tf-states/dev/none.tfstate does not exist (HTTP 404)"
        bad = _import(run_module, "gs://Not_A_Bucket!/x", tmp_path / "other.yml", **options)
        assert bad["failed"] and bad["msg"].startswith("src: 'gs://Not_A_Bucket!/x' does not name a bucket")


# ---------------------------------------------------------------------------- the YAML writer


# What the tag would turn into something else, made of characters no template holds: quoted.
_NOT_TAGGED = {"yes", "No", "null", "~", "1e3", "0x1F", "012", "2001-12-14", ".inf", "- a", "", "yes\n", "12\n", "+1", "-.5", "<<", "="}
_NOT_TAGGED |= {"2001-12-14 21:59:43.10 -5", "On"}


@pytest.mark.parametrize(
    "value",
    [
        "yes",
        "No",
        "null",
        "~",
        "1e3",
        "0x1F",
        "012",
        "2001-12-14",
        ".inf",
        "- a",
        "a: b",
        "a #b",
        "{{ lookup('pipe', 'id') }}",
        "{% if x %}",
        "line\nline2\n",
        "  indented\nfirst\n",
        "a\n  \nb",
        "no newline at the end\nx",
        "many\n\n\n",
        "tab\tand\rreturn\n",
        "\x00\x07\x1b[31m\x85\u2028\u202e\U0001f600",
        "",
        " ",
        "{{ x }}\nsecond line\n",
        # what !unsafe would turn into something else (ansible-core resolves it as a plain scalar)
        "yes\n",
        "12\n",
        "+1",
        "-.5",
        "<<",
        "=",
        "2001-12-14 21:59:43.10 -5",
        "On",
        # a template without braces, and what would start one
        "#jinja2:variable_start_string:'[[',variable_end_string:']]'\n[[ 7 * 6 ]]\n",
        "#jinja2:variable_start_string:'[[',variable_end_string:']]'\n1[[ 7 * 6 ]]",
        "-{{ 7 * 6 }}",
        "1{# c #}",
        "{% raw %}{{ 7 * 6 }}{% endraw %}",
        "plain",
    ],
)
def test_yaml_writer_round_trips(value: str) -> None:
    """Every string, key or value, loads as it was, and stays so when Ansible templates the
    document as it templates a playbook's task (what is not !unsafe is trusted then)."""
    document = [{"k": value, value or "empty": [value, {"nested": value}]}]
    text = dump_yaml(document)
    assert _plain(AnsibleLoader(text).get_single_data()) == document
    loaded = AnsibleLoader(trust_as_template(text)).get_single_data()
    assert _plain(Templar(loader=None, variables={"x": 1}).template(loaded)) == document
    assert text.count("!unsafe") == 2 + ((value or "empty") not in _NOT_TAGGED) + 3 * (value not in _NOT_TAGGED)


def test_yaml_writer_writes_trusted_text_as_it_is() -> None:
    text = dump_yaml([{Trusted("name"): Trusted("{{ a ~ b }}"), "k": Trusted("x")}])
    assert text == '- name: "{{ a ~ b }}"\n  !unsafe k: x\n'


def test_older_coder_attributes(run_module: Run, tmp_path: t.Any) -> None:
    with open(CODER_STATE, encoding="utf-8") as handle:
        state = json.load(handle)
    by_name = {r["name"]: r["instances"][0]["attributes"] for r in state["resources"]}
    by_name["vim"].update(display_name="", name="Vim (legacy name)")  # coderd shows the legacy name then
    by_name["dev"].update(login_before_ready=False, startup_script_timeout=0)  # said nothing: ignored
    by_name["code-server"]["relative_path"] = True  # said something no option takes
    src = tmp_path / "terraform.tfstate"
    src.write_text(json.dumps(state))
    dest = tmp_path / "site.yml"
    result = _import(run_module, src, dest)
    reasons = {item["address"]: item["reason"] for item in result["not_converted"]}
    assert reasons["coder_app.code-server"] == "attributes the module does not take: relative_path"
    assert "coder_agent.dev" not in reasons
    assert _tasks(dest)["coder_app.vim"][1]["display_name"] == "Vim (legacy name)"


# ---------------------------------------------------------------------------- what a state holds is data

# ansible-core reads a first line "#jinja2:..." of any templated string and templates the rest
# with the delimiters it names: such a value holds no brace at all.
_HEADER = "#jinja2:variable_start_string:'[[',variable_end_string:']]'\n"
COLLECTIONS = os.path.abspath(os.path.join(os.path.dirname(__file__), *[os.pardir] * 7))
ANSIBLE_PLAYBOOK = os.path.join(os.path.dirname(sys.executable), "ansible-playbook")


def run_playbook(tmp_path: t.Any, playbook: t.Any, *options: str, check: bool) -> subprocess.CompletedProcess[str]:
    """A playbook the import wrote, run by ansible-playbook on localhost with this collection."""
    environment = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "ANSIBLE_COLLECTIONS_PATH": COLLECTIONS,
        "ANSIBLE_PYTHON_INTERPRETER": sys.executable,
        "ANSIBLE_LOCAL_TEMP": str(tmp_path / "tmp"),
        "ANSIBLE_NOCOLOR": "1",
        "PYTHONPATH": COLLECTIONS,
    }
    argv = [ANSIBLE_PLAYBOOK, "-i", "localhost,", "-c", "local", str(playbook), *options, *(["--check"] if check else [])]
    return subprocess.run(argv, env=environment, capture_output=True, text=True, timeout=300, check=False)


def _hostile_values(marker: str) -> dict[str, t.Any]:
    """Where a state's text goes -> what it holds: each, if Ansible templated it, would touch
    ``marker``-<where>."""

    def header(where: str) -> str:
        return f"{_HEADER}[[ lookup('pipe', 'touch {marker}-{where}') ]]\n"

    def plain(where: str) -> str:
        return f"{{{{ lookup('pipe', 'touch {marker}-{where}') }}}}"

    return {
        "startup_script": header("startup_script"),
        "env": {plain("env_key"): header("env_value"), "PLAIN": plain("env_plain")},
        # the token's reference is built around pieces that hold a header, Jinja, raw blocks
        "user_data": f"{header('user_data')}CODER_AGENT_TOKEN={AGENT_TOKEN}\n{plain('user_data_after')}\n",
        "script": f"{header('script')}{{% endraw %}}export CODER_AGENT_TOKEN={AGENT_TOKEN}\n{{% raw %}}{plain('script_after')}\n{{{{ x\n",
        "meta_data": header("meta_data"),
        "env_value": header("coder_env"),
        "command": plain("app_command"),
        "index_key": plain("task_name"),  # in the task's name
        "typed": "0012",  # what !unsafe would turn into a number: still the string
    }


def _hostile_state(tmp_path: t.Any, values: dict[str, t.Any]) -> t.Any:
    with open(CODER_STATE, encoding="utf-8") as handle:
        state = json.load(handle)
    by_name = {r["name"]: r for r in state["resources"] if r["type"].startswith(("coder_", "libvirt_")) and r["mode"] == "managed"}
    agent = by_name["dev"]["instances"][0]["attributes"]
    agent.update(startup_script=values["startup_script"], env=values["env"])
    seed = by_name["seed"]["instances"][0]["attributes"]
    seed.update(user_data=values["user_data"], meta_data=values["meta_data"], path=str(tmp_path / "seed" / "cloudinit-0a1b2c3d4e5f6a7b.iso"))
    by_name["unique_env"]["instances"][0]["attributes"]["value"] = values["env_value"]
    by_name["path_b"]["instances"][0]["attributes"]["value"] = values["typed"]
    by_name["vim"]["instances"][0]["attributes"]["command"] = values["command"]
    by_name["nightly_update"]["instances"][0]["attributes"]["script"] = values["script"]
    by_name["vim"]["instances"][0]["index_key"] = values["index_key"]
    src = tmp_path / "terraform.tfstate"
    src.write_text(json.dumps(state))
    return src


def test_what_a_state_holds_is_never_templated(run_module: Run, tmp_path: t.Any) -> None:
    """Read as Ansible reads a playbook, every string of the state stays as it is: templated with
    the agent's token registered, the tasks' options are the state's values, byte for byte."""
    marker = str(tmp_path / "PWNED")
    values = _hostile_values(marker)
    dest = tmp_path / "site.yml"
    result = _import(run_module, _hostile_state(tmp_path, values), dest, state_file=str(tmp_path / "ws.json"), libvirt_uri=TEST_URI)
    assert f"coder_app.vim[{json.dumps(values['index_key'])}]" in [item["address"] for item in result["converted"]]
    tasks = _rendered(dest, {"tf_coder_agent_dev": {"agent": {"token": AGENT_TOKEN}}})
    agent = tasks["coder_agent.dev"][1]
    assert (agent["startup_script"], agent["env"]) == (values["startup_script"], values["env"])
    seed = tasks["libvirt_cloudinit_disk.seed"][1]
    assert (seed["user_data"], seed["meta_data"]) == (values["user_data"], values["meta_data"])
    assert tasks["coder_env.unique_env"][1]["value"] == values["env_value"]
    assert tasks["coder_env.path_b"][1]["value"] == values["typed"]
    assert tasks["coder_script.nightly_update"][1]["script"] == values["script"]
    assert tasks[f"coder_app.vim[{json.dumps(values['index_key'])}]"][1]["command"] == values["command"]
    assert not list(tmp_path.glob("PWNED*"))


@pytest.mark.skipif(not os.path.exists(ANSIBLE_PLAYBOOK), reason="ansible-playbook is not next to the test's Python")
def test_the_imported_playbook_runs_the_state_as_data(run_module: Run, tmp_path: t.Any) -> None:
    """The playbook written from a hostile state, run by ansible-playbook in check mode and for
    real (the workspace modules need no daemon; the seed is a file): nothing of the state ran,
    and each module got the state's value byte for byte (the workspace tasks find their entries
    as the import wrote them; the seed image holds the user-data with the token in its place)."""
    marker = str(tmp_path / "PWNED")
    values = _hostile_values(marker)
    (tmp_path / "seed").mkdir()
    workspace = tmp_path / "ws.json"
    dest = tmp_path / "site.yml"
    imported = _import(run_module, _hostile_state(tmp_path, values), dest, state_file=str(workspace), libvirt_uri=TEST_URI)
    assert imported["changed"] and not imported.get("failed"), imported
    before = json.loads(workspace.read_text())["resources"]
    for check in (True, False):
        ran = run_playbook(tmp_path, dest, check=check)
        assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
        assert "failed=0" in ran.stdout
        assert not list(tmp_path.glob("PWNED*")), (check, ran.stdout[-3000:])
    after = json.loads(workspace.read_text())["resources"]
    assert after == before  # every workspace task found its entry as the import wrote it
    arguments = after["workspace_agent.dev"]["arguments"]
    assert (arguments["startup_script"], arguments["env"]) == (values["startup_script"], values["env"])
    assert after["workspace_env.dev.UNIQUE"]["arguments"]["value"] == values["env_value"]
    assert after["workspace_env.dev.PATH.path_b"]["arguments"]["value"] == values["typed"]
    assert after["workspace_app.vim"]["arguments"]["command"] == values["command"]
    assert after["workspace_script.dev.Nightly update"]["arguments"]["script"] == values["script"]
    (image,) = (tmp_path / "seed").glob("cloudinit-*.iso")
    content = image.read_bytes()
    assert values["user_data"].encode() in content and values["meta_data"].encode() in content


# ---------------------------------------------------------------------------- terraform-provider-libvirt 0.8

SDK_PRIVATE = "eyJzY2hlbWFfdmVyc2lvbiI6IjAifQ=="  # {"schema_version":"0"}: what SDKv2 (0.8) records for every object
UUID_08 = "0b7e4d2c-3a1f-4e5d-9c8b-7a6f5e4d3c2b"
POOL_08: dict[str, t.Any] = {
    "id": UUID_08,
    "name": "p",
    "type": "dir",
    "capacity": 1,
    "allocation": 0,
    "available": 1,
    "source": [],
    "target": [],
    "xml": [],
    "path": "/p",
}
VOLUME_08: dict[str, t.Any] = {"id": "/p/v", "name": "v", "pool": "p", "source": None, "size": 1048576, "format": "qcow2", "base_volume_id": None}
VOLUME_08 |= {"base_volume_pool": None, "base_volume_name": None, "xml": []}
NETWORK_08: dict[str, t.Any] = {
    "id": UUID_08,
    "name": "n",
    "domain": "k8s.local",
    "mode": "nat",
    "bridge": "virbr7",
    "mtu": None,
    "addresses": ["10.17.3.0/24"],
}
NETWORK_08 |= {"autostart": True, "dns": [{"enabled": True, "local_only": True, "forwarders": [], "srvs": [], "hosts": []}], "dhcp": [{"enabled": True}]}
NETWORK_08 |= {"routes": [], "dnsmasq_options": [], "xml": []}
CLOUDINIT_08: dict[str, t.Any] = {"id": "/p/ci.iso;6a1b", "name": "ci.iso", "pool": "p", "user_data": "#cloud-config\n", "meta_data": "", "network_config": ""}
XSLT = [{"xslt": "<xsl:stylesheet/>"}]
DOMAIN_08: dict[str, t.Any] = {
    "id": UUID_08,
    "name": "vm",
    "description": None,
    "vcpu": 2,
    "memory": 1024,
    "type": "kvm",
    "running": True,
    "autostart": False,
    "arch": "x86_64",
    "machine": None,
    "emulator": None,
    "firmware": "/usr/share/OVMF/OVMF_CODE.fd",
    "nvram": [{"file": "/var/lib/libvirt/qemu/nvram/vm_VARS.fd", "template": None}],
    "cpu": [{"mode": "host-passthrough"}],
    "qemu_agent": True,
    "cloudinit": "/p/ci.iso;5f2b3e4c-0a1b-4c2d-8e3f-4a5b6c7d8e9f",
    "coreos_ignition": None,
    "fw_cfg_name": "opt/com.coreos/config",
    "disk": [
        {"volume_id": None, "url": None, "file": "/img/a.raw", "block_device": None, "scsi": False, "wwn": None},
        {"volume_id": None, "url": None, "file": "/img/b.iso", "block_device": None, "scsi": False, "wwn": None},
        {"volume_id": None, "url": None, "file": None, "block_device": "/dev/sdz", "scsi": False, "wwn": None},
    ],
    "network_interface": [
        {"network_name": "default", "network_id": None, "mac": "52:54:00:AA:BB:01", "hostname": "vm", "addresses": ["10.17.3.10"], "wait_for_lease": True},
        {"network_name": None, "bridge": "br0", "mac": "52:54:00:aa:bb:02", "addresses": []},
        {"network_name": None, "bridge": None, "macvtap": "eth1", "mac": "52:54:00:aa:bb:03", "addresses": []},
    ],
    "console": [{"type": "pty", "target_port": "0", "target_type": "serial", "source_path": None}],
    "graphics": [{"type": "spice", "autoport": True, "listen_type": "none", "listen_address": None, "websocket": 0}],
    "video": [],
    "filesystem": [],
    "tpm": [],
    "boot_device": [],
    "kernel": None,
    "initrd": None,
    "cmdline": [],
    "xml": [],
}

# 0.8 attributes -> the task's options, or the reason it is not converted (a string).
TABLE_08: list[tuple[str, str, dict[str, t.Any], t.Any]] = [
    ("pool", "libvirt_pool", POOL_08, {"name": "p", "type": "dir", "target": {"path": "/p"}, "running": True}),
    (
        "logical_pool",
        "libvirt_pool",
        {**POOL_08, "type": "logical", "path": None, "source": [{"name": "vg", "device": [{"path": "/dev/sdb"}]}], "target": [{"path": "/dev/vg"}]},
        {
            "name": "p",
            "type": "logical",
            "target": {"path": "/dev/vg"},
            "source": {"name": "vg", "device": [{"path": "/dev/sdb"}]},
            "running": True,
        },
    ),
    ("pool_xslt", "libvirt_pool", {**POOL_08, "xml": XSLT}, "xml.xslt: 0.8 applied this XSLT"),
    ("volume", "libvirt_volume", VOLUME_08, {"name": "v", "pool": "p", "capacity": 1048576, "capacity_unit": "bytes", "target": {"format": {"type": "qcow2"}}}),
    (
        "volume_on_base",
        "libvirt_volume",
        {**VOLUME_08, "base_volume_id": "/p/base", "source": "https://example.org/x.qcow2"},
        {
            "name": "v",
            "pool": "p",
            "capacity": 1048576,
            "capacity_unit": "bytes",
            "target": {"format": {"type": "qcow2"}},
            "backing_store": {"path": "/p/base"},
            "create": {"content": {"url": "https://example.org/x.qcow2"}},
        },
    ),
    (
        "volume_base_name",
        "libvirt_volume",
        {**VOLUME_08, "base_volume_name": "base"},
        "base_volume_name: the state holds the base volume's name but not its path",
    ),
    ("volume_xslt", "libvirt_volume", {**VOLUME_08, "xml": XSLT}, "xml.xslt: 0.8 applied this XSLT"),
    (
        "network",
        "libvirt_network",
        NETWORK_08,
        {
            "name": "n",
            "forward": {"mode": "nat"},
            "bridge": {"name": "virbr7"},
            "domain": {"name": "k8s.local", "local_only": True},
            "ips": [{"address": "10.17.3.1", "prefix": 24, "family": "ipv4", "dhcp": {"ranges": [{"start": "10.17.3.2", "end": "10.17.3.254"}]}}],
            "dns": {"enable": True},
            "autostart": True,
        },
    ),
    (
        "isolated_network",
        "libvirt_network",
        {**NETWORK_08, "mode": "none", "domain": None, "dns": [], "dhcp": [{"enabled": False}], "addresses": ["fd00:1::/64"]},
        {"name": "n", "bridge": {"name": "virbr7"}, "ips": [{"address": "fd00:1::1", "prefix": 64, "family": "ipv6"}], "autostart": True},
    ),
    ("network_tiny", "libvirt_network", {**NETWORK_08, "addresses": ["10.0.0.0/30"]}, "addresses: 10.0.0.0/30 is smaller than 0.8 accepted"),
    ("network_xslt", "libvirt_network", {**NETWORK_08, "xml": XSLT}, "xml.xslt: 0.8 applied this XSLT"),
    (
        "cloudinit",
        "libvirt_cloudinit_disk",
        CLOUDINIT_08,
        "libvirt_cloudinit_disk would write a volume of its own making (other bytes), so the task would change it",
    ),
    (
        "domain",
        "libvirt_domain",
        DOMAIN_08,
        {
            "name": "vm",
            "uuid": UUID_08,
            "type": "kvm",
            "memory": 1024,
            "memory_unit": "MiB",
            "vcpu": 2,
            "os": {"type": "hvm", "type_arch": "x86_64", "loader": "/usr/share/OVMF/OVMF_CODE.fd", "loader_readonly": True}
            | {"loader_type": "pflash", "loader_secure": False, "nv_ram": {"nv_ram": "/var/lib/libvirt/qemu/nvram/vm_VARS.fd"}},
            "cpu": {"mode": "host-passthrough"},
            "devices": {
                "disks": [
                    {
                        "device": "disk",
                        "target": {"dev": "vda", "bus": "virtio"},
                        "driver": {"name": "qemu", "type": "raw"},
                        "source": {"file": {"file": "/img/a.raw"}},
                    },
                    {
                        "device": "cdrom",
                        "target": {"dev": "hda", "bus": "ide"},
                        "driver": {"name": "qemu", "type": "raw"},
                        "source": {"file": {"file": "/img/b.iso"}},
                    },
                    {
                        "device": "disk",
                        "target": {"dev": "vdc", "bus": "virtio"},
                        "driver": {"name": "qemu", "type": "raw"},
                        "source": {"block": {"dev": "/dev/sdz"}},
                    },
                    {
                        "device": "cdrom",
                        "driver": {"name": "qemu", "type": "raw"},
                        "source": {"file": {"file": "/p/ci.iso"}},
                        "target": {"dev": "hdd", "bus": "ide"},
                    }
                    | {"serial": "cloudinit"},
                ],
                "interfaces": [
                    {"mac": {"address": "52:54:00:aa:bb:01"}, "model": {"type": "virtio"}, "source": {"network": {"network": "default"}}},
                    {"mac": {"address": "52:54:00:aa:bb:02"}, "model": {"type": "virtio"}, "source": {"bridge": {"bridge": "br0"}}},
                    {"mac": {"address": "52:54:00:aa:bb:03"}, "model": {"type": "virtio"}, "source": {"direct": {"dev": "eth1", "mode": "bridge"}}},
                ],
                "consoles": [{"target": {"port": 0, "type": "serial"}}],
                "graphics": [{"spice": {"auto_port": True}}],
            },
            "running": True,
            "autostart": False,
        },
    ),
    ("domain_xslt", "libvirt_domain", {**DOMAIN_08, "xml": XSLT}, "xml.xslt: 0.8 applied this XSLT"),
    ("domain_scsi", "libvirt_domain", {**DOMAIN_08, "disk": [{"file": "/x.raw", "scsi": True, "wwn": "05abcd0123456789"}]}, "disk[0].scsi: 0.8's SCSI disks"),
    ("domain_url", "libvirt_domain", {**DOMAIN_08, "disk": [{"url": "http://h/x.iso"}]}, "disk[0].url: 0.8's network disks are not converted"),
    (
        "domain_foreign_volume",
        "libvirt_domain",
        {**DOMAIN_08, "disk": [{"volume_id": "/elsewhere/v"}]},
        "disk[0].volume_id: the volume is not a libvirt_volume of this state",
    ),
    (
        "domain_foreign_network",
        "libvirt_domain",
        {**DOMAIN_08, "network_interface": [{"network_id": UUID_08, "mac": "52:54:00:aa:bb:01"}]},
        "not a libvirt_network of this state",
    ),
    (
        "domain_no_mac",
        "libvirt_domain",
        {**DOMAIN_08, "network_interface": [{"network_name": "default", "mac": None}]},
        "network_interface[0].mac: the state holds no MAC",
    ),
    (
        "domain_tcp_console",
        "libvirt_domain",
        {**DOMAIN_08, "console": [{"type": "tcp", "target_port": "0", "source_host": "0.0.0.0"}]},
        "console[0]: only 0.8's pty consoles",
    ),
    (
        "domain_filesystem",
        "libvirt_domain",
        {**DOMAIN_08, "filesystem": [{"source": "/srv", "target": "srv"}]},
        "filesystem: 0.8's 9p shares are not converted",
    ),
]


@pytest.mark.parametrize(("name", "kind", "attributes", "expected"), TABLE_08, ids=[row[0] for row in TABLE_08])
def test_08_resources_become_tasks_or_reasons(run_module: Run, tmp_path: t.Any, name: str, kind: str, attributes: dict[str, t.Any], expected: t.Any) -> None:
    src = tmp_path / "terraform.tfstate"
    src.write_text(_state(_resource(kind, name, attributes, instance={"private": SDK_PRIVATE, "schema_version": 0})))
    dest = tmp_path / "site.yml"
    result = _import(run_module, src, dest)
    if isinstance(expected, str):
        (item,) = result["not_converted"]
        assert expected in item["reason"], item["reason"]
        assert not result["converted"]
        return
    assert not result["not_converted"], result["not_converted"]
    module, args = _tasks(dest)[f"{kind}.{name}"]
    assert (module, _plain(args)) == (kind, expected)
    _module_check(module, _plain(args))


@pytest.mark.parametrize(
    ("instances", "version"),
    [
        # the SDKv2 record decides, even when the attributes name no version
        ([("libvirt_pool", {"name": "p", "type": "dir"}, SDK_PRIVATE)], "0.8"),
        # without it, the attribute set (Terraform writes every attribute, null ones too)
        ([("libvirt_cloudinit_disk", {**CLOUDINIT_08, "pool": None}, None)], "0.8"),
        ([("libvirt_pool", {"name": "p", "type": "dir"}, None), ("libvirt_volume", VOLUME_08, None)], "0.8"),
        ([("libvirt_network", {"name": "n", "uuid": UUID_08, "ips": None}, None)], "0.9"),
        ([("libvirt_pool", {"name": "p", "type": "dir"}, None)], "0.9"),
    ],
)
def test_the_provider_version_is_read_from_the_state(instances: list[tuple[str, dict[str, t.Any], str | None]], version: str) -> None:
    resources = [
        _resource(kind, f"r{i}", attributes, instance={"private": private} if private else {}) for i, (kind, attributes, private) in enumerate(instances)
    ]
    state = tfstate.parse_tfstate("s", _state(*resources).encode())
    assert state_version(state.instances) == (version, None)


def test_an_object_of_both_schemas_is_refused(run_module: Run, tmp_path: t.Any) -> None:
    src = tmp_path / "terraform.tfstate"
    src.write_text(_state(_resource("libvirt_domain", "both", {"name": "vm", "type": "kvm", "devices": {}, "disk": [{"file": "/x.raw"}]})))
    result = _import(run_module, src, tmp_path / "site.yml")
    (item,) = result["not_converted"]
    assert item["reason"].startswith("its attributes (disk) are those of terraform-provider-libvirt 0.8, beside the current schema's"), item


def test_a_state_of_both_versions_is_refused(run_module: Run, tmp_path: t.Any) -> None:
    src = tmp_path / "terraform.tfstate"
    src.write_text(_state(_resource("libvirt_volume", "old", VOLUME_08), _resource("libvirt_network", "new", {"name": "n", "uuid": UUID_08, "ips": []})))
    result = _import(run_module, src, tmp_path / "site.yml")
    assert not result["converted"]
    reasons = {item["address"]: item["reason"] for item in result["not_converted"]}
    assert set(reasons) == {"libvirt_volume.old", "libvirt_network.new"}
    assert all("of terraform-provider-libvirt 0.8 (libvirt_volume.old) and of 0.9 (libvirt_network.new)" in reason for reason in reasons.values())


def test_the_08_tasks_find_what_08_made_unchanged(run_module: Run, tmp_path: t.Any) -> None:
    """A pool, a qcow2 volume, a cloud-init ISO volume, a NAT network and a running domain
    defined on test:///default with the XML 0.8 wrote for them (the disk by pool and volume, the
    ISO as an IDE CD-ROM by path, the interface by network name and MAC, 0.8's default devices),
    a 0.8 state describing them; every task changes nothing (check mode and a real run), the
    domain and the network keep their UUIDs, the interface its MAC, and no second ISO is made."""
    connection = libvirt.open(TEST_URI)
    prefix = "tf08"
    pool_xml = f"<pool type='dir'><name>{prefix}-pool</name><target><path>/{prefix}-pool</path></target></pool>"
    net_xml = (
        f"<network><name>{prefix}-net</name><uuid>{UUID_08}</uuid><forward mode='nat'/><bridge name='virbr7' stp='on'/>"
        "<domain name='k8s.local' localOnly='yes'/><dns enable='yes'/>"
        "<ip address='10.17.3.1' family='ipv4' prefix='24'><dhcp><range start='10.17.3.2' end='10.17.3.254'/></dhcp></ip></network>"
    )
    pool = connection.storagePoolDefineXML(pool_xml)
    try:
        pool.setAutostart(1)
        pool.create()
        pool.createXML(f"<volume><name>{prefix}-disk</name><capacity>1048576</capacity><target><format type='qcow2'/></target></volume>")
        disk_key = pool.storageVolLookupByName(f"{prefix}-disk").key()
        seed = pool.createXML(f"<volume><name>{prefix}-seed.iso</name><capacity>374784</capacity><target><format type='raw'/></target></volume>")
        network = connection.networkDefineXML(net_xml)
        network.setAutostart(1)
        network.create()
        vm_uuid, mac = "7d1c2b3a-4e5f-4a6b-9c8d-0e1f2a3b4c5d", "52:54:00:0a:0b:0c"
        vm_xml = (
            f"<domain type='test'><name>{prefix}-vm</name><uuid>{vm_uuid}</uuid><memory unit='MiB'>128</memory>"
            "<vcpu placement='static'>1</vcpu><os><type arch='x86_64'>hvm</type></os><features><pae/><acpi/><apic/></features><devices>"
            f"<disk type='volume' device='disk'><driver name='qemu' type='qcow2'/><source pool='{prefix}-pool' volume='{prefix}-disk'/>"
            "<target dev='vda' bus='virtio'/></disk>"
            f"<disk type='file' device='cdrom'><driver name='qemu' type='raw'/><source file='{seed.path()}'/><target dev='hdd' bus='ide'/>"
            "<serial>cloudinit</serial></disk>"
            f"<interface type='network'><mac address='{mac.upper()}'/><source network='{prefix}-net'/><model type='virtio'/></interface>"
            "<console type='pty'><target type='serial' port='0'/></console><graphics type='spice' autoport='yes'/>"
            "<channel type='unix'><target type='virtio' name='org.qemu.guest_agent.0'/></channel>"
            "<rng model='virtio'><backend model='random'>/dev/urandom</backend></rng></devices></domain>"
        )
        domain = connection.defineXML(vm_xml)
        domain.create()
        volumes_before = sorted(pool.listVolumes())
        vm = {
            **DOMAIN_08,
            "id": vm_uuid,
            "name": f"{prefix}-vm",
            "vcpu": 1,
            "memory": 128,
            "type": "test",
            "firmware": None,
            "nvram": [],
            "cpu": [],
            "cloudinit": f"{seed.key()};5f2b3e4c-0a1b-4c2d-8e3f-4a5b6c7d8e9f",
            "disk": [{"volume_id": disk_key, "url": None, "file": None, "block_device": None, "scsi": False, "wwn": None}],
            "network_interface": [{"network_id": UUID_08, "network_name": f"{prefix}-net", "mac": mac.upper(), "addresses": [], "wait_for_lease": False}],
        }
        resources = [
            _resource("libvirt_pool", "pool", {**POOL_08, "name": f"{prefix}-pool", "path": f"/{prefix}-pool"}, instance={"private": SDK_PRIVATE}),
            _resource(
                "libvirt_volume", "disk", {**VOLUME_08, "id": disk_key, "name": f"{prefix}-disk", "pool": f"{prefix}-pool"}, instance={"private": SDK_PRIVATE}
            ),
            _resource("libvirt_domain", "vm", vm, instance={"private": SDK_PRIVATE}),
            _resource("libvirt_network", "net", {**NETWORK_08, "name": f"{prefix}-net"}, instance={"private": SDK_PRIVATE}),
            _resource("libvirt_cloudinit_disk", "seed", {**CLOUDINIT_08, "id": vm["cloudinit"], "name": f"{prefix}-seed.iso", "pool": f"{prefix}-pool"}),
        ]
        src = tmp_path / "terraform.tfstate"
        src.write_text(_state(*resources))
        dest = tmp_path / "site.yml"
        result = _import(run_module, src, dest, libvirt_uri=TEST_URI)
        assert [item["address"] for item in result["not_converted"]] == ["libvirt_cloudinit_disk.seed"]
        assert "# - libvirt_cloudinit_disk.seed: 0.8 wrote the cloud-init ISO itself" in dest.read_text()
        mains = {"libvirt_pool": libvirt_pool.main, "libvirt_network": libvirt_network.main, "libvirt_volume": libvirt_volume.main}
        mains["libvirt_domain"] = libvirt_domain.main
        tasks = _tasks(dest)
        assert list(tasks) == ["libvirt_pool.pool", "libvirt_network.net", "libvirt_volume.disk", "libvirt_domain.vm"]
        assert tasks["libvirt_domain.vm"][1]["uuid"] == vm_uuid
        for name, (module, args) in tasks.items():
            for check_mode in (True, False):
                ran = run_module(mains[module], {**_plain(args), "uri": TEST_URI}, check_mode=check_mode, diff=True)
                assert ran.get("failed") is not True, (name, ran.get("msg"))
                assert ran["changed"] is False, (name, ran.get("diff"))
        assert connection.networkLookupByName(f"{prefix}-net").UUIDString() == UUID_08
        after = connection.lookupByName(f"{prefix}-vm")
        assert (after.UUIDString(), after.isActive()) == (vm_uuid, 1)
        assert f"<mac address='{mac}'/>" in after.XMLDesc(0)
        assert sorted(pool.listVolumes()) == volumes_before
    finally:
        run_module(libvirt_domain.main, {"uri": TEST_URI, "name": f"{prefix}-vm", "state": "absent"})
        run_module(libvirt_volume.main, {"uri": TEST_URI, "name": f"{prefix}-seed.iso", "pool": f"{prefix}-pool", "state": "absent"})
        run_module(libvirt_network.main, {"uri": TEST_URI, "name": f"{prefix}-net", "state": "absent"})
        run_module(libvirt_volume.main, {"uri": TEST_URI, "name": f"{prefix}-disk", "pool": f"{prefix}-pool", "state": "absent"})
        run_module(libvirt_pool.main, {"uri": TEST_URI, "name": f"{prefix}-pool", "state": "absent"})
        connection.close()


def _node_08(directory: t.Any) -> str:
    """A test driver node file holding what 0.8 made (its XML shapes): every process that opens
    test:///<file> finds the same objects, so ansible-playbook's module runs see them too."""
    node = directory / "node.xml"
    node.write_text(
        "<node><cpu><nodes>1</nodes><sockets>1</sockets><cores>2</cores><threads>1</threads><active>2</active><mhz>2000</mhz><model>i686</model></cpu>"
        "<memory>8388608</memory>"
        f"<network><name>n8</name><uuid>{UUID_08}</uuid><forward mode='nat'/><bridge name='virbr7' stp='on'/>"
        "<ip address='10.17.3.1' family='ipv4' prefix='24'><dhcp><range start='10.17.3.2' end='10.17.3.254'/>"
        "<host mac='52:54:00:0a:0b:0c' name='vm8' ip='10.17.3.10'/></dhcp></ip></network>"
        "<pool type='dir'><name>p8</name><uuid>1b7e4d2c-3a1f-4e5d-9c8b-7a6f5e4d3c2b</uuid><capacity>100000000</capacity><allocation>0</allocation>"
        "<available>100000000</available><target><path>/p8</path></target>"
        "<volume><name>d8</name><key>/p8/d8</key><capacity>1048576</capacity><allocation>0</allocation><target><path>/p8/d8</path>"
        "<format type='qcow2'/></target></volume>"
        "<volume><name>seed.iso</name><key>/p8/seed.iso</key><capacity>374784</capacity><allocation>0</allocation><target><path>/p8/seed.iso</path>"
        "<format type='raw'/></target></volume></pool>"
        "<domain type='test'><name>vm8</name><uuid>7d1c2b3a-4e5f-4a6b-9c8d-0e1f2a3b4c5d</uuid><memory unit='MiB'>128</memory>"
        "<vcpu placement='static'>1</vcpu><os><type arch='x86_64'>hvm</type></os><features><pae/><acpi/><apic/></features><devices>"
        "<disk type='volume' device='disk'><driver name='qemu' type='qcow2'/><source pool='p8' volume='d8'/><target dev='vda' bus='virtio'/></disk>"
        "<disk type='file' device='cdrom'><driver name='qemu' type='raw'/><source file='/p8/seed.iso'/><target dev='hdd' bus='ide'/>"
        "<serial>cloudinit</serial></disk>"
        "<interface type='network'><mac address='52:54:00:0A:0B:0C'/><source network='n8'/><model type='virtio'/></interface>"
        "<console type='pty'><target type='serial' port='0'/></console><graphics type='spice' autoport='yes'/>"
        "<rng model='virtio'><backend model='random'>/dev/urandom</backend></rng></devices></domain></node>"
    )
    return f"test://{node}"


@pytest.mark.skipif(not os.path.exists(ANSIBLE_PLAYBOOK), reason="ansible-playbook is not next to the test's Python")
def test_the_playbook_of_an_08_state_changes_nothing(run_module: Run, tmp_path: t.Any) -> None:
    """The playbook written from a 0.8 state, run by ansible-playbook in check mode and for real
    against the objects 0.8 made: ok, changed=0, the cloud-init volume listed and not written."""
    uri = _node_08(tmp_path)
    sdk = {"private": SDK_PRIVATE, "schema_version": 0}
    vm = {
        **DOMAIN_08,
        "id": "7d1c2b3a-4e5f-4a6b-9c8d-0e1f2a3b4c5d",
        "name": "vm8",
        "vcpu": 1,
        "memory": 128,
        "type": "test",
        "firmware": None,
        "nvram": [],
        "cpu": [],
        "cloudinit": "/p8/seed.iso;5f2b3e4c-0a1b-4c2d-8e3f-4a5b6c7d8e9f",
        "disk": [{"volume_id": "/p8/d8", "url": None, "file": None, "block_device": None, "scsi": False, "wwn": None}],
        "network_interface": [{"network_id": UUID_08, "network_name": "n8", "mac": "52:54:00:0A:0B:0C", "hostname": "vm8", "addresses": ["10.17.3.10"]}],
    }
    resources = [
        _resource("libvirt_pool", "pool", {**POOL_08, "name": "p8", "path": "/p8"}, instance=sdk),
        _resource("libvirt_network", "net", {**NETWORK_08, "name": "n8", "domain": None, "dns": [], "autostart": False}, instance=sdk),
        _resource("libvirt_volume", "disk", {**VOLUME_08, "id": "/p8/d8", "name": "d8", "pool": "p8"}, instance=sdk),
        _resource("libvirt_cloudinit_disk", "seed", {**CLOUDINIT_08, "id": vm["cloudinit"], "name": "seed.iso", "pool": "p8"}, instance=sdk),
        _resource("libvirt_domain", "vm", vm, instance=sdk, dependencies=["libvirt_volume.disk"]),
    ]
    src = tmp_path / "terraform.tfstate"
    src.write_text(_state(*resources))
    dest = tmp_path / "site.yml"
    imported = _import(run_module, src, dest, libvirt_uri=uri)
    assert [item["address"] for item in imported["not_converted"]] == ["libvirt_cloudinit_disk.seed"]
    assert [item["address"] for item in imported["converted"]] == ["libvirt_pool.pool", "libvirt_network.net", "libvirt_volume.disk", "libvirt_domain.vm"]
    for check in (True, False):
        ran = run_playbook(tmp_path, dest, "--diff", check=check)
        assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
        assert "ok=4 " in ran.stdout and "changed=0 " in ran.stdout and "failed=0 " in ran.stdout, ran.stdout[-3000:]
