# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""terraform_import's addresses, teardown playbook, outputs and what it does not carry: the
addresses as Terraform prints them (hostile for_each keys included) on every task and in the
task variable the plan callback reads; the teardown's tasks, which name exactly the state's
objects, in reverse dependency order; outputs as variables, sensitive ones never written or
returned (not even at -vvv); every attribute a task leaves out named with its reason."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import typing as t

import pytest
from ansible.parsing.yaml.loader import AnsibleLoader
from ansible.template import Templar, trust_as_template

from ansible_collections.devinfra.providers.plugins.module_utils._terraform import tfstate
from ansible_collections.devinfra.providers.plugins.module_utils._terraform.importer import ADDRESS_VARIABLE, MASK
from ansible_collections.devinfra.providers.plugins.module_utils._terraform.teardown import reverse_order
from ansible_collections.devinfra.providers.plugins.modules import terraform_import

Run = t.Callable[..., dict[str, t.Any]]
FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "terraform_import")
CODER_STATE = os.path.join(FIXTURES, "coder.tfstate")
AGENT_TOKEN = "4e8c2a6f-1d3b-4f5a-9e7c-8b0d2f4a6c81"  # coder_agent.dev's token in coder.tfstate
LIBVIRT = 'provider["registry.terraform.io/dmacvicar/libvirt"]'
SDK_PRIVATE = "eyJzY2hlbWFfdmVyc2lvbiI6IjAifQ=="  # {"schema_version":"0"}: a 0.8 object
UUID = "0b7e4d2c-3a1f-4e5d-9c8b-7a6f5e4d3c2b"
COLLECTIONS = os.path.abspath(os.path.join(os.path.dirname(__file__), *[os.pardir] * 7))
ANSIBLE_PLAYBOOK = os.path.join(os.path.dirname(sys.executable), "ansible-playbook")
PWN = "{{ lookup('pipe', 'touch %s') }}"


def _resource(kind: str, name: str, instances: list[dict[str, t.Any]], *, module: str | None = None, provider: str = LIBVIRT) -> dict[str, t.Any]:
    resource: dict[str, t.Any] = {"mode": "managed", "type": kind, "name": name, "provider": provider, "instances": instances}
    if module is not None:
        resource["module"] = module
    return resource


def _instance(attributes: dict[str, t.Any], *, key: t.Any = None, dependencies: list[str] | None = None, **extra: t.Any) -> dict[str, t.Any]:
    instance: dict[str, t.Any] = {"schema_version": 0, "attributes": attributes, "sensitive_attributes": [], **extra}
    if key is not None:
        instance["index_key"] = key
    if dependencies:
        instance["dependencies"] = dependencies
    return instance


def _state(*resources: dict[str, t.Any], outputs: dict[str, t.Any] | None = None) -> str:
    return json.dumps({"version": 4, "terraform_version": "1.9.8", "serial": 1, "lineage": "l", "outputs": outputs or {}, "resources": list(resources)})


def _import(run_module: Run, tmp_path: t.Any, text: str, **args: t.Any) -> dict[str, t.Any]:
    src = tmp_path / "terraform.tfstate"
    src.write_text(text)
    return run_module(
        terraform_import.main,
        {"src": str(src), "dest": str(tmp_path / "site.yml"), "teardown_dest": str(tmp_path / "down.yml"), "force": True, **args},
        diff=True,
    )


def _rendered_play(path: t.Any) -> dict[str, t.Any]:
    """The play as Ansible reads and templates it (the file trusted, what is !unsafe not)."""
    with open(path, encoding="utf-8") as handle:
        (play,) = AnsibleLoader(trust_as_template(handle.read())).get_single_data()
    templar = Templar(loader=None, variables=dict(play.get("vars") or {}))
    return t.cast("dict[str, t.Any]", json.loads(json.dumps(templar.template(play))))


def _volume(name: str, pool: str = "pool") -> dict[str, t.Any]:
    return {"name": name, "pool": pool, "capacity": 1048576}


# ---------------------------------------------------------------------------- addresses

