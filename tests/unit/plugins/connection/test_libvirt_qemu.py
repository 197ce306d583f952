# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The libvirt_qemu connection plugin against a stand-in for qemu-ga, on test:///default.

The stand-in (LocalAgent) answers the guest agent's JSON commands as qemu-ga 7.2 does, and
really runs what guest-exec asks for (as subprocesses of the test, with the environment a
systemd service gives the agent: no HOME) and really reads and writes the files: the shell
line the plugin builds, its HOME rule, the stdin file and the kill of a command's process tree
are exercised for real. Faults, hostile answers and libvirt's errors are injected per command."""

from __future__ import annotations

import ast
import base64
import hashlib
import json
import os
import pathlib
import pwd
import stat
import subprocess
import threading
import time
import typing as t

import pytest
import yaml  # type: ignore[import-untyped]
from ansible.errors import AnsibleConnectionFailure, AnsibleError, AnsibleFileNotFound
from ansible.playbook.play_context import PlayContext
from ansible.plugins.loader import connection_loader

from ansible_collections.devinfra.providers.plugins.connection import libvirt_qemu as plugin
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt import domain_lookup
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.connection import libvirt
from ansible_collections.devinfra.providers.plugins.plugin_utils import _guest_agent as agent_module
from ansible_collections.devinfra.providers.plugins.plugin_utils._guest_agent import (
    BOUNDS,
    AgentTimeoutError,
    GuestAgent,
    b64_length,
)

TEST_URI = "test:///default"
TEST_UUID = "6695eb01-f6a4-8304-79aa-97f2502e193f"  # the test driver's domain "test"
SERVICE_ENV = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8"}
ALL_COMMANDS = ["guest-info", "guest-ping", *agent_module.REQUIRED_COMMANDS, "guest-shutdown"]


def lv_error(code: int, message: str) -> libvirt.libvirtError:
    """A libvirtError as libvirt raises it: ``code`` and ``message`` (whatever the last error was)."""
    exc = libvirt.libvirtError(message)
    exc.args = (message,)
    exc.err = (code, 10, message, 2, None, None, None, 0, 0)
    return exc


class Proc:
    """A command guest-exec started, with its output collected by a thread."""

    def __init__(self, argv: list[str], stdin: bytes | None, env: dict[str, str]) -> None:
        self.popen = subprocess.Popen(
            argv, stdin=subprocess.PIPE if stdin else subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd="/"
        )
        self.out = b""
        self.err = b""
        self.thread = threading.Thread(target=self._collect, args=(stdin,), daemon=True)
        self.thread.start()

    def _collect(self, stdin: bytes | None) -> None:
        self.out, self.err = self.popen.communicate(stdin)


