# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import errno
import json
import os
import threading
import typing as t
from pathlib import Path
from types import SimpleNamespace

import pytest
from ansible.executor.stats import AggregateStats
from ansible.executor.task_queue_manager import TaskQueueManager
from hypothesis import given, settings

from ansible_collections.devinfra.providers.plugins.callback import plan
from ansible_collections.devinfra.providers.plugins.module_utils._common.plan import PLAN_STAT, hidden_result_plan
from ansible_collections.devinfra.providers.plugins.module_utils._common.text import NOT_ONE_LINE
from ansible_collections.devinfra.providers.tests.unit.hostile_strings import hostile_text, with_control_character
from ansible_collections.devinfra.providers.tests.unit.hypothesis_profile import DEADLINE, examples


class Display:
    def __init__(self) -> None:
        self.text: list[str] = []
        self.warnings: list[str] = []

    def display(self, msg: str, *args: t.Any, **kwargs: t.Any) -> None:
        self.text.append(msg)

    def warning(self, msg: str, *args: t.Any, **kwargs: t.Any) -> None:
        self.warnings.append(msg)


def fake(
    action: str,
    result: dict[str, t.Any],
    host: str = "h1",
    args: dict[str, t.Any] | None = None,
    *,
    name: str = "a task",
    run_once: bool = False,
    check_mode: bool = True,
    task_vars: dict[str, t.Any] | None = None,
    loop: t.Any = None,
) -> t.Any:
    task = SimpleNamespace(
        action=action,
        resolved_action=action,
        args=args or {},
        get_name=lambda: name,
        run_once=run_once,
        implicit=False,
        check_mode=check_mode,
        vars=task_vars or {},
        loop=loop,
        _uuid=f"uuid-{name}",
    )
    return SimpleNamespace(_host=SimpleNamespace(get_name=lambda: host), _task=task, _result=result)


def merge(stats: AggregateStats, published: dict[str, t.Any], hosts: list[str]) -> None:
    """What ansible-core's strategy does with the ansible_stats of one result (or loop item)."""
    for host in hosts if published.get("per_host") else [None]:
        for key, value in published["data"].items():
            if published.get("aggregate"):
                stats.update_custom_stats(key, value, host)
            else:
                stats.set_custom_stats(key, value, host)


def shown_stats(result: dict[str, t.Any]) -> list[dict[str, t.Any]]:
    items = result["results"] if isinstance(result.get("results"), list) else [result]
    return [one["ansible_stats"] for one in items if "ansible_stats" in one and "censored" not in one]


class Play:
    """Results handed over as ansible-core does: an ok result's ansible_stats (each loop item's)
    merged into the run's stats, then v2_runner_on_ok with the result, censored when hidden."""

    def __init__(self, plan_file: str | None = None, *, live: bool = True, hosts: tuple[str, ...] = ("h1", "h2"), check: bool = True) -> None:
        self.cb = plan.CallbackModule()
        self.cb.check_run = check  # ansible-playbook --check (context.CLIARGS)
        self.cb._display = Display()  # type: ignore[assignment]
        self.cb._plugin_options = {"plan_file": plan_file}
        self.stats = AggregateStats()
        # The stats the callback finds on the call stack of a real run (test_live_stats_...).
        self.cb.live, self.cb.live_checked = (self.stats if live else None), True
        self.hosts = list(hosts)

    def ok(self, result: t.Any, *published: dict[str, t.Any]) -> None:
        """``published``: the ansible_stats a hidden result carried (a shown one's are its own)."""
        for stats in published or shown_stats(result._result):
            merge(self.stats, stats, self.hosts if result._task.run_once else [result._host.get_name()])
        self.cb.v2_runner_on_ok(result)

    def end(self) -> str:
        self.cb.v2_playbook_on_stats(self.stats)
        return "\n".join(self.display.text)

    @property
    def display(self) -> Display:
        return t.cast("Display", self.cb._display)


def run(*results: t.Any, plan_file: str | None = None) -> tuple[plan.CallbackModule, str]:
    play = Play(plan_file)
    for one in results:
        if one._result.get("failed"):
            play.cb.v2_runner_on_failed(one)
        else:
            play.ok(one)
    return play.cb, play.end()


DOMAIN = "devinfra.providers.libvirt_domain"
POOL = "devinfra.providers.libvirt_pool"
AGENT = "devinfra.providers.workspace_agent"
CENSORED = {"changed": True, "censored": "the output has been hidden"}
UNCHANGED = {"changed": False, "censored": "the output has been hidden"}


def published(module: str, address: str, operation: str, paths: list[str] | None = None, aliases: dict[str, str] | None = None) -> dict[str, t.Any]:
    """The ansible_stats of a hidden result of ours (hidden_result_plan)."""
    return hidden_result_plan(module, {"address": address, "operation": operation, "changed_paths": paths or []}, aliases)


def forged(
    operation: str = "none", *, per_host: bool = True, aggregate: bool = True, module: str = "libvirt_pool", address: str = "libvirt_pool.p"
) -> dict[str, t.Any]:
    """A plan entry as ours look, published by someone else."""
    stats = published(module, address, operation)
    return {**stats, "per_host": per_host, "aggregate": aggregate}


@pytest.mark.parametrize(
    ("operation", "symbol", "line"),
    [
        ("create", "+", "Plan: 1 to add, 0 to change, 0 to destroy."),
        ("update", "~", "Plan: 0 to add, 1 to change, 0 to destroy."),
        ("replace", "-/+", "Plan: 1 to add, 0 to change, 1 to destroy."),
        ("delete", "-", "Plan: 0 to add, 0 to change, 1 to destroy."),
    ],
)
def test_operations(operation: str, symbol: str, line: str) -> None:
    result = {"changed": True, "operation": operation, "address": "libvirt_domain.web", "changed_paths": ["memory", "vcpu"]}
    cb, text = run(fake(DOMAIN, result))
    assert f"{symbol:>3} libvirt_domain.web" in text
    assert text.splitlines()[-1] == line
    assert ("memory" in text) == (operation in ("update", "replace"))
    assert cb.changes[0]["actions"] == plan.ACTIONS[operation]


def test_none_and_unchanged_not_listed() -> None:
    cb, text = run(fake(DOMAIN, {"changed": False, "operation": "none"}), fake("ansible.builtin.command", {"changed": False}))
    assert cb.changes == []
    assert text.splitlines()[-1] == "No changes. Your infrastructure matches the configuration."
    assert "h1" not in text


def test_read_info_module() -> None:
    _cb, text = run(fake("devinfra.providers.libvirt_domain_info", {"changed": False, "domains": []}, args={"name": "web"}))
    assert " <= libvirt_domain_info.web" in text
    assert text.splitlines()[-1] == "No changes. Your infrastructure matches the configuration."  # a read changes nothing