# (module, index_key) -> the address Terraform prints (a key quoted as HCL quotes it).
ADDRESSES = [
    (None, None, "libvirt_volume.disk"),
    (None, 0, "libvirt_volume.disk[0]"),
    (None, "a", 'libvirt_volume.disk["a"]'),
    (None, 'say "hi"\\', 'libvirt_volume.disk["say \\"hi\\"\\\\"]'),
    (None, "two\nlines\r\tand a tab", 'libvirt_volume.disk["two\\nlines\\r\\tand a tab"]'),
    (None, "${var.x} %{ if y }", 'libvirt_volume.disk["$${var.x} %%{ if y }"]'),
    (None, "$ and % alone", 'libvirt_volume.disk["$ and % alone"]'),
    (None, "{{ jinja }} {% raw %}", 'libvirt_volume.disk["{{ jinja }} {% raw %}"]'),
    (None, "esc\x1b[31m del\x7f", 'libvirt_volume.disk["esc\\u001b[31m del\\u007f"]'),
    (None, "bidi\u202e zero\u200b tag\U000e0001", 'libvirt_volume.disk["bidi\\u202e zero\\u200b tag\\U000e0001"]'),
    (None, "ünïcødé ✓", 'libvirt_volume.disk["ünïcødé ✓"]'),
    ("module.ws", None, "module.ws.libvirt_volume.disk"),
    ('module.ws["a.b]"].module.inner[0]', "k", 'module.ws["a.b]"].module.inner[0].libvirt_volume.disk["k"]'),
]


@pytest.mark.parametrize(("module", "key", "address"), ADDRESSES, ids=[row[2] for row in ADDRESSES])
def test_addresses_read_as_terraform_prints_them(module: str | None, key: t.Any, address: str) -> None:
    state = tfstate.parse_tfstate("x", _state(_resource("libvirt_volume", "disk", [_instance(_volume("v"), key=key)], module=module)).encode())
    (instance,) = state.instances
    assert (instance.address, instance.problem) == (address, None)
    assert "\n" not in instance.address and "\x1b" not in instance.address
    # what dependencies name: the resource without any instance key
    assert instance.resource == (
        "module.ws.module.inner.libvirt_volume.disk" if module and "inner" in module else f"{module + '.' if module else ''}libvirt_volume.disk"
    )


def test_hostile_keys_become_task_names_and_the_address_variable_as_data(run_module: Run, tmp_path: t.Any) -> None:
    """Each task of both playbooks is named by its address and carries it as devinfra_tf_address;
    read and templated as Ansible does, both are the address byte for byte, and nothing ran."""
    marker = str(tmp_path / "PWNED")
    keys = ['a"b', "line\nbreak", PWN % f"{marker}-key", "#jinja2:variable_start_string:'[['\n[[ lookup('pipe', 'touch " + marker + "-h') ]]", "${x}", "0012"]
    text = _state(_resource("libvirt_volume", "disk", [_instance(_volume(f"v{index}"), key=key) for index, key in enumerate(keys)]))
    result = _import(run_module, tmp_path, text)
    addresses = [item["address"] for item in result["converted"]]
    assert addresses == [tfstate.parse_tfstate("x", text.encode()).instances[index].address for index in range(len(keys))]
    assert [item["address"] for item in result["teardown"]] == addresses  # no dependencies: the state's order
    for playbook in ("site.yml", "down.yml"):
        play = _rendered_play(tmp_path / playbook)
        assert [task["name"] for task in play["tasks"]] == addresses
        assert [task["vars"][ADDRESS_VARIABLE] for task in play["tasks"]] == addresses
        assert all(task["devinfra.providers.libvirt_volume"]["name"] == f"v{index}" for index, task in enumerate(play["tasks"]))
    assert not list(tmp_path.glob("PWNED*"))


# ---------------------------------------------------------------------------- teardown


def _named(name: str, kind: str, attributes: dict[str, t.Any], dependencies: list[str] | None = None, **extra: t.Any) -> dict[str, t.Any]:
    return _resource(kind, name, [_instance(attributes, dependencies=dependencies, **extra)])


