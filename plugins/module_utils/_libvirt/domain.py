# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""libvirt_domain: define, start, stop, update in place (same UUID), remove.

The lifecycle follows terraform-provider-libvirt 0.9 where it is sound, and differs where
upstream loses data or state: a change redefines the domain in place (upstream undefines it
first), and running/autostart are enforced on every run (upstream never refreshes running:
https://github.com/dmacvicar/terraform-provider-libvirt/issues/1339)."""

from __future__ import annotations

import copy
import re
import time
import typing as t

from . import schema
from .connection import libvirt
from .domain_disks import settle_disks
from .domain_traps import domain_traps
from .errors import LibvirtError, LibvirtValidationError, is_unsupported
from .resource import Outcome, Persistent, converge, copy_path, definition_xml, lookup_by_name
from .units import to_bytes
from .xml_option import parse_untrusted

__all__ = ["DOMAIN_ARGSPEC", "destroy_flags", "ensure_domain", "start_flags", "undefine_flags"]

STRUCT = "Domain"
SCHEMA_SPEC = schema.argument_spec(STRUCT)
_SHUTDOWN = {"type": "dict", "options": {"timeout": {"type": "int", "default": 30}}}
DOMAIN_ARGSPEC: dict[str, dict[str, t.Any]] = {
    **SCHEMA_SPEC,
    "name": {"type": "str"},
    "uuid": {"type": "str"},
    "xml": {"type": "str"},
    "state": {"type": "str", "choices": ["present", "absent"], "default": "present"},
    "running": {"type": "bool"},
    "paused": {"type": "bool"},
    "autostart": {"type": "bool"},
    "create": {
        "type": "dict",
        "options": {flag: {"type": "bool", "default": False} for flag in ("paused", "autodestroy", "bypass_cache", "force_boot", "validate", "reset_nvram")},
    },
    "destroy": {"type": "dict", "options": {"graceful": {"type": "bool", "default": False}, "shutdown": _SHUTDOWN}},
    "update": {"type": "dict", "options": {"shutdown": _SHUTDOWN}},
}
_NOT_SCHEMA = {"name", "uuid", "xml", "state", "running", "paused", "autostart", "create", "destroy", "update", "uri"}

_START_FLAGS = {
    "paused": "VIR_DOMAIN_START_PAUSED",
    "autodestroy": "VIR_DOMAIN_START_AUTODESTROY",
    "bypass_cache": "VIR_DOMAIN_START_BYPASS_CACHE",
    "force_boot": "VIR_DOMAIN_START_FORCE_BOOT",
    "validate": "VIR_DOMAIN_START_VALIDATE",
    "reset_nvram": "VIR_DOMAIN_START_RESET_NVRAM",
}
# libvirt versions (major * 1e6 + minor * 1e3 + micro) from which undefine takes a flag.
_UNDEFINE_NVRAM_SINCE = 1_002_009
_UNDEFINE_TPM_SINCE = 8_009_000
# What libvirt rewrites in the live XML when it starts a domain (firmware autoselection, the
# host CPU model expanded): the live compare leaves these out (upstream's "inconsistent result"
# errors, for example https://github.com/dmacvicar/terraform-provider-libvirt/issues/1269).
_REWRITTEN_AT_START = re.compile(r"^(os\.(firmware|loader|nv_ram)|cpu\.(mode|model|match|check|features|fallback))")
POLL_SECONDS = 1.0  # state and address polling; upstream polls every 1 s (state) and 5 s (addresses)


# --- options -------------------------------------------------------------------------------


def _desired(params: dict[str, t.Any]) -> tuple[dict[str, t.Any], t.Any]:
    """The options asked for, and the XML root they give: from ``xml`` or from the options."""
    schema_options = {k: params.get(k) for k in SCHEMA_SPEC if k not in _NOT_SCHEMA}
    if params.get("xml"):
        given = sorted(k for k, v in schema_options.items() if v is not None)
        if given:
            raise LibvirtValidationError(f"xml: cannot be combined with the domain options ({', '.join(given)}); put them in the XML")
        root = parse_untrusted(params["xml"])
        if root.tag != "domain":
            raise LibvirtValidationError(f"xml: the root element must be <domain>, not <{root.tag}>")
        desired = schema.read(STRUCT, root)
        try:  # the same checks as options get: numbers in range, before libvirt parses them
            schema.build(STRUCT, desired)
            _check_numa_references(desired)
        except LibvirtValidationError as exc:
            raise LibvirtValidationError(f"xml: {exc}") from None
        name = params.get("name")
        if name and desired.get("name") not in (None, name):
            raise LibvirtValidationError(f"xml: its <name> is {desired.get('name')!r} but name is {name!r}")
        if name and desired.get("name") is None:
            schema.apply(STRUCT, root, {"name": name}, path="")
            desired["name"] = name
        return desired, root
    desired = schema.options_of(STRUCT, schema_options)
    if params.get("name"):
        desired["name"] = params["name"]
    _follow_maximums(desired)
    waits = _pop_wait_for_ip(desired)
    root = schema.build(STRUCT, desired)  # bad input fails here, before anything is touched
    _check_currents(desired)
    _check_numa_references(desired)
    schema.comparable(STRUCT, desired)  # and so do unknown units
    _put_back_wait_for_ip(desired, waits)
    return desired, root


def _follow_maximums(desired: dict[str, t.Any]) -> None:
    """The documented rule for how the sizes move together: without ``current_memory`` the
    guest has ``memory``, and without ``vcpu_current`` all ``vcpu`` are online, whatever the
    domain had before (written over its definition, an old current value would stay)."""
    if desired.get("memory") is not None and desired.get("current_memory") is None:
        desired["current_memory"], desired["current_memory_unit"] = desired["memory"], desired.get("memory_unit")
    if desired.get("vcpu") is not None and desired.get("vcpu_current") is None:
        desired["vcpu_current"] = desired["vcpu"]


def _check_currents(desired: dict[str, t.Any]) -> None:
    """A current size is at most its maximum (libvirt would lower it without a word)."""
    sizes = {}
    for option in ("memory", "current_memory"):
        if isinstance(desired.get(option), int):
            sizes[option] = to_bytes(desired[option], desired.get(f"{option}_unit"), default="KiB", path=f"{option}_unit")
    if len(sizes) == 2 and sizes["current_memory"] > sizes["memory"]:
        raise LibvirtValidationError(
            f"current_memory: {sizes['current_memory'] // 1024} KiB is more than memory ({sizes['memory'] // 1024} KiB), the most the guest can have; "
            "raise memory or lower current_memory"
        )
    current, maximum = desired.get("vcpu_current"), desired.get("vcpu")
    if isinstance(current, int) and isinstance(maximum, int) and current > maximum:
        raise LibvirtValidationError(
            f"vcpu_current: {current} is more than vcpu ({maximum}), the most vCPUs the guest can have; raise vcpu or lower vcpu_current"
        )


def _check_numa_references(desired: dict[str, t.Any]) -> None:
    """NUMA distances as libvirt wants them: a sibling is one of the cells (by position), the
    distance to the cell itself is 10 and to another from 11 to 255. libvirt 9.0 reports any
    other value, but corrupts its heap doing so (the daemon aborts)."""
    cells = ((desired.get("cpu") or {}).get("numa") or {}).get("cell") or []
    for c, cell in enumerate(cells):
        own = (cell or {}).get("id", c)
        for s, sibling in enumerate(((cell or {}).get("distances") or {}).get("siblings") or []):
            where = f"cpu.numa.cell[{c}].distances.siblings[{s}]"
            sibling_id, value = (sibling or {}).get("id"), (sibling or {}).get("value")
            if isinstance(sibling_id, int) and sibling_id >= len(cells):
                raise LibvirtValidationError(f"{where}.id: {sibling_id} is not a cell: cpu.numa.cell has {len(cells)} (ids 0 to {len(cells) - 1})")
            if sibling_id == own and value is not None and value != 10:
                raise LibvirtValidationError(f"{where}.value: the distance of cell {own} to itself must be 10, got {value}")
            if sibling_id != own and value is not None and not 11 <= value <= 255:
                raise LibvirtValidationError(f"{where}.value: a distance to another cell must be from 11 to 255, got {value}")


def _pop_wait_for_ip(options: dict[str, t.Any]) -> list[dict[str, t.Any] | None]:
    """Take the provider-only ``wait_for_ip`` out of the interfaces (it is not XML)."""
    interfaces = (options.get("devices") or {}).get("interfaces") or []
    return [iface.pop("wait_for_ip", None) for iface in interfaces]


def _put_back_wait_for_ip(options: dict[str, t.Any], waits: list[dict[str, t.Any] | None]) -> None:
    for iface, wait in zip((options.get("devices") or {}).get("interfaces") or [], waits):
        if wait is not None:
            iface["wait_for_ip"] = wait


class _Normalizer:
    """What only the host knows of how libvirt rewrites a domain: machine aliases (pc ->
    pc-i440fx-9.0, from its capabilities). The rest is in the schema (schema.compare)."""

    def __init__(self, conn: t.Any) -> None:
        self.conn = conn
        self._machines: dict[str, str] | None = None

    def machines(self) -> dict[str, str]:
        if self._machines is None:
            self._machines = {}
            try:
                caps = schema.parse(self.conn.getCapabilities())
            except libvirt.libvirtError:
                return self._machines
            for machine in caps.iter("machine"):
                if machine.get("canonical") and machine.text:
                    self._machines[machine.text.strip()] = machine.get("canonical")
        return self._machines

    def __call__(self, path: str, value: t.Any) -> t.Any:
        if path == "os.type_machine" and isinstance(value, str):
            return self.machines().get(value, value)
        return value


def _without_provider_options(desired: dict[str, t.Any]) -> dict[str, t.Any]:
    out = copy.deepcopy(desired)
    _pop_wait_for_ip(out)
    return out


def _compare(desired: dict[str, t.Any], xml: str, normalizer: _Normalizer) -> tuple[list[str], dict[str, t.Any]]:
    """(option paths where ``xml`` does not hold ``desired``, ``desired`` as ``xml`` has it:
    the same values where they agree, libvirt's where they differ) for the diff."""
    wanted = _without_provider_options(desired)
    root = schema.parse(xml)
    _empty_drives_as_wanted(root, wanted)
    current = schema.read(STRUCT, root, like=wanted)
    paths = schema.compare(STRUCT, wanted, current, normalize=normalizer)
    before = _without_provider_options(desired)
    for path in paths:
        copy_path(current, before, path)
    return paths, before


def _empty_drives_as_wanted(root: t.Any, wanted: dict[str, t.Any]) -> None:
    """libvirt drops the format of an empty CD-ROM or floppy from the running domain's XML:
    an empty drive has the format asked for."""
    disks = {(d.get("target") or {}).get("dev"): d for d in (wanted.get("devices") or {}).get("disks") or [] if isinstance(d, dict)}
    for disk in root.iterfind("devices/disk"):
        target, driver = disk.find("target"), disk.find("driver")
        asked = disks.get(target.get("dev") if target is not None else None) or {}
        wanted_type = (asked.get("driver") or {}).get("type")
        empty = disk.find("source") is None and not asked.get("source")
        if disk.get("device") in ("cdrom", "floppy") and empty and driver is not None and driver.get("type") is None and wanted_type:
            driver.set("type", wanted_type)


# --- the domain's state ----------------------------------------------------------------------


def _describe(dom: t.Any) -> dict[str, t.Any]:
    """The whole domain as options (its persistent definition without secrets: no
    VIR_DOMAIN_XML_SECURE), with its computed fields."""
    described = schema.read(STRUCT, schema.parse(definition_xml(dom, libvirt.VIR_DOMAIN_XML_INACTIVE)))
    described.update(_state(dom))
    return described


def _state(dom: t.Any) -> dict[str, t.Any]:
    active = bool(dom.isActive())
    paused = active and dom.state()[0] == libvirt.VIR_DOMAIN_PAUSED
    return {"uuid": dom.UUIDString(), "id": dom.ID() if active else None, "running": active, "paused": paused, "autostart": bool(dom.autostart())}


def start_flags(create: dict[str, t.Any] | None) -> int:
    """virDomainCreateWithFlags flags from the ``create`` options."""
    flags = 0
    for option, constant in _START_FLAGS.items():
        if (create or {}).get(option):
            flags |= getattr(libvirt, constant)
    return flags


def destroy_flags(destroy: dict[str, t.Any] | None) -> int:
    """virDomainDestroyFlags flags from the ``destroy`` options."""
    return int(libvirt.VIR_DOMAIN_DESTROY_GRACEFUL) if (destroy or {}).get("graceful") else 0


def undefine_flags(version: int) -> int:
    """Undefine flags that remove the NVRAM file and TPM state, for the daemon's version
    (major * 1e6 + minor * 1e3 + micro), as upstream's domainUndefineFlagsForDelete."""
    flags = 0
    if version >= _UNDEFINE_NVRAM_SINCE:
        flags |= libvirt.VIR_DOMAIN_UNDEFINE_NVRAM
    if version >= _UNDEFINE_TPM_SINCE:
        flags |= libvirt.VIR_DOMAIN_UNDEFINE_TPM
    return flags


def _start(dom: t.Any, create: dict[str, t.Any] | None) -> None:
    flags = start_flags(create)
    try:
        dom.createWithFlags(flags)
    except libvirt.libvirtError as exc:
        # A driver without VIR_DOMAIN_START_PAUSED (the test driver): start it, then pause it.
        if not flags & libvirt.VIR_DOMAIN_START_PAUSED or not is_unsupported(exc) or dom.isActive():
            raise
        dom.createWithFlags(flags & ~libvirt.VIR_DOMAIN_START_PAUSED)
        dom.suspend()


def _create_options(params: dict[str, t.Any]) -> dict[str, t.Any]:
    """The ``create`` flags a start uses: ``paused: true`` starts the domain paused."""
    create = dict(params.get("create") or {})
    if params.get("paused"):
        create["paused"] = True
    return create


def _check_paused(params: dict[str, t.Any]) -> None:
    """``paused`` is a state of a running domain: refused where it contradicts the other options."""
    if params.get("paused") and params.get("running") is False:
        raise LibvirtValidationError("paused: true needs a running domain, but running is false (a stopped domain cannot be paused)")
    if params.get("paused") is False and (params.get("create") or {}).get("paused"):
        raise LibvirtValidationError("create.paused: true starts the domain paused, which contradicts paused: false")


def _refuse_paused_stopped(params: dict[str, t.Any], name: str | None, active: bool) -> None:
    """``paused: true`` without ``running`` on a domain that does not run: nothing to pause."""
    if params.get("paused") and params.get("running") is None and not active:
        raise LibvirtValidationError(
            f"paused: true needs a running domain, but domain '{name}' is not running and running is not set (running: true starts it paused)"
        )


def _sync_paused(dom: t.Any, paused: bool | None) -> None:
    """Suspend or resume a running domain so that it is paused as asked (None: not managed)."""
    if paused is None or not dom.isActive():
        return
    now = dom.state()[0] == libvirt.VIR_DOMAIN_PAUSED
    if paused and not now:
        dom.suspend()
    elif not paused and now:
        dom.resume()


def _wait_for_state(dom: t.Any, wanted: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while True:
        if dom.state()[0] == wanted:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(min(POLL_SECONDS, max(0.0, deadline - time.monotonic())))


def _destroy_quietly(dom: t.Any, flags: int = 0) -> None:
    """Force off; a domain that stopped by itself meanwhile is fine (upstream fails: https://github.com/dmacvicar/terraform-provider-libvirt/issues/1348)."""
    try:
        dom.destroyFlags(flags)
    except libvirt.libvirtError:
        if dom.isActive():
            raise


def _stop(dom: t.Any, destroy: dict[str, t.Any] | None) -> None:
    """Stop a running (or paused) domain the way ``destroy`` says: an ACPI shutdown that
    must finish within its timeout, or virDomainDestroy (graceful: SIGTERM only)."""
    if not dom.isActive():
        return
    shutdown = (destroy or {}).get("shutdown")
    if shutdown is not None and dom.state()[0] == libvirt.VIR_DOMAIN_RUNNING:
        dom.shutdown()
        if not _wait_for_state(dom, libvirt.VIR_DOMAIN_SHUTOFF, shutdown["timeout"]):
            raise LibvirtError(
                f"Timeout Waiting for Domain Shutdown: Domain did not reach shutoff state within {shutdown['timeout']}s: "
                f"timeout waiting for domain to reach state {libvirt.VIR_DOMAIN_SHUTOFF}"
            )
        return
    _destroy_quietly(dom, destroy_flags(destroy))


def _restart(dom: t.Any, params: dict[str, t.Any]) -> None:
    """Upstream's update shutdown: ACPI shutdown, force off after the timeout, start again."""
    timeout = params["update"]["shutdown"]["timeout"]
    if dom.state()[0] == libvirt.VIR_DOMAIN_RUNNING:
        dom.shutdown()
        _wait_for_state(dom, libvirt.VIR_DOMAIN_SHUTOFF, timeout)
    if dom.isActive():
        _destroy_quietly(dom)
    _start(dom, _create_options(params))


def _undefine(conn: t.Any, dom: t.Any) -> None:
    """Undefine with its snapshots' metadata (libvirt refuses to undefine a domain that has
    snapshots; what an internal snapshot holds stays in its qcow2 disk, a disk-only snapshot's
    overlay stays a file), and its NVRAM file and TPM state where the daemon knows those flags.
    A driver that rejects a flag (the test driver takes no NVRAM flag) gets the undefine it
    takes: with the snapshots' metadata only, then a plain one."""
    snapshots = int(libvirt.VIR_DOMAIN_UNDEFINE_SNAPSHOTS_METADATA)
    for flags in dict.fromkeys((undefine_flags(conn.getLibVersion()) | snapshots, snapshots, 0)):
        try:
            if flags:
                dom.undefineFlags(flags)
            else:
                dom.undefine()
            return
        except libvirt.libvirtError as exc:
            if not flags or not (is_unsupported(exc) or "flags" in str(exc)):
                raise


def _interface_addresses(dom: t.Any, source: str) -> tuple[list[dict[str, t.Any]], t.Any]:
    from .data_sources import interface_addresses  # noqa: PLC0415  # only a domain that waits for its IP needs it

    return interface_addresses(dom, source)


def _wait_for_ips(dom: t.Any, desired: dict[str, t.Any], action: str) -> list[dict[str, t.Any]] | None:
    """For each interface with ``wait_for_ip``: wait for its address (by its MAC as libvirt
    holds it, where upstream takes any interface unless a MAC is configured)."""
    interfaces = (desired.get("devices") or {}).get("interfaces") or []
    waits = [(index, iface["wait_for_ip"]) for index, iface in enumerate(interfaces) if iface.get("wait_for_ip")]
    if not waits:
        return None
    live = schema.read(STRUCT, schema.parse(dom.XMLDesc(0)))
    live_interfaces = (live.get("devices") or {}).get("interfaces") or []
    found: list[dict[str, t.Any]] = []
    for index, wait in waits:
        mac = ((live_interfaces[index] if index < len(live_interfaces) else {}).get("mac") or {}).get("address")
        deadline = time.monotonic() + wait["timeout"]
        while True:
            found, _error = _interface_addresses(dom, wait["source"])
            if any(i["addrs"] and (mac is None or (i["hwaddr"] or "").lower() == mac.lower()) for i in found):
                break
            if time.monotonic() >= deadline:
                info = f" (MAC: {mac})" if mac else ""
                cause = f"timeout waiting for IP address on interface {mac}" if mac else "timeout waiting for IP address"
                raise LibvirtError(
                    f"Failed to Wait for IP Address: Domain was {action} but failed to obtain an IP address{info}: {cause} after {wait['timeout']} seconds"
                )
            time.sleep(POLL_SECONDS)
    return found


# --- the operations -------------------------------------------------------------------------


def _lookup(conn: t.Any, params: dict[str, t.Any], name: str | None) -> t.Any:
    if params.get("uuid"):
        dom = lookup_by_name(conn.lookupByUUIDString, params["uuid"], "domain")
        if dom is not None and name and dom.name() != name:
            raise LibvirtValidationError(f"name: the domain with uuid {params['uuid']} is named {dom.name()!r}, not {name!r} (renaming is not supported)")
        return dom
    if not name:
        raise LibvirtValidationError("name: required (or uuid, or an xml with a <name>)")
    return lookup_by_name(conn.lookupByName, name, "domain")


def _absent(conn: t.Any, params: dict[str, t.Any], check_mode: bool) -> Outcome:
    dom = _lookup(conn, params, params.get("name"))
    if dom is None:
        return Outcome(False, {}, {}, {})
    removed = _describe(dom)
    if not check_mode:
        try:
            _stop(dom, params.get("destroy"))
            _undefine(conn, dom)
        except libvirt.libvirtError as exc:
            raise LibvirtError(f"Failed to remove domain '{dom.name()}': {exc}") from exc
    return Outcome(True, removed, removed, {})


def _create(conn: t.Any, params: dict[str, t.Any], desired: dict[str, t.Any], root: t.Any, check_mode: bool) -> Outcome:
    if desired.get("type") is None:
        raise LibvirtValidationError(f"type: required to define the new domain '{desired.get('name')}' (kvm, qemu...)")
    if params.get("uuid"):
        _set_uuid(root, params["uuid"])
    _refuse_paused_stopped(params, desired.get("name"), False)
    wanted = {"running": bool(params.get("running")), "autostart": bool(params.get("autostart"))}
    if params.get("paused") is not None:
        wanted["paused"] = bool(params["paused"])
    after = schema.masked(STRUCT, {**_without_provider_options(desired), **wanted})
    if check_mode:
        return Outcome(True, after, {}, after)
    try:
        dom = conn.defineXML(schema.serialize(root))
    except libvirt.libvirtError as exc:
        raise LibvirtError(f"Domain Creation Failed: Failed to define domain in libvirt: {exc}") from exc
    interfaces = None
    try:
        if params.get("running"):
            try:
                _start(dom, _create_options(params))
            except libvirt.libvirtError as exc:
                raise LibvirtError(f"Failed to Start Domain: Domain was defined but failed to start: {exc}") from exc
            if not params.get("paused"):  # a paused guest gets no address
                interfaces = _wait_for_ips(dom, desired, "created and started")
        if params.get("autostart") is not None:
            try:
                dom.setAutostart(1 if params["autostart"] else 0)
            except libvirt.libvirtError as exc:
                raise LibvirtError(f"Failed to Set Autostart: Domain was created but failed to set autostart: {exc}") from exc
    except LibvirtError:
        _cleanup(conn, dom)
        raise
    extra = {"interfaces": interfaces} if interfaces is not None else {}
    return Outcome(True, _describe(dom), {}, after, extra=extra)


def _cleanup(conn: t.Any, dom: t.Any) -> None:
    """Leave nothing half-made behind: a domain this run defined goes again."""
    try:
        if dom.isActive():
            dom.destroy()
        _undefine(conn, dom)
    except libvirt.libvirtError:
        pass  # the original error is the one to report


def _update(conn: t.Any, dom: t.Any, params: dict[str, t.Any], desired: dict[str, t.Any], root: t.Any, check_mode: bool) -> Outcome:
    """Converge an existing domain through the loop every persistent object goes through
    (resource.converge), with what only a domain needs: libvirt's normalisations in the
    compare, its secrets read to be compared, changes applied to the running guest
    (domain_live), ``paused``, the restart ``update.shutdown`` allows, waiting for addresses."""
    _refuse_paused_stopped(params, dom.name(), bool(dom.isActive()))  # before anything is touched
    normalizer = _Normalizer(conn)
    secure = libvirt.VIR_DOMAIN_XML_SECURE
    kind = Persistent(
        what="domain",
        struct=STRUCT,
        inactive_flag=libvirt.VIR_DOMAIN_XML_INACTIVE | secure,
        define=conn.defineXML,
        start=lambda d: _start(d, _create_options(params)),
        describe=_describe,
        running_flag=secure,
        compare=lambda wanted, xml: _compare(wanted, xml, normalizer),
        redefinition=lambda wanted, xml: _redefinition(params, wanted, root, xml),
        live_changes=_live_changes,
        rewritten=lambda path: bool(_REWRITTEN_AT_START.match(path)),
        lifecycle=("running", "paused", "autostart"),
        state=_state,
        sync=lambda d, lifecycle: _sync_lifecycle(d, lifecycle, params),
        restart_option="update",
        restart_hint="update.shutdown does that",
        restart=lambda d: _restart(d, params),
    )
    outcome = converge(kind, dom, _without_provider_options(desired), params, check_mode)
    if not check_mode and dom.isActive() and not params.get("paused"):  # a paused guest gets no address
        interfaces = _wait_for_ips(dom, desired, "updated" if outcome.changed else "running")
        if interfaces is not None:
            outcome.extra["interfaces"] = interfaces
    schema.one_unit(STRUCT, outcome.before, outcome.after)
    outcome.before, outcome.after = schema.masked(STRUCT, outcome.before), schema.masked(STRUCT, outcome.after)
    if check_mode and outcome.changed:
        outcome.resource = schema.masked(STRUCT, outcome.resource)
    return outcome


def _live_changes(definition: t.Any, current: t.Any, pending: list[str]) -> list[t.Any]:
    from .domain_live import live_changes  # noqa: PLC0415  # only a running domain with pending changes needs it

    return live_changes(definition, current, pending)


def _sync_lifecycle(dom: t.Any, lifecycle: dict[str, t.Any], params: dict[str, t.Any]) -> None:
    """Autostart, running (started with the ``create`` flags, stopped the way ``destroy``
    says) and paused, where they are set."""
    if lifecycle["autostart"] is not None and bool(dom.autostart()) != lifecycle["autostart"]:
        dom.setAutostart(1 if lifecycle["autostart"] else 0)
    if lifecycle["running"] and not dom.isActive():
        _start(dom, _create_options(params))
    elif lifecycle["running"] is False and dom.isActive():
        _stop(dom, params.get("destroy"))
    _sync_paused(dom, lifecycle["paused"])


def _redefinition(params: dict[str, t.Any], desired: dict[str, t.Any], root: t.Any, inactive: str) -> t.Any:
    """The new definition, with the domain's UUID so libvirt updates it in place: the user's
    XML as it is, or the options written over the current definition (each device that stays
    keeps what libvirt added to it: its PCI address, alias, MAC; see schema.apply)."""
    current_root = schema.parse(inactive)
    if not params.get("xml"):
        schema.apply(STRUCT, current_root, _without_provider_options(desired), path="")
        return current_root
    new_root = copy.deepcopy(root)
    _set_uuid(new_root, current_root.findtext("uuid"))
    # Interfaces keep the MAC address libvirt generated for them unless one is asked for.
    old_macs = [iface.find("mac") for iface in current_root.iterfind("devices/interface")]
    for iface, old_mac in zip(new_root.iterfind("devices/interface"), old_macs):
        if iface.find("mac") is None and old_mac is not None:
            iface.insert(0, copy.deepcopy(old_mac))
    return new_root


def _set_uuid(root: t.Any, uuid: str | None) -> None:
    existing = root.find("uuid")
    if existing is None:
        existing = schema.element("uuid")
        name = root.find("name")
        root.insert(root.index(name) + 1 if name is not None else 0, existing)
    existing.text = uuid


def _check_timeouts(params: dict[str, t.Any]) -> None:
    """Seconds to wait are never negative (a negative wait ends before it starts)."""
    waits = {f"{option}.shutdown.timeout": ((params.get(option) or {}).get("shutdown") or {}).get("timeout") for option in ("destroy", "update")}
    for index, interface in enumerate(((params.get("devices") or {}).get("interfaces")) or []):
        waits[f"devices.interfaces[{index}].wait_for_ip.timeout"] = ((interface or {}).get("wait_for_ip") or {}).get("timeout")
    for where, seconds in waits.items():
        if seconds is not None and seconds < 0:
            raise LibvirtValidationError(f"{where}: must be 0 or more seconds, got {seconds}")


def ensure_domain(conn: t.Any, params: dict[str, t.Any], check_mode: bool) -> Outcome:
    _check_timeouts(params)
    _check_paused(params)
    if params["state"] == "absent":
        return _absent(conn, params, check_mode)
    desired, root = _desired(params)
    warnings: list[str] = []
    if not params.get("xml"):  # the escape hatch is defined as written
        disks_changed, warnings = settle_disks(conn, desired, check_mode=check_mode)
        if disks_changed:  # a driver type from the volume's format: part of what is desired
            root = schema.build(STRUCT, _without_provider_options(desired))
    _check_uefi_acpi(desired, lambda: _host_arch(conn))
    dom = _lookup(conn, params, desired.get("name"))
    if dom is None:
        if not desired.get("name"):
            raise LibvirtValidationError(f"name: required to define a domain (no domain has uuid {params.get('uuid')})")
        outcome = _create(conn, params, desired, root, check_mode)
    else:
        outcome = _update(conn, dom, params, desired, root, check_mode)
    outcome.warnings[:0] = warnings
    outcome.warnings += domain_traps(desired, outcome.resource, host_kib=_host_kib(conn))
    return outcome


def _check_uefi_acpi(desired: dict[str, t.Any], host_arch: t.Callable[[], str | None]) -> None:
    """libvirt refuses UEFI without ACPI on x86 at define: refused here, before a check run
    can plan the domain."""
    os_options = desired.get("os") or {}
    if os_options.get("firmware") != "efi" or (desired.get("features") or {}).get("acpi"):
        return
    arch = os_options.get("type_arch") or host_arch()
    if arch in ("x86_64", "i686"):
        raise LibvirtValidationError(
            f"features.acpi: UEFI requires ACPI on this architecture ({arch}): os.firmware is efi without features.acpi; set features: {{acpi: true}}"
        )


def _host_arch(conn: t.Any) -> str | None:
    """The host's architecture (the guest's when the domain does not say), None where libvirt does not say."""
    try:
        return str(conn.getInfo()[0])
    except (libvirt.libvirtError, IndexError, TypeError):
        return None


def _host_kib(conn: t.Any) -> int | None:
    """The host's memory in KiB (getInfo gives MiB), None where the driver does not say."""
    try:
        return int(conn.getInfo()[1]) * 1024
    except (libvirt.libvirtError, IndexError, TypeError, ValueError):
        return None
