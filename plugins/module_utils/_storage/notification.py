# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Bucket notification configs: content matching, the plans for present/absent, and the
calls that carry them out. Configs are immutable on the API (insert, get, list, delete),
so a config is identified by its content and "changing" one means inserting another."""

from __future__ import annotations

import dataclasses
import re
import typing as t

from .._common.plan import changed_paths
from .errors import StorageNotFoundError, StorageValidationError
from .topic import canonical_topic, normalise_topic, wire_topic
from .validation import check_bucket, check_line, check_notification_id, check_object_name_prefix, option_path, show

if t.TYPE_CHECKING:
    from .transport import Transport

__all__ = [
    "EVENT_TYPES",
    "NOTIFICATION_ARGSPEC",
    "NOTIFICATION_INFO_ARGSPEC",
    "NOTIFICATION_REQUIRED_IF",
    "PAYLOAD_FORMATS",
    "Content",
    "NotificationClient",
    "Outcome",
    "Plan",
    "attribute_value",
    "content_of",
    "describe",
    "desired_content",
    "ensure_absent",
    "ensure_present",
    "find",
    "get_notifications",
    "parse_notification_id",
    "plan_absent",
    "plan_present",
    "request_body",
    "would_be",
]

EVENT_TYPES = ("OBJECT_FINALIZE", "OBJECT_METADATA_UPDATE", "OBJECT_DELETE", "OBJECT_ARCHIVE")
PAYLOAD_FORMATS = ("JSON_API_V1", "NONE")
KIND = "storage#notification"

NOTIFICATION_ARGSPEC: dict[str, dict[str, t.Any]] = {
    "bucket": {"type": "str", "required": True},
    "topic": {"type": "str"},
    "payload_format": {"type": "str", "choices": list(PAYLOAD_FORMATS), "default": "JSON_API_V1"},
    "event_types": {"type": "list", "elements": "str", "choices": list(EVENT_TYPES)},
    "custom_attributes": {"type": "dict"},
    "object_name_prefix": {"type": "str"},
    "user_project": {"type": "str"},
    "notification_id": {"type": "str", "aliases": ["id"]},
    "purge": {"type": "bool", "default": False},
    "state": {"type": "str", "choices": ["present", "absent"], "default": "present"},
}
NOTIFICATION_REQUIRED_IF: list[t.Any] = [
    ("state", "present", ["topic"]),
    ("state", "absent", ["topic", "notification_id"], True),
]

NOTIFICATION_INFO_ARGSPEC: dict[str, dict[str, t.Any]] = {
    "bucket": {"type": "str", "required": True},
    "notification_id": {"type": "str", "aliases": ["id"]},
    "user_project": {"type": "str"},
}

# The identifiers gsutil, gcloud and Terraform print for a config; all name the bucket too.
_ID_FORMS = (
    re.compile(r"projects/_/buckets/(?P<bucket>[^/]+)/notificationConfigs/(?P<id>[^/]+)"),
    re.compile(r"(?:b/)?(?P<bucket>[^/]+)/notificationConfigs/(?P<id>[^/]+)"),
)


@dataclasses.dataclass(frozen=True)
class Content:
    """What makes a config: every field the API takes, normalised (defaults applied, the
    topic as ``projects/P/topics/T``, event types as a set, attributes as sorted pairs)."""

    topic: str
    payload_format: str = "JSON_API_V1"
    event_types: frozenset[str] = frozenset()
    custom_attributes: tuple[tuple[str, str], ...] = ()
    object_name_prefix: str = ""


def attribute_value(key: str, value: t.Any) -> str:
    """Attribute values are strings on the API; YAML scalars are sent as the string a user
    reads (true -> "true", 5 -> "5"), anything else is an error naming the key."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float)):
        return str(value)
    raise StorageValidationError(f"{option_path('custom_attributes', key)}: must be a string (or a number or boolean), got {type(value).__name__}")