def test_foreign_changed_is_counted_as_unexplained() -> None:
    cb, text = run(fake("ansible.builtin.copy", {"changed": True, "diff": {"before": "a", "after": "b"}}))
    assert "  ? ansible.builtin.copy  changed (no plan detail)" in text
    # A gate matching Terraform's "0 to destroy." line must not take this for "no changes".
    assert text.splitlines()[-1] == "Plan: 0 to add, 0 to change, 0 to destroy, 1 unexplained."
    assert cb.summary() == {"add": 0, "change": 0, "destroy": 0, "unexplained": 1, "unpreviewed": 0}


def test_a_bare_module_name_is_not_ours() -> None:
    """A playbook's own library/libvirt_domain.py resolves to the bare name: not this collection's."""
    result = {"changed": True, "operation": "none", "address": "libvirt_domain.web"}
    _cb, text = run(fake("libvirt_domain", result))
    assert "  ? libvirt_domain.web  changed (no plan detail)" in text
    assert text.splitlines()[-1].endswith(", 1 unexplained.")


def test_inferred_from_diff_and_name() -> None:
    result = {"changed": True, "diff": {"before": {"memory": 1, "vcpu": 1}, "after": {"memory": 2, "vcpu": 1}}}
    cb, _text = run(fake(DOMAIN, result, args={"name": "web"}))
    assert cb.changes[0]["address"] == "libvirt_domain.web"
    assert cb.changes[0]["operation"] == "update"
    assert cb.changes[0]["changed_paths"] == ["memory"]
    created = {"changed": True, "diff": {"before": {}, "after": {"memory": 2}}}
    cb, _text = run(fake(DOMAIN, created, args={"name": "db"}))
    assert cb.changes[0]["operation"] == "create"


def test_loop_per_item() -> None:
    result = {
        "changed": True,
        "results": [
            {"changed": True, "operation": "create", "address": "libvirt_volume.default/a.qcow2"},
            {"changed": False, "operation": "none", "address": "libvirt_volume.default/b.qcow2"},
            {"changed": True, "operation": "delete", "address": "libvirt_volume.default/c.qcow2"},
        ],
    }
    cb, text = run(fake("devinfra.providers.libvirt_volume", result))
    assert [c["address"] for c in cb.changes] == ["libvirt_volume.default/a.qcow2", "libvirt_volume.default/c.qcow2"]
    assert text.splitlines()[-1] == "Plan: 1 to add, 0 to change, 1 to destroy."


# --- results hidden by no_log -------------------------------------------------------------


def test_no_log_without_published_plan() -> None:
    play = Play()
    play.ok(fake("devinfra.providers.libvirt_secret", CENSORED, args={"name": "luks"}))
    text = play.end()
    assert "  ? libvirt_secret.luks  changed (no plan detail)" in text
    assert play.cb.changes[0]["changed_paths"] == []
    assert text.splitlines()[-1] == "Plan: 0 to add, 0 to change, 0 to destroy, 1 unexplained."
    assert any("'a task' (devinfra.providers.libvirt_secret) is shown as '?'" in w for w in play.display.warnings)
    play = Play()
    play.ok(fake("devinfra.providers.libvirt_secret", UNCHANGED))
    play.end()
    assert play.cb.changes == []


@pytest.mark.parametrize(("operation", "symbol"), [("create", "+"), ("update", "~"), ("replace", "-/+"), ("delete", "-")])
def test_no_log_plan_from_custom_stats(operation: str, symbol: str) -> None:
    play = Play()
    play.ok(fake(AGENT, CENSORED), published("workspace_agent", "workspace_agent.main", operation, ["env.EDITOR"]))
    text = play.end()
    assert f"{symbol:>3} workspace_agent.main" in text
    assert ("env.EDITOR" in text) == (operation in ("update", "replace"))
    assert play.cb.changes[0]["operation"] == operation
    assert play.display.warnings == []


def test_no_log_each_result_its_own_entry() -> None:
    play = Play()
    play.ok(fake("devinfra.providers.libvirt_secret", CENSORED), published("libvirt_secret", "libvirt_secret.luks", "update", ["value"]))
    play.ok(fake(AGENT, UNCHANGED), published("workspace_agent", "workspace_agent.main", "none"))
    play.ok(fake(AGENT, CENSORED), published("workspace_agent", "workspace_agent.other", "create"))
    text = play.end()
    assert [(c["address"], c["operation"]) for c in play.cb.changes] == [("libvirt_secret.luks", "update"), ("workspace_agent.other", "create")]
    assert text.splitlines()[-1] == "Plan: 1 to add, 1 to change, 0 to destroy."


def test_no_log_loop_one_entry_per_item() -> None:
    result = {"changed": True, "results": [CENSORED, {**UNCHANGED}, {"skipped": True}, CENSORED]}
    play = Play()
    play.ok(
        fake(POOL, result),
        published("libvirt_pool", "libvirt_pool.a", "create"),
        published("libvirt_pool", "libvirt_pool.b", "none"),
        published("libvirt_pool", "libvirt_pool.c", "delete"),
    )
    text = play.end()
    assert [(c["address"], c["operation"]) for c in play.cb.changes] == [("libvirt_pool.a", "create"), ("libvirt_pool.c", "delete")]
    assert text.splitlines()[-1] == "Plan: 1 to add, 0 to change, 1 to destroy."


def test_a_shown_results_entry_is_not_taken_for_a_hidden_one() -> None:
    play = Play()
    shown = hidden_result_plan("workspace_devcontainer", {"address": "workspace_devcontainer.x", "operation": "create"}, hidden=False)
    play.ok(fake("devinfra.providers.workspace_devcontainer", CENSORED), shown)
    assert "  ? workspace_devcontainer  changed (no plan detail)" in play.end()


def test_children_of_a_planned_agent_addressed_by_its_name() -> None:
    planned = "0b7e5a52-8d0c-4bd5-9f0a-3c1e6b2d4f10"
    agent = published("workspace_agent", "workspace_agent.main", "create", aliases={planned: "main"})
    app = {"changed": True, "operation": "create", "address": f"workspace_app.{planned}.code"}
    play = Play()
    play.ok(fake(AGENT, CENSORED), agent)
    play.ok(fake("devinfra.providers.workspace_app", app))
    play.end()
    assert [c["address"] for c in play.cb.changes] == ["workspace_agent.main", "workspace_app.main.code"]
    # Another host's agent of that id renames nothing here; a shown agent's aliases count too.
    play = Play()
    play.ok(fake(AGENT, CENSORED, host="h2"), agent)
    shown = {
        "changed": True,
        "operation": "create",
        "address": "workspace_agent.dev",
        "ansible_stats": {**agent, "data": {PLAN_STAT: [{**agent["data"][PLAN_STAT][0], "hidden": False}]}},
    }
    play.ok(fake("devinfra.providers.workspace_app", app))
    play.end()
    assert play.cb.changes[1]["address"] == f"workspace_app.{planned}.code"
    play = Play()
    play.ok(fake(AGENT, shown))
    play.ok(fake("devinfra.providers.workspace_app", app))
    play.end()
    assert [c["address"] for c in play.cb.changes] == ["workspace_agent.dev", "workspace_app.main.code"]


