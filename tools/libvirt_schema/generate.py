# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Generate the libvirt option schema from the libvirtxml facts (extract.py), applying
terraform-provider-libvirt 0.9's naming and mapping rules (internal/codegen):

- option names are upstream's SnakeCase of the Go field names (a fixed acronym list);
- a struct with chardata and only attributes is flattened into `<name>` plus
  `<name>_<snake(attr)>` options ("value+unit");
- a struct without fields is a presence boolean, and so (beyond upstream) is `*struct{}`;
- string fields named ReadOnly/Readonly/AutoPort/Autoport/Managed/Migratable are yes/no booleans,
  and so (beyond upstream) is every attribute libvirt's RNG schemas spell yes/no or on/off
  (rng-attributes.json, read from the schemas by rng_attributes.py), and a string the schemas
  allow only a choice of values for takes those as its choices;
- fields tagged xml:"-" are union branches, selected by the discriminator attribute that
  libvirtxml's UnmarshalXML reads;
- pointers, slices and omitempty are optional, everything else is required inside its
  object; top-level uuid/id/key are computed, top-level name (and type, but for volumes)
  required; pool capacity/allocation/available and volume allocation/physical computed.

Where upstream's names do not read as English (sr_vs, io_thread_i_ds...), the option gets
a plain name and upstream's name becomes its alias (RENAMES).

    python tools/libvirt_schema/generate.py [--check]
writes plugins/module_utils/_libvirt/schema_generated.py and the matching documentation,
plugins/doc_fragments/libvirt_schema.py (--check: fail if either differs).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import re
import sys

import yaml  # PyYAML comes with ansible-core

HERE = pathlib.Path(__file__).resolve().parent
FACTS = HERE / "libvirtxml-facts.json"
RNG_ATTRIBUTES = HERE / "rng-attributes.json"  # rng_attributes.py: what libvirt's RNG schemas allow as values
OUTPUT = HERE.parent.parent / "plugins" / "module_utils" / "_libvirt" / "schema_generated.py"
DOC_OUTPUT = HERE.parent.parent / "plugins" / "doc_fragments" / "libvirt_schema.py"
DOMAIN_OPTIONS = HERE / "domain-options.yml"  # the domain options documented in prose in the module
REFERENCE_OUTPUT = HERE.parent.parent / "docs" / "docsite" / "rst" / "libvirt_domain_options.rst"
REFERENCE_LABEL = "ansible_collections.devinfra.providers.docsite.libvirt_domain_options"
LIBVIRT_DOMAIN_DOCS = "https://libvirt.org/formatdomain.html"
LINE_LENGTH = 160  # ruff's and ansible-test pep8's

ROOTS = {"domain": "Domain", "network": "Network", "storage_pool": "StoragePool", "storage_volume": "StorageVolume"}

