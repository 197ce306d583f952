# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""What the collection's lookups share: a positional term stands for one named option."""

from __future__ import annotations

import typing as t

from ansible.errors import AnsibleLookupError


def term_as_option(lookup_name: str, term_option: str | None, terms: list[t.Any], options: dict[str, t.Any]) -> None:
    """Put the one term a lookup takes into ``options`` under ``term_option``; more terms, a
    term where the lookup takes none, or the option given both ways is an error."""
    if not terms:
        return
    if term_option is None or len(terms) > 1 or term_option in options:
        expected = f"at most one term (the {term_option})" if term_option else "no terms"
        raise AnsibleLookupError(f"{lookup_name}: takes {expected}, got {len(terms)}")
    options[term_option] = terms[0]