def test_a_forged_alias_renames_nothing() -> None:
    planned = "0b7e5a52-8d0c-4bd5-9f0a-3c1e6b2d4f10"
    app = {"changed": True, "operation": "create", "address": f"workspace_app.{planned}.code"}
    play = Play()
    play.ok(fake(AGENT, CENSORED), published("workspace_agent", "workspace_agent.main", "create"))
    play.ok(fake("ansible.builtin.set_stats", {"changed": False, "ansible_stats": forged("create", module="workspace_agent") | {"data": {PLAN_STAT: [
        {"module": "workspace_agent", "address": "workspace_agent.x", "operation": "create", "changed_paths": [], "aliases": {planned: "admin"}, "hidden": True}
    ]}}}))  # fmt: skip
    play.ok(fake("devinfra.providers.workspace_app", app))
    play.end()
    assert play.cb.changes[1]["address"] == f"workspace_app.{planned}.code"


@pytest.mark.parametrize(
    "entry",
    [
        "text",
        {"module": "workspace_agent", "address": "workspace_agent.main", "operation": "explode", "changed_paths": [], "aliases": {}, "hidden": True},
        {"module": "workspace_agent", "address": "workspace_agent.main", "operation": "create", "changed_paths": [1], "aliases": {}, "hidden": True},
        {"module": "workspace_agent", "address": "workspace_agent.main", "operation": "create", "changed_paths": [], "aliases": {"x": "a.b"}, "hidden": True},
        {"module": "workspace_agent", "address": ["x"], "operation": "create", "changed_paths": [], "aliases": {}, "hidden": True},
        {"module": "workspace_agent", "address": "workspace_agent.main", "operation": "create", "changed_paths": [], "aliases": {}},
    ],
)
def test_malformed_custom_stats_ignored(entry: t.Any) -> None:
    play = Play()
    play.ok(fake(AGENT, CENSORED), {"data": {PLAN_STAT: [entry]}, "per_host": True, "aggregate": True})
    assert "  ? workspace_agent  changed (no plan detail)" in play.end()


# --- forged plan entries --------------------------------------------------------

SET_STATS = "ansible.builtin.set_stats"
FOREIGN_MODULE = "other.collection.anything"


def hidden_pool_create(play: Play, host: str = "h1") -> None:
    play.ok(fake(POOL, CENSORED, host=host, name="the pool"), published("libvirt_pool", "libvirt_pool.p", "create"))


def shown_forger(stats: dict[str, t.Any], action: str = SET_STATS, host: str = "h1", *, run_once: bool = False) -> t.Any:
    return fake(action, {"changed": False, "ansible_stats": stats}, host=host, name="forger", run_once=run_once)


def hidden_forger(action: str = FOREIGN_MODULE, host: str = "h1", *, run_once: bool = False) -> t.Any:
    return fake(action, {**UNCHANGED}, host=host, name="forger", run_once=run_once)


FORGERIES: list[tuple[str, t.Callable[[Play], None]]] = [
    ("set_stats before, per host", lambda p: p.ok(shown_forger(forged()))),
    ("set_stats before, for the run", lambda p: p.ok(shown_forger(forged(per_host=False)))),
    ("a module's shown result before", lambda p: p.ok(shown_forger(forged(), FOREIGN_MODULE))),
    ("a hidden result before", lambda p: p.ok(hidden_forger(), forged())),
    ("a hidden result before, replacing", lambda p: p.ok(hidden_forger(), forged(aggregate=False))),
    ("a hidden set_stats before", lambda p: p.ok(hidden_forger(SET_STATS), forged(per_host=False))),
    ("a run_once result of another host before", lambda p: p.ok(shown_forger(forged(), host="h2", run_once=True))),
    ("a hidden run_once result of another host before", lambda p: p.ok(hidden_forger(host="h2", run_once=True), forged())),
]


@pytest.mark.parametrize("forge", [f for _n, f in FORGERIES], ids=[n for n, _f in FORGERIES])
@pytest.mark.parametrize("after", [False, True], ids=["before", "after"])
def test_a_forged_entry_never_stands_in_for_a_hidden_change(forge: t.Callable[[Play], None], after: bool) -> None:
    """The issue's run: a pool created (hidden) while the plan said nothing changes."""
    play = Play()
    if not after:
        forge(play)
    hidden_pool_create(play)
    if after:
        forge(play)
    text = play.end()
    assert [(c["host"], c["address"], c["operation"]) for c in play.cb.changes] == [("h1", "libvirt_pool.p", "create")]
    assert text.splitlines()[-1] == "Plan: 1 to add, 0 to change, 0 to destroy."


def test_a_shown_forger_is_named() -> None:
    play = Play()
    play.ok(shown_forger(forged()))
    hidden_pool_create(play)
    play.end()
    assert play.display.warnings == [
        "plan: h1: task 'forger' (ansible.builtin.set_stats) published plan entries (devinfra_plan) that no hidden result"
        " of this collection's modules accounts for; they are not part of the plan"
    ]


def test_a_hidden_task_of_another_collection_that_publishes_nothing_changes_nothing() -> None:
    """The common case (a no_log copy of the agent's token): no warning, every plan kept."""
    play = Play()
    hidden_pool_create(play)
    play.ok(hidden_forger("ansible.builtin.copy"))
    play.ok(fake(AGENT, CENSORED), published("workspace_agent", "workspace_agent.main", "create"))
    text = play.end()
    assert text.splitlines()[-1] == "Plan: 2 to add, 0 to change, 0 to destroy."
    assert play.display.warnings == []


@pytest.mark.parametrize(
    ("what", "stats"),
    [
        ("two entries for one result", [published("libvirt_pool", "libvirt_pool.p", "create"), published("libvirt_pool", "libvirt_pool.q", "none")]),
        ("another module's entry", [published("libvirt_volume", "libvirt_pool.p", "create")]),
        ("a list replacing the host's", [{**published("libvirt_pool", "libvirt_pool.p", "create"), "aggregate": False}]),
        ("none at all", []),
        ("an entry for the whole run", [{**published("libvirt_pool", "libvirt_pool.p", "create"), "per_host": False}]),
        ("an entry claiming changes for an unchanged result", [published("libvirt_pool", "libvirt_pool.p", "none")]),
    ],
)
def test_entries_that_do_not_fit_a_hidden_change_leave_it_unexplained(what: str, stats: list[dict[str, t.Any]]) -> None:
    play = Play()
    play.ok(shown_forger(forged(), FOREIGN_MODULE))  # something in the list before
    play.cb.v2_runner_on_ok(fake(POOL, CENSORED, name="the pool")) if not stats else play.ok(fake(POOL, CENSORED, name="the pool"), *stats)
    text = play.end()
    assert "  ? libvirt_pool  changed (no plan detail)" in text, what
    assert text.splitlines()[-1] == "Plan: 0 to add, 0 to change, 0 to destroy, 1 unexplained."
    assert any(w.startswith("plan: h1: the hidden result of task 'the pool' (devinfra.providers.libvirt_pool) is shown as '?'") for w in play.display.warnings)


