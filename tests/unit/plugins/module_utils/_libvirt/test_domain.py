# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""libvirt_domain: the interface's domain fields mapped to XML and back, and the lifecycle on libvirt's
test driver (one in-process test:///default shared by the tests; each uses its own names)."""

from __future__ import annotations

import itertools
import typing as t
import uuid

import pytest

libvirt = pytest.importorskip("libvirt")
pytest.importorskip("lxml")

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt import domain, schema
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.errors import LibvirtError, LibvirtValidationError
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.schema_generated import STRUCTS

URI = "test:///default"
_names = itertools.count()


@pytest.fixture(scope="module")
def conn() -> t.Iterator[t.Any]:
    connection = libvirt.open(URI)
    yield connection
    connection.close()


def _name() -> str:
    return f"unit-dom-{next(_names)}"


def params(**options: t.Any) -> dict[str, t.Any]:
    out: dict[str, t.Any] = dict.fromkeys(domain.DOMAIN_ARGSPEC)
    out.update(state="present", uri=URI)
    out.update(options)
    return out


def minimal(name: str, **options: t.Any) -> dict[str, t.Any]:
    return params(name=name, type="test", memory=128, memory_unit="MiB", vcpu=1, os={"type": "hvm"}, **options)


# --- the interface's domain fields: options -> XML -> options ----------------------------------

# (what, options, a fragment the XML must hold); every row also reads back to the same options.
INTERFACE_FIELDS: list[tuple[str, dict[str, t.Any], str]] = [
    ("memory with unit and dump core", {"memory": 2, "memory_unit": "GiB", "memory_dump_core": "off"}, '<memory unit="GiB" dumpCore="off">2</memory>'),
    (
        "current and maximum memory",
        {"current_memory": 1, "current_memory_unit": "GiB", "maximum_memory": 8, "maximum_memory_unit": "GiB", "maximum_memory_slots": 4},
        '<maxMemory unit="GiB" slots="4">8</maxMemory>',
    ),
    (
        "vcpu with placement, cpuset, current",
        {"vcpu": 4, "vcpu_placement": "static", "vcpu_cpuset": "0-3", "vcpu_current": 2},
        '<vcpu placement="static" cpuset="0-3" current="2">4</vcpu>',
    ),
    ("lifecycle actions", {"on_crash": "coredump-restart", "on_poweroff": "destroy", "on_reboot": "restart"}, "<on_crash>coredump-restart</on_crash>"),
    (
        "bootloader, genid, hwuuid, title, description",
        {
            "bootloader": "/usr/bin/pygrub",
            "bootloader_args": "-q",
            "gen_id": "43dc0cf8-809b-4adb-9bea-a9abb5f3d90e",
            "hwuuid": "ef3a1a0a-1b2c-4d5e-8f90-123456789abc",
            "title": "T",
            "description": "D",
        },
        "<genid>43dc0cf8-809b-4adb-9bea-a9abb5f3d90e</genid>",
    ),
    (
        "io threads",
        {"io_threads": 2, "io_thread_ids": {"io_threads": [{"id": 1}, {"id": 2}]}, "default_io_thread": {"pool_min": 1, "pool_max": 4}},
        '<defaultiothread thread_pool_min="1" thread_pool_max="4"/>',
    ),
    (
        "os: firmware, loader, nvram, boot devices, direct kernel boot",
        {
            "os": {
                "type": "hvm",
                "type_arch": "x86_64",
                "type_machine": "q35",
                "firmware": "efi",
                "loader": "/usr/share/OVMF/OVMF_CODE.fd",
                "loader_readonly": "yes",
                "loader_type": "pflash",
                "nv_ram": {"nv_ram": "/var/lib/libvirt/qemu/nvram/x_VARS.fd", "template": "/usr/share/OVMF/OVMF_VARS.fd"},
                "boot_devices": [{"dev": "hd"}, {"dev": "cdrom"}],
                "kernel": "/boot/vmlinuz",
                "initrd": "/boot/initrd.img",
                "cmdline": "console=ttyS0",
            }
        },
        '<os firmware="efi"><type arch="x86_64" machine="q35">hvm</type>',
    ),
    ("features", {"features": {"acpi": True, "apic": {}, "pae": True}}, "<features><pae/><acpi/><apic/></features>"),
    (
        "cpu with topology",
        {"cpu": {"mode": "host-passthrough", "migratable": True, "topology": {"sockets": 1, "dies": 1, "clusters": 1, "cores": 2, "threads": 2}}},
        '<topology sockets="1" dies="1" clusters="1" cores="2" threads="2"/>',
    ),
    (
        "cpu tune",
        {
            "cpu_tune": {
                "shares": 2048,
                "period": 100000,
                "quota": -1,
                "global_period": 1000,
                "emulator_period": 1000,
                "io_thread_period": 1000,
                "vcpu_pin": [{"vcpu": 0, "cpu_set": "1"}],
                "emulator_pin": {"cpu_set": "0"},
                "io_thread_pin": [{"io_thread": 1, "cpu_set": "2"}],
                "vcpu_sched": [{"vcpus": "0", "scheduler": "fifo", "priority": 1}],
                "emulator_sched": {"scheduler": "idle"},
                "cache_tune": [
                    {"vcpus": "0-1", "cache": [{"id": 0, "level": 3, "type": "both", "size": 3, "unit": "MiB"}], "monitor": [{"level": 3, "vcpus": "1"}]}
                ],
                "memory_tune": [{"vcpus": "2", "nodes": [{"id": 0, "bandwidth": 60}]}],
            }
        },
        '<vcpupin vcpu="0" cpuset="1"/>',
    ),
    (
        "numa cells with cache, distances; interconnects",
        {
            "cpu": {
                "numa": {
                    "cell": [
                        {
                            "id": 0,
                            "cpus": "0-1",
                            "memory": 1,
                            "unit": "GiB",
                            "distances": {"siblings": [{"id": 0, "value": 10}]},
                            "caches": [
                                {
                                    "level": 1,
                                    "associativity": "direct",
                                    "policy": "writeback",
                                    "size": {"value": "10", "unit": "KiB"},
                                    "line": {"value": "8", "unit": "B"},
                                }
                            ],
                        }
                    ],
                    "interconnects": {
                        "latencies": [{"initiator": 0, "target": 0, "type": "access", "value": 5}],
                        "bandwidths": [{"initiator": 0, "target": 0, "type": "access", "value": 204800, "unit": "KiB"}],
                    },
                }
            }
        },
        '<sibling id="0" value="10"/>',
    ),
    (
        "memory tune, numa tune, memory backing",
        {
            "memory_tune": {"hard_limit": 1, "hard_limit_unit": "GiB"},
            "numa_tune": {"memory": {"mode": "strict", "nodeset": "0"}},
            "memory_backing": {
                "memory_huge_pages": {"hugepages": [{"size": 2, "unit": "M"}]},
                "memory_source": {"type": "memfd"},
                "memory_access": {"mode": "shared"},
            },
        },
        '<memoryBacking><hugepages><page size="2" unit="M"/></hugepages>',
    ),
    (
        "clock with timers, pm, perf, resource",
        {
            "clock": {"offset": "utc", "timer": [{"name": "rtc", "tick_policy": "catchup"}]},
            "pm": {"suspend_to_mem": {"enabled": "no"}},
            "perf": {"events": [{"name": "cmt", "enabled": "yes"}]},
            "resource": {"partition": "/machine"},
        },
        '<timer name="rtc" tickpolicy="catchup"/>',
    ),
    (
        "security labels, sysinfo with fw_cfg, id map, key wrap",
        {
            "sec_label": [{"type": "dynamic", "model": "selinux"}],
            "sys_info": [{"fw_cfg": {"entry": [{"name": "opt/com.coreos/config", "file": "/var/lib/ign.json"}]}}],
            "id_map": {"ui_ds": [{"start": 0, "target": 1000, "count": 10}]},
            "key_wrap": {"ciphers": [{"name": "aes", "state": "on"}]},
        },
        '<entry name="opt/com.coreos/config" file="/var/lib/ign.json"/>',
    ),
    (
        "launch security, throttle groups",
        {
            "launch_security": {"sev": {"policy": 7, "cbit_pos": 47, "reduced_phys_bits": 1, "dh_cert": "AAAA", "session": "BBBB"}},
            "throttle_groups": {"throttle_groups": [{"group_name": "limit", "total_iops_sec": 100}]},
        },
        '<launchSecurity type="sev">',
    ),
    (
        "hypervisor namespaces",
        {
            "qemu_commandline": {"args": [{"value": "-no-user-config"}], "envs": [{"name": "A", "value": "b"}]},
            "qemu_capabilities": {"add": [{"name": "blockdev"}]},
            "qemu_deprecation": {"behavior": "crash"},
        },
        '<qemu:arg value="-no-user-config"/>',
    ),
    (
        "disks: file, volume, read-only cdrom",
        {
            "devices": {
                "disks": [
                    {
                        "device": "disk",
                        "driver": {"name": "qemu", "type": "qcow2"},
                        "source": {"file": {"file": "/v/root.qcow2"}},
                        "target": {"dev": "vda", "bus": "virtio"},
                    },
                    {
                        "device": "cdrom",
                        "source": {"volume": {"pool": "default", "volume": "seed.iso"}},
                        "target": {"dev": "sda", "bus": "sata"},
                        "read_only": True,
                    },
                ]
            }
        },
        'device="cdrom" type="volume"><source pool="default" volume="seed.iso"/><target dev="sda" bus="sata"/><readonly/></disk>',
    ),
    (
        "interfaces: network, bridge, user",
        {
            "devices": {
                "interfaces": [
                    {"source": {"network": {"network": "default"}}, "model": {"type": "virtio"}, "mac": {"address": "52:54:00:00:00:01"}},
                    {"source": {"bridge": {"bridge": "br0"}}},
                    {"source": {"user": {}}},
                ]
            }
        },
        '<interface type="bridge"><source bridge="br0"/></interface>',
    ),
    (
        "chardevs: pty serial, file console, unix channel, UDP channel",
        {
            "devices": {
                "serials": [{"source": {"pty": {}}, "target": {"port": 0}}],
                "consoles": [{"source": {"file": {"path": "/var/log/c.log"}}, "target": {"type": "serial", "port": 0}}],
                "channels": [
                    {"source": {"unix": {"mode": "bind", "path": "/run/ga.sock"}}, "target": {"virt_io": {"name": "org.qemu.guest_agent.0"}}},
                    {
                        "source": {"udp": {"bind_host": "0.0.0.0", "bind_service": "2445", "connect_host": "10.0.0.1", "connect_service": "2446"}},
                        "target": {"guest_fwd": {"address": "10.0.2.1", "port": "4600"}},
                    },
                ],
            }
        },
        '<channel type="udp"><source mode="bind" host="0.0.0.0" service="2445"/><source mode="connect" host="10.0.0.1" service="2446"/>',
    ),
    (
        "smartcards: host, passthrough",
        {
            "devices": {
                "smartcards": [{"host": True}, {"passthrough": {"tcp": {"mode": "connect", "host": "h", "service": "2001"}}, "protocol": {"type": "raw"}}]
            }
        },
        '<smartcard mode="host"/><smartcard type="tcp" mode="passthrough"><source mode="connect" host="h" service="2001"/>',
    ),
    (
        "hostdevs: PCI and USB subsystem",
        {
            "devices": {
                "hostdevs": [
                    {"managed": True, "subsys_pci": {"source": {"address": {"domain": 0, "bus": 6, "slot": 0, "function": 0}}}},
                    {"subsys_usb": {"source": {"vendor": {"id": "0x1234"}, "product": {"id": "0xbeef"}}}},
                ]
            }
        },
        '<hostdev managed="yes" mode="subsystem" type="pci"><source><address domain="0x0000" bus="0x06" slot="0x00" function="0x0"/>',
    ),
    (
        "vhost-user interface",
        {
            "devices": {
                "interfaces": [{"source": {"vhost_user": {"chardev": {"unix": {"path": "/run/vhu.sock", "mode": "server"}}}}, "model": {"type": "virtio"}}]
            }
        },
        '<interface type="vhostuser"><source type="unix" mode="server" path="/run/vhu.sock"/>',
    ),
    (
        "graphics, video, sound, audio backends",
        {
            "devices": {
                "graphics": [{"vnc": {"auto_port": True, "listen": "127.0.0.1"}}],
                "videos": [{"model": {"type": "virtio"}}],
                "sounds": [{"model": "ich9"}],
                "audios": [
                    {"id": 1, "pulse_audio": {"server_name": "s"}},
                    {"id": 2, "file": {"path": "/tmp/a.wav"}},
                    {"id": 3, "jack": {"input": {"client_name": "c"}}},
                    {"id": 4, "oss": {"try_m_map": "yes"}},
                    {"id": 5, "none": {}},
                ],
            }
        },
        '<audio id="2" type="file" path="/tmp/a.wav"/>',
    ),
    (
        "rng, tpm, watchdog, memballoon, panic, vsock, iommu",
        {
            "devices": {
                "rngs": [{"model": "virtio", "backend": {"random": {"device": "/dev/urandom"}}}],
                "tpms": [{"model": "tpm-crb", "backend": {"emulator": {"version": "2.0"}}}],
                "watchdogs": [{"model": "i6300esb", "action": "reset"}],
                "mem_balloon": {"model": "virtio"},
                "panics": [{"model": "isa"}],
                "vsock": {"model": "virtio", "cid": {"auto": "yes"}},
                "iommu": {"model": "intel"},
            }
        },
        '<tpm model="tpm-crb"><backend type="emulator" version="2.0"/></tpm>',
    ),
]


@pytest.mark.parametrize(("options", "fragment"), [row[1:] for row in INTERFACE_FIELDS], ids=[row[0] for row in INTERFACE_FIELDS])
def test_interface_fields_map_to_xml_and_back(options: dict[str, t.Any], fragment: str) -> None:
    options = schema.validate("Domain", {"name": "d", "type": "kvm", **options}, path="")  # as the module gets them
    xml = schema.serialize(schema.build("Domain", options))
    assert fragment in xml
    again = schema.read("Domain", schema.parse(xml), like=options)
    assert schema.differences(options, again) == []


def test_interface_aliases_and_upstream_names() -> None:
    spec = domain.DOMAIN_ARGSPEC
    assert schema.validate("DomainOS", {"kernel_args": "console=ttyS0"}, path="os") == {"cmdline": "console=ttyS0"}
    assert spec["io_thread_ids"]["aliases"] == ["io_thread_i_ds"]
    assert spec["sec_labels"]["aliases"] == ["sec_label"] and spec["sys_info"]["aliases"] == ["sys_infos"]
    assert spec["on_crash"]["choices"][:3] == ["destroy", "restart", "preserve"]
    interfaces = schema.validate("DomainDeviceList", {"interfaces": [{"wait_for_ip": {}}]}, path="devices")["interfaces"]
    assert interfaces[0]["wait_for_ip"] == {"timeout": 300, "source": "any"}


# --- lifecycle options, ported from upstream's domain_resource_*_test.go tables -----------------

# TestDomainUndefineFlagsForDelete (upstream's update table does not apply: a change here never undefines).
UNDEFINE_FLAGS = [
    ("before nvram support", 1_002_008, 0),
    ("nvram only", 1_002_009, libvirt.VIR_DOMAIN_UNDEFINE_NVRAM),
    ("before tpm support", 8_008_999, libvirt.VIR_DOMAIN_UNDEFINE_NVRAM),
    ("nvram and tpm", 8_009_000, libvirt.VIR_DOMAIN_UNDEFINE_NVRAM | libvirt.VIR_DOMAIN_UNDEFINE_TPM),
]


@pytest.mark.parametrize(("version", "flags"), [row[1:] for row in UNDEFINE_FLAGS], ids=[row[0] for row in UNDEFINE_FLAGS])
def test_undefine_flags_for_delete(version: int, flags: int) -> None:
    assert domain.undefine_flags(version) == flags


# TestDomainDestroyFlagsFromDestroy
@pytest.mark.parametrize(
    ("destroy", "flags"),
    [(None, 0), ({"graceful": True, "shutdown": None}, libvirt.VIR_DOMAIN_DESTROY_GRACEFUL), ({"graceful": False, "shutdown": None}, 0)],
    ids=["null uses default flags", "graceful true sets graceful flag", "graceful false keeps default flags"],
)
def test_destroy_flags(destroy: dict[str, t.Any] | None, flags: int) -> None:
    assert domain.destroy_flags(destroy) == flags


@pytest.mark.parametrize(
    ("create", "flags"),
    [
        (None, 0),
        ({"paused": True}, libvirt.VIR_DOMAIN_START_PAUSED),
        ({"autodestroy": True, "bypass_cache": True}, libvirt.VIR_DOMAIN_START_AUTODESTROY | libvirt.VIR_DOMAIN_START_BYPASS_CACHE),
        (
            {"force_boot": True, "validate": True, "reset_nvram": True},
            libvirt.VIR_DOMAIN_START_FORCE_BOOT | libvirt.VIR_DOMAIN_START_VALIDATE | libvirt.VIR_DOMAIN_START_RESET_NVRAM,
        ),
    ],
)
def test_start_flags(create: dict[str, t.Any] | None, flags: int) -> None:
    assert domain.start_flags(create) == flags


def test_shutdown_timeouts_default_to_30_seconds() -> None:
    """TestDomainUpdateOptionsFromUpdate / TestDomainDestroyOptionsFromDestroy: 30 s unless set."""
    assert domain.DOMAIN_ARGSPEC["destroy"]["options"]["shutdown"]["options"]["timeout"]["default"] == 30
    assert domain.DOMAIN_ARGSPEC["update"]["options"]["shutdown"]["options"]["timeout"]["default"] == 30


# --- validation: bad input fails before anything is touched, naming the option ---------------

BAD_INPUT = [
    ({"devices": {"disks": [{"source": {"file": {"file": "/a"}, "block": {"dev": "/b"}}}]}}, "devices.disks[0].source: only one of"),
    ({"devices": {"hostdevs": [{"subsys_pci": {"source": {"address": {"bus": -1}}}}]}}, "subsys_pci.source.address.bus: must be from 0 to 4294967295, got -1"),
    ({"title": "bad\x01"}, "title: contains a character XML cannot hold"),
    ({"memory": 1, "memory_unit": "parsecs"}, "memory_unit: unknown unit"),
    # libvirt 9.0 aborts on these (the whole daemon): refused with the option's path
    ({"vcpu": -2}, "vcpu: must be from 1 to 16384, got -2"),
    ({"io_threads": 2**31}, "io_threads: must be from 0 to 16384"),
    (
        {"cpu": {"numa": {"cell": [{"id": 0, "memory": 64, "cpus": "0", "distances": {"siblings": [{"id": 3, "value": 20}]}}]}}},
        "cpu.numa.cell[0].distances.siblings[0].id: 3 is not a cell",
    ),
    (
        {"cpu": {"numa": {"cell": [{"id": 0, "memory": 64, "cpus": "0", "distances": {"siblings": [{"id": 0, "value": 20}]}}]}}},
        "cpu.numa.cell[0].distances.siblings[0].value: the distance of cell 0 to itself must be 10",
    ),
    # one-line values with a control character (a description may span lines)
    ({"name": "evil\nname"}, "name: contains a control character \\(U\\+000A\\)"),
    ({"title": "a\tb"}, "title: contains a control character \\(U\\+0009\\)"),
    ({"destroy": {"shutdown": {"timeout": -1}}}, "destroy.shutdown.timeout: must be 0 or more seconds, got -1"),
    ({"devices": {"interfaces": [{"wait_for_ip": {"timeout": -5}}]}}, "devices.interfaces[0].wait_for_ip.timeout: must be 0 or more seconds"),
    ({"devices": {"disks": [{"source": {"file": {"file": "/a\r"}}}]}}, "devices.disks[0].source.file.file: contains a control character"),
]


@pytest.mark.parametrize(("options", "message"), BAD_INPUT)
def test_bad_input_fails_before_anything_is_defined(conn: t.Any, options: dict[str, t.Any], message: str) -> None:
    name = _name()
    base = minimal(name)
    base.update(options)
    with pytest.raises(LibvirtValidationError, match=message.replace("[", r"\[").replace("]", r"\]")):
        domain.ensure_domain(conn, base, False)
    assert name not in conn.listDefinedDomains() + [d.name() for d in conn.listAllDomains()]


def test_numbers_in_raw_xml_are_checked_too(conn: t.Any) -> None:
    xml = "<domain type='test'><name>h15-raw</name><memory>1024</memory><vcpu>-2</vcpu><os><type>hvm</type></os></domain>"
    with pytest.raises(LibvirtValidationError, match=r"^xml: vcpu: must be from 1 to 16384, got -2"):
        domain.ensure_domain(conn, params(xml=xml), False)
    assert "h15-raw" not in conn.listDefinedDomains()


def test_a_description_with_crlf_and_metadata_in_another_spelling_converge(conn: t.Any) -> None:
    """XML reads CR LF as LF, and libvirt rewrites a metadata fragment's quotes, indentation
    and attribute order: neither is a change on the next run."""
    name = _name()
    metadata = "<m:a xmlns:m='urn:h15'   z='1' b='2'>t<m:b/></m:a>\n   <n:q xmlns:n='urn:h15:n'/>"
    wanted = minimal(name, description="line one\r\nline two\rthree", metadata={"xml": metadata})
    assert domain.ensure_domain(conn, wanted, False).changed
    again = domain.ensure_domain(conn, wanted, False)
    assert not again.changed, again.before
    assert domain.ensure_domain(conn, dict(wanted, metadata={"xml": "<m:a xmlns:m='urn:h15' z='1' b='3'>t<m:b/></m:a>"}), True).changed


def test_xml_and_options_are_exclusive(conn: t.Any) -> None:
    with pytest.raises(LibvirtValidationError, match=r"xml: cannot be combined with the domain options \(memory\)"):
        domain.ensure_domain(conn, params(xml="<domain type='test'><name>x</name></domain>", memory=1), False)


def test_a_new_domain_needs_its_type(conn: t.Any) -> None:
    with pytest.raises(LibvirtValidationError, match="type: required to define the new domain"):
        domain.ensure_domain(conn, params(name=_name(), memory=1), False)


# --- lifecycle on the test driver ------------------------------------------------------------


def test_define_is_idempotent_and_check_mode_touches_nothing(conn: t.Any) -> None:
    name = _name()
    wanted = minimal(name, running=True, autostart=True, devices={"interfaces": [{"source": {"network": {"network": "default"}}}]})
    checked = domain.ensure_domain(conn, wanted, True)
    assert checked.changed
    assert name not in [d.name() for d in conn.listAllDomains()]
    created = domain.ensure_domain(conn, wanted, False)
    assert created.changed and created.resource["running"] and created.resource["autostart"]
    assert created.resource["uuid"]
    again = domain.ensure_domain(conn, wanted, False)
    assert not again.changed
    assert again.before == again.after
    assert domain.ensure_domain(conn, wanted, True).changed is False


def test_a_change_redefines_in_place_keeping_uuid_mac_and_autostart(conn: t.Any) -> None:
    name = _name()
    wanted = minimal(name, autostart=True, devices={"interfaces": [{"source": {"network": {"network": "default"}}}]})
    first = domain.ensure_domain(conn, wanted, False)
    mac = first.resource["devices"]["interfaces"][0]["mac"]["address"]
    bigger = dict(wanted, memory=256, devices={"interfaces": [{"source": {"network": {"network": "default"}}, "model": {"type": "e1000"}}]})
    checked = domain.ensure_domain(conn, bigger, True)
    assert checked.changed
    assert conn.lookupByName(name).maxMemory() == 128 * 1024  # check mode left it alone
    changed = domain.ensure_domain(conn, bigger, False)
    assert changed.changed and changed.extra["update_method"] == "redefine"
    assert changed.before["memory"] == 128 and changed.before["memory_unit"] == "MiB"  # libvirt's KiB in the unit asked for
    assert changed.after["memory"] == 256
    dom = conn.lookupByName(name)
    assert dom.UUIDString() == first.resource["uuid"]
    assert dom.autostart()
    assert changed.resource["devices"]["interfaces"][0]["mac"]["address"] == mac
    assert not domain.ensure_domain(conn, bigger, False).changed


def test_units_compare_by_size(conn: t.Any) -> None:
    name = _name()
    domain.ensure_domain(conn, minimal(name), False)
    assert not domain.ensure_domain(conn, dict(minimal(name), memory=131072, memory_unit=None), False).changed
    assert not domain.ensure_domain(conn, dict(minimal(name), memory=134217728, memory_unit="bytes"), False).changed
    assert domain.ensure_domain(conn, dict(minimal(name), memory=1, memory_unit="GiB"), False).changed


def test_a_running_domain_reports_a_pending_change_or_restarts_with_update(conn: t.Any) -> None:
    name = _name()
    domain.ensure_domain(conn, minimal(name, running=True), False)
    pending = domain.ensure_domain(conn, dict(minimal(name, running=True), vcpu=2), False)
    assert pending.changed and pending.extra["restart_required"] is True
    assert any("vcpu" in w for w in pending.warnings)
    dom = conn.lookupByName(name)
    assert "<vcpu placement='static'>1</vcpu>" in dom.XMLDesc(0)
    restarted = domain.ensure_domain(conn, dict(minimal(name, running=True, update={"shutdown": {"timeout": 5}}), vcpu=2), False)
    assert restarted.changed and restarted.extra["update_method"] == "restart"
    assert dom.isActive() and "<vcpu placement='static'>2</vcpu>" in dom.XMLDesc(0)
    assert not domain.ensure_domain(conn, dict(minimal(name, running=True), vcpu=2), False).changed


def test_running_and_autostart_are_enforced_every_run(conn: t.Any) -> None:
    name = _name()
    wanted = minimal(name, running=True, autostart=True)
    domain.ensure_domain(conn, wanted, False)
    dom = conn.lookupByName(name)
    dom.destroy()  # drift: upstream never starts it again (https://github.com/dmacvicar/terraform-provider-libvirt/issues/1339)
    dom.setAutostart(0)
    fixed = domain.ensure_domain(conn, wanted, False)
    assert fixed.changed and fixed.before["running"] is False and fixed.after["running"] is True
    assert dom.isActive() and dom.autostart()
    stopped = domain.ensure_domain(conn, dict(wanted, running=False, destroy={"graceful": True, "shutdown": None}), False)
    assert stopped.changed and not dom.isActive()


def test_stop_with_acpi_shutdown(conn: t.Any) -> None:
    name = _name()
    domain.ensure_domain(conn, minimal(name, running=True), False)
    stopped = domain.ensure_domain(conn, minimal(name, running=False, destroy={"graceful": False, "shutdown": {"timeout": 5}}), False)
    assert stopped.changed and not conn.lookupByName(name).isActive()


def test_absent_undefines_with_the_fallback_and_is_idempotent(conn: t.Any) -> None:
    name = _name()
    domain.ensure_domain(conn, minimal(name, running=True), False)
    assert domain.ensure_domain(conn, params(name=name, state="absent"), True).changed
    assert name in [d.name() for d in conn.listAllDomains()]
    removed = domain.ensure_domain(conn, params(name=name, state="absent"), False)  # the test driver rejects UNDEFINE_NVRAM
    assert removed.changed and removed.before["name"] == name
    assert name not in [d.name() for d in conn.listAllDomains()]
    assert not domain.ensure_domain(conn, params(name=name, state="absent"), False).changed


def test_a_failed_start_leaves_nothing_behind(conn: t.Any) -> None:
    name = _name()
    with pytest.raises(LibvirtError, match="Failed to Start Domain: Domain was defined but failed to start"):
        domain.ensure_domain(conn, minimal(name, running=True, create={"bypass_cache": True}), False)  # the test driver takes no start flags but paused
    assert name not in [d.name() for d in conn.listAllDomains()]


def test_adopt_by_uuid_and_define_with_a_given_uuid(conn: t.Any) -> None:
    name = _name()
    given = str(uuid.uuid4())
    created = domain.ensure_domain(conn, minimal(name, uuid=given), False)
    assert created.resource["uuid"] == given
    adopted = domain.ensure_domain(conn, params(uuid=given, memory=128, memory_unit="MiB"), False)
    assert not adopted.changed and adopted.resource["name"] == name
    with pytest.raises(LibvirtValidationError, match="renaming is not supported"):
        domain.ensure_domain(conn, params(uuid=given, name="other"), False)


def test_raw_xml_is_compared_the_same_way(conn: t.Any) -> None:
    name = _name()
    xml = f"<domain type='test'><name>{name}</name><memory unit='MiB'>64</memory><os><type>hvm</type></os></domain>"
    assert domain.ensure_domain(conn, params(xml=xml), False).changed
    assert not domain.ensure_domain(conn, params(xml=xml), False).changed
    uuid_before = conn.lookupByName(name).UUIDString()
    bigger = xml.replace(">64<", ">96<")
    assert domain.ensure_domain(conn, params(xml=bigger), False).changed
    assert conn.lookupByName(name).UUIDString() == uuid_before
    with pytest.raises(LibvirtValidationError, match="xml: its <name> is"):
        domain.ensure_domain(conn, params(xml=xml, name="else"), False)


# --- what libvirt stores otherwise: a second run changes nothing -------------------------------

_CELL = {"id": 0, "cpus": "0", "memory": 128, "unit": "MiB"}
# (what, options over minimal()); each is defined, then a real run and a check-mode run change nothing.
STORED_OTHERWISE: list[tuple[str, dict[str, t.Any]]] = [
    ("NUMA cell memory in MiB (libvirt stores KiB)", {"cpu": {"numa": {"cell": [_CELL]}}}),
    ("maximum memory with slots", {"maximum_memory": 1, "maximum_memory_unit": "GiB", "maximum_memory_slots": 4, "cpu": {"numa": {"cell": [_CELL]}}}),
    (
        "a dimm memory device",
        {
            "memory": 256,
            "maximum_memory": 1,
            "maximum_memory_unit": "GiB",
            "maximum_memory_slots": 4,
            "cpu": {"numa": {"cell": [_CELL]}},
            "devices": {"memorydevs": [{"model": "dimm", "target": {"size": 128, "size_unit": "MiB", "node": 0}}]},
        },
    ),
    ("a lease at offset 0 (left out)", {"devices": {"leases": [{"lockspace": "ls", "key": "k", "target": {"path": "/var/lib/l", "offset": 0}}]}}),
    ("vcpu_current equal to vcpu (left out)", {"vcpu": 2, "vcpu_current": 2}),
    (
        "a unix channel bound without a path",
        {"devices": {"channels": [{"source": {"unix": {"mode": "bind"}}, "target": {"virt_io": {"name": "org.qemu.guest_agent.0"}}}]}},
    ),
    (
        "a user alias",
        {"devices": {"disks": [{"source": {"file": {"file": "/var/lib/a.img"}}, "target": {"dev": "vda", "bus": "virtio"}, "alias": {"name": "ua-a"}}]}},
    ),
    ("an empty union object", {"devices": {"interfaces": [{"source": {}, "model": {"type": "virtio"}}]}}),
    ("an empty disk source", {"devices": {"disks": [{"device": "cdrom", "source": {}, "target": {"dev": "sda", "bus": "sata"}}]}}),
    ("empty objects", {"features": {}, "memory_backing": {}, "devices": {"serials": [{"source": {}}]}}),
]


@pytest.mark.parametrize("options", [row[1] for row in STORED_OTHERWISE], ids=[row[0] for row in STORED_OTHERWISE])
def test_what_libvirt_stores_otherwise_is_no_change(conn: t.Any, options: dict[str, t.Any]) -> None:
    wanted = {**minimal(_name()), **options}
    assert domain.ensure_domain(conn, wanted, False).changed
    again = domain.ensure_domain(conn, wanted, False)
    assert not again.changed, (again.before, again.after)
    assert not domain.ensure_domain(conn, wanted, True).changed


# (what, options asked for, options as libvirt's QEMU driver stores them, option paths that differ)
STORED_BY_QEMU: list[tuple[str, dict[str, t.Any], dict[str, t.Any], list[str]]] = [
    (
        "memory with NUMA cells: the sum of the cells and memory devices",
        {"memory": 256, "memory_unit": "MiB", "cpu": {"numa": {"cell": [_CELL]}}, "devices": {"memorydevs": [{"target": {"size": 128, "size_unit": "MiB"}}]}},
        {
            "memory": 262144,
            "memory_unit": "KiB",
            "cpu": {"numa": {"cell": [{**_CELL, "memory": 131072, "unit": "KiB"}]}},
            "devices": {"memorydevs": [{"target": {"size": 131072}}]},
        },
        [],
    ),
    (
        "memory with NUMA cells: as given",
        {"memory": 256, "memory_unit": "MiB", "cpu": {"numa": {"cell": [_CELL]}}},
        {"memory": 262144, "cpu": {"numa": {"cell": [_CELL]}}},
        [],
    ),
    (
        "memory with NUMA cells: another value",
        {"memory": 256, "memory_unit": "MiB", "cpu": {"numa": {"cell": [_CELL]}}},
        {"memory": 1, "cpu": {"numa": {"cell": [_CELL]}}},
        ["memory"],
    ),
    ("memory without NUMA cells is as given", {"memory": 256, "memory_unit": "MiB"}, {"memory": 131072}, ["memory"]),
    (
        "a NUMA cell of another size",
        {"cpu": {"numa": {"cell": [_CELL]}}},
        {"cpu": {"numa": {"cell": [{**_CELL, "memory": 1, "unit": "GiB"}]}}},
        ["cpu.numa.cell[0].memory"],
    ),
    ("vcpu_current left out equals vcpu", {"vcpu": 2, "vcpu_current": 2}, {"vcpu": 2}, []),
    ("vcpu_current left out is not another value", {"vcpu": 2, "vcpu_current": 1}, {"vcpu": 2}, ["vcpu_current"]),
    (
        "a unix source left without mode is bound",
        {"devices": {"channels": [{"source": {"unix": {"mode": "bind"}}}]}},
        {"devices": {"channels": [{"source": {"unix": {}}}]}},
        [],
    ),
    (
        "a unix source left without mode is not connected",
        {"devices": {"channels": [{"source": {"unix": {"mode": "connect"}}}]}},
        {"devices": {"channels": [{"source": {"unix": {}}}]}},
        ["devices.channels[0].source.unix.mode"],
    ),
    ("an empty object is no difference", {"features": {}, "devices": {"disks": [{"source": {}}]}}, {"devices": {"disks": [{}]}}, []),
    (
        "an empty branch is one",
        {"devices": {"serials": [{"source": {"pty": {}}}]}},
        {"devices": {"serials": [{"source": {}}]}},
        ["devices.serials[0].source.pty"],
    ),
    (
        "interfaces match by MAC in any case",
        {"devices": {"interfaces": [{"mac": {"address": "52:54:00:00:00:02"}}, {"mac": {"address": "52:54:00:00:00:01"}}]}},
        {"devices": {"interfaces": [{"mac": {"address": "52:54:00:00:00:01"}}, {"mac": {"address": "52:54:00:00:00:02"}}]}},
        [],
    ),
    (
        "controllers libvirt added are no difference",
        {"devices": {"controllers": [{"type": "usb", "model": "qemu-xhci"}]}},
        {"devices": {"controllers": [{"type": "pci", "index": 0}, {"type": "usb", "index": 0, "model": "qemu-xhci"}]}},
        [],
    ),
]


@pytest.mark.parametrize(("desired", "stored", "paths"), [row[1:] for row in STORED_BY_QEMU], ids=[row[0] for row in STORED_BY_QEMU])
def test_the_compare_takes_what_libvirt_stores(desired: dict[str, t.Any], stored: dict[str, t.Any], paths: list[str]) -> None:
    found = schema.differences(schema.comparable("Domain", desired), schema.comparable("Domain", stored, stored=True), struct="Domain")
    assert found == paths


def test_an_alias_libvirt_would_drop_is_refused(conn: t.Any) -> None:
    name = _name()
    disk = {"source": {"file": {"file": "/var/lib/a.img"}}, "target": {"dev": "vda"}, "alias": {"name": "data"}}
    with pytest.raises(LibvirtValidationError, match=r"^devices\.disks\[0\]\.alias\.name: libvirt keeps only values that start with 'ua-' .*write 'ua-data'"):
        domain.ensure_domain(conn, minimal(name, devices={"disks": [disk]}), False)
    assert name not in [d.name() for d in conn.listAllDomains()]


def test_every_rule_names_options_of_the_schema() -> None:
    """The rules name options by their option names: a renamed option must take its rules along."""

    def resolves(struct: str, path: str) -> bool:
        for part in path.replace("[]", "").split("."):
            entry = next((e for e in STRUCTS[struct]["fields"] if e["name"] == part), None)
            if entry is None:
                return False
            struct = entry.get("struct", struct)
        return True

    ruled = 0
    for struct, body in STRUCTS.items():
        for entry in body["fields"]:
            rules = entry.get("rules") or {}
            ruled += bool(rules)
            siblings = [rules.get("size"), (rules.get("omitted") or {}).get("option"), rules.get("netmask"), rules.get("excludes")]
            assert all(resolves(struct, s) for s in siblings if s), (struct, entry["name"])
            assert all(resolves(entry["struct"], key) for key in rules.get("key", ())), (struct, entry["name"])
            assert all(resolves(struct, path) for path in rules.get("total", ())), (struct, entry["name"])
    assert ruled > 20


# --- a redefinition keeps what the guest sees ----------------------------------------------------

_EXISTING = """<domain type='kvm'><name>d</name><devices>
<controller type='pci' index='0' model='pcie-root'/>
<controller type='pci' index='1' model='pcie-root-port'><address type='pci' bus='0x00' slot='0x02'/></controller>
<controller type='usb' index='0' model='qemu-xhci'><address type='pci' bus='0x02' slot='0x00'/></controller>
<disk type='file' device='disk'><driver name='qemu' type='qcow2'/><source file='/p/a.qcow2'/><target dev='vda' bus='virtio'/>
  <alias name='ua-a'/><address type='pci' bus='0x03' slot='0x00'/></disk>
<disk type='file' device='disk'><driver name='qemu' type='qcow2'/><source file='/p/b.qcow2'/><target dev='vdb' bus='virtio'/>
  <address type='pci' bus='0x05' slot='0x00'/></disk>
<interface type='network'><mac address='52:54:00:00:00:01'/><source network='n1'/><model type='virtio'/><address type='pci' bus='0x01' slot='0x00'/></interface>
<interface type='network'><mac address='52:54:00:00:00:02'/><source network='n2'/><model type='virtio'/><address type='pci' bus='0x06' slot='0x00'/></interface>
</devices></domain>"""
_A = {"source": {"file": {"file": "/p/a.qcow2"}}, "target": {"dev": "vda", "bus": "virtio"}}
_B = {"source": {"file": {"file": "/p/b.qcow2"}}, "target": {"dev": "vdb", "bus": "virtio"}}
_N1 = {"source": {"network": {"network": "n1"}}, "model": {"type": "virtio"}}
_N2 = {"source": {"network": {"network": "n2"}}, "model": {"type": "virtio"}}

# (what, devices asked for, {xpath: the value it must still have})
REDEFINITIONS: list[tuple[str, dict[str, t.Any], dict[str, str | None]]] = [
    (
        "the first of two disks removed",
        {"disks": [_B]},
        {"count(disk)": "1", "disk/target/@dev": "vdb", "disk/address/@bus": "0x05", "disk/driver/@type": "qcow2"},
    ),
    (
        "disks reordered and one added",
        {"disks": [_B, _A, {"source": {"file": {"file": "/p/c.qcow2"}}, "target": {"dev": "vdc", "bus": "virtio"}}]},
        {
            "disk[target/@dev='vda']/address/@bus": "0x03",
            "disk[target/@dev='vda']/alias/@name": "ua-a",
            "disk[target/@dev='vdb']/address/@bus": "0x05",
            "count(disk[target/@dev='vdc']/address)": "0",
        },
    ),
    (
        "a disk changed from a file to a block device",
        {"disks": [_A, {"source": {"block": {"dev": "/dev/sdz"}}, "target": {"dev": "vdb", "bus": "virtio"}}]},
        {
            "disk[target/@dev='vdb']/@type": "block",
            "disk[target/@dev='vdb']/source/@dev": "/dev/sdz",
            "count(disk[target/@dev='vdb']/source/@file)": "0",
            "disk[target/@dev='vdb']/address/@bus": "0x05",
            "disk[target/@dev='vda']/address/@bus": "0x03",
        },
    ),
    (
        "the first of two interfaces without a MAC removed",
        {"interfaces": [_N2]},
        {"count(interface)": "1", "interface/mac/@address": "52:54:00:00:00:02", "interface/address/@bus": "0x06"},
    ),
    (
        "an interface's model changed",
        {"interfaces": [{**_N1, "model": {"type": "e1000"}}, _N2]},
        {"interface[1]/mac/@address": "52:54:00:00:00:01", "interface[1]/address/@bus": "0x01", "interface[1]/model/@type": "e1000"},
    ),
    (
        "an interface moved from a network to a bridge",
        {"interfaces": [{"source": {"bridge": {"bridge": "br0"}}, "model": {"type": "virtio"}}, _N2]},
        {
            "interface[1]/@type": "bridge",
            "interface[1]/source/@bridge": "br0",
            "count(interface[1]/source/@network)": "0",
            "interface[1]/mac/@address": "52:54:00:00:00:01",
            "interface[1]/address/@bus": "0x01",
        },
    ),
    (
        "a controller asked for, the ones libvirt added kept",
        {"controllers": [{"type": "usb", "index": 0, "model": "qemu-xhci"}]},
        {"count(controller)": "3", "controller[@type='usb']/address/@bus": "0x02", "controller[@model='pcie-root-port']/address/@slot": "0x02"},
    ),
]


@pytest.mark.parametrize(("devices", "kept"), [row[1:] for row in REDEFINITIONS], ids=[row[0] for row in REDEFINITIONS])
def test_a_redefinition_keeps_what_libvirt_added_to_each_device(devices: dict[str, t.Any], kept: dict[str, str]) -> None:
    root = schema.parse(_EXISTING)
    schema.apply("Domain", root, {"devices": devices}, path="")
    found = root.find("devices")
    for xpath, value in kept.items():
        got = found.xpath(xpath)
        got = str(int(got)) if isinstance(got, float) else (got[0] if got else None)
        assert got == value, (xpath, schema.serialize(found))
    asked = schema.read("Domain", root, like={"devices": devices})
    assert schema.differences({"devices": devices}, asked, struct="Domain") == []


def test_redefining_on_the_test_driver_keeps_addresses(conn: t.Any) -> None:
    name = _name()
    disks = "".join(
        f"<disk type='file' device='disk'><source file='/p/{dev}.img'/><target dev='{dev}' bus='virtio'/>"
        f"<address type='pci' domain='0x0000' bus='{bus}' slot='0x00' function='0x0'/></disk>"
        for dev, bus in (("vda", "0x03"), ("vdb", "0x05"))
    )
    xml = f"<domain type='test'><name>{name}</name><memory unit='MiB'>128</memory><vcpu>1</vcpu><os><type>hvm</type></os><devices>{disks}</devices></domain>"
    domain.ensure_domain(conn, params(xml=xml), False)
    only_b = minimal(name, devices={"disks": [{"source": {"file": {"file": "/p/vdb.img"}}, "target": {"dev": "vdb", "bus": "virtio"}}]})
    assert domain.ensure_domain(conn, only_b, True).changed
    assert conn.lookupByName(name).XMLDesc(0).count("<disk ") == 2  # check mode left it alone
    assert domain.ensure_domain(conn, only_b, False).changed
    after = schema.parse(conn.lookupByName(name).XMLDesc(0))
    assert [(d.find("target").get("dev"), d.find("address").get("bus")) for d in after.iter("disk")] == [("vdb", "0x05")]
    assert not domain.ensure_domain(conn, only_b, False).changed
    assert not domain.ensure_domain(conn, only_b, True).changed


def test_absent_removes_a_domain_with_snapshots(conn: t.Any) -> None:
    name = _name()
    domain.ensure_domain(conn, minimal(name), False)
    dom = conn.lookupByName(name)
    dom.snapshotCreateXML("<domainsnapshot><name>s1</name></domainsnapshot>", 0)
    assert domain.ensure_domain(conn, params(name=name, state="absent"), True).changed
    assert dom.snapshotNum(0) == 1
    assert domain.ensure_domain(conn, params(name=name, state="absent"), False).changed
    assert name not in [d.name() for d in conn.listAllDomains()]


def test_disks_libvirt_keeps_in_another_order_are_read_as_asked() -> None:
    """libvirt sorts disks by target dev: each is read as the disk with its dev asked for, whatever its kind."""
    held = schema.parse(
        "<domain><devices><disk type='block' device='disk'><source dev='/dev/null'/><target dev='vdb'/></disk>"
        "<disk type='file' device='disk'><source file='/p/d.img'/><target dev='vdd'/></disk></devices></domain>"
    )
    asked = {
        "devices": {
            "disks": [
                {"source": {"file": {"file": "/p/d.img"}}, "target": {"dev": "vdd"}},
                {"source": {"block": {"dev": "/dev/null"}}, "target": {"dev": "vdb"}},
            ]
        }
    }
    current = schema.read("Domain", held, like=asked)
    assert schema.differences(asked, current, struct="Domain") == []


def test_a_driver_without_the_paused_start_flag_starts_then_pauses(conn: t.Any) -> None:
    name = _name()
    created = domain.ensure_domain(conn, minimal(name, running=True, create={"paused": True}), False)  # the test driver refuses the flag
    assert created.resource["running"] and created.resource["paused"]
    assert conn.lookupByName(name).state()[0] == libvirt.VIR_DOMAIN_PAUSED
