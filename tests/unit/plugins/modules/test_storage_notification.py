# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""storage_notification and storage_notification_info end to end, against the local emulator
of the notificationConfigs API (the fake sits at the transport boundary: a real HTTP server)."""

from __future__ import annotations

import json
import typing as t

import pytest

from ansible_collections.devinfra.providers.plugins.module_utils._storage import transport
from ansible_collections.devinfra.providers.plugins.modules import storage_notification, storage_notification_info
from ansible_collections.devinfra.providers.tests.gcs_emulator.server import Bucket, Emulator, Fault, State

TOKEN = "unit-test-token-3f9a"
READ_TOKEN = "unit-test-read-only-77c1"
TOPIC = "projects/demo-project/topics/uploads"
Run = t.Callable[..., dict[str, t.Any]]


@pytest.fixture
def emulator(monkeypatch: pytest.MonkeyPatch) -> t.Iterator[Emulator]:
    monkeypatch.setattr(transport.RetryPolicy, "delay", lambda self, attempt, retry_after=None: 0.0)  # backoff without waiting
    state = State(tokens={TOKEN: "write", READ_TOKEN: "read"}, topics={TOPIC: True, "projects/demo-project/topics/locked": False})
    state.buckets["media"] = Bucket("media")
    state.buckets["other"] = Bucket("other")
    state.buckets["paid"] = Bucket("paid", requester_pays=True)
    with Emulator(state) as server:
        yield server


def args(emulator: Emulator, **extra: t.Any) -> dict[str, t.Any]:
    return {"api_endpoint": emulator.url, "auth_kind": "accesstoken", "access_token": TOKEN, "bucket": "media", "topic": TOPIC, **extra}


def configs(emulator: Emulator, bucket: str = "media") -> list[dict[str, t.Any]]:
    return list(emulator.state.buckets[bucket].configs.values())


def methods(emulator: Emulator) -> list[str]:
    return [entry["method"] for entry in emulator.state.log]


def test_four_runs(run_module: Run, emulator: Emulator) -> None:
    task = args(emulator, event_types=["OBJECT_DELETE", "OBJECT_FINALIZE"], custom_attributes={"team": "media", "n": 5, "on": True})
    check = run_module(storage_notification.main, task, check_mode=True, diff=True)
    assert check["changed"] is True
    assert methods(emulator) == ["GET"]
    assert configs(emulator) == []
    assert check["notification"]["id"] is None
    assert check["diff"] == {"before": {"exists": False}, "after": {"exists": True, **check["notification"]}}

    real = run_module(storage_notification.main, task, diff=True)
    assert real["changed"] is True
    assert methods(emulator) == ["GET", "GET", "POST"]
    (stored,) = configs(emulator)
    assert stored["custom_attributes"] == {"team": "media", "n": "5", "on": "true"}
    assert real["notification"] == {
        "id": "1",
        "bucket": "media",
        "topic": "//pubsub.googleapis.com/" + TOPIC,
        "payload_format": "JSON_API_V1",
        "event_types": ["OBJECT_FINALIZE", "OBJECT_DELETE"],
        "custom_attributes": {"team": "media", "n": "5", "on": "true"},
        "object_name_prefix": "",
        "etag": stored["etag"],
        "self_link": f"{emulator.url}/storage/v1/b/media/notificationConfigs/1",
        "kind": "storage#notification",
    }
    assert real["deleted"] == []

    emulator.state.log.clear()
    again = run_module(storage_notification.main, {**task, "event_types": ["OBJECT_FINALIZE", "OBJECT_DELETE"]}, check_mode=True)
    final = run_module(storage_notification.main, task)
    assert (again["changed"], final["changed"]) == (False, False)
    assert methods(emulator) == ["GET", "GET"]  # one list request per no-op run
    assert final["notification"] == real["notification"]


@pytest.mark.parametrize(
    "topic",
    ["uploads", TOPIC, "//pubsub.googleapis.com/" + TOPIC, f"  {TOPIC} "],
)
def test_topic_forms_compare_equal(run_module: Run, emulator: Emulator, topic: str) -> None:
    run_module(storage_notification.main, args(emulator))
    result = run_module(storage_notification.main, args(emulator, topic=topic, project="demo-project"))
    assert result["changed"] is False
    assert len(configs(emulator)) == 1


@pytest.mark.parametrize(
    ("change", "value"),
    [
        ("payload_format", "NONE"),
        ("event_types", ["OBJECT_ARCHIVE"]),
        ("custom_attributes", {"a": "b"}),
        ("object_name_prefix", "logs/"),
        ("bucket", "other"),
    ],
)
def test_any_change_is_a_new_config_and_keeps_the_old(run_module: Run, emulator: Emulator, change: str, value: t.Any) -> None:
    first = run_module(storage_notification.main, args(emulator))
    second = run_module(storage_notification.main, args(emulator, **{change: value}))
    assert second["changed"] is True
    assert second["notification"]["id"] != first["notification"]["id"] or change == "bucket"
    assert len(configs(emulator)) + len(configs(emulator, "other")) == 2
    assert second["deleted"] == []


def test_notification_id_replaces_that_config(run_module: Run, emulator: Emulator) -> None:
    first = run_module(storage_notification.main, args(emulator))
    check = run_module(storage_notification.main, args(emulator, payload_format="NONE", id=first["notification"]["id"]), check_mode=True, diff=True)
    assert check["changed"] is True
    assert [c["id"] for c in configs(emulator)] == ["1"]
    assert check["diff"]["before"]["id"] == "1"
    assert check["diff"]["after"]["payload_format"] == "NONE"
    replaced = run_module(storage_notification.main, args(emulator, payload_format="NONE", notification_id="projects/_/buckets/media/notificationConfigs/1"))
    assert replaced["changed"] is True
    assert [c["id"] for c in configs(emulator)] == ["2"]
    assert [d["id"] for d in replaced["deleted"]] == ["1"]
    # Insert first, then delete: the order the emulator saw.
    assert [e["method"] for e in emulator.state.log][-2:] == ["POST", "DELETE"]
    same = run_module(storage_notification.main, args(emulator, payload_format="NONE", notification_id="2"))
    assert same["changed"] is False
    # What the plan callback shows: a create, a replace naming the option, then nothing.
    assert (first["operation"], first["address"], first["changed_paths"]) == ("create", "storage_notification.media/1", [])
    assert (check["operation"], check["changed_paths"]) == ("replace", ["payload_format"])
    assert (replaced["operation"], replaced["address"], replaced["changed_paths"]) == ("replace", "storage_notification.media/2", ["payload_format"])
    assert (same["operation"], same["changed_paths"]) == ("none", [])
    gone = run_module(storage_notification.main, args(emulator, notification_id="2", state="absent"))
    assert (gone["operation"], gone["address"]) == ("delete", "storage_notification.media/2")


def test_ids_as_storage_testbench_gives_them(run_module: Run, emulator: Emulator) -> None:
    """Google's own emulator answers with ids such as notification-1f0c...: replace by id,
    check mode, info by id and absent by id work with them as with Cloud Storage's numbers."""
    emulator.state.buckets["media"].id_style = "testbench"
    first = run_module(storage_notification.main, args(emulator))["notification"]
    assert first["id"].startswith("notification-")
    check = run_module(storage_notification.main, args(emulator, payload_format="NONE", notification_id=first["id"]), check_mode=True, diff=True)
    assert (check["changed"], check["diff"]["before"]["id"], [c["id"] for c in configs(emulator)]) == (True, first["id"], [first["id"]])
    replaced = run_module(storage_notification.main, args(emulator, payload_format="NONE", notification_id=f"media/notificationConfigs/{first['id']}"))
    assert [d["id"] for d in replaced["deleted"]] == [first["id"]]
    second = replaced["notification"]["id"]
    assert [c["id"] for c in configs(emulator)] == [second] != [first["id"]]
    assert run_module(storage_notification.main, args(emulator, payload_format="NONE", notification_id=second))["changed"] is False
    info = run_module(storage_notification_info.main, {k: v for k, v in args(emulator, notification_id=second).items() if k != "topic"})
    assert [n["id"] for n in info["notifications"]] == [second]
    absent = {**args(emulator, notification_id=second, state="absent"), "topic": None}
    assert run_module(storage_notification.main, absent, check_mode=True)["changed"] is True
    assert run_module(storage_notification.main, absent)["changed"] is True
    assert configs(emulator) == []
    assert run_module(storage_notification.main, absent)["changed"] is False