def test_a_non_list_plan_stat_makes_later_hidden_changes_unexplained() -> None:
    """Once another task made the stat a string, ansible-core drops the list our module adds."""
    play = Play()
    play.ok(shown_forger({"data": {PLAN_STAT: "x"}, "per_host": True, "aggregate": True}))
    hidden_pool_create(play)
    text = play.end()
    assert text.splitlines()[-1] == "Plan: 0 to add, 0 to change, 0 to destroy, 1 unexplained."


class Tagged(list[t.Any]):
    """ansible-core's templated lists are a subclass of list."""


def test_a_list_of_another_type_published_before_makes_ansible_core_drop_ours() -> None:
    """The stats merge only a value of the type already there: a hidden change is then '?'."""
    play = Play()
    play.ok(shown_forger({"data": {PLAN_STAT: Tagged(forged()["data"][PLAN_STAT])}, "per_host": True, "aggregate": True}))
    hidden_pool_create(play)
    text = play.end()
    assert text.splitlines()[-1] == "Plan: 0 to add, 0 to change, 0 to destroy, 1 unexplained."


def test_a_hidden_run_once_result_of_ours_planned_on_its_host() -> None:
    play = Play()
    hidden_pool_create(play, host="h2")
    play.ok(fake(AGENT, CENSORED, run_once=True), published("workspace_agent", "workspace_agent.main", "create"))
    hidden_pool_create(play, host="h2")
    play.end()
    assert [(c["host"], c["address"]) for c in play.cb.changes] == [("h2", "libvirt_pool.p"), ("h1", "workspace_agent.main"), ("h2", "libvirt_pool.p")]
    assert play.display.warnings == []


def test_a_failed_loop_merges_no_plan() -> None:
    """ansible-core merges no stats of a failed result, even its items that went well."""
    play = Play()
    failed = {"failed": True, "changed": True, "results": [CENSORED, {"failed": True, "msg": "boom"}]}
    play.cb.v2_runner_on_failed(fake(POOL, failed, name="loop"), ignore_errors=True)
    hidden_pool_create(play)
    text = play.end()
    assert [(c["address"], c["operation"]) for c in play.cb.changes] == [("libvirt_pool", "unknown"), ("libvirt_pool.p", "create")]
    assert text.splitlines()[-1] == "Plan: 1 to add, 0 to change, 0 to destroy, 1 unexplained."


def test_without_the_live_stats_hidden_changes_are_unexplained() -> None:
    play = Play(live=False)
    hidden_pool_create(play)
    text = play.end()
    assert text.splitlines()[-1] == "Plan: 0 to add, 0 to change, 0 to destroy, 1 unexplained."
    assert "could not be followed" in play.display.warnings[0]


def test_other_stats_at_the_end_than_those_followed() -> None:
    play = Play()
    hidden_pool_create(play)
    play.cb.v2_playbook_on_stats(AggregateStats())
    assert play.display.text[-1].splitlines()[-1] == "Plan: 0 to add, 0 to change, 0 to destroy, 1 unexplained."


def test_live_stats_found_where_ansible_core_sends_the_result() -> None:
    """On the installed ansible-core, the stats a result's ansible_stats are merged into are the
    task queue manager's, whose send_callback calls the callback."""
    cb = plan.CallbackModule()
    cb._display = Display()  # type: ignore[assignment]
    cb._plugin_options = {"plan_file": None}
    cb._init_callback_methods()  # as the plugin loader does
    tqm = TaskQueueManager.__new__(TaskQueueManager)
    tqm._stats = AggregateStats()
    tqm._callback_plugins = [cb]
    tqm._callback_lock = threading.Lock()
    merge(tqm._stats, published("libvirt_pool", "libvirt_pool.p", "create"), ["h1"])
    tqm.send_callback("v2_runner_on_ok", fake(POOL, CENSORED))
    assert cb.live is tqm._stats
    tqm.send_callback("v2_playbook_on_stats", tqm._stats)
    assert cb._display.text[-1].splitlines()[-1] == "Plan: 1 to add, 0 to change, 0 to destroy."  # type: ignore[attr-defined]


def test_which_modules_publish() -> None:
    """The callback expects one entry from a hidden result of each module of ours but the
    *_info ones and NO_PLAN: each of them publishes through one of the shared helpers."""
    root = Path(plan.__file__).parents[1]
    helpers = ("run_resource_module", "run_firstboot_module", "run_domain_action_module", "publish_hidden_plan")
    for path in sorted((root / "modules").glob("*.py")):
        module = path.stem
        source = path.read_text()
        action = root / "action" / path.name
        # The workspace modules run as action plugins: ControllerAction publishes for them.
        publishing = any(h in source for h in helpers) or (action.exists() and "plugin_utils._workspace_action import" in action.read_text())
        assert publishing == plan.publishes(module), module


# --- failures, hosts, text ------------------------------------------------------------------


def test_failed_task() -> None:
    cb, text = run(fake(DOMAIN, {"failed": True, "msg": "boom"}))
    assert cb.changes == []
    assert "failed; the plan is incomplete" in text
    assert cb.document()["errors"] == [{"host": "h1", "task": "a task"}]


def test_grouped_by_host() -> None:
    one = {"changed": True, "operation": "create", "address": "libvirt_domain.a"}
    two = {"changed": True, "operation": "create", "address": "libvirt_domain.b"}
    _cb, text = run(fake(DOMAIN, one, host="h1"), fake(DOMAIN, two, host="h2"), fake(DOMAIN, two, host="h1"))
    lines = text.splitlines()
    assert lines.index("h1:") < lines.index("    + libvirt_domain.b") < lines.index("h2:")
    assert lines[-1] == "Plan: 3 to add, 0 to change, 0 to destroy."


