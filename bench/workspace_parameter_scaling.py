# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The workspace_parameter lookup's cost against its number of options: the lookup (its
options, the environment, every upstream check, the result) with 10, 100 and 1000 options,
in-process, the median of R rounds of K calls each. Linear means a constant cost per option:
the slope between 100 and 1000 options divided by the slope between 10 and 100 is about 1
(a quadratic check, one option compared with all the others, would give about 10).

Run with ANSIBLE_COLLECTIONS_PATH at a tree holding ansible_collections/devinfra/providers (scripts/bench.sh does)."""

from __future__ import annotations

import argparse
import hashlib
import os
import pathlib
import statistics
import sys
import time
import typing as t

from ansible.plugins.loader import init_plugin_loader, lookup_loader
from benchlib import write_figures

SIZES = (10, 100, 1000)
# The parameter's input variable (upstream's ParameterEnvironmentVariable); the collection is
# imported only through the plugin loader, so its module_utils are not imported here.
INPUT_ENV = "CODER_PARAMETER_" + hashlib.sha256(b"choice").hexdigest()


def terms(size: int) -> dict[str, t.Any]:
    options = [{"name": f"Option {i}", "value": str(i), "description": f"the choice number {i}", "icon": f"/icon/{i}.svg"} for i in range(size)]
    return {"name": "choice", "type": "number", "default": "0", "options": options, "validation": {"min": 0, "max": size}, "mutable": True}


def measure(size: int, rounds: int, calls: int) -> float:
    lookup = lookup_loader.get("devinfra.providers.workspace_parameter")
    kwargs = terms(size)
    samples = []
    for _round in range(rounds):
        start = time.perf_counter()
        for _call in range(calls):
            (result,) = lookup.run([], variables={}, **kwargs)
        samples.append((time.perf_counter() - start) / calls)
        assert result["value"] == str(size - 1) and result["form_type"] == "radio"
    return statistics.median(samples)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=20, help="lookups per round (K)")
    parser.add_argument("--json", type=pathlib.Path, help="write the figures here")
    args = parser.parse_args()

    init_plugin_loader()
    seconds = {}
    for size in SIZES:
        os.environ[INPUT_ENV] = str(size - 1)  # the user picked the last option
        measure(size, 1, 3)  # warm-up
        seconds[size] = measure(size, args.rounds, args.calls)
    slope_low = (seconds[100] - seconds[10]) / 90
    slope_high = (seconds[1000] - seconds[100]) / 900
    figures = {
        "rounds": args.rounds,
        "calls": args.calls,
        "seconds_per_lookup": seconds,
        "per_option_s": {"10-100": slope_low, "100-1000": slope_high},
        "slope_ratio": slope_high / slope_low,
        "time_ratio_1000_over_10": seconds[1000] / seconds[10],
    }
    print(f"workspace_parameter lookup vs its number of options, median of {args.rounds} rounds x {args.calls} lookups")
    for size in SIZES:
        print(f"  {size:>5} options: {seconds[size] * 1000:8.3f} ms per lookup")
    print(f"  per option: {slope_low * 1e6:.2f} us (10-100), {slope_high * 1e6:.2f} us (100-1000); slope ratio {figures['slope_ratio']:.2f} (linear: about 1)")
    write_figures(args.json, figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