def test_unknown_notification_id_warns(run_module: Run, emulator: Emulator) -> None:
    result = run_module(storage_notification.main, args(emulator, notification_id="99"))
    assert result["changed"] is True
    assert "notification_id '99' is not a config of this bucket" in json.dumps(result["warnings"])


def test_purge_keeps_exactly_one_config_on_the_topic(run_module: Run, emulator: Emulator) -> None:
    run_module(storage_notification.main, args(emulator))
    run_module(storage_notification.main, args(emulator, object_name_prefix="a/"))
    emulator.state.topics["projects/demo-project/topics/audit"] = True
    run_module(storage_notification.main, args(emulator, topic="projects/demo-project/topics/audit"))
    check = run_module(storage_notification.main, args(emulator, payload_format="NONE", purge=True), check_mode=True, diff=True)
    assert check["changed"] is True
    assert sorted(d["id"] for d in check["deleted"]) == ["1", "2"]
    # One diff for the managed config, one per config the purge deletes.
    main_diff, *purged = check["diff"]
    assert main_diff == {"before": {"exists": False}, "after": {"exists": True, **check["notification"]}}
    assert [(d["before_header"], d["before"]["id"], d["after"]) for d in purged] == [
        ("notificationConfigs/1", "1", {"exists": False}),
        ("notificationConfigs/2", "2", {"exists": False}),
    ]
    assert len(configs(emulator)) == 3
    result = run_module(storage_notification.main, args(emulator, payload_format="NONE", purge=True))
    assert sorted(d["id"] for d in result["deleted"]) == ["1", "2"]
    assert sorted((c["id"], c["topic"].rsplit("/", 1)[1]) for c in configs(emulator)) == [("3", "audit"), ("4", "uploads")]
    assert run_module(storage_notification.main, args(emulator, payload_format="NONE", purge=True))["changed"] is False