class LocalAgent:
    """qemu-ga, answering on this machine. ``fail`` maps a command to the libvirtError it raises
    (once, or always with ``always``); ``answer`` maps a command to a function that makes its
    reply from the arguments, instead of the real behaviour."""

    def __init__(self, env: dict[str, str] | None = None) -> None:
        self.env = dict(SERVICE_ENV if env is None else env)
        self.enabled = set(ALL_COMMANDS)
        self.calls: list[tuple[str, dict[str, t.Any], int, int]] = []
        self.fail: dict[str, libvirt.libvirtError] = {}
        self.always = False
        self.answer: dict[str, t.Callable[[dict[str, t.Any]], t.Any]] = {}
        self.procs: dict[int, Proc] = {}
        self.files: dict[int, t.BinaryIO] = {}
        self.next_handle = 1000
        self.largest_command = 0
        self.domains: set[str] = set()  # the UUIDs of the domains commands went to

    def __call__(self, domain: t.Any, command: str, timeout: int, flags: int) -> str:
        assert flags == 0
        assert isinstance(domain, libvirt.virDomain)
        self.domains.add(domain.UUIDString())
        self.largest_command = max(self.largest_command, len(command))
        request = json.loads(command)
        execute, arguments = request["execute"], request.get("arguments", {})
        self.calls.append((execute, arguments, timeout, len(command)))
        if execute in self.fail:
            raise (self.fail[execute] if self.always else self.fail.pop(execute))
        if execute in self.answer:
            return json.dumps({"return": self.answer[execute](arguments)})
        return json.dumps({"return": getattr(self, execute.replace("-", "_"))(**arguments)})

    def executed(self, execute: str) -> list[dict[str, t.Any]]:
        return [arguments for name, arguments, _timeout, _size in self.calls if name == execute]

    # --- the commands, as qemu-ga answers them ----------------------------------------

    def guest_info(self) -> dict[str, t.Any]:
        return {
            "version": "7.2.22",
            "supported_commands": [{"name": name, "enabled": name in self.enabled, "success-response": True} for name in ALL_COMMANDS],
        }

    def guest_exec(self, path: str, arg: list[str], **options: t.Any) -> dict[str, int]:
        assert options.pop("capture-output") is True
        data = options.pop("input-data", None)
        assert not options, options
        proc = Proc([path, *arg], base64.b64decode(data) if data is not None else None, self.env)
        self.procs[proc.popen.pid] = proc
        return {"pid": proc.popen.pid}

    def guest_exec_status(self, pid: int) -> dict[str, t.Any]:
        proc = self.procs[pid]
        if proc.thread.is_alive():
            return {"exited": False}
        proc.thread.join()
        del self.procs[pid]
        status: dict[str, t.Any] = {"exited": True, "out-truncated": False, "err-truncated": False}
        code = proc.popen.returncode
        status.update({"exitcode": code} if code >= 0 else {"signal": -code})
        if proc.out:
            status["out-data"] = base64.b64encode(proc.out).decode()
        if proc.err:
            status["err-data"] = base64.b64encode(proc.err).decode()
        return status

    def guest_file_open(self, path: str, mode: str) -> int:
        if mode not in ("r", "rb", "wb", "r+b"):
            raise lv_error(1, f"internal error: unable to execute QEMU agent command 'guest-file-open': invalid file open mode '{mode}'")
        try:
            handle = open(path, mode)  # noqa: SIM115  # closed by guest-file-close
            if mode == "wb":
                os.chmod(path, 0o666)  # qemu-ga 7.2 makes its files 0666
        except OSError as exc:
            raise lv_error(
                1, f"internal error: unable to execute QEMU agent command 'guest-file-open': failed to open file '{path}' (mode: '{mode}'): {exc.strerror}"
            ) from None
        self.next_handle += 1
        self.files[self.next_handle] = t.cast("t.BinaryIO", handle)
        return self.next_handle

    def guest_file_write(self, handle: int, **options: str) -> dict[str, t.Any]:
        data = base64.b64decode(options["buf-b64"])
        return {"count": self.files[handle].write(data), "eof": False}

    def guest_file_read(self, handle: int, count: int) -> dict[str, t.Any]:
        data = self.files[handle].read(count)
        return {"count": len(data), "buf-b64": base64.b64encode(data).decode(), "eof": len(data) < count}

    def guest_file_close(self, handle: int) -> dict[str, t.Any]:
        self.files.pop(handle).close()
        return {}


@pytest.fixture
def agent(monkeypatch: pytest.MonkeyPatch) -> LocalAgent:
    fake = LocalAgent()
    monkeypatch.setattr(plugin, "libvirt_qemu", type("FakeLibvirtQemu", (), {"qemuAgentCommand": staticmethod(fake)}))
    return fake


Connect = t.Callable[..., t.Any]


@pytest.fixture
def connect(agent: LocalAgent) -> t.Iterator[Connect]:
    """A connected plugin for the test driver's running domain "test" (or as the variables say)."""
    made: list[t.Any] = []

    def make(**variables: t.Any) -> t.Any:
        conn = connection_loader.get("devinfra.providers.libvirt_qemu", PlayContext())
        assert conn is not None
        conn.set_options(var_options={"inventory_hostname": "test", "ansible_libvirt_uri": TEST_URI, **variables})
        made.append(conn)
        conn._connect()
        return conn

    yield make
    for conn in made:
        conn.close()


def home_expected() -> str:
    root_home = os.stat("/root") if os.path.isdir("/root") else None
    if os.geteuid() == 0 and root_home is not None and root_home.st_uid == 0:
        return "/root"
    return pwd.getpwuid(os.getuid()).pw_dir


# --- commands -------------------------------------------------------------------------


def test_a_command_line_runs_in_a_shell_with_its_output_and_exit_code(connect: Connect, agent: LocalAgent) -> None:
    conn = connect()
    rc, out, err = conn.exec_command('echo "it\'s $((6 * 7))"; echo oops >&2; exit 3')
    assert (rc, out, err) == (3, b"it's 42\n", b"oops\n")
    exec_args = agent.executed("guest-exec")[-1]
    # The command line is one argument of a shell script the plugin built, never spliced into it.
    assert exec_args["path"] == "/bin/sh"
    assert exec_args["arg"][:2] == ["-c", agent_module._SHELL]
    assert exec_args["arg"][2:] == ["sh", 'echo "it\'s $((6 * 7))"; echo oops >&2; exit 3']


def test_a_command_that_succeeds(connect: Connect) -> None:
    assert connect().exec_command("printf 'a\\0b'") == (0, b"a\0b", b"")


def test_a_command_a_signal_ends_has_the_negative_signal_number(connect: Connect) -> None:
    rc, _out, _err = connect().exec_command("kill -TERM $$")
    assert rc == -15


