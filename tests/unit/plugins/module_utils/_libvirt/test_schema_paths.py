# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Every option of the domain schema, one at a time, through libvirt: options -> XML ->
defined on libvirt's test driver -> its inactive XML -> read back as the module reads it ->
the module's compare reports no difference (a second run changes nothing).

The paths are generated from schema_generated.STRUCTS (objects, one item of each list, each
union branch; a struct already on the way is not entered again). Each is set alone in a
minimal valid domain: the base domain, every ``required`` option of each struct on the way,
list keys, and CONTEXT (what libvirt needs more for some parents: a disk's target). Values
come from the option's type and range, from its choices, or from libvirt's own RNG schemas
(the first value the attribute or element takes there: an enumeration's first word, a UUID,
a MAC address...), with VALUES for the few the RNG cannot tell.

A path that cannot pass is in EXCEPTIONS with its reason and what libvirt (or the compare)
says, checked: an exception that starts passing, or fails otherwise, fails the test."""

from __future__ import annotations

import copy
import functools
import itertools
import pathlib
import re
import typing as t

import pytest

libvirt = pytest.importorskip("libvirt")
etree = pytest.importorskip("lxml.etree")

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt import domain, schema
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.errors import LibvirtValidationError
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.resource import definition_xml
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.schema_generated import STRUCTS

URI = "test:///default"
ROOT = "Domain"
RNG_DIR = pathlib.Path("/usr/share/libvirt/schemas")
RNG = "{http://relaxng.org/ns/structure/1.0}"

Field = dict[str, t.Any]
Chain = tuple[Field, ...]
Options = dict[str, t.Any]

_NESTING = ("object", "list", "branch", "inline")
_NOT_XML = ("provider", "selector")


def _fields(struct: str) -> list[Field]:
    return [f for f in STRUCTS[struct]["fields"] if not f.get("computed") and f["kind"] not in _NOT_XML]


# --- the paths ------------------------------------------------------------------------------


def _leaves(struct: str, chain: Chain = (), seen: frozenset[str] = frozenset()) -> t.Iterator[Chain]:
    """Every leaf below ``struct``: a scalar, a presence, or a struct without options (a flat
    branch, an empty one). A struct already on the way (a cycle) is not entered again."""
    for f in _fields(struct):
        here = (*chain, f)
        if f["kind"] not in _NESTING or f.get("flat") or not _fields(f["struct"]):
            yield here
        elif f["struct"] not in seen:
            yield from _leaves(f["struct"], here, seen | {f["struct"]})


def path_of(chain: Chain) -> str:
    return ".".join(f["name"] + ("[0]" if f["kind"] == "list" and f is not chain[-1] else "") for f in chain)


PATHS: dict[str, Chain] = {path_of(chain): chain for chain in _leaves(ROOT, (), frozenset({ROOT}))}


# --- values ---------------------------------------------------------------------------------

# Values libvirt's RNG types stand for where the RNG has no <value> to take (its patterns).
_RNG_TYPES = {
    "UUID": "5f1a9e0c-3b7d-4c2e-9a41-6d8b2f0e7c13",
    "uniMacAddr": "52:54:00:12:34:56",
    "macAddr": "52:54:00:12:34:56",
    "absFilePath": "/var/lib/libvirt/images/unit.img",
    "filePath": "/var/lib/libvirt/images/unit.img",
    "absDirPath": "/var/lib/libvirt/images",
    "dirPath": "/var/lib/libvirt/images",
    "ipAddr": "192.0.2.10",
    "ipv4Addr": "192.0.2.10",
    "ipv6Addr": "2001:db8::10",
    "cpuset": "0",
    "wwn": "5000c50015ea71ad",
    "unit": "KiB",
    "virYesNo": "yes",
    "virOnOff": "on",
    "timeDelta": "1",
    "hostName": "host.example.org",
    "dnsName": "host.example.org",
    "deviceName": "unit0",
    "genericName": "unit0",
    "objectNameWithSlash": "unit0",
    "aliasName": "ua-unit0",
    "countCPU": "1",
    "vcpuid": "0",
    "cellid": "0",
    "scaledInteger": "1",
    "positiveInteger": "1",
    "unsignedInt": "1",
    "unsignedLong": "1",
    "uint8": "1",
    "uint16": "1",
    "uint24": "1",
    "uint32": "1",
    "hexuint": "0x1",
    "iobase": "0x3f8",
    "irq": "4",
    "pciDomain": "0x0000",
    "pciBus": "0x00",
    "pciSlot": "0x01",
    "pciFunc": "0x0",
    "ccwCssidRange": "0xfe",
    "ccwSsidRange": "0x0",
    "ccwDevnoRange": "0x0001",
    "usbAddr": "0x0001",
    "usbPort": "1",
    "driveController": "0",
    "driveBus": "0",
    "driveSCSITarget": "0",
    "driveUnit": "0",
    "port": "5900",
    "PortNumber": "5900",
    "sourceinfoadapter": "scsi_host0",
}
_DATA_TYPES = {
    "unsignedInt": "1",
    "unsignedLong": "1",
    "int": "1",
    "integer": "1",
    "positiveInteger": "1",
    "long": "1",
    "unsignedShort": "1",
    "double": "1",
    "float": "1",
}


class _Rng:
    """libvirt's RNG schemas, asked what value an attribute or an element's text takes."""

    def __init__(self, directory: pathlib.Path) -> None:
        self.defines: dict[str, list[t.Any]] = {}
        self.elements: dict[str, list[t.Any]] = {}
        for path in sorted(directory.glob("*.rng")):
            tree = etree.parse(str(path))
            for node in tree.iter(f"{RNG}define"):
                self.defines.setdefault(node.get("name"), []).append(node)
            for node in tree.iter(f"{RNG}element"):
                if node.get("name"):
                    self.elements.setdefault(node.get("name"), []).append(node)
        # Memoised per instance (a cache on the methods would keep every instance alive).
        self.attribute = functools.cache(self._attribute)
        self.text = functools.cache(self._text)

    def _children(self, node: t.Any, seen: frozenset[str]) -> t.Iterator[t.Any]:
        """The pattern nodes of ``node``'s content, refs resolved, nested elements not entered."""
        for child in node:
            if not isinstance(child.tag, str):
                continue
            if child.tag == f"{RNG}ref":
                name = child.get("name")
                if name not in seen:
                    for define in self.defines.get(name, ()):
                        yield from self._children(define, seen | {name})
            elif child.tag == f"{RNG}element":
                continue
            else:
                yield child
                if child.tag != f"{RNG}attribute":
                    yield from self._children(child, seen)

    def _first_value(self, node: t.Any, seen: frozenset[str] = frozenset()) -> str | None:
        """The first value the content of ``node`` takes: a <value>, a known type, a <data>."""
        for child in node:
            if not isinstance(child.tag, str):
                continue
            if child.tag == f"{RNG}value" and (child.text or "").strip() not in ("", "default"):
                return (child.text or "").strip()  # "default": what libvirt leaves out
            if child.tag == f"{RNG}ref":
                name = child.get("name")
                if name in _RNG_TYPES:
                    return _RNG_TYPES[name]
                if name not in seen:
                    for define in self.defines.get(name, ()):
                        found = self._first_value(define, seen | {name})
                        if found is not None:
                            return found
            elif child.tag == f"{RNG}data":
                return _DATA_TYPES.get(child.get("type"))
            elif child.tag in (f"{RNG}choice", f"{RNG}optional", f"{RNG}group", f"{RNG}interleave", f"{RNG}zeroOrMore", f"{RNG}oneOrMore"):
                found = self._first_value(child, seen)
                if found is not None:
                    return found
        return None

    def _attribute(self, elements: frozenset[str], name: str) -> str | None:
        for element in sorted(elements):
            for node in self.elements.get(element, ()):
                for child in self._children(node, frozenset()):
                    if child.tag == f"{RNG}attribute" and child.get("name") == name:
                        found = self._first_value(child)
                        if found is not None:
                            return found
        return None

    def _text(self, element: str) -> str | None:
        for node in self.elements.get(element, ()):
            found = self._first_value(node)
            if found is not None:
                return found
        return None


@functools.cache
def _rng() -> _Rng | None:
    return _Rng(RNG_DIR) if RNG_DIR.is_dir() else None


@functools.cache
def _elements_of() -> dict[str, frozenset[str]]:
    """struct -> the XML elements it is written as (a branch's struct: its owner's)."""
    elements: dict[str, set[str]] = {ROOT: {"domain"}}
    for _round in range(len(STRUCTS)):
        before = sum(map(len, elements.values()))
        for owner, body in STRUCTS.items():
            for f in body["fields"]:
                if f.get("struct"):
                    written = {f["xml"]} if f["kind"] in ("object", "list") else elements.get(owner, set())
                    elements.setdefault(f["struct"], set()).update(written)
        if sum(map(len, elements.values())) == before:
            break
    return {struct: frozenset(names) for struct, names in elements.items()}


def _struct_of(chain: Chain) -> str:
    """The struct holding the last field of ``chain``."""
    return chain[-2]["struct"] if len(chain) > 1 else ROOT


def _number(field: Field, wanted: int = 1) -> int:
    low, high = field.get("range") or (0, 2**31)
    return max(low, min(high, wanted))


def value_for(struct: str, field: Field) -> t.Any:
    """A valid example value for ``field`` of ``struct``."""
    kind, kind_type = field["kind"], field.get("type", "str")
    if kind in ("presence", "flag"):
        return True
    if kind == "branch" and field.get("flat") == "presence":
        return True
    if kind in ("object", "list", "branch", "inline"):
        if field.get("flat") == "text":
            return "/dev/urandom"
        return [{}] if kind == "list" else {}
    if kind == "innerxml":
        return '<m:unit xmlns:m="urn:devinfra:unit">value</m:unit>'
    if field.get("choices"):
        return field["choices"][0]
    if kind_type in ("bool", "yesno", "onoff"):
        return True
    rng = _rng()
    found = None
    if rng is not None:
        if kind == "attr":
            found = rng.attribute(_elements_of().get(struct, frozenset()), field["xml"])
        elif kind == "unit_attr":
            found = rng.attribute(frozenset({field["xml"]}), field["attr"])
        elif kind in ("elem", "unit"):
            found = rng.text(field["xml"])
        elif kind == "text":
            found = next((rng.text(e) for e in sorted(_elements_of().get(struct, ())) if rng.text(e) is not None), None)
    if kind_type == "int":
        if found is not None:
            try:
                return _number(field, int(found, 0))
            except ValueError:
                pass
        return _number(field)
    if kind_type == "float":
        return 1.0
    if kind == "list_text":
        return ["unit"]
    return found if found is not None else "unit"


# --- the domain around a path ---------------------------------------------------------------

IMAGE = "/var/lib/libvirt/images/unit.img"
SOCKET = "/run/unit.sock"
SIZE = (4, "MiB")  # a size and its unit libvirt keeps as given (a size in bytes it rounds)
_AUDIO_CHANNEL = {"mixing_engine": "yes", "fixed_settings": "yes"}

# What a struct needs beyond its required options for libvirt to take it (by struct).
CONTEXT: dict[str, Options] = {
    ROOT: {"type": "test", "memory": 128, "memory_unit": "MiB", "vcpu": 1, "os": {"type": "hvm"}},
    "DomainDisk": {"device": "disk", "target": {"dev": "vda", "bus": "virtio"}, "source": {"file": {"file": IMAGE}}},
    "DomainDiskSource": {"file": {"file": IMAGE}},
    "DomainDiskBackingStore": {"format": {"type": "qcow2"}, "source": {"file": {"file": "/var/lib/libvirt/images/base.qcow2"}}},
    "DomainConsole": {"target": {"type": "virtio"}},
    "DomainDiskSourceNetwork": {"protocol": "nbd", "hosts": [{"name": "192.0.2.10", "port": "10809"}]},
    "DomainChannel": {"target": {"virt_io": {"name": "org.qemu.guest_agent.0"}}},
    "DomainChardevSourceUNIX": {"path": SOCKET},
    "DomainChardevSourceTCP": {"mode": "connect", "host": "192.0.2.10", "service": "4555"},
    "DomainChardevSourceUDP": {"connect_host": "192.0.2.10", "connect_service": "4556"},
    "DomainChardevSourceReconnect": {"enabled": "yes", "timeout": 10},
    "DomainRedirDev": {"bus": "usb", "source": {"spice_vmc": True}},
    "DomainTPMBackend": {"emulator": {"version": "2.0"}},
    "DomainTPMBackendExternalSource": {"unix": {"path": SOCKET}},
    "DomainInterface": {"model": {"type": "virtio"}, "source": {"network": {"network": "default"}}},
    "DomainInterfaceSourceServer": {"address": "192.0.2.10", "port": 5558},
    "DomainInterfaceSourceClient": {"address": "192.0.2.10", "port": 5558},
    "DomainInterfaceSourceMCast": {"address": "239.0.0.1", "port": 5558},
    "DomainInterfaceSourceUDP": {"address": "192.0.2.10", "port": 5558, "local": {"address": "192.0.2.11", "port": 5559}},
    "DomainInterfaceRoute": {"address": "192.0.2.0", "prefix": 24, "gateway": "192.0.2.1"},
    "DomainInterfaceBandwidthParams": {"average": 1000},
    "DomainDiskSourceVHostUser": {"unix": {"path": SOCKET}},
    "DomainDiskReservations": {"managed": "no", "source": {"unix": {"path": SOCKET, "mode": "client"}}},
    "DomainTPMBackendExternal": {"source": {"unix": {"path": SOCKET, "mode": "connect"}}},
    "DomainDiskEncryption": {"format": "luks", "secrets": [{"type": "passphrase", "uuid": _RNG_TYPES["UUID"]}]},
    "DomainDiskAuth": {"username": "admin", "secret": {"type": "iscsi", "usage": "unit"}},
    "DomainTPM": {"model": "tpm-crb", "backend": {"emulator": {"version": "2.0"}}},
    "DomainNUMATuneMemNode": {"cell_id": 0, "mode": "strict", "nodeset": "0"},
    "DomainNUMATuneMemory": {"mode": "strict", "nodeset": "0"},
    "DomainCPUTuneIOThreadSched": {"io_threads": "1", "scheduler": "fifo", "priority": 1},
    "DomainCPUTuneIOThreadPin": {"io_thread": 1, "cpu_set": "0"},
    "DomainIOThread": {"id": 1, "pool_min": 1, "pool_max": 4},
    "DomainDefaultIOThread": {"pool_min": 1, "pool_max": 4},
    "DomainGraphicListenerNetwork": {"network": "default"},
    "DomainFeatureHyperVTLBFlush": {"state": "on"},
    "DomainLease": {"lockspace": "unit", "key": "unit", "target": {"path": "/var/lib/libvirt/lockd/unit"}},
    "DomainInterfaceSourceVDS": {"switch_id": _RNG_TYPES["UUID"], "port_id": 1, "port_group_id": "pg1", "connection_id": 1},
    "DomainHostdev": {"subsys_pci": {"source": {"address": {"domain": 0, "bus": 0, "slot": 1, "function": 0}}}},
    "DomainHostdevSubsysSCSI": {"source": {"host": {"adapter": {"name": "scsi_host0"}, "address": {"bus": 0, "target": 0, "unit": 0}}}},
    "DomainHostdevSubsysUSBSource": {"vendor": {"id": "0x1234"}, "product": {"id": "0xbeef"}},
    "DomainAddressUSB": {"bus": 0, "device": 2},
    "DomainDiskSourceBlock": {"dev": "/dev/sdz"},
    "DomainVSock": {"model": "virtio"},
    "DomainDiskSourceVolume": {"pool": "default", "volume": "unit.img"},
    "DomainFilesystem": {"source": {"mount": {"dir": "/srv/unit"}}, "target": {"dir": "/mnt/unit"}},
    "DomainSmartcard": {"host": True},
    "DomainCPUCacheTune": {"vcpus": "0"},
    "DomainNUMAInterconnectLatency": {"initiator": 0, "target": 0},
    "DomainNUMAInterconnectBandwidth": {"initiator": 0, "target": 0},
    "DomainLaunchSecuritySEV": {"policy": 3, "cbit_pos": 47, "reduced_phys_bits": 1},
    "DomainHostdevSubsysSCSISourceISCSI": {"name": "iqn.2020-01.org.example:unit/0", "host": [{"name": "192.0.2.10", "port": "3260"}]},
    "DomainInterfaceSource": {"network": {"network": "default"}},
    "DomainFilesystemSource": {"mount": {"dir": "/srv/unit"}},
    "DomainMemorydev": {"model": "dimm", "target": {"size": 128, "size_unit": "MiB", "node": 0}},
    "DomainAudio": {"none": {}},
    "DomainCPUTopology": {"sockets": 1, "cores": 1, "threads": 1},
    "DomainVCPUsVCPU": {"id": 0, "enabled": "yes"},
    "DomainCPUTuneVCPUSched": {"scheduler": "fifo", "priority": 1},
    "DomainCPUTuneEmulatorSched": {"scheduler": "fifo", "priority": 1},
    "DomainGraphic": {"vnc": {}},
    "DomainRNG": {"model": "virtio", "backend": {"random": "/dev/urandom"}},
    "DomainSecLabel": {"type": "dynamic", "model": "dac"},
    "DomainDeviceSecLabel": {"model": "dac", "relabel": "no"},
    "DomainFeatureState": {"state": "on"},
    "DomainFeatureHyperVSpinlocks": {"state": "on", "retries": 4096},
    "DomainFeatureHyperVVendorId": {"state": "on", "value": "KVMKVMKVM"},
    "DomainFeatureKVMDirtyRing": {"state": "on", "size": 4096},
    "DomainFeatureXenPassthrough": {"state": "on"},
    "DomainHostdevSubsysSCSIHost": {"source": {"protocol": "vhost", "wwpn": "naa.5001405df3e54061"}},
    "DomainHostdevSubsysMDev": {"model": "vfio-pci", "source": {"address": {"uuid": _RNG_TYPES["UUID"]}}},
    "DomainInterfaceSourceVHostUser": {"chardev": {"unix": {"path": SOCKET, "mode": "client"}}},
    "DomainCellCacheSize": {"value": "32", "unit": "KiB"},
    "DomainCellCacheLine": {"value": "64", "unit": "B"},
    "DomainCellCache": {"associativity": "direct", "policy": "writeback"},
    "DomainCPUCacheTuneMonitor": {"level": 3, "vcpus": "0"},
    "DomainGraphicSpiceGL": {"enable": "yes"},
    "DomainCPU": {"mode": "custom", "match": "exact", "model": "qemu64"},
    "DomainCrypto": {"model": "virtio", "type": "qemu", "backend": {"built_in": True}},
    "DomainRNGBackend": {"random": "/dev/urandom"},
    **{struct: _AUDIO_CHANNEL for struct in STRUCTS if struct.startswith("DomainAudio") and struct.endswith("Channel")},
}
# What the domain needs for the options under a path (by path prefix, the longest that matches).
DOMAIN_CONTEXT: dict[str, Options] = {
    "os.loader": {"os": {"loader": "/usr/share/OVMF/OVMF_CODE.fd"}},
    "os.nv_ram": {"os": {"loader": "/usr/share/OVMF/OVMF_CODE.fd", "loader_type": "pflash"}},
    "cpu.numa": {"cpu": {"numa": {"cell": [{"id": 0, "cpus": "0", "memory": 128, "unit": "MiB"}]}}},
    "numa_tune.mem_nodes": {"cpu": {"numa": {"cell": [{"id": 0, "cpus": "0", "memory": 128, "unit": "MiB"}]}}},
    "devices.memorydevs": {
        "memory": 256, "maximum_memory": 1024, "maximum_memory_unit": "MiB", "maximum_memory_slots": 4,
        "cpu": {"numa": {"cell": [{"id": 0, "cpus": "0", "memory": 128, "unit": "MiB"}]}},
    },
    "maximum_memory": {"maximum_memory": 1024, "maximum_memory_unit": "MiB", "maximum_memory_slots": 4},
    "cpu_tune.io_thread": {"io_threads": 1},
    "clock.timer[0].catch_up": {"clock": {"timer": [{"name": "rtc", "tick_policy": "catchup"}]}},
    "devices.disks[0].auth": {"devices": {"disks": [{"source": {"network": {"protocol": "iscsi", "name": "iqn.2020-01.org.example:unit/0"}}}]}},
    "devices.disks[0].source.network.auth": {"devices": {"disks": [{"source": {"network": {"protocol": "iscsi", "name": "iqn.2020-01.org.example:unit/0"}}}]}},
    # The options of an https disk source, and of an ssh one.
    **{
        f"devices.disks[0].source.{name}": {
            "devices": {"disks": [{"source": {"network": {"protocol": "https", "name": "/images/unit.img", "hosts": [{"name": "192.0.2.10"}]}}}]},
        }
        for name in ("cookies", "ssl", "readahead", "timeout", "network.query")
    },
    "devices.disks[0].source.network.identity": {"devices": {"disks": [{"source": {"network": {"protocol": "ssh", "name": "/images/unit.img"}}}]}},
    # A virtiofs filesystem's options.
    **{
        f"devices.filesystems[0].{name}": {"devices": {"filesystems": [{"driver": {"type": "virtiofs"}}]}}
        for name in ("binary", "id_map", "driver.queue", "boot")
    },
    "devices.disks[0].source.reservations": {
        "devices": {"disks": [{"device": "lun", "target": {"dev": "sda", "bus": "scsi"}, "source": {"block": {"dev": "/dev/sdz"}}}]},
    },
    **{
        f"sys_info[0].smbios.{name}": {"sys_info": [{"smbios": {name: entry}}]}
        for name, entry in (
            ("system", {"entry": [{"name": "manufacturer"}]}),
            ("chassis", {"entry": [{"name": "manufacturer"}]}),
            ("base_board", [{"entry": [{"name": "manufacturer"}]}]),
        )
    },
    "devices.redir_devs": {"devices": {"controllers": [{"type": "usb", "index": 0, "model": "qemu-xhci"}]}},
    "id_map": {"id_map": {"ui_ds": [{"start": 0, "target": 1000, "count": 10}], "gi_ds": [{"start": 0, "target": 1000, "count": 10}]}},
}  # fmt: skip
# What an option needs beside it that its struct's CONTEXT does not give (by struct.option).
COMPANIONS: dict[str, Options] = {
    "DomainDeviceSecLabel.label": {"relabel": "yes"},
    "DomainSecLabel.label": {"type": "static", "relabel": "yes"},
}
# Options of a struct libvirt takes one of (beyond the schema's exactly/at most one of).
RIVALS: dict[str, list[tuple[str, ...]]] = {
    "DomainDiskSecret": [("usage", "uuid")],
    "DomainDiskSourceHost": [("name", "socket")],
    "DomainInterfaceRoute": [("prefix", "netmask")],
}
# Values libvirt takes where the generic one is not (by path, or by struct.option).
VALUES: dict[str, t.Any] = {
    "type": "test",
    "DomainChardevSourceTCP.mode": "connect",
    "DomainChardevSourceUNIX.mode": "connect",
    "DomainDeviceSecLabel.label": "+0:+0",
    "DomainInterfaceDriver.name": "vhost",
    "DomainVideoDriver.name": "qemu",
    "DomainHostdevSubsysPCIDriver.name": "vfio",
    "cpu.model_vendor_id": "GenuineIntel",
    "cpu_tune.shares": 1024,
    **{f"cpu_tune.{name}_period": 100000 for name in ("global", "emulator", "io_thread")},
    **{f"cpu_tune.{name}_quota": 50000 for name in ("global", "emulator", "io_thread")},
    "cpu_tune.period": 100000,
    "cpu_tune.quota": 50000,
    "maximum_memory": 1024,
    "os.loader_format": "raw",
    "devices.filesystems[0].binary.cache.mode": "always",
    "DomainDiskReservations.enabled": "yes",
    "DomainInterfaceIP.family": "ipv4",
    "DomainIP.family": "ipv4",
    "DomainInterfaceRoute.family": "ipv4",
    "DomainInterfaceRoute.netmask": "255.255.255.0",
    "os.nv_ram.format": "raw",
}


def _minimal(struct: str) -> Options:
    """The struct's required options (nested ones too) and its CONTEXT."""
    out: Options = {}
    for f in _fields(struct):
        if not f.get("required"):
            continue
        if f["kind"] in ("object", "inline"):
            out[f["name"]] = _minimal(f["struct"])
        elif f["kind"] == "list":
            out[f["name"]] = [_minimal(f["struct"])]
        else:
            out[f["name"]] = value_for(struct, f)
    for group in STRUCTS[struct].get("exactly_one_of", ()):
        out.setdefault(group[-1], value_for(struct, next(f for f in _fields(struct) if f["name"] == group[-1])))
    return t.cast("Options", _merge(out, copy.deepcopy(CONTEXT.get(struct, {}))))


def _merge(base: t.Any, over: t.Any) -> t.Any:
    """``over`` written over ``base``: dictionaries by key, the one item of lists item by item."""
    if isinstance(base, dict) and isinstance(over, dict):
        return {**base, **{k: _merge(base[k], v) if k in base else v for k, v in over.items()}}
    if isinstance(base, list) and isinstance(over, list) and len(base) == len(over) == 1:
        return [_merge(base[0], over[0])]
    return over


def _overlay(struct: str, base: Options, over: Options) -> Options:
    """``over`` merged over ``base``, without what in ``base`` cannot stand beside it."""
    fields = {f["name"]: f for f in _fields(struct)}
    for name in over:
        if name in fields:
            base = _without_rivals(struct, base, name)
    out = dict(base)
    for name, value in over.items():
        f = fields.get(name)
        sub = f.get("struct") if f is not None and not f.get("flat") else None
        if sub and isinstance(value, dict) and isinstance(out.get(name), dict):
            out[name] = _overlay(sub, out[name], value)
        elif sub and isinstance(value, list) and isinstance(out.get(name), list) and len(value) == len(out[name]) == 1:
            out[name] = [_overlay(sub, out[name][0], value[0])]
        else:
            out[name] = value
    return out


def _without_rivals(struct: str, options: Options, name: str) -> Options:
    """``options`` without what cannot stand beside option ``name``: another branch of the
    union, another option of an exactly-one-of group."""
    field = next(f for f in _fields(struct) if f["name"] == name)
    rivals: set[str] = set()
    if field["kind"] == "branch":
        rivals |= {f["name"] for f in _fields(struct) if f["kind"] == "branch"}
    if field.get("sets") or field["kind"] == "flag":  # a smartcard's mode: one of its options
        rivals |= {f["name"] for f in _fields(struct) if f.get("sets") or f["kind"] == "flag"}
    for group in (*STRUCTS[struct].get("exactly_one_of", ()), *STRUCTS[struct].get("at_most_one_of", ()), *RIVALS.get(struct, ())):
        if name in group:
            rivals |= set(group)
    return {k: v for k, v in options.items() if k == name or k not in rivals}


def _decided(struct: str, branch: Field) -> Options:
    """The options of ``struct`` that are the attributes ``branch`` writes, with its values."""
    attrs = branch["attr"] if isinstance(branch["attr"], list) else [branch["attr"]]
    raw = branch.get("value")
    values: list[t.Any] = raw if isinstance(raw, list) else [raw] * len(attrs)
    written = dict(zip(attrs, values))
    return {f["name"]: written[f["xml"]] for f in _fields(struct) if f["kind"] == "attr" and f["xml"] in written and written[f["xml"]] is not None}


def _companions(struct: str, field: Field) -> Options:
    """What an option of a value+unit element needs beside it: a size its unit (a size in
    bytes is rounded by libvirt), a unit or another attribute of the element its value."""
    fields = _fields(struct)
    size_unit = (field.get("rules") or {}).get("size")
    if size_unit:
        return {field["name"]: SIZE[0], size_unit: SIZE[1]}
    sized = next((f for f in fields if (f.get("rules") or {}).get("size") == field["name"]), None)
    if sized is not None:
        return {sized["name"]: SIZE[0], field["name"]: SIZE[1]}
    if field["kind"] == "unit_attr":
        value = next((f for f in fields if f["kind"] == "unit" and f["xml"] == field["xml"]), None)
        if value is not None:
            return {value["name"]: value_for(struct, value)}
    return {}


def options_for(path: str) -> Options:
    """A minimal valid domain's options that set ``path``."""
    chain = PATHS[path]

    def level(struct: str, depth: int, inherited: Options) -> Options:
        """The options of ``struct`` at ``depth`` of the chain: its minimal ones, what the
        levels above give it, and the path below (which replaces what it contradicts)."""
        f = chain[depth]
        out = _without_rivals(struct, _overlay(struct, _minimal(struct), inherited), f["name"])
        # The attributes a branch below writes on this element (a controller's type): its value.
        below = chain[depth + 1] if depth + 1 < len(chain) else None
        if f["kind"] == "branch" and f["where"] == "self":
            out.update(_decided(struct, f))
        elif below is not None and below["kind"] == "branch" and below["where"] == "parent":
            out.update(_decided(struct, below))
        if depth == len(chain) - 1:
            for name, companion in _companions(struct, f).items():
                out.setdefault(name, companion)
            out.update(COMPANIONS.get(f"{struct}.{f['name']}", {}))
            inherited_value = out.get(f["name"]) if f["kind"] not in ("object", "list", "branch", "inline") else None
            out[f["name"]] = VALUES.get(path, inherited_value if inherited_value is not None else VALUES.get(f"{struct}.{f['name']}", value_for(struct, f)))
            return out
        given = out.get(f["name"])
        given = given[0] if f["kind"] == "list" and given else given
        if f.get("flat") == "text" and isinstance(given, str):
            given = {f["text"]: given}
        value: t.Any = level(f["struct"], depth + 1, given if isinstance(given, dict) else {})
        if f.get("flat") == "text":
            value = value.get(f["text"], value)
        out[f["name"]] = [value] if f["kind"] == "list" else value
        return out

    prefix = max((p for p in DOMAIN_CONTEXT if path == p or path.startswith((p + ".", p + "_", p + "["))), key=len, default=None)
    return level(ROOT, 0, copy.deepcopy(DOMAIN_CONTEXT[prefix]) if prefix else {})


# --- defined and read back ------------------------------------------------------------------

_names = itertools.count()


def _params(options: Options) -> dict[str, t.Any]:
    """The module's parameters for ``options``, checked as run_resource_module checks them."""
    params: dict[str, t.Any] = dict.fromkeys(domain.DOMAIN_ARGSPEC)
    params.update(state="present", uri=URI)
    for key, value in options.items():
        params[key] = value
    params["name"] = f"unit-paths-{next(_names)}"
    schema.validate_params(ROOT, params, domain.DOMAIN_ARGSPEC, set())
    return params


def outcome(conn: t.Any, path: str) -> str | None:
    """None when ``path`` converges; else what stopped it (validation, libvirt, the compare)."""
    return converge(conn, options_for(path))


def converge(conn: t.Any, options: Options) -> str | None:
    """Define ``options`` as the module writes them, read the inactive definition back as it
    reads it: None when its compare reports no difference, else what stopped it."""
    try:
        params = _params(options)
        desired, root = domain._desired(params)
    except LibvirtValidationError as exc:
        return f"refused by validation: {exc}"
    xml = schema.serialize(root)
    try:
        dom = conn.defineXML(xml)
    except libvirt.libvirtError as exc:
        return f"refused by libvirt: {exc.get_error_message()}"
    try:
        stored = definition_xml(dom, libvirt.VIR_DOMAIN_XML_INACTIVE | libvirt.VIR_DOMAIN_XML_SECURE)
        differences, _current = domain._compare(desired, stored, domain._Normalizer(conn))
    finally:
        dom.undefine()
    if differences:
        return f"differs after define: {', '.join(differences)}"
    return None


# --- what cannot pass, and why --------------------------------------------------------------

NEWER = "libvirt 9.0 (the test host's) does not know it: the schema is libvirt 11.7's (it is not in 9.0's RNG schemas, or 9.0 refuses the value)"
DRIVER = "the test driver does not keep it"
LIVE = "libvirt keeps it only in the live definition of a running domain"
REFUSED = "libvirt refuses it in the context the schema allows"
HOST = "needs host hardware or host state"
REWRITTEN = "libvirt stores it rewritten"


class Known(t.NamedTuple):
    pattern: str  # a regular expression for a path or a prefix of paths; [0] is literal
    category: str
    why: str
    says: str  # a regular expression the outcome matches (libvirt's error, the paths that differ)


_DISK_SOURCES = r"(os.nv_ram|devices.disks[0]|devices.disks[0].backing_store)"
_CHARDEVS = r"(devices.(serials|parallels|channels|consoles|redir_devs)[0].source|devices.smartcards[0].passthrough|devices.rngs[0].backend.egd.source)"

EXCEPTIONS: list[Known] = [
    # Newer than the test host's libvirt: not in its RNG schemas; it drops the element or refuses the value.
    Known("hwuuid", NEWER, "<hwuuid> is dropped", r"^differs after define: hwuuid$"),
    Known("throttle_groups", NEWER, "<throttlegroups> is dropped", r"^differs after define: throttle_groups$"),
    Known("devices.disks[0].throttle_filters", NEWER, "<throttlefilters> is dropped", r"differs after define: devices.disks\[0\].throttle_filters$"),
    Known(
        "devices.audios[0].pipe_wire",
        NEWER,
        "audio type pipewire is refused",
        r"Invalid value for attribute 'type' in element 'audio': 'pipewire'",
    ),
    Known("launch_security.sevsnp", NEWER, "launchSecurity type sev-snp is refused", r"'launchSecurity': 'sev-snp'"),
    Known("launch_security.tdx", NEWER, "launchSecurity type tdx is refused", r"'launchSecurity': 'tdx'"),
    Known("devices.cryptos", NEWER, "<crypto> is dropped", r"^differs after define: devices.cryptos$"),
    Known("devices.pstore", NEWER, "<pstore> is dropped", r"^differs after define: devices.pstore$"),
    Known("cpu.deprecated_features", NEWER, "cpu/@deprecated_features is dropped", r"^differs after define: cpu.deprecated_features$"),
    Known("cpu.topology.clusters", NEWER, "topology/@clusters is dropped", r"^differs after define: cpu.topology.clusters$"),
    Known("io_thread_ids.io_threads[0].poll", NEWER, "iothread <poll> is dropped", r"^differs after define: io_thread_ids.io_threads\[0\].poll$"),
    Known(
        "devices.(controllers|disks)[0].driver.io_threads",
        NEWER,
        "driver <iothreads> mapping is dropped",
        r"^differs after define: devices.(controllers|disks)\[0\](.driver)?$",
    ),
    Known(
        "devices.disks[0].driver.discard_no_unref",
        NEWER,
        "driver/@discard_no_unref is dropped",
        r"^differs after define: devices.disks\[0\].driver$",
    ),
    Known(
        "devices.disks[0].block_io.discard_granularity",
        NEWER,
        "blockio/@discard_granularity is dropped",
        r"^differs after define: devices.disks\[0\].block_io$",
    ),
    Known(_DISK_SOURCES + ".source.data_store", NEWER, "<dataStore> is dropped", r"data_store$"),
    Known(_DISK_SOURCES + ".source.network.known_hosts", NEWER, "<knownHosts> is dropped", r"known_hosts$"),
    Known("features.(async_teardown|ras|ps2|aia)", NEWER, "the feature is refused", r"unexpected feature '(async-teardown|ras|ps2|aia)'"),
    Known("features.hyper_v.(emsr_bitmap|xmm_input)", NEWER, "the Hyper-V enlightenment is refused", r"unsupported HyperV Enlightenment feature"),
    Known(
        "features.hyper_v.tlb_flush.(direct|extended)",
        NEWER,
        "tlbflush <direct>/<extended> are dropped",
        r"differs after define: features.hyper_v.tlb_flush.(direct|extended)$",
    ),
    Known("devices.filesystems[0].binary.open_files", NEWER, "virtiofs <openfiles> is dropped", r"devices.filesystems\[0\].binary$"),
    Known(
        "devices.iommu.driver.(dma_translation|passthrough|xt_sup)",
        NEWER,
        "the iommu driver option is dropped",
        r"^differs after define: devices.iommu.driver$",
    ),
    Known("devices.memorydevs[0].target.dynamic_memslots", NEWER, "target/@dynamicMemslots is dropped", r"dynamic_memslots$"),
    Known("os.nv_ram.template_format", NEWER, "nvram/@templateFormat is dropped", r"^differs after define: os.nv_ram(.template_format)?$"),
    Known("os.shim", NEWER, "<shim> is dropped", r"^differs after define: os.shim$"),
    Known(
        "devices.sounds[0].(multi_channel|streams)",
        NEWER,
        "the sound attribute is dropped",
        r"^differs after define: devices.sounds\[0\].(multi_channel|streams)$",
    ),
    Known(
        "devices.tpms[0].backend.emulator.(debug|profile)",
        NEWER,
        "the swtpm option is dropped",
        r"^differs after define: devices.tpms\[0\].backend.emulator.(debug|profile)$",
    ),
    Known("devices.videos[0].model.(blob|edid)", NEWER, "the video model attribute is dropped", r"^differs after define: devices.videos\[0\]$"),
    Known(
        "sys_info[0].smbios.(processor|memory)",
        NEWER,
        "SMBIOS type 4 and 17 entries are dropped",
        r"^differs after define: sys_info\[0\].smbios.(processor|memory)$",
    ),
    Known(
        "devices.disks[0].source.vhost_vdpa|devices.disks[0].backing_store.source.vhost_vdpa|os.nv_ram.source.vhost_vdpa",
        NEWER,
        "a vhost-vdpa disk source is refused",
        r"vhostvdpa",
    ),
    Known("devices.controllers[0].nvme", NEWER, "an nvme controller is refused", r"'controller': 'nvme'"),
    Known("devices.interfaces[0].backend.type", NEWER, "backend type passt is refused by its parser", r"'backend': 'passt'"),
    Known(
        "os.firmware_info",
        REFUSED,
        "firmware features outside firmware autoselection (os/@firmware) are dropped",
        r"^differs after define: os.firmware_info$",
    ),
    Known(
        "os.loader_format|os.nv_ram.format",
        NEWER,
        "loader/@format and nvram/@format are dropped",
        r"^differs after define: os.(loader_format|nv_ram)$",
    ),
    Known(
        "(os.nv_ram|devices.disks[0].backing_store|devices.disks[0]).source.(reservations.)?.*sec_label[0].label_skip",
        NEWER,
        "seclabel/@labelskip is what libvirt writes itself for a label it skipped: it drops a given one",
        r"label_skip$",
    ),
    Known(
        "devices.(serials|parallels|channels|consoles)[0].source.(dev|file|pipe|unix).sec_label[0].label_skip",
        NEWER,
        "seclabel/@labelskip given is dropped",
        r"label_skip$|^differs after define: devices.consoles\[0\]$",
    ),
    # What the test driver does not keep (a driver of a hypervisor or a security driver would).
    Known("lxc_namespace", DRIVER, "the test driver keeps no lxc: namespace element", r"^differs after define: lxc_namespace$"),
    Known(
        "(qemu_commandline|qemu_capabilities|qemu_override|qemu_deprecation)",
        DRIVER,
        "the test driver keeps no qemu: namespace element",
        r"^differs after define: qemu_",
    ),
    Known(
        "(bhyve_commandline|xen_commandline|vmware_data_center_path)",
        DRIVER,
        "the test driver keeps no bhyve:, xen: or vmware: namespace element",
        r"^differs after define: (bhyve_commandline|xen_commandline|vmware_data_center_path)$",
    ),
    Known(
        "devices.graphics[0].rdp.(username|passwd)",
        DRIVER,
        "the test driver drops rdp credentials (a hypervisor driver keeps them)",
        r"^differs after define: devices.graphics\[0\].rdp.(username|passwd)$",
    ),
    # Kept only in the live definition.
    Known("devices.disks[0].mirror", LIVE, "a block job's <mirror> is dropped from a definition", r"^differs after define: devices.disks\[0\].mirror$"),
    Known(
        "devices.consoles[0].target.port",
        REWRITTEN,
        "libvirt numbers the first virtio console port 0 (consoles are compared item by item: the item differs)",
        r"^differs after define: devices.consoles\[0\]$",
    ),
    Known("devices.consoles[0].tty", LIVE, "console/@tty is the running console's", r"^differs after define: devices.consoles\[0\]$"),
    Known(
        "(devices.smartcards[0].passthrough|devices.redir_devs[0].source|devices.rngs[0].backend.egd.source|devices.interfaces[0].source.vhost_user.chardev"
        "|devices.tpms[0].backend.external.source).[a-z_]+.sec_label",
        REFUSED,
        "libvirt keeps a chardev's <seclabel> for the sources of serials, parallels, channels and consoles only",
        r"sec_label$",
    ),
    Known(
        "devices.(serials|parallels|channels|consoles)[0].source.pty.sec_label",
        REFUSED,
        "a pty's <seclabel> is dropped (the pty is made at start)",
        r"sec_label$|^differs after define: devices.consoles\[0\]$",
    ),
    Known(
        "(os.nv_ram|devices.disks[0](.backing_store)?).source.network.hosts[0].socket|devices.hostdevs[0].subsys_scsi.source.iscsi.host[0].socket",
        REFUSED,
        "a host's socket needs transport unix and no name",
        r"does not support socket attribute",
    ),
    Known(_CHARDEVS + ".pty.path", LIVE, "a pty's path is the running domain's", r"pty.path$|^differs after define: devices.consoles\[0\]$"),
    Known("devices.graphics[0].(vnc|spice).connected", LIVE, "graphics/@connected is a running domain's", r"connected$"),
    Known("devices.graphics[0].(vnc|spice).passwd_valid_to", LIVE, "graphics/@passwdValidTo is dropped from a definition", r"passwd_valid_to$"),
    Known("devices.graphics[0].(vnc|rdp|spice).listeners[0].network.address", LIVE, "a network listen's address is the running domain's", r"network.address$"),
    Known(
        "devices.(disks|interfaces|hostdevs|redir_devs|filesystems)[0].boot.load_parm",
        REFUSED,
        "boot/@loadparm is for s390 (ccw) devices: dropped",
        r"boot.load_parm$",
    ),
    # libvirt refuses (or drops) the option where the schema allows it: it belongs to another parent or context.
    Known(
        _DISK_SOURCES + ".source.vhost_user.(?!unix)[a-z_]+",
        REFUSED,
        "a vhost-user disk source is a unix socket only",
        r"invalid 'type' attribute for vhostuser disk source",
    ),
    Known(
        _DISK_SOURCES + ".source.reservations.source.(?!unix)[a-z_]+",
        REFUSED,
        "the reservations source is a unix socket only",
        r"(missing path|missing connection mode) for <reservations/>",
    ),
    Known(
        "devices.tpms[0].backend.external.source.(?!unix)[a-z_]+",
        REFUSED,
        "an external TPM's source is a unix socket only",
        r"only source type 'unix' is supported for external TPM device",
    ),
    Known(
        "devices.interfaces[0].source.vhost_user.chardev.(?!unix)[a-z_]+",
        REFUSED,
        "a vhost-user interface's chardev is a unix socket only",
        r"unsupported for <interface type='vhostuser'>|a vhost-user source holds one <source>",
    ),
    Known(
        r"devices\.[a-z_]+(\[0\])?\.address",
        REFUSED,
        "the schema's address has no options (libvirtxml's is a union of types): libvirt refuses an <address/> without a type",
        r"No type specified for device address",
    ),
    Known(
        "devices.(serials|parallels|consoles)[0].source.spice_vmc",
        REFUSED,
        "a spicevmc chardev is a virtio channel only",
        r"spicevmc device type only supports virtio",
    ),
    Known(
        "devices.(serials|parallels|channels|consoles|redir_devs|smartcards)[0].protocol",
        REFUSED,
        "protocol/@type (raw, telnet...) is for a tcp chardev: dropped for others",
        r"protocol$|^differs after define: devices.consoles\[0\]$",
    ),
    Known("devices.rngs[0].backend.egd.protocol", REFUSED, "an EGD backend's protocol needs its tcp source", r"missing EGD backend type"),
    Known("devices.interfaces[0].source.(server|client|mcast).local", REFUSED, "<local> is for a udp interface: dropped for these", r"local$"),
    Known(
        "devices.(videos|sounds)[0].driver.(iommu|ats|packed|page_per_vq)",
        REFUSED,
        "virtio driver options on a device model that is not virtio",
        r"only supported for virtio devices|^differs after define: devices.sounds\[0\].driver$",
    ),
    Known("devices.videos[0].model.(ram|vram64|vga_mem)", REFUSED, "the attribute is for a qxl video", r"only supported for video type qxl"),
    Known("devices.videos[0].model.accel.render_node", REFUSED, "a render node is for a vhost-user video", r"rendernode accel attribute without 'vhostuser'"),
    Known(
        "devices.videos[0].driver.vga_conf",
        REFUSED,
        "driver/@vgaconf is for a bochs/vga video under xen: dropped",
        r"^differs after define: devices.videos\[0\]$",
    ),
    Known(
        "devices.filesystems[0].(id_map|driver.(format|name|wr_policy)|fmode|dmode|source.mount.socket)",
        REFUSED,
        "an option of another filesystem driver or source (9p's fmode and dmode, a loop or nbd driver's format, name and wrpolicy, a vhost-user"
        " virtiofs socket; id_map is virtiofs' and the test driver drops it there too): dropped",
        r"^differs after define: devices.filesystems\[0\]",
    ),
    Known(
        "devices.filesystems[0].driver.type",
        REFUSED,
        "filesystem driver types are path, handle, loop, nbd, ploop, virtiofs (the RNG's first word, raw, is another driver's)",
        r"'driver': 'raw'",
    ),
    Known("devices.disks[0].(raw_io|sgio)", REFUSED, "rawio and sgio are for a lun disk", r"can be used only with device='lun'"),
    Known("devices.disks[0].target.tray", REFUSED, "a tray is a cdrom's or floppy's", r"tray is only valid for cdrom and floppy"),
    Known("devices.disks[0].target.removable", REFUSED, "removable is a usb disk's", r"removable is only valid for usb disks"),
    Known("devices.disks[0].source.file.fd_group", REFUSED, "fdgroup needs FDs passed to the qemu driver", r"driver does not support FD passing"),
    Known(
        "devices.disks[0].backing_store.source.network.auth",
        REFUSED,
        "the backing store's network source is nbd: no authentication",
        r"authentication is not supported for protocol 'nbd'",
    ),
    Known(
        "devices.disks[0].source.network.(identity|reconnect|hosts[0].transport)"
        "|(os.nv_ram|devices.disks[0].backing_store).source."
        "(network.(identity|query|reconnect|hosts[0].transport)|cookies|ssl|readahead|timeout|startup_policy)",
        REFUSED,
        "a network disk source's option for another protocol (ssh, http(s), nbd over unix, iscsi) or a removable source's: dropped for this one, or refused",
        r"^differs after define: .*source(.network)?.(identity|query|reconnect|hosts\[0\].transport|cookies|ssl|readahead|timeout|startup_policy)|"
        r"authentication is not supported for protocol 'nbd'",
    ),
    Known(_DISK_SOURCES + ".source.vhost_user.unix.mode", REFUSED, "a vhost-user disk's socket mode is client only: dropped", r"vhost_user.unix.mode$"),
    Known(
        _DISK_SOURCES + ".source.nvme",
        REFUSED,
        "the schema's nvme source has no options: libvirt refuses it without its type and address",
        r"missing 'type' attribute to disk source",
    ),
    Known(
        _DISK_SOURCES + ".source.reservations.source.unix.(sec_label|reconnect)",
        REFUSED,
        "the reservations socket takes neither a seclabel nor reconnect: dropped",
        r"reservations.source.unix.(sec_label|reconnect)$",
    ),
    Known("devices.controllers[0].model", REFUSED, "the RNG's first model is another controller type's", r"Unknown model type 'auto'"),
    Known("devices.controllers[0].driver.io_thread", REFUSED, "an iothread is a virtio-scsi controller's", r"only supported for virtio scsi controllers"),
    Known("devices.controllers[0].usb.master", REFUSED, "a companion USB controller needs its master", r"No master USB controller specified"),
    Known(
        r"devices.controllers[0].pci.hole64\w*",
        REFUSED,
        "a pci-root's option for another PCI controller model: dropped",
        r"^differs after define: devices.controllers\[0\]$",
    ),
    Known(
        "devices.interfaces[0].(managed|source.user.dev|source.vhost_user.dev|source.network.(bridge|port_id)|driver.queues)",
        REFUSED,
        "the option of another interface type or of a running one: dropped",
        r"^differs after define: devices.interfaces\[0\]",
    ),
    Known(
        "devices.interfaces[0].source.direct.mode",
        REFUSED,
        "a direct interface's source needs its dev",
        r"Missing required attribute 'dev' in element 'source'",
    ),
    Known(
        "devices.interfaces[0].source.hostdev.usb.(guest_reset|start_up_policy|product|vendor|address.port)",
        REFUSED,
        "a hostdev interface is PCI only",
        r"Missing required attribute '(bus|device)' in element 'address'|usb.address.port$",
    ),
    Known(
        "devices.interfaces[0].source.hostdev.pci.address.(zpci|multi_function)|devices.hostdevs[0].subsys_pci.source.address.(zpci|multi_function)",
        REFUSED,
        "zpci and multifunction are for s390 and for the guest address: dropped",
        r"address.(zpci|multi_function)$",
    ),
    Known("devices.interfaces[0].vlan.trunk", REFUSED, "a trunk needs its tags", r"missing tag id"),
    Known(
        "devices.interfaces[0].teaming.persistent",
        REFUSED,
        "persistent names the transient device of a persistent team",
        r"teaming persistent attribute not allowed",
    ),
    Known("devices.interfaces[0].link.state", REFUSED, "link states are up and down (the RNG's first is another element's)", r"unknown interface link state"),
    Known("devices.interfaces[0].bandwidth.outbound.floor", REFUSED, "a floor is inbound only", r"'floor' attribute allowed only in <inbound> element"),
    Known("devices.smartcards[0].host_certs", REFUSED, "host-certificates mode takes exactly three", r"needs exactly three certificates"),
    Known("devices.smartcards[0].database", REFUSED, "a database is for host-certificates mode", r"^differs after define: devices.smartcards\[0\].database$"),
    Known(
        "devices.serials[0].target.(type|model)|devices.parallels[0].target.type",
        REFUSED,
        "a target type or model of another chardev",
        r"unknown target (type|model)|^differs after define: devices.parallels\[0\].target.type$",
    ),
    Known("devices.channels[0].target.(virt_io|xen).state", LIVE, "a channel's state is the running agent's", r"state$"),
    Known(
        "devices.channels[0].target.guest_fwd",
        REFUSED,
        "a guestfwd target needs an address and a port",
        r"Cannot parse socket address|does not define a target address",
    ),
    Known(
        "devices.inputs[0].(bus|model)",
        REFUSED,
        "the bus or model of another input type",
        r"does not support tablet input device|only bus 'virtio' is supported",
    ),
    Known("devices.graphics[0].rdp.listeners[0].socket", REFUSED, "rdp does not listen on a socket", r"listen type 'socket' is not available"),
    Known(
        "devices.graphics[0].spice.(listen|default_mode|listeners[0].address)|devices.graphics[0].spice.channel",
        REFUSED,
        "a spice option the test driver's graphics drop (listen addresses become <listen> children)",
        r"^differs after define: devices.graphics\[0\].spice",
    ),
    Known("devices.(graphics|sounds)[0].audio", REFUSED, "a graphics' audio names an <audio> device", r"no audio device with ID"),
    Known("devices.graphics[0].dbus.gl.render_node", REFUSED, "gl needs enable", r"Missing required attribute 'enable' in element 'gl'"),
    Known("devices.sounds[0].codec", REFUSED, "codecs are an ich6/ich9 sound's", r"codec$"),
    Known(
        "devices.hostdevs[0].subsys_usb.source.address.port|devices.hostdevs[0].subsys_scsi.source.(host.address.controller|iscsi.host[0].transport)",
        REFUSED,
        "an address part or transport libvirt does not keep for this source",
        r"(address.port|address.controller|host\[0\].transport)$",
    ),
    Known(
        "devices.hostdevs[0].subsys_pci.(display|ram_fb|driver.model|teaming)",
        REFUSED,
        "an mdev's display options, or a driver/teaming for another setup",
        r"subsys_pci.(display|ram_fb|driver)$|teaming hostdev devices must have type='transient'",
    ),
    Known(
        "devices.hostdevs[0].caps_net.(ip|route)",
        REFUSED,
        "a capabilities net hostdev needs its source interface",
        r"Missing <source> element in hostdev device",
    ),
    Known("devices.redir_filters[0].usb[0].version", REFUSED, "a version is a number like 2.0", r"Cannot parse USB device version"),
    Known(
        "devices.shmems[0].(msi|role|model.type)",
        REFUSED,
        "msi and role are an ivshmem-doorbell server's; models are ivshmem*",
        r"msi option is only supported with a server|role$|'model': 'vga'",
    ),
    Known(
        r"devices.memorydevs[0].(uuid|source.(path|align_size\w*|pmem)|target.(label|block\w*|requested\w*|read_only|address))",
        REFUSED,
        "an nvdimm's or virtio-mem's option on a dimm: dropped",
        r"^differs after define: devices.memorydevs\[0\]",
    ),
    Known("devices.iommu.driver.(int_remap|eim)", REFUSED, "interrupt remapping needs a split I/O APIC", r"interrupt remapping"),
    Known("devices.vsock.cid.address", REFUSED, "guest CIDs start at 3", r"guest CIDs must be >= 3"),
    Known(
        _DISK_SOURCES + ".source.index|devices.disks[0].backing_store.index",
        LIVE,
        "a source's index names it in a running domain's block jobs: dropped from a definition",
        r"index$|backing_store.index, ",
    ),
    Known("sec_labels[0].image_label", LIVE, "<imagelabel> is the running domain's", r"image_label$"),
    Known(
        "devices.tpms[0].backend.(emulator.source|external.source.unix.reconnect)",
        REFUSED,
        "swtpm's state source and an external TPM's reconnect: dropped",
        r"(emulator.source|reconnect)$",
    ),
    Known(
        "os.(init|init_args|init_dir|init_user|init_group|init_env)|bootloader_args",
        REFUSED,
        "an init (container) or bootloader (xen) option on an hvm domain: dropped",
        r"^differs after define: (os.init\w*|bootloader_args)$",
    ),
    Known("os.boot_menu.timeout", REFUSED, "a boot menu timeout needs enable='yes'", r"os.boot_menu$"),
    Known("features.hyper_v.stimer.direct", REFUSED, "stimer needs its own state", r"Missing required attribute 'state' in element 'stimer'"),
    Known("features.xen.passthrough.mode", REFUSED, "modes are sync_pt and share_pt", r"'passthrough': 'unit'"),
    Known("cpu.migratable", REFUSED, "migratable is for host-passthrough and maximum", r"Attribute migratable is only allowed"),
    Known("cpu.max_phys_addr.limit", REFUSED, "a limit is for mode passthrough", r"cpu.max_phys_addr.limit$"),
    Known("cpu.features[0].policy", REFUSED, "a feature needs its name", r"Invalid CPU feature name"),
    Known("cpu.numa.cell[0].distances", REFUSED, "a distance names another cell: one cell here", r"is not a cell"),
    Known("cpu.numa.interconnects.(latencies|bandwidths)[0].cache", REFUSED, "a cache names a cell's cache", r"non-existent NUMA node cache"),
    Known(
        "clock.(basis|time_zone|start)",
        REFUSED,
        "basis, timezone and start are for offset variable or timezone: dropped with offset utc",
        r"^differs after define: clock.(basis|time_zone|start)$",
    ),
    Known("clock.timer[0].(frequency|mode)", REFUSED, "frequency and mode are a tsc timer's", r"doesn't support setting of timer"),
    Known(
        "cpu_tune.(cache_tunes[0].(vcpus|id)|memory_tunes[0].(vcpus|monitors[0].level))",
        HOST,
        "cache and memory tuning need the host's resctrl: the test driver drops them",
        r"^differs after define: cpu_tune$|Missing monitor attribute",
    ),
    Known("memory_backing.memory_huge_pages.hugepages[0].nodeset", HOST, "a hugepage nodeset names host NUMA nodes the test driver does not keep", r"nodeset$"),
    Known("block_io_tune.device[0].path", REFUSED, "a blkiotune device without a tuning value is dropped", r"^differs after define: block_io_tune$"),
    Known(
        "sys_info[0].smbios.(bios|system|base_board[0]|chassis).entry[0].file",
        REFUSED,
        "an SMBIOS entry holds its value, not a file (fw_cfg entries take files)",
        r"^differs after define: sys_info\[0\].smbios",
    ),
]


@functools.cache
def _pattern(pattern: str) -> re.Pattern[str]:
    """A path pattern as a regular expression: a literal ``[0]`` is a list's item."""
    return re.compile("(?:" + pattern.replace("[0]", r"\[0\]") + r")(?:[.\[].*)?")


def exceptions_for(path: str) -> list[Known]:
    """The entries of EXCEPTIONS for ``path`` (one of them says why it fails)."""
    return [entry for entry in EXCEPTIONS if _pattern(entry.pattern).fullmatch(path)]


# --- the tests ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def conn() -> t.Iterator[t.Any]:
    connection = libvirt.open(URI)
    yield connection
    connection.close()


def _group(path: str) -> str:
    """The test a path runs in: its element (a device kind, a part of a disk, a top-level
    option). One test per path would be 2,500 tests, and ansible-test runs each in a fork of
    its own, which costs far more than the path itself."""
    parts = path.replace("[0]", "").split(".")
    depth = 3 if parts[:2] == ["devices", "disks"] and len(parts) > 2 else 2 if parts[0] == "devices" else 1
    return ".".join(parts[:depth])


GROUPS: dict[str, list[str]] = {}
for _path in PATHS:
    GROUPS.setdefault(_group(_path), []).append(_path)


def failure(conn: t.Any, path: str) -> str | None:
    """What is wrong with ``path``: it fails and is no exception, it passes and is one, or it
    fails otherwise than its exception says."""
    got = outcome(conn, path)
    listed = exceptions_for(path)
    if not listed:
        return None if got is None else f"{path}: {got}"
    if got is None:
        return f"{path} passes now: take it out of EXCEPTIONS ({', '.join(entry.pattern for entry in listed)})"
    if not any(re.search(entry.says, got) for entry in listed):
        return f"{path}: {got}; EXCEPTIONS says {[entry.says for entry in listed]}"
    return None


@pytest.mark.parametrize("group", list(GROUPS))
def test_each_path_defines_and_converges(conn: t.Any, group: str) -> None:
    failures = [message for message in (failure(conn, path) for path in GROUPS[group]) if message]
    assert not failures, "\n".join(failures)


def test_each_exception_names_paths() -> None:
    for entry in EXCEPTIONS:
        assert any(_pattern(entry.pattern).fullmatch(path) for path in PATHS), entry.pattern
    assert len({entry.pattern for entry in EXCEPTIONS}) == len(EXCEPTIONS)


def test_the_paths_reach_every_struct_of_the_domain() -> None:
    reached = {ROOT} | {f["struct"] for chain in PATHS.values() for f in chain if f.get("struct")}
    reachable = {ROOT}
    queue = [ROOT]
    while queue:
        for f in _fields(queue.pop()):
            if f.get("struct") and f["struct"] not in reachable:
                reachable.add(f["struct"])
                queue.append(f["struct"])
    assert reached == reachable
    assert all(path_of(chain) == path for path, chain in PATHS.items())


_BASE = CONTEXT[ROOT]


def test_misspelt_libvirtxml_elements_are_written_as_libvirt_reads_them(conn: t.Any) -> None:
    """libvirtxml spells launchSecurity's <session> as <sesion> and <dac_read_search> as
    <dac_read_Search>: libvirt ignored those, so the options were never stored and every run
    reported a change."""
    options = {
        **_BASE,
        "launch_security": {"sev": {"policy": 3, "cbit_pos": 47, "reduced_phys_bits": 1, "dh_cert": "Y2VydA==", "session": "c2Vzc2lvbg=="}},
        "features": {"capabilities": {"dac_read_search": {"state": "on"}}},
    }
    xml = schema.serialize(schema.build(ROOT, {**options, "name": "unit-paths-spelling"}))
    assert "<session>c2Vzc2lvbg==</session>" in xml
    assert '<dac_read_search state="on"/>' in xml
    assert converge(conn, options) is None


def test_an_nvram_given_by_its_source_alone_converges(conn: t.Any) -> None:
    """With a <source>, libvirt writes no path as <nvram>'s text: the text is not required."""
    nvram = {"source": {"file": {"file": "/var/lib/libvirt/qemu/nvram/unit_VARS.fd"}}}
    options = _merge(_BASE, {"os": {"loader": "/usr/share/OVMF/OVMF_CODE.fd", "loader_type": "pflash", "nv_ram": nvram}})
    assert converge(conn, options) is None


def test_a_metadata_cache_size_in_another_unit_converges(conn: t.Any) -> None:
    """libvirt stores a disk's metadata_cache max_size in bytes: 1 KiB reads back as 1024 bytes,
    the same size."""
    disk = copy.deepcopy(CONTEXT["DomainDisk"])
    disk["driver"] = {"metadata_cache": {"max_size": {"value": 1, "unit": "KiB"}}}
    assert converge(conn, {**_BASE, "devices": {"disks": [disk]}}) is None
    asked = {"devices": {"disks": [{"driver": {"metadata_cache": {"max_size": {"value": 2, "unit": "KiB"}}}}]}}
    stored = {"devices": {"disks": [{"driver": {"metadata_cache": {"max_size": {"value": 1024, "unit": "bytes"}}}}]}}
    assert schema.compare(ROOT, asked, stored) == ["devices.disks[0].driver.metadata_cache.max_size.value"]