def test_purge_removes_duplicates(run_module: Run, emulator: Emulator) -> None:
    run_module(storage_notification.main, args(emulator))
    emulator.state.buckets["media"].configs["7"] = {**configs(emulator)[0], "id": "7"}
    result = run_module(storage_notification.main, args(emulator, purge=True))
    assert (result["changed"], result["notification"]["id"], [d["id"] for d in result["deleted"]]) == (True, "1", ["7"])


def test_absent_by_id(run_module: Run, emulator: Emulator) -> None:
    created = run_module(storage_notification.main, args(emulator))["notification"]
    task = {**args(emulator, notification_id=created["id"], state="absent"), "topic": None}
    emulator.state.log.clear()
    check = run_module(storage_notification.main, task, check_mode=True, diff=True)
    assert (check["changed"], methods(emulator), len(configs(emulator))) == (True, ["GET"], 1)
    assert check["diff"] == {"before": {"exists": True, **created}, "after": {"exists": False}}
    removed = run_module(storage_notification.main, task)
    assert removed["changed"] is True
    assert removed["notification"] == created
    assert configs(emulator) == []
    emulator.state.log.clear()
    gone = run_module(storage_notification.main, task)
    # The get's 404, then a list that tells "no such config" from "no such bucket".
    assert (gone["changed"], gone["notification"], methods(emulator)) == (False, {}, ["GET", "GET"])


def test_absent_by_content_and_purge(run_module: Run, emulator: Emulator) -> None:
    run_module(storage_notification.main, args(emulator))
    run_module(storage_notification.main, args(emulator, object_name_prefix="x/"))
    absent = run_module(storage_notification.main, args(emulator, state="absent"), diff=True)
    assert [d["id"] for d in absent["deleted"]] == ["1"]
    assert absent["diff"] == {"before": {"exists": True, **absent["notification"]}, "after": {"exists": False}}
    assert [c["id"] for c in configs(emulator)] == ["2"]
    assert run_module(storage_notification.main, args(emulator, state="absent"))["changed"] is False
    run_module(storage_notification.main, args(emulator, payload_format="NONE"))
    purged = run_module(storage_notification.main, args(emulator, state="absent", purge=True), diff=True)
    assert [d["id"] for d in purged["deleted"]] == ["2", "3"]
    assert [d["before"]["id"] for d in purged["diff"]] == ["2", "3"]


def test_delete_404_means_gone(run_module: Run, emulator: Emulator) -> None:
    run_module(storage_notification.main, args(emulator))
    emulator.state.faults.append(Fault(method="DELETE", status=404, reason="notFound", message="Not Found"))
    result = run_module(storage_notification.main, args(emulator, state="absent"))
    assert (result["changed"], result["deleted"]) == (False, [])


def test_requester_pays(run_module: Run, emulator: Emulator) -> None:
    failed = run_module(storage_notification.main, args(emulator, bucket="paid"))
    assert failed["failed"] is True
    assert failed["status"] == 400
    assert "Bucket is a requester pays bucket but no user project provided." in failed["msg"]
    assert "Set user_project" in failed["msg"]
    result = run_module(storage_notification.main, args(emulator, bucket="paid", user_project="billing-project"))
    assert result["changed"] is True
    assert all(entry["query"] == "userProject=billing-project" for entry in emulator.state.log[-2:])