TEARDOWN_ORDERS = [
    (
        "a domain before its disk and network, a volume before its pool",
        [
            _named("p", "libvirt_pool", {"name": "p", "type": "dir", "target": {"path": "/p"}}),
            _named("v", "libvirt_volume", _volume("v", "p"), ["libvirt_pool.p"]),
            _named("n", "libvirt_network", {"name": "n"}),
            _named("vm", "libvirt_domain", {"name": "vm", "uuid": UUID, "type": "kvm"}, ["libvirt_network.n", "libvirt_volume.v"]),
        ],
        # the pool is ready once its volume went, and comes before the network in the state
        ["libvirt_domain.vm", "libvirt_volume.v", "libvirt_pool.p", "libvirt_network.n"],
    ),
    (
        "ties go by the state's order, whatever the kinds",
        [
            _named("b", "libvirt_network", {"name": "b"}),
            _named("a", "libvirt_pool", {"name": "a", "type": "dir"}),
            _named("c", "libvirt_network", {"name": "c"}),
        ],
        ["libvirt_network.b", "libvirt_pool.a", "libvirt_network.c"],
    ),
    (
        "dependencies name resources: every instance of it waits",
        [
            _resource("libvirt_volume", "v", [_instance(_volume("v0"), key=0, dependencies=["module.m.libvirt_pool.p"]), _instance(_volume("v1"), key=1)]),
            _resource("libvirt_pool", "p", [_instance({"name": "p", "type": "dir"}, key="x")], module='module.m["a"]'),
            _resource("libvirt_domain", "vm", [_instance({"name": "vm", "uuid": UUID}, dependencies=["libvirt_volume.v"])]),
        ],
        ["libvirt_domain.vm", "libvirt_volume.v[0]", "libvirt_volume.v[1]", 'module.m["a"].libvirt_pool.p["x"]'],
    ),
    (
        "a cycle (no state Terraform writes) ends in the reverse of the state's order",
        [
            _named("a", "libvirt_network", {"name": "a"}, ["libvirt_network.b"]),
            _named("b", "libvirt_network", {"name": "b"}, ["libvirt_network.a"]),
            _named("c", "libvirt_network", {"name": "c"}),
        ],
        ["libvirt_network.c", "libvirt_network.b", "libvirt_network.a"],
    ),
]


@pytest.mark.parametrize(("resources", "expected"), [row[1:] for row in TEARDOWN_ORDERS], ids=[row[0] for row in TEARDOWN_ORDERS])
def test_the_teardown_removes_after_what_depends(run_module: Run, tmp_path: t.Any, resources: list[dict[str, t.Any]], expected: list[str]) -> None:
    result = _import(run_module, tmp_path, _state(*resources))
    assert [item["address"] for item in result["teardown"]] == expected
    play = _rendered_play(tmp_path / "down.yml")
    assert [task["name"] for task in play["tasks"]] == expected
    assert all(next(v for k, v in task.items() if k.startswith("devinfra.providers."))["state"] == "absent" for task in play["tasks"])


def test_reverse_order_is_stable() -> None:
    assert reverse_order(["a", "b", "c", "d"], {"d": {"a"}, "b": {"c"}}) == ["b", "c", "d", "a"]
    assert reverse_order(["a", "a2"], {"a": {"a"}}) == ["a", "a2"]  # an edge to itself is none


