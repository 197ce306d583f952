# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""What a running domain takes from its new definition without a restart.

Planned from the definition (as libvirt holds it after the redefinition, or as it would be
defined, in check mode) and the running domain's XML; each change is applied with
VIR_DOMAIN_AFFECT_LIVE only (the definition already has it) and can be simulated on the running
XML, so that a check run predicts what the real run leaves pending:

- the balloon (``current_memory``) within the running maximum;
- more vCPUs, up to the running maximum, then onlined in the guest through its agent
  (a hot-added vCPU starts offline unless the guest onlines it). Fewer vCPUs wait for a
  restart: QEMU's unplug needs the guest's cooperation and libvirt can lose track of it;
- interfaces plugged in or out by MAC address, and one whose definition changed plugged out
  and in again (same MAC);
- disks on a bus that takes hot-plug (virtio, SCSI, USB) plugged in or out by target; a
  CD-ROM's or floppy's media changed on any bus;
- a graphics password (``passwd``, ``passwd_valid_to``, ``connected``): all QEMU changes live.

Everything else (the memory maximum, the machine, fewer vCPUs, a disk's other settings, a new
graphics device...) waits for the restart the module's ``update`` option allows."""

from __future__ import annotations

import copy
import dataclasses
import time
import typing as t

from . import schema
from .connection import libvirt
from .units import to_bytes

__all__ = ["LiveChange", "live_changes"]

# Buses whose disks QEMU plugs in and out of a running guest (IDE and SATA ones: on restart).
_HOTPLUG_BUSES = {"virtio", "scsi", "usb"}
_REMOVABLE_MEDIA = {"cdrom", "floppy"}
# What QEMU changes on running graphics (libvirt refuses any other change).
_LIVE_GRAPHICS_ATTRS = ("passwd", "passwdValidTo", "connected")
_LIVE_GRAPHICS_OPTIONS = {"passwd", "passwd_valid_to", "connected"}
BALLOON_SECONDS = 10.0  # how long a guest's balloon driver may take to reach a new size
GUEST_SECONDS = 10.0  # how long a guest's kernel may take to see a hot-plugged vCPU


@dataclasses.dataclass
class LiveChange:
    """One change to a running domain: ``apply`` it (returns a warning or None) or
    ``simulate`` it on the running XML (check mode)."""

    what: str
    apply: t.Callable[[t.Any], str | None]
    simulate: t.Callable[[t.Any], None]


# --- memory and vCPUs -----------------------------------------------------------------------


def _kib(element: t.Any) -> int | None:
    text = (element.text or "").strip() if element is not None else ""
    if not text.isdigit():
        return None
    return to_bytes(int(text), element.get("unit"), default="KiB") // 1024


def _balloon(definition: t.Any, running: t.Any, _pending: list[str]) -> list[LiveChange]:
    want = _kib(definition.find("currentMemory")) or _kib(definition.find("memory"))
    have, ceiling = _kib(running.find("currentMemory")), _kib(running.find("memory"))
    balloon = running.find("devices/memballoon")
    if want is None or have is None or ceiling is None or want == have or want > ceiling:
        return []  # more than the running maximum: on restart
    if balloon is not None and balloon.get("model") == "none":
        return []

    def apply(dom: t.Any) -> str | None:
        dom.setMemoryFlags(want, libvirt.VIR_DOMAIN_AFFECT_LIVE)
        # libvirt reports what the guest's balloon driver has reached, not the target: wait for it.
        deadline = time.monotonic() + BALLOON_SECONDS
        while (reached := int(dom.info()[2])) != want:
            if time.monotonic() >= deadline:
                return (
                    f"current_memory: the guest's balloon is at {reached} KiB of the {want} KiB asked after {BALLOON_SECONDS:g} s "
                    "(it follows when the guest's virtio_balloon driver runs and can free the memory)"
                )
            time.sleep(0.2)
        return None

    def simulate(root: t.Any) -> None:
        current = root.find("currentMemory")
        current.text, current.attrib["unit"] = str(want), "KiB"

    return [LiveChange(f"current_memory {have} KiB -> {want} KiB (balloon)", apply, simulate)]


def _vcpu_counts(root: t.Any) -> tuple[int, int] | None:
    vcpu = root.find("vcpu")
    text = (vcpu.text or "").strip() if vcpu is not None else ""
    if not text.isdigit():
        return None
    maximum = int(text)
    current = vcpu.get("current") or text
    return (int(current), maximum) if current.isdigit() else None


