# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import pytest

from ansible_collections.devinfra.providers.plugins.module_utils._storage.errors import StorageValidationError
from ansible_collections.devinfra.providers.plugins.module_utils._storage.topic import canonical_topic, normalise_topic, wire_topic

# (topic, project, normalised): the three forms gsutil/gcloud/Terraform (projects/...),
# python-storage (//pubsub...) and a bare id (with project) write.
NORMALISE: list[tuple[str, str | None, str]] = [
    ("uploads", "my-project", "projects/my-project/topics/uploads"),
    ("projects/my-project/topics/uploads", None, "projects/my-project/topics/uploads"),
    ("projects/my-project/topics/uploads", "ignored-project", "projects/my-project/topics/uploads"),
    ("//pubsub.googleapis.com/projects/my-project/topics/uploads", None, "projects/my-project/topics/uploads"),
    (" projects/my-project/topics/a.b~c+d%e_f-g ", None, "projects/my-project/topics/a.b~c+d%e_f-g"),
    ("projects/example.com:my-project/topics/t12", None, "projects/example.com:my-project/topics/t12"),
    ("Abc", "abcdef", "projects/abcdef/topics/Abc"),
]

ERRORS: list[tuple[str, str | None, str]] = [
    ("uploads", None, "is a bare topic id; set project"),
    ("projects/p/topics", None, "is not a topic id, projects/PROJECT/topics/TOPIC"),
    ("projects/my-project/subscriptions/s", None, "is not a topic id"),
    ("//pubsub.googleapis.com/projects/my-project/topics/a/b", None, "is not a topic id"),
    ("projects/UPPER-project/topics/uploads", None, "topic: 'UPPER-project' is not a valid project id"),
    ("uploads", "short", "project: 'short' is not a valid project id"),
    ("projects/my-project/topics/ab", None, "not a valid Pub/Sub topic id"),
    ("projects/my-project/topics/1abc", None, "not a valid Pub/Sub topic id"),
    ("projects/my-project/topics/googthing", None, "not with 'goog'"),
    ("a" * 256, "my-project", "not a valid Pub/Sub topic id"),
]


@pytest.mark.parametrize(("topic", "project", "expected"), NORMALISE)
def test_normalise(topic: str, project: str | None, expected: str) -> None:
    assert normalise_topic(topic, project) == expected
    assert canonical_topic(wire_topic(expected)) == expected


@pytest.mark.parametrize(("topic", "project", "message"), ERRORS)
def test_normalise_errors(topic: str, project: str | None, message: str) -> None:
    with pytest.raises(StorageValidationError, match=message.replace("(", r"\(")):
        normalise_topic(topic, project)


@pytest.mark.parametrize(
    ("api_topic", "expected"),
    [
        ("//pubsub.googleapis.com/projects/p/topics/t", "projects/p/topics/t"),
        ("projects/p/topics/t", "projects/p/topics/t"),
        ("something-else", "something-else"),
        ("", ""),
    ],
)
def test_canonical_topic(api_topic: str, expected: str) -> None:
    assert canonical_topic(api_topic) == expected
