# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""libvirt_domain_action: one-shot actions on a running domain (reboot, reset).

Unlike the resource modules these are not a state to converge to: each run performs the action
and reports a change, as ansible.builtin.reboot does. A reboot waits until libvirt reports that
the guest rebooted (its reboot event: QEMU's RESET, which a guest reboot and libvirt's fake
reboot after an ACPI power-off both send) and runs again."""

from __future__ import annotations

import contextlib
import time
import typing as t

from .connection import libvirt
from .errors import LibvirtError, LibvirtNotFoundError, LibvirtValidationError, is_not_found
from .resource import Outcome, lookup_by_name, run_resource_module
from .snapshot import domain_state_name
from .text import check_one_line

__all__ = ["DOMAIN_ACTION_ARGSPEC", "MAX_TIMEOUT", "reboot_flags", "register_event_loop", "run_domain_action", "run_domain_action_module"]

DOMAIN_ACTION_ARGSPEC: dict[str, dict[str, t.Any]] = {
    "name": {"type": "str"},
    "uuid": {"type": "str"},
    "action": {"type": "str", "required": True, "choices": ["reboot", "reset"]},
    "mode": {"type": "str", "choices": ["acpi", "agent"]},
    "timeout": {"type": "int"},
}
DEFAULT_MODE = "acpi"
DEFAULT_TIMEOUT = 300
MAX_TIMEOUT = 86400
_REBOOT_FLAGS = {"acpi": "VIR_DOMAIN_REBOOT_ACPI_POWER_BTN", "agent": "VIR_DOMAIN_REBOOT_GUEST_AGENT"}
# on_reboot values with which libvirt turns a reboot into a shutdown (qemuDomainReboot), and QEMU
# (started with -no-reboot) a reset too.
_STOPS_ON_REBOOT = ("destroy", "preserve")
# Drivers that reboot inside virDomainReboot and send no reboot event (libvirt's test driver).
_SYNCHRONOUS_REBOOT = ("test",)
POLL_SECONDS = 0.25

_event_loop = {"registered": False}


def register_event_loop() -> None:
    """libvirt's default event loop, so the connection delivers the reboot event. It must be
    registered before the connection is opened; the loop runs while a reboot is waited for."""
    if not _event_loop["registered"] and libvirt is not None:
        libvirt.virEventRegisterDefaultImpl()
        _event_loop["registered"] = True


def reboot_flags(mode: str | None) -> int:
    """virDomainReboot flags for ``mode`` (acpi: the power button, agent: the guest agent)."""
    return int(getattr(libvirt, _REBOOT_FLAGS[mode or DEFAULT_MODE]))


def _check(params: dict[str, t.Any]) -> None:
    action = params["action"]
    if action != "reboot":
        for option in ("mode", "timeout"):
            if params.get(option) is not None:
                raise LibvirtValidationError(f"{option}: only for action reboot, not {action}")
    timeout = params.get("timeout")
    if timeout is not None and not 1 <= timeout <= MAX_TIMEOUT:
        raise LibvirtValidationError(f"timeout: must be from 1 to {MAX_TIMEOUT} seconds, got {timeout}")
    for option in ("name", "uuid"):
        if params.get(option) is not None:
            check_one_line(option, params[option])
    if not params.get("name") and not params.get("uuid"):
        raise LibvirtValidationError("name: required (or uuid)")


def _lookup(conn: t.Any, params: dict[str, t.Any]) -> t.Any:
    name = params.get("name")
    if params.get("uuid"):
        dom = lookup_by_name(conn.lookupByUUIDString, params["uuid"], "domain")
        if dom is None:
            raise LibvirtNotFoundError(f"uuid: no domain has uuid {params['uuid']}")
        if name and dom.name() != name:
            raise LibvirtValidationError(f"name: the domain with uuid {params['uuid']} is named {dom.name()!r}, not {name!r}")
        return dom
    dom = lookup_by_name(conn.lookupByName, str(name), "domain")
    if dom is None:
        raise LibvirtNotFoundError(f"name: no domain named '{name}'")
    return dom


def _view(dom: t.Any) -> dict[str, t.Any]:
    active = bool(dom.isActive())
    state = domain_state_name(dom)
    return {"name": dom.name(), "uuid": dom.UUIDString(), "id": dom.ID() if active else None, "state": state, "running": active, "paused": state == "paused"}


def _on_reboot(dom: t.Any) -> str:
    """The running domain's on_reboot action (libvirt's default: restart)."""
    from .schema import parse  # noqa: PLC0415  # lxml, imported where it is used

    return (parse(dom.XMLDesc(0)).findtext("on_reboot") or "restart").strip()


def _refuse(dom: t.Any, action: str, view: dict[str, t.Any]) -> None:
    """What the action cannot be done on, before anything is touched."""
    name = view["name"]
    if not view["running"]:
        raise LibvirtError(f"Cannot {action} domain '{name}': it is not running (state {view['state']}); libvirt_domain with running true starts it")
    if action == "reboot" and view["state"] != "running":
        hint = "; libvirt_domain with paused false resumes it" if view["paused"] else ""
        raise LibvirtError(f"Cannot reboot domain '{name}': it is {view['state']}, not running, and cannot answer{hint}")
    on_reboot = _on_reboot(dom)
    if on_reboot in _STOPS_ON_REBOOT:
        raise LibvirtValidationError(
            f"action: a {action} would stop domain '{name}' instead: its on_reboot is {on_reboot}, with which libvirt and QEMU "
            "turn a reboot into a shutdown (on_reboot restart reboots it)"
        )


class _RebootWatch:
    """Counts the domain's reboot events while a reboot is waited for."""

    def __init__(self, conn: t.Any, dom: t.Any) -> None:
        self.conn = conn
        self.events = 0
        self.callback: int | None = None
        self.timer: int | None = None
        if not _event_loop["registered"]:
            return
        try:
            self.callback = conn.domainEventRegisterAny(dom, libvirt.VIR_DOMAIN_EVENT_ID_REBOOT, self._seen, None)
            self.timer = libvirt.virEventAddTimeout(int(POLL_SECONDS * 1000), lambda _timer, _opaque: None, None)
        except libvirt.libvirtError:
            self.close()

    def _seen(self, _conn: t.Any, _dom: t.Any, _opaque: t.Any) -> None:
        self.events += 1

    def wait(self, seconds: float) -> None:
        """Deliver what libvirt sent (at most ``seconds`` later), or sleep where no events come."""
        if self.timer is not None:
            libvirt.virEventRunDefaultImpl()  # returns when the timer fires, at the latest
        else:
            time.sleep(seconds)

    def close(self) -> None:
        if self.callback is not None:
            with contextlib.suppress(libvirt.libvirtError):
                self.conn.domainEventDeregisterAny(self.callback)
            self.callback = None
        if self.timer is not None:
            libvirt.virEventRemoveTimeout(self.timer)
            self.timer = None