def _vcpus(definition: t.Any, running: t.Any, _pending: list[str]) -> list[LiveChange]:
    wanted, live = _vcpu_counts(definition), _vcpu_counts(running)
    if wanted is None or live is None:
        return []
    want, (have, ceiling) = wanted[0], live
    if want <= have or want > ceiling:
        return []  # fewer, or more than the running maximum: on restart

    def apply(dom: t.Any) -> str | None:
        dom.setVcpusFlags(want, libvirt.VIR_DOMAIN_AFFECT_LIVE)
        # A hot-added vCPU is offline until the guest onlines it: its agent does, once the
        # guest's kernel has seen the vCPU arrive (until then the agent reports fewer).
        deadline = time.monotonic() + GUEST_SECONDS
        while True:
            try:
                dom.setVcpusFlags(want, libvirt.VIR_DOMAIN_VCPU_GUEST)
                return None
            except libvirt.libvirtError as exc:
                if exc.get_error_code() == libvirt.VIR_ERR_AGENT_UNRESPONSIVE or time.monotonic() >= deadline:
                    return (
                        f"vcpu_current: {want} vCPUs are plugged into the running domain, but its guest agent could not bring them "
                        f"online ({exc}); the guest uses them once it onlines them (echo 1 > /sys/devices/system/cpu/cpuN/online, or a udev rule)"
                    )
            time.sleep(0.2)

    def simulate(root: t.Any) -> None:
        vcpu = root.find("vcpu")
        if want == ceiling:
            vcpu.attrib.pop("current", None)
        else:
            vcpu.attrib["current"] = str(want)

    return [LiveChange(f"vcpu_current {have} -> {want} (hot-plug)", apply, simulate)]


# --- devices ----------------------------------------------------------------------------------


def _device_xml(element: t.Any) -> str:
    return schema.serialize(element)


def _attach(element: t.Any) -> t.Callable[[t.Any], None]:
    xml = _device_xml(element)
    return _quiet(lambda dom: dom.attachDeviceFlags(xml, libvirt.VIR_DOMAIN_AFFECT_LIVE))


def _detach(element: t.Any) -> t.Callable[[t.Any], None]:
    xml = _device_xml(element)
    return _quiet(lambda dom: dom.detachDeviceFlags(xml, libvirt.VIR_DOMAIN_AFFECT_LIVE))


def _update(element: t.Any) -> t.Callable[[t.Any], None]:
    xml = _device_xml(element)
    return _quiet(lambda dom: dom.updateDeviceFlags(xml, libvirt.VIR_DOMAIN_AFFECT_LIVE))


def _quiet(call: t.Callable[[t.Any], t.Any]) -> t.Callable[[t.Any], None]:
    def run(dom: t.Any) -> None:
        call(dom)

    return run


def _add_to(element: t.Any) -> t.Callable[[t.Any], None]:
    fresh = copy.deepcopy(element)

    def simulate(root: t.Any) -> None:
        devices = root.find("devices")
        if devices is None:
            devices = schema.element("devices")
            root.append(devices)
        devices.append(copy.deepcopy(fresh))

    return simulate


def _remove_from(tag: str, matches: t.Callable[[t.Any], bool]) -> t.Callable[[t.Any], None]:
    def simulate(root: t.Any) -> None:
        for found in list(root.iterfind(f"devices/{tag}")):
            if matches(found):
                found.getparent().remove(found)

    return simulate


def _replace_in(tag: str, matches: t.Callable[[t.Any], bool], element: t.Any) -> t.Callable[[t.Any], None]:
    fresh = copy.deepcopy(element)

    def simulate(root: t.Any) -> None:
        for found in list(root.iterfind(f"devices/{tag}")):
            if matches(found):
                found.getparent().replace(found, copy.deepcopy(fresh))

    return simulate


def _same(struct: str, wanted: t.Any, live: t.Any) -> bool:
    """Whether the running device holds everything its definition says (what libvirt adds to a
    running device, its alias or target name, is not asked for)."""
    options = schema.read(struct, wanted)
    return not schema.compare(struct, options, schema.read(struct, live, like=options))


def _mac(element: t.Any) -> str | None:
    mac = element.find("mac")
    address = mac.get("address") if mac is not None else None
    return address.lower() if address else None


def _has_mac(mac: str) -> t.Callable[[t.Any], bool]:
    return lambda element: _mac(element) == mac


def _interfaces(definition: t.Any, running: t.Any, _pending: list[str]) -> list[LiveChange]:
    wanted = {mac: e for e in definition.iterfind("devices/interface") if (mac := _mac(e))}
    live = {mac: e for e in running.iterfind("devices/interface") if (mac := _mac(e))}
    changes: list[LiveChange] = []
    for mac, element in live.items():
        if mac not in wanted or not _same("DomainInterface", wanted[mac], element):
            changes.append(LiveChange(f"interface {mac} unplugged", _detach(element), _remove_from("interface", _has_mac(mac))))
    for mac, element in wanted.items():
        if mac not in live or not _same("DomainInterface", element, live[mac]):
            changes.append(LiveChange(f"interface {mac} plugged in", _attach(element), _add_to(element)))
    # An interface defined without a MAC address (check mode: libvirt has not chosen it yet).
    for element in definition.iterfind("devices/interface"):
        if _mac(element) is None:
            changes.append(LiveChange("interface plugged in", _attach(element), _add_to(element)))
    return changes


