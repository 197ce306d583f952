# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""What libvirt_secret remembers of the value it last gave a secret: a keyed digest, never the value.

A private secret's value cannot be read back through libvirt, so the module keeps, per connection
URI and secret UUID, ``hmac-sha256:<hex>`` of the value it set. The HMAC key is 32 random bytes made
once per host and kept next to the records; a record without the key tells nothing about the value
(a bare sha256 of a short passphrase could be brute-forced by whoever reads the record). Records and
key live in a directory of the running user's (root: /var/lib/devinfra.providers/secret-digests, mode
0700) that nobody else can write; every file is opened without following links and must be a regular
file of the running user with mode 0600 and one name (_common/safe_files.py). Anything else is no
record: the value is set again."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import re
import secrets

from .._common.safe_files import UnsafeFileError, open_ours, private_directory, read_private, record_path, records_location, write_atomic

__all__ = ["digest_of", "forget", "matches", "recall", "remember"]

_MAX_BYTES = 4096
_KEY_BYTES = 32
_DIGEST = re.compile(r"hmac-sha256:[0-9a-f]{64}")


def _location() -> str:
    return records_location("secret-digests")


def _directory() -> str | None:
    return private_directory(_location())


def _key(directory: str, *, create: bool) -> bytes | None:
    """The host's HMAC key; made (O_EXCL, 0600) when missing and ``create``."""
    path = os.path.join(directory, "key")
    raw = read_private(path, _MAX_BYTES)
    if raw is not None:
        return raw if len(raw) == _KEY_BYTES else None
    if not create:
        return None
    key = secrets.token_bytes(_KEY_BYTES)
    try:
        fd = open_ours(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode=0o600)
    except FileExistsError:
        raw = read_private(path, _MAX_BYTES)  # another run made it first
        return raw if raw is not None and len(raw) == _KEY_BYTES else None
    except (UnsafeFileError, OSError):
        return None
    try:
        os.write(fd, key)
        os.fsync(fd)
    except OSError:
        return None
    finally:
        os.close(fd)
    return key


def _identity(uri: str, uuid: str) -> str:
    return f"{uri}\n{uuid.lower()}"


def digest_of(value: bytes, *, create_key: bool = False) -> str | None:
    """``hmac-sha256:<hex>`` of ``value`` under the host's key, or None without a key."""
    directory = _directory()
    if directory is None:
        return None
    key = _key(directory, create=create_key)
    if key is None:
        return None
    return "hmac-sha256:" + hmac.new(key, value, hashlib.sha256).hexdigest()


def recall(uri: str, uuid: str) -> str | None:
    """The digest recorded for the secret ``uuid`` of ``uri``, or None."""
    directory = _directory()
    if directory is None:
        return None
    raw = read_private(record_path(directory, _identity(uri, uuid)), _MAX_BYTES)
    if raw is None:
        return None
    try:
        record = json.loads(raw.decode("utf-8"))
    except ValueError:
        return None
    if not isinstance(record, dict) or set(record) != {"identity", "digest"} or record["identity"] != _identity(uri, uuid):
        return None
    digest = record["digest"]
    return digest if isinstance(digest, str) and _DIGEST.fullmatch(digest) else None


def matches(uri: str, uuid: str, value: bytes) -> bool:
    """True when the record says the secret holds ``value`` (compared in constant time)."""
    recorded = recall(uri, uuid)
    digest = digest_of(value) if recorded is not None else None
    return recorded is not None and digest is not None and hmac.compare_digest(recorded, digest)


def remember(uri: str, uuid: str, value: bytes) -> None:
    """Record the digest of ``value`` for the secret (quietly nothing when the directory is not
    private or cannot be written: the next run sets the value again)."""
    directory = _directory()
    digest = digest_of(value, create_key=True) if directory is not None else None
    if directory is None or digest is None:
        return
    data = json.dumps({"identity": _identity(uri, uuid), "digest": digest}, sort_keys=True).encode()
    with contextlib.suppress(OSError):
        write_atomic(record_path(directory, _identity(uri, uuid)), data, 0o600)


def forget(uri: str, uuid: str) -> None:
    """Remove the record of a secret that is gone."""
    directory = _directory()
    if directory is not None:
        with contextlib.suppress(OSError):
            os.unlink(record_path(directory, _identity(uri, uuid)))
