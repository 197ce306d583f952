# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Pub/Sub topic names in the three forms users write, normalised for comparison."""

from __future__ import annotations

import re

from .errors import StorageValidationError

__all__ = ["PROJECT_ID", "PUBSUB_PREFIX", "canonical_topic", "normalise_topic", "wire_topic"]

PUBSUB_PREFIX = "//pubsub.googleapis.com/"

# Pub/Sub's naming rules: a topic id starts with a letter, is 3-255 characters of letters,
# digits and - _ . ~ + %, and does not start with "goog"; a project id is 6-30 characters
# (lower-case letters, digits, hyphens), optionally behind a "domain.tld:" scope.
_TOPIC_ID = re.compile(r"[A-Za-z][A-Za-z0-9\-_.~+%]{2,254}")
PROJECT_ID = re.compile(r"(?:[a-z][a-z0-9.\-]*[a-z0-9]:)?[a-z][a-z0-9\-]{4,28}[a-z0-9]")
_FULL = re.compile(r"projects/(?P<project>[^/]+)/topics/(?P<topic>[^/]+)")


def normalise_topic(topic: str, project: str | None) -> str:
    """``projects/P/topics/T`` from a bare topic id (with ``project``), ``projects/P/topics/T``
    or ``//pubsub.googleapis.com/projects/P/topics/T``; anything else is an error naming ``topic``."""
    value = topic.strip()
    if value.startswith(PUBSUB_PREFIX):
        value = value[len(PUBSUB_PREFIX) :]
    match = _FULL.fullmatch(value)
    if match:
        project_id, topic_id = match.group("project"), match.group("topic")
    elif "/" not in value:
        if not project:
            raise StorageValidationError(f"topic: {topic!r} is a bare topic id; set project (or GCP_PROJECT), or write projects/PROJECT/topics/{topic}")
        project_id, topic_id = project, value
    else:
        raise StorageValidationError(f"topic: {topic!r} is not a topic id, projects/PROJECT/topics/TOPIC or {PUBSUB_PREFIX}projects/PROJECT/topics/TOPIC")
    if not PROJECT_ID.fullmatch(project_id):
        source = "project" if match is None else "topic"
        raise StorageValidationError(f"{source}: {project_id!r} is not a valid project id")
    if not _TOPIC_ID.fullmatch(topic_id) or topic_id.lower().startswith("goog"):
        raise StorageValidationError(
            f"topic: {topic_id!r} is not a valid Pub/Sub topic id (3-255 letters, digits, - _ . ~ + %, starting with a letter, not with 'goog')"
        )
    return f"projects/{project_id}/topics/{topic_id}"


def canonical_topic(topic: str) -> str:
    """An API-side topic in the normalised form, for comparison; a value that fits no form is
    returned unchanged (it then matches nothing the user can write)."""
    value = topic.strip()
    if value.startswith(PUBSUB_PREFIX):
        value = value[len(PUBSUB_PREFIX) :]
    return value if _FULL.fullmatch(value) else topic


def wire_topic(normalised: str) -> str:
    """The form the API documents and returns: ``//pubsub.googleapis.com/projects/P/topics/T``."""
    return PUBSUB_PREFIX + normalised
