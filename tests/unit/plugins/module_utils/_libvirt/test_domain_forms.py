# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The forms a domain's options take: the provider interface's own (plural lists, boot devices
as strings), upstream terraform-provider-libvirt 0.9's (a branch without options as true, a
branch holding only text as that text, ``type`` beside an interface's or a graphics device's
branch) and the dictionaries they stand for. Each form is checked as the module gets it
(schema.validate), written, defined on libvirt's test driver, read back from the inactive
definition and compared: a second run and a check-mode run report no change."""

from __future__ import annotations

import itertools
import re
import typing as t

import pytest

libvirt = pytest.importorskip("libvirt")
pytest.importorskip("lxml")

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt import domain, schema
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.errors import LibvirtValidationError

URI = "test:///default"
_names = itertools.count()

# (what, options as a user writes them, what validation makes of them (None: the same), a fragment the XML holds)
FORMS: list[tuple[str, dict[str, t.Any], dict[str, t.Any] | None, str]] = [
    ("boot devices as strings (the interface's form)", {"os": {"type": "hvm", "boot_devices": ["hd", "network"]}},
     {"os": {"type": "hvm", "boot_devices": [{"dev": "hd"}, {"dev": "network"}]}}, '<boot dev="hd"/><boot dev="network"/>'),
    ("boot devices as objects (upstream's form)", {"os": {"type": "hvm", "boot_devices": [{"dev": "cdrom"}, "hd"]}},
     {"os": {"type": "hvm", "boot_devices": [{"dev": "cdrom"}, {"dev": "hd"}]}}, '<boot dev="cdrom"/><boot dev="hd"/>'),
    ("kernel_args, the interface's name of cmdline", {"os": {"type": "hvm", "kernel_args": "console=ttyS0"}},
     {"os": {"type": "hvm", "cmdline": "console=ttyS0"}}, "<cmdline>console=ttyS0</cmdline>"),
    ("sec_labels and sys_infos, the interface's names", {
        "sec_labels": [{"type": "none"}],
        "sys_infos": [{"fw_cfg": {"entry": [{"name": "opt/com.coreos/config", "file": "/var/lib/ign.json"}, {"name": "opt/x", "value": "y"}]}}],
    }, {
        "sec_labels": [{"type": "none"}],
        "sys_info": [{"fw_cfg": {"entry": [{"name": "opt/com.coreos/config", "file": "/var/lib/ign.json"}, {"name": "opt/x", "value": "y"}]}}],
    }, '<entry name="opt/com.coreos/config" file="/var/lib/ign.json"/>'),
    ("sec_label and sys_info, upstream's names", {"sec_label": [{"type": "none"}], "sys_info": [{"fw_cfg": {"entry": [{"name": "opt/y", "file": "/f"}]}}]},
     {"sec_labels": [{"type": "none"}], "sys_info": [{"fw_cfg": {"entry": [{"name": "opt/y", "file": "/f"}]}}]}, '<seclabel type="none"'),
    ("cpu tuning lists by the interface's plural names", {"vcpu": 2, "cpu_tune": {
        "vcpu_pins": [{"vcpu": 0, "cpu_set": "0"}, {"vcpu": 1, "cpu_set": "1"}],
        "vcpu_scheds": [{"vcpus": "0", "scheduler": "fifo", "priority": 1}],
    }}, None, '<vcpupin vcpu="1" cpuset="1"/>'),
    ("cpu tuning lists by upstream's singular names", {"vcpu": 2, "cpu_tune": {"vcpu_pin": [{"vcpu": 1, "cpu_set": "1"}]}},
     {"vcpu": 2, "cpu_tune": {"vcpu_pins": [{"vcpu": 1, "cpu_set": "1"}]}}, '<vcpupin vcpu="1" cpuset="1"/>'),
    ("rng random backend as its text (upstream's form)", {"devices": {"rngs": [{"model": "virtio", "backend": {"random": "/dev/urandom"}}]}},
     None, '<backend model="random">/dev/urandom</backend>'),
    ("rng random backend as a dictionary", {"devices": {"rngs": [{"model": "virtio", "backend": {"random": {"device": "/dev/random"}}}]}},
     {"devices": {"rngs": [{"model": "virtio", "backend": {"random": "/dev/random"}}]}}, '<backend model="random">/dev/random</backend>'),
    ("rng built-in backend as true (upstream's form)", {"devices": {"rngs": [{"model": "virtio", "backend": {"built_in": True}}]}},
     None, '<backend model="builtin"/>'),
    ("rng built-in backend as an empty dictionary", {"devices": {"rngs": [{"model": "virtio", "backend": {"built_in": {}}}]}},
     {"devices": {"rngs": [{"model": "virtio", "backend": {"built_in": True}}]}}, '<backend model="builtin"/>'),
    ("spicevmc channel source as true", {"devices": {"channels": [{"source": {"spice_vmc": True}, "target": {"virt_io": {"name": "com.redhat.spice.0"}}}]}},
     None, '<channel type="spicevmc">'),
    ("pty serial source as an empty dictionary", {"devices": {"serials": [{"source": {"pty": {}}, "target": {"port": 0}}]}},
     None, '<serial type="pty">'),
    ("interface type that agrees with its source", {"devices": {"interfaces": [{"type": "network", "source": {"network": {"network": "default"}}}]}},
     {"devices": {"interfaces": [{"source": {"network": {"network": "default"}}}]}}, '<interface type="network">'),
    ("interface type alone", {"devices": {"interfaces": [{"type": "user"}]}},
     {"devices": {"interfaces": [{"source": {"user": {}}}]}}, '<interface type="user"'),
    ("graphics type that agrees with its branch", {"devices": {"graphics": [{"type": "vnc", "vnc": {"auto_port": True, "listen": "127.0.0.1"}}]}},
     {"devices": {"graphics": [{"vnc": {"auto_port": True, "listen": "127.0.0.1"}}]}}, 'autoport="yes" listen="127.0.0.1"'),
    ("graphics type alone", {"devices": {"graphics": [{"type": "vnc"}]}}, {"devices": {"graphics": [{"vnc": {}}]}}, '<graphics type="vnc"'),
]  # fmt: skip


def _ids(rows: list[t.Any]) -> list[str]:
    return [row[0] for row in rows]


@pytest.fixture(scope="module")
def conn() -> t.Iterator[t.Any]:
    connection = libvirt.open(URI)
    yield connection
    connection.close()


def _params(options: dict[str, t.Any]) -> dict[str, t.Any]:
    """The module's parameters for ``options``, checked as run_resource_module checks them."""
    params: dict[str, t.Any] = dict.fromkeys(domain.DOMAIN_ARGSPEC)
    params.update(state="present", uri=URI, name=f"unit-forms-{next(_names)}", type="test", memory=128, memory_unit="MiB", vcpu=1)
    for key, value in options.items():  # Ansible's part: top-level aliases to their option
        canonical = next((k for k, spec in domain.DOMAIN_ARGSPEC.items() if key == k or key in spec.get("aliases", ())), key)
        params[canonical] = value
    params.setdefault("os", None)
    params["os"] = params["os"] or {"type": "hvm"}
    schema.validate_params("Domain", params, domain.DOMAIN_ARGSPEC, set())
    return params