@pytest.mark.parametrize(
    ("extra", "status", "texts"),
    [
        ({"access_token": "wrong-token"}, 401, ["HTTP 401 (authError): Invalid Credentials", "Check auth_kind"]),
        ({"access_token": READ_TOKEN}, 403, ["does not have storage.buckets.update access", "lacks permission on the bucket"]),
        (
            {"topic": "projects/demo-project/topics/locked"},
            403,
            [
                "does not have permission to publish messages to to the Cloud Pub/Sub topic '//pubsub.googleapis.com/projects/demo-project/topics/locked'",
                "roles/pubsub.publisher",
            ],
        ),
        (
            {"topic": "projects/demo-project/topics/missing"},
            403,
            ["service-123456789012@gs-project-accounts.iam.gserviceaccount.com", "or that topic does not exist"],
        ),
        ({"bucket": "nope"}, 404, ["Cannot list the notification configs of bucket 'nope': HTTP 404 (notFound): The specified bucket does not exist."]),
    ],
)
def test_api_errors(run_module: Run, emulator: Emulator, extra: dict[str, t.Any], status: int, texts: list[str]) -> None:
    result = run_module(storage_notification.main, args(emulator, **extra))
    assert result["failed"] is True
    assert result["status"] == status
    for text in texts:
        assert text in result["msg"]
    assert READ_TOKEN not in json.dumps(result) or extra.get("access_token") != READ_TOKEN


def test_injected_400_on_insert(run_module: Run, emulator: Emulator) -> None:
    emulator.state.faults.append(Fault(method="POST", status=400, reason="invalid", message="Invalid argument."))
    result = run_module(storage_notification.main, args(emulator))
    assert (result["status"], result["reason"]) == (400, "invalid")
    assert "HTTP 400 (invalid): Invalid argument. Check topic, payload_format" in result["msg"]


def test_reads_and_deletes_are_retried(run_module: Run, emulator: Emulator) -> None:
    emulator.state.faults += [
        Fault(method="GET", status=503, count=1),
        Fault(method="GET", status=429, reason="rateLimitExceeded", message="Rate limit", retry_after="0", count=1),
        Fault(method="GET", reset=True, count=1),
    ]
    result = run_module(storage_notification.main, args(emulator))
    assert result["changed"] is True
    assert [e["status"] for e in emulator.state.log] == [503, 429, "reset", 200, 200]
    emulator.state.faults.append(Fault(method="DELETE", status=500, count=2))
    assert run_module(storage_notification.main, args(emulator, state="absent"))["changed"] is True
    assert [e["status"] for e in emulator.state.log][-3:] == [500, 500, 204]


def test_reads_give_up_after_the_retries(run_module: Run, emulator: Emulator) -> None:
    emulator.state.faults.append(Fault(method="GET", status=503, count=10))
    result = run_module(storage_notification.main, args(emulator, retries=2))
    assert result["failed"] is True
    assert result["msg"].endswith("(after 3 attempts)")
    assert methods(emulator) == ["GET", "GET", "GET"]


@pytest.mark.parametrize("fault", [Fault(method="POST", status=503), Fault(method="POST", reset=True)])
def test_insert_is_never_retried(run_module: Run, emulator: Emulator, fault: Fault) -> None:
    emulator.state.faults.append(fault)
    result = run_module(storage_notification.main, args(emulator))
    assert result["failed"] is True
    assert methods(emulator) == ["GET", "POST"]
    if fault.reset:
        assert "the insert may have been applied: run the task again" in result["msg"]