def _target(element: t.Any) -> str | None:
    target = element.find("target")
    return target.get("dev") if target is not None else None


def _same_media(wanted: t.Any, live: t.Any) -> bool:
    """An empty drive is empty whatever its format (libvirt drops the format of an empty drive
    from the running XML)."""
    wanted_empty, live_empty = wanted.find("source") is None, live.find("source") is None
    if wanted_empty or live_empty:
        return wanted_empty and live_empty
    return _same("DomainDisk", wanted, live)


def _disks(definition: t.Any, running: t.Any, _pending: list[str]) -> list[LiveChange]:
    wanted = {dev: e for e in definition.iterfind("devices/disk") if (dev := _target(e))}
    live = {dev: e for e in running.iterfind("devices/disk") if (dev := _target(e))}
    changes: list[LiveChange] = []

    def hotplug(element: t.Any) -> bool:
        target = element.find("target")
        return target.get("bus") in _HOTPLUG_BUSES and element.get("device", "disk") not in _REMOVABLE_MEDIA

    def same_target(dev: str) -> t.Callable[[t.Any], bool]:
        return lambda e: _target(e) == dev

    for dev, element in live.items():
        if dev not in wanted and hotplug(element):
            changes.append(LiveChange(f"disk {dev} unplugged", _detach(element), _remove_from("disk", same_target(dev))))
    for dev, element in wanted.items():
        if dev not in live:
            if hotplug(element):
                changes.append(LiveChange(f"disk {dev} plugged in", _attach(element), _add_to(element)))
        elif element.get("device") in _REMOVABLE_MEDIA and live[dev].get("device") == element.get("device") and not _same_media(element, live[dev]):
            changes.append(LiveChange(f"disk {dev} media changed", _update(element), _replace_in("disk", same_target(dev), element)))
    return changes


def _graphics(definition: t.Any, running: t.Any, pending: list[str]) -> list[LiveChange]:
    """A graphics device whose only pending options are the ones QEMU changes live (what
    libvirt fills in on the running one, its port and listen address, stays as it is)."""
    wanted, live = list(definition.iterfind("devices/graphics")), list(running.iterfind("devices/graphics"))
    if len(wanted) != len(live):
        return []  # a graphics device added or removed: on restart
    by_index: dict[int, list[str]] = {}
    for path in pending:
        parts = schema.path_parts(path)
        if parts[:2] == ["devices", "graphics"] and len(parts) > 2 and isinstance(parts[2], int):
            by_index.setdefault(parts[2], []).append(str(parts[-1]))
    changes: list[LiveChange] = []
    for index, names in sorted(by_index.items()):
        element, current = wanted[index], live[index] if index < len(live) else None
        if current is None or element.get("type") != current.get("type") or not set(names) <= _LIVE_GRAPHICS_OPTIONS:
            continue
        if not element.get("passwd") or not current.get("passwd"):
            continue  # QEMU sets a password on a display that started with one; to add or remove one: on restart
        updated = copy.deepcopy(current)
        for name in _LIVE_GRAPHICS_ATTRS:
            if element.get(name) is None:
                updated.attrib.pop(name, None)
            else:
                updated.attrib[name] = element.get(name)

        def simulate(root: t.Any, index: int = index, updated: t.Any = updated) -> None:
            found = list(root.iterfind("devices/graphics"))[index]
            found.getparent().replace(found, copy.deepcopy(updated))

        changes.append(LiveChange(f"graphics[{index}] password", _update(updated), simulate))
    return changes


# Which option paths each kind of change is for: a kind is only planned where the running
# domain differs from what is declared there (a device is never plugged again for nothing).
_PLANNERS: tuple[tuple[tuple[str, ...], t.Callable[[t.Any, t.Any, list[str]], list[LiveChange]]], ...] = (
    (("memory", "current_memory"), _balloon),
    (("vcpu",), _vcpus),
    (("devices.interfaces",), _interfaces),
    (("devices.disks",), _disks),
    (("devices.graphics",), _graphics),
)


def live_changes(definition: t.Any, running: t.Any, pending: list[str]) -> list[LiveChange]:
    """The changes that bring the running domain (XML root ``running``) towards
    ``definition`` (XML root) without a restart, for the option paths ``pending`` (where the
    running domain differs from what is declared)."""
    return [change for prefixes, plan in _PLANNERS if any(path.startswith(prefixes) for path in pending) for change in plan(definition, running, pending)]