# 0.9 and 0.8 objects -> (module, the options that name them), or the reason none does.
IDENTITIES = [
    ("domain by its UUID", "libvirt_domain", {"name": "vm", "uuid": UUID, "type": "kvm", "memory": 1}, None, ("libvirt_domain", {"uuid": UUID})),
    (
        "domain keeps how it is stopped",
        "libvirt_domain",
        {"name": "vm", "uuid": UUID, "destroy": {"graceful": True}},
        None,
        ("libvirt_domain", {"uuid": UUID, "destroy": {"graceful": True}}),
    ),
    ("domain without a UUID by name", "libvirt_domain", {"name": "vm", "type": "kvm"}, None, ("libvirt_domain", {"name": "vm"})),
    (
        "0.8 domain by its id",
        "libvirt_domain",
        {"id": UUID, "name": "vm", "disk": [], "network_interface": []},
        SDK_PRIVATE,
        ("libvirt_domain", {"uuid": UUID}),
    ),
    (
        "0.8 domain not converted, still removed",
        "libvirt_domain",
        {"id": UUID, "name": "vm", "filesystem": [{"source": "/x"}]},
        SDK_PRIVATE,
        ("libvirt_domain", {"uuid": UUID}),
    ),
    ("volume by pool and name", "libvirt_volume", _volume("v", "images"), None, ("libvirt_volume", {"name": "v", "pool": "images"})),
    (
        "0.8 volume in the default pool",
        "libvirt_volume",
        {"id": "/k", "name": "v", "pool": None, "size": 1},
        SDK_PRIVATE,
        ("libvirt_volume", {"name": "v", "pool": "default"}),
    ),
    (
        "0.8 cloud-init disk is a volume",
        "libvirt_cloudinit_disk",
        {"id": "/p/s.iso;x", "name": "s.iso", "pool": "p", "user_data": "x"},
        SDK_PRIVATE,
        ("libvirt_volume", {"name": "s.iso", "pool": "p"}),
    ),
    ("network by name", "libvirt_network", {"name": "n", "uuid": UUID}, None, ("libvirt_network", {"name": "n"})),
    (
        "pool by name, with its destroy block",
        "libvirt_pool",
        {"name": "p", "type": "dir", "destroy": {"delete": True}},
        None,
        ("libvirt_pool", {"name": "p", "destroy": {"delete": True}}),
    ),
    ("tainted: terraform destroy removes it too", "libvirt_network", {"name": "n"}, "tainted", ("libvirt_network", {"name": "n"})),
    ("a volume without a pool", "libvirt_volume", {"name": "v"}, None, "the state holds no pool for it"),
    ("a domain named by nothing", "libvirt_domain", {"type": "kvm", "memory": 1}, None, "the state holds neither its UUID nor its name"),
    ("a name with a control character", "libvirt_network", {"name": "a\nb"}, None, "its name contains the control character U+000A"),
    ("a volume's pool with one", "libvirt_volume", {"name": "v", "pool": "p\x1b"}, None, "its pool contains the control character U+001B"),
    ("a kind no module removes", "libvirt_secret", {"uuid": UUID}, None, "no removal of a libvirt_secret is known"),
    (
        "a 0.9 cloud-init disk that was not converted",
        "libvirt_cloudinit_disk",
        {"name": "s", "path": "/x/y", "user_data": ""},
        None,
        "its create task was not written",
    ),
]


@pytest.mark.parametrize(("kind", "attributes", "private", "expected"), [row[1:] for row in IDENTITIES], ids=[row[0] for row in IDENTITIES])
def test_the_teardown_names_exactly_the_object(
    run_module: Run, tmp_path: t.Any, kind: str, attributes: dict[str, t.Any], private: str | None, expected: t.Any
) -> None:
    extra: dict[str, t.Any] = {"status": private} if private == "tainted" else {"private": private} if private else {}
    result = _import(run_module, tmp_path, _state(_named("x", kind, attributes, **extra)))
    if isinstance(expected, str):
        assert result["teardown"] == []
        ((address, reason),) = [(item["address"], item["reason"]) for item in result["not_removed"]]
        assert address == f"{kind}.x" and reason.startswith(expected), reason
        assert f"# - {address}: {reason}" in (tmp_path / "down.yml").read_text()
    else:
        assert [(item["module"], item["options"]) for item in result["teardown"]] == [(f"devinfra.providers.{expected[0]}", expected[1])]
        assert result["not_removed"] == []