ACRONYMS = {
    "IPs": "ips", "IPv6": "ipv6", "IPv4": "ipv4", "DNS": "dns", "DHCP": "dhcp", "MAC": "mac",
    "UUID": "uuid", "XML": "xml", "HTTP": "http", "HTTPS": "https", "API": "api", "URI": "uri",
    "URL": "url", "VLAN": "vlan", "MTU": "mtu", "TFTP": "tftp", "NFS": "nfs", "SCSI": "scsi",
    "SATA": "sata", "IDE": "ide", "USB": "usb", "PCI": "pci", "VNC": "vnc", "RDP": "rdp",
    "VGA": "vga", "CPU": "cpu", "VCPU": "vcpu", "RAM": "ram", "ROM": "rom", "BIOS": "bios",
    "UEFI": "uefi", "TPM": "tpm", "RNG": "rng", "WWN": "wwn", "QEMU": "qemu", "LXC": "lxc",
    "BHyve": "bhyve", "VMWare": "vmware",
}  # fmt: skip
# String fields that are booleans, by how libvirt spells them (its RNG schemas: virYesNo, virOnOff):
# upstream's list of names; every other attribute the RNG schemas spell so is found by
# rng_values() from rng-attributes.json.
YES_NO_FIELDS = {"readonly", "ReadOnly", "Readonly", "autoport", "AutoPort", "Autoport", "managed", "Managed", "Secure", "Stateless"}
ON_OFF_FIELDS = {"migratable", "Migratable"}
SWITCH_WORDS = {"yesno": ("yes", "no"), "onoff": ("on", "off")}
# Plain-English option names for upstream names that split oddly; upstream's stays an alias.
RENAMES = {"sr_vs": "srvs", "tx_ts": "txts", "io_thread_i_ds": "io_thread_ids", "try_m_map": "try_mmap"}
# Values the contract restricts (SPEC §5).
CHOICES = {
    ("Network", "ipv6"): ["yes", "no"],
    ("Network", "trust_guest_rx_filters"): ["yes", "no"],
    ("Domain", "on_crash"): ["destroy", "restart", "preserve", "coredump-destroy", "coredump-restart", "rename-restart", "ignore", "pause"],
    ("Domain", "on_poweroff"): ["destroy", "restart", "preserve", "rename-restart"],
    ("Domain", "on_reboot"): ["destroy", "restart", "preserve", "rename-restart", "ignore", "pause"],
}
# Fields upstream makes required (a string without omitempty) that libvirt fills in itself
# (a pty's path is assigned when the domain starts), or that another field replaces (a fw_cfg
# entry's value, by its file).
NOT_REQUIRED = {("DomainChardevSourcePty", "path"), ("DomainSysInfoEntry", "value"), ("DomainNVRam", "nv_ram")}
# libvirtxml's misspelt tags (Go struct, field) -> libvirt's element (its RNG schemas'): libvirt
# ignores the misspelt element, so the option was never stored.
XML_SPELLING = {("DomainLaunchSecuritySEV", "Session"): "session", ("DomainFeatureCapabilities", "DACReadSearch"): "dac_read_search"}
# Values that are secrets: no_log options, masked in results and diffs.
SECRETS = {("DomainGraphicVNC", "passwd"), ("DomainGraphicSpice", "passwd"), ("DomainGraphicRDP", "passwd")}
# Text that may span lines; every other string is one line, refused with a control character
# in it (libvirt copies some, a DNS TXT record or host name, unescaped into dnsmasq's config).
MULTILINE = {("Domain", "Description")}
# The provider interface this collection implements names some fields otherwise (its names
# come from a bridge that pluralises lists). Where its name reads as plain English it is the
# option and upstream's the alias (INTERFACE_NAMES); where upstream's does, the interface's
# is the alias (INTERFACE_ALIASES). Keyed by struct and upstream's option name.
INTERFACE_NAMES = {
    ("Domain", "sec_label"): "sec_labels",
    ("DomainCPUTune", "vcpu_pin"): "vcpu_pins",
    ("DomainCPUTune", "io_thread_pin"): "io_thread_pins",
    ("DomainCPUTune", "vcpu_sched"): "vcpu_scheds",
    ("DomainCPUTune", "io_thread_sched"): "io_thread_scheds",
    ("DomainCPUTune", "cache_tune"): "cache_tunes",
    ("DomainCPUTune", "memory_tune"): "memory_tunes",
    ("DomainCPUCacheTune", "cache"): "caches",
    ("DomainCPUCacheTune", "monitor"): "monitors",
    ("DomainCPUMemoryTune", "monitor"): "monitors",
    ("DomainDeviceList", "crypto"): "cryptos",
}
INTERFACE_ALIASES = {("DomainOS", "cmdline"): "kernel_args", ("Domain", "sys_info"): "sys_infos"}
# Lists whose items may be given as one string, the value of the named option of the item:
# the interface gives os.bootDevices as strings, upstream as objects with dev.
SHORTHANDS = {("DomainOS", "BootDevices"): "dev"}
# A `type` option beside a union whose branch says the type (upstream's own examples write
# `type = "network"` on interfaces): accepted when it agrees with the branch given, and when
# given alone it selects its branch. Keyed by struct: the option whose struct holds the
# branches (None: the struct itself).
SELECTORS = {"DomainInterface": "source", "DomainGraphic": None}
# Options of which exactly one must be given (libvirt's RNG: a fw_cfg entry has a file or a value).
EXACTLY_ONE_OF = {"DomainSysInfoEntry": [["file", "value"]]}
# Groups of options of which at most one may be given: libvirt refuses an IP with both.
AT_MOST_ONE_OF = {"NetworkIP": [["prefix", "netmask"]]}
COMPUTED = {
    ("StoragePool", "capacity"), ("StoragePool", "allocation"), ("StoragePool", "available"),
    ("StorageVolume", "allocation"), ("StorageVolume", "physical"),
    # the file's times, read from the file on every read: outputs only
    ("StorageVolumeTarget", "timestamps"),
}  # fmt: skip
# How libvirt stores an option when that is not how it was given, so that a second run
# compares equal (schema.py's ``rules`` of an entry, by struct and option name):
# - size: a size whose unit is the named sibling option (KiB when not given), compared in bytes;
#   a value+unit pair of a domain gets it by itself (_derived_rules);
# - text: one spelling of a text libvirt rewrites: xml (an XML fragment: quotes, indentation,
#   attribute order, prefixes), octal (a file mode: 0755 is 755), path (no trailing slash),
#   mac (a MAC address in lower case); XML-held fragments, paths and MAC addresses get theirs
#   by themselves (_derived_rules);
# - omitted: libvirt leaves the option out when it has this value (or the named sibling's);
# - total: libvirt sets it to the sum of these sizes when the first of them is given (a domain
#   with NUMA cells has the memory of its cells and memory devices), else keeps it as given;
# - prefix: libvirt keeps only values with this prefix (it drops other device aliases):
#   refused at validation;
# - key: list items are the same device when these options are equal (the compare lines them
#   up by it, a redefinition keeps what libvirt added to it);
# - extends: libvirt adds items to this list by itself: those are not a difference.
RULES = {
    ("Domain", "memory"): {"total": ["cpu.numa.cell[].memory", "devices.memorydevs[].target.size"]},
    ("Domain", "vcpu_current"): {"omitted": {"option": "vcpu"}},
    ("DomainCell", "memory"): {"size": "unit"},
    ("DomainDiskMetadataCacheSize", "value"): {"size": "unit"},
    ("DomainLeaseTarget", "offset"): {"omitted": {"value": 0}},
    ("DomainChardevSourceUNIX", "mode"): {"omitted": {"value": "bind"}},
    ("DomainDiskReservations", "enabled"): {"omitted": {"value": "yes"}},
    ("DomainNUMATuneMemory", "placement"): {"omitted": {"value": "static"}},
    ("DomainAlias", "name"): {"prefix": "ua-"},
    ("StorageVolumeTargetPermissions", "mode"): {"text": "octal"},
    ("StoragePoolTargetPermissions", "mode"): {"text": "octal"},
    ("DomainDeviceList", "disks"): {"key": ["target.dev"]},
    ("DomainDeviceList", "interfaces"): {"key": ["mac.address"]},
    ("DomainDeviceList", "filesystems"): {"key": ["target.dir"]},
    ("DomainDeviceList", "controllers"): {"key": ["type", "index"], "extends": True},
    ("DomainDeviceList", "inputs"): {"key": ["type", "bus"], "extends": True},
    ("DomainDeviceList", "consoles"): {"extends": True},
    ("DomainDeviceList", "videos"): {"extends": True},
    ("DomainDeviceList", "audios"): {"extends": True},
    # An IPv4 network's mask is a prefix length or a dotted netmask; libvirt refuses both at once.
    ("NetworkIP", "prefix"): {"netmask": "netmask", "excludes": "netmask"},
    ("NetworkIP", "netmask"): {"excludes": "prefix"},
    # Switches libvirt keeps as a plain boolean and writes only when true (found by the unit test
    # test_schema_rng.test_switches_converge_on_libvirt on the test driver, libvirt 9.0).
    **{
        key: {"omitted": {"value": False}}
        for key in (
            ("Network", "ipv6"),
            ("DomainGraphicDBus", "p2p"),
            ("DomainGraphicDesktop", "full_screen"),
            ("DomainGraphicRDP", "auto_port"),
            ("DomainGraphicRDP", "replace_user"),
            ("DomainGraphicRDP", "multi_user"),
            ("DomainGraphicSDL", "full_screen"),
            ("DomainTPMBackendEmulator", "persistent_state"),
            ("DomainVideoModel", "primary"),
        )
    },
}
# Fields libvirtxml's MarshalXML encodes by hand, with the schema kind that says how (schema.py):
# a vhost-user interface source is either a chardev source (its fields and its `type` on this
# very element) or a `dev` attribute; a smartcard's `mode` says which of its fields is in use.
HAND_ENCODED = {
    ("DomainInterfaceSourceVHostUser", "Chardev"): {"kind": "inline", "struct": "DomainChardevSource"},
    ("DomainInterfaceSourceVHostUser", "Dev"): {"kind": "attr", "xml": "dev", "type": "str"},
    ("DomainSmartcard", "Host"): {"kind": "flag", "xml": None, "attr": "mode", "value": "host"},
}
# Attributes written on the element when a field is given (the smartcard's mode).
SETS_ATTRS = {("DomainSmartcard", "Passthrough"): {"mode": "passthrough"}, ("DomainSmartcard", "HostCerts"): {"mode": "host-certificates"}}
# Options of upstream's provider that are not libvirt XML (stripped before the XML is made).
WAIT_FOR_IP = {
    "name": "wait_for_ip",
    "kind": "provider",
    "spec": {
        "type": "dict",
        "options": {
            "timeout": {"type": "int", "default": 300},
            "source": {"type": "str", "choices": ["lease", "agent", "any"], "default": "any"},
        },
    },
    "doc": {
        "description": [
            "Wait until this interface has an IP address after the domain starts (and on every run while it runs),",
            "and return the addresses in RV(interfaces). Not part of the domain XML.",
        ],
        "type": "dict",
        "suboptions": {
            "timeout": {"description": ["Seconds to wait before failing."], "type": "int", "default": 300},
            "source": {
                "description": ["Where the address comes from: the network's DHCP leases, the guest agent, or V(any) (leases, then the agent)."],
                "type": "str",
                "choices": ["lease", "agent", "any"],
                "default": "any",
            },
        },
    },
}
PROVIDER_FIELDS = {"DomainInterface": [WAIT_FOR_IP]}
# Structs a handler of schema.py writes and reads: a UDP chardev is two <source> elements.
STRUCT_HANDLERS = {"DomainChardevSourceUDP": "chardev_udp"}
# Unions libvirtxml tells apart by a child's attribute: an interface's hostdev source is
# <source><address type="pci|usb" .../></source>.
CHILD_UNIONS = {"DomainInterfaceSourceHostdev": ("address", {"PCI": "pci", "USB": "usb"})}
# Hand-encoded unions extract.py reads as two-attribute ones; HAND_ENCODED covers them.
NOT_UNIONS = {"DomainInterfaceSourceVHostUser", "DomainSmartcard"}
INT_TYPES = {"int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64"}
# The range of each Go integer type as libvirt parses it: Go's int and uint are 64-bit, but
# libvirt reads them into C's int and unsigned int; a value outside is refused before libvirt
# sees it (libvirt 9.0 reads -2 as 4294967294 and aborts on a vCPU count that large).
INT_RANGES = {
    "int": (-(2**31), 2**31 - 1), "int8": (-(2**7), 2**7 - 1), "int16": (-(2**15), 2**15 - 1),
    "int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1), "uint": (0, 2**32 - 1),
    "uint8": (0, 2**8 - 1), "uint16": (0, 2**16 - 1), "uint32": (0, 2**32 - 1), "uint64": (0, 2**64 - 1),
}  # fmt: skip
# Narrower real ranges (libvirt's domaincommon.rng, and what libvirt 9.0 survives: see
# tests/unit/plugins/module_utils/_libvirt/test_numeric_ranges.py), by Go struct and field.
RANGES = {
    ("DomainVCPU", "Value"): (1, 16384),
    ("DomainVCPU", "Current"): (1, 16384),
    # libvirt allocates every IOThread when it parses the count: 2**31 exhausts memory.
    ("Domain", "IOThreads"): (0, 16384),
}


