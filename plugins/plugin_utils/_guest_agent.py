# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The QEMU guest agent protocol as the libvirt_qemu connection plugin speaks it: commands run
with guest-exec and polled with guest-exec-status, files moved in chunks with
guest-file-open/read/write/close, everything through one callable that sends a JSON command to
the agent (libvirt_qemu.qemuAgentCommand in the plugin, a fake in the unit tests).

Whatever the guest answers is data from a machine we do not trust: every reply is checked for
the type and size it must have before it is used, output and fetched files are bounded, and
guest text reaches a message only through printable()."""

from __future__ import annotations

import base64
import binascii
import contextlib
import io
import json
import re
import time
import typing as t
from dataclasses import dataclass

from ansible_collections.devinfra.providers.plugins.module_utils._common.text import printable

if t.TYPE_CHECKING:
    from collections.abc import Callable, Sequence

__all__ = [
    "AGENT_CHANNEL",
    "BOUNDS",
    "READ_CHUNK",
    "REQUIRED_COMMANDS",
    "AgentCommandError",
    "AgentLimitError",
    "AgentProtocolError",
    "AgentTimeoutError",
    "AgentUnavailableError",
    "ExecResult",
    "GuestAgent",
    "GuestAgentError",
    "b64_length",
    "check_bound",
]

KIB = 1024
MIB = 1024 * KIB

AGENT_CHANNEL = "org.qemu.guest_agent.0"

# The agent commands the plugin needs; guest-info says which ones the agent allows.
REQUIRED_COMMANDS = ("guest-exec", "guest-exec-status", "guest-file-open", "guest-file-read", "guest-file-write", "guest-file-close")

# option -> (smallest, largest, default).
BOUNDS: dict[str, tuple[int, int, int]] = {
    "command_timeout": (1, 7 * 24 * 3600, 3600),
    "agent_timeout": (1, 3600, 30),
    "max_output_size": (64 * KIB, 16 * MIB, 2 * MIB),
    "max_fetch_size": (1, 1 << 40, 256 * MIB),
    "file_chunk_size": (4 * KIB, 128 * KIB, 64 * KIB),
}

# What goes to the guest travels as one JSON command through QEMU's virtio-serial channel, and
# there a command of a few hundred KiB can lose bytes and wedge the agent (seen with QEMU 7.2 and
# libvirt 9.0 from about 220 KiB of JSON on): guest-file-write chunks and a command's stdin are
# kept to file_chunk_size (base64 makes them a third larger). A larger stdin is written to a
# private file first. Replies come back through libvirt's remote protocol, which carries at
# most 4 MiB in one string: guest-file-read asks for READ_CHUNK bytes at a time.
READ_CHUNK = 1 * MIB

# Polling guest-exec-status: each wait is a tenth of the time the command has run so far, so
# that its end is seen at most about 10 % late (doubling waits saw a 0.7 s module up to 0.4 s
# late), but never shorter than FIRST_POLL (every poll costs the guest's CPU a reply) nor
# longer than LONGEST_POLL.
FIRST_POLL = 0.005
POLL_FRACTION = 0.1
LONGEST_POLL = 0.5

# libvirt's virErrorNumber values that say the agent cannot be used now.
_AGENT_UNRESPONSIVE = 86  # "Guest agent is not responding: QEMU guest agent is not connected"
_AGENT_UNSYNCED = 97
_ARGUMENT_UNSUPPORTED = 74  # "argument unsupported: QEMU guest agent is not configured"
_OPERATION_INVALID = 55  # "Requested operation is not valid: domain is not running"
_RPC = 39  # "Unable to encode message payload": a reply larger than the remote protocol carries
# libvirt's wording when the agent itself answers a command with an error.
_AGENT_ANSWER = re.compile(r"^internal error: unable to execute QEMU agent command '[a-z-]+': ")

# Kills what a command started when it ran over its time: the process guest-exec made ($1) and
# everything below it, each stopped first so that it cannot start more. Built here, run as
# /bin/sh -c SCRIPT sh PID: the pid is an argument, never part of the script.
_KILL_TREE = (
    'k() { kill -STOP "$1" 2>/dev/null; for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do k "$c"; done; kill -KILL "$1" 2>/dev/null; }; k "$1"'
)

# How a command line runs: /bin/sh -c _SHELL sh COMMAND [STDIN_FILE]. The agent runs commands
# with its own environment, which under systemd has no HOME (so "~" would not expand); HOME is
# then /root for root (without starting a process) or the user's home from the passwd database.
# A stdin file is opened and removed before the command runs. The command line is an argument,
# never part of this script.
_SHELL = (
    '[ -n "${HOME:-}" ] || { if [ -O /root ] && [ -w /root ]; then HOME=/root; '
    'else HOME=$(getent passwd "$(id -u)" | cut -d: -f6); fi; HOME=${HOME:-/}; export HOME; }; '
    'if [ "$#" -gt 1 ]; then exec <"$2" || exit 125; rm -f -- "$2"; fi; '
    'exec /bin/sh -c "$1"'
)
# A new file only the agent's user can read, for a stdin too large to go with the command.
_PRIVATE_FILE = "umask 077 && exec mktemp"
_TEMP_PATH = re.compile(r"^/[A-Za-z0-9._/-]{1,4000}$")
# How often (every 0.1 s) a killed command's status is asked for, so the agent forgets it.
KILL_POLLS = 20

_INSTALL_HINT = (
    f"install qemu-guest-agent in the guest and start it, and give the domain a channel named {AGENT_CHANNEL} "
    f"(<channel type='unix'><target type='virtio' name='{AGENT_CHANNEL}'/></channel>); a guest that is still booting "
    "answers once its agent has started (ansible.builtin.wait_for_connection waits for that)"
)


class GuestAgentError(Exception):
    """Base class; the message is safe to show (guest text in it went through printable())."""


class AgentUnavailableError(GuestAgentError):
    """The agent cannot be reached: not configured, not connected, not answering, domain not running."""


class AgentCommandError(GuestAgentError):
    """The agent answered a command with an error (a file that does not exist...)."""


class AgentProtocolError(GuestAgentError):
    """The agent answered with something that is not what the command returns."""


class AgentLimitError(GuestAgentError):
    """More data than the plugin accepts (output, a fetched file, a module's stdin)."""


class AgentTimeoutError(GuestAgentError):
    """A command or a transfer did not finish in time."""


class _TooLargeError(GuestAgentError):
    """libvirt could not carry the agent's reply (more than its remote protocol takes)."""


@dataclass(frozen=True)
class ExecResult:
    rc: int
    stdout: bytes
    stderr: bytes


def b64_length(size: int) -> int:
    """The length of the base64 text of ``size`` bytes."""
    return 4 * ((size + 2) // 3)


def _decoded_length(text: str) -> int:
    """How many bytes the base64 ``text`` stands for (read from its length, not decoded)."""
    return len(text) * 3 // 4 - text[-2:].count("=")


def check_bound(option: str, value: t.Any) -> int:
    """``value`` as an int within the bounds of ``option``, else a ValueError naming the option."""
    low, high, _default = BOUNDS[option]
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{option}: must be an integer, not {type(value).__name__}")
    if not low <= value <= high:
        raise ValueError(f"{option}: {value} is out of range ({low} to {high})")
    return value


def _error_code(exc: BaseException) -> int | None:
    get_code: Callable[[], int] | None = getattr(exc, "get_error_code", None)
    if get_code is None:
        return None
    try:
        return int(get_code())
    except (TypeError, ValueError):
        return None


class GuestAgent:
    """One domain's agent. ``send(command_json, timeout)`` returns the agent's reply as JSON
    text; it raises libvirt's exception (anything with get_error_code()) when libvirt or the
    agent refuses. ``where`` names the domain in messages (``domain 'web1' on qemu:///system``)."""

    def __init__(
        self,
        send: Callable[[str, int], str],
        *,
        where: str,
        agent_timeout: int,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._send = send
        self.where = where
        self._agent_timeout = agent_timeout
        self._clock = clock
        self._sleep = sleep

    def clock(self) -> float:
        """The clock deadlines are measured on."""
        return self._clock()

    # --- one command -------------------------------------------------------------------

    def call(self, execute: str, arguments: dict[str, t.Any] | None = None) -> t.Any:
        """The ``return`` value of one agent command."""
        request: dict[str, t.Any] = {"execute": execute}
        if arguments is not None:
            request["arguments"] = arguments
        try:
            reply_text = self._send(json.dumps(request), self._agent_timeout)
        except Exception as exc:
            code = _error_code(exc)
            if code is None:
                raise
            raise self._libvirt_error(execute, code, str(exc)) from None  # the cause is in the message
        try:
            reply = json.loads(reply_text)
        except (TypeError, ValueError):
            raise AgentProtocolError(f"the guest agent of {self.where} answered {execute} with something that is not JSON") from None
        if not isinstance(reply, dict) or "return" not in reply:
            raise AgentProtocolError(f"the guest agent of {self.where} answered {execute} without a return value")
        return reply["return"]

    def _libvirt_error(self, execute: str, code: int, message: str) -> GuestAgentError:
        shown = printable(message, 300)
        if code in (_AGENT_UNRESPONSIVE, _AGENT_UNSYNCED):
            return AgentUnavailableError(f"the QEMU guest agent of {self.where} is not responding ({shown}): {_INSTALL_HINT}")
        if code == _ARGUMENT_UNSUPPORTED:
            return AgentUnavailableError(f"{self.where} has no QEMU guest agent channel ({shown}): {_INSTALL_HINT}")
        if code == _RPC and "message payload" in message:
            return _TooLargeError(f"the reply to {execute} on {self.where} is larger than libvirt carries ({shown})")
        if code == _OPERATION_INVALID:
            return AgentUnavailableError(f"{self.where} cannot run guest agent commands ({shown}); start the domain first")
        if _AGENT_ANSWER.match(message):
            return AgentCommandError(f"the guest agent of {self.where} refused {execute}: {printable(_AGENT_ANSWER.sub('', message), 300)}")
        return GuestAgentError(f"{execute} on {self.where} failed: {shown}")

    # --- reading replies ---------------------------------------------------------------

    def _field(self, execute: str, reply: t.Any, key: str, kind: type | tuple[type, ...], *, required: bool = True) -> t.Any:
        if not isinstance(reply, dict):
            raise AgentProtocolError(f"the guest agent of {self.where} answered {execute} with a {type(reply).__name__}, not an object")
        if key not in reply:
            if required:
                raise AgentProtocolError(f"the guest agent of {self.where} answered {execute} without {key}")
            return None
        value = reply[key]
        if isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,)):
            raise AgentProtocolError(f"the guest agent of {self.where} answered {execute} with a {key} that is not a number")
        if not isinstance(value, kind):
            raise AgentProtocolError(f"the guest agent of {self.where} answered {execute} with a {key} of type {type(value).__name__}")
        return value

    def _decode(self, execute: str, key: str, text: str, *, most: int) -> bytes:
        """Base64 ``text`` decoded, refused unread when it would be more than ``most`` bytes."""
        if len(text) > b64_length(most):
            raise AgentLimitError(f"{key} of {execute} on {self.where}: more than {most} bytes")
        try:
            return base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            raise AgentProtocolError(f"the guest agent of {self.where} answered {execute} with a {key} that is not base64") from None

    # --- the connection's operations ---------------------------------------------------

    def check_commands(self) -> str:
        """The agent's version, once it has said that it allows every command the plugin uses."""
        info = self.call("guest-info")
        version = self._field("guest-info", info, "version", str, required=False) or "unknown"
        listed = self._field("guest-info", info, "supported_commands", list)
        allowed = {item.get("name") for item in listed if isinstance(item, dict) and item.get("enabled") is True}
        missing = [name for name in REQUIRED_COMMANDS if name not in allowed]
        if missing:
            raise AgentUnavailableError(
                f"the QEMU guest agent of {self.where} (version {printable(version, 40)}) does not allow {', '.join(missing)}: "
                "its configuration blocks them (qemu-ga --block-rpcs or --allow-rpcs, block-rpcs= in /etc/qemu/qemu-ga.conf, or "
                "BLACKLIST_RPC in /etc/sysconfig/qemu-ga, which blocks the file and exec commands by default on RHEL-family guests)"
            )
        return str(version)

    def shell(self, command: str, *, stdin: bytes | None, timeout: int, max_output: int, chunk: int) -> ExecResult:
        """Run the shell command line ``command`` as ``/bin/sh -c command`` would, with HOME set
        when the agent has none; ``stdin`` up to ``chunk`` bytes travels with the command, a
        larger one through a private file (mode 0600) that the command's shell opens and removes."""
        deadline = self._clock() + timeout
        if stdin is None or len(stdin) <= chunk:
            return self.run(["/bin/sh", "-c", _SHELL, "sh", command], stdin=stdin, deadline=deadline, timeout=timeout, max_output=max_output)
        made = self.run(["/bin/sh", "-c", _PRIVATE_FILE], stdin=None, deadline=deadline, timeout=timeout, max_output=4 * KIB)
        path = made.stdout.decode("utf-8", "replace").strip()
        if made.rc != 0 or not _TEMP_PATH.match(path):
            raise AgentCommandError(
                f"could not make a private file for the command's input on {self.where} (mktemp: exit code {made.rc}, "
                f"{printable(made.stderr.decode('utf-8', 'replace').strip() or path)})"
            )
        try:
            self.put(io.BytesIO(stdin), path, chunk=chunk, deadline=deadline, timeout=timeout, create=False)
        except GuestAgentError:
            with contextlib.suppress(GuestAgentError):
                self.run(["/bin/rm", "-f", "--", path], stdin=None, deadline=self._clock() + 30, timeout=30, max_output=4 * KIB)
            raise
        return self.run(["/bin/sh", "-c", _SHELL, "sh", command, path], stdin=None, deadline=deadline, timeout=timeout, max_output=max_output)

    def run(self, argv: Sequence[str], *, stdin: bytes | None, deadline: float, timeout: int, max_output: int) -> ExecResult:
        """Run ``argv`` in the guest (no shell: argv[0] is the program) and wait for it, until
        ``deadline`` (a time of the clock; ``timeout`` is what it came from, for the message)."""
        arguments: dict[str, t.Any] = {"path": argv[0], "arg": list(argv[1:]), "capture-output": True}
        if stdin:
            arguments["input-data"] = base64.b64encode(stdin).decode("ascii")
        pid = self._field("guest-exec", self.call("guest-exec", arguments), "pid", int)
        started = self._clock()
        while True:
            try:
                status = self.call("guest-exec-status", {"pid": pid})
            except _TooLargeError:
                raise AgentLimitError(
                    f"the output of the command on {self.where} is larger than libvirt carries in one guest agent reply (4 MiB "
                    f"of base64, about 3 MiB of stdout and stderr together), and than max_output_size ({max_output} bytes)"
                ) from None
            if self._field("guest-exec-status", status, "exited", bool):
                return self._result(status, max_output=max_output)
            left = deadline - self._clock()
            if left <= 0:
                self._kill(pid)
                raise AgentTimeoutError(f"the command on {self.where} did not finish within command_timeout ({timeout} s); it was killed")
            wait = min(max((self._clock() - started) * POLL_FRACTION, FIRST_POLL), LONGEST_POLL)
            self._sleep(min(wait, left))

    def _result(self, status: dict[str, t.Any], *, max_output: int) -> ExecResult:
        execute = "guest-exec-status"
        for key in ("out-truncated", "err-truncated"):
            if self._field(execute, status, key, bool, required=False):
                raise AgentLimitError(
                    f"the output of the command on {self.where} is larger than the guest agent keeps (it cut "
                    f"{'stdout' if key.startswith('out') else 'stderr'}), and than max_output_size ({max_output} bytes)"
                )
        out_text = self._field(execute, status, "out-data", str, required=False) or ""
        err_text = self._field(execute, status, "err-data", str, required=False) or ""
        # Measured before anything is decoded, then once more on what was.
        sizes = (_decoded_length(out_text), _decoded_length(err_text))
        if sum(sizes) <= max_output:
            stdout = self._decode(execute, "out-data", out_text, most=max_output)
            stderr = self._decode(execute, "err-data", err_text, most=max_output)
            sizes = (len(stdout), len(stderr))
        if sum(sizes) > max_output:
            raise AgentLimitError(
                f"the output of the command on {self.where} ({sizes[0]} bytes of stdout and {sizes[1]} of stderr) is larger "
                f"than max_output_size ({max_output} bytes)"
            )
        exitcode = self._field(execute, status, "exitcode", int, required=False)
        signal = self._field(execute, status, "signal", int, required=False)
        if exitcode is not None:
            rc = exitcode
        elif signal is not None:
            rc = -signal  # as Python's subprocess reports a process a signal ended
        else:
            raise AgentProtocolError(f"the guest agent of {self.where} answered guest-exec-status with neither exitcode nor signal")
        return ExecResult(rc, stdout, stderr)

    def _kill(self, pid: int) -> None:
        """Best effort: kill the command's processes and collect the agent's records of them."""
        with contextlib.suppress(GuestAgentError):
            killer = self._field(
                "guest-exec", self.call("guest-exec", {"path": "/bin/sh", "arg": ["-c", _KILL_TREE, "sh", str(pid)], "capture-output": True}), "pid", int
            )
            for target in (killer, pid):
                for _attempt in range(KILL_POLLS):
                    if self._field("guest-exec-status", self.call("guest-exec-status", {"pid": target}), "exited", bool):
                        break
                    self._sleep(0.1)

    def put(self, source: t.BinaryIO, path: str, *, chunk: int, deadline: float, timeout: int, create: bool = True) -> int:
        """Write what ``source`` holds to ``path`` in the guest (created, or truncated when it
        exists, keeping its mode); the byte count. ``create=False`` writes a file that must exist."""
        handle = self._open(path, "wb" if create else "r+b")
        written = 0
        with self._closing(handle):
            while block := source.read(chunk):
                view = memoryview(block)
                while view:
                    reply = self.call("guest-file-write", {"handle": handle, "buf-b64": base64.b64encode(view).decode("ascii")})
                    count: int = self._field("guest-file-write", reply, "count", int)
                    if not 0 < count <= len(view):
                        raise AgentProtocolError(f"the guest agent of {self.where} wrote {count} of {len(view)} bytes to {printable(path)}")
                    view = view[count:]
                    written += count
                self._in_time(deadline, timeout, f"copying to {printable(path)}")
        return written

    def fetch(self, path: str, sink: t.BinaryIO, *, max_size: int, deadline: float, timeout: int) -> int:
        """Copy ``path`` of the guest into ``sink``, at most ``max_size`` bytes; the byte count."""
        handle = self._open(path, "rb")
        total = 0
        with self._closing(handle):
            while True:
                reply = self.call("guest-file-read", {"handle": handle, "count": READ_CHUNK})
                count: int = self._field("guest-file-read", reply, "count", int)
                if not 0 <= count <= READ_CHUNK:
                    raise AgentProtocolError(f"the guest agent of {self.where} read {count} bytes of {printable(path)} when asked for {READ_CHUNK}")
                data = self._decode("guest-file-read", "buf-b64", self._field("guest-file-read", reply, "buf-b64", str), most=READ_CHUNK)
                if len(data) != count:
                    raise AgentProtocolError(f"the guest agent of {self.where} sent {len(data)} bytes of {printable(path)} and said {count}")
                total += count
                if total > max_size:
                    raise AgentLimitError(f"{printable(path)} on {self.where} is larger than max_fetch_size ({max_size} bytes)")
                sink.write(data)
                if self._field("guest-file-read", reply, "eof", bool):
                    return total
                self._in_time(deadline, timeout, f"fetching {printable(path)}")

    def _open(self, path: str, mode: str) -> int:
        handle = self.call("guest-file-open", {"path": path, "mode": mode})
        if isinstance(handle, bool) or not isinstance(handle, int):
            raise AgentProtocolError(f"the guest agent of {self.where} answered guest-file-open with a {type(handle).__name__}, not a handle")
        return handle

    @contextlib.contextmanager
    def _closing(self, handle: int) -> t.Iterator[None]:
        """Close ``handle`` afterwards; a failed close fails the transfer unless it failed already."""
        try:
            yield
        except BaseException:
            with contextlib.suppress(GuestAgentError):
                self.call("guest-file-close", {"handle": handle})
            raise
        self.call("guest-file-close", {"handle": handle})

    def _in_time(self, deadline: float, timeout: int, doing: str) -> None:
        if self._clock() > deadline:
            raise AgentTimeoutError(f"{doing} on {self.where} took longer than command_timeout ({timeout} s)")
