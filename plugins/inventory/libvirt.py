# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: libvirt
short_description: The domains of one or more libvirt hypervisors as inventory hosts
version_added: 0.1.0
description:
  - Makes an inventory host of every domain (virtual machine) of the hypervisors in O(uris), with its name, UUID,
    state, size, autostart flag, the workspace metadata in its definition and its interface addresses as host
    variables, and C(ansible_host) set to the address the guest has, so that a play can reach the workspace VMs.
  - "The inventory source is a YAML file whose name ends in C(.libvirt.yml) or C(.libvirt.yaml) and that says
    C(plugin: devinfra.providers.libvirt)."
  - The inventory host name is the domain name. Domains of the same name on two hypervisors are never merged into
    one host; see O(duplicate_names).
  - Each host is in the group C(hypervisor_<name>) of its hypervisor (see O(uris)) and in the group C(state_<state>)
    of its state (V(running), V(paused), V(shutoff)...); O(keyed_groups), O(groups) and O(compose) add more.
  - "Host variables, all read when the inventory is built: C(libvirt_name), C(libvirt_uuid), C(libvirt_id) (the
    runtime ID, null when the domain is not running), C(libvirt_state) (V(nostate), V(running), V(blocked),
    V(paused), V(shutdown) (being shut down), V(shutoff), V(crashed) or V(pmsuspended)), C(libvirt_persistent),
    C(libvirt_autostart), C(libvirt_vcpu) (the maximum number of virtual CPUs), C(libvirt_vcpu_current),
    C(libvirt_memory) and C(libvirt_current_memory) (in KiB, libvirt's unit), C(libvirt_title) and
    C(libvirt_description) (null when not set), C(libvirt_workspace) (the workspace metadata, a dict, empty when
    the domain has none), C(libvirt_interfaces) (each with C(name), C(hwaddr) and C(addrs), a list of C(type),
    C(addr) and C(prefix), as M(devinfra.providers.libvirt_domain_interface_addresses_info) returns them),
    C(libvirt_uri) (the hypervisor's URI, a password in it replaced by C(********)), C(libvirt_hypervisor) (its
    name) and C(libvirt_hypervisor_host) (the host name in its URI, null for a local URI)."
  - C(ansible_host) is the first IPv4 address of the guest that is neither loopback nor link-local, else the first
    such IPv6 address, from the source O(source) names. Addresses are only asked of active domains; a domain
    without an address has no C(ansible_host). O(compose) can set it otherwise.
  - The workspace metadata is the element C(workspace) in the namespace
    C(https://github.com/devinfra/devinfra.providers/xmlns/workspace/1.0) of the domain's C(<metadata>), which the
    C(devinfra.providers.workspace_vm) role writes (the workspace's C(name), C(owner), C(template),
    C(template_version), C(agent) and C(agent_id)); any domain can carry it (set with the
    O(devinfra.providers.libvirt_domain#module:metadata) option). Each child element becomes a key holding the element's text, an
    element with children a dict, a name that repeats a list.
  - Values read from libvirt are never templated (they are not trusted templates), so a domain's description
    cannot run a lookup on the controller.
author:
  - devinfra.providers contributors (@devinfra)
requirements:
  - libvirt-python (the C(libvirt) Python binding) on the controller
extends_documentation_fragment:
  - constructed
  - inventory_cache
options:
  plugin:
    description: The name of this plugin; it marks the file as a source of this plugin.
    required: true
    type: str
    choices: [devinfra.providers.libvirt]
  uris:
    description:
      - The hypervisors, each a libvirt connection URI of any transport (V(qemu:///system),
        V(qemu+ssh://root@kvm1.example.com/system), V(qemu+tls://kvm2.example.com/system), V(test:///default)...),
        or a dict with the keys C(uri) (required) and C(name) (the hypervisor's name).
      - A hypervisor's name makes its group C(hypervisor_<name>) and the suffix of O(duplicate_names=suffix). It
        defaults to the URI without its user, password and query, each run of characters other than letters, digits
        and C(_) made one C(_) (V(qemu:///system) is V(qemu_system), V(qemu+ssh://root@kvm1.example.com/system) is
        V(qemu_ssh_kvm1_example_com_system)). Two hypervisors may not have the same name.
      - When not set, one hypervisor, the URI of E(LIBVIRT_DEFAULT_URI) when it is not empty, else V(qemu:///system)
        (the precedence of the collection's other libvirt plugins).
      - The URIs are opened from the controller. libvirt takes credentials from SSH keys, TLS certificates or its
        C(auth.conf), not from the URI; a password written in a URI anyway is never shown (in host variables, group
        names, messages and the cache it is replaced by C(********)). Keep such a URI in a vault-encrypted string.
    type: list
    elements: raw
  source:
    description:
      - Where the guests' addresses come from, as for M(devinfra.providers.libvirt_domain_interface_addresses_info).
        V(lease) asks the DHCP server of libvirt's networks, V(agent) the QEMU guest agent, V(any) tries V(lease)
        then V(agent) and takes the first non-empty answer.
      - V(lease) opens the hypervisors read-only; V(agent) and V(any) need a read-write connection, because libvirt
        refuses guest agent calls on read-only ones.
    type: str
    choices: [lease, agent, any]
    default: any
  states:
    description:
      - Only the domains in one of these states become hosts, for example V([running]); V(active) stands for every
        state of a running domain, V(inactive) for a domain that is not running. All domains when not set.
      - The same filter as the O(devinfra.providers.libvirt_domain_info#module:state) option of
        M(devinfra.providers.libvirt_domain_info).
    type: list
    elements: str
    choices: [active, inactive, nostate, running, blocked, paused, shutdown, shutoff, crashed, pmsuspended]
  names:
    description:
      - Only the domains with one of these names, or whose name matches one of these shell-style patterns (C(*),
        C(?), C([...])), become hosts, for example V([ws-*]). All domains when not set.
      - The same filter as the O(devinfra.providers.libvirt_domain_info#module:name) option of
        M(devinfra.providers.libvirt_domain_info).
    type: list
    elements: str
  duplicate_names:
    description:
      - What happens when domains on two or more hypervisors have the same name.
      - V(fail) fails the inventory source with a message naming the domain and its hypervisors (and saying so when
        both are the same domain, with the same UUID, that is one hypervisor reached through two URIs).
      - V(suffix) names each of those hosts C(<domain>.<hypervisor name>); the domains whose name is unique keep
        their name. A suffixed name that is the name of another domain fails.
    type: str
    choices: [fail, suffix]
    default: fail
  skip_unreachable:
    description:
      - What happens when a hypervisor cannot be opened or listed.
      - V(false) fails the inventory source with a message naming the URI and libvirt's error. Ansible then, as for
        any inventory source that fails, warns and goes on without its hosts, unless the Ansible setting
        C(inventory_any_unparsed_is_failed) (E(ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED)) makes it an error.
      - V(true) warns, leaves that hypervisor's domains out (its group is still made, empty) and builds the inventory
        of the others. Nothing is written to the cache on such a run, so that the next run asks again.
    type: bool
    default: false
notes:
  - "With O(cache) on, the hosts and variables come from the cache while it is valid; C(ansible-inventory --flush-cache)
    or C(meta: refresh_inventory) read the hypervisors again."
  - The collection's modules run on the managed host and take C(uri) there; this plugin, like the lookups, runs on
    the controller. Reaching a guest on an isolated network of a remote hypervisor needs a jump host, for example
    C(ansible_ssh_common_args) set with O(compose) to C(-o ProxyJump=) and C(libvirt_hypervisor_host).
seealso:
  - module: devinfra.providers.libvirt_domain
  - module: devinfra.providers.libvirt_domain_info
  - module: devinfra.providers.libvirt_domain_interface_addresses_info
  - plugin: devinfra.providers.libvirt_domain_interface_addresses
    plugin_type: lookup
"""

EXAMPLES = r"""
---
# workspaces.libvirt.yml: the running workspaces of two hypervisors, reached through each hypervisor
plugin: devinfra.providers.libvirt
uris:
  - uri: qemu+ssh://root@kvm1.example.com/system
    name: kvm1
  - uri: qemu+ssh://root@kvm2.example.com/system
    name: kvm2
states: [running]
names: ['ws-*']
compose:
  ansible_user: "'coder'"
  ansible_ssh_common_args: "'-o ProxyJump=root@' ~ libvirt_hypervisor_host"
keyed_groups:
  - key: libvirt_workspace.owner | default('')
    prefix: owner
groups:
  autostarted: libvirt_autostart
cache: true
cache_plugin: ansible.builtin.jsonfile
cache_connection: ~/.cache/ansible-inventory
cache_timeout: 300

---
# local.libvirt.yml: every domain of the local hypervisor, addresses from DHCP leases only
# (a read-only connection is enough)
plugin: devinfra.providers.libvirt
uris: [qemu:///system]
source: lease

# Then, for example:
#   ansible-inventory -i workspaces.libvirt.yml --graph
#   ansible -i workspaces.libvirt.yml 'hypervisor_kvm1:&state_running' -m ansible.builtin.ping
"""

import re
import typing as t
from collections import Counter
from urllib.parse import urlsplit

from ansible.errors import AnsibleParserError
from ansible.plugins.inventory import BaseInventoryPlugin, Cacheable, Constructable

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.connection import (
    HAS_LIBVIRT,
    LIBVIRT_IMPORT_ERROR,
    connect,
    resolve_uri,
)
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.domain_summary import domain_summaries
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.errors import LibvirtError
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.text import check_one_line

MASK = "********"
_NOT_NAME_CHARS = re.compile(r"[^A-Za-z0-9_]+")
_HOSTVARS = (
    "name", "uuid", "id", "state", "persistent", "autostart", "vcpu", "vcpu_current", "memory", "current_memory",
    "title", "description", "workspace", "interfaces",
)  # fmt: skip


class Hypervisor(t.NamedTuple):
    uri: str  # as given: may hold a password, never shown
    shown_uri: str  # the password masked
    name: str
    host: str | None


def mask_uri(uri: str) -> str:
    """``uri`` with the password of its user part (if any) replaced by the mask."""
    try:
        parts = urlsplit(uri)
        password = parts.password
    except ValueError:
        return uri
    if not password:
        return uri
    userinfo, _at, hostport = parts.netloc.rpartition("@")
    user = userinfo.partition(":")[0]
    return parts._replace(netloc=f"{user}:{MASK}@{hostport}").geturl()


def default_name(uri: str) -> str:
    """The scheme, host, port and path of ``uri`` as one word (the user, password and query left out)."""
    try:
        parts = urlsplit(uri)
        host, port = parts.hostname or "", parts.port
    except ValueError:
        return _NOT_NAME_CHARS.sub("_", uri).strip("_")
    words = " ".join(str(word) for word in (parts.scheme, host, port or "", parts.path) if word)
    return _NOT_NAME_CHARS.sub("_", words).strip("_")


def _hide(text: str, hypervisor: Hypervisor) -> str:
    """``text`` with the hypervisor's URI, and its password, masked."""
    text = text.replace(hypervisor.uri, hypervisor.shown_uri)
    try:
        password = urlsplit(hypervisor.uri).password
    except ValueError:
        password = None
    return text.replace(password, MASK) if password else text


def parse_uris(value: t.Any) -> list[Hypervisor]:
    """The hypervisors of the ``uris`` option; an error names the item that is wrong."""
    if value is None:
        value = [resolve_uri(None)]
    if not isinstance(value, list) or not value:
        raise AnsibleParserError("uris: must be a non-empty list of URIs or of dicts with uri and name")
    hypervisors: list[Hypervisor] = []
    for index, item in enumerate(value):
        path = f"uris[{index}]"
        name, given = None, item
        if isinstance(item, dict):
            unknown = sorted(set(map(str, item)) - {"uri", "name"})
            if unknown:
                raise AnsibleParserError(f"{path}: unknown key(s) {', '.join(unknown)} (known: uri, name)")
            name, given = item.get("name"), item.get("uri")
            path += ".uri"
        if not isinstance(given, str) or not given.strip():
            raise AnsibleParserError(f"{path}: must be a non-empty libvirt URI")
        uri = str(given)  # a vault-encrypted string decrypts here
        shown = mask_uri(uri)
        try:
            check_one_line(path, uri)
            if name is not None:
                if not isinstance(name, str) or not _NOT_NAME_CHARS.sub("", name):
                    raise AnsibleParserError(f"uris[{index}].name: must be a string with a letter or a digit")
                check_one_line(f"uris[{index}].name", name)
        except LibvirtError as exc:
            raise AnsibleParserError(str(exc)) from None
        hv_name = _NOT_NAME_CHARS.sub("_", str(name)).strip("_") if name is not None else default_name(uri)
        try:
            host = urlsplit(uri).hostname
        except ValueError:
            host = None
        hypervisors.append(Hypervisor(uri, shown, hv_name or "local", host or None))
    for index, hypervisor in enumerate(hypervisors):
        for other, earlier in enumerate(hypervisors[:index]):
            if earlier.uri == hypervisor.uri:
                raise AnsibleParserError(f"uris[{index}]: the same URI as uris[{other}] ({hypervisor.shown_uri})")
            if earlier.name == hypervisor.name:
                raise AnsibleParserError(f"uris[{index}]: the same hypervisor name as uris[{other}] ({hypervisor.name}); give each hypervisor its own name")
    return hypervisors


class InventoryModule(BaseInventoryPlugin, Constructable, Cacheable):
    NAME = "devinfra.providers.libvirt"

    def verify_file(self, path: str) -> bool:
        return bool(super().verify_file(path)) and path.endswith((".libvirt.yml", ".libvirt.yaml"))

    def parse(self, inventory: t.Any, loader: t.Any, path: str, cache: bool = True) -> None:
        super().parse(inventory, loader, path, cache)
        self._read_config_data(path)
        hypervisors = parse_uris(self.get_option("uris"))

        cache_key = self.get_cache_key(path)
        use_cache = bool(self.get_option("cache"))
        results: list[dict[str, t.Any]] | None = None
        if use_cache and cache:
            try:
                results = self._cache[cache_key]
            except KeyError:
                results = None
        if results is None:
            results, complete = self._query(hypervisors)
            if use_cache and complete:
                self._cache[cache_key] = results
        self._populate(results)

    # --- reading the hypervisors -------------------------------------------------------

    def _query(self, hypervisors: list[Hypervisor]) -> tuple[list[dict[str, t.Any]], bool]:
        """One record per hypervisor (JSON-ready: it goes to the cache), and whether every
        hypervisor answered."""
        if not HAS_LIBVIRT:
            raise AnsibleParserError(f"{self.NAME}: the libvirt Python binding (libvirt-python) is required: {LIBVIRT_IMPORT_ERROR}")
        source = self.get_option("source")
        states = self.get_option("states") or None
        names = self.get_option("names") or None
        try:
            for index, name in enumerate(names or ()):
                check_one_line(f"names[{index}]", name)
        except LibvirtError as exc:
            raise AnsibleParserError(str(exc)) from None
        records: list[dict[str, t.Any]] = []
        complete = True
        for hypervisor in hypervisors:
            record: dict[str, t.Any] = {"uri": hypervisor.shown_uri, "name": hypervisor.name, "host": hypervisor.host, "domains": []}
            try:
                with connect(hypervisor.uri, read_only=source == "lease") as conn:
                    record["domains"] = domain_summaries(conn, source=source, names=names, states=states)
            except LibvirtError as exc:
                message = _hide(f"{self.NAME}: hypervisor {hypervisor.name} ({hypervisor.shown_uri}): {exc}", hypervisor)
                if not self.get_option("skip_unreachable"):
                    raise AnsibleParserError(message) from None  # the cause can carry the URI as given
                self.display.warning(f"{message}; its domains are left out (skip_unreachable)")
                complete = False
            records.append(record)
        return records, complete

    # --- building the inventory --------------------------------------------------------

    def _host_names(self, records: list[dict[str, t.Any]]) -> list[list[str]]:
        """The inventory host name of each domain of each record (same shape as the records)."""
        owners: dict[str, list[tuple[str, str, str]]] = {}
        for record in records:
            for domain in record["domains"]:
                owners.setdefault(domain["name"], []).append((record["name"], record["uri"], domain["uuid"]))
        duplicates = {name: where for name, where in owners.items() if len(where) > 1}
        if duplicates and self.get_option("duplicate_names") == "fail":
            name, where = sorted(duplicates.items())[0]
            same = " (the same UUID: one hypervisor reached through two URIs?)" if len({place[2] for place in where}) == 1 else ""
            raise AnsibleParserError(
                f"{self.NAME}: the domain name {name!r} is on more than one hypervisor: "
                + ", ".join(f"{place[0]} ({place[1]})" for place in where)
                + f"{same}; set duplicate_names: suffix to name such hosts <domain>.<hypervisor>, or filter them out with names"
            )
        names = [[f"{d['name']}.{r['name']}" if d["name"] in duplicates else d["name"] for d in r["domains"]] for r in records]
        clashes = sorted(name for name, count in Counter(n for per_record in names for n in per_record).items() if count > 1)
        if clashes:
            raise AnsibleParserError(f"{self.NAME}: the host name {clashes[0]!r} is given to two domains (a suffixed name is another domain's name)")
        return names

    def _populate(self, records: list[dict[str, t.Any]]) -> None:
        strict = self.get_option("strict")
        for record, host_names in zip(records, self._host_names(records)):
            hypervisor_group = self.inventory.add_group(self._sanitize_group_name(f"hypervisor_{record['name']}"))
            for domain, host in zip(record["domains"], host_names):
                self.inventory.add_host(host)
                for key in _HOSTVARS:
                    self.inventory.set_variable(host, f"libvirt_{key}", domain[key])
                self.inventory.set_variable(host, "libvirt_uri", record["uri"])
                self.inventory.set_variable(host, "libvirt_hypervisor", record["name"])
                self.inventory.set_variable(host, "libvirt_hypervisor_host", record["host"])
                if domain["address"]:
                    self.inventory.set_variable(host, "ansible_host", domain["address"])
                self.inventory.add_child(hypervisor_group, host)
                state_group = self.inventory.add_group(self._sanitize_group_name(f"state_{domain['state']}"))
                self.inventory.add_child(state_group, host)

                hostvars = self.inventory.get_host(host).get_vars()
                self._set_composite_vars(self.get_option("compose"), hostvars, host, strict=strict)
                self._add_host_to_composed_groups(self.get_option("groups"), hostvars, host, strict=strict)
                self._add_host_to_keyed_groups(self.get_option("keyed_groups"), hostvars, host, strict=strict)