def test_timeout(run_module: Run, emulator: Emulator) -> None:
    emulator.state.faults.append(Fault(method="GET", delay=1.0, count=2))
    result = run_module(storage_notification.main, args(emulator, timeout=0.2, retries=1))
    assert result["failed"] is True
    assert "timed out" in result["msg"]
    assert "after 2 attempts" in result["msg"]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"topic": "uploads"}, "topic: 'uploads' is a bare topic id; set project"),
        ({"topic": "projects/demo-project/subscriptions/x"}, "is not a topic id, projects/PROJECT/topics/TOPIC"),
        ({"topic": "goog-topic", "project": "demo-project"}, "not a valid Pub/Sub topic id"),
        ({"topic": "t1", "project": "Bad_Project"}, "project: 'Bad_Project' is not a valid project id"),
        ({"custom_attributes": {"k": ["a"]}}, "custom_attributes.k: must be a string"),
        ({"bucket": "gs://media"}, "bucket: 'gs://media' is not a bucket name"),
        ({"event_types": ["OBJECT_CREATE"]}, "value of event_types must be one or more of"),
        ({"payload_format": "XML"}, "value of payload_format must be one of"),
        ({"notification_id": "other/notificationConfigs/1"}, "names bucket 'other', not 'media'"),
        ({"state": "absent", "topic": None}, "state=absent needs notification_id or topic"),
        ({"topic": None}, "topic: required with state=present"),
        ({"auth_kind": "accesstoken", "access_token": None}, "access_token: required with auth_kind=accesstoken"),
        ({"api_endpoint": "ftp://127.0.0.1"}, "api_endpoint: must be an http:// or https:// URL"),
        ({"timeout": 0}, "timeout: must be a positive number"),
        ({"auth_kind": "serviceaccount", "service_account_file": "/nonexistent/key.json"}, "service_account_file: cannot read /nonexistent/key.json"),
        (
            {"auth_kind": "serviceaccount", "service_account_contents": {"type": "authorized_user", "private_key": "SECRET-KEY"}},
            "service_account_contents: not a service account key",
        ),
        (
            {"service_account_file": "/k.json", "service_account_contents": "{}"},
            "parameters are mutually exclusive: service_account_file|service_account_contents",
        ),
    ],
)
def test_bad_input_fails_before_any_request(run_module: Run, emulator: Emulator, extra: dict[str, t.Any], message: str) -> None:
    result = run_module(storage_notification.main, args(emulator, **extra))
    assert result["failed"] is True
    assert message in result["msg"]
    assert emulator.state.log == []
    assert "SECRET-KEY" not in json.dumps(result)


def test_api_endpoint_from_environment_and_token_sent(run_module: Run, emulator: Emulator, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", emulator.url.replace("http://", ""))
    monkeypatch.setenv("GCP_AUTH_KIND", "accesstoken")
    monkeypatch.setenv("GCP_ACCESS_TOKEN", TOKEN)
    monkeypatch.setenv("GCP_PROJECT", "demo-project")
    result = run_module(storage_notification.main, {"bucket": "media", "topic": "uploads"})
    assert result["changed"] is True
    assert TOKEN not in json.dumps(result)


def test_secrets_never_in_output(run_module: Run, emulator: Emulator) -> None:
    result = run_module(storage_notification.main, args(emulator), diff=True)
    assert result["changed"] is True
    assert TOKEN not in json.dumps(result)


def test_info_lists_and_gets(run_module: Run, emulator: Emulator) -> None:
    with_topic = run_module(storage_notification_info.main, args(emulator))
    assert "Unsupported parameters" in with_topic["msg"]
    base = {k: v for k, v in args(emulator).items() if k != "topic"}
    empty = run_module(storage_notification_info.main, base, check_mode=True)
    assert (empty["changed"], empty["notifications"]) == (False, [])
    created = run_module(storage_notification.main, args(emulator, event_types=["OBJECT_FINALIZE"]))["notification"]
    run_module(storage_notification.main, args(emulator, payload_format="NONE"))
    listed = run_module(storage_notification_info.main, base)["notifications"]
    assert [n["id"] for n in listed] == ["1", "2"]
    assert listed[0] == created
    emulator.state.log.clear()
    one = run_module(storage_notification_info.main, {**base, "notification_id": "media/notificationConfigs/1"})
    assert one["notifications"] == [created]
    assert methods(emulator) == ["GET"]
    missing = run_module(storage_notification_info.main, {**base, "id": "42"})
    assert missing["notifications"] == []
    no_bucket = run_module(storage_notification_info.main, {**base, "bucket": "nope", "id": "42"})
    assert (no_bucket["failed"], no_bucket["status"]) == (True, 404)
    assert "The specified bucket does not exist." in no_bucket["msg"]


@pytest.mark.parametrize(("flag", "library"), [("HAS_REQUESTS", "requests"), ("HAS_GOOGLE_AUTH", "google-auth")])
def test_missing_library(run_module: Run, emulator: Emulator, monkeypatch: pytest.MonkeyPatch, flag: str, library: str) -> None:
    from ansible_collections.devinfra.providers.plugins.module_utils._storage import module

    monkeypatch.setattr(module, flag, False)
    for main in (storage_notification.main, storage_notification_info.main):
        result = run_module(main, {k: v for k, v in args(emulator).items() if main is storage_notification.main or k != "topic"})
        assert result["failed"] is True
        assert f"Failed to import the required Python library ({library})" in result["msg"]
    assert emulator.state.log == []