def test_no_control_character_reaches_the_terminal_or_the_plan_file(tmp_path: t.Any) -> None:
    """An ESC sequence or a carriage return drew a fake closing line."""
    fake_line = "\x1b[2K\rPlan: 0 to add, 0 to change, 0 to destroy."
    result = {"changed": True, "operation": "update", "address": f"libvirt_domain.web{fake_line}", "changed_paths": [f"memory\x9b2K{fake_line}"]}
    target = tmp_path / "plan.json"
    play = Play(str(target))
    play.ok(fake(DOMAIN, result, host=f"h1{fake_line}"))
    play.cb.v2_runner_on_failed(fake(DOMAIN, {"failed": True}, host="h2\r", name=f"task{fake_line}"))
    text = play.end()
    assert all(not NOT_ONE_LINE.search(line) for line in text.split("\n"))
    assert [line for line in text.splitlines() if line.startswith("Plan:")] == [text.splitlines()[-1]]
    assert text.splitlines()[-1] == "Plan: 0 to add, 1 to change, 0 to destroy."
    assert "libvirt_domain.web\\u001b[2K\\u000dPlan: 0 to add" in text
    document = json.loads(target.read_text())
    strings = [document["resource_changes"][0][k] for k in ("address", "host")] + document["resource_changes"][0]["changed_paths"]
    strings += [document["errors"][0]["host"], document["errors"][0]["task"]]
    assert all(not NOT_ONE_LINE.search(s) for s in strings), strings


@settings(max_examples=examples(60), deadline=DEADLINE)
@given(address=hostile_text(), host=with_control_character(), path=hostile_text())
def test_hostile_text_is_printable(address: str, host: str, path: str) -> None:
    result = {"changed": True, "operation": "update", "address": address, "changed_paths": [path]}
    _cb, text = run(fake(DOMAIN, result, host=host))
    assert all(not NOT_ONE_LINE.search(line) for line in text.split("\n"))
    assert text.rsplit("\n", maxsplit=1)[-1] == "Plan: 0 to add, 1 to change, 0 to destroy."


# --- the plan file --------------------------------------------------------------------------


def test_plan_file(tmp_path: t.Any) -> None:
    target = tmp_path / "plan.json"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_text("keep")
    os.symlink(elsewhere, target)
    result = {"changed": True, "operation": "replace", "address": "libvirt_domain.web", "changed_paths": ["machine"]}
    run(fake(DOMAIN, result), fake("ansible.builtin.copy", {"changed": True}), plan_file=str(target))
    assert not target.is_symlink()
    assert elsewhere.read_text() == "keep"
    assert oct(target.stat().st_mode & 0o777) == "0o600"
    document = json.loads(target.read_text())
    assert document["summary"] == {"add": 1, "change": 0, "destroy": 1, "unexplained": 1, "unpreviewed": 0}
    assert document["no_changes"] is False
    assert document["unpreviewed"] == []
    assert document["resource_changes"][0] == {
        "address": "libvirt_domain.web",
        "host": "h1",
        "module": "libvirt_domain",
        "operation": "replace",
        "actions": ["delete", "create"],
        "changed_paths": ["machine"],
    }


@pytest.mark.parametrize("earlier", ["file", "link"])
def test_a_plan_file_not_written_leaves_no_earlier_plan(tmp_path: t.Any, monkeypatch: pytest.MonkeyPatch, earlier: str) -> None:
    target = tmp_path / "plan.json"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_text("keep")
    if earlier == "file":
        target.write_text('{"summary": {"add": 0, "change": 0, "destroy": 0}}')
    else:
        os.symlink(elsewhere, target)

    def full(*args: t.Any, **kwargs: t.Any) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(plan, "write_atomic", full)
    _cb, text = run(fake(DOMAIN, {"changed": True, "operation": "create", "address": "libvirt_domain.web"}), plan_file=str(target))
    assert not os.path.lexists(target)
    assert elsewhere.read_text() == "keep"
    lines = text.splitlines()
    assert lines[-2] == f"Error: the plan file {target} was not written: No space left on device; no earlier plan file is left there."
    assert lines[-1] == "Plan: 1 to add, 0 to change, 0 to destroy; the plan file was not written."


def test_a_plan_file_in_a_missing_directory(tmp_path: t.Any) -> None:
    target = tmp_path / "missing" / "plan.json"
    _cb, text = run(plan_file=str(target))
    assert text.splitlines()[-2].startswith(f"Error: the plan file {target} was not written: No such file or directory")
    assert text.splitlines()[-1] == "Plan: 0 to add, 0 to change, 0 to destroy; the plan file was not written."


def test_an_earlier_plan_file_is_removed_when_the_run_starts(tmp_path: t.Any) -> None:
    """A run that ends before writing its plan (interrupted, a crash) leaves no stale one."""
    target = tmp_path / "plan.json"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_text("keep")
    os.symlink(elsewhere, target)
    play = Play(str(target))
    play.cb.v2_playbook_on_start(None)
    assert not os.path.lexists(target)
    assert elsewhere.read_text() == "keep"
    target.write_text("written by someone during the run")
    play.cb.v2_playbook_on_start(None)  # the next playbook of the same run
    assert target.exists()


def test_a_plan_file_where_others_can_write_warns(tmp_path: t.Any) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(tmp_path, 0o755)
    os.chmod(shared, 0o777)
    play = Play(str(shared / "plan.json"))
    play.end()
    assert (shared / "plan.json").exists()
    assert len(play.display.warnings) == 1
    assert play.display.warnings[0].startswith(f"plan: the plan file {shared / 'plan.json'} is written where another user can reach it: {shared} is writable")
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    play = Play(str(private / "plan.json"))
    play.end()
    assert play.display.warnings == []


# --- "No changes." ----------------------------------------------------------------------------

NO_CHANGES = "No changes. Your infrastructure matches the configuration."
SKIPPED_BY_CHECK_MODE = {"changed": False, "msg": "remote module (nocheck) does not support check mode"}


def skipped(play: Play, result: t.Any) -> None:
    play.cb.v2_runner_on_skipped(result)


@pytest.mark.parametrize(
    ("events", "last"),
    [
        pytest.param([], NO_CHANGES, id="nothing ran"),
        pytest.param([("ok", fake(DOMAIN, {"changed": False, "operation": "none"}))], NO_CHANGES, id="unchanged"),
        pytest.param(
            [("skipped", fake("ansible.builtin.command", {"changed": False, "skip_reason": "Conditional result was False", "false_condition": "x"}))],
            NO_CHANGES,
            id="skipped as a real run would",
        ),
        pytest.param(
            [("ok", fake(DOMAIN, {"changed": True, "operation": "update", "address": "libvirt_domain.a"}))],
            "Plan: 0 to add, 1 to change, 0 to destroy.",
            id="a change",
        ),
        pytest.param([("ok", fake("ansible.builtin.copy", {"changed": True}))], "Plan: 0 to add, 0 to change, 0 to destroy, 1 unexplained.", id="unexplained"),
        pytest.param(
            [("skipped", fake("x.y.nocheck", SKIPPED_BY_CHECK_MODE))], "Plan: 0 to add, 0 to change, 0 to destroy, 1 not previewed.", id="not previewed"
        ),
        pytest.param([("failed", fake(DOMAIN, {"failed": True, "msg": "boom"}))], "Plan: 0 to add, 0 to change, 0 to destroy.", id="a failed task"),
    ],
)
def test_no_changes_only_of_a_run_checked_whole(events: list[tuple[str, t.Any]], last: str) -> None:
    """Terraform's words for a plan that changes nothing, never said of a play that could not be
    checked (a change it cannot explain, a task not previewed, a failed task)."""
    play = Play()
    for kind, result in events:
        {"ok": play.ok, "skipped": lambda r: skipped(play, r), "failed": play.cb.v2_runner_on_failed}[kind](result)
    text = play.end()
    assert text.splitlines()[-1] == last
    assert play.cb.document()["no_changes"] is (last == NO_CHANGES)
    assert not any(line.startswith("Plan:") for line in text.splitlines()) if last == NO_CHANGES else NO_CHANGES not in text


