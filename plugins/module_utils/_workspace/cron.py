# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The cron grammar upstream validates with (robfig/cron v3's parser), with its messages.

Only acceptance and the error texts matter here: nothing is scheduled."""

from __future__ import annotations

import dataclasses
import re

__all__ = ["CronError", "known_zone", "parse_cron", "script_cron_warnings_and_error"]


class CronError(ValueError):
    """Carries robfig/cron's message."""


@dataclasses.dataclass(frozen=True)
class _Bounds:
    low: int
    high: int
    names: dict[str, int] | None = None


_MONTHS = {name: index + 1 for index, name in enumerate(["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"])}
_DAYS = {name: index for index, name in enumerate(["sun", "mon", "tue", "wed", "thu", "fri", "sat"])}
# second, minute, hour, day of month, month, day of week
_FIELDS = (_Bounds(0, 59), _Bounds(0, 59), _Bounds(0, 23), _Bounds(1, 31), _Bounds(1, 12, _MONTHS), _Bounds(0, 6, _DAYS))
_DESCRIPTORS = frozenset({"@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"})
_GO_DURATION = re.compile(r"^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$")


def _go_atoi(text: str) -> int:
    if not re.fullmatch(r"[+-]?[0-9]+", text):
        raise CronError(f'failed to parse int from {text}: strconv.Atoi: parsing "{text}": invalid syntax')
    number = int(text)
    if not -(1 << 63) <= number < (1 << 63):
        raise CronError(f'failed to parse int from {text}: strconv.Atoi: parsing "{text}": value out of range')
    if number < 0:
        raise CronError(f"negative number ({number}) not allowed: {text}")
    return number


def _int_or_name(text: str, names: dict[str, int] | None) -> int:
    if names and text.lower() in names:
        return names[text.lower()]
    return _go_atoi(text)


def _low_high(expr: str, low_and_high: list[str], bounds: _Bounds) -> tuple[int, int]:
    if low_and_high[0] in ("*", "?"):
        return bounds.low, bounds.high
    start = _int_or_name(low_and_high[0], bounds.names)
    if len(low_and_high) == 1:
        return start, start
    if len(low_and_high) == 2:
        return start, _int_or_name(low_and_high[1], bounds.names)
    raise CronError(f"too many hyphens: {expr}")


def _check_range(expr: str, bounds: _Bounds) -> None:
    range_and_step = expr.split("/")
    low_and_high = range_and_step[0].split("-")
    start, end = _low_high(expr, low_and_high, bounds)
    if len(range_and_step) == 1:
        step = 1
    elif len(range_and_step) == 2:
        step = _go_atoi(range_and_step[1])
        if len(low_and_high) == 1:
            end = bounds.high  # "N/step" means "N-max/step"
    else:
        raise CronError(f"too many slashes: {expr}")
    if start < bounds.low:
        raise CronError(f"beginning of range ({start}) below minimum ({bounds.low}): {expr}")
    if end > bounds.high:
        raise CronError(f"end of range ({end}) above maximum ({bounds.high}): {expr}")
    if start > end:
        raise CronError(f"beginning of range ({start}) beyond end of range ({end}): {expr}")
    if step == 0:
        raise CronError(f"step of range should be a positive number: {expr}")


def parse_cron(spec: str, *, seconds: bool) -> None:
    """Validate ``spec`` like robfig's parser built with ``[Second|]Minute|Hour|Dom|Month|DowOptional|Descriptor``."""
    if not spec:
        raise CronError("empty spec string")
    if spec.startswith(("TZ=", "CRON_TZ=")):
        space = spec.find(" ")
        zone = spec[spec.find("=") + 1 : space if space >= 0 else len(spec)]
        if space < 0 or not known_zone(zone):
            raise CronError(f"provided bad location {zone}: unknown time zone {zone}")
        spec = spec[space:].strip()
    if spec.startswith("@"):
        if spec in _DESCRIPTORS:
            return
        if spec.startswith("@every "):
            duration = spec[len("@every ") :]
            if not _GO_DURATION.match(duration):
                raise CronError(f'failed to parse duration {spec}: time: invalid duration "{duration}"')
            return
        raise CronError(f"unrecognized descriptor: {spec}")
    fields = spec.split()
    high = 6 if seconds else 5
    low = high - 1
    if not low <= len(fields) <= high:
        raise CronError(f"expected {low} to {high} fields, found {len(fields)}: [{' '.join(fields)}]")
    if len(fields) == low:
        fields.append("*")
    bounds = _FIELDS if seconds else _FIELDS[1:]
    for field, field_bounds in zip(fields, bounds):
        for expr in (part for part in field.split(",") if part):
            _check_range(expr, field_bounds)


def known_zone(name: str) -> bool:
    """Whether Go's time.LoadLocation would know ``name`` (empty, UTC, Local or an IANA zone)."""
    if name in ("", "UTC", "Local"):
        return True
    try:
        import zoneinfo  # noqa: PLC0415  (Python 3.9+, only needed for this rare prefix)

        zoneinfo.ZoneInfo(name)
    except Exception:  # ZoneInfoNotFoundError, or ValueError for a malformed key
        return False
    return True


def script_cron_warnings_and_error(spec: str) -> tuple[list[str], str | None]:
    """Upstream's ValidateCronExpression for ``workspace_script``'s 6-field ``cron``."""
    warnings = []
    if len(spec.split()) == 5:
        try:
            parse_cron(spec, seconds=False)
        except CronError:
            pass
        else:
            warnings.append(
                f"The cron expression '{spec}' appears to be in Unix 5-field format. "
                "Coder uses 6-field format (seconds minutes hours day month day-of-week). "
                f"Consider prefixing with '0 ' to run at the start of each minute: '0 {spec}'"
            )
    try:
        parse_cron(spec, seconds=True)
    except CronError as exc:
        return warnings, f"{spec} is not a valid cron expression: {exc}"
    return warnings, None