def test_the_teardown_leaves_what_is_not_this_collections(run_module: Run, tmp_path: t.Any) -> None:
    with open(CODER_STATE, encoding="utf-8") as handle:
        result = _import(run_module, tmp_path, handle.read(), state_file=str(tmp_path / "ws.json"))
    left = {item["address"]: item["reason"] for item in result["not_removed"]}
    assert set(left) == {"kubernetes_pod.dev[0]", "tls_private_key.example_key_pair"}
    assert all(not item["address"].startswith("data.") for item in result["teardown"])
    removed = [item["address"] for item in result["teardown"]]
    assert removed[-1] == "coder_agent.dev"  # every child of the agent first
    assert set(removed) == {item["address"] for item in result["converted"]}
    text = (tmp_path / "down.yml").read_text()
    assert AGENT_TOKEN not in text and "tf_coder_agent" not in text  # the teardown names objects only


@pytest.mark.skipif(not os.path.exists(ANSIBLE_PLAYBOOK), reason="ansible-playbook is not next to the test's Python")
def test_the_teardown_removes_the_workspace_entries(run_module: Run, tmp_path: t.Any) -> None:
    """The Coder state imported, its playbook run, then the teardown: check mode predicts it,
    it removes exactly the entries the import wrote (another entry stays), and again is no change."""
    with open(CODER_STATE, encoding="utf-8") as handle:
        state = json.load(handle)
    state["resources"] = [r for r in state["resources"] if r["type"].startswith("coder_")]
    workspace = tmp_path / "ws.json"
    result = _import(run_module, tmp_path, json.dumps(state), state_file=str(workspace))
    assert not result.get("failed"), result
    stored = json.loads(workspace.read_text())
    # a resource of the same kind the state does not hold
    (metadata,) = [address for address in stored["resources"] if address.startswith("workspace_metadata.")]
    decoy = json.loads(json.dumps(stored["resources"][metadata]))
    decoy["arguments"]["resource_id"], decoy["computed"]["id"] = "decoy", UUID
    stored["resources"]["workspace_metadata.decoy"] = decoy
    workspace.write_text(json.dumps(stored))
    environment = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "ANSIBLE_COLLECTIONS_PATH": COLLECTIONS,
        "ANSIBLE_PYTHON_INTERPRETER": sys.executable,
        "ANSIBLE_LOCAL_TEMP": str(tmp_path / "tmp"),
        "ANSIBLE_NOCOLOR": "1",
        "PYTHONPATH": COLLECTIONS,
    }

    def run(*options: str) -> str:
        argv = [ANSIBLE_PLAYBOOK, "-i", "localhost,", "-c", "local", str(tmp_path / "down.yml"), *options]
        ran = subprocess.run(argv, env=environment, capture_output=True, text=True, timeout=300, check=False)
        assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
        return ran.stdout

    count = len(result["teardown"])
    assert f"changed={count} " in run("--check")
    assert set(json.loads(workspace.read_text())["resources"]) == set(stored["resources"])  # check mode removed nothing
    assert f"changed={count} " in run()
    assert json.loads(workspace.read_text())["resources"] == {"workspace_metadata.decoy": decoy}
    assert "changed=0 " in run()


# ---------------------------------------------------------------------------- outputs

SECRET = "s3cr3t-output-value"


def _outputs_state() -> str:
    outputs = {
        "plain": {"value": "text", "type": "string"},
        "number": {"value": 3, "type": "number"},
        "hostile": {"value": {PWN % "/tmp/devinfra-PWNED-output": ["#jinja2:x\n{{ 1 }}"]}, "type": ["map", ["list", "string"]]},
        "password": {"value": SECRET, "type": "string", "sensitive": True},
        "nested_secret": {"value": {"db": [SECRET + "-2"]}, "type": ["object", {"db": ["list", "string"]}], "sensitive": True},
        "leaks_a_sensitive_attribute": {"value": "prefix-hidden-volume-name", "type": "string"},
        "bad name\n": {"value": "x", "type": "string"},
        "broken": "not an object",
    }
    volume = _instance(_volume("v") | {"name": "hidden-volume-name"})
    volume["sensitive_attributes"] = [[{"type": "get_attr", "value": "name"}]]
    return _state(_resource("libvirt_volume", "disk", [volume]), outputs=outputs)


