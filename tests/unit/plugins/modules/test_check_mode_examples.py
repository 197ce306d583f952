# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""libvirt_domain's examples under ``--check``: the tasks that read what the first one registers
(its address) run as ansible-playbook would run them after a check run of it, which plans the
domain without starting it (libvirt's test driver as its ``uri``)."""

from __future__ import annotations

import typing as t

import pytest
import yaml  # type: ignore[import-untyped]

from ansible_collections.devinfra.providers.plugins.modules import libvirt_domain

libvirt = pytest.importorskip("libvirt")
# The examples are rendered as ansible-playbook renders them; module units on an older Python run
# with the modules' requirements only, which do not hold it.
jinja2 = pytest.importorskip("jinja2")

URI = "test:///default"
MODULE = "devinfra.providers.libvirt_domain"


def _templated(value: t.Any) -> t.Iterator[str]:
    """Every string of a task's arguments that holds a template."""
    if isinstance(value, dict):
        for item in value.values():
            yield from _templated(item)
    elif isinstance(value, list):
        for item in value:
            yield from _templated(item)
    elif isinstance(value, str) and "{{" in value:
        yield value


def test_the_tasks_that_read_the_registered_domain_run_in_check_mode(run_module: t.Callable[..., dict[str, t.Any]]) -> None:
    examples = yaml.safe_load(libvirt_domain.EXAMPLES)
    first = examples[0]
    name = first["register"]
    readers = [task for task in examples[1:] if any(name in text for text in _templated(task))]
    assert readers, f"no example reads {name}"
    connection = libvirt.open(URI)  # the test driver forgets its objects when its last connection closes
    try:
        planned = run_module(libvirt_domain.main, {**first[MODULE], "uri": URI}, check_mode=True)
    finally:
        connection.close()
    assert planned["changed"] is True and not planned.get("failed"), planned.get("msg")
    # Jinja as Ansible runs it: an undefined attribute fails the task (ansible's own Templar is
    # left out: it changes how the other tests' modules report warnings).
    env = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False)  # text, not HTML
    variables = {name: planned, "ansible_check_mode": True}
    for task in readers:
        if "when" in task and not env.compile_expression(task["when"])(**variables):
            continue
        for text in _templated({key: value for key, value in task.items() if key not in ("name", "when")}):
            env.from_string(text).render(**variables)