def _reboot(conn: t.Any, dom: t.Any, mode: str, timeout: int) -> float:
    """Reboot and wait until the domain rebooted and runs again; the seconds that took."""
    name = dom.name()
    first_id = dom.ID()
    synchronous = str(conn.getType()).lower() in _SYNCHRONOUS_REBOOT
    watch = _RebootWatch(conn, dom)
    start = time.monotonic()
    try:
        try:
            dom.reboot(reboot_flags(mode))
        except libvirt.libvirtError as exc:
            raise LibvirtError(f"Failed to reboot domain '{name}' (mode {mode}): {exc}") from exc
        deadline = start + timeout
        while True:
            try:
                state = dom.state()[0]
                rebooted = synchronous or watch.events > 0 or (dom.isActive() and dom.ID() != first_id)
            except libvirt.libvirtError as exc:
                if is_not_found(exc):  # a transient domain that shut off is gone
                    raise LibvirtError(f"Domain '{name}' shut off instead of rebooting (it is gone)") from None
                raise LibvirtError(f"Failed to read the state of domain '{name}' while it reboots: {exc}") from exc
            if state == libvirt.VIR_DOMAIN_SHUTOFF:
                raise LibvirtError(f"Domain '{name}' shut off instead of rebooting")
            if rebooted and state == libvirt.VIR_DOMAIN_RUNNING:
                return round(time.monotonic() - start, 3)
            now = time.monotonic()
            if now >= deadline:
                how = "answer the ACPI power button" if mode == "acpi" else "reboot through its guest agent"
                raise LibvirtError(
                    f"Timeout Waiting for Domain Reboot: domain '{name}' did not reboot within {timeout}s "
                    f"(the guest must {how}); it is {domain_state_name(dom)}"
                )
            watch.wait(min(POLL_SECONDS, deadline - now))
    finally:
        watch.close()


def run_domain_action(conn: t.Any, params: dict[str, t.Any], check_mode: bool) -> Outcome:
    _check(params)
    dom = _lookup(conn, params)
    action = params["action"]
    try:
        before = _view(dom)
        _refuse(dom, action, before)
    except libvirt.libvirtError as exc:
        raise LibvirtError(f"Failed to read domain '{params.get('name') or params.get('uuid')}': {exc}") from exc
    extra: dict[str, t.Any] = {"operation": "update", "action": action}
    if action == "reboot":
        extra["mode"] = params.get("mode") or DEFAULT_MODE
    after = {**before, "action": action}
    if check_mode:
        return Outcome(True, before, before, after, extra=extra)
    if action == "reboot":
        extra["elapsed"] = _reboot(conn, dom, extra["mode"], params.get("timeout") or DEFAULT_TIMEOUT)
    else:
        try:
            dom.reset(0)
        except libvirt.libvirtError as exc:
            raise LibvirtError(f"Failed to reset domain '{before['name']}': {exc}") from exc
    try:
        now = _view(dom)
    except libvirt.libvirtError as exc:
        raise LibvirtError(f"Failed to read domain '{before['name']}' after the {action}: {exc}") from exc
    return Outcome(True, now, before, {**now, "action": action}, extra=extra)


def run_domain_action_module() -> None:
    """The libvirt_domain_action module: the event loop first, then the shared module body."""
    register_event_loop()
    run_resource_module(noun="domain", argument_spec=DOMAIN_ACTION_ARGSPEC, run=run_domain_action, required_one_of=[("name", "uuid")])