def test_home_is_set_when_the_agent_has_none(connect: Connect, agent: LocalAgent) -> None:
    assert "HOME" not in agent.env
    assert connect().exec_command("echo ~; echo $HOME")[1] == f"{home_expected()}\n{home_expected()}\n".encode()


def test_home_of_the_agent_is_kept(connect: Connect, agent: LocalAgent) -> None:
    agent.env["HOME"] = "/var/lib/agent-home"
    assert connect().exec_command("echo ~")[1] == b"/var/lib/agent-home\n"


def test_the_shell_line_semantics_are_those_of_sh_c(connect: Connect) -> None:
    conn = connect()
    # No positional parameters of the wrapper leak into the command; $0 is a shell.
    assert conn.exec_command('echo "$#:${1-unset}"')[1] == b"0:unset\n"
    assert conn.exec_command("cat")[1] == b""  # stdin is empty, not the terminal of anyone


def test_small_pipelined_input_goes_with_the_command(connect: Connect, agent: LocalAgent) -> None:
    data = b"print('hello')\n" * 100
    rc, out, _err = connect().exec_command("wc -c", in_data=data)
    assert (rc, out.strip()) == (0, str(len(data)).encode())
    assert base64.b64decode(agent.executed("guest-exec")[-1]["input-data"]) == data
    assert agent.executed("guest-file-write") == []


def test_large_pipelined_input_goes_through_a_private_file(connect: Connect, agent: LocalAgent) -> None:
    chunk = BOUNDS["file_chunk_size"][2]
    data = os.urandom(3 * chunk + 123)
    conn = connect()
    rc, out, err = conn.exec_command("sha256sum; ls -l /proc/self/fd/0", in_data=data)
    assert rc == 0, err
    assert out.split()[0] == hashlib.sha256(data).hexdigest().encode()
    assert b"(deleted)" in out  # the shell removed the file before the command ran
    made, command = agent.executed("guest-exec")[-2:]
    assert made == {"path": "/bin/sh", "arg": ["-c", "umask 077 && exec mktemp"], "capture-output": True}
    assert "input-data" not in command
    path = command["arg"][4]
    assert not os.path.exists(path)
    opened = agent.executed("guest-file-open")[-1]
    assert opened == {"path": path, "mode": "r+b"}  # the file mktemp made (0600), never a new one
    writes = agent.executed("guest-file-write")
    assert [len(base64.b64decode(w["buf-b64"])) for w in writes] == [chunk, chunk, chunk, 123]


def test_the_private_file_is_0600_while_it_is_written(connect: Connect, agent: LocalAgent) -> None:
    modes: list[int] = []
    real_write = agent.guest_file_write

    def write(handle: int, **options: str) -> dict[str, t.Any]:
        modes.append(stat.S_IMODE(os.fstat(agent.files[handle].fileno()).st_mode))
        return real_write(handle, **options)

    agent.answer["guest-file-write"] = lambda arguments: write(**arguments)
    connect().exec_command("cat >/dev/null", in_data=b"x" * (BOUNDS["file_chunk_size"][2] + 1))
    assert modes and set(modes) == {0o600}


def test_every_command_to_the_agent_stays_small(connect: Connect, agent: LocalAgent, tmp_path: pathlib.Path) -> None:
    source = tmp_path / "big"
    source.write_bytes(os.urandom(1_000_000))
    conn = connect(ansible_libvirt_file_chunk_size=16384)
    conn.put_file(str(source), str(tmp_path / "copy"))
    conn.exec_command("cat >/dev/null", in_data=os.urandom(500_000))
    assert (tmp_path / "copy").read_bytes() == source.read_bytes()
    assert agent.largest_command < b64_length(16384) + 200


def test_the_polls_wait_a_tenth_of_the_time_run_so_far() -> None:
    replies = iter([{"pid": 7}] + [{"exited": False}] * 60 + [{"exited": True, "exitcode": 0}])
    sleeps: list[float] = []
    now = [0.0]

    def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        now[0] += seconds

    guest = GuestAgent(lambda _c, _t: json.dumps({"return": next(replies)}), where="domain 'x'", agent_timeout=5, clock=lambda: now[0], sleep=sleep)
    assert guest.run(["/bin/true"], stdin=None, deadline=100.0, timeout=100, max_output=1024).rc == 0
    # Never shorter than 5 ms (each poll costs the guest a reply), a tenth of the time run so
    # far from 50 ms on, and never longer than half a second.
    assert sleeps[:10] == [0.005] * 10
    elapsed = 0.0
    for seconds in sleeps:
        assert seconds == pytest.approx(min(max(elapsed / 10, 0.005), 0.5))
        elapsed += seconds
    assert sleeps[-1] == 0.5


