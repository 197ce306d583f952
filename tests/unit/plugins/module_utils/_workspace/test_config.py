# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import pytest

from ansible_collections.devinfra.providers.plugins.module_utils._workspace.config import deployment_url, provider_config, resolve_url
from ansible_collections.devinfra.providers.plugins.module_utils._workspace.errors import WorkspaceValidationError
from ansible_collections.devinfra.providers.plugins.module_utils._workspace.gourl import GoURLError, parse_go_url


@pytest.mark.parametrize(
    ("url", "environ", "expected"),
    [
        (None, {}, "https://mydeployment.coder.com"),
        (None, {"CODER_AGENT_URL": ""}, "https://mydeployment.coder.com"),  # empty env = unset
        (None, {"CODER_AGENT_URL": "https://coder.example.com"}, "https://coder.example.com"),
        ("http://localhost:3000", {"CODER_AGENT_URL": "https://coder.example.com"}, "http://localhost:3000"),
        # url.Parse accepts relative and schemeless values; so does upstream.
        ("coder.example.com", {}, "coder.example.com"),
        ("/relative", {}, "/relative"),
    ],
)
def test_provider_config(url: str | None, environ: dict[str, str], expected: str) -> None:
    assert resolve_url(url, environ=environ) == expected
    assert provider_config(url, environ=environ) == {"url": expected}


def test_explicit_empty_url_has_upstreams_message() -> None:
    with pytest.raises(WorkspaceValidationError, match='^CODER_AGENT_URL must not be empty; got ""$'):
        provider_config("", environ={})


# Go's url.Parse verdicts (net/url), with Go's messages.
GO_URL_ERRORS = [
    ("http://x.com:abc", 'parse "http://x.com:abc": invalid port ":abc" after host'),
    ("%zz", 'parse "%zz": invalid URL escape "%zz"'),
    ("http://x/%4", 'parse "http://x/%4": invalid URL escape "%4"'),
    ("https://x.com/a#%.s", 'parse "https://x.com/a#%.s": invalid URL escape "%.s"'),
    ("http://a b.com", 'parse "http://a b.com": invalid character " " in host name'),
    ("1a:b", 'parse "1a:b": first path segment in URL cannot contain colon'),
    ("http://[::1", "parse \"http://[::1\": missing ']' in host"),
    (":foo", 'parse ":foo": missing protocol scheme'),
    ("http://x\n", 'parse "http://x\\n": net/url: invalid control character in URL'),
]


@pytest.mark.parametrize(("url", "message"), GO_URL_ERRORS)
def test_go_url_errors(url: str, message: str) -> None:
    with pytest.raises(GoURLError) as err:
        parse_go_url(url)
    assert str(err.value) == message
    with pytest.raises(WorkspaceValidationError, match="^url: parse "):
        deployment_url(url, environ={})


@pytest.mark.parametrize(
    ("url", "scheme", "host", "port", "path", "origin"),
    [
        ("https://coder.example.com", "https", "coder.example.com", "", "", "https://coder.example.com/"),
        ("http://localhost:3000/sub/path?x=1#f", "http", "localhost:3000", "3000", "/sub/path", "http://localhost:3000/"),
        ("https://[::1]:8443/", "https", "[::1]:8443", "8443", "/", "https://[::1]:8443/"),
        ("HTTPS://Example.com", "https", "Example.com", "", "", "https://Example.com/"),
        ("mailto:x@y", "mailto", "", "", "", "mailto:/"),
    ],
)
def test_go_url_parts(url: str, scheme: str, host: str, port: str, path: str, origin: str) -> None:
    parsed = parse_go_url(url)
    assert (parsed.scheme, parsed.host, parsed.port, parsed.path) == (scheme, host, port, path)
    assert parsed.origin_with_slash() == origin