@pytest.mark.parametrize(("options", "validated", "fragment"), [row[1:] for row in FORMS], ids=_ids(FORMS))
def test_each_form_is_validated_into_one(options: dict[str, t.Any], validated: dict[str, t.Any] | None, fragment: str) -> None:
    params = _params(options)
    for key, value in (validated or options).items():
        assert params[key] == value


@pytest.mark.parametrize(("options", "fragment"), [(row[1], row[3]) for row in FORMS], ids=_ids(FORMS))
def test_each_form_defines_and_converges(conn: t.Any, options: dict[str, t.Any], fragment: str) -> None:
    params = _params(options)
    created = domain.ensure_domain(conn, params, False)
    assert created.changed
    xml = conn.lookupByName(params["name"]).XMLDesc(0)
    assert fragment in re.sub(r">\s+<", "><", xml.replace("'", '"')), xml
    again = domain.ensure_domain(conn, params, False)
    assert not again.changed, again.before
    assert again.before == again.after
    assert domain.ensure_domain(conn, params, True).changed is False
    # What the module returns for the domain is accepted back as options, unchanged.
    described = {k: v for k, v in created.resource.items() if k in domain.DOMAIN_ARGSPEC and k not in ("uuid", "running", "autostart")}
    fed_back = dict(params, **described)
    schema.validate_params("Domain", fed_back, domain.DOMAIN_ARGSPEC, set())
    assert not domain.ensure_domain(conn, fed_back, True).changed