def test_a_command_over_its_time_is_killed_with_what_it_started(connect: Connect, agent: LocalAgent, tmp_path: pathlib.Path) -> None:
    conn = connect(ansible_libvirt_command_timeout=1)
    started = time.monotonic()
    with pytest.raises(AnsibleError, match=r"did not finish within command_timeout \(1 s\); it was killed") as caught:
        conn.exec_command(f"sleep 60 & echo $! > {tmp_path}/child; sleep 60 & echo $! > {tmp_path}/other; wait")
    assert not isinstance(caught.value, AnsibleConnectionFailure)
    assert time.monotonic() - started < 20
    killer = agent.executed("guest-exec")[-1]
    command_pid = agent.executed("guest-exec-status")[0]["pid"]
    assert killer["arg"] == ["-c", agent_module._KILL_TREE, "sh", str(command_pid)]  # the pid is an argument
    # The agent was asked for both statuses, so it forgets them; every process of the command
    # is gone, its children too.
    assert agent.procs == {}
    for name in ("child", "other"):
        pid = int((tmp_path / name).read_text())
        for _attempt in range(50):
            state = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] if os.path.exists(f"/proc/{pid}") else "gone"
            if state in ("gone", "Z", "X"):
                break
            time.sleep(0.1)
        assert state in ("gone", "Z", "X"), f"{name} ({pid}) is still there: {state}"


def test_a_command_that_never_exits_times_out_on_the_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    now = [0.0]
    calls: list[str] = []

    def send(command: str, _timeout: int) -> str:
        request = json.loads(command)
        calls.append(request["execute"])
        if request["execute"] == "guest-exec":
            return json.dumps({"return": {"pid": 41 if len(calls) == 1 else 42}})
        return json.dumps({"return": {"exited": request["arguments"]["pid"] == 42, "exitcode": 0}})

    def sleep(seconds: float) -> None:
        now[0] += seconds

    guest = GuestAgent(send, where="domain 'x'", agent_timeout=5, clock=lambda: now[0], sleep=sleep)
    with pytest.raises(AgentTimeoutError, match="command_timeout"):
        guest.run(["/bin/sleep", "100"], stdin=None, deadline=3.0, timeout=3, max_output=1024)
    assert 3.0 <= now[0] < 3.0 + agent_module.KILL_POLLS * 0.1 + 0.6
    assert calls.count("guest-exec") == 2  # the command, then the kill


# --- output bounds --------------------------------------------------------------------


def test_output_over_max_output_size_fails(connect: Connect) -> None:
    conn = connect(ansible_libvirt_max_output_size=65536)
    assert conn.exec_command("head -c 40000 /dev/zero; head -c 25536 /dev/zero >&2")[0] == 0
    with pytest.raises(AnsibleError, match=r"\(40000 bytes of stdout and 25537 of stderr\) is larger than max_output_size \(65536 bytes\)"):
        conn.exec_command("head -c 40000 /dev/zero; head -c 25537 /dev/zero >&2")
    # base64's padding does not let a byte or two more through
    assert conn.exec_command("head -c 40001 /dev/zero; head -c 25535 /dev/zero >&2")[0] == 0
    with pytest.raises(AnsibleError, match=r"\(40001 bytes of stdout and 25536 of stderr\) is larger than max_output_size"):
        conn.exec_command("head -c 40001 /dev/zero; head -c 25536 /dev/zero >&2")
    with pytest.raises(AnsibleError, match=r"\(65537 bytes of stdout and 0 of stderr\) is larger than max_output_size"):
        conn.exec_command("head -c 65537 /dev/zero")


def test_output_the_agent_cut_fails(connect: Connect, agent: LocalAgent) -> None:
    agent.answer["guest-exec-status"] = lambda _a: {"exited": True, "exitcode": 0, "out-data": "", "out-truncated": True}
    with pytest.raises(AnsibleError, match=r"larger than the guest agent keeps \(it cut stdout\)"):
        connect().exec_command("true")


def test_output_libvirt_cannot_carry_fails_clearly(connect: Connect, agent: LocalAgent) -> None:
    agent.fail["guest-exec-status"] = lv_error(39, "Unable to encode message payload")
    with pytest.raises(AnsibleError, match=r"larger than libvirt carries in one guest agent reply") as caught:
        connect().exec_command("true")
    assert not isinstance(caught.value, AnsibleConnectionFailure)


# --- files ----------------------------------------------------------------------------


def test_put_file_in_chunks(connect: Connect, agent: LocalAgent, tmp_path: pathlib.Path) -> None:
    source = tmp_path / "source"
    source.write_bytes(os.urandom(200_000))
    target = tmp_path / "target"
    target.write_bytes(b"old content that is longer than nothing")
    connect(ansible_libvirt_file_chunk_size=65536).put_file(str(source), str(target))
    assert target.read_bytes() == source.read_bytes()
    assert [len(base64.b64decode(w["buf-b64"])) for w in agent.executed("guest-file-write")] == [65536, 65536, 65536, 3392]
    assert agent.executed("guest-file-open") == [{"path": str(target), "mode": "wb"}]
    assert agent.files == {}  # closed