def legacy_snake_case(name: str) -> str:
    """SnakeCase before upstream split the hypervisor prefixes off (QEMUVDAgent ->
    qemuvd_agent): the names of upstream's older schema inventory, kept as aliases."""
    return snake_case(name, split_prefixes=False)


def snake_case(name: str, *, split_prefixes: bool = True) -> str:
    """Upstream's stringutil.SnakeCase."""
    if not name:
        return name
    if name.endswith("s") and name[:-1] in ACRONYMS:
        return ACRONYMS[name[:-1]] + "s"
    if name in ACRONYMS:
        return ACRONYMS[name]
    for prefix in ("VMWare", "BHyve", "QEMU", "LXC") if split_prefixes else ():
        if name.startswith(prefix) and len(name) > len(prefix) and name[len(prefix)].isupper():
            return ACRONYMS[prefix] + "_" + snake_case(name[len(prefix) :])
    out = []
    for i, char in enumerate(name):
        if i > 0 and char.isupper():
            prev_lower = name[i - 1].islower()
            prev_upper = name[i - 1].isupper()
            next_lower = i + 1 < len(name) and name[i + 1].islower()
            if prev_lower or (prev_upper and next_lower and i > 1):
                out.append("_")
        out.append(char.lower())
    return "".join(out)


class Generator:
    def __init__(self, facts: dict) -> None:
        self.structs: dict = facts["structs"]
        self.unions: dict = facts["unions"]
        self.formats: dict = facts["uint_formats"]
        self.out: dict[str, dict] = {}
        self.stack: list[str] = []  # the structs being read, to spot cycles as upstream does

    def fields_of(self, name: str) -> list[dict]:
        """A struct's fields with embedded structs inlined, XMLName dropped."""
        fields = []
        for field in self.structs[name]["fields"]:
            if "embed" in field:
                if field["embed"] in self.structs:
                    fields.extend(self.fields_of(field["embed"]))
                continue
            if field["name"] != "XMLName" and field["name"][0].isupper():
                fields.append(field)
        return fields

    def xml_name_of(self, name: str) -> tuple[str, str | None] | None:
        for field in self.structs.get(name, {}).get("fields", []):
            if field.get("name") == "XMLName" and field["xml"] not in (None, "", "-"):
                ns, _sp, local = field["xml"].strip().rpartition(" ")
                return local, ns or None
        return None

    def value_with_unit(self, name: str) -> tuple[dict, list[dict]] | None:
        """(chardata field, attribute fields) when the struct is chardata plus attributes only."""
        chardata, attrs = None, []
        for field in self.structs[name]["fields"]:
            tag = field.get("xml")
            if "embed" in field or not tag or tag == "-" or field.get("name") == "XMLName":
                continue
            if "chardata" in tag:  # not ",cdata": upstream keeps those as value + unit options
                chardata = field
            elif "attr" in tag:
                attrs.append(field)
            else:
                return None
        return (chardata, attrs) if chardata else None

    @staticmethod
    def switch_type(field_name: str, scalar: str) -> str:
        """A string field libvirt reads as a boolean (YES_NO_FIELDS, ON_OFF_FIELDS), as yesno or onoff."""
        if scalar == "str" and field_name in YES_NO_FIELDS:
            return "yesno"
        if scalar == "str" and field_name in ON_OFF_FIELDS:
            return "onoff"
        return scalar

    @staticmethod
    def scalar_type(gotype: str) -> str:
        base = gotype.lstrip("*")
        if base in INT_TYPES:
            return "int"
        if base in ("float32", "float64"):
            return "float"
        if base == "bool":
            return "bool"
        return "str"

    def union_of(self, holder: str) -> tuple[str, dict] | None:
        """For the struct holding union branches: (where the discriminator is, the union facts)."""
        if holder in NOT_UNIONS:
            return None
        if holder in CHILD_UNIONS:
            child, branches = CHILD_UNIONS[holder]
            return f"child:{child}", {"attr": "type", "branches": branches, "default": None, "when_missing": None}
        if holder in self.unions and self.unions[holder]["field"] is None:
            return "self", self.unions[holder]
        if [f.get("embed") for f in self.structs[holder]["fields"]] == ["DomainChardevSource"]:
            # A chardev source under another name (TPM emulator source, disk vhost-user source):
            # libvirtxml puts its type on the element itself, unix when missing.
            chardev = self.union_of("DomainChardevSource")
            if chardev:
                return "self", {**chardev[1], "default": "unix"}
        for owner, union in self.unions.items():
            if union["field"] and "." not in union["field"]:
                owner_field = next((f for f in self.fields_of(owner) if f["name"] == union["field"]), None)
                if owner_field and owner_field["type"].lstrip("*") == holder:
                    return "parent", union
        return None

    def struct(self, name: str) -> str:
        if name in self.out:
            return name
        self.out[name] = {}  # placeholder while the struct is being read
        self.stack.append(name)
        fields = []
        union = self.union_of(name)
        for field in self.fields_of(name):
            entry = self.field(name, field, union)
            if entry is not None:
                fields.extend(entry if isinstance(entry, list) else [entry])
        self.stack.pop()
        fields.extend(PROVIDER_FIELDS.get(name, []))
        if name in SELECTORS:
            fields.append(self.selector(name, fields))
        self.out[name] = {"fields": fields}
        if name in EXACTLY_ONE_OF:
            self.out[name]["exactly_one_of"] = EXACTLY_ONE_OF[name]
        if name in AT_MOST_ONE_OF:
            self.out[name]["at_most_one_of"] = AT_MOST_ONE_OF[name]
        if name in STRUCT_HANDLERS:
            self.out[name]["handler"] = STRUCT_HANDLERS[name]
        return name

    def selector(self, name: str, fields: list[dict]) -> dict:
        """The ``type`` option of SELECTORS: the discriminator values of the branches it selects."""
        of = SELECTORS[name]
        holder = next(f["struct"] for f in fields if f["name"] == of) if of else name
        branches = [f for f in (self.out[holder]["fields"] if of else fields) if f["kind"] == "branch"]
        entry = {"name": "type", "kind": "selector", "xml": None, "type": "str", "choices": [b["value"] for b in branches]}
        if of:
            entry["of"] = of
        return entry

    def field(self, owner: str, field: dict, union: tuple[str, dict] | None) -> dict | list[dict] | None:
        gotype: str = field["type"]
        tag = field["xml"]
        if tag is None:  # no tag: the child type's XMLName names the element
            base = gotype.lstrip("*[]")
            found = self.xml_name_of(base)
            if not found:
                return None
            tag = (found[1] + " " if found[1] else "") + found[0]
        parts = tag.split(",")
        ns, _sp, xml = parts[0].strip().rpartition(" ")
        xml = XML_SPELLING.get((owner, field["name"]), xml)
        flags = set(parts[1:])
        name = snake_case(field["name"])
        legacy = legacy_snake_case(field["name"])
        is_ptr = gotype.startswith("*")
        is_list = gotype.lstrip("*").startswith("[]")
        base = gotype.lstrip("*").removeprefix("[]").lstrip("*")
        required = not (is_ptr or is_list or "omitempty" in flags)
        entry: dict = {"name": name, "xml": xml}
        if legacy != name:
            entry["aliases"] = [legacy]
        if ns:
            entry["ns"] = ns
        if base in self.stack:
            return None  # a cycle (a backing store's backing store...): upstream leaves it out
        if (owner, field["name"]) in HAND_ENCODED:
            entry.update(HAND_ENCODED[(owner, field["name"])])
            if "struct" in entry:
                entry["struct"] = self.struct(entry["struct"])
            return entry
        if (owner, field["name"]) in SETS_ATTRS:
            entry["sets"] = SETS_ATTRS[(owner, field["name"])]
        if tag == "-" and base not in self.structs:
            # A scalar libvirtxml encodes by hand (a chardev UDP source's bind/connect pairs):
            # the option exists, its XML needs a mapping of its own (schema.py refuses it until then).
            entry.update(kind="custom", xml=None, type=self.scalar_type(base))
            return self.add_range(entry, owner, field)
        if tag == "-":  # union branch
            where, facts = union if union else ("self", {"attr": "type", "branches": {}, "default": None, "when_missing": None})
            entry.update(kind="branch", struct=self.struct(base), xml=None, attr=facts["attr"], where=where)
            value = facts["branches"].get(field["name"])
            if value is not None:
                entry["value"] = value
            if facts.get("default") == value and value is not None:
                entry["default"] = True
            if facts.get("when_missing") == field["name"]:
                entry["default"] = True
            return self.flatten_branch(entry, base)
        if base == "struct{}":
            entry.update(kind="presence")
            return entry
        if base in self.structs and base != "xml.Name":
            if is_list:
                entry.update(kind="list", struct=self.struct(base))
                if (owner, field["name"]) in SHORTHANDS:
                    entry["shorthand"] = SHORTHANDS[(owner, field["name"])]
                return entry
            if not self.fields_of(base):
                entry.update(kind="presence")
                return entry
            flat = self.value_with_unit(base)
            if flat:
                chardata, attrs = flat
                value = self.add_range({"name": name, "kind": "unit", "xml": xml, "type": self.scalar_type(chardata["type"])}, base, chardata)
                if value.get("range") and value["range"][0] == 0 and any(a["xml"].split(",")[0] == "unit" for a in attrs):
                    value["range"] = list(INT_RANGES["uint64"])  # a size with a unit: libvirt scales it as unsigned long long
                if required:
                    value["required"] = True
                out = [value]
                for attr in attrs:
                    attr_xml = attr["xml"].split(",")[0]
                    option = {"name": f"{name}_{snake_case(attr_xml)}", "kind": "unit_attr", "xml": xml, "attr": attr_xml}
                    option["type"] = self.switch_type(attr["name"], self.scalar_type(attr["type"]))
                    out.append(self.add_range(option, base, attr))
                return out
            entry.update(kind="object", struct=self.struct(base))
            if required:
                entry["required"] = True
            return entry
        scalar = self.scalar_type(base)
        if is_list:
            entry.update(kind="list_text", type=scalar)
            return self.add_range(entry, owner, field)
        scalar = self.switch_type(field["name"], scalar)
        if "chardata" in flags or "cdata" in flags:
            entry.update(kind="text", xml=None)
        elif "innerxml" in flags:
            entry.update(kind="innerxml", xml=None)
        elif "attr" in flags:
            entry.update(kind="attr")
            fmt = self.formats.get(owner, {}).get(xml)
            if fmt:
                entry["hex"] = fmt
        else:
            entry.update(kind="elem")
        entry["type"] = scalar
        self.add_range(entry, owner, field)
        if (owner, field["name"]) in MULTILINE:
            entry["multiline"] = True
        if required:
            entry["required"] = True
        return entry

    def flatten_branch(self, entry: dict, base: str) -> dict:
        """Upstream's flattening of a branch's struct, as of its other fields: a struct without
        fields is a presence boolean (``flat: presence``), one that holds only text is that
        text (``flat: text``, the text's option in ``text``). The struct stays: the same
        branch given as a dictionary is accepted too."""
        if not self.fields_of(base):
            entry["flat"] = "presence"
            return entry
        flat = self.value_with_unit(base)
        if flat:
            chardata, attrs = flat
            if attrs:  # upstream would add <name>_<attr> options; no branch of libvirtxml has any
                raise SystemExit(f"{base}: a text branch with attributes needs its flattened options")
            entry.update(flat="text", text=snake_case(chardata["name"]))
        return entry

    @staticmethod
    def add_range(entry: dict, owner: str, field: dict) -> dict:
        """An integer option's valid range (``range``: [lowest, highest])."""
        base = field["type"].lstrip("*").removeprefix("[]")
        if base in INT_TYPES:
            entry["range"] = list(RANGES.get((owner, field["name"]), INT_RANGES[base]))
        return entry

    def finish(self) -> dict:
        for struct_name, struct in self.out.items():
            for entry in struct["fields"]:
                renamed = RENAMES.get(entry["name"]) or INTERFACE_NAMES.get((struct_name, entry["name"]))
                if renamed:
                    entry["aliases"] = [entry["name"], *entry.get("aliases", [])]
                    entry["name"] = renamed
                if (struct_name, entry["name"]) in SECRETS:
                    entry["secret"] = True
                if (struct_name, entry["name"]) in NOT_REQUIRED:
                    entry.pop("required", None)
                if (struct_name, entry["name"]) in INTERFACE_ALIASES:
                    entry["aliases"] = [*entry.get("aliases", []), INTERFACE_ALIASES[(struct_name, entry["name"])]]
                if (struct_name, entry["name"]) in CHOICES:
                    entry["choices"] = CHOICES[(struct_name, entry["name"])]
        for root in ROOTS.values():
            for entry in self.out[root]["fields"]:
                if entry["name"] in ("uuid", "id", "key") or (root, entry["name"]) in COMPUTED:
                    entry["computed"] = True
                    entry.pop("required", None)
                elif entry["name"] == "name" or (entry["name"] == "type" and root != "StorageVolume"):
                    entry["required"] = True
                elif (root, entry["name"].split("_")[0]) in COMPUTED and entry["kind"] == "unit_attr":
                    entry["computed"] = True
        for struct_name, struct in self.out.items():
            if struct_name in ROOTS.values():
                continue
            for entry in struct["fields"]:
                if (struct_name, entry["name"]) in COMPUTED:
                    entry["computed"] = True
        rng_values(self.out, {self.xml_name_of(root)[0]: root for root in ROOTS.values() if root in self.out})  # type: ignore[index]
        for struct_name, struct in self.out.items():
            for entry in struct["fields"]:
                rules = {**_derived_rules(struct_name, struct, entry), **RULES.get((struct_name, entry["name"]), {})}
                if rules:
                    entry["rules"] = rules
        return self.out


