# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""storage_notification and storage_notification_info on a shared host: hostile values in every
option, tokens with white space or control characters, paths that an HTTP stack normalises,
and a missing bucket with state=absent. Against the emulator, which logs what reached it.

Ansible masks the values of no_log options in a result with ``********``: a result holding that
string shows a secret reached the output (the masking hid it), so it is asserted absent too."""

from __future__ import annotations

import json
import typing as t
from urllib.parse import parse_qs

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ansible_collections.devinfra.providers.plugins.module_utils._storage import transport
from ansible_collections.devinfra.providers.plugins.modules import storage_notification, storage_notification_info
from ansible_collections.devinfra.providers.tests.gcs_emulator.server import Bucket, Emulator, State
from ansible_collections.devinfra.providers.tests.unit.hostile_strings import hostile_text, path_tricks, with_control_character
from ansible_collections.devinfra.providers.tests.unit.hypothesis_profile import DEADLINE, examples

TOKEN = "DVTSECRET-unit-hostile-91c2"
TOPIC = "projects/demo-project/topics/uploads"
Run = t.Callable[..., dict[str, t.Any]]


def make_state() -> State:
    state = State(tokens={TOKEN: "write"}, topics={TOPIC: True})
    state.buckets["media"] = Bucket("media")
    return state


@pytest.fixture(scope="module")
def shared_emulator() -> t.Iterator[Emulator]:
    with Emulator(make_state()) as server:
        yield server


@pytest.fixture
def emulator(shared_emulator: Emulator, monkeypatch: pytest.MonkeyPatch) -> Emulator:
    monkeypatch.setattr(transport.RetryPolicy, "delay", lambda self, attempt, retry_after=None: 0.0)
    reset(shared_emulator)
    return shared_emulator


def reset(emulator: Emulator) -> None:
    fresh = make_state()
    with emulator.state.lock:
        emulator.state.buckets = fresh.buckets
        emulator.state.tokens = fresh.tokens
        emulator.state.log.clear()
        emulator.state.faults.clear()


def args(emulator: Emulator, **extra: t.Any) -> dict[str, t.Any]:
    return {"api_endpoint": emulator.url, "auth_kind": "accesstoken", "access_token": TOKEN, "bucket": "media", "topic": TOPIC, **extra}


def info_args(emulator: Emulator, **extra: t.Any) -> dict[str, t.Any]:
    return {k: v for k, v in args(emulator, **extra).items() if k != "topic"}


# ansible-core writes the module's arguments to syslog before the module runs, and stops with
# this message for a NUL in any argument (where there is no journal): nothing is sent either.
SYSLOG_NUL = "Failed to log to syslog (embedded null character)."


def refused(result: dict[str, t.Any], option: str) -> bool:
    """A clean refusal naming ``option`` on its first line (or ansible-core's for a NUL)."""
    head = str(result.get("msg", "")).split("\n", 1)[0]
    return bool(result.get("failed")) and (head.startswith(f"{option}: ") or head.startswith(SYSLOG_NUL))


def no_secret(result: dict[str, t.Any], *secrets: str) -> None:
    text = json.dumps(result)
    assert "DVTSECRET" not in text
    assert "********" not in text  # Ansible's masking had to hide one
    for secret in secrets:
        assert secret not in text


# -- 1. tokens ----------------------------------------------------------------------------------


@pytest.mark.parametrize("token", [TOKEN + "\n", TOKEN + "\r\n", "\n" + TOKEN + " \t"])
def test_a_token_with_white_space_around_works(run_module: Run, emulator: Emulator, token: str) -> None:
    result = run_module(storage_notification.main, args(emulator, access_token=token), diff=True)
    assert result["changed"] is True, result
    no_secret(result)


def test_a_token_from_the_environment_with_a_newline_works(run_module: Run, emulator: Emulator, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GCP_ACCESS_TOKEN", TOKEN + "\n")
    task = {k: v for k, v in args(emulator).items() if k != "access_token"}
    result = run_module(storage_notification_info.main, {k: v for k, v in task.items() if k != "topic"})
    assert (result.get("failed"), result["notifications"]) == (None, [])
    no_secret(result)


@pytest.mark.parametrize("inside", ["\x07", "\n", "\r\nX-Injected: 1\r\n", "\x00", " ", "\x85", "é"])
@pytest.mark.parametrize("main", [storage_notification.main, storage_notification_info.main])
def test_a_token_with_a_control_character_inside(run_module: Run, emulator: Emulator, inside: str, main: t.Callable[[], None]) -> None:
    token = TOKEN[:12] + inside + TOKEN[12:]
    task = args(emulator, access_token=token) if main is storage_notification.main else info_args(emulator, access_token=token)
    result = run_module(main, task)
    assert refused(result, "access_token"), result
    if inside != "\x00":
        assert result["msg"] == "access_token: contains a control character, a space or a non-ASCII character (the value is not shown)"
    assert emulator.state.log == []
    no_secret(result, TOKEN[:12], TOKEN[12:])


# -- 2. names that become URL paths -----------------------------------------------------------

PATHS = [".", "..", "../media", "media/..", "%2e%2e", "%2E.", ".%2e", "media%2f..", "a/b", "media\n", "media\x00", "medi\u2028a", "..\\..", "media/"]
MAINS = [
    ("present", storage_notification.main, {}),
    ("absent by content", storage_notification.main, {"state": "absent"}),
    ("absent by id", storage_notification.main, {"state": "absent", "notification_id": "1", "topic": None}),
    ("info", storage_notification_info.main, {}),
    ("info by id", storage_notification_info.main, {"notification_id": "1"}),
]


@pytest.mark.parametrize("bucket", PATHS)
@pytest.mark.parametrize(("main", "extra"), [row[1:] for row in MAINS], ids=[row[0] for row in MAINS])
def test_a_bucket_that_is_a_path_trick(run_module: Run, emulator: Emulator, bucket: str, main: t.Callable[[], None], extra: dict[str, t.Any]) -> None:
    task = args(emulator, bucket=bucket, **extra)
    if main is storage_notification_info.main or task.get("topic") is None:
        task.pop("topic")
    result = run_module(main, task)
    assert refused(result, "bucket"), result
    assert emulator.state.log == []
    no_secret(result)


@pytest.mark.parametrize("notification_id", [".", "..", "%2e%2e", "1/..", "../1", "media/notificationConfigs/..", "1\n", "1%00", "1%0a", "a%2fb", "a\\b"])
@pytest.mark.parametrize(("main", "extra"), [row[1:] for row in MAINS if "id" in row[0]], ids=[row[0] for row in MAINS if "id" in row[0]])
def test_a_notification_id_that_is_a_path_trick(
    run_module: Run, emulator: Emulator, notification_id: str, main: t.Callable[[], None], extra: dict[str, t.Any]
) -> None:
    task = {**info_args(emulator), **extra, "notification_id": notification_id}
    task.pop("topic", None)
    result = run_module(main, task)
    assert refused(result, "notification_id"), result
    assert emulator.state.log == []


@pytest.mark.parametrize(("main", "extra"), [row[1:] for row in MAINS if "id" in row[0]], ids=[row[0] for row in MAINS if "id" in row[0]])
def test_any_other_id_is_one_encoded_path_segment(run_module: Run, emulator: Emulator, main: t.Callable[[], None], extra: dict[str, t.Any]) -> None:
    task = {**info_args(emulator), **extra, "notification_id": "notification-1f0c?x=1#y %2e"}
    task.pop("topic", None)
    result = run_module(main, task)
    assert not result.get("failed"), result
    assert result["changed"] is False
    paths = [entry["path"] for entry in emulator.state.log if "notificationConfigs/" in entry["path"]]
    assert paths and all(path.endswith("/notificationConfigs/notification-1f0c%3Fx%3D1%23y%20%252e") for path in paths), paths


# -- 3. state=absent on a bucket that does not exist ------------------------------------------


def test_absent_by_id_on_a_missing_bucket_fails_like_present_and_info(run_module: Run, emulator: Emulator) -> None:
    message = (
        "Cannot list the notification configs of bucket 'nope': HTTP 404 (notFound): The specified bucket does not exist. Check bucket (and notification_id)."
    )
    present = run_module(storage_notification.main, args(emulator, bucket="nope"))
    info = run_module(storage_notification_info.main, info_args(emulator, bucket="nope", notification_id="1"))
    for check_mode in (True, False):
        absent = run_module(storage_notification.main, {**info_args(emulator, bucket="nope", notification_id="1"), "state": "absent"}, check_mode=check_mode)
        assert (absent["failed"], absent["status"], absent["msg"]) == (True, 404, message)
    assert (present["msg"], info["msg"]) == (message, message)


def test_absent_by_id_on_an_existing_bucket_is_still_ok(run_module: Run, emulator: Emulator) -> None:
    result = run_module(storage_notification.main, {**info_args(emulator, notification_id="1"), "state": "absent"})
    assert (result.get("failed"), result["changed"], result["notification"]) == (None, False, {})


# -- 4. single-line options: refused, or data that round-trips --------------------------------


@pytest.mark.parametrize(
    ("extra", "option"),
    [
        ({"topic": TOPIC + "\n"}, "topic"),
        ({"topic": "\t" + TOPIC}, "topic"),
        ({"topic": "uploads\x00", "project": "demo-project"}, "topic"),
        ({"topic": "uploads\x1b[2J", "project": "demo-project"}, "topic"),
        ({"topic": "uploads", "project": "demo-project\n"}, "project"),
        ({"user_project": "billing\r\nX-Injected: 1"}, "user_project"),
        ({"object_name_prefix": "logs/\n"}, "object_name_prefix"),
        ({"object_name_prefix": "x" * 1025}, "object_name_prefix"),
        ({"api_endpoint": "http://127.0.0.1:9\x01/"}, "api_endpoint"),
        ({"event_types": ["OBJECT_FINALIZE\n"]}, "event_types"),
        ({"payload_format": "NONE\n"}, "payload_format"),
        ({"custom_attributes": {"k": ["a\n"]}}, "custom_attributes.k"),
    ],
)
def test_control_characters_are_refused_before_anything_is_sent(run_module: Run, emulator: Emulator, extra: dict[str, t.Any], option: str) -> None:
    result = run_module(storage_notification.main, args(emulator, **extra))
    assert refused(result, option) or f"value of {option} must be" in result["msg"], result
    assert emulator.state.log == []


DATA = [
    {"custom_attributes": {"tab": "a\tb", "nul": "\x00", "esc": "\x1b[31mred\x1b[0m", "nl": "line1\nline2", "c1": "\x85\x9f", "ls": "\u2028"}},
    {"custom_attributes": {"key\twith\ncontrols\x00": "v", "<script>": "{{ lookup('env', 'HOME') }}", "..": "%2e%2e"}},
    # A NUL is data too, but ansible-core refuses it in a string argument (see SYSLOG_NUL).
    {"object_name_prefix": "in\tcoming/\x01\x1b\x7f\x85/"},
    {"object_name_prefix": "../%2e%2e/<b>&amp;/\u202e/\U0001f600"},
]


@pytest.mark.parametrize("extra", DATA)
def test_data_the_api_keeps_round_trips(run_module: Run, emulator: Emulator, extra: dict[str, t.Any]) -> None:
    task = args(emulator, **extra)
    runs = [run_module(storage_notification.main, task, check_mode=True), run_module(storage_notification.main, task)]
    runs += [run_module(storage_notification.main, task, check_mode=True), run_module(storage_notification.main, task)]
    assert [run["changed"] for run in runs] == [True, True, False, False]
    (stored,) = emulator.state.buckets["media"].configs.values()
    for option, value in extra.items():
        assert runs[1]["notification"][option] == value
        assert runs[3]["notification"][option] == value
        assert stored[option] == value


# -- the property: any hostile value in any option ---------------------------------------------

OPTIONS = ["bucket", "topic", "project", "user_project", "notification_id", "object_name_prefix", "attribute_key", "attribute_value", "event_type", "token"]


def _encodable(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@st.composite
def hostile_task(draw: st.DrawFn) -> tuple[str, str, str]:
    option = draw(st.sampled_from(OPTIONS))
    # Not lone surrogates: ansible-core's AnsibleModule fails on them while it logs the
    # arguments, before a module's code runs (the checks refuse them for other callers).
    value = draw((hostile_text() | path_tricks() | with_control_character()).filter(_encodable))
    state = draw(st.sampled_from(["present", "absent", "info"]))
    return option, value, state


def build(emulator: Emulator, option: str, value: str, state: str) -> tuple[t.Callable[[], None], dict[str, t.Any], str]:
    """The task and the option path its error must name."""
    task = args(emulator)
    name = option
    if option == "attribute_key":
        task["custom_attributes"], name = {value: "v"}, "custom_attributes"
    elif option == "attribute_value":
        task["custom_attributes"], name = {"k": value}, "custom_attributes"
    elif option == "event_type":
        task["event_types"], name = [value], "event_types"
    elif option == "token":
        # Every secret starts with DVTSECRET: none of it may reach the output.
        task["access_token"], name = f"DVTSECRET{value}Z", "access_token"
    elif option == "project":
        task.update(topic="uploads", project=value)
    else:
        task[option] = value
    if state == "info":
        return (
            storage_notification_info.main,
            {k: v for k, v in task.items() if k in ("api_endpoint", "auth_kind", "access_token", "bucket", "user_project", "notification_id")},
            name,
        )
    if state == "absent":
        task["state"] = "absent"
    return storage_notification.main, task, name


@settings(max_examples=examples(300), deadline=DEADLINE, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(case=hostile_task())
def test_any_hostile_value_is_refused_cleanly_or_sent_correctly(run_module: Run, emulator: Emulator, case: tuple[str, str, str]) -> None:
    reset(emulator)
    option, value, state = case
    main, task, name = build(emulator, option, value, state)
    result = run_module(main, task)  # a crash raises here instead of exiting with JSON
    if str(result.get("msg", "")).startswith(SYSLOG_NUL):
        # ansible-core's own refusal, with the arguments as it logs them (no_log ones hidden).
        assert emulator.state.log == []
        assert "DVTSECRET" not in json.dumps(result)
        return
    no_secret(result)
    if result.get("failed"):
        if "status" in result:
            # The request was sent and the API refused it (the emulator logged it), or the HTTP
            # server did before the API saw it (a 65 kB token: header too large).
            assert emulator.state.log or result["status"] in (414, 431), result
            return
        # A validation error: names the option on the first line, and nothing was sent.
        assert emulator.state.log == [], result
        head = result["msg"].split("\n", 1)[0]
        assert refused(result, name) or f"value of {name} must be" in head or (option == "project" and head.startswith("topic: ")), result["msg"][:300]
        return
    # Accepted: what the module reports is what the API stored and returns.
    assert emulator.state.log, result
    if option in ("attribute_key", "attribute_value", "object_name_prefix") and state == "present":
        (stored,) = emulator.state.buckets["media"].configs.values()
        returned = result["notification"]
        if option == "object_name_prefix":
            assert returned["object_name_prefix"] == stored.get("object_name_prefix", "") == value
        else:
            assert returned["custom_attributes"] == stored["custom_attributes"] == task["custom_attributes"]
    if option == "user_project" and value:
        # Sent as the query parameter, encoded: the server reads back exactly the value.
        assert all(parse_qs(entry["query"], keep_blank_values=True) == {"userProject": [value]} for entry in emulator.state.log)