def test_put_file_of_an_empty_file(connect: Connect, tmp_path: pathlib.Path) -> None:
    (tmp_path / "empty").write_bytes(b"")
    connect().put_file(str(tmp_path / "empty"), str(tmp_path / "copy"))
    assert (tmp_path / "copy").read_bytes() == b""


def test_put_file_of_a_missing_file(connect: Connect, agent: LocalAgent, tmp_path: pathlib.Path) -> None:
    with pytest.raises(AnsibleFileNotFound, match="the file to copy does not exist"):
        connect().put_file(str(tmp_path / "missing"), str(tmp_path / "copy"))
    assert agent.executed("guest-file-open") == []


def test_put_file_into_a_directory_that_does_not_exist(connect: Connect, agent: LocalAgent, tmp_path: pathlib.Path) -> None:
    (tmp_path / "source").write_bytes(b"x")
    with pytest.raises(AnsibleError, match=r"refused guest-file-open: failed to open file .*No such file or directory"):
        connect().put_file(str(tmp_path / "source"), str(tmp_path / "no" / "such" / "dir"))


def test_a_short_write_is_continued_and_a_failed_one_closes_the_file(connect: Connect, agent: LocalAgent, tmp_path: pathlib.Path) -> None:
    source = tmp_path / "source"
    source.write_bytes(b"0123456789")
    writes: list[bytes] = []

    def short(arguments: dict[str, t.Any]) -> dict[str, t.Any]:
        data = base64.b64decode(arguments["buf-b64"])[:4]
        writes.append(data)
        agent.files[arguments["handle"]].write(data)
        return {"count": len(data), "eof": False}

    agent.answer["guest-file-write"] = short
    conn = connect()
    conn.put_file(str(source), str(tmp_path / "copy"))
    assert writes == [b"0123", b"4567", b"89"]
    assert (tmp_path / "copy").read_bytes() == b"0123456789"
    agent.answer["guest-file-write"] = lambda _a: {"count": 0, "eof": False}
    with pytest.raises(AnsibleError, match="wrote 0 of 10 bytes"):
        conn.put_file(str(source), str(tmp_path / "copy2"))
    assert agent.files == {}
    agent.answer["guest-file-write"] = lambda _a: {"count": 11, "eof": False}
    with pytest.raises(AnsibleError, match="wrote 11 of 10 bytes"):
        conn.put_file(str(source), str(tmp_path / "copy3"))


def test_fetch_file_in_chunks(connect: Connect, agent: LocalAgent, tmp_path: pathlib.Path) -> None:
    source = tmp_path / "source"
    source.write_bytes(os.urandom(agent_module.READ_CHUNK * 2 + 5))
    target = tmp_path / "fetched"
    connect().fetch_file(str(source), str(target))
    assert target.read_bytes() == source.read_bytes()
    assert [r["count"] for r in agent.executed("guest-file-read")] == [agent_module.READ_CHUNK] * 3
    assert agent.executed("guest-file-open") == [{"path": str(source), "mode": "rb"}]
    assert agent.files == {}
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~plugin._umask()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".libvirt_qemu-")] == []


def test_fetch_file_over_max_fetch_size_writes_nothing(connect: Connect, agent: LocalAgent, tmp_path: pathlib.Path) -> None:
    source = tmp_path / "source"
    source.write_bytes(b"x" * 1001)
    target = tmp_path / "fetched"
    target.write_bytes(b"the copy of an earlier run")
    conn = connect(ansible_libvirt_max_fetch_size=1000)
    with pytest.raises(AnsibleError, match=r"is larger than max_fetch_size \(1000 bytes\)"):
        conn.fetch_file(str(source), str(target))
    assert target.read_bytes() == b"the copy of an earlier run"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fetched", "source"]
    assert agent.files == {}
    source.write_bytes(b"x" * 1000)
    conn.fetch_file(str(source), str(target))
    assert target.read_bytes() == b"x" * 1000