def written_as(structs: dict, roots: dict[str, str]) -> dict[str, set[str]]:
    """The XML elements each struct is written as: its field's element, or for a union branch
    (and an inline chardev source) the element of the struct that holds it."""
    elements: dict[str, set[str]] = {root: {element} for element, root in roots.items()}
    for _round in range(len(structs)):  # until nothing is added
        before = sum(map(len, elements.values()))
        for owner, struct in structs.items():
            for entry in struct["fields"]:
                if entry.get("struct"):
                    found = {entry["xml"]} if entry.get("xml") not in (None, "-") else elements.get(owner, set())
                    elements.setdefault(entry["struct"], set()).update(found)
        if sum(map(len, elements.values())) == before:
            break
    return elements


def rng_values(structs: dict, roots: dict[str, str]) -> None:
    """What libvirt's RNG schemas say of each string attribute and text, on every element its
    struct is written as that they know (libvirtxml knows elements newer than the schemas: a
    hyperv feature's ``state`` is on/off on all those they know): spelled yes/no or on/off, it
    is typed yesno or onoff (a choice of exactly those words is dropped with it: the boolean is
    written in that spelling); a choice of fixed values everywhere gives the option those as
    its documented ``values``, unless the contract gives choices of its own (CHOICES)."""
    facts = json.loads(RNG_ATTRIBUTES.read_text())["attributes"]
    elements = written_as(structs, roots)
    for struct_name, struct in structs.items():
        for entry in struct["fields"]:
            if entry.get("type") != "str":
                continue
            if entry["kind"] == "attr":
                owners, name = elements.get(struct_name, set()), entry["xml"]
            elif entry["kind"] == "unit_attr":
                owners, name = {entry["xml"]}, entry["attr"]
            elif entry["kind"] == "elem":
                owners, name = {entry["xml"]}, "#text"
            elif entry["kind"] == "text":
                owners, name = elements.get(struct_name, set()), "#text"
            else:
                continue
            spellings = [spelling for element in owners for spelling in facts.get(element, {}).get(name, [])]
            words = {spelling for spelling in spellings if isinstance(spelling, str)}
            for kind, (true, false) in SWITCH_WORDS.items():
                # Both words somewhere and nothing else anywhere: relabel="no" alone in one place
                # is fine; trunk="yes" alone everywhere is no switch (trunk="no" would be refused).
                switch_only = all(isinstance(spelling, str) for spelling in spellings) and words <= {kind, f"only:{true}", f"only:{false}"}
                if entry["kind"] in ("attr", "unit_attr") and kind in words and switch_only:
                    entry["type"] = kind
                    if set(entry.get("choices", ())) <= {true, false}:
                        entry.pop("choices", None)
            if entry["type"] == "str" and spellings and not words and "choices" not in entry:
                # Documented, not enforced: a newer libvirt knows values the schemas here do not
                # (an nvme controller, an ssh disk source), and libvirt refuses what it does not know.
                entry["values"] = sorted({value for values in spellings for value in values})


