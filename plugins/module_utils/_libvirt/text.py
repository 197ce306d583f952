# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""What a string written into libvirt's XML, a file name or a volume name may hold."""

from __future__ import annotations

import re

from .._common.text import first_forbidden, kind_of
from .errors import LibvirtValidationError

__all__ = ["NOT_XML_CHARS", "check_one_line"]

NOT_XML_CHARS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def check_one_line(path: str, text: str) -> str:
    """``text`` when it keeps the collection's one-line rule (a newline in a DNS TXT value would
    be a line of its own in the dnsmasq config libvirt writes); else an error naming the option."""
    found = first_forbidden(text)
    if found:
        raise LibvirtValidationError(f"{path}: contains a {kind_of(found[0])} (U+{found[0]:04X}); it is a one-line value")
    return text