def test_fetch_of_an_endless_file_stops_at_the_bound(connect: Connect, tmp_path: pathlib.Path) -> None:
    with pytest.raises(AnsibleError, match="larger than max_fetch_size"):
        connect(ansible_libvirt_max_fetch_size=3_000_000).fetch_file("/dev/zero", str(tmp_path / "zero"))
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        ({"count": 5, "buf-b64": base64.b64encode(b"1234").decode(), "eof": True}, "sent 4 bytes of .* and said 5"),
        ({"count": agent_module.READ_CHUNK + 1, "buf-b64": "", "eof": True}, "read 1048577 bytes of .* when asked for 1048576"),
        ({"count": 3, "buf-b64": "not base64!", "eof": True}, "buf-b64 that is not base64"),
        ({"count": 0, "buf-b64": "A" * (b64_length(agent_module.READ_CHUNK) + 4), "eof": True}, "more than 1048576 bytes"),
        ({"count": 0, "buf-b64": "", "eof": "yes"}, "eof of type str"),
        ({"count": True, "buf-b64": "", "eof": True}, "count that is not a number"),
        (["not", "an", "object"], "with a list, not an object"),
    ],
)
def test_hostile_reads_are_refused(connect: Connect, agent: LocalAgent, tmp_path: pathlib.Path, reply: t.Any, message: str) -> None:
    (tmp_path / "source").write_bytes(b"data")
    agent.answer["guest-file-read"] = lambda _a: reply
    with pytest.raises(AnsibleError, match=message):
        connect().fetch_file(str(tmp_path / "source"), str(tmp_path / "fetched"))
    assert not (tmp_path / "fetched").exists()
    assert agent.files == {}


@pytest.mark.parametrize(
    ("execute", "reply", "message"),
    [
        ("guest-exec", {"pid": "12"}, "pid of type str"),
        ("guest-exec", {}, "answered guest-exec without pid"),
        ("guest-exec-status", {"exited": True}, "neither exitcode nor signal"),
        ("guest-exec-status", {"exited": 1}, "exited that is not a number|exited of type int"),
        ("guest-exec-status", {"exited": True, "exitcode": 0, "out-data": "%%%"}, "out-data that is not base64"),
        ("guest-exec-status", {"exited": True, "exitcode": 0, "err-data": 7}, "err-data of type int"),
    ],
)
def test_hostile_exec_answers_are_refused(connect: Connect, agent: LocalAgent, execute: str, reply: t.Any, message: str) -> None:
    agent.answer[execute] = lambda _a: reply
    with pytest.raises(AnsibleError, match=message):
        connect().exec_command("true")


def test_an_answer_that_is_not_json(connect: Connect, agent: LocalAgent, monkeypatch: pytest.MonkeyPatch) -> None:
    conn = connect()
    monkeypatch.setattr(plugin, "libvirt_qemu", type("Broken", (), {"qemuAgentCommand": staticmethod(lambda *_a: "{not json")}))
    conn.close()
    with pytest.raises(AnsibleError, match="answered guest-info with something that is not JSON"):
        conn._connect()


def test_guest_text_in_messages_is_escaped(connect: Connect, agent: LocalAgent, tmp_path: pathlib.Path) -> None:
    agent.fail["guest-file-open"] = lv_error(1, "internal error: unable to execute QEMU agent command 'guest-file-open': \x1b[2J\nfake: ok")
    with pytest.raises(AnsibleError) as caught:
        connect().fetch_file("/etc/hostname", str(tmp_path / "x"))
    assert "\x1b" not in str(caught.value) and "\n" not in str(caught.value)
    assert "\\u001b[2J\\u000afake: ok" in str(caught.value)


# --- connecting and the agent's state -------------------------------------------------


def test_connect_checks_the_agent_commands(connect: Connect, agent: LocalAgent) -> None:
    agent.enabled -= {"guest-exec", "guest-file-write"}
    with pytest.raises(
        AnsibleConnectionFailure, match=r"of domain 'test' on test:///default \(version 7.2.22\) does not allow guest-exec, guest-file-write"
    ) as c:
        connect()
    assert "BLACKLIST_RPC" in str(c.value)


@pytest.mark.parametrize(
    ("code", "message", "expected"),
    [
        (86, "Guest agent is not responding: QEMU guest agent is not connected", "the QEMU guest agent of domain 'test' on test:///default is not responding"),
        (86, "Guest agent is not responding: Guest agent not available for now", "is not responding"),
        (74, "argument unsupported: QEMU guest agent is not configured", "domain 'test' on test:///default has no QEMU guest agent channel"),
        (55, "Requested operation is not valid: domain is not running", "cannot run guest agent commands .*domain is not running.*start the domain first"),
    ],
)
def test_an_agent_that_cannot_answer_makes_the_host_unreachable(connect: Connect, agent: LocalAgent, code: int, message: str, expected: str) -> None:
    agent.fail["guest-info"] = lv_error(code, message)
    with pytest.raises(AnsibleConnectionFailure, match=expected) as caught:
        connect()
    if code != 55:
        assert "install qemu-guest-agent in the guest and start it" in str(caught.value)
        assert "org.qemu.guest_agent.0" in str(caught.value)
        assert "wait_for_connection" in str(caught.value)