def test_outputs_are_variables_and_sensitive_ones_never_show(run_module: Run, tmp_path: t.Any) -> None:
    result = _import(run_module, tmp_path, _outputs_state())
    listed = {item["name"]: item for item in result["outputs"]}
    assert listed["plain"] == {"name": "plain", "sensitive": False, "value": "text", "variable": "terraform_outputs['plain']"}
    assert listed["number"]["value"] == 3
    for name in ("password", "nested_secret", "leaks_a_sensitive_attribute", "broken"):
        assert listed[name]["sensitive"] and listed[name]["value"] == MASK and listed[name]["variable"] is None and listed[name]["reason"]
    assert listed["bad name\\u000a"]["reason"] == "its name is not a Terraform identifier"
    assert listed["leaks_a_sensitive_attribute"]["reason"].startswith("it holds a value the state keeps secret")
    everything = json.dumps(result)
    assert SECRET not in everything and "hidden-volume-name" not in everything  # results, diff, warnings
    text = (tmp_path / "site.yml").read_text()
    assert SECRET not in text
    assert "# - password: marked sensitive in the state: never written" in text
    play = _rendered_play(tmp_path / "site.yml")
    assert play["vars"]["terraform_outputs"] == {"plain": "text", "number": 3, "hostile": {PWN % "/tmp/devinfra-PWNED-output": ["#jinja2:x\n{{ 1 }}"]}}
    assert not os.path.exists("/tmp/devinfra-PWNED-output")


@pytest.mark.skipif(not os.path.exists(ANSIBLE_PLAYBOOK), reason="ansible-playbook is not next to the test's Python")
def test_sensitive_outputs_stay_out_of_a_verbose_run(tmp_path: t.Any) -> None:
    """The import run by ansible-playbook -vvv with --diff: no sensitive value in its output."""
    (tmp_path / "terraform.tfstate").write_text(_outputs_state())
    playbook = tmp_path / "import.yml"
    playbook.write_text(
        "- hosts: localhost\n  gather_facts: false\n  tasks:\n"
        "    - devinfra.providers.terraform_import:\n"
        f"        src: {tmp_path}/terraform.tfstate\n        dest: {tmp_path}/site.yml\n        teardown_dest: {tmp_path}/down.yml\n"
        "      register: imported\n"
        "    - ansible.builtin.debug:\n        var: imported\n"
    )
    environment = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "ANSIBLE_COLLECTIONS_PATH": COLLECTIONS,
        "ANSIBLE_PYTHON_INTERPRETER": sys.executable,
        "ANSIBLE_LOCAL_TEMP": str(tmp_path / "tmp"),
        "ANSIBLE_NOCOLOR": "1",
        "PYTHONPATH": COLLECTIONS,
    }
    argv = [ANSIBLE_PLAYBOOK, "-i", "localhost,", "-c", "local", "-vvv", "--diff", str(playbook)]
    ran = subprocess.run(argv, env=environment, capture_output=True, text=True, timeout=300, check=False)
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
    assert "terraform_outputs" in ran.stdout and "password" in ran.stdout
    assert SECRET not in ran.stdout + ran.stderr


# ---------------------------------------------------------------------------- not carried

NETWORK_08: dict[str, t.Any] = {"id": UUID, "name": "n", "mode": "nat", "addresses": ["10.0.0.0/24"], "autostart": False, "xml": [], "dns": [], "dhcp": []}
DOMAIN_08: dict[str, t.Any] = {
    "id": UUID,
    "name": "vm",
    "type": "kvm",
    "memory": 512,
    "vcpu": 1,
    "qemu_agent": True,
    "emulator": "/usr/bin/qemu-system-x86_64",
    "disk": [],
    "network_interface": [
        {"mac": "52:54:00:00:00:01", "network_name": "n", "wait_for_lease": True, "hostname": "vm", "addresses": ["10.0.0.5"]},
    ],
    "graphics": [{"type": "spice", "autoport": True, "listen_type": "address", "listen_address": "127.0.0.1"}],
    "cpu": [{"mode": "host-passthrough"}],
    "fw_cfg_name": "opt/com.coreos/config",
    "xml": [],
}