def _derived_rules(struct_name: str, struct: dict, entry: dict) -> dict:
    """The rules an option gets by what it is: a domain's value+unit pair (memory,
    memory_unit) is a size; an XML fragment, a path and a MAC address have one spelling."""
    if entry["kind"] == "innerxml":
        return {"text": "xml"}
    if entry.get("type") == "str" and entry["name"] == "path":
        return {"text": "path"}
    if entry.get("type") == "str" and entry["name"] in ("mac", "address"):
        return {"text": "mac"}
    unit = f"{entry['name']}_unit"
    if not struct_name.startswith("Domain") or entry["kind"] != "unit" or entry.get("type") != "int":
        return {}
    has_unit = any(e["name"] == unit and e["kind"] == "unit_attr" and e["attr"] == "unit" for e in struct["fields"])
    return {"size": unit} if has_unit else {}


def json_lines(schema: dict) -> list[str]:
    """``schema`` as one compact JSON document, written as Python string literals that the
    compiler joins: the small tables on a line each, then one line per struct, so a change
    to a struct changes its line only. The module parses the document once at import, which
    costs a few milliseconds where compiling the same data as a Python literal costs ten
    times more. Lines over the line length carry ``noqa`` for ansible-test's pycodestyle
    (ruff passes a line that is one word)."""

    def literal(text: str) -> str:
        line = f"    {text!r}"  # single quotes: what the formatter prefers for JSON
        return line if len(line) <= LINE_LENGTH else f"{line}  # noqa: E501"

    def compact(value: object) -> str:
        return json.dumps(value, separators=(",", ":"), sort_keys=True)

    structs = sorted(schema["structs"].items())
    lines = ['    "{"']
    lines += [literal(f"{json.dumps(key)}:{compact(schema[key])},") for key in ("root_elements", "roots")]
    lines.append(literal('"structs":{'))
    lines += [literal(f"{json.dumps(name)}:{compact(struct)}{',' if index < len(structs) - 1 else ''}") for index, (name, struct) in enumerate(structs)]
    lines.append('    "}}"')
    return lines