def test_an_agent_that_goes_away_during_a_task(connect: Connect, agent: LocalAgent, tmp_path: pathlib.Path) -> None:
    conn = connect()
    agent.fail["guest-exec"] = lv_error(86, "Guest agent is not responding: Guest agent not available for now")
    with pytest.raises(AnsibleConnectionFailure, match="is not responding"):
        conn.exec_command("true")
    (tmp_path / "f").write_bytes(b"x")
    agent.fail["guest-file-open"] = lv_error(86, "Guest agent is not responding: Guest agent not available for now")
    with pytest.raises(AnsibleConnectionFailure, match="is not responding"):
        conn.put_file(str(tmp_path / "f"), str(tmp_path / "g"))
    agent.fail["guest-file-open"] = lv_error(86, "Guest agent is not responding: Guest agent not available for now")
    with pytest.raises(AnsibleConnectionFailure, match="is not responding"):
        conn.fetch_file(str(tmp_path / "f"), str(tmp_path / "h"))
    assert not (tmp_path / "h").exists()


def test_other_libvirt_errors_fail_the_task(connect: Connect, agent: LocalAgent) -> None:
    conn = connect()
    agent.fail["guest-exec"] = lv_error(1, "internal error: something else")
    with pytest.raises(AnsibleError, match="guest-exec on domain 'test' on test:///default failed: internal error: something else") as caught:
        conn.exec_command("true")
    assert not isinstance(caught.value, AnsibleConnectionFailure)


def test_the_agent_timeout_goes_to_libvirt(connect: Connect, agent: LocalAgent) -> None:
    connect(ansible_libvirt_agent_timeout=7).exec_command("true")
    assert {timeout for _e, _a, timeout, _s in agent.calls} == {7}


def test_the_domain_by_uuid_and_by_the_domain_variable(connect: Connect, agent: LocalAgent) -> None:
    assert connect(inventory_hostname=TEST_UUID).exec_command("true")[0] == 0
    assert connect(inventory_hostname="some-host", ansible_host="192.0.2.7", ansible_libvirt_domain="test").exec_command("true")[0] == 0
    assert connect(inventory_hostname="some-host", ansible_host="test").exec_command("true")[0] == 0


# --- which domain: a value of UUID shape ------------------------------------


@pytest.fixture
def define() -> t.Iterator[t.Callable[..., str]]:
    """Define a domain on test:///default (shared by every connection of the process); its UUID.
    Removed after the test."""
    conn = libvirt.open(TEST_URI)
    made: list[t.Any] = []

    def make(name: str, uuid: str | None = None) -> str:
        own = f"<uuid>{uuid}</uuid>" if uuid else ""
        made.append(conn.defineXML(f"<domain type='test'><name>{name}</name>{own}<memory>65536</memory><os><type>hvm</type></os></domain>"))
        return str(made[-1].UUIDString())

    yield make
    for domain in made:
        domain.undefine()
    conn.close()


@pytest.mark.parametrize("variable", ["inventory_hostname", "ansible_libvirt_domain"])
@pytest.mark.parametrize("form", [TEST_UUID, TEST_UUID.upper(), TEST_UUID.replace("-", "")])
def test_a_domain_named_like_another_s_uuid_gets_no_connection(
    connect: Connect, agent: LocalAgent, define: t.Callable[..., str], variable: str, form: str
) -> None:
    """A domain named like the UUID of "test": the value is ambiguous, refused naming both
    domains, and no agent command reaches either (the name used to be looked up first)."""
    squatter = define(form)
    with pytest.raises(AnsibleConnectionFailure) as caught:
        connect(**{variable: form})
    message = str(caught.value)
    assert f"domain '{form}' on test:///default is ambiguous: it is the UUID of domain 'test' and the name of another domain" in message
    assert f"whose UUID is {squatter}; set libvirt_domain (ansible_libvirt_domain) to the other identifier of the domain you mean: 'test' (" in message
    assert f"or {squatter} (the UUID of the domain with that name)" in message
    assert agent.calls == []
    # The identifiers the message offers reach one domain each.
    connect(ansible_libvirt_domain="test").exec_command("true")
    connect(ansible_libvirt_domain=squatter).exec_command("true")
    assert agent.domains == {TEST_UUID, squatter}


def test_a_value_of_uuid_shape_is_a_uuid_first(connect: Connect, agent: LocalAgent, define: t.Callable[..., str]) -> None:
    """With no domain named so, a UUID-shaped value is the UUID (in any of its forms)."""
    for form in (TEST_UUID, TEST_UUID.upper(), TEST_UUID.replace("-", "")):
        connect(inventory_hostname=form).exec_command("true")
    assert agent.domains == {TEST_UUID}


def test_a_name_of_uuid_shape_no_domain_has_as_uuid_is_the_name(connect: Connect, agent: LocalAgent, define: t.Callable[..., str]) -> None:
    name = "0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9"
    own = define(name)
    assert own != name
    connect(inventory_hostname=name).exec_command("true")
    assert agent.domains == {own}


