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
  - C(ansible_host) is the first usable IPv4 address of the guest, else the first usable IPv6 address, from the
    source O(source) names. Addresses are only asked of active domains; a domain without a usable address has no
    C(ansible_host) (Ansible then connects to the host name, the domain's name). O(compose) can set it otherwise.
  - "Guests lie: a guest agent reports whatever the guest says. An address is never used when it is loopback
    (C(127.0.0.0/8), C(::1)), unspecified (C(0.0.0.0/8), C(::)), link-local (C(169.254.0.0/16), C(fe80::/10)),
    multicast, a broadcast address (C(255.255.255.255), or the broadcast or network address of its subnet, as
    reported or as a libvirt network has it), reserved (C(240.0.0.0/4) and the IPv6 reserved ranges), or an address
    of the hypervisor itself (the C(<ip address>) of every libvirt network of the hypervisor, that is the
    address of its bridge, and the addresses of the host interfaces libvirt lists). An IPv4-mapped IPv6 address
    (C(::ffff:127.0.0.1)) is judged as the IPv4 address it maps. This holds for lease and agent addresses alike."
  - An address the guest agent reports is further checked as O(agent_addresses) says; by default it must lie in a
    subnet of a libvirt network the interface is attached to. With O(source=any), a usable lease address wins over
    the agent's; the agent is only asked when the leases give no usable address. C(libvirt_interfaces) holds the
    interfaces of the source the address came from (or, without one, of the first source that answered), as
    reported, unfiltered.
  - "Domain names are chosen by whoever defines domains on the hypervisor. A domain is left out, with a warning
    naming it and its hypervisor, and the inventory goes on, when its name is reserved: C(all), C(ungrouped),
    C(localhost) and the other names of the controller (C(localhost.localdomain), C(localhost6), C(ip6-localhost),
    any name ending in C(.localhost)), a loopback or unspecified address (C(127.0.0.1), C(127.1), C(::1),
    C(::ffff:127.0.0.1), C(0.0.0.0)), a name that starts with C(hypervisor_) or C(state_) (the plugin's groups),
    a name with a control character, or one that reads as a host pattern (starting with C(&), C(!) or C(~), or
    holding C([), C(]), C(:), C(,), C(*) or C(?)). It is also left out when its inventory host name is the name of
    a group the inventory already has (from another source, or a group of O(groups)), or of a host of another
    source unless O(existing_hosts=merge). A domain never joins or renames an existing group."
  - "O(keyed_groups) names groups after host variables, which guests and domain owners control (the workspace
    metadata, the description). A keyed group that is C(all), C(ungrouped), a group that was in the inventory before
    this source, one of the plugin's own groups or of O(groups), or the name of a host is not joined (nor put under
    a C(parent_group)), with a warning, unless the host is already in it. O(groups) and O(compose) are your
    expressions and are applied as written: a O(compose) that sets C(ansible_host) from the workspace metadata
    trusts the guest's owner."
  - The workspace metadata is the element C(workspace) in the namespace
    C(https://github.com/devinfra/devinfra.providers/xmlns/workspace/1.0) of the domain's C(<metadata>), which the
    C(devinfra.providers.workspace_vm) role writes (the workspace's C(name), C(owner), C(template),
    C(template_version), C(agent) and C(agent_id)); any domain can carry it (set with the
    O(devinfra.providers.libvirt_domain#module:metadata) option). Each child element becomes a key holding the element's text, an
    element with children a dict, a name that repeats a list.
  - Values read from libvirt are never templated (they are not trusted templates), so a domain's description
    cannot run a lookup on the controller. The same holds for values read from the cache.
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
  agent_addresses:
    description:
      - Which addresses the QEMU guest agent reports may become C(ansible_host) (with O(source=agent), or
        O(source=any) when no lease gives a usable address). Every address also goes through the filter described
        above.
      - V(attached_networks) takes an agent address only when it lies in a subnet (the C(<ip address prefix|netmask>))
        of the libvirt network that the interface reporting it (matched by its MAC address) is attached to in the
        domain's definition. An interface that is not on a libvirt network (C(type=bridge), C(direct)...) or on a
        network without an C(<ip>) (a bridged C(forward mode)) has no subnet to check against, so its agent addresses
        are not used, without a warning, and the host has no C(ansible_host) unless another interface has one. The
        guest can still claim another address of its own subnet (another guest's); use O(source=lease) where that
        matters.
      - V(any) takes any agent address that passes the filter, for guests on host bridges; the guest then chooses
        where the plays go, among the addresses that are neither the controller's nor the hypervisor's.
    type: str
    choices: [attached_networks, any]
    default: attached_networks
    version_added: 0.4.0
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
  existing_hosts:
    description:
      - What happens to a domain whose inventory host name is a host another inventory source already made.
      - V(skip) leaves the domain out, with a warning naming it, its hypervisor and this option; whoever defines
        domains on a hypervisor would otherwise choose which host of your inventory gets the guest's C(ansible_host)
        (a domain named like your database server would take its plays).
      - V(merge) gives that host the domain's variables (and C(ansible_host)) and puts it in this source's groups, as
        the C(devinfra.providers.workspace_fleet) playbook's inventory expects (its inventory names the workspace
        hosts, this source adds their domains). Use it with O(names) limited to domain names you control.
      - A domain is never merged into a group, or into a reserved name such as C(localhost), whatever this says.
    type: str
    choices: [skip, merge]
    default: skip
    version_added: 0.4.0
  guest_agent_connection:
    description:
      - Whether the hosts are reached through their domains' QEMU guest agents, with the
        P(devinfra.providers.libvirt_qemu#connection) connection plugin, rather than at an address. The guests need no
        network and no SSH server then.
      - V(true) sets the host variables C(ansible_connection) to V(devinfra.providers.libvirt_qemu),
        C(ansible_libvirt_uri) to the hypervisor's URI and C(ansible_libvirt_domain) to the domain's name (the host name
        may have a suffix, see O(duplicate_names)), or to its UUID when the name has the shape of a UUID (the
        connection looks such a value up as a UUID first, and refuses one that is a domain's UUID and another's name).
        C(ansible_host) is still set as described above. O(compose) can set any of them otherwise.
      - The URI becomes a host variable as written. A hypervisor whose URI holds a password gets none of these
        variables, with a warning naming it; its hosts keep the usual connection.
      - Each domain needs the C(org.qemu.guest_agent.0) channel and its guest a running qemu-guest-agent; the
        connection plugin's documentation says what else.
    type: bool
    default: false
    version_added: 0.5.0
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
  - "A cache kept in files (O(cache_plugin=ansible.builtin.jsonfile) and the other file cache plugins) is used only
    when another user cannot have written it: the O(cache_connection) directory must be owned by root or the user
    who runs Ansible and not writable by group or others, each directory above it owned by root or that user and not
    writable by others unless sticky (C(/tmp) on the way is fine, C(/tmp) itself is not), and the cache file, when
    there is one, a regular file of that user with one link, not writable by others. Otherwise the plugin warns, naming the path
    and what is wrong, and neither reads nor writes the cache: the hypervisors are asked on every run, and the
    inventory is right, only slower, until the directory is fixed."
  - "A cached record is checked before use: every field of the type and shape the plugin writes, sizes bounded,
    the address not one the filter drops. A record that is not is ignored with a warning, the hypervisors are asked
    again and the cache rewritten. Cached values are read as plain data whatever the cache plugin returns: a
    record cannot carry a template Ansible would run."
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

---
# agents.libvirt.yml: the running guests of the local hypervisor, reached through their QEMU guest
# agents (the guests need no network and no SSH server)
plugin: devinfra.providers.libvirt
uris: [qemu:///system]
states: [running]
guest_agent_connection: true

# Then, for example:
#   ansible-inventory -i workspaces.libvirt.yml --graph
#   ansible -i workspaces.libvirt.yml 'hypervisor_kvm1:&state_running' -m ansible.builtin.ping
"""

import re
import typing as t
from collections import Counter
from urllib.parse import urlsplit

from ansible.errors import AnsibleParserError
from ansible.plugins.cache import BaseFileCacheModule
from ansible.plugins.inventory import BaseInventoryPlugin, Cacheable, Constructable

from ansible_collections.devinfra.providers.plugins.module_utils._common.text import printable
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.connection import (
    HAS_LIBVIRT,
    LIBVIRT_IMPORT_ERROR,
    connect,
    resolve_uri,
)
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.domain_lookup import uuid_shape
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.domain_summary import domain_summaries
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.errors import LibvirtError
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.inventory_safety import (
    CacheRecordError,
    StaleCacheRecordError,
    cache_location_problem,
    checked_records,
    name_problem,
)
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


class _KeyedGroupGuard:
    """The inventory as Constructable's keyed groups see it: a keyed group's name comes from host
    variables (a guest's metadata, a domain's description), so it may not join a group the
    plugin does not make for it (one of another source, all, ungrouped, the plugin's own groups
    and those of the groups option) nor be a host's name; such a group is left out with a
    warning. Joining a group the host is already in changes nothing and is allowed."""

    def __init__(self, inventory: t.Any, *, host: str, protected: t.Callable[[str], str | None], warn: t.Callable[[str], None]) -> None:
        self._inventory = inventory
        self._host = host
        self._protected = protected
        self._warn = warn
        self._warned: set[str] = set()

    def _warn_once(self, group: str, message: str) -> None:
        if group not in self._warned:
            self._warned.add(group)
            self._warn(message)

    def __getattr__(self, name: str) -> t.Any:
        return getattr(self._inventory, name)

    def _refused(self, group: str, *, member: str | None = None) -> str | None:
        why = self._protected(group)
        if why is None:
            return None
        inventory = self._inventory
        if member is not None and group in inventory.groups and member in inventory.hosts and inventory.hosts[member] in inventory.groups[group].get_hosts():
            return None  # already in it: nothing changes
        return why

    def add_group(self, group: str) -> str:
        if self._protected(group) is not None:
            return group  # not made; add_host/add_child below refuse it
        return t.cast("str", self._inventory.add_group(group))

    def add_host(self, host: str, group: str | None = None, port: t.Any = None) -> str:
        if group is not None:
            why = self._refused(group, member=host)
            if why is not None:
                self._warn_once(group, f"host {printable(host)}: the keyed group {printable(group)!r} is left out: it {why}")
                return host
        return t.cast("str", self._inventory.add_host(host, group, port))

    def add_child(self, group: str, child: str) -> bool:
        why = self._protected(child)
        if why is not None:
            self._warn_once(child, f"host {printable(self._host)}: the keyed group {printable(child)!r} is not put under {printable(group)!r}: it {why}")
            return False
        return bool(self._inventory.add_child(group, child))


class InventoryModule(BaseInventoryPlugin, Constructable, Cacheable):
    NAME = "devinfra.providers.libvirt"
    # Values read from libvirt (or the cache) are data, never templates.
    trusted_by_default = False
    # The inventory, or while keyed groups are added, the guard around it (_KeyedGroupGuard).
    inventory: t.Any

    def verify_file(self, path: str) -> bool:
        return bool(super().verify_file(path)) and path.endswith((".libvirt.yml", ".libvirt.yaml"))

    def parse(self, inventory: t.Any, loader: t.Any, path: str, cache: bool = True) -> None:
        super().parse(inventory, loader, path, cache)
        self._read_config_data(path)
        hypervisors = parse_uris(self.get_option("uris"))

        cache_key = self.get_cache_key(path)
        use_cache = bool(self.get_option("cache")) and self._cache_is_safe(cache_key)
        results: list[dict[str, t.Any]] | None = None
        if use_cache and cache:
            results = self._cached(cache_key, hypervisors)
        if results is None:
            results, complete = self._query(hypervisors)
            if use_cache and complete:
                self._cache[cache_key] = results
        self._populate(results, hypervisors)

    # --- the cache ---------------------------------------------------------------------

    def _cache_is_safe(self, cache_key: str) -> bool:
        """False (with a warning) when the cache plugin keeps the records in files another user
        can write: a record they rewrote would become root's inventory. Such a cache is neither
        read nor written; the hypervisors are asked on every run."""
        plugin = getattr(self._cache, "_plugin", None)
        if not isinstance(plugin, BaseFileCacheModule):
            return True  # memory, or a cache server: nothing on this host's file system to check
        directory = str(getattr(plugin, "_cache_dir", "") or "")
        # ansible-core 2.19+ wraps the plugin in a proxy that stores the key under a schema prefix.
        get_key = getattr(plugin, "_get_key", None)
        stored_key = get_key(cache_key) if callable(get_key) else cache_key
        problem = cache_location_problem(directory, [plugin._get_cache_file_name(stored_key)])
        if problem is None:
            return True
        self.display.warning(
            f"{self.NAME}: the inventory cache in {printable(directory)} is not used: {printable(problem)}; another user "
            "could rewrite the hosts and variables it holds. Make cache_connection a directory only the user who runs "
            "Ansible owns and can write to."
        )
        return False

    def _cached(self, cache_key: str, hypervisors: list[Hypervisor]) -> list[dict[str, t.Any]] | None:
        """The cached records (plain JSON values: nothing in them is trusted as a template), or
        None to ask the hypervisors: nothing cached, a record of another configuration, or one
        that is not what the plugin writes (a warning)."""
        try:
            cached = self._cache[cache_key]
        except KeyError:
            return None
        try:
            return checked_records(cached, [(h.shown_uri, h.name) for h in hypervisors])
        except StaleCacheRecordError:
            return None  # written for other uris: the configuration changed
        except CacheRecordError as exc:
            self.display.warning(
                f"{self.NAME}: the cached inventory is not used, it is not what this plugin writes ({printable(str(exc))}); the hypervisors are asked again"
            )
            return None

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
                    record["domains"] = domain_summaries(conn, source=source, names=names, states=states, agent_addresses=self.get_option("agent_addresses"))
            except LibvirtError as exc:
                message = _hide(f"{self.NAME}: hypervisor {hypervisor.name} ({hypervisor.shown_uri}): {exc}", hypervisor)
                if not self.get_option("skip_unreachable"):
                    raise AnsibleParserError(message) from None  # the cause can carry the URI as given
                self.display.warning(f"{message}; its domains are left out (skip_unreachable)")
                complete = False
            records.append(record)
        return records, complete

    # --- building the inventory --------------------------------------------------------

    def _skip(self, record: dict[str, t.Any], domain: dict[str, t.Any], why: str) -> None:
        self.display.warning(
            f"{self.NAME}: the domain {printable(str(domain['name']))!r} of hypervisor {printable(str(record['name']))} "
            f"({printable(str(record['uri']))}) is left out of the inventory: its name {why}"
        )

    def _host_names(self, records: list[dict[str, t.Any]], taken_hosts: set[str], taken_groups: set[str]) -> list[list[str | None]]:
        """The inventory host name of each domain of each record (same shape as the records),
        None for a domain left out (with a warning): a name that is reserved, or a host or group
        the inventory has already."""
        problems = [[name_problem(d["name"]) for d in r["domains"]] for r in records]
        owners: dict[str, list[tuple[str, str, str]]] = {}
        for record, per_record in zip(records, problems):
            for domain, problem in zip(record["domains"], per_record):
                if problem is None:
                    owners.setdefault(domain["name"], []).append((record["name"], record["uri"], domain["uuid"]))
        duplicates = {name: where for name, where in owners.items() if len(where) > 1}
        if duplicates and self.get_option("duplicate_names") == "fail":
            name, where = sorted(duplicates.items())[0]
            same = " (the same UUID: one hypervisor reached through two URIs?)" if len({place[2] for place in where}) == 1 else ""
            raise AnsibleParserError(
                f"{self.NAME}: the domain name {printable(name)!r} is on more than one hypervisor: "
                + ", ".join(f"{place[0]} ({place[1]})" for place in where)
                + f"{same}; set duplicate_names: suffix to name such hosts <domain>.<hypervisor>, or filter them out with names"
            )
        names: list[list[str | None]] = []
        for record, per_record in zip(records, problems):
            names.append([])
            for domain, raw_problem in zip(record["domains"], per_record):
                host = f"{domain['name']}.{record['name']}" if domain["name"] in duplicates else domain["name"]
                problem = raw_problem or name_problem(host)
                if problem is None and host in taken_groups:
                    problem = "is the name of a group of the inventory"
                elif problem is None and host in taken_hosts and self.get_option("existing_hosts") != "merge":
                    problem = "is the name of a host of another inventory source (set existing_hosts: merge to give that host the domain's variables)"
                if problem is not None:
                    self._skip(record, domain, problem)
                names[-1].append(None if problem is not None else host)
        clashes = sorted(name for name, count in Counter(n for per_record in names for n in per_record if n).items() if count > 1)
        if clashes:
            raise AnsibleParserError(f"{self.NAME}: the host name {printable(clashes[0])!r} is given to two domains (a suffixed name is another domain's name)")
        return names

    def _agent_uris(self, hypervisors: list[Hypervisor]) -> dict[str, str]:
        """Hypervisor name -> the URI the libvirt_qemu connection opens, for guest_agent_connection;
        a URI with a password is left out (with a warning), it would be a host variable."""
        if not self.get_option("guest_agent_connection"):
            return {}
        uris: dict[str, str] = {}
        for hypervisor in hypervisors:
            if hypervisor.uri != hypervisor.shown_uri:
                self.display.warning(
                    f"{self.NAME}: guest_agent_connection: the hosts of hypervisor {hypervisor.name} ({hypervisor.shown_uri}) get no "
                    "guest agent connection: its URI holds a password, which would become a host variable; let libvirt take the "
                    "credentials from its auth.conf, SSH keys or TLS certificates instead"
                )
                continue
            uris[hypervisor.name] = hypervisor.uri
        return uris

    def _populate(self, records: list[dict[str, t.Any]], hypervisors: list[Hypervisor]) -> None:
        strict = self.get_option("strict")
        agent_uris = self._agent_uris(hypervisors)
        hypervisor_groups = [self._sanitize_group_name(f"hypervisor_{record['name']}") for record in records]
        # What the inventory holds before this source adds anything, and the groups it makes by
        # name: a domain of such a name would become that host, or a member of that group.
        taken_hosts = set(self.inventory.hosts)
        before = set(self.inventory.groups) | {"all", "ungrouped"}
        own_groups = set(hypervisor_groups) | {self._sanitize_group_name(str(name)) for name in self.get_option("groups") or {}}
        names = self._host_names(records, taken_hosts, before | own_groups)

        hosts: list[str] = []
        for record, host_names, group_name in zip(records, names, hypervisor_groups):
            hypervisor_group = self.inventory.add_group(group_name)
            for domain, host in zip(record["domains"], host_names):
                if host is None:
                    continue
                self.inventory.add_host(host)
                for key in _HOSTVARS:
                    self.inventory.set_variable(host, f"libvirt_{key}", domain[key])
                self.inventory.set_variable(host, "libvirt_uri", record["uri"])
                self.inventory.set_variable(host, "libvirt_hypervisor", record["name"])
                self.inventory.set_variable(host, "libvirt_hypervisor_host", record["host"])
                if domain["address"]:
                    self.inventory.set_variable(host, "ansible_host", domain["address"])
                if record["name"] in agent_uris:
                    self.inventory.set_variable(host, "ansible_connection", "devinfra.providers.libvirt_qemu")
                    self.inventory.set_variable(host, "ansible_libvirt_uri", agent_uris[record["name"]])
                    # A name of UUID shape would be looked up as a UUID first (another domain's, maybe).
                    named_by = domain["uuid"] if uuid_shape(domain["name"]) else domain["name"]
                    self.inventory.set_variable(host, "ansible_libvirt_domain", named_by)
                self.inventory.add_child(hypervisor_group, host)
                state_group = self.inventory.add_group(self._sanitize_group_name(f"state_{domain['state']}"))
                self.inventory.add_child(state_group, host)
                hosts.append(host)

        our_hosts = set(hosts)

        def protected(group: str) -> str | None:
            if group in before:
                return "is a group that was in the inventory before this source" if group not in ("all", "ungrouped") else "is Ansible's own group"
            if group in own_groups or group.startswith(("hypervisor_", "state_")):
                return "is one of the plugin's own groups"
            if group in our_hosts or group in taken_hosts:
                return "is the name of a host"
            return None

        def warn(message: str) -> None:
            self.display.warning(f"{self.NAME}: {message}")

        inventory = self.inventory
        for host in hosts:
            hostvars = inventory.get_host(host).get_vars()
            self._set_composite_vars(self.get_option("compose"), hostvars, host, strict=strict)
            self._add_host_to_composed_groups(self.get_option("groups"), hostvars, host, strict=strict)
            self.inventory = _KeyedGroupGuard(inventory, host=host, protected=protected, warn=warn)
            try:
                self._add_host_to_keyed_groups(self.get_option("keyed_groups"), hostvars, host, strict=strict)
            finally:
                self.inventory = inventory