def _built(facts: dict) -> tuple[Generator, dict[str, str], dict]:
    """The generator, the root struct of each resource, and every struct finished."""
    gen = Generator(facts)
    roots = {resource: gen.struct(root) for resource, root in ROOTS.items()}
    return gen, roots, gen.finish()


def render(facts: dict) -> str:
    gen, roots, structs = _built(facts)
    element_names = {root: gen.xml_name_of(root)[0] for root in ROOTS.values()}  # type: ignore[index]
    schema = {"roots": roots, "root_elements": element_names, "structs": structs}
    lines = [
        f"# GENERATED by tools/libvirt_schema/generate.py from tools/libvirt_schema/libvirtxml-facts.json ({facts['source']}). Do not edit.",
        "# Copyright: (c) 2026, devinfra.providers contributors",
        "# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)",
        "# SPDX-License-Identifier: GPL-3.0-or-later",
        "",
        "# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.",
        "# Do not use this from other collections or standalone plugins/modules!",
        "",
        '"""The libvirt option schema: per libvirtxml struct, its options in order, each with how',
        "it maps to XML (see schema.py for the meaning of the keys). The readable form is the",
        'documentation fragment plugins/doc_fragments/libvirt_schema.py, made from the same data."""',
        "",
        "from __future__ import annotations",
        "",
        "import json",
        "import typing as t",
        "",
        '__all__ = ["ROOTS", "ROOT_ELEMENTS", "STRUCTS"]',
        "",
        "_SCHEMA: dict[str, t.Any] = json.loads(",
        *json_lines(schema),
        ")",
        "",
        'ROOTS: dict[str, str] = _SCHEMA["roots"]',
        'ROOT_ELEMENTS: dict[str, str] = _SCHEMA["root_elements"]',
        'STRUCTS: dict[str, dict[str, t.Any]] = _SCHEMA["structs"]',
        "",
    ]
    return "\n".join(lines)


_DOC_TYPES = {"str": "str", "int": "int", "float": "float", "bool": "bool", "yesno": "bool", "onoff": "bool"}


def _aliases_note(struct: str, entry: dict) -> str:
    """Whose name each alias of an option is."""
    notes = []
    for alias in entry["aliases"]:
        if INTERFACE_ALIASES.get((struct, entry["name"])) == alias:
            notes.append(f"C({alias}) is its name in the provider interface this collection implements.")
        elif INTERFACE_NAMES.get((struct, alias)) == entry["name"]:
            notes.append(f"C({alias}) is upstream's name for it; C({entry['name']}) is the interface's.")
        else:
            notes.append(f"C({alias}) is upstream's name for it.")
    return " ".join(notes)


