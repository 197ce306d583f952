# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: libvirt_qemu
short_description: Run tasks in a libvirt QEMU guest through the QEMU guest agent
version_added: 0.5.0
description:
  - Runs Ansible's commands and moves its files in a guest of a libvirt hypervisor through the QEMU guest agent
    (C(qemu-ga)) in the guest, over the libvirt connection to the hypervisor. The guest needs no network, no SSH
    server and no account for Ansible.
  - Any libvirt URI works, local or remote (V(qemu+ssh://root@kvm1.example.com/system),
    V(qemu+tls://kvm2.example.com/system)), since every call goes through that connection and nothing connects to the
    guest.
  - A command runs with the agent's C(guest-exec) as C(/bin/sh -c <command>), since Ansible gives its commands as shell
    command lines, and is polled with C(guest-exec-status), each time after a tenth of the time it has run so far
    (from 5 ms to 0.5 s), so that its end is seen soon after it comes. Its exit code, stdout and stderr are the task's;
    a command that a signal ended has the negative signal number as exit code.
  - Files go in chunks of O(file_chunk_size) bytes with C(guest-file-open), C(guest-file-write) and C(guest-file-close),
    and come back in chunks of 1 MiB with C(guest-file-read).
  - Commands run as the user the agent runs as (C(root) with the distributions' packages); C(ansible_user) is
    ignored. They get the agent's environment; a service has no E(HOME), so E(HOME) is set to C(/root) for root, else
    to the user's home directory from the passwd database (so that C(~) expands as over SSH).
  - "What the guest sends is bounded: a command's stdout and stderr together at most O(max_output_size) bytes, a
    fetched file at most O(max_fetch_size) bytes; more fails the task (a fetched file is then not written). Every
    answer of the agent is checked for the type and size it must have, and text from the guest reaches a message
    with its control characters escaped."
  - With pipelining (O(pipelining)), a module's input up to O(file_chunk_size) bytes travels with the command; a larger
    one is first written to a new file that only the agent's user can read (C(mktemp) under C(umask 077)), which the
    command's shell opens as its stdin and removes before the module starts.
author:
  - devinfra.providers contributors (@devinfra)
requirements:
  - libvirt-python (the C(libvirt) and C(libvirt_qemu) Python modules) on the controller.
  - The domain has a guest agent channel, C(<channel type='unix'><target type='virtio'
    name='org.qemu.guest_agent.0'/></channel>) in its C(<devices>).
  - The guest runs qemu-guest-agent and allows C(guest-exec), C(guest-exec-status), C(guest-file-open),
    C(guest-file-read), C(guest-file-write) and C(guest-file-close) (RHEL-family packages block them by default, see
    C(BLACKLIST_RPC) in C(/etc/sysconfig/qemu-ga)), and has C(/bin/sh).
  - The libvirt connection is read-write (libvirt refuses agent commands on a read-only one).
extends_documentation_fragment:
  - ansible.builtin.connection_pipelining
options:
  remote_addr:
    description:
      - The domain (its name, or its UUID) when O(libvirt_domain) is not set. A value of UUID shape is looked up as
        described there.
    type: str
    default: inventory_hostname
    vars:
      - name: inventory_hostname
      - name: ansible_host
  libvirt_domain:
    description:
      - The domain, by name or UUID. When set, it wins over O(remote_addr), so that C(ansible_host) can hold the
        guest's address for other connections.
      - A value of UUID shape (32 hexadecimal digits, with or without the hyphens of the 8-4-4-4-12 form) is looked up
        as a UUID first, since whoever defines a domain may name it like another domain's UUID. When one domain has
        that UUID and another is named exactly that value, the connection fails naming both; give the name of the
        one or the UUID of the other instead. Only when no domain has that UUID is the value the name of the domain
        called so.
      - The P(devinfra.providers.libvirt#inventory) inventory plugin sets it with its
        O(devinfra.providers.libvirt#inventory:guest_agent_connection) option.
    type: str
    vars:
      - name: ansible_libvirt_domain
  libvirt_uri:
    description:
      - The libvirt URI of the hypervisor that runs the domain, of any transport. See U(https://libvirt.org/uri.html).
      - When not set by any source, or set to an empty string by E(LIBVIRT_DEFAULT_URI), V(qemu:///system) is used, as
        by the collection's lookups.
      - It is opened from the controller; libvirt takes credentials from SSH keys, TLS certificates or its
        C(auth.conf), not from the URI.
    type: str
    env:
      - name: LIBVIRT_DEFAULT_URI
    vars:
      - name: ansible_libvirt_uri
  command_timeout:
    description:
      - How many seconds one command, or one file transfer, may take, from 1 to 604800.
      - A command still running then is killed, with the processes it started (best effort, from C(/proc)), and the
        task fails.
    type: int
    default: 3600
    vars:
      - name: ansible_libvirt_command_timeout
  agent_timeout:
    description:
      - How many seconds libvirt waits for the agent's answer to one agent command (the libvirt C(timeout) of
        C(virDomainQemuAgentCommand)), from 1 to 3600. An agent that does not answer in time makes the host
        unreachable.
    type: int
    default: 30
    vars:
      - name: ansible_libvirt_agent_timeout
  max_output_size:
    description:
      - How many bytes of stdout and stderr together one command may return, from 65536 to 16777216 (2 MiB by
        default). More fails the task.
      - The agent returns the whole output in one answer, which libvirt's remote protocol carries only up to 4 MiB
        of base64 text. In practice a command cannot return more than about 3 MiB whatever this says; such a command
        fails with a message saying so.
    type: int
    default: 2097152
    vars:
      - name: ansible_libvirt_max_output_size
  max_fetch_size:
    description:
      - How many bytes a file fetched from the guest may have, from 1 to 1099511627776 (256 MiB by default). A larger
        file fails the task and nothing of it is written on the controller.
    type: int
    default: 268435456
    vars:
      - name: ansible_libvirt_max_fetch_size
  pipelining:
    description:
      - Whether a module runs with its input sent to the command (see above) rather than written to a file in the
        guest first, which saves the guest a command or two for every module task.
      - "On by default for this connection, unlike the others: what makes pipelining off by default elsewhere, sudo's
        C(requiretty), concerns this connection either way, since its commands never have a terminal."
    default: true
  file_chunk_size:
    description:
      - How many bytes go to the guest in one agent command, from 4096 to 131072 (64 KiB by default). This is the
        size of the chunks of a file put into the guest, and of the largest module input sent with the command
        itself.
      - Larger commands can lose bytes on the way to the agent and leave it unresponsive for a while (seen with QEMU
        7.2 from about 220 KiB of JSON on), hence the upper bound.
    type: int
    default: 65536
    vars:
      - name: ansible_libvirt_file_chunk_size
notes:
  - Ansible makes a new connection for every task; each one opens the libvirt URI, finds the domain and asks the agent
    (C(guest-info)) whether it allows the commands above.
  - An agent that is not connected (not installed, not started, or the guest still booting), a domain without the
    channel and a domain that is not running make the host unreachable, with a message that names the domain and
    says what to install or add. M(ansible.builtin.wait_for_connection) waits for a booting guest's agent.
  - Privilege escalation works where it asks for no password (the agent usually runs as root); nothing answers a
    password prompt, commands have no terminal.
  - The agent creates the files it writes with mode 0666 (QEMU 7.2); Ansible writes them into its own temporary
    directory, which only the agent's user can enter. A file written elsewhere with this connection's C(put_file)
    should get its mode set afterwards.
  - Guests with Windows, or SELinux policies that confine the agent, are not covered.
seealso:
  - plugin: devinfra.providers.libvirt
    plugin_type: inventory
  - name: QEMU guest agent protocol
    description: The commands the plugin uses, and what they return.
    link: https://www.qemu.org/docs/master/interop/qemu-ga-ref.html
"""

EXAMPLES = r"""
---
# inventory.yml: two guests of a remote hypervisor, reached through their guest agents
all:
  children:
    build_vms:
      hosts:
        builder1:
        builder2:
          ansible_libvirt_domain: builder-2  # the domain's name when it is not the host's name
      vars:
        ansible_connection: devinfra.providers.libvirt_qemu
        ansible_libvirt_uri: qemu+ssh://root@kvm1.example.com/system
        ansible_libvirt_command_timeout: 1800

---
# The playbook: wait for the agent of a guest that is still booting, then use it as any host
- name: Configure the build VMs without a network path to them
  hosts: build_vms
  gather_facts: false
  tasks:
    - name: Wait until the guest agent answers
      ansible.builtin.wait_for_connection:
        timeout: 300

    - name: Gather facts
      ansible.builtin.setup:

    - name: Copy the build configuration in
      ansible.builtin.copy:
        src: build.conf
        dest: /etc/build.conf
        mode: "0644"

    - name: Bring the build log back
      ansible.builtin.fetch:
        src: /var/log/build.log
        dest: logs/

---
# libvirt.libvirt.yml: the libvirt inventory plugin sets the connection for every domain
plugin: devinfra.providers.libvirt
uris: [qemu:///system]
states: [running]
guest_agent_connection: true
"""

import contextlib
import os
import tempfile
import typing as t
from urllib.parse import urlsplit

from ansible.errors import AnsibleConnectionFailure, AnsibleError, AnsibleFileNotFound
from ansible.plugins.connection import ConnectionBase
from ansible.utils.display import Display

from ansible_collections.devinfra.providers.plugins.module_utils._common.text import printable
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.connection import HAS_LIBVIRT, LIBVIRT_IMPORT_ERROR, libvirt, resolve_uri
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.domain_lookup import AmbiguousDomainError, DomainNotFoundError, find_domain
from ansible_collections.devinfra.providers.plugins.plugin_utils._guest_agent import (
    AgentUnavailableError,
    GuestAgent,
    GuestAgentError,
    check_bound,
)

try:
    import libvirt_qemu  # type: ignore[import-untyped,import-not-found,unused-ignore]
except ImportError:
    libvirt_qemu = None

display = Display()

MASK = "********"
_NUMBERS = ("command_timeout", "agent_timeout", "max_output_size", "max_fetch_size", "file_chunk_size")


def shown_uri(uri: str) -> str:
    """``uri`` with the password of its user part (if any) masked, for messages."""
    try:
        parts = urlsplit(uri)
        password = parts.password
    except ValueError:
        return printable(uri)
    if not password:
        return printable(uri)
    userinfo, _at, hostport = parts.netloc.rpartition("@")
    return printable(parts._replace(netloc=f"{userinfo.partition(':')[0]}:{MASK}@{hostport}").geturl())


class Connection(ConnectionBase):
    """Commands and files through the QEMU guest agent of one libvirt domain."""

    transport = "devinfra.providers.libvirt_qemu"
    has_pipelining = True
    has_tty = False
    _connected: bool

    def __init__(self, *args: t.Any, **kwargs: t.Any) -> None:
        super().__init__(*args, **kwargs)
        self._conn: t.Any = None
        self._agent: GuestAgent | None = None
        self._numbers: dict[str, int] = {}
        self._where = ""

    # --- connecting --------------------------------------------------------------------

    def _connect(self) -> Connection:
        if self._connected:
            return self
        if not HAS_LIBVIRT or libvirt_qemu is None:
            raise AnsibleError(f"{self.transport}: the libvirt Python binding (libvirt-python) is required on the controller: {LIBVIRT_IMPORT_ERROR}")
        try:
            self._numbers = {name: check_bound(name, self.get_option(name)) for name in _NUMBERS}
        except ValueError as exc:
            raise AnsibleError(f"{self.transport}: {exc}") from None
        uri, origin = self.get_option_and_origin("libvirt_uri")
        if origin.startswith("env") and not uri:
            uri = None  # an empty LIBVIRT_DEFAULT_URI counts as unset, as for the lookups
        if uri is not None and not str(uri).strip():
            raise AnsibleError(f"{self.transport}: libvirt_uri: must not be empty (leave it unset for the default qemu:///system)")
        uri = resolve_uri(uri)
        name = self.get_option("libvirt_domain") or self.get_option("remote_addr")
        if not isinstance(name, str) or not name:
            raise AnsibleError(f"{self.transport}: no domain to connect to: set libvirt_domain (ansible_libvirt_domain) or ansible_host")
        self._where = f"domain '{printable(name)}' on {shown_uri(uri)}"
        display.vvv(f"ESTABLISH GUEST AGENT CONNECTION TO {self._where}", host=self._host_label())
        try:
            self._conn = libvirt.open(uri)
        except libvirt.libvirtError as exc:
            raise AnsibleConnectionFailure(f"{self.transport}: cannot open {shown_uri(uri)}: {self._hidden(str(exc), uri)}") from None
        domain = self._lookup(name, uri)
        agent_timeout = self._numbers["agent_timeout"]

        def send(command: str, timeout: int) -> str:
            return str(libvirt_qemu.qemuAgentCommand(domain, command, timeout, 0))

        self._agent = GuestAgent(send, where=self._where, agent_timeout=agent_timeout)
        try:
            version = self._agent.check_commands()
        except GuestAgentError as exc:
            self.close()
            raise AnsibleConnectionFailure(f"{self.transport}: {exc}") from None
        display.vvv(f"GUEST AGENT {printable(version, 40)} OF {self._where} ANSWERS", host=self._host_label())
        self._connected = True
        return self

    def _lookup(self, name: str, uri: str) -> t.Any:
        """The domain ``name`` names: a value of UUID shape is a UUID first, and refused when
        another domain is named so (see find_domain)."""
        try:
            return find_domain(self._conn, name)
        except AmbiguousDomainError as exc:
            self.close()
            by_uuid_name, by_name_uuid = exc.uuid_of[0], exc.named[1]
            raise AnsibleConnectionFailure(
                f"{self.transport}: {self._where} {exc}; set libvirt_domain (ansible_libvirt_domain) to the other identifier "
                f"of the domain you mean: '{printable(by_uuid_name)}' (the name of the domain with that UUID) or {by_name_uuid} "
                "(the UUID of the domain with that name)"
            ) from None
        except DomainNotFoundError as exc:
            self.close()
            raise AnsibleConnectionFailure(f"{self.transport}: there is no {self._where} ({exc})") from None
        except libvirt.libvirtError as exc:
            self.close()
            raise AnsibleConnectionFailure(f"{self.transport}: cannot look {self._where} up: {self._hidden(str(exc), uri)}") from None

    def _hidden(self, text: str, uri: str) -> str:
        """libvirt's message, with the URI's password (if any) masked."""
        with contextlib.suppress(ValueError):
            password = urlsplit(uri).password
            if password:
                text = text.replace(password, MASK)
        return printable(text, 300)

    def _host_label(self) -> str:
        return str(self.get_option("remote_addr") or "")

    def _running_agent(self) -> GuestAgent:
        if self._agent is None:
            raise AnsibleConnectionFailure(f"{self.transport}: not connected")
        return self._agent

    # --- commands and files ------------------------------------------------------------

    def exec_command(self, cmd: str, in_data: bytes | None = None, sudoable: bool = True) -> tuple[int, bytes, bytes]:
        super().exec_command(cmd, in_data=in_data, sudoable=sudoable)
        display.vvv(f"EXEC {printable(cmd, 2000)}", host=self._host_label())
        try:
            result = self._running_agent().shell(
                cmd,
                stdin=in_data,
                timeout=self._numbers["command_timeout"],
                max_output=self._numbers["max_output_size"],
                chunk=self._numbers["file_chunk_size"],
            )
        except AgentUnavailableError as exc:
            raise AnsibleConnectionFailure(f"{self.transport}: {exc}") from None
        except GuestAgentError as exc:
            raise AnsibleError(f"{self.transport}: {exc}") from None
        display.vvvv(f"EXIT CODE {result.rc}, {len(result.stdout)} bytes of stdout, {len(result.stderr)} of stderr", host=self._host_label())
        return result.rc, result.stdout, result.stderr

    def put_file(self, in_path: str, out_path: str) -> None:
        super().put_file(in_path, out_path)
        display.vvv(f"PUT {printable(in_path)} TO {printable(out_path)}", host=self._host_label())
        if not os.path.isfile(in_path):
            raise AnsibleFileNotFound(f"{self.transport}: the file to copy does not exist: {printable(in_path)}")
        timeout = self._numbers["command_timeout"]
        agent = self._running_agent()
        try:
            with open(in_path, "rb") as source:
                agent.put(source, out_path, chunk=self._numbers["file_chunk_size"], deadline=self._deadline(timeout), timeout=timeout)
        except AgentUnavailableError as exc:
            raise AnsibleConnectionFailure(f"{self.transport}: {exc}") from None
        except GuestAgentError as exc:
            raise AnsibleError(f"{self.transport}: copying {printable(in_path)} to {printable(out_path)}: {exc}") from None
        except OSError as exc:
            raise AnsibleError(f"{self.transport}: cannot read {printable(in_path)}: {exc.strerror}") from None

    def fetch_file(self, in_path: str, out_path: str) -> None:
        super().fetch_file(in_path, out_path)
        display.vvv(f"FETCH {printable(in_path)} TO {printable(out_path)}", host=self._host_label())
        timeout = self._numbers["command_timeout"]
        agent = self._running_agent()
        directory = os.path.dirname(os.path.abspath(out_path))
        # Into a new file beside out_path, renamed over it when the whole file has come: a fetch
        # that fails (too large, agent gone) leaves an earlier copy as it was.
        try:
            handle, partial = tempfile.mkstemp(dir=directory, prefix=".libvirt_qemu-", suffix=".part")
        except OSError as exc:
            raise AnsibleError(f"{self.transport}: cannot write into {printable(directory)}: {exc.strerror}") from None
        try:
            with os.fdopen(handle, "wb") as sink:
                agent.fetch(in_path, sink, max_size=self._numbers["max_fetch_size"], deadline=self._deadline(timeout), timeout=timeout)
            os.chmod(partial, 0o666 & ~_umask())
            os.replace(partial, out_path)
        except BaseException as exc:
            with contextlib.suppress(OSError):
                os.unlink(partial)
            if isinstance(exc, AgentUnavailableError):
                raise AnsibleConnectionFailure(f"{self.transport}: {exc}") from None
            if isinstance(exc, GuestAgentError):
                raise AnsibleError(f"{self.transport}: fetching {printable(in_path)}: {exc}") from None
            if isinstance(exc, OSError):
                raise AnsibleError(f"{self.transport}: cannot write {printable(out_path)}: {exc.strerror}") from None
            raise

    def _deadline(self, timeout: int) -> float:
        return self._running_agent().clock() + timeout

    def close(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(libvirt.libvirtError):
                self._conn.close()
        self._conn = None
        self._agent = None
        self._connected = False

    def reset(self) -> None:
        self.close()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