def test_a_domain_named_by_its_own_uuid_is_not_ambiguous(connect: Connect, agent: LocalAgent, define: t.Callable[..., str]) -> None:
    uuid = "3c2d1e0f-9a8b-4c7d-8e6f-5a4b3c2d1e0f"
    assert define(uuid, uuid=uuid) == uuid
    connect(inventory_hostname=uuid).exec_command("true")
    assert agent.domains == {uuid}


@pytest.mark.parametrize(
    ("value", "canonical"),
    [
        (TEST_UUID, TEST_UUID),
        (TEST_UUID.upper(), TEST_UUID),
        (TEST_UUID.replace("-", ""), TEST_UUID),
        (TEST_UUID + "\n", None),
        (" " + TEST_UUID, None),
        ("{" + TEST_UUID + "}", None),
        (TEST_UUID[:-1], None),
        (TEST_UUID[:-1] + "g", None),
        ("test", None),
    ],
)
def test_uuid_shape(value: str, canonical: str | None) -> None:
    assert domain_lookup.uuid_shape(value) == canonical


def test_an_unknown_domain(connect: Connect) -> None:
    with pytest.raises(AnsibleConnectionFailure, match=r"there is no domain 'nope' on test:///default"):
        connect(inventory_hostname="nope")


def test_an_unreachable_uri_has_its_password_masked(connect: Connect) -> None:
    secret = "DVTSECRET-libvirt-qemu-uri"
    with pytest.raises(AnsibleConnectionFailure) as caught:
        connect(ansible_libvirt_uri=f"qemu+tcp://jane:{secret}@127.0.0.1:1/system")
    assert secret not in str(caught.value)
    assert "cannot open qemu+tcp://jane:********@127.0.0.1:1/system" in str(caught.value)


def test_the_uri_from_the_environment(connect: Connect, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LIBVIRT_DEFAULT_URI", TEST_URI)
    conn = connection_loader.get("devinfra.providers.libvirt_qemu", PlayContext())
    conn.set_options(var_options={"inventory_hostname": "test"})
    conn._connect()
    assert conn._where == "domain 'test' on test:///default"
    conn.close()
    monkeypatch.setenv("LIBVIRT_DEFAULT_URI", "")
    opened: list[str] = []

    def refuse(uri: str) -> t.NoReturn:
        opened.append(uri)
        raise lv_error(38, "Failed to connect socket")

    monkeypatch.setattr(libvirt, "open", refuse)
    conn.set_options(var_options={"inventory_hostname": "test"})
    with pytest.raises(AnsibleConnectionFailure, match="cannot open qemu:///system: Failed to connect socket"):
        conn._connect()
    assert opened == ["qemu:///system"]  # an empty variable counts as unset


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("ansible_libvirt_uri", " ", r"libvirt_uri: must not be empty \(leave it unset for the default qemu:///system\)"),
        ("ansible_libvirt_file_chunk_size", 131073, r"file_chunk_size: 131073 is out of range \(4096 to 131072\)"),
        ("ansible_libvirt_file_chunk_size", 100, r"file_chunk_size: 100 is out of range"),
        ("ansible_libvirt_command_timeout", 0, r"command_timeout: 0 is out of range \(1 to 604800\)"),
        ("ansible_libvirt_agent_timeout", 3601, r"agent_timeout: 3601 is out of range \(1 to 3600\)"),
        ("ansible_libvirt_max_output_size", 1024, r"max_output_size: 1024 is out of range \(65536 to 16777216\)"),
        ("ansible_libvirt_max_fetch_size", 0, r"max_fetch_size: 0 is out of range"),
    ],
)
def test_numbers_out_of_range_fail_before_anything_is_opened(connect: Connect, agent: LocalAgent, variable: str, value: int, message: str) -> None:
    with pytest.raises(AnsibleError, match=message) as caught:
        connect(**{variable: value})
    assert not isinstance(caught.value, AnsibleConnectionFailure)
    assert agent.calls == []


def test_close_and_reset_reconnect(connect: Connect, agent: LocalAgent) -> None:
    conn = connect()
    conn.reset()
    assert not conn.connected
    assert conn.exec_command("true")[0] == 0  # connects again
    assert [c[0] for c in agent.calls].count("guest-info") == 2


# --- documentation --------------------------------------------------------------------


def _documentation() -> dict[str, t.Any]:
    source = pathlib.Path(plugin.__file__).read_text()
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "DOCUMENTATION":
            doc: dict[str, t.Any] = yaml.safe_load(ast.literal_eval(node.value))
            return doc
    raise AssertionError("no DOCUMENTATION")


def test_documented_defaults_and_ranges_are_the_code_s() -> None:
    options = _documentation()["options"]
    for name, (low, high, default) in BOUNDS.items():
        assert options[name]["default"] == default, name
        assert f"from {low} to {high}" in " ".join(options[name]["description"]), name