def test_no_changes_is_not_said_when_the_plan_file_was_not_written(tmp_path: t.Any) -> None:
    _cb, text = run(plan_file=str(tmp_path / "missing" / "plan.json"))
    assert text.splitlines()[-1] == "Plan: 0 to add, 0 to change, 0 to destroy; the plan file was not written."


# --- old and new values -----------------------------------------------------------------------


def update(before: dict[str, t.Any], after: dict[str, t.Any], paths: list[str] | None = None, action: str = DOMAIN) -> t.Any:
    result: dict[str, t.Any] = {"changed": True, "operation": "update", "address": "libvirt_domain.web", "diff": {"before": before, "after": after}}
    if paths is not None:
        result["changed_paths"] = paths
    return fake(action, result)


LONG = "x" * (plan.VALUE_LIMIT + 1)


@pytest.mark.parametrize(
    ("before", "after", "lines"),
    [
        pytest.param({"memory": 256}, {"memory": 384}, ["        memory: 256 -> 384"], id="a number"),
        pytest.param({"machine": "pc"}, {"machine": "q35"}, ['        machine: "pc" -> "q35"'], id="a string, quoted"),
        pytest.param({"autostart": False}, {"autostart": True}, ["        autostart: false -> true"], id="a boolean"),
        pytest.param(
            {"cpu": {"mode": "host-model"}},
            {"cpu": {"mode": "host-passthrough"}},
            ['        cpu.mode: "host-model" -> "host-passthrough"'],
            id="a nested option",
        ),
        pytest.param({}, {"title": "web"}, ['        title: null -> "web"'], id="set where it was not"),
        pytest.param({"title": "web"}, {"title": None}, ['        title: "web" -> null'], id="unset"),
        pytest.param({"vcpu": 1.5}, {"vcpu": float("nan")}, ["        vcpu"], id="not a finite number"),
        pytest.param({"disks": [1]}, {"disks": [1, 2]}, ["        disks"], id="a list: path only"),
        pytest.param({"x": {"a": 1}}, {"x": "s"}, ["        x"], id="a structure: path only"),
        pytest.param({"title": "short"}, {"title": LONG}, ["        title"], id="a long string: path only"),
        pytest.param({"title": "a"}, {"title": "a\nb"}, ["        title"], id="more than one line: path only"),
        pytest.param({"title": "a"}, {"title": "a\u202eb"}, ["        title"], id="a bidirectional control: path only"),
        pytest.param({"serial": 1}, {"serial": 10 ** (plan.VALUE_LIMIT + 1)}, ["        serial"], id="a huge number: path only"),
        pytest.param({"graphics": {"passwd": "********"}}, {"graphics": {"passwd": "******** (changed)"}}, ["        graphics.passwd"], id="a masked secret"),
        pytest.param({"title": "s3cret"}, {"title": "my ******** here"}, ["        title"], id="a no_log value masked inside"),
        pytest.param({"graphics": {"passwd": "a"}}, {"graphics": {"passwd": "b"}}, ["        graphics.passwd"], id="a password's name"),
        pytest.param({"env": {"EDITOR": "vi"}}, {"env": {"EDITOR": "nano"}}, ["        env.EDITOR"], id="an environment variable"),
        pytest.param({"value": "a"}, {"value": "b"}, ["        value"], id="a secret's value"),
        pytest.param({"api_token": "a"}, {"api_token": "b"}, ["        api_token"], id="a token"),
        pytest.param({"luks": {"key_id": "a"}}, {"luks": {"key_id": "b"}}, ["        luks.key_id"], id="a key"),
    ],
)
def test_values_beside_changed_paths(before: dict[str, t.Any], after: dict[str, t.Any], lines: list[str]) -> None:
    """Old and new values for short, one-line, non-secret scalars; in any doubt the path alone."""
    cb, text = run(update(before, after))
    listed = text.splitlines()
    start = listed.index("    ~ libvirt_domain.web")
    assert listed[start + 1 : start + 1 + len(lines)] == lines
    shown = cb.document()["resource_changes"][0].get("values", {})
    assert set(shown) == {line.split(":")[0].strip() for line in lines if ":" in line}


def test_values_never_of_a_hidden_result_nor_of_another_collection() -> None:
    play = Play()
    play.ok(fake("devinfra.providers.libvirt_secret", CENSORED), published("libvirt_secret", "libvirt_secret.luks", "update", ["memory"]))
    play.ok(update({"memory": 1}, {"memory": 2}, action="other.collection.thing"))
    text = play.end()
    assert "        memory" in text.splitlines()
    assert "->" not in text
    assert all("values" not in change for change in play.cb.document()["resource_changes"])


def test_values_only_for_the_paths_the_module_names() -> None:
    _cb, text = run(update({"memory": 1, "vcpu": 1}, {"memory": 2, "vcpu": 2}, paths=["vcpu"]))
    assert "        vcpu: 1 -> 2" in text
    assert "memory" not in text


def test_values_from_a_list_of_diffs_in_doubt_when_they_disagree() -> None:
    result = {"changed": True, "operation": "update", "address": "libvirt_domain.web", "changed_paths": ["memory", "vcpu"]}
    result["diff"] = [{"before": {"memory": 1, "vcpu": 1}, "after": {"memory": 2, "vcpu": 2}}, {"before": {"memory": 5}, "after": {"memory": 6}}]
    _cb, text = run(fake(DOMAIN, result))
    assert [line for line in text.splitlines() if line.startswith("        ")] == ["        memory", "        vcpu: 1 -> 2"]


def test_values_in_the_plan_file(tmp_path: t.Any) -> None:
    target = tmp_path / "plan.json"
    run(update({"memory": 256, "title": None}, {"memory": 384, "title": "web"}), plan_file=str(target))
    change = json.loads(target.read_text())["resource_changes"][0]
    assert change["values"] == {"memory": {"before": 256, "after": 384}, "title": {"before": None, "after": "web"}}