def parse_notification_id(value: str, bucket: str) -> str:
    """The server id from ``12``, ``projects/_/buckets/B/notificationConfigs/12``,
    ``b/B/notificationConfigs/12`` or Terraform's ``B/notificationConfigs/12``."""
    text = check_line("notification_id", value).strip()
    if not text:
        raise StorageValidationError("notification_id: must not be empty")
    if "/" not in text:
        # The id becomes a path segment: never "..", "%2e%2e" or the like.
        return check_notification_id(text)
    for pattern in _ID_FORMS:
        match = pattern.fullmatch(text)
        if match:
            if match.group("bucket") != bucket:
                raise StorageValidationError(f"notification_id: {show(value)} names bucket {show(match.group('bucket'))}, not {show(bucket)}")
            return check_notification_id(match.group("id"))
    raise StorageValidationError(
        f"notification_id: {show(value)} is not an id, projects/_/buckets/BUCKET/notificationConfigs/ID or BUCKET/notificationConfigs/ID"
    )


def desired_content(params: t.Mapping[str, t.Any]) -> Content:
    """The normalised content the options ask for; raises before any request on bad input."""
    check_bucket(params["bucket"])
    project = params.get("project")
    attributes = params.get("custom_attributes") or {}
    return Content(
        topic=normalise_topic(check_line("topic", params["topic"]), check_line("project", project) if project else None),
        payload_format=params.get("payload_format") or "JSON_API_V1",
        event_types=frozenset(params.get("event_types") or ()),
        custom_attributes=tuple(sorted((str(key), attribute_value(str(key), value)) for key, value in attributes.items())),
        object_name_prefix=check_object_name_prefix(params.get("object_name_prefix") or ""),
    )


def content_of(config: t.Mapping[str, t.Any]) -> Content:
    """The normalised content of a config as the API returns it (absent keys = defaults)."""
    return Content(
        topic=canonical_topic(config.get("topic") or ""),
        payload_format=config.get("payload_format") or "JSON_API_V1",
        event_types=frozenset(config.get("event_types") or ()),
        custom_attributes=tuple(sorted((str(k), str(v)) for k, v in (config.get("custom_attributes") or {}).items())),
        object_name_prefix=config.get("object_name_prefix") or "",
    )


def request_body(content: Content) -> dict[str, t.Any]:
    """The insert body: snake_case keys as the API spells them, optional keys only when set."""
    body: dict[str, t.Any] = {"topic": wire_topic(content.topic), "payload_format": content.payload_format}
    if content.event_types:
        body["event_types"] = [event for event in EVENT_TYPES if event in content.event_types]
    if content.custom_attributes:
        body["custom_attributes"] = dict(content.custom_attributes)
    if content.object_name_prefix:
        body["object_name_prefix"] = content.object_name_prefix
    return body


def describe(config: t.Mapping[str, t.Any], bucket: str) -> dict[str, t.Any]:
    """The ``notification`` result: every field of the resource, absent ones with their defaults."""
    return {
        "id": config.get("id"),
        "bucket": bucket,
        "topic": config.get("topic"),
        "payload_format": config.get("payload_format") or "JSON_API_V1",
        "event_types": list(config.get("event_types") or []),
        "custom_attributes": dict(config.get("custom_attributes") or {}),
        "object_name_prefix": config.get("object_name_prefix") or "",
        "etag": config.get("etag"),
        "self_link": config.get("selfLink"),
        "kind": config.get("kind") or KIND,
    }


def would_be(content: Content, bucket: str) -> dict[str, t.Any]:
    """The result of an insert check mode does not send: the server-assigned fields are null."""
    return describe({**request_body(content), "kind": KIND}, bucket)


# What the server gives each config: never an option a task changes.
_SERVER_FIELDS = ("id", "etag", "self_link", "kind")


def _options_changed(before: dict[str, t.Any], after: dict[str, t.Any]) -> list[str]:
    """The options in which a replaced config differs from its replacement."""
    options_before, options_after = ({k: v for k, v in view.items() if k not in _SERVER_FIELDS} for view in (before, after))
    return changed_paths(options_before, options_after)


