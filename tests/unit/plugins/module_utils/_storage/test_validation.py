# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Input checks: Cloud Storage's bucket naming rules, the API's decimal notification ids, object
name prefixes, control characters in single-line options, and secrets that are stripped and
checked without ever being shown. The emulator applies the same bucket rules (compared here)."""

from __future__ import annotations

import pytest

from ansible_collections.devinfra.providers.plugins.module_utils._storage.errors import StorageValidationError
from ansible_collections.devinfra.providers.plugins.module_utils._storage.notification import parse_notification_id
from ansible_collections.devinfra.providers.plugins.module_utils._storage.validation import (
    check_bucket,
    check_line,
    check_notification_id,
    check_object_name_prefix,
    check_options,
    clean_secret,
    option_path,
)
from ansible_collections.devinfra.providers.tests.gcs_emulator.server import valid_bucket_name

# (name, valid?) from the naming rules: charset, ends, lengths (with and without dots), IPv4, goog.
BUCKETS: list[tuple[str, bool]] = [
    ("media", True),
    ("a1b", True),
    ("my_bucket-01", True),
    ("example.com", True),
    ("a" * 63, True),
    ("a" * 64, False),
    (".".join(["a" * 63] * 3) + ".a" * 15, True),  # 221 characters with dots, 63 between them
    (".".join(["a" * 63, "a" * 64]), False),
    (".".join(["a" * 55] * 4), False),  # 223 characters
    ("ab", False),
    ("", False),
    (".", False),
    ("..", False),
    ("...", False),
    ("a..b", False),
    ("a/b", False),
    ("a%2fb", False),
    ("%2e%2e", False),
    ("-ab", False),
    ("ab-", False),
    ("_ab", False),
    ("ab.", False),
    ("Media", False),
    ("media\n", False),
    ("med\x00ia", False),
    ("med ia", False),
    ("médias", False),
    ("192.168.5.4", False),
    ("192.168.5.4.5", True),
    ("1.2.3", True),
    ("goog-bucket", False),
    ("my-goog", True),
    ("gs://media", False),
]


@pytest.mark.parametrize(("name", "valid"), BUCKETS)
def test_bucket_names(name: str, valid: bool) -> None:
    assert valid_bucket_name(name) is valid  # the emulator refuses what the module refuses
    if valid:
        assert check_bucket(name) == name
    else:
        with pytest.raises(StorageValidationError, match=r"^bucket: "):
            check_bucket(name)


@pytest.mark.parametrize(
    "value",
    ["0", "12", "99999999999999999999", "notification-1f0c9a3b5d7e4f21a0b1c2d3e4f5a6b7", "a1", "1.0", "-1", "%41", "x y", "٣", "1" * 1024],
)
def test_notification_ids_as_servers_give_them(value: str) -> None:
    assert check_notification_id(value) == value


@pytest.mark.parametrize("value", ["", ".", "..", "1/2", "%2e%2e", "%2E.", "a%2fb", "a%2Fb", "a\\b", "1\n", "1\u202e", "1" * 1025])
def test_notification_ids_that_change_the_path_are_refused(value: str) -> None:
    with pytest.raises(StorageValidationError, match=r"^notification_id: "):
        check_notification_id(value)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("12", "12"),
        (" 12 ", "12"),
        ("projects/_/buckets/media/notificationConfigs/12", "12"),
        ("media/notificationConfigs/7", "7"),
        ("b/media/notificationConfigs/7", "7"),
        ("notification-1f0c9a3b", "notification-1f0c9a3b"),
        ("projects/_/buckets/media/notificationConfigs/notification-1f0c9a3b", "notification-1f0c9a3b"),
    ],
)
def test_parse_notification_id(value: str, expected: str) -> None:
    assert parse_notification_id(value, "media") == expected


@pytest.mark.parametrize(
    "value",
    [
        "..",
        ".",
        "%2e%2e",
        "media/notificationConfigs/..",
        "media/notificationConfigs/%2e%2e",
        "projects/_/buckets/media/notificationConfigs/..",
        "projects/_/buckets/media/notificationConfigs/1%2f..",
        "1\n",
        "\x001",
        "1\u2028",
    ],
)
def test_parse_notification_id_refuses_paths(value: str) -> None:
    with pytest.raises(StorageValidationError, match=r"^notification_id: "):
        parse_notification_id(value, "media")


@pytest.mark.parametrize("value", ["", "logs/", "a\tb", "\x00", "\x1b[31m", "\x85", "é/\U0001f600", "../..", "%2e", "x" * 1024, "é" * 512])
def test_object_name_prefix_keeps_what_object_names_may_hold(value: str) -> None:
    assert check_object_name_prefix(value) == value


@pytest.mark.parametrize(
    ("value", "why"), [("a\nb", "line break"), ("\r", "line break"), ("x" * 1025, "longer than"), ("é" * 513, "longer than"), ("\ud800", "lone surrogate")]
)
def test_object_name_prefix_refused(value: str, why: str) -> None:
    with pytest.raises(StorageValidationError, match=rf"^object_name_prefix: .*{why}"):
        check_object_name_prefix(value)


@pytest.mark.parametrize("control", ["\x00", "\t", "\n", "\r", "\x1b", "\x7f", "\x85", "\x9f", "\u2028", "\u2029", "\u202e", "\u2066"])
def test_check_line_refuses_control_characters(control: str) -> None:
    pattern = rf"^topic: .* contains the (control character|bidirectional control) U\+{ord(control):04X} at position 19$"
    with pytest.raises(StorageValidationError, match=pattern) as caught:
        check_line("topic", f"projects/p/topics/t{control}x")
    assert control not in str(caught.value)  # shown escaped, on one line


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, None),
        ("", None),
        ("  \n", None),
        ("DVTSECRETtok", "DVTSECRETtok"),
        ("DVTSECRETtok\n", "DVTSECRETtok"),
        ("DVTSECRETtok\r\n", "DVTSECRETtok"),
        ("\t DVTSECRETtok ", "DVTSECRETtok"),
        ("ya29.a0Af-_~+/x==", "ya29.a0Af-_~+/x=="),
    ],
)
def test_secrets_are_stripped(value: str | None, expected: str | None) -> None:
    assert clean_secret("access_token", value) == expected


@pytest.mark.parametrize("inside", ["\n", "\r\n", "\x00", "\x07", "\x7f", "\x85", " ", "\u2028", "é", "\U0001f600"])
def test_secrets_with_other_characters_are_refused_without_being_shown(inside: str) -> None:
    token = f"DVTSECRETabc{inside}def"
    with pytest.raises(StorageValidationError) as caught:
        clean_secret("access_token", token)
    message = str(caught.value)
    assert message.startswith("access_token: ")
    assert "DVTSECRET" not in message
    assert "abc" not in message
    assert "def" not in message


def test_option_path() -> None:
    assert option_path("custom_attributes", "team") == "custom_attributes.team"
    assert option_path("custom_attributes", "a.b\n") == "custom_attributes['a.b\\n']"


def options(**extra: object) -> dict[str, object]:
    return {"bucket": "media", "auth_kind": "accesstoken", "access_token": "DVTSECRETtok", **extra}


@pytest.mark.parametrize(
    ("extra", "option"),
    [
        ({"bucket": ".."}, "bucket"),
        ({"topic": "projects/p/topics/t\n"}, "topic"),
        ({"project": "demo\x00project"}, "project"),
        ({"user_project": "billing\r\nX-Injected: 1"}, "user_project"),
        ({"user_project": "a" * 65000}, "user_project"),
        ({"user_project": "../billing"}, "user_project"),
        ({"notification_id": "1\n"}, "notification_id"),
        ({"api_endpoint": "http://127.0.0.1:9\n"}, "api_endpoint"),
        ({"object_name_prefix": "a\nb"}, "object_name_prefix"),
        ({"custom_attributes": {"k": "\ud800"}}, "custom_attributes.k"),
        ({"access_token": "DVTSECRET\x07tok"}, "access_token"),
        ({"auth_kind": "serviceaccount", "service_account_file": "/etc/key\n.json"}, "service_account_file"),
        ({"auth_kind": "machineaccount", "service_account_email": "../../token"}, "service_account_email"),
        ({"auth_kind": "machineaccount", "service_account_email": "sa@p.iam.gserviceaccount.com/../x"}, "service_account_email"),
        ({"auth_kind": "application", "scopes": ["https://www.googleapis.com/auth/x\n"]}, "scopes[0]"),
    ],
)
def test_check_options_names_the_option(extra: dict[str, object], option: str) -> None:
    with pytest.raises(StorageValidationError) as caught:
        check_options(options(**extra))
    assert str(caught.value).startswith(f"{option}: ")
    assert "DVTSECRET" not in str(caught.value)


@pytest.mark.parametrize(
    "extra",
    [
        {},
        {"custom_attributes": {"k\x00": "v\n\t\x1b", "n": 5}, "object_name_prefix": "a\tb"},
        {"auth_kind": "machineaccount", "service_account_email": "default"},
        {"user_project": "billing-project"},
        {"user_project": "example.com:billing-project"},
        {"user_project": "123456789012"},
        {"auth_kind": "machineaccount", "service_account_email": "sa@p.iam.gserviceaccount.com"},
        # Options of another auth_kind are ignored, as the auth options are.
        {"auth_kind": "application", "access_token": "DVTSECRET\x07", "service_account_email": "../x"},
    ],
)
def test_check_options_passes(extra: dict[str, object]) -> None:
    check_options(options(**extra))