# (what, options, the message: the option path and the form it takes)
REFUSED: list[tuple[str, dict[str, t.Any], str]] = [
    ("a disk source as a string", {"devices": {"disks": [{"source": "/images/a.qcow2"}]}},
     "devices.disks[0].source: expected a dictionary (one of file, block, dir, network, volume, nvme, vhost_user, vhost_vdpa), got a string"),
    ("disks as one dictionary", {"devices": {"disks": {"target": {"dev": "vda"}}}}, "devices.disks: expected a list, each item a dictionary (options "),
    ("a boot device as a list", {"os": {"boot_devices": [["hd"]]}}, "os.boot_devices[0]: expected a dictionary (options dev), got a list"),
    ("a number that is not one", {"devices": {"graphics": [{"vnc": {"port": "first"}}]}},
     "devices.graphics[0].vnc.port: expected an integer, got a string ('first')"),
    ("a list for a string", {"devices": {"disks": [{"target": {"dev": ["vda"]}}]}}, "devices.disks[0].target.dev: expected a string, got a list"),
    ("a branch without options with options", {"devices": {"rngs": [{"model": "virtio", "backend": {"built_in": {"x": 1}}}]}},
     "devices.rngs[0].backend.built_in: this branch has no options: give true (or {}), got a dictionary with x"),
    ("a text branch as a list", {"devices": {"rngs": [{"model": "virtio", "backend": {"random": ["/dev/random"]}}]}},
     "devices.rngs[0].backend.random: expected a string (or a dictionary with device), got a list"),
    ("an unknown option deep down", {"devices": {"disks": [{"target": {"dev": "vda", "buss": "virtio"}}]}},
     "devices.disks[0].target.buss: unsupported option; devices.disks[0].target takes "),
    ("an option and its alias", {"cpu_tune": {"vcpu_pins": [], "vcpu_pin": []}}, "cpu_tune.vcpu_pins: given twice, as vcpu_pins and as vcpu_pin"),
    ("an interface type that contradicts its source", {"devices": {"interfaces": [{"type": "bridge", "source": {"network": {"network": "default"}}}]}},
     "devices.interfaces[0].type: 'bridge' contradicts source.network, which is type 'network'; give one of them"),
    ("a graphics type that contradicts its branch", {"devices": {"graphics": [{"type": "spice", "vnc": {}}]}},
     "devices.graphics[0].type: 'spice' contradicts vnc, which is type 'vnc'"),
    ("a graphics type libvirt does not have", {"devices": {"graphics": [{"type": "vga"}]}},
     "devices.graphics[0].type: must be one of sdl, vnc, rdp, desktop, spice, egl-headless, dbus; got 'vga'"),
    ("a fw_cfg entry with neither file nor value", {"sys_info": [{"fw_cfg": {"entry": [{"name": "opt/x"}]}}]},
     "sys_info[0].fw_cfg.entry[0]: give exactly one of file, value; got none of them"),
    ("a fw_cfg entry with both", {"sys_info": [{"fw_cfg": {"entry": [{"name": "opt/x", "file": "/f", "value": "v"}]}}]},
     "sys_info[0].fw_cfg.entry[0]: give exactly one of file, value; got file, value"),
    ("a required option missing", {"devices": {"interfaces": [{"source": {"bridge": {}}}]}},
     "devices.interfaces[0].source.bridge.bridge: required, missing in devices.interfaces[0].source.bridge"),
]  # fmt: skip


@pytest.mark.parametrize(("options", "message"), [row[1:] for row in REFUSED], ids=_ids(REFUSED))
def test_bad_forms_are_refused_naming_the_option(options: dict[str, t.Any], message: str) -> None:
    with pytest.raises(LibvirtValidationError) as raised:
        _params(options)
    assert str(raised.value).startswith(message)


def test_secrets_are_collected_for_no_log() -> None:
    secrets: set[str] = set()
    schema.validate("DomainDeviceList", {"graphics": [{"vnc": {"passwd": "s1"}}, {"spice": {"passwd": 42}}]}, path="devices", secrets=secrets)
    assert secrets == {"s1", "42"}
    given = {"devices": {"disks": "vda", "graphics": [{"vnc": {"passwd": "s2"}}]}}
    with pytest.raises(LibvirtValidationError, match=r"^devices\.disks: expected a list"):
        schema.validate_params("Domain", given, ["devices"], set())
    assert schema.secrets_in("Domain", given) == {"s2"}  # past the refused option: the module's no_log has them too


def test_a_branch_without_options_reads_back_without_an_element() -> None:
    """libvirt writes no <source> for a spicevmc channel: the result still says spice_vmc."""
    xml = "<domain type='kvm'><name>d</name><devices><channel type='spicevmc'><target type='virtio' name='com.redhat.spice.0'/></channel></devices></domain>"
    assert schema.read("Domain", schema.parse(xml))["devices"]["channels"][0] == {
        "source": {"spice_vmc": True},
        "target": {"virt_io": {"name": "com.redhat.spice.0"}},
    }
