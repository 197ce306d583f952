# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""libvirt_domain's ``paused``: pause and resume a running domain, idempotent, check mode,
and refused where it contradicts ``running``; on libvirt's test driver."""

from __future__ import annotations

import typing as t

import pytest

libvirt = pytest.importorskip("libvirt")

from ansible_collections.devinfra.providers.plugins.modules import libvirt_domain

TEST_URI = "test:///default"
RunModule = t.Callable[..., dict[str, t.Any]]


@pytest.fixture(autouse=True, scope="module")
def _test_driver_state() -> t.Iterator[None]:
    """The test driver forgets its domains when its last connection closes: keep one open."""
    connection = libvirt.open(TEST_URI)
    yield
    connection.close()


def _args(name: str, **extra: t.Any) -> dict[str, t.Any]:
    return {"uri": TEST_URI, "name": name, "type": "test", "memory": 128, "memory_unit": "MiB", "os": {"type": "hvm"}, **extra}


def _state(name: str) -> int:
    conn = libvirt.open(TEST_URI)
    try:
        return int(conn.lookupByName(name).state()[0])
    finally:
        conn.close()


def _remove(run_module: RunModule, name: str) -> None:
    run_module(libvirt_domain.main, {"uri": TEST_URI, "name": name, "state": "absent"})


def test_pause_and_resume_idempotent_with_check_mode_and_diff(run_module: RunModule) -> None:
    name = "paused-1"
    run_module(libvirt_domain.main, _args(name, running=True))
    try:
        checked = run_module(libvirt_domain.main, _args(name, running=True, paused=True), check_mode=True, diff=True)
        assert checked["changed"] and checked["operation"] == "update"
        assert checked["diff"]["before"]["paused"] is False and checked["diff"]["after"]["paused"] is True
        assert checked["domain"]["paused"] is True  # what it would be
        assert _state(name) == libvirt.VIR_DOMAIN_RUNNING  # check mode paused nothing

        paused = run_module(libvirt_domain.main, _args(name, running=True, paused=True), diff=True)
        assert paused["changed"] and paused["domain"]["paused"] and paused["domain"]["running"]
        assert paused["diff"]["before"]["paused"] is False and paused["diff"]["after"]["paused"] is True
        assert _state(name) == libvirt.VIR_DOMAIN_PAUSED
        # without running: pausing a domain that runs needs nothing else
        again = run_module(libvirt_domain.main, _args(name, paused=True), diff=True)
        assert not again["changed"] and again["operation"] == "none"
        assert again["diff"]["before"] == again["diff"]["after"]
        # running: true is no change for a paused domain (it runs, paused)
        assert not run_module(libvirt_domain.main, _args(name, running=True))["changed"]

        checked = run_module(libvirt_domain.main, _args(name, paused=False), check_mode=True)
        assert checked["changed"] and _state(name) == libvirt.VIR_DOMAIN_PAUSED
        resumed = run_module(libvirt_domain.main, _args(name, paused=False), diff=True)
        assert resumed["changed"] and not resumed["domain"]["paused"]
        assert resumed["diff"]["before"]["paused"] is True and resumed["diff"]["after"]["paused"] is False
        assert _state(name) == libvirt.VIR_DOMAIN_RUNNING
        assert not run_module(libvirt_domain.main, _args(name, paused=False))["changed"]
    finally:
        _remove(run_module, name)


def test_start_paused_and_stop_a_paused_domain(run_module: RunModule) -> None:
    name = "paused-2"
    try:
        created = run_module(libvirt_domain.main, _args(name, running=True, paused=True))
        assert created["changed"] and created["operation"] == "create"
        assert created["domain"]["running"] and created["domain"]["paused"]
        assert _state(name) == libvirt.VIR_DOMAIN_PAUSED
        assert not run_module(libvirt_domain.main, _args(name, running=True, paused=True))["changed"]
        stopped = run_module(libvirt_domain.main, _args(name, running=False, paused=False))
        assert stopped["changed"] and not stopped["domain"]["running"] and not stopped["domain"]["paused"]
        # a stopped domain is not paused: paused false asks nothing of it
        assert not run_module(libvirt_domain.main, _args(name, running=False, paused=False))["changed"]
        assert not run_module(libvirt_domain.main, _args(name, paused=False))["changed"]
        started = run_module(libvirt_domain.main, _args(name, running=True, paused=True), diff=True)
        assert started["changed"] and started["diff"]["before"]["running"] is False and started["diff"]["after"]["paused"] is True
        assert _state(name) == libvirt.VIR_DOMAIN_PAUSED
    finally:
        _remove(run_module, name)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"running": False, "paused": True}, "paused: true needs a running domain, but running is false"),
        ({"paused": False, "create": {"paused": True}}, "create.paused: true starts the domain paused, which contradicts paused: false"),
    ],
)
def test_contradictions_are_refused_before_anything_is_touched(run_module: RunModule, extra: dict[str, t.Any], message: str) -> None:
    name = "paused-3"
    run_module(libvirt_domain.main, _args(name, running=True))
    try:
        for check_mode in (True, False):
            failed = run_module(libvirt_domain.main, _args(name, memory=256, **extra), check_mode=check_mode)
            assert failed.get("failed") and message in failed["msg"], failed
        assert _state(name) == libvirt.VIR_DOMAIN_RUNNING
        conn = libvirt.open(TEST_URI)
        try:
            assert "<memory unit='KiB'>131072</memory>" in conn.lookupByName(name).XMLDesc(0)  # not redefined
        finally:
            conn.close()
    finally:
        _remove(run_module, name)


def test_paused_without_running_on_a_stopped_or_new_domain_is_refused(run_module: RunModule) -> None:
    name = "paused-4"
    new = run_module(libvirt_domain.main, _args(name, paused=True))
    assert new.get("failed") and "paused: true needs a running domain, but domain 'paused-4' is not running and running is not set" in new["msg"]
    conn = libvirt.open(TEST_URI)
    try:
        assert name not in conn.listDefinedDomains()  # nothing defined
    finally:
        conn.close()
    run_module(libvirt_domain.main, _args(name))
    try:
        stopped = run_module(libvirt_domain.main, _args(name, memory=256, paused=True))
        assert stopped.get("failed") and "running is not set (running: true starts it paused)" in stopped["msg"]
        assert _state(name) == libvirt.VIR_DOMAIN_SHUTOFF
        assert not run_module(libvirt_domain.main, _args(name))["changed"]  # the memory change was not applied
    finally:
        _remove(run_module, name)
