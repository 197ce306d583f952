# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Topic normalisation on generated topics, against an oracle written from Pub/Sub's naming
rules (a topic id: 3-255 of letters, digits and - _ . ~ + %, starting with a letter, not with
"goog"; a project id: 6-30 of lower-case letters, digits and hyphens, starting with a letter and
not ending with a hyphen, optionally behind a "domain:" scope) and the three forms users write
(a topic id with a project, projects/P/topics/T, //pubsub.googleapis.com/projects/P/topics/T)."""

from __future__ import annotations

import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.devinfra.providers.plugins.module_utils._storage.errors import StorageValidationError
from ansible_collections.devinfra.providers.plugins.module_utils._storage.topic import canonical_topic, normalise_topic, wire_topic
from ansible_collections.devinfra.providers.tests.unit.hypothesis_profile import DEADLINE, examples

_SETTINGS = settings(max_examples=examples(500), deadline=DEADLINE, database=None)

_LOWER_DIGITS = string.ascii_lowercase + string.digits


def _is_topic_id(text: str) -> bool:
    allowed = set(string.ascii_letters + string.digits + "-_.~+%")
    return 3 <= len(text) <= 255 and text[0] in string.ascii_letters and set(text) <= allowed and not text.lower().startswith("goog")


def _is_project_id(text: str) -> bool:
    scope, colon, project = text.rpartition(":")
    # a domain scope: lower-case letters, digits, dots and hyphens, starting with a letter, not ending with . or -
    if colon and (not scope or scope[0] not in string.ascii_lowercase or scope[-1] not in _LOWER_DIGITS or not set(scope) <= set(_LOWER_DIGITS + ".-")):
        return False
    return 6 <= len(project) <= 30 and project[0] in string.ascii_lowercase and project[-1] in _LOWER_DIGITS and set(project) <= set(_LOWER_DIGITS + "-")


def oracle(topic: str, project: str | None) -> str | None:
    """The normalised projects/P/topics/T, or None for an error."""
    value = topic.strip()
    if value.startswith("//pubsub.googleapis.com/"):
        value = value[len("//pubsub.googleapis.com/") :]
    parts = value.split("/")
    if len(parts) == 4 and parts[0] == "projects" and parts[2] == "topics" and parts[1] and parts[3]:
        project_id, topic_id = parts[1], parts[3]
    elif "/" not in value and project:
        project_id, topic_id = project, value
    else:
        return None
    if not _is_project_id(project_id) or not _is_topic_id(topic_id):
        return None
    return f"projects/{project_id}/topics/{topic_id}"


# Ids that follow the rules (a mutation of the rule then shows), and pieces near the rules'
# edges: "goog", upper case, the allowed punctuation, a slash, blanks, lengths at the limits.
_VALID_TOPIC_ID = st.builds(
    str.__add__, st.sampled_from(string.ascii_letters), st.text(st.sampled_from(string.ascii_letters + string.digits + "-_.~+%"), min_size=2, max_size=20)
)
_EDGE_TOPIC_ID = st.lists(st.sampled_from(["a", "Z", "9", "goog", "GooG", "-", "_", ".", "~", "+", "%", "é", "/", " ", "!"]), max_size=6).map("".join)
_LONG_TOPIC_ID = st.integers(250, 256).map(lambda n: "t" * n)
_TOPIC_ID = _VALID_TOPIC_ID | _EDGE_TOPIC_ID | _LONG_TOPIC_ID
_VALID_PROJECT_ID = st.tuples(
    st.sampled_from(["", "", "example.com:", "a-b.c9:"]),
    st.sampled_from(string.ascii_lowercase),
    st.text(st.sampled_from(_LOWER_DIGITS + "-"), min_size=4, max_size=28),
    st.sampled_from(_LOWER_DIGITS),
).map("".join)
_EDGE_PROJECT_ID = st.lists(st.sampled_from(["my", "project", "-", "1", "A", "x", "example.com:", "a.b", "_", "abcdefghij" * 3]), max_size=5).map("".join)
_PROJECT_ID = _VALID_PROJECT_ID | _EDGE_PROJECT_ID


@st.composite
def _topic(draw: st.DrawFn) -> tuple[str, str | None]:
    topic_id, project_id = draw(_TOPIC_ID), draw(_PROJECT_ID)
    form = draw(st.sampled_from(["bare", "path", "full", "other"]))
    if form == "bare":
        topic = topic_id
    elif form == "path":
        topic = f"projects/{project_id}/topics/{topic_id}"
    elif form == "full":
        topic = f"//pubsub.googleapis.com/projects/{project_id}/topics/{topic_id}"
    else:
        topic = draw(st.sampled_from(["projects/", "projects//topics/", "//pubsub.googleapis.com/", "projects/p/subscriptions/"])) + topic_id
    padding = draw(st.sampled_from(["", " ", "\t"]))
    return padding + topic + padding, draw(st.none() | _PROJECT_ID)


@_SETTINGS
@given(case=_topic())
def test_normalise_topic(case: tuple[str, str | None]) -> None:
    topic, project = case
    want = oracle(topic, project)
    if want is None:
        with pytest.raises(StorageValidationError):
            normalise_topic(topic, project)
        return
    assert normalise_topic(topic, project) == want
    # What the API gives back for it compares equal again (a no-op run finds its config).
    assert canonical_topic(wire_topic(want)) == want
    assert normalise_topic(want, None) == want