def _doc_options(structs: dict, struct: str, xpath: str, *, top_level: bool, prose: dict | None = None, path: str = "") -> dict:
    """The DOCUMENTATION options of a struct; the same rules as schema.argument_spec(). With
    ``prose`` (domain-options.yml), only the options it names (and their parents) are documented,
    with its text first; other top-level options get a line and a link to the reference page."""
    options: dict = {}
    for entry in structs[struct]["fields"]:
        if entry.get("computed"):
            continue
        kind = entry["kind"]
        option_path = f"{path}.{entry['name']}" if path else entry["name"]
        curated = prose is not None and (option_path in prose or any(key.startswith(option_path + ".") for key in prose))
        if prose is not None and not curated and not top_level:
            continue
        if kind == "provider":
            options[entry["name"]] = entry["doc"]
            continue
        xml = entry.get("xml")
        qualified = f"{entry['ns'].rstrip('/').split('/')[-2]}:{xml}" if entry.get("ns") else xml
        doc: dict = {}
        if kind == "attr":
            where = f"C({xpath}/@{xml})"
        elif kind == "text":
            where = f"the text of C({xpath})"
        elif kind == "innerxml":
            where = f"the content of C({xpath}), as an XML string"
        elif kind in ("elem", "unit"):
            where = f"the text of C({xpath}/{qualified})"
        elif kind == "unit_attr":
            where = f"C({xpath}/{qualified}/@{entry['attr']})"
        elif kind == "presence":
            where = f"the presence of C({xpath}/{qualified})"
        elif kind in ("list", "list_text"):
            where = f"one C({xpath}/{qualified}) element per item"
        elif kind == "object":
            where = f"C({xpath}/{qualified})"
        elif kind == "custom":  # the UDP chardev's bind_host... (the one handler-written struct)
            mode, _sep, attr = entry["name"].partition("_")
            where = f"C({xpath}[@mode={mode}]/@{attr}) (a UDP chardev has one C(source) element per mode)"
        elif kind == "inline":
            where = f"the fields of C({xpath}) as a chardev source, its type in C({xpath}/@type)"
        elif kind == "flag":
            where = f"C({xpath}/@{entry['attr']}={entry['value']})"
        elif kind == "selector":
            holder = f"in C({entry['of']})" if entry.get("of") else "beside it"
            where = (
                f"C({xpath}/@type), which the branch given {holder} sets. Optional: when given it must agree with that branch,"
                " and given alone it selects its branch (with no options of the branch)"
            )
        else:  # branch
            target = xpath if entry["where"] == "self" else xpath.rsplit("/", 1)[0]
            value = entry.get("value")
            attrs = entry["attr"] if isinstance(entry["attr"], list) else [entry["attr"]]
            values = value if isinstance(value, list) else [value]
            element = target.rsplit("/", 1)[-1]  # the element alone: full paths make lines too long to wrap
            what = {"presence": "", "text": f"the text of C({xpath}) with "}.get(entry.get("flat", ""), f"the fields of C({xpath}) with ")
            where = (
                "{}{} on C({})".format(what, " and ".join(f"C(@{a}={v})" for a, v in zip(attrs, values)), element)
                if value
                else f"the fields of C({xpath}) without C(@{attrs[0]}) on C({element})"
            )
            where += "; only one branch may be set"
        if entry.get("sets"):
            where += ", with " + " and ".join(f"C({xpath}/@{a}={v})" for a, v in entry["sets"].items())
        doc["description"] = [f"Maps to {where}."]
        flat = entry.get("flat")
        if kind in ("presence", "flag") or flat == "presence":
            doc["type"] = "bool"
        elif flat == "text":
            doc["type"] = "str"
        elif kind in ("object", "branch", "inline"):
            doc["type"] = "dict"
        elif kind in ("list", "list_text"):
            doc["type"] = "list"
            doc["elements"] = "dict" if kind == "list" else _DOC_TYPES[entry["type"]]
        elif (entry.get("rules") or {}).get("size"):
            doc["type"] = "raw"
            unit = entry["rules"]["size"]
            doc["description"].append(
                f"A size: an integer in the unit of C({unit}) (KiB without it), or a string with its unit such as V(2GiB), V(512M) or"
                f" V(4G) (C({unit}) then not given); units as libvirt's, in any case: V(b) or V(bytes), V(k) or V(KiB) (1024),"
                " V(KB) (1000), and so on for M, G, T, P, E."
            )
        else:
            doc["type"] = _DOC_TYPES[entry["type"]]
        if entry.get("type") in SWITCH_WORDS:
            doc["description"].append("Written as V({}) or V({}).".format(*SWITCH_WORDS[entry["type"]]))
        if entry.get("hex"):
            doc["description"].append("libvirt writes it in hexadecimal; give it as a number.")
        if entry.get("range"):
            doc["description"].append("From {} to {}.".format(*entry["range"]))
        if entry.get("multiline"):
            doc["description"].append("May span lines.")
        if entry.get("required") and not top_level:
            doc["required"] = True
        if flat == "presence":
            doc["description"].append("V(true) selects this branch, which has no options (as upstream); V({}) is the same, V(false) is not setting it.")
        elif flat == "text":
            doc["description"].append(f"Its text, a string (as upstream); a dictionary with the one option C({entry['text']}) is the same.")
        if entry.get("shorthand"):
            doc["description"].append(
                f"An item may be a string instead of a dictionary: the value of its C({entry['shorthand']}) (as the provider interface this"
                f" collection implements gives it; upstream takes only dictionaries)."
            )
        if kind == "text" and any(entry["name"] in group for group in structs[struct].get("exactly_one_of", [])):
            doc["description"].append("An entry has either this or C(file), not both.")
        if kind == "attr" and any(entry["name"] in group for group in structs[struct].get("exactly_one_of", [])):
            doc["description"].append("An entry has either this or C(value), not both.")
        for group in structs[struct].get("at_most_one_of", []):
            if entry["name"] in group:
                others = ", ".join(f"C({name})" for name in group if name != entry["name"])
                doc["description"].append(f"Not together with {others}; a second run compares a netmask and its prefix length as one value.")
        if entry.get("aliases"):
            doc["aliases"] = list(entry["aliases"])
            doc["description"].append(_aliases_note(struct, entry))
        if entry.get("choices"):
            doc["choices"] = list(entry["choices"])
        elif entry.get("values") and top_level:  # the argument spec would have to enforce choices
            doc["description"].append("libvirt's schemas list the values {}.".format(", ".join(f"V({value})" for value in entry["values"])))
        elif entry.get("values"):
            doc["choices"] = list(entry["values"])
            doc["description"].append("The choices are those libvirt's schemas list; a value only a newer libvirt knows is passed on as it is.")
        if entry.get("secret"):
            doc["description"].append("A secret: never shown in results or diffs.")
        has_options = kind in ("object", "list", "branch", "inline") and not flat
        if prose is not None:
            doc["description"][:0] = prose.get(option_path, [])
            if has_options:
                # The section of its top-level option or device list: a label long enough to name a deep
                # section would not fit on a line of the documentation fragment.
                near = ".".join(option_path.split(".")[:2] if option_path.startswith("devices.") else option_path.split(".")[:1])
                doc["description"].append(f"All its options: R(the domain options reference,{_reference_label(near)}).")
        if has_options and (prose is None or curated):
            child_xpath = xpath if kind in ("branch", "inline") else f"{xpath}/{qualified}"
            suboptions = _doc_options(structs, entry["struct"], child_xpath, top_level=False, prose=prose, path=option_path)
            if suboptions:
                doc["suboptions"] = suboptions
        options[entry["name"]] = doc
    return options


def _reference_label(option_path: str) -> str:
    return f"{REFERENCE_LABEL}.{option_path}"


def _rst(text: str) -> str:
    """Ansible's documentation markup as reStructuredText (the reference page is a guide)."""
    text = re.sub(r"R\(([^,()]+),([^()]+)\)", r":ref:`\1 <\2>`", text)
    return re.sub(r"[CVO]\(((?:[^()]|\([^()]*\))*)\)", lambda match: f"``{match.group(1)}``", text)


