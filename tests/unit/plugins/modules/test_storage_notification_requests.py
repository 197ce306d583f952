# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The performance target of a no-op storage_notification: exactly one HTTP request (the list of
the bucket's configs), counted by the emulator, whatever form the task takes. The
one exception: an id that is already gone costs a list after the get's 404, which tells a
missing config from a missing bucket (the API answers 404 for both)."""

from __future__ import annotations

import typing as t

import pytest

from ansible_collections.devinfra.providers.plugins.modules import storage_notification
from ansible_collections.devinfra.providers.tests.gcs_emulator.server import Bucket, Emulator, State

TOKEN = "unit-test-token-5d21"
TOPIC = "projects/demo-project/topics/uploads"
OTHER_TOPIC = "projects/demo-project/topics/other"
Run = t.Callable[..., dict[str, t.Any]]


@pytest.fixture
def emulator() -> t.Iterator[Emulator]:
    state = State(tokens={TOKEN: "write"}, topics={TOPIC: True, OTHER_TOPIC: True})
    state.buckets["media"] = Bucket("media")
    with Emulator(state) as server:
        yield server


def task(emulator: Emulator, **extra: t.Any) -> dict[str, t.Any]:
    return {"api_endpoint": emulator.url, "auth_kind": "accesstoken", "access_token": TOKEN, "bucket": "media", "topic": TOPIC, **extra}


# (what exists first, the no-op task): each task finds everything as it wants it.
NOOPS: list[tuple[str, list[dict[str, t.Any]], dict[str, t.Any], bool]] = [
    ("present", [{}], {}, False),
    ("present, check mode", [{}], {}, True),
    ("present, full topic form", [{}], {"topic": "//pubsub.googleapis.com/" + TOPIC}, False),
    ("present, bare topic id", [{}], {"topic": "uploads", "project": "demo-project"}, False),
    ("present among configs of other topics", [{"topic": OTHER_TOPIC}, {}, {"topic": OTHER_TOPIC, "payload_format": "NONE"}], {}, False),
    ("present with every option", [{"event_types": ["OBJECT_FINALIZE"], "custom_attributes": {"a": "1"}, "object_name_prefix": "in/"}],
     {"event_types": ["OBJECT_FINALIZE"], "custom_attributes": {"a": "1"}, "object_name_prefix": "in/"}, False),
    ("present, purge with nothing to purge", [{"topic": OTHER_TOPIC}, {}], {"purge": True}, False),
    ("absent, nothing there", [{"topic": OTHER_TOPIC}], {"state": "absent"}, False),
    ("absent, purge, nothing there", [], {"state": "absent", "purge": True}, False),
    ("absent by id, already gone", [], {"state": "absent", "notification_id": "7"}, False),
]  # fmt: skip


@pytest.mark.parametrize(("existing", "noop", "check_mode"), [row[1:] for row in NOOPS], ids=[row[0] for row in NOOPS])
def test_a_noop_costs_one_read(run_module: Run, emulator: Emulator, existing: list[dict[str, t.Any]], noop: dict[str, t.Any], check_mode: bool) -> None:
    for extra in existing:
        assert run_module(storage_notification.main, task(emulator, **extra))["changed"] is True
    emulator.state.log.clear()
    result = run_module(storage_notification.main, task(emulator, **noop), check_mode=check_mode)
    assert result["changed"] is False, result
    # One read: the list of the bucket's configs; for an id, the get and (it is gone) the list.
    listing = "/storage/v1/b/media/notificationConfigs"
    expected = [f"{listing}/{noop['notification_id']}", listing] if "notification_id" in noop else [listing]
    assert [(entry["method"], entry["path"]) for entry in emulator.state.log] == [("GET", path) for path in expected]
