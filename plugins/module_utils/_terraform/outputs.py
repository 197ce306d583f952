# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The state's root outputs: written as the play's variable ``terraform_outputs`` (every string
``!unsafe``, as all the state holds), listed in the result. A sensitive output - marked so in the
state, or holding a value the state keeps secret elsewhere (an agent's token, a sensitive
attribute) - is never written and never returned: its value is masked, and its strings become
no_log values of the module run."""

from __future__ import annotations

import typing as t

from .._common.text import printable
from .tfstate import strings_in

if t.TYPE_CHECKING:
    from .tfstate import Output

__all__ = ["MASK", "OUTPUTS_VARIABLE", "read_outputs"]

MASK = "********"
OUTPUTS_VARIABLE = "terraform_outputs"


def read_outputs(outputs: list[Output], secrets: set[str]) -> tuple[list[dict[str, t.Any]], set[str]]:
    """Each output as the result lists it (``value`` masked when sensitive, ``variable`` the
    expression that holds it in the playbook or None, ``reason`` when it is not written), and the
    strings of the sensitive ones."""
    listed: list[dict[str, t.Any]] = []
    hidden: set[str] = set()
    for output in outputs:
        found = strings_in(output.value)
        holds_secret = any(secret in text for text in found for secret in secrets if secret)
        sensitive = output.sensitive or holds_secret
        item: dict[str, t.Any] = {"name": printable(output.name, 200), "sensitive": sensitive, "value": MASK if sensitive else output.value}
        if output.problem:
            item.update(variable=None, reason=output.problem)
        elif output.sensitive:
            item.update(variable=None, reason="marked sensitive in the state: never written (read it with terraform output)")
        elif holds_secret:
            item.update(variable=None, reason="it holds a value the state keeps secret (an agent's token or a sensitive attribute): never written")
        else:
            item["variable"] = f"{OUTPUTS_VARIABLE}['{output.name}']"  # an identifier: no quote in it
        if sensitive:
            hidden.update(found)
        listed.append(item)
    return listed, hidden
