# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import typing as t

import pytest

from ansible_collections.devinfra.providers.plugins.module_utils._storage.errors import StorageValidationError
from ansible_collections.devinfra.providers.plugins.module_utils._storage.notification import (
    Content,
    attribute_value,
    content_of,
    describe,
    desired_content,
    parse_notification_id,
    plan_absent,
    plan_present,
    request_body,
    would_be,
)

T = "projects/p-12345/topics/tp1"
WIRE = "//pubsub.googleapis.com/" + T


def config(config_id: str, **fields: t.Any) -> dict[str, t.Any]:
    return {"kind": "storage#notification", "id": config_id, "topic": WIRE, "payload_format": "JSON_API_V1", "etag": "CAE=", **fields}


# (API resource, desired content, equal?): absent keys mean the defaults, event types are a set.
MATCHING: list[tuple[dict[str, t.Any], Content, bool]] = [
    (config("1"), Content(T), True),
    ({"id": "1", "topic": WIRE}, Content(T), True),  # payload_format left out = JSON_API_V1
    (config("1", topic=T), Content(T), True),  # an emulator returning projects/... still matches
    (config("1", event_types=["OBJECT_DELETE", "OBJECT_FINALIZE"]), Content(T, event_types=frozenset({"OBJECT_FINALIZE", "OBJECT_DELETE"})), True),
    (config("1", event_types=[]), Content(T), True),
    (config("1", event_types=["OBJECT_DELETE"]), Content(T), False),
    (config("1", custom_attributes={}), Content(T), True),
    (config("1", custom_attributes={"a": "1"}), Content(T, custom_attributes=(("a", "1"),)), True),
    (config("1", custom_attributes={"a": "1"}), Content(T, custom_attributes=(("a", "2"),)), False),
    (config("1", object_name_prefix=""), Content(T), True),
    (config("1", object_name_prefix="x/"), Content(T), False),
    (config("1", payload_format="NONE"), Content(T), False),
    (config("1", topic="//pubsub.googleapis.com/projects/p-12345/topics/tp2"), Content(T), False),
]


@pytest.mark.parametrize(("resource", "desired", "equal"), MATCHING)
def test_content_matching(resource: dict[str, t.Any], desired: Content, equal: bool) -> None:
    assert (content_of(resource) == desired) is equal


@pytest.mark.parametrize(
    ("value", "expected"),
    [("x", "x"), (5, "5"), (1.5, "1.5"), (True, "true"), (False, "false"), ("", "")],
)
def test_attribute_values_are_strings(value: t.Any, expected: str) -> None:
    assert attribute_value("k", value) == expected


@pytest.mark.parametrize("value", [None, ["a"], {"a": 1}])
def test_attribute_values_that_are_not_scalars(value: t.Any) -> None:
    with pytest.raises(StorageValidationError, match=r"custom_attributes\.k: must be a string"):
        attribute_value("k", value)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("12", "12"),
        (" 12 ", "12"),
        ("projects/_/buckets/media/notificationConfigs/12", "12"),
        ("b/media/notificationConfigs/12", "12"),
        ("media/notificationConfigs/12", "12"),
    ],
)
def test_parse_notification_id(value: str, expected: str) -> None:
    assert parse_notification_id(value, "media") == expected


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("", "must not be empty"),
        ("projects/_/buckets/other/notificationConfigs/1", "names bucket 'other', not 'media'"),
        ("media/12", "is not an id"),
    ],
)
def test_parse_notification_id_errors(value: str, message: str) -> None:
    with pytest.raises(StorageValidationError, match=message):
        parse_notification_id(value, "media")


def test_desired_content_and_body() -> None:
    desired = desired_content(
        {
            "bucket": "media",
            "topic": "tp1",
            "project": "p-12345",
            "payload_format": "NONE",
            "event_types": ["OBJECT_DELETE", "OBJECT_FINALIZE", "OBJECT_DELETE"],
            "custom_attributes": {"b": 2, "a": True},
            "object_name_prefix": None,
        }
    )
    assert desired == Content(T, "NONE", frozenset({"OBJECT_FINALIZE", "OBJECT_DELETE"}), (("a", "true"), ("b", "2")), "")
    # snake_case wire keys, the //pubsub form, event types in the API's order, unset keys left out.
    assert request_body(desired) == {
        "topic": WIRE,
        "payload_format": "NONE",
        "event_types": ["OBJECT_FINALIZE", "OBJECT_DELETE"],
        "custom_attributes": {"a": "true", "b": "2"},
    }
    assert request_body(Content(T)) == {"topic": WIRE, "payload_format": "JSON_API_V1"}


def test_describe_fills_defaults_and_renames_self_link() -> None:
    resource = {"id": "3", "topic": WIRE, "selfLink": "https://x/3", "etag": "e"}
    assert describe(resource, "media") == {
        "id": "3",
        "bucket": "media",
        "topic": WIRE,
        "payload_format": "JSON_API_V1",
        "event_types": [],
        "custom_attributes": {},
        "object_name_prefix": "",
        "etag": "e",
        "self_link": "https://x/3",
        "kind": "storage#notification",
    }
    assert would_be(Content(T), "media")["id"] is None


# (existing ids with prefixes, notification_id, purge) -> (kept id, create?, deleted ids)
PLANS: list[tuple[list[dict[str, t.Any]], str | None, bool, str | None, bool, list[str]]] = [
    ([], None, False, None, True, []),
    ([config("1")], None, False, "1", False, []),
    ([config("1", object_name_prefix="x/")], None, False, None, True, []),
    ([config("1", object_name_prefix="x/")], "1", False, None, True, ["1"]),  # replace the named one
    ([config("1"), config("2")], "2", False, "2", False, []),  # the named match is preferred
    ([config("1"), config("2")], None, True, "1", False, ["2"]),  # purge removes duplicates
    ([config("1", object_name_prefix="x/"), config("2", topic="//pubsub.googleapis.com/projects/p-12345/topics/other")], None, True, None, True, ["1"]),
    ([config("1")], "9", False, "1", False, []),  # unknown id: content wins, with a warning
]


@pytest.mark.parametrize(("configs", "notification_id", "purge", "kept", "create", "deleted"), PLANS)
def test_plan_present(configs: list[dict[str, t.Any]], notification_id: str | None, purge: bool, kept: str | None, create: bool, deleted: list[str]) -> None:
    plan = plan_present(configs, Content(T), notification_id=notification_id, purge=purge)
    assert (plan.keep or {}).get("id") == kept
    assert (plan.create is not None) is create
    assert [c["id"] for c in plan.delete] == deleted
    assert plan.changed is (create or bool(deleted))
    assert bool(plan.warnings) is (notification_id == "9")


def test_plan_absent() -> None:
    configs = [config("1"), config("2", object_name_prefix="x/"), config("3", topic="//pubsub.googleapis.com/projects/p-12345/topics/other")]
    assert [c["id"] for c in plan_absent(configs, Content(T), purge=False).delete] == ["1"]
    assert [c["id"] for c in plan_absent(configs, Content(T), purge=True).delete] == ["1", "2"]
    assert plan_absent([], Content(T), purge=True).changed is False
