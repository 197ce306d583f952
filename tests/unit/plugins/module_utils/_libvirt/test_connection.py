# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import typing as t

import pytest

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.connection import connect, provider_config, resolve_uri
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.errors import LibvirtConnectionError, LibvirtValidationError


@pytest.mark.parametrize(
    ("uri", "environ", "expected"),
    [
        (None, {}, "qemu:///system"),
        (None, {"LIBVIRT_DEFAULT_URI": ""}, "qemu:///system"),  # empty env = unset, as upstream
        (None, {"LIBVIRT_DEFAULT_URI": "test:///default"}, "test:///default"),
        ("qemu+ssh://root@h/system", {"LIBVIRT_DEFAULT_URI": "test:///default"}, "qemu+ssh://root@h/system"),
    ],
)
def test_resolve_uri_precedence(uri: str | None, environ: dict[str, str], expected: str) -> None:
    assert resolve_uri(uri, environ=environ) == expected
    assert provider_config(uri, environ=environ) == {"uri": expected}


@pytest.mark.parametrize("uri", ["", "  "])
def test_resolve_uri_rejects_an_explicit_empty_uri(uri: str) -> None:
    with pytest.raises(LibvirtValidationError, match="^uri: must not be empty"):
        resolve_uri(uri, environ={})


def test_a_file_given_as_uri_is_never_echoed(tmp_path: t.Any) -> None:
    """libvirt's test driver parses the file a test:/// URI names and its error repeats the
    line it could not parse: with test:///etc/shadow that is a password hash."""
    secret = tmp_path / "shadow"
    secret.write_text("DVTSECRETroot:$6$salt$hash:19000:0:99999:7:::\nsecond line\n")
    with pytest.raises(LibvirtConnectionError) as caught, connect(f"test://{secret}"):
        pass
    assert "DVTSECRET" not in str(caught.value)
    assert str(caught.value).startswith(f"Unable to Connect to Libvirt: An error occurred while connecting to libvirt. URI: test://{secret} Error:")