def _diff_view(notification: t.Mapping[str, t.Any] | None) -> dict[str, t.Any]:
    return {"exists": True, **notification} if notification else {"exists": False}


def _diff(before: dict[str, t.Any] | None, after: dict[str, t.Any] | None, others: t.Sequence[dict[str, t.Any]]) -> dict[str, t.Any] | list[dict[str, t.Any]]:
    """The managed config's before/after; when the task also deletes other configs, a list
    (which Ansible shows diff by diff) with one more entry per deleted config."""
    main = {"before": _diff_view(before), "after": _diff_view(after)}
    if not others:
        return main
    extra = [
        {"before": _diff_view(other), "after": _diff_view(None), "before_header": f"notificationConfigs/{other.get('id')}", "after_header": "(deleted)"}
        for other in others
    ]
    return [main, *extra]


class NotificationClient:
    """The four API methods on one bucket."""

    def __init__(self, transport: Transport, *, bucket: str, user_project: str | None) -> None:
        self.transport = transport
        self.bucket = bucket
        self.params = {"userProject": user_project} if user_project else None

    def list(self) -> list[dict[str, t.Any]]:
        answer = self.transport.request(
            "GET", ("b", self.bucket, "notificationConfigs"), params=self.params, operation=f"Cannot list the notification configs of bucket {self.bucket!r}"
        )
        # The API may leave out "items" when a bucket has no configs.
        items = (answer or {}).get("items") or []
        return [item for item in items if isinstance(item, dict)]

    def get(self, notification_id: str) -> dict[str, t.Any] | None:
        try:
            return self.transport.request(
                "GET",
                ("b", self.bucket, "notificationConfigs", notification_id),
                params=self.params,
                operation=f"Cannot read notification config {notification_id!r} of bucket {self.bucket!r}",
            )
        except StorageNotFoundError:
            return None

    def insert(self, content: Content) -> dict[str, t.Any]:
        answer = self.transport.request(
            "POST",
            ("b", self.bucket, "notificationConfigs"),
            params=self.params,
            body=request_body(content),
            operation=f"Cannot create a notification config in bucket {self.bucket!r}",
        )
        return answer or {}

    def delete(self, notification_id: str) -> bool:
        """False when the config was already gone (404)."""
        try:
            self.transport.request(
                "DELETE",
                ("b", self.bucket, "notificationConfigs", notification_id),
                params=self.params,
                operation=f"Cannot delete notification config {notification_id!r} of bucket {self.bucket!r}",
            )
        except StorageNotFoundError:
            return False
        return True


@dataclasses.dataclass
class Plan:
    keep: dict[str, t.Any] | None = None
    create: Content | None = None
    delete: list[dict[str, t.Any]] = dataclasses.field(default_factory=list)
    replaced: dict[str, t.Any] | None = None
    warnings: list[str] = dataclasses.field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.create is not None or bool(self.delete)


@dataclasses.dataclass
class Outcome:
    changed: bool
    notification: dict[str, t.Any]
    deleted: list[dict[str, t.Any]]
    diff: dict[str, t.Any] | list[dict[str, t.Any]]
    warnings: list[str] = dataclasses.field(default_factory=list)
    # What the plan callback shows (Terraform's words): a config's content cannot change, so a
    # changed one is replaced; deleting only other configs of the topic (purge) is a delete.
    operation: str = "none"
    changed_paths: list[str] = dataclasses.field(default_factory=list)


def plan_present(configs: t.Sequence[dict[str, t.Any]], desired: Content, *, notification_id: str | None, purge: bool) -> Plan:
    """Keep a config with the desired content or create one. ``notification_id`` names the
    config this one replaces (deleted when its content differs); ``purge`` also deletes every
    other config on the same topic, duplicates included."""
    plan = Plan()
    matching = [config for config in configs if content_of(config) == desired]
    named = next((config for config in configs if str(config.get("id")) == notification_id), None) if notification_id else None
    if named is not None and named in matching:
        plan.keep = named
    elif matching:
        plan.keep = matching[0]
    else:
        plan.create = desired
    if notification_id and named is None:
        plan.warnings.append(f"notification_id {notification_id!r} is not a config of this bucket; matching by content only")
    if named is not None and named is not plan.keep:
        plan.replaced = named
        plan.delete.append(named)
    if purge:
        plan.delete += [
            config for config in configs if config is not plan.keep and config is not named and canonical_topic(config.get("topic") or "") == desired.topic
        ]
    return plan


