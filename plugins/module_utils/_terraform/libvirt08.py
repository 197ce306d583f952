# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Which terraform-provider-libvirt wrote a state (0.8 or 0.9), and 0.8's resources as tasks.

The version is read from the state, per instance, then decided for the whole state:

1. The instance's ``private`` data. 0.8 is built on Terraform's SDKv2, which records the
   resource's schema version there for every object it writes (base64 of a JSON object with a
   ``schema_version`` key); 0.9 is built on the plugin framework, which writes no such record.
   The instance's ``schema_version`` itself is 0 in both, so it tells nothing.
2. Without that record (a state edited by hand, or a provider that left ``private`` out), the
   instance's attribute set: Terraform writes every attribute of the resource's schema, null
   ones included, so the keys are the schema's, whatever was set. A key only 0.8's schema has
   (``disk``, ``addresses``, a volume's ``size``, a cloud-init disk's ``pool``) or only 0.9's
   (``devices``, ``ips``, ``capacity``, ``path``) names the version; both or neither name none.
3. One configuration uses one version of a provider, so every libvirt instance of a state
   comes from the same one: an instance that names none takes the state's; a state whose
   instances name both is refused (each libvirt instance listed with the reason); a state where
   none names one is read as 0.9.

0.8 made its objects from a few attributes (a network from ``mode`` and ``addresses``);
the tasks written here hold the options that give the same libvirt XML, so they find the
objects as 0.8 made them."""

from __future__ import annotations

import base64
import binascii
import dataclasses
import ipaddress
import json
import os
import typing as t

from .errors import NotConvertedError

if t.TYPE_CHECKING:
    from .tfstate import Instance

__all__ = ["V08", "V09", "Context08", "convert_08_args", "not_carried_08", "state_version", "version_of"]

V08 = "0.8"
V09 = "0.9"

# Keys only one version's schema has, per resource type (every attribute is in the state).
_ONLY = {
    "libvirt_domain": (
        frozenset({"disk", "network_interface", "cloudinit", "firmware", "nvram", "console", "graphics", "qemu_agent", "boot_device", "coreos_ignition"}),
        frozenset({"devices", "os", "uuid", "features", "create", "destroy", "update"}),
    ),
    "libvirt_network": (frozenset({"mode", "addresses", "dhcp", "dnsmasq_options", "xml"}), frozenset({"ips", "forward", "uuid"})),
    "libvirt_pool": (frozenset({"path", "xml"}), frozenset({"uuid", "capacity_unit", "create", "destroy"})),
    "libvirt_volume": (
        frozenset({"source", "size", "base_volume_id", "base_volume_name", "base_volume_pool", "xml"}),
        frozenset({"key", "capacity", "target", "backing_store", "create"}),
    ),
    "libvirt_cloudinit_disk": (frozenset({"pool"}), frozenset({"path", "size"})),
    "libvirt_ignition": (frozenset({"pool"}), frozenset({"path", "size"})),
    "libvirt_combustion": (frozenset({"pool"}), frozenset({"path", "size"})),
}


@dataclasses.dataclass
class Context08:
    """What a 0.8 domain's attributes name by id, from the other instances of the state: a
    volume's key, a network's UUID (the domain's XML names the pool and volume, the network)."""

    volumes: dict[str, dict[str, t.Any]] = dataclasses.field(default_factory=dict)  # key -> attributes
    networks: dict[str, str] = dataclasses.field(default_factory=dict)  # UUID -> name

    @classmethod
    def of(cls, instances: list[Instance]) -> Context08:
        context = cls()
        for instance in instances:
            if instance.mode != "managed" or instance.problem:
                continue
            key, name = instance.attributes.get("id"), instance.attributes.get("name")
            if instance.type == "libvirt_volume" and isinstance(key, str):
                context.volumes[key] = instance.attributes
            elif instance.type == "libvirt_network" and isinstance(key, str) and isinstance(name, str):
                context.networks[key] = name
        return context


def _sdk_record(private: t.Any) -> bool:
    if not isinstance(private, str) or not private or len(private) > 1 << 16:
        return False
    try:
        record = json.loads(base64.b64decode(private, validate=True))
    except (binascii.Error, ValueError):
        return False
    return isinstance(record, dict) and "schema_version" in record


def version_of(instance: Instance) -> str | None:
    """The version this instance's own data names (V08, V09), or None."""
    if _sdk_record(instance.private):
        return V08
    only = _ONLY.get(instance.type)
    if only is None:
        return None
    old, new = (bool(only[i] & set(instance.attributes)) for i in (0, 1))
    if old != new:
        return V08 if old else V09
    return None


def state_version(instances: list[Instance]) -> tuple[str, str | None]:
    """The state's version, and why its libvirt instances are refused (a mixed state)."""
    seen: dict[str, str] = {}
    for instance in instances:
        if instance.mode == "managed" and not instance.problem and instance.provider in ("dmacvicar/libvirt", "-/libvirt"):
            found = version_of(instance)
            if found is not None:
                seen.setdefault(found, instance.address)
    if len(seen) > 1:
        return V09, (
            f"the state holds objects of terraform-provider-libvirt 0.8 ({seen[V08]}) and of 0.9 ({seen[V09]}); one configuration "
            "uses one version of a provider, so this state is not one Terraform wrote: it is not converted"
        )
    return (V08 if V08 in seen else V09), None


def _block(value: t.Any) -> dict[str, t.Any]:
    """An SDKv2 block (a list of at most one object) as its object, {} when not set."""
    if isinstance(value, list) and value and isinstance(value[0], dict):
        return value[0]
    return {}


def _no_xslt(attributes: dict[str, t.Any]) -> None:
    if _block(attributes.get("xml")).get("xslt"):
        raise NotConvertedError(
            "xml.xslt: 0.8 applied this XSLT to the XML before it defined the object; no option of the module applies an XSLT "
            "(there is no equivalent): write what it changed as options of the task"
        )


def _pool(attributes: dict[str, t.Any]) -> dict[str, t.Any]:
    _no_xslt(attributes)
    args: dict[str, t.Any] = {"name": attributes.get("name"), "type": attributes.get("type")}
    path = attributes.get("path") or _block(attributes.get("target")).get("path")
    if path:
        args["target"] = {"path": path}
    source = _block(attributes.get("source"))
    if source:
        wanted: dict[str, t.Any] = {}
        if source.get("name"):
            wanted["name"] = source["name"]
        devices = [{"path": device["path"]} for device in source.get("device") or [] if isinstance(device, dict) and device.get("path")]
        if devices:
            wanted["device"] = devices
        if wanted:
            args["source"] = wanted
    # 0.8 built and started the pool (and marked it autostart, which its state does not record, so
    # the task leaves autostart as it is now): its volumes are only reachable while it runs.
    args["running"] = True
    return args


def _volume(attributes: dict[str, t.Any]) -> dict[str, t.Any]:
    _no_xslt(attributes)
    args: dict[str, t.Any] = {"name": attributes.get("name"), "pool": attributes.get("pool")}
    if isinstance(attributes.get("size"), int):
        args["capacity"] = attributes["size"]
        args["capacity_unit"] = "bytes"
    if attributes.get("format"):
        args["target"] = {"format": {"type": attributes["format"]}}
    if attributes.get("base_volume_id"):
        # 0.8 wrote the base volume's key as the backing store's path (a file pool's key is its path).
        args["backing_store"] = {"path": attributes["base_volume_id"]}
    elif attributes.get("base_volume_name"):
        raise NotConvertedError(
            "base_volume_name: the state holds the base volume's name but not its path, which the volume's backing store names: "
            "write backing_store.path (the base volume's path) in the task"
        )
    if attributes.get("source"):
        args["create"] = {"content": {"url": attributes["source"]}}
    return args


def _dns(dns: dict[str, t.Any]) -> dict[str, t.Any]:
    wanted: dict[str, t.Any] = {}
    if isinstance(dns.get("enabled"), bool):
        wanted["enable"] = dns["enabled"]
    forwarders = [{k2: f[k1] for k1, k2 in (("address", "addr"), ("domain", "domain")) if f.get(k1)} for f in dns.get("forwarders") or []]
    if forwarders:
        wanted["forwarders"] = forwarders
    hosts = [{"ip": h.get("ip"), "hostnames": [{"hostname": h.get("hostname")}]} for h in dns.get("hosts") or []]
    if hosts:
        wanted["host"] = hosts
    if dns.get("srvs"):
        raise NotConvertedError("dns.srvs: 0.8's SRV records are not converted; write them as dns.srvs of the task")
    return wanted


def _network(attributes: dict[str, t.Any]) -> dict[str, t.Any]:
    _no_xslt(attributes)
    mode = attributes.get("mode") or "nat"
    args: dict[str, t.Any] = {"name": attributes.get("name")}
    if mode not in ("none", "nat", "route", "open", "bridge"):
        raise NotConvertedError(f"mode: {json.dumps(mode)[:40]} is none of the modes 0.8 knew (none, nat, route, open, bridge)")
    if mode != "none":
        args["forward"] = {"mode": mode}
    if attributes.get("bridge"):
        args["bridge"] = {"name": attributes["bridge"]}
    dns = _block(attributes.get("dns"))
    if attributes.get("domain"):
        args["domain"] = {"name": attributes["domain"], **({"local_only": True} if dns.get("local_only") else {})}
    if attributes.get("mtu"):
        args["mtu"] = {"size": attributes["mtu"]}
    dhcp = _block(attributes.get("dhcp"))
    serve = dhcp["enabled"] if isinstance(dhcp.get("enabled"), bool) else mode in ("none", "nat", "route", "open")
    ips = []
    for address in attributes.get("addresses") or []:
        try:
            subnet = ipaddress.ip_network(address, strict=False)
        except ValueError:
            raise NotConvertedError(f"addresses: {json.dumps(address)[:60]} is not a subnet") from None
        if subnet.max_prefixlen - subnet.prefixlen < 3:
            raise NotConvertedError(f"addresses: {subnet} is smaller than 0.8 accepted")
        # 0.8: the host takes the first address, DHCP serves the second to the one before the last.
        ip: dict[str, t.Any] = {"address": str(subnet.network_address + 1), "prefix": subnet.prefixlen, "family": f"ipv{subnet.version}"}
        if serve:
            ip["dhcp"] = {"ranges": [{"start": str(subnet.network_address + 2), "end": str(subnet.broadcast_address - 1)}]}
        ips.append(ip)
    if ips:
        args["ips"] = ips
    if dns:
        wanted = _dns(dns)
        if wanted:
            args["dns"] = wanted
    routes = []
    for route in attributes.get("routes") or []:
        try:
            subnet = ipaddress.ip_network(route.get("cidr"), strict=False)
        except (ValueError, TypeError):
            raise NotConvertedError("routes: a cidr that is not a subnet") from None
        routes.append({"family": f"ipv{subnet.version}", "address": str(subnet.network_address), "prefix": subnet.prefixlen, "gateway": route.get("gateway")})
    if routes:
        args["routes"] = routes
    options = [o for o in (_block(attributes.get("dnsmasq_options")).get("options") or []) if isinstance(o, dict)]
    if options:
        args["dnsmasq_options"] = {"option": [{"value": o["option_name"] + (f"={o['option_value']}" if o.get("option_value") else "")} for o in options]}
    if isinstance(attributes.get("autostart"), bool):
        args["autostart"] = attributes["autostart"]
    return args


def _letters(index: int) -> str:
    """0.8's device letters: a..z, then aa, ab, ..."""
    quotient, rest = divmod(index, 26)
    letter = chr(ord("a") + rest)
    return letter if quotient == 0 else _letters(quotient - 1) + letter


# 0.8 domain attributes this module does not convert (yet), with what the user can do.
_DOMAIN_NOT_CONVERTED = {
    "filesystem": "filesystem: 0.8's 9p shares are not converted; write them as devices.filesystems of the task",
    "tpm": "tpm: not converted; write it as devices.tpms of the task",
    "coreos_ignition": "coreos_ignition: 0.8 passed the Ignition volume through fw_cfg (or a disk); not converted",
    "combustion": "combustion: 0.8 passed the Combustion volume through fw_cfg; not converted",
    "kernel": "kernel: direct kernel boot is not converted; write os.kernel, os.initrd and os.cmdline in the task",
    "initrd": "initrd: direct kernel boot is not converted; write os.kernel, os.initrd and os.cmdline in the task",
    "cmdline": "cmdline: direct kernel boot is not converted; write os.kernel, os.initrd and os.cmdline in the task",
    "boot_device": "boot_device: not converted; write os.boot_devices in the task",
}


def _disk(index: int, disk: dict[str, t.Any], counters: dict[str, int], context: Context08) -> dict[str, t.Any]:
    where = f"disk[{index}]"
    if disk.get("scsi"):
        raise NotConvertedError(f"{where}.scsi: 0.8's SCSI disks (a virtio-scsi controller, a WWN) are not converted")
    if disk.get("url"):
        raise NotConvertedError(f"{where}.url: 0.8's network disks are not converted")
    out: dict[str, t.Any] = {"device": "disk", "target": {"dev": f"vd{_letters(index)}", "bus": "virtio"}, "driver": {"name": "qemu", "type": "raw"}}
    if disk.get("volume_id"):
        volume = context.volumes.get(disk["volume_id"])
        if volume is None:
            raise NotConvertedError(
                f"{where}.volume_id: the volume is not a libvirt_volume of this state, so its pool and name (which the domain's XML names) are unknown"
            )
        out["source"] = {"volume": {"pool": volume.get("pool"), "volume": volume.get("name")}}
        if volume.get("format") == "qcow2":
            out["driver"]["type"] = "qcow2"
    elif disk.get("file"):
        out["source"] = {"file": {"file": disk["file"]}}
        if disk["file"].endswith(".iso"):
            out.update(device="cdrom", target={"dev": f"hd{_letters(counters['iso'])}", "bus": "ide"})
            counters["iso"] += 1
    elif disk.get("block_device"):
        out["source"] = {"block": {"dev": disk["block_device"]}}
    else:
        raise NotConvertedError(f"{where}: names no volume_id, file or block_device")
    return out


def _interface(index: int, interface: dict[str, t.Any], context: Context08) -> dict[str, t.Any]:
    where = f"network_interface[{index}]"
    mac = interface.get("mac")
    if not isinstance(mac, str) or not mac:
        raise NotConvertedError(f"{where}.mac: the state holds no MAC address, which the task must keep")
    out: dict[str, t.Any] = {"mac": {"address": mac.lower()}, "model": {"type": "virtio"}}
    network = interface.get("network_name") or context.networks.get(interface.get("network_id") or "")
    if interface.get("network_id") and not network:
        raise NotConvertedError(f"{where}.network_id: the network is not a libvirt_network of this state, so its name is unknown")
    if network:
        out["source"] = {"network": {"network": network}}
    elif interface.get("bridge"):
        out["source"] = {"bridge": {"bridge": interface["bridge"]}}
    else:
        for option, mode in (("vepa", "vepa"), ("private", "private"), ("macvtap", "bridge"), ("passthrough", "passthrough")):
            if interface.get(option):
                out["source"] = {"direct": {"dev": interface[option], "mode": mode}}
                break
        else:
            raise NotConvertedError(f"{where}: names no network, bridge or device")
    return out


def _domain_os(attributes: dict[str, t.Any]) -> dict[str, t.Any]:
    os_args: dict[str, t.Any] = {"type": "hvm"}
    for key, option in (("arch", "type_arch"), ("machine", "type_machine")):
        if attributes.get(key):
            os_args[option] = attributes[key]
    if attributes.get("firmware"):
        os_args.update(loader=attributes["firmware"], loader_readonly=True, loader_type="pflash", loader_secure=False)
        nvram = _block(attributes.get("nvram"))
        wanted = {option: nvram[key] for key, option in (("file", "nv_ram"), ("template", "template")) if nvram.get(key)}
        if wanted:
            os_args["nv_ram"] = wanted
    return os_args


def _other_devices(attributes: dict[str, t.Any]) -> dict[str, t.Any]:
    devices: dict[str, t.Any] = {}
    consoles = []
    for index, console in enumerate(attributes.get("console") or []):
        if console.get("type", "pty") != "pty" or console.get("source_path"):
            raise NotConvertedError(f"console[{index}]: only 0.8's pty consoles are converted; write devices.consoles of the task")
        port = str(console.get("target_port") or "0")
        if not port.isdigit():
            raise NotConvertedError(f"console[{index}].target_port: not a port number")
        target: dict[str, t.Any] = {"port": int(port)}
        if console.get("target_type"):
            target["type"] = console["target_type"]
        consoles.append({"target": target})
    if consoles:
        devices["consoles"] = consoles
    graphics = _block(attributes.get("graphics"))
    if graphics.get("type") in ("spice", "vnc"):
        devices["graphics"] = [{graphics["type"]: {"auto_port": bool(graphics.get("autoport"))}}]
    video = _block(attributes.get("video"))
    if video.get("type"):
        devices["videos"] = [{"model": {"type": video["type"]}}]
    return devices


def _domain(attributes: dict[str, t.Any], context: Context08) -> dict[str, t.Any]:
    _no_xslt(attributes)
    for key, why in _DOMAIN_NOT_CONVERTED.items():
        if attributes.get(key):
            raise NotConvertedError(why)
    args: dict[str, t.Any] = {"name": attributes.get("name"), "uuid": attributes.get("id"), "type": attributes.get("type") or "kvm"}
    if isinstance(attributes.get("memory"), int):
        args.update(memory=attributes["memory"], memory_unit="MiB")
    if isinstance(attributes.get("vcpu"), int):
        args["vcpu"] = attributes["vcpu"]
    if attributes.get("description"):
        args["description"] = attributes["description"]
    args["os"] = _domain_os(attributes)
    cpu = _block(attributes.get("cpu"))
    if cpu.get("mode"):
        args["cpu"] = {"mode": cpu["mode"]}
    devices: dict[str, t.Any] = {}
    counters = {"iso": 0}
    disks = [_disk(index, disk, counters, context) for index, disk in enumerate(attributes.get("disk") or []) if isinstance(disk, dict)]
    cloudinit = attributes.get("cloudinit")
    if cloudinit:
        # 0.8's id of the cloud-init disk: <volume key>;<uuid>; a file pool's volume key is its path.
        path = str(cloudinit).split(";", 1)[0]
        if not os.path.isabs(path):
            raise NotConvertedError("cloudinit: the volume's key is not its path (a pool other than a directory), which the CD-ROM names")
        disks.append({
            "device": "cdrom",
            "driver": {"name": "qemu", "type": "raw"},
            "source": {"file": {"file": path}},
            "target": {"dev": "hdd", "bus": "ide"},
            "serial": "cloudinit",
        })  # fmt: skip
    if disks:
        devices["disks"] = disks
    interfaces = [_interface(index, item, context) for index, item in enumerate(attributes.get("network_interface") or []) if isinstance(item, dict)]
    if interfaces:
        devices["interfaces"] = interfaces
    devices.update(_other_devices(attributes))
    args["devices"] = devices
    for key in ("running", "autostart"):
        if isinstance(attributes.get(key), bool):
            args[key] = attributes[key]
    return args


def _firstboot(kind: str, attributes: dict[str, t.Any]) -> t.NoReturn:
    what = {"libvirt_cloudinit_disk": "cloud-init ISO", "libvirt_ignition": "Ignition config", "libvirt_combustion": "Combustion script"}[kind]
    raise NotConvertedError(
        f"0.8 wrote the {what} itself, as the volume {json.dumps(attributes.get('name'))[:80]} of pool {json.dumps(attributes.get('pool'))[:80]} "
        f"(the domain uses that volume); {kind} would write a volume of its own making (other bytes), so the task would change it: "
        "the volume stays as 0.8 made it, and the domain's task keeps it attached"
    )


def convert_08_args(instance: Instance, context: Context08) -> dict[str, t.Any]:
    """The options of the task for a 0.8 instance (NotConvertedError: why there is none)."""
    attributes = instance.attributes
    if instance.type == "libvirt_pool":
        return _pool(attributes)
    if instance.type == "libvirt_volume":
        return _volume(attributes)
    if instance.type == "libvirt_network":
        return _network(attributes)
    if instance.type in ("libvirt_cloudinit_disk", "libvirt_ignition", "libvirt_combustion"):
        _firstboot(instance.type, attributes)
    return _domain(attributes, context)


# What the tasks carry of a 0.8 object (attribute paths without list indexes; a path carries what
# is below it), and what they need not carry: ids and sizes libvirt computes.
_CARRIED_08 = {
    "libvirt_pool": ("id", "name", "type", "path", "target.path", "source.name", "source.device.path", "capacity", "allocation", "available"),
    "libvirt_volume": ("id", "name", "pool", "size", "format", "base_volume_id", "source"),
    "libvirt_network": (
        "id", "name", "mode", "bridge", "domain", "mtu", "addresses", "dhcp.enabled", "dns.enabled", "dns.local_only",
        "dns.forwarders.address", "dns.forwarders.domain", "dns.hosts.ip", "dns.hosts.hostname", "routes.cidr", "routes.gateway",
        "dnsmasq_options.options.option_name", "dnsmasq_options.options.option_value", "autostart",
    ),
    "libvirt_domain": (
        "id", "name", "type", "memory", "vcpu", "description", "arch", "machine", "firmware", "nvram.file", "nvram.template", "cpu.mode",
        "disk.volume_id", "disk.file", "disk.block_device", "cloudinit", "console.type", "console.target_port", "console.target_type",
        "graphics.type", "graphics.autoport", "video.type", "running", "autostart",
        "network_interface.mac", "network_interface.network_name", "network_interface.network_id", "network_interface.bridge",
        "network_interface.vepa", "network_interface.private", "network_interface.macvtap", "network_interface.passthrough",
    ),
}  # fmt: skip
_WHY_NOT_08 = {
    "base_volume_name": "the base volume's path, which the task's backing_store names, comes from base_volume_id",
    "base_volume_pool": "the base volume's path, which the task's backing_store names, comes from base_volume_id",
    "qemu_agent": "0.8 waited for the guest agent to report the addresses; nothing of the domain's XML (its agent channel stays as it is)",
    "network_interface.wait_for_lease": "0.8 waited for a DHCP lease; nothing of the domain's XML",
    "network_interface.hostname": "0.8 added a DHCP host to the network for it, not part of the domain's XML; the network keeps it until it is redefined",
    "network_interface.addresses": "0.8 added a DHCP host to the network for it, not part of the domain's XML; the network keeps it until it is redefined",
    "emulator": "the domain keeps the emulator it has; the task does not name one",
    "graphics.listen_type": "the task's graphics names the type and autoport only; the listen address stays as it is",
    "graphics.listen_address": "the task's graphics names the type and autoport only; the listen address stays as it is",
}


def _set_paths(value: t.Any, path: str = "", shown: str = "") -> t.Iterator[tuple[str, str]]:
    """(path without indexes, path as shown) of each value set below ``value``: SDKv2 writes an
    attribute not set as its zero value (null, "", 0, false, an empty list)."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _set_paths(item, f"{path}.{key}" if path else str(key), f"{shown}.{key}" if shown else str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _set_paths(item, path, f"{shown}[{index}]")
    elif value not in (None, "", 0, False):
        yield path, shown


# 0.8 defaults its provider wrote into the XML only for what the conversion refuses (a tcp
# console; coreos_ignition), so that listing them would only be noise: a pty console's
# source_host and source_service (127.0.0.1 and 0), fw_cfg_name (opt/com.coreos/config).
_NEVER_WRITTEN_08 = {"libvirt_domain": ("console.source_host", "console.source_service", "fw_cfg_name")}


def not_carried_08(instance: Instance) -> list[tuple[str, str]]:
    """The attributes set in a converted 0.8 object that its task does not carry, each with why."""
    carried = _CARRIED_08.get(instance.type, ())
    out: list[tuple[str, str]] = []
    for path, shown in _set_paths(instance.attributes):
        if any(path == kept or path.startswith(kept + ".") for kept in carried) or path in _NEVER_WRITTEN_08.get(instance.type, ()):
            continue
        out.append((shown, _WHY_NOT_08.get(path, "no option of the task takes this attribute of a 0.8 object; it stays as the object has it")))
    return out
