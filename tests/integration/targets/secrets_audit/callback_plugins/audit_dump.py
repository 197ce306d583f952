# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Test-only callback of the secrets_audit target: every result every callback receives
(as AWX's event callback or a JSON logger would), one JSON line each, appended to the file
named by AUDIT_DUMP_FILE."""

from __future__ import annotations

import json
import os

from ansible.plugins.callback import CallbackBase

DOCUMENTATION = """
name: audit_dump
type: aggregate
short_description: Dump every task result as JSON lines (secrets_audit test target only)
description:
  - Appends every result, diff and warning a callback receives to the file in E(AUDIT_DUMP_FILE).
requirements:
  - enabled in callbacks_enabled
"""


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "audit_dump"
    CALLBACK_NEEDS_ENABLED = True

    def _dump(self, event, result=None, **extra):
        record = {"event": event, **extra}
        if result is not None:
            record["task"] = result.task_name
            record["host"] = result._host.get_name()  # pylint: disable=protected-access
            record["result"] = result._result  # pylint: disable=protected-access
        with open(os.environ["AUDIT_DUMP_FILE"], "a", encoding="utf-8") as handle:
            handle.write(json.dumps(record, default=repr, sort_keys=True) + "\n")

    def v2_playbook_on_task_start(self, task, is_conditional):
        self._dump("task_start", name=task.get_name())

    def v2_runner_on_ok(self, result):
        self._dump("ok", result)

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._dump("failed", result)

    def v2_runner_on_skipped(self, result):
        self._dump("skipped", result)

    def v2_runner_on_unreachable(self, result):
        self._dump("unreachable", result)

    def v2_runner_item_on_ok(self, result):
        self._dump("item_ok", result)

    def v2_runner_item_on_failed(self, result):
        self._dump("item_failed", result)

    def v2_runner_item_on_skipped(self, result):
        self._dump("item_skipped", result)

    def v2_runner_retry(self, result):
        self._dump("retry", result)

    def v2_on_file_diff(self, result):
        self._dump("diff", result)

    def v2_playbook_on_stats(self, stats):
        self._dump("stats", summary={host: stats.summarize(host) for host in sorted(stats.processed)})
