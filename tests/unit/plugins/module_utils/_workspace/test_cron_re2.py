# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import re

import pytest

from ansible_collections.devinfra.providers.plugins.module_utils._workspace.cron import script_cron_warnings_and_error
from ansible_collections.devinfra.providers.plugins.module_utils._workspace.re2 import RE2Error, compile_re2

UNIX_WARNING = (
    "The cron expression '{0}' appears to be in Unix 5-field format. Coder uses 6-field format (seconds minutes hours day month day-of-week). "
    "Consider prefixing with '0 ' to run at the start of each minute: '0 {0}'"
)


# script_test.go's cases and robfig/cron's messages.
@pytest.mark.parametrize(
    ("spec", "warns", "error"),
    [
        ("0 0 22 * * *", False, None),
        ("0 */5 * * * *", False, None),
        ("30 0 9 * * 1-5", False, None),
        ("0 0 9 * JAN-MAR MON,fri", False, None),
        ("@daily", False, None),
        ("@every 1h30m", False, None),
        ("*/5 * * * *", True, None),  # a valid Unix spec: accepted (read with seconds first), with a warning
        ("0 0 22 * *", True, None),
        ("0 0 30 * *", True, "0 0 30 * * is not a valid cron expression: end of range (30) above maximum (23): 30"),
        ("invalid", False, "invalid is not a valid cron expression: expected 5 to 6 fields, found 1: [invalid]"),
        ("* * * * * * *", False, "* * * * * * * is not a valid cron expression: expected 5 to 6 fields, found 7: [* * * * * * *]"),
        ("60 * * * * *", False, "60 * * * * * is not a valid cron expression: end of range (60) above maximum (59): 60"),
        ("0 0 0 0 * *", False, "0 0 0 0 * * is not a valid cron expression: beginning of range (0) below minimum (1): 0"),
        ("x * * * * *", False, 'x * * * * * is not a valid cron expression: failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax'),
        ("5-1 * * * * *", False, "5-1 * * * * * is not a valid cron expression: beginning of range (5) beyond end of range (1): 5-1"),
        ("*/0 * * * * *", False, "*/0 * * * * * is not a valid cron expression: step of range should be a positive number: */0"),
        ("1-2-3 * * * * *", False, "1-2-3 * * * * * is not a valid cron expression: too many hyphens: 1-2-3"),
        ("@sometimes", False, "@sometimes is not a valid cron expression: unrecognized descriptor: @sometimes"),
        ("", False, " is not a valid cron expression: empty spec string"),
    ],
)
def test_script_cron(spec: str, warns: bool, error: str | None) -> None:
    warnings, message = script_cron_warnings_and_error(spec)
    assert warnings == ([UNIX_WARNING.format(spec)] if warns else [])
    assert message == error


@pytest.mark.parametrize(
    ("pattern", "text", "matches"),
    [
        ("[a-c]", "xbx", True),  # unanchored, as Go's MatchString
        ("^[a-c]$", "b\n", False),  # RE2's $ is the very end; Python's would match before the newline
        ("^\\d+$", "١٢", False),  # RE2's \d is ASCII only
        ("^\\w+\\z", "abc", True),
        ("[[:alpha:]]+", "abc", True),
        ("^[[:digit:]]+$", "12", True),
        ("\\Qa.b\\E", "a.b", True),
        ("\\Qa.b\\E", "axb", False),
        ("(?<year>\\d{4})", "2026", True),
        ("(?i)^abc$", "ABC", True),
        ("(?m)^b$", "a\nb\nc", True),
        ("\\bfoo\\b", "a foo b", True),
        ("\\bfoo\\b", "éfooé", True),  # é is not a word character in RE2
    ],
)
def test_re2_semantics(pattern: str, text: str, matches: bool) -> None:
    assert bool(compile_re2(pattern).search(text)) is matches


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        ("(a)\\1", "error parsing regexp: invalid escape sequence: `\\1`"),
        ("(?=a)", "error parsing regexp: invalid or unsupported Perl syntax: `(?=`"),
        ("(?<!a)b", "error parsing regexp: invalid or unsupported Perl syntax: `(?<!`"),
        ("[a", "error parsing regexp: missing closing ]: `[a`"),
        ("\\pL", "Unicode class `\\pL` (RE2 \\p syntax) is not supported by this port"),
        ("a\\Z", "error parsing regexp: invalid escape sequence: `\\Z`"),
    ],
)
def test_re2_rejects(pattern: str, message: str) -> None:
    with pytest.raises(RE2Error, match="^" + re.escape(message) + "$"):
        compile_re2(pattern)