def plan_absent(configs: t.Sequence[dict[str, t.Any]], desired: Content, *, purge: bool) -> Plan:
    """Delete every config with the given content; with ``purge``, every config on the topic."""
    if purge:
        return Plan(delete=[config for config in configs if canonical_topic(config.get("topic") or "") == desired.topic])
    return Plan(delete=[config for config in configs if content_of(config) == desired])


def _delete_all(client: NotificationClient, configs: t.Sequence[dict[str, t.Any]]) -> list[dict[str, t.Any]]:
    """Delete each config; one already gone (404) is not reported as deleted."""
    return [config for config in configs if client.delete(str(config.get("id")))]


def ensure_present(client: NotificationClient, desired: Content, *, notification_id: str | None, purge: bool, check_mode: bool) -> Outcome:
    plan = plan_present(client.list(), desired, notification_id=notification_id, purge=purge)
    bucket = client.bucket
    if plan.keep is not None:
        result = describe(plan.keep, bucket)
    elif check_mode:
        result = would_be(desired, bucket)
    else:
        result = describe(client.insert(desired), bucket)
    # The new config is in place before anything is deleted: a failed insert loses nothing.
    deleted = plan.delete if check_mode else _delete_all(client, plan.delete)
    before = plan.keep or plan.replaced
    described = [describe(config, bucket) for config in deleted]
    others = [view for config, view in zip(deleted, described) if config is not plan.replaced]
    operation = ("replace" if before else "create") if plan.create is not None else ("delete" if deleted else "none")
    return Outcome(
        changed=plan.create is not None or bool(deleted),
        notification=result,
        deleted=described,
        diff=_diff(describe(before, bucket) if before else None, result, others),
        warnings=plan.warnings,
        operation=operation,
        changed_paths=_options_changed(describe(before, bucket), result) if plan.create is not None and before else [],
    )


def find(client: NotificationClient, notification_id: str) -> dict[str, t.Any] | None:
    """The config with ``notification_id``, or None when the bucket has no such config. The
    API answers 404 for a missing bucket as for a missing config: a list tells them apart,
    and fails with the same message as every other task on a missing bucket."""
    found = client.get(notification_id)
    if found is None:
        client.list()
    return found


def ensure_absent(client: NotificationClient, desired: Content | None, *, notification_id: str | None, purge: bool, check_mode: bool) -> Outcome:
    """Delete by id (one GET to report what goes, then the DELETE) or by content (one list)."""
    if notification_id:
        found = find(client, notification_id)
        plan = Plan(delete=[found] if found is not None else [])
    else:
        if desired is None:
            raise StorageValidationError("state=absent needs notification_id or topic")
        plan = plan_absent(client.list(), desired, purge=purge)
    bucket = client.bucket
    deleted = plan.delete if check_mode else _delete_all(client, plan.delete)
    described = [describe(config, bucket) for config in deleted]
    return Outcome(
        changed=bool(deleted),
        notification=described[0] if described else {},
        deleted=described,
        diff=_diff(described[0] if described else None, None, described[1:]),
        operation="delete" if deleted else "none",
    )


def get_notifications(client: NotificationClient, notification_id: str | None) -> list[dict[str, t.Any]]:
    """Every config of the bucket, or the one with ``notification_id`` ([] when it does not
    exist). A 404 on get is told apart from a missing bucket by listing, which fails then."""
    if notification_id is None:
        return [describe(config, client.bucket) for config in client.list()]
    found = find(client, notification_id)
    return [describe(found, client.bucket)] if found is not None else []