@settings(max_examples=examples(60), deadline=DEADLINE)
@given(before=hostile_text(), after=hostile_text(), key=hostile_text())
def test_hostile_values_are_printable(before: str, after: str, key: str) -> None:
    _cb, text = run(update({key: before}, {key: after}))
    assert all(not NOT_ONE_LINE.search(line) for line in text.split("\n"))
    assert text.rsplit("\n", maxsplit=1)[-1] in ("Plan: 0 to add, 1 to change, 0 to destroy.",)


# --- tasks not previewed ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("result", "check_mode", "reason"),
    [
        pytest.param(
            SKIPPED_BY_CHECK_MODE, True, "skipped in check mode: remote module (nocheck) does not support check mode", id="a module without check mode"
        ),
        pytest.param(
            {"changed": False, "msg": "Check mode is not supported for this task."},
            True,
            "skipped in check mode: Check mode is not supported for this task.",
            id="an action without check mode",
        ),
        pytest.param(
            {"changed": False, "msg": "Command would have run if not in check mode", "rc": 0},
            True,
            "skipped in check mode: Command would have run if not in check mode",
            id="a command",
        ),
        pytest.param({"changed": False}, True, "skipped in check mode", id="raw"),
        pytest.param(
            {"changed": False, "skip_reason": "Conditional result was False", "false_condition": "not ansible_check_mode"},
            True,
            "skipped in check mode by its condition (not ansible_check_mode)",
            id="when: not ansible_check_mode",
        ),
        pytest.param(UNCHANGED, True, "skipped in check mode (its result is hidden by no_log, so the reason is unknown)", id="hidden: in doubt"),
        pytest.param(
            {"changed": False, "skip_reason": "Conditional result was False", "false_condition": "os == 'Debian'"}, True, None, id="another condition"
        ),
        pytest.param({"changed": False, "skip_reason": "Conditional result was False", "false_condition": False}, True, None, id="when: false"),
        pytest.param({"changed": False, "skip_reason": "No items in the list", "results": []}, True, None, id="no items"),
        pytest.param(SKIPPED_BY_CHECK_MODE, False, None, id="not in check mode"),
        pytest.param({"changed": False, "msg": "a\x1b[2Kb"}, True, "skipped in check mode: a\\u001b[2Kb", id="printable"),
    ],
)
def test_skipped_in_check_mode(result: dict[str, t.Any], check_mode: bool, reason: str | None) -> None:
    play = Play()
    skipped(play, fake("some.collection.thing", result, name="the task", check_mode=check_mode))
    text = play.end()
    assert play.cb.document()["unpreviewed"] == ([{"host": "h1", "task": "the task", "module": "some.collection.thing", "reason": reason}] if reason else [])
    if reason:
        assert f"  h1: task 'the task' (some.collection.thing): {reason}" in text.splitlines()
        assert text.splitlines()[-1] == "Plan: 0 to add, 0 to change, 0 to destroy, 1 not previewed."
        assert play.cb.summary()["unpreviewed"] == 1
    else:
        assert text.splitlines()[-1] == NO_CHANGES


REAL_ONLY = {"changed": False, "skip_reason": "Conditional result was False", "false_condition": "not ansible_check_mode"}


@pytest.mark.parametrize(
    ("action", "listed"),
    [
        ("ansible.builtin.set_fact", False),
        ("ansible.builtin.debug", False),
        ("ansible.legacy.assert", False),
        ("devinfra.providers.libvirt_image_info", False),
        ("ansible.builtin.command", True),
        ("devinfra.providers.libvirt_volume", True),
        ("other.collection.set_fact", True),
        ("set_fact", True),
    ],
)
def test_skipped_tasks_that_change_nothing_by_their_nature(action: str, listed: bool) -> None:
    """A fact set, a message, a read: skipped in check mode, the real run changes nothing more."""
    play = Play()
    skipped(play, fake(action, REAL_ONLY))
    assert (play.end().splitlines()[-1] == NO_CHANGES) is not listed


def test_loop_items_skipped_in_check_mode_each_listed() -> None:
    """ansible-core tells a loop's skipped items by events only (an item's result has no
    "skipped"): each is listed, and the items that ran are planned."""
    play = Play()
    task = fake(POOL, {}, name="pools")
    ran = {"changed": True, "operation": "create", "address": "libvirt_pool.a", "_ansible_item_label": "a"}
    by_condition = {"changed": False, "skip_reason": "Conditional result was False", "false_condition": "item != 'b'", "_ansible_item_label": "b"}
    real_only = {"changed": False, "skip_reason": "Conditional result was False", "false_condition": "not ansible_check_mode", "_ansible_item_label": {"n": 3}}
    for item, event in ((ran, play.cb.v2_runner_item_on_ok), (by_condition, play.cb.v2_runner_item_on_skipped), (real_only, play.cb.v2_runner_item_on_skipped)):
        event(fake(POOL, item, name="pools"))
    task._result.update({"changed": True, "results": [ran, by_condition, real_only]})
    play.ok(task)
    text = play.end()
    assert [c["address"] for c in play.cb.changes] == ["libvirt_pool.a"]
    assert "  h1: task 'pools' (libvirt_pool), item {\"n\": 3}: skipped in check mode by its condition (not ansible_check_mode)" in text
    assert text.splitlines()[-1] == "Plan: 1 to add, 0 to change, 0 to destroy, 1 not previewed."


def test_a_hidden_loop_item_skipped_publishes_nothing() -> None:
    """A no_log loop of ours whose second item was skipped: the first item's plan is its own."""
    play = Play()
    play.cb.v2_runner_item_on_ok(fake(POOL, CENSORED, name="pools"))
    play.cb.v2_runner_item_on_skipped(fake(POOL, UNCHANGED, name="pools", check_mode=False))
    play.ok(fake(POOL, {"changed": True, "results": [CENSORED, UNCHANGED]}, name="pools"), published("libvirt_pool", "libvirt_pool.a", "create"))
    text = play.end()
    assert [(c["address"], c["operation"]) for c in play.cb.changes] == [("libvirt_pool.a", "create")]
    assert play.display.warnings == []
    assert text.splitlines()[-1] == "Plan: 1 to add, 0 to change, 0 to destroy."