DOMAIN_08_NOT_CARRIED = [
    ("qemu_agent", "0.8 waited for the guest agent"),
    ("emulator", "the domain keeps the emulator it has"),
    ("network_interface[0].wait_for_lease", "0.8 waited for a DHCP lease"),
    ("network_interface[0].hostname", "0.8 added a DHCP host"),
    ("network_interface[0].addresses[0]", "0.8 added a DHCP host"),
    ("graphics[0].listen_type", "the task's graphics names the type and autoport only"),
    ("graphics[0].listen_address", "the task's graphics names the type and autoport only"),
]

NOT_CARRIED = [
    ("0.8 network: everything carried", "libvirt_network", NETWORK_08, SDK_PRIVATE, []),
    (
        "0.8 domain",
        "libvirt_domain",
        DOMAIN_08,
        SDK_PRIVATE,
        DOMAIN_08_NOT_CARRIED,
    ),
    (
        # 0.8's defaults it never wrote into the XML are not listed: a pty console's source_host
        # and source_service, fw_cfg_name (a domain with coreos_ignition is not converted).
        "0.8 domain: defaults 0.8 never wrote",
        "libvirt_domain",
        {
            **DOMAIN_08,
            "console": [{"type": "pty", "target_port": "0", "source_host": "127.0.0.1", "source_service": "0"}],
        },
        SDK_PRIVATE,
        DOMAIN_08_NOT_CARRIED,
    ),
    (
        "0.8 volume with its base named twice",
        "libvirt_volume",
        {"id": "/p/v", "name": "v", "pool": "p", "size": 1, "base_volume_id": "/p/b", "base_volume_name": "b", "base_volume_pool": "p"},
        SDK_PRIVATE,
        [("base_volume_name", "the base volume's path"), ("base_volume_pool", "the base volume's path")],
    ),
    ("0.9 objects carry every attribute", "libvirt_network", {"name": "n", "uuid": UUID, "id": UUID, "autostart": True}, None, []),
]


@pytest.mark.parametrize(("kind", "attributes", "private", "expected"), [row[1:] for row in NOT_CARRIED], ids=[row[0] for row in NOT_CARRIED])
def test_what_a_task_does_not_carry_is_named(
    run_module: Run, tmp_path: t.Any, kind: str, attributes: dict[str, t.Any], private: str | None, expected: list[tuple[str, str]]
) -> None:
    extra: dict[str, t.Any] = {"private": private} if private else {}
    result = _import(run_module, tmp_path, _state(_named("x", kind, attributes, **extra)))
    assert [item["address"] for item in result["converted"]] == [f"{kind}.x"], result["not_converted"]
    found = [(item["attribute"], item["reason"]) for item in result["not_carried"]]
    assert [path for path, _why in found] == [path for path, _why in expected]
    assert all(why.startswith(start) for (_path, why), (_p, start) in zip(found, expected, strict=True)), found
    text = (tmp_path / "site.yml").read_text()
    assert all(f"# - {kind}.x: {path}: " in text for path, _why in expected)


def test_an_app_that_keeps_its_display_name_names_the_legacy_name(run_module: Run, tmp_path: t.Any) -> None:
    with open(CODER_STATE, encoding="utf-8") as handle:
        state = json.load(handle)
    (vim,) = [r for r in state["resources"] if r["name"] == "vim"]
    vim["instances"][0]["attributes"].update(name="Old name", display_name="Vim")
    result = _import(run_module, tmp_path, json.dumps(state), state_file=str(tmp_path / "ws.json"))
    assert [(item["address"], item["attribute"]) for item in result["not_carried"]] == [(vim_address(state), "name")]


def vim_address(state: dict[str, t.Any]) -> str:
    (vim,) = [r for r in state["resources"] if r["name"] == "vim"]
    key = vim["instances"][0].get("index_key")
    return "coder_app.vim" + ("" if key is None else f"[{json.dumps(key)}]")
