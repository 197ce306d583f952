# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""libvirt_domain_action: reboot and reset on libvirt's test driver, the checks made before
anything is touched, and the reboot wait (its event, its timeout) with a stand-in domain."""

from __future__ import annotations

import typing as t

import pytest

libvirt = pytest.importorskip("libvirt")

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt import domain_action
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.errors import LibvirtError
from ansible_collections.devinfra.providers.plugins.modules import libvirt_domain, libvirt_domain_action

TEST_URI = "test:///default"
RunModule = t.Callable[..., dict[str, t.Any]]


@pytest.fixture(autouse=True, scope="module")
def _test_driver_state() -> t.Iterator[None]:
    """The test driver forgets its domains when its last connection closes: keep one open."""
    connection = libvirt.open(TEST_URI)
    yield
    connection.close()


@pytest.fixture
def domain(run_module: RunModule, request: pytest.FixtureRequest) -> t.Iterator[str]:
    name = f"action-{request.node.name.split('[')[0][-20:]}"
    extra = getattr(request, "param", {})
    args = {"uri": TEST_URI, "name": name, "type": "test", "memory": 128, "memory_unit": "MiB", "os": {"type": "hvm"}, "running": True, **extra}
    assert run_module(libvirt_domain.main, args)["changed"]
    yield name
    run_module(libvirt_domain.main, {"uri": TEST_URI, "name": name, "state": "absent"})


def _dom(name: str) -> tuple[int, int, str]:
    conn = libvirt.open(TEST_URI)
    try:
        dom = conn.lookupByName(name)
        state, reason = dom.state()
        return state, reason, dom.XMLDesc(0)
    finally:
        conn.close()


@pytest.mark.parametrize("action", ["reboot", "reset"])
def test_action_reports_changed_every_time_and_nothing_in_check_mode(run_module: RunModule, domain: str, action: str, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    original = getattr(libvirt.virDomain, action)

    def spy(self: t.Any, flags: int = 0) -> t.Any:
        calls.append(f"{action}:{flags}")
        return original(self, flags)

    monkeypatch.setattr(libvirt.virDomain, action, spy)
    args = {"uri": TEST_URI, "name": domain, "action": action}
    checked = run_module(libvirt_domain_action.main, args, check_mode=True, diff=True)
    assert checked["changed"] and checked["operation"] == "update" and checked["address"] == f"libvirt_domain.{domain}"
    assert checked["diff"]["before"]["state"] == "running" and checked["diff"]["after"]["action"] == action
    assert "elapsed" not in checked
    assert calls == []  # check mode did nothing
    for run in ("first", "second"):  # a one-shot action: changed on every run
        done = run_module(libvirt_domain_action.main, args)
        assert done["changed"] and done["operation"] == "update" and done["action"] == action, (run, done)
        assert done["domain"]["running"] and done["domain"]["state"] == "running" and done["domain"]["name"] == domain
    flags = libvirt.VIR_DOMAIN_REBOOT_ACPI_POWER_BTN if action == "reboot" else 0
    assert calls == [f"{action}:{flags}"] * 2
    if action == "reboot":
        assert done["mode"] == "acpi" and done["elapsed"] >= 0
    else:
        assert "mode" not in done
    assert _dom(domain)[0] == libvirt.VIR_DOMAIN_RUNNING


def test_a_hidden_result_publishes_its_plan_under_its_own_module(run_module: RunModule, domain: str) -> None:
    # Its address names the domain (libvirt_domain.<name>); the plan callback matches the entry to the
    # task by the module that ran, libvirt_domain_action.
    args = {"uri": TEST_URI, "name": domain, "action": "reset", "_ansible_no_log": True, "_ansible_module_name": "devinfra.providers.libvirt_domain_action"}
    checked = run_module(libvirt_domain_action.main, args, check_mode=True)
    (entry,) = checked["ansible_stats"]["data"]["devinfra_plan"]
    assert (entry["module"], entry["address"], entry["operation"], entry["hidden"]) == ("libvirt_domain_action", f"libvirt_domain.{domain}", "update", True)
    shown = {key: value for key, value in args.items() if key != "_ansible_no_log"}
    assert "ansible_stats" not in run_module(libvirt_domain_action.main, shown, check_mode=True)


def test_reboot_mode_agent_passes_the_agent_flag(run_module: RunModule, domain: str, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[int] = []

    def reboot(self: t.Any, flags: int = 0) -> int:
        seen.append(flags)
        return 0

    monkeypatch.setattr(libvirt.virDomain, "reboot", reboot)
    done = run_module(libvirt_domain_action.main, {"uri": TEST_URI, "name": domain, "action": "reboot", "mode": "agent", "timeout": 5})
    assert done["changed"] and done["mode"] == "agent"
    assert seen == [libvirt.VIR_DOMAIN_REBOOT_GUEST_AGENT]


def test_reset_a_paused_domain_keeps_it_paused_and_reboot_is_refused(run_module: RunModule, domain: str) -> None:
    run_module(libvirt_domain.main, {"uri": TEST_URI, "name": domain, "paused": True})
    refused = run_module(libvirt_domain_action.main, {"uri": TEST_URI, "name": domain, "action": "reboot"})
    assert refused.get("failed") and f"Cannot reboot domain '{domain}': it is paused, not running" in refused["msg"]
    assert "paused false resumes it" in refused["msg"]
    done = run_module(libvirt_domain_action.main, {"uri": TEST_URI, "name": domain, "action": "reset"})
    assert done["changed"] and done["domain"]["paused"]


def test_a_domain_that_is_not_running_fails_clearly(run_module: RunModule, domain: str) -> None:
    run_module(libvirt_domain.main, {"uri": TEST_URI, "name": domain, "running": False})
    for action in ("reboot", "reset"):
        for check_mode in (True, False):
            failed = run_module(libvirt_domain_action.main, {"uri": TEST_URI, "name": domain, "action": action}, check_mode=check_mode)
            assert failed.get("failed") and f"Cannot {action} domain '{domain}': it is not running (state shutoff)" in failed["msg"], failed
    assert _dom(domain)[0] == libvirt.VIR_DOMAIN_SHUTOFF


@pytest.mark.parametrize("domain", [{"on_reboot": "destroy"}], indirect=True)
def test_on_reboot_destroy_is_refused_before_anything_is_touched(run_module: RunModule, domain: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(libvirt.virDomain, "reset", lambda self, flags=0: pytest.fail("reset called"))
    monkeypatch.setattr(libvirt.virDomain, "reboot", lambda self, flags=0: pytest.fail("reboot called"))
    for action in ("reboot", "reset"):
        failed = run_module(libvirt_domain_action.main, {"uri": TEST_URI, "name": domain, "action": action})
        assert failed.get("failed") and f"action: a {action} would stop domain '{domain}' instead: its on_reboot is destroy" in failed["msg"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"action": "reset", "mode": "acpi"}, "mode: only for action reboot, not reset"),
        ({"action": "reset", "timeout": 10}, "timeout: only for action reboot, not reset"),
        ({"action": "reboot", "timeout": 0}, "timeout: must be from 1 to 86400 seconds, got 0"),
        ({"action": "reboot", "timeout": 86401}, "timeout: must be from 1 to 86400 seconds, got 86401"),
        ({"action": "reboot", "mode": "power"}, "value of mode must be one of: acpi, agent, got: power"),
        ({"action": "pause"}, "value of action must be one of: reboot, reset, got: pause"),
        ({"action": "reboot", "name": "a\nb"}, "name: contains a"),
        ({"action": "reboot", "name": "no-such-domain"}, "name: no domain named 'no-such-domain'"),
        ({"action": "reboot", "uuid": "7e0b4a5c-0000-4000-8000-000000000000"}, "uuid: no domain has uuid 7e0b4a5c-0000-4000-8000-000000000000"),
        ({"action": "reboot"}, "one of the following is required: name, uuid"),
    ],
)
def test_bad_input_fails_naming_the_option(run_module: RunModule, args: dict[str, t.Any], message: str) -> None:
    failed = run_module(
        libvirt_domain_action.main,
        {"uri": TEST_URI, "name": "test", **args} if "name" not in args and "uuid" not in args and "one of" not in message else {"uri": TEST_URI, **args},
    )
    assert failed.get("failed") and message in failed["msg"], failed


def test_by_uuid_and_a_name_that_does_not_match(run_module: RunModule, domain: str) -> None:
    conn = libvirt.open(TEST_URI)
    try:
        uuid = conn.lookupByName(domain).UUIDString()
    finally:
        conn.close()
    done = run_module(libvirt_domain_action.main, {"uri": TEST_URI, "uuid": uuid, "action": "reset"})
    assert done["changed"] and done["domain"]["uuid"] == uuid and done["address"] == f"libvirt_domain.{domain}"
    failed = run_module(libvirt_domain_action.main, {"uri": TEST_URI, "uuid": uuid, "name": "other", "action": "reset"})
    assert failed.get("failed") and f"is named '{domain}', not 'other'" in failed["msg"]


# --- the reboot wait, with a stand-in domain (the test driver reboots inside the call) -----


class _Domain:
    """A domain that reboots as QEMU does: the reboot event after some polls, same id."""

    def __init__(self, states: list[int], on_reboot: t.Callable[[], None] | None = None) -> None:
        self.states = states
        self.on_reboot = on_reboot
        self.flags: list[int] = []

    def name(self) -> str:
        return "stand-in"

    def ID(self) -> int:  # libvirt's name
        return 7

    def isActive(self) -> int:
        return 1

    def state(self) -> list[int]:
        return [self.states.pop(0) if len(self.states) > 1 else self.states[0], 1]

    def reboot(self, flags: int) -> int:
        self.flags.append(flags)
        if self.on_reboot:
            self.on_reboot()
        return 0


class _Conn:
    def getType(self) -> str:
        return "QEMU"


def test_reboot_waits_for_the_event_and_a_running_domain(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(domain_action, "POLL_SECONDS", 0.01)
    watches: list[t.Any] = []

    class Watch:
        def __init__(self, _conn: t.Any, _dom: t.Any) -> None:
            self.events = 0
            self.waits = 0
            watches.append(self)

        def wait(self, _seconds: float) -> None:
            self.waits += 1
            if self.waits == 3:
                self.events += 1  # the reboot event arrives while the domain is still paused by QEMU

        def close(self) -> None:
            self.closed = True

    monkeypatch.setattr(domain_action, "_RebootWatch", Watch)
    running, paused = libvirt.VIR_DOMAIN_RUNNING, libvirt.VIR_DOMAIN_PAUSED
    dom = _Domain([running, running, running, paused, paused, running])
    elapsed = domain_action._reboot(_Conn(), dom, "acpi", 5)
    assert elapsed >= 0 and dom.flags == [libvirt.VIR_DOMAIN_REBOOT_ACPI_POWER_BTN]
    assert watches[0].waits >= 5 and watches[0].closed  # not done before the event and a running state


def test_reboot_times_out_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(domain_action, "POLL_SECONDS", 0.01)
    monkeypatch.setitem(domain_action._event_loop, "registered", False)  # no events: polls and sleeps
    dom = _Domain([libvirt.VIR_DOMAIN_RUNNING])
    with pytest.raises(LibvirtError, match=r"Timeout Waiting for Domain Reboot: domain 'stand-in' did not reboot within 1s \(the guest must answer the ACPI"):
        domain_action._reboot(_Conn(), dom, "acpi", 1)


def test_reboot_that_shuts_off_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(domain_action, "POLL_SECONDS", 0.01)
    monkeypatch.setitem(domain_action._event_loop, "registered", False)
    dom = _Domain([libvirt.VIR_DOMAIN_RUNNING, libvirt.VIR_DOMAIN_SHUTOFF])
    with pytest.raises(LibvirtError, match="Domain 'stand-in' shut off instead of rebooting"):
        domain_action._reboot(_Conn(), dom, "agent", 5)
    assert dom.flags == [libvirt.VIR_DOMAIN_REBOOT_GUEST_AGENT]