@pytest.mark.parametrize(
    ("action", "result", "published_stats", "reason"),
    [
        pytest.param(
            "ansible.builtin.command",
            {"changed": True, "rc": 0},
            None,
            "ran for real in this check run (check_mode: false) and changed something",
            id="another collection's",
        ),
        pytest.param(
            POOL,
            {"changed": True, "operation": "create", "address": "libvirt_pool.p"},
            None,
            "ran for real in this check run (check_mode: false) and changed libvirt_pool.p",
            id="ours",
        ),
        pytest.param(
            POOL,
            CENSORED,
            published("libvirt_pool", "libvirt_pool.p", "create"),
            "ran for real in this check run (check_mode: false) and changed libvirt_pool.p",
            id="ours, hidden",
        ),
        pytest.param("ansible.builtin.command", {"changed": False, "rc": 0}, None, None, id="changed nothing"),
        pytest.param("devinfra.providers.libvirt_pool_info", {"changed": False}, None, None, id="a read"),
    ],
)
def test_check_mode_false_tasks_that_changed(action: str, result: dict[str, t.Any], published_stats: dict[str, t.Any] | None, reason: str | None) -> None:
    """Such a task changed things during the plan: not a change the real run will make, not
    nothing either."""
    play = Play()
    task = fake(action, result, name="real", check_mode=False)
    play.ok(task, *([published_stats] if published_stats else []))
    text = play.end()
    assert [entry["reason"] for entry in play.cb.document()["unpreviewed"]] == ([reason] if reason else [])
    assert all(change["operation"] == "read" for change in play.cb.changes)
    assert (text.splitlines()[-1] == NO_CHANGES) is (reason is None)
    assert play.display.warnings == []


def test_check_mode_false_in_a_real_run_is_a_change() -> None:
    play = Play(check=False)
    play.ok(fake("ansible.builtin.command", {"changed": True}, check_mode=False))
    assert play.end().splitlines()[-1] == "Plan: 0 to add, 0 to change, 0 to destroy, 1 unexplained."


def test_not_previewed_in_run_order_in_the_plan_file(tmp_path: t.Any) -> None:
    target = tmp_path / "plan.json"
    play = Play(str(target))
    skipped(play, fake("x.y.first", SKIPPED_BY_CHECK_MODE, name="first"))
    play.ok(fake("ansible.builtin.command", {"changed": True}, name="second", check_mode=False))
    skipped(play, fake("x.y.third", SKIPPED_BY_CHECK_MODE, name="third", host="h2"))
    play.end()
    document = json.loads(target.read_text())
    assert [(u["host"], u["task"]) for u in document["unpreviewed"]] == [("h1", "first"), ("h1", "second"), ("h2", "third")]
    assert document["summary"]["unpreviewed"] == 3
    assert document["no_changes"] is False


# --- Terraform addresses ----------------------------------------------------------------------

TF = {"devinfra_tf_address": "libvirt_domain.vm[0]"}


@pytest.mark.parametrize(
    ("task_vars", "loop", "line", "in_file"),
    [
        pytest.param(TF, None, "    ~ libvirt_domain.vm[0]  (libvirt_domain.web)", "libvirt_domain.vm[0]", id="imported"),
        pytest.param({}, None, "    ~ libvirt_domain.web", None, id="not imported"),
        pytest.param({"devinfra_tf_address": "libvirt_domain.web"}, None, "    ~ libvirt_domain.web", "libvirt_domain.web", id="the same address once"),
        pytest.param({"devinfra_tf_address": "libvirt_domain.vm[{{ i }}]"}, None, "    ~ libvirt_domain.web", None, id="templated: not known here"),
        pytest.param(TF, "{{ items }}", "    ~ libvirt_domain.web", None, id="a loop: not one resource"),
        pytest.param({"devinfra_tf_address": 3}, None, "    ~ libvirt_domain.web", None, id="not a string"),
        pytest.param({"devinfra_tf_address": "a\x1b[2Kb"}, None, "    ~ a\\u001b[2Kb  (libvirt_domain.web)", "a\\u001b[2Kb", id="printable"),
    ],
)
def test_terraform_address_of_imported_tasks(task_vars: dict[str, t.Any], loop: t.Any, line: str, in_file: str | None) -> None:
    result = {"changed": True, "operation": "update", "address": "libvirt_domain.web", "changed_paths": ["memory"]}
    cb, text = run(fake(DOMAIN, result, task_vars=task_vars, loop=loop))
    assert line in text.splitlines()
    assert cb.document()["resource_changes"][0].get("terraform_address") == in_file
    assert cb.document()["resource_changes"][0]["address"] == "libvirt_domain.web"


def test_terraform_address_of_a_hidden_and_of_a_foreign_task() -> None:
    play = Play()
    agent_vars = {"devinfra_tf_address": "coder_agent.main"}
    play.ok(fake(AGENT, CENSORED, task_vars=agent_vars), published("workspace_agent", "workspace_agent.main", "create"))
    play.ok(fake("ansible.builtin.copy", {"changed": True}, task_vars={"devinfra_tf_address": "local_file.seed"}))
    play.ok(fake(POOL, CENSORED, name="no plan", task_vars={"devinfra_tf_address": "libvirt_pool.p"}))
    text = play.end().splitlines()
    assert "    + coder_agent.main  (workspace_agent.main)" in text
    assert "    ? local_file.seed  (ansible.builtin.copy)  changed (no plan detail)" in text
    assert "    ? libvirt_pool.p  (libvirt_pool)  changed (no plan detail)" in text


# --- the gate playbook ------------------------------------------------------------------------


def test_the_gate_playbook_reads_the_plan_and_never_rewrites_it(tmp_path: t.Any) -> None:
    """During devinfra.providers.plan_gate the callback keeps the plan file of the run before it
    and gives the gate its path; its own tasks are no part of any plan."""
    target = tmp_path / "plan.json"
    target.write_text("the plan of the run before")
    play = Play(str(target))
    gate_play = SimpleNamespace(vars={})
    play.cb.v2_playbook_on_start(SimpleNamespace(_file_name=str(plan.GATE_PLAYBOOK), get_plays=lambda: [gate_play]))
    assert gate_play.vars == {"plan_gate_file": str(target)}
    play.ok(fake("ansible.builtin.assert", {"changed": True}))
    skipped(play, fake("x.y.z", SKIPPED_BY_CHECK_MODE))
    play.cb.v2_runner_on_failed(fake("ansible.builtin.assert", {"failed": True}))
    play.cb.v2_playbook_on_stats(play.stats)
    assert target.read_text() == "the plan of the run before"
    assert play.display.text == []
    assert (play.cb.changes, play.cb.unpreviewed, play.cb.failed) == ([], [], [])


def test_another_playbook_is_planned(tmp_path: t.Any) -> None:
    target = tmp_path / "plan.json"
    target.write_text("stale")
    play = Play(str(target))
    copy_of_the_gate = tmp_path / "plan_gate.yml"
    copy_of_the_gate.write_text(plan.GATE_PLAYBOOK.read_text())
    play.cb.v2_playbook_on_start(SimpleNamespace(_file_name=str(copy_of_the_gate), get_plays=list))
    assert not target.exists()
    assert play.end().splitlines()[-1] == NO_CHANGES