def render_domain_reference(structs: dict, libvirt_docs: dict[str, str]) -> str:
    """The reference page of every domain option: a section per element (each struct once, at
    the first path it is met; the others listed), its options in a table, links to the sections
    of the elements inside it and to libvirt's documentation of the element."""
    sections: list[tuple[str, str, str]] = []  # (option path, struct, xpath)
    paths: dict[str, list[str]] = {}
    queue = [("", "Domain", "/domain")]
    while queue:
        path, struct, xpath = queue.pop(0)
        paths.setdefault(struct, []).append(path)
        if len(paths[struct]) > 1:
            continue
        sections.append((path, struct, xpath))
        for entry in structs[struct]["fields"]:
            if entry.get("struct") and not entry.get("flat") and entry["kind"] in ("object", "list", "branch", "inline"):
                child = f"{path}.{entry['name']}" if path else entry["name"]
                child_xpath = xpath if entry["kind"] in ("branch", "inline") else f"{xpath}/{entry['xml']}"
                queue.append((child, entry["struct"], child_xpath))
    first_path = {struct: found[0] for struct, found in paths.items()}
    lines = [
        "..",
        "  GENERATED by tools/libvirt_schema/generate.py from the libvirt option schema. Do not edit.",
        "  Copyright: (c) 2026, devinfra.providers contributors",
        "  GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)",
        "  SPDX-License-Identifier: GPL-3.0-or-later",
        "",
        f".. _{REFERENCE_LABEL}:",
        "",
        "libvirt_domain options reference",
        "================================",
        "",
        "Every option of :ansplugin:`devinfra.providers.libvirt_domain#module`, one section per XML element, generated from",
        "the same schema the module validates with (an unknown option or a wrong type anywhere fails before anything is",
        "touched, naming its path). The module's own documentation describes the options people set, in prose. A list",
        "option takes one dictionary per element; an option that is a branch selects the element's kind (only one branch",
        "may be set). Booleans are written as libvirt spells them (``yes``/``no`` or ``on``/``off``). The choices",
        "listed are those of libvirt's schemas (libvirt 9.0); a value only a newer libvirt knows is passed on.",
        "",
    ]
    for path, struct, xpath in sections:
        title = f"``{path or 'domain'}``"
        top = next((key for key in sorted(libvirt_docs, key=len, reverse=True) if path == key or path.startswith(key + ".")), None)
        lines += [f".. _{_reference_label(path) if path else REFERENCE_LABEL + '.domain'}:", "", title, "-" * len(title), ""]
        about = f"The element ``{xpath}``."
        if top is not None:
            about += f" libvirt's documentation: `{top} <{LIBVIRT_DOMAIN_DOCS}#{libvirt_docs[top]}>`__."
        others = [other for other in paths[struct][1:] if other]
        if others:
            shown = ", ".join(f"``{other}``" for other in others[:12]) + (f" and {len(others) - 12} more" if len(others) > 12 else "")
            about += f" The same options at {shown}."
        lines += [about, ""]
        options = _doc_options(structs, struct, xpath, top_level=not path)
        if not options:
            lines += ["It has no options of its own.", ""]
            continue
        lines += [".. list-table::", "   :header-rows: 1", "   :widths: 20 10 70", "", "   * - option", "     - type", "     - description"]
        for name, doc in options.items():
            entry = next(item for item in structs[struct]["fields"] if item["name"] == name)
            kind = doc["type"] + (f" of {doc['elements']}" if doc.get("elements") else "")
            text = " ".join(_rst(line) for line in doc["description"])
            if doc.get("choices"):
                text += " Choices: " + ", ".join(f"``{choice}``" for choice in doc["choices"]) + "."
            if doc.get("required"):
                text += " Required."
            if entry.get("struct") and not entry.get("flat") and entry["struct"] in first_path:
                text += f" Its options: :ref:`{first_path[entry['struct']] or 'domain'} <{_reference_label(first_path[entry['struct']])}>`."
            lines += [f"   * - ``{name}``", f"     - {kind}", f"     - {text}"]
        lines.append("")
    return "\n".join(lines)


def _domain_prose(structs: dict) -> dict[str, list[str]]:
    """domain-options.yml's option texts, each path checked against the schema."""
    prose: dict[str, list[str]] = yaml.safe_load(DOMAIN_OPTIONS.read_text())["options"]
    for option_path in prose:
        struct: str | None = "Domain"
        for name in option_path.split("."):
            entry = next((item for item in structs[struct]["fields"] if item["name"] == name), None) if struct else None
            if entry is None:
                raise SystemExit(f"{DOMAIN_OPTIONS.name}: {option_path} is no option of the domain")
            struct = entry.get("struct")
    return prose


def render_reference(facts: dict) -> str:
    _gen, _roots, structs = _built(facts)
    return render_domain_reference(structs, yaml.safe_load(DOMAIN_OPTIONS.read_text())["libvirt_docs"])


def render_docs(facts: dict) -> str:
    gen, roots, structs = _built(facts)
    lines = [
        f"# GENERATED by tools/libvirt_schema/generate.py from tools/libvirt_schema/libvirtxml-facts.json ({facts['source']}). Do not edit.",
        "# Copyright: (c) 2026, devinfra.providers contributors",
        "# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)",
        "# SPDX-License-Identifier: GPL-3.0-or-later",
        "",
        "from __future__ import annotations",
        "",
        "",
        "class ModuleDocFragment:",
        "    # The options of each libvirt object, generated from the same schema as the modules' argument specs.",
    ]
    for resource, root in sorted(roots.items()):
        element = gen.xml_name_of(root)[0]  # type: ignore[index]
        prose = _domain_prose(structs) if root == "Domain" else None
        options = _doc_options(structs, root, f"/{element}", top_level=True, prose=prose)
        text = yaml.safe_dump({"options": options}, sort_keys=True, width=120, default_flow_style=False)
        lines += ["", f'    {resource.upper()} = r"""', text.rstrip("\n"), '"""']
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="fail when the committed file is not what the facts give")
    args = parser.parse_args()
    facts = json.loads(FACTS.read_text())
    outputs = {OUTPUT: render(facts), DOC_OUTPUT: render_docs(facts), REFERENCE_OUTPUT: render_reference(facts)}
    stale = [path for path, text in outputs.items() if not path.exists() or path.read_text() != text]
    if args.check:
        for path in stale:
            print(f"{path} is out of date: run {pathlib.Path(__file__).name}", file=sys.stderr)
        return 1 if stale else 0
    for path in stale:
        path.write_text(outputs[path])
    return 0


if __name__ == "__main__":
    sys.exit(main())
