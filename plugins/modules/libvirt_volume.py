#!/usr/bin/python
# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: libvirt_volume
short_description: Manage a libvirt storage volume, filled from a URL or a file, cloned, or an overlay
version_added: 0.1.0
description:
  - Creates, grows, replaces and removes a volume in a libvirt storage pool, with the options of the
    C(libvirt_volume) resource of terraform-provider-libvirt 0.9 (the libvirt volume XML, key by key).
  - With O(create.content.url) the new volume is filled from an C(http://) or C(https://) URL or from a file on
    the managed host, streamed through libvirt in 96 KiB pieces (constant memory whatever the size). Holes of a
    sparse local file are skipped (a sparse stream, as C(virsh vol-upload --sparse)) when the daemon supports it.
  - With O(create.clone_from) the new volume is a full copy of another volume of the same host, in the same pool or
    another one (libvirt's C(virStorageVolCreateXMLFrom), as C(virsh vol-create-from)). libvirt copies it in the
    daemon, converting the format when O(target.format.type) differs from the source's (C(qemu-img convert) for
    file-based pools). The clone does not depend on its source afterwards.
  - With O(backing_store) and no O(create) the new volume is a copy-on-write overlay (a V(qcow2) O(target.format.type),
    which is also the default when O(target.format.type) is not set) on the image at O(backing_store.path), a V(qcow2)
    or V(raw) O(backing_store.format.type); it reads the base's content and takes only what is written to it. The
    base must stay where it is, and must not change, as long as the overlay is used; deleting the overlay leaves the
    base as it is. See
    R(the overlays and clones guide,ansible_collections.devinfra.providers.docsite.overlays_and_clones).
  - Only the options you set are compared, against the volume's XML. A larger O(capacity) grows the volume in
    place. Anything else that differs (format, backing store, encryption, permissions, a smaller capacity) cannot
    change without losing the volume's data, so it fails, unless O(replace=true) asks to delete and create it anew.
  - A volume that is a disk of a running domain (its live XML names it as C(source file=), C(source dev=), or
    C(source pool=) and C(volume=)) grows through that domain (C(virDomainBlockResize), as C(virsh blockresize)), since QEMU
    holds the image's write lock, so libvirt's resize of the volume would fail, and the guest sees the larger disk at
    once, without a restart (its partitions and file systems are the guest's to grow). Any other volume, one of a
    stopped domain too, is resized by libvirt (C(virStorageVolResize)); a stopped guest sees the new size when it
    starts. A volume two running domains have open, and the base of a running domain's overlay, cannot grow; the task
    fails, naming the domains and disks. RV(update_method) says which way was taken, in check mode too.
  - A download that ends before its C(Content-Length), a full pool or a lost connection fails the task and leaves no
    new volume. While a volume is filled (uploaded or cloned), an empty volume C(<name>.incomplete-<run>) marks it,
    named after the run
    (a key of the host's boot and pid namespace, the process id and its start time). A run that finds the marker
    of a run still alive waits for it (as long as that run lives; the task keyword C(timeout) bounds the wait,
    check mode does not wait and reports a change); of a run that died before it could clean up (the daemon stopped, the
    process was killed), warns and makes the volume anew; of a run on another host or in another container, which
    it cannot tell alive or dead, fails and leaves both alone. A pool that cannot hold a marker cannot take
    content. A clone whose run is killed while libvirt copies stays marked the same way, so it is never taken for
    complete. The source of a clone is checked the same way first - one another run still fills is waited for, one
    left incomplete is refused.
  - A replacement with content is uploaded into C(<name>.replacement-<run>) first and copied into the name only
    once complete, so a failed upload keeps the volume it was to replace (the copy costs time and pool space once).
  - Volumes of yours named like C(<name>.incomplete) or C(<name>.replacement) are never touched.
  - Content is inspected before it can be used, from the very bytes that are written into the volume (the first
    2 MiB of a file or a download are read once, inspected, and sent as they are). Its format is detected from the
    content as QEMU probes it (V(raw), V(iso), V(qcow), V(qcow2), V(qed), V(vmdk), V(vhdx), V(vpc), V(vdi), and
    parallels, bochs, cloop and LUKS images); O(target.format.type),
    when not set, is the detected format, and a given one that contradicts the content (a V(qcow2) image given as
    V(raw), or the reverse) fails before anything is made, naming both. A V(vhdx) image cannot be a libvirt
    volume and is refused with the C(qemu-img convert) that makes it one. So are parallels, bochs and cloop images,
    which QEMU opens as such whatever format the volume records (a parallels image uploaded as V(raw) becomes a
    volume libvirt takes for a C(ploop) directory), and a LUKS image unless the volume declares
    O(target.encryption) with format C(luks).
  - An image that names another file of the host - a qcow, qcow2 or qed backing file, a qcow2 external data file,
    the extents or the parent of a vmdk - is refused, naming the option and the path found. QEMU would open that
    file with the hypervisor's rights and give it to the guest (any file root can read, made by any user who can
    put an image where it is uploaded from). O(create.allow_backing_in_pool) accepts a backing file that is a
    volume of a pool of the host when the whole backing chain below it is; nothing else is ever followed. The same inspection applies to the source of
    O(create.clone_from) (libvirt's copy would read the file its header names into the new volume), to an existing
    volume made from O(create) on every run, and to a file found in the pool's directory (below).
  - A volume missing from the pool is looked for once more after the pool is refreshed, so a file copied into the
    pool's directory by hand is found and taken as it is (inspected, with a warning), where creating it would fail
    with libvirt's C(volume target path ... already exists). When the daemon runs on the module's host and the pool
    keeps its volumes as files (C(dir), C(fs)), the pool is refreshed only when its directory has an entry of that
    name, since a refresh reads every file of the pool while holding it and parallel runs making new volumes would queue on it.
  - O(create.content.checksum) says what the volume was made from. It is verified over the bytes streamed into the
    volume, before the upload is committed; on a mismatch the volume is deleted and the task fails, so a file changed
    or swapped at any moment of the run never ends up in the volume under the checksum. The verified digest is
    recorded where only the running user can write (C(/var/lib/devinfra.providers/digests) for root); the record
    goes when the module deletes the volume.
  - On later runs a volume that lives is not compared with its content again - one a domain of the host (running or
    not) has as a writable disk, or one grown beyond the content (a larger O(capacity) at creation or later); what its
    guest wrote is not "different content". The checksum is then compared with the one the record says the volume was
    made from; another checksum is other content (the task fails, or O(replace=true) makes the volume anew). A volume
    nobody writes to (a base image, read through overlays) must still hold the content; it is taken from the record
    while its size and its modification and change times are unchanged (the kernel sets the change time on every
    write and no user can set it), else read back once and compared.
  - A volume without a record (made by hand, by another user, or before records were kept) is read back once and
    compared, then recorded. One that a domain writes to has no bytes left to compare, so the task fails, saying so; leave
    out O(create.content.checksum) to take it as it is.
  - O(backing_store.path) outside the directory of every pool of the host warns. A base in a pool is inspected
    when the overlay is made - its content must be the O(backing_store.format.type) given, and the backing chain
    below it follows the rules of O(create.allow_backing_in_pool).
  - A volume whose file libvirt takes for a C(ploop) directory (a parallels image uploaded as V(raw) by an earlier
    version, or written into its disk by a guest) cannot be deleted by libvirt; with O(state=absent) its file is
    removed by the module when the daemon runs on the managed host and the pool keeps volumes as files.
author:
  - devinfra.providers contributors (@devinfra)
options:
  name:
    description:
      - The volume's name in its pool. With O(pool), it identifies the volume.
      - Required unless O(xml) is given (its C(<name>)).
    type: str
  pool:
    description: The name of the storage pool that holds the volume. It must be active.
    type: str
    required: true
  capacity:
    description:
      - The volume's size, as a string with its unit (V(10GiB), V(512M), V(2G), V(1TB)) or as an integer in
        O(capacity_unit) (bytes without it, as before; an existing integer keeps its meaning).
      - Units are libvirt's, in any case - V(b) or V(bytes); V(k), V(KiB) (1024) and V(KB) (1000); the same for
        M, G, T, P and E. Anything else, a fraction (V(1.5G)) or a negative number is refused before anything is touched,
        with a message naming O(capacity) and the accepted forms. With a unit in the string, O(capacity_unit) is not given.
      - The second run compares by size (V(10GiB) and V(10737418240) are the same); diffs show the capacity in bytes.
      - Required to create an empty volume. With O(create.content.url), the size of the content wins (upstream's
        rule) and this is only needed when the size is unknown (an HTTP answer without Content-Length, and
        compressed content, which must decompress to no more than it);
        a larger value grows the volume after the upload. With O(create.clone_from), the clone has its source's
        capacity, and a larger value grows it after the copy.
      - An overlay (O(backing_store)) may be larger than its base (a V(qcow2) overlay shows the base's content in its
        first bytes and zeros after them).
      - On an existing volume, a larger value grows it; a smaller one fails unless O(replace=true)
        (the content of a volume made from O(create.content.url) or O(create.clone_from) decides its size, so a smaller
        value is no change there). A disk of a running domain grows live through the domain (see above); the next run
        finds the size and changes nothing.
    type: raw
  capacity_unit:
    description:
      - The unit of O(capacity), as libvirt reads it, V(bytes) when not set; V(KiB), V(MiB), V(GiB), V(TiB)
        (1024-based, also V(k), V(M), V(G), V(T)) or V(KB), V(MB), V(GB), V(TB) (1000-based).
    type: str
  state:
    description:
      - V(present) creates the volume; V(absent) deletes it.
      - With V(absent), a volume whose O(pool) no longer exists is no change (its storage went with the pool).
    type: str
    choices: [present, absent]
    default: present
  create:
    description:
      - How a new volume is filled (upstream's C(create) block), from O(create.content) or O(create.clone_from) (one
        of them).
      - Used only when the volume is created. An existing volume of the name is never filled again - a later change of
        the URL or of the clone's source (another volume, or the same volume with new content) is not detected, as
        upstream does not fetch a URL again while its string stays the same. To fill it again, remove the volume
        (O(state=absent)) first; with O(replace=true), a volume that differs in something else is made anew from the
        current source.
      - O(create.content) and O(create.clone_from) cannot be used with O(backing_store).
    type: dict
    suboptions:
      content:
        description: Content to upload.
        type: dict
        suboptions:
          url:
            description:
              - An C(http://) or C(https://) URL, fetched with one GET that must answer 200; or the path of a file
                on the managed host (C(file://) allowed), a regular file (not a directory, FIFO or device).
              - Compressed images (C(.xz), C(.gz), C(.bz2), C(.zst), as cloud images are published) are recognised by
                their first bytes, whatever the name, and decompressed while they stream into the volume, never into a
                temporary copy. Everything else applies to the decompressed content - its format is detected from it
                (a compressed qcow2 is a V(qcow2) volume), and it is inspected as any content (backing files and their
                chain); all members the tools write one after another (C(gzip) and C(xz) streams, C(pbzip2),
                C(zstd) frames) are read, and content cut short or followed by anything else is refused.
              - For compressed content O(capacity) is required (the size is known only at the end); the volume is
                made with it, a V(raw) image smaller than it reads as zeros after its end, and content that
                decompresses to more than it is refused when the limit is passed (a decompression bomb), leaving no
                volume behind. Zero runs of a V(raw) image are skipped as holes unless O(sparse=false).
              - zstd needs the Python package C(zstandard) on the managed host (optional, only for zstd content; a
                task with zstd content fails naming it when it is missing).
            type: str
            required: true
          checksum:
            description:
              - The content's digest, C(<algorithm>:<hex digits>), with V(sha256), V(sha384) or V(sha512) (as
                M(ansible.builtin.get_url) takes it), for example C(sha256:0f1e...). The digest of what is streamed
                into the volume must match before the upload is committed; a mismatch deletes the new volume and
                fails, naming both digests.
              - For compressed content it is the digest of the file as published (the C(.xz), C(.gz)... file, the one
                the distribution's checksum list gives), not of the decompressed image; the decompressed bytes are
                what the volume holds, so on an existing volume the record of the verified upload is what tells (a
                volume whose record is gone fails the check; O(replace=true) makes it anew).
              - On an existing volume, the checksum must be the one it was made from (its record). A volume nobody
                writes to must still hold that content (from the record while it is unchanged since it was last
                verified, else read back); a writable disk of a domain, or a volume grown beyond the content, holds
                its guest's writes and is not compared again. Otherwise the task fails, or with O(replace=true) the
                volume is made anew from O(create.content.url).
            type: str
      allow_backing_in_pool:
        description:
          - Accept content whose backing file is a volume of a pool of this host (a file directly in a pool's target
            directory; a relative name is resolved in the directory of O(pool), where the volume will be). Without
            it every image that names a backing file is refused. External data files, vmdk extents and vmdk parents
            are always refused.
          - The whole backing chain is followed, not only its first link. Each backing file is read (its first
            2 MiB, from a file directly in a pool's directory, never through a last symbolic link) and inspected as
            the content is; it must be a volume of a pool in turn, naming nothing but such a backing file (a
            relative name resolves in its own directory). Its format must be the one QEMU would open it as - the
            backing format the link above records, or when none is recorded the format QEMU probes from its
            content (and from a name ending in C(.dmg)) - and one a volume holds. At most 16 backing files are
            followed; a longer chain, and a chain that comes back to a file it already passed, are refused. Errors
            name the option and the position of the offending link (C(link 2 of its backing chain)).
        type: bool
        default: false
      clone_from:
        description:
          - The volume the new one is a full copy of (libvirt's C(virStorageVolCreateXMLFrom)), on the same libvirt
            host. Set O(target.format.type) to convert it (for example a V(raw) source into a V(qcow2) clone);
            without it, the pool's default format applies, as for any new volume.
          - The source must exist, in an active pool, and be complete (see the markers above) when the volume is
            created; it is not looked at when the volume exists. Its capacity is the clone's.
          - Bad values (empty, control characters, the volume itself, a missing pool or volume) fail before
            anything is made, the message naming C(create.clone_from).
        type: dict
        suboptions:
          pool:
            description: The name of the storage pool that holds the source; O(pool) or another pool of the host.
            type: str
            required: true
          volume:
            description: The name of the source volume in that pool.
            type: str
            required: true
  sparse:
    description:
      - For uploads of local files, V(true) requires a sparse stream, V(false) sends every byte; not set, holes
        are skipped when the file has any and the daemon supports sparse streams.
      - For compressed V(raw) content (from a URL or a file), runs of 4 KiB blocks of zeros are skipped as holes
        unless this is V(false).
    type: bool
  replace:
    description:
      - Delete and create the volume anew (with its content) when it differs in something that cannot change in
        place. Its data is lost.
    type: bool
    default: false
  url_timeout:
    description: Timeout in seconds for connecting to an O(create.content.url) over HTTP.
    type: int
    default: 30
  validate_certs:
    description: Verify the TLS certificate of an C(https://) O(create.content.url).
    type: bool
    default: true
  wipe:
    description:
      - With O(state=absent), overwrite the volume's data with this algorithm of libvirt's C(virStorageVolWipePattern)
        before it is deleted; without it the volume is deleted unwiped.
      - V(zero) writes zeros (one pass); V(nnsa) (4 passes), V(dod) (7), V(bsi) (8), V(gutmann) (35), V(schneier) (7),
        V(pfitzner7) (7), V(pfitzner33) (33) and V(random) (one pass of random data) are the multi-pass patterns of
        C(scrub); V(trim) discards the blocks (only where the storage supports it).
      - The wipe runs only when the volume is there to delete (a volume already gone is no change) and never in
        check mode. A failed wipe fails the task and keeps the volume. Wiping takes as long as writing the whole
        volume once per pass.
    type: str
    choices: [zero, nnsa, dod, bsi, gutmann, schneier, pfitzner7, pfitzner33, random, trim]
    version_added: 0.5.0
  xml:
    description:
      - A whole volume definition, C(<volume>) as C(virsh vol-dumpxml) prints it or a community.libvirt
        template holds it, instead of the volume options (O(capacity), O(target), O(backing_store)...).
      - It is read into those options, so the same checks and the same comparison apply; what libvirt adds or
        computes (the key, the allocation) is no change, and a second run with the same XML is no change.
      - Its C(<name>) and O(name) agree; without O(name), the name is taken from the XML. O(pool) stays an option.
      - Mutually exclusive with the volume options. An XML that is not well-formed, has another root element or a
        C(<!DOCTYPE>) (entities are never resolved, nothing is fetched) fails before anything is touched.
      - To turn it into options instead, read the existing volume with M(devinfra.providers.libvirt_volume_info) and take its C(options).
    type: str
    version_added: 0.7.0
requirements:
  - zstandard (optional, on the managed host) for zstd-compressed O(create.content.url)
extends_documentation_fragment:
  - devinfra.providers.libvirt
  - devinfra.providers.libvirt_schema.storage_volume
  - devinfra.providers.attributes
  - devinfra.providers.attributes.resource
  - devinfra.providers.attributes.actiongroup_libvirt
attributes:
  check_mode:
    details:
      - In check mode an O(create.content.url) is still opened and its first 2 MiB read (one GET over HTTP) to learn
        its size and inspect it (an image that would be refused is refused in check mode too), and the source of
        O(create.clone_from) is looked up and inspected (its size, whether it is complete, what it names).
      - O(create.content.checksum) of an existing volume is verified in check mode too (from its record, else by
        reading the volume).
      - A larger O(capacity) is planned as the real run applies it, through the running domain whose disk the volume is
        or by libvirt (RV(update_method)); a volume two running domains have open fails in check mode too.
notes:
  - Upstream (terraform-provider-libvirt 0.9) fails on any change of a volume; here a larger capacity is applied in
    place and other changes need the explicit O(replace).
  - Upstream 0.9 has no clone; O(create.clone_from) is this collection's, with the semantics of O(create.content).
seealso:
  - module: devinfra.providers.libvirt_pool
"""

EXAMPLES = r"""
- name: An empty 20 GiB qcow2 disk
  devinfra.providers.libvirt_volume:
    name: ws1-data.qcow2
    pool: workspaces
    capacity: 20GiB
    target:
      format:
        type: qcow2

- name: A root disk from a cloud image, grown to 10 GiB
  devinfra.providers.libvirt_volume:
    name: ws1-root.qcow2
    pool: workspaces
    capacity: 10
    capacity_unit: GiB
    target:
      format:
        type: qcow2
    create:
      content:
        url: https://cloud.debian.org/images/cloud/bookworm/latest/debian-12-genericcloud-amd64.qcow2

- name: A base image, uploaded once, verified against its checksum (the format is read from the content)
  devinfra.providers.libvirt_volume:
    name: debian-12.qcow2
    pool: workspaces
    create:
      content:
        url: https://cloud.debian.org/images/cloud/bookworm/latest/debian-12-genericcloud-amd64.qcow2
        checksum: sha256:{{ debian_12_sha256 }}
  register: base

- name: A compressed raw image, decompressed while it streams; the checksum is of the .xz file as published
  devinfra.providers.libvirt_volume:
    name: fedora-cloud.raw
    pool: workspaces
    capacity: 5GiB  # required for compressed content: the image must decompress to no more
    create:
      content:
        url: https://example.org/images/Fedora-Cloud-Base.x86_64.raw.xz
        checksum: sha256:{{ fedora_cloud_xz_sha256 }}

- name: An overlay on it (copy-on-write; the base is only read)
  devinfra.providers.libvirt_volume:
    name: ws2-root.qcow2
    pool: workspaces
    capacity: 10
    capacity_unit: GiB
    target:
      format:
        type: qcow2
    backing_store:
      path: "{{ base.volume.path }}"
      format:
        type: qcow2

- name: A full copy of it in another pool, converted to raw
  devinfra.providers.libvirt_volume:
    name: ws3-root.raw
    pool: fast
    capacity: 10
    capacity_unit: GiB
    target:
      format:
        type: raw
    create:
      clone_from:
        pool: workspaces
        volume: debian-12.qcow2

- name: More room on the data disk of a running workspace (the guest sees it at once)
  devinfra.providers.libvirt_volume:
    name: ws1-data.qcow2
    pool: workspaces
    capacity: 40GiB
    target:
      format:
        type: qcow2
  register: grown  # grown.update_method is block_resize while ws1 runs, resize while it is stopped

- name: Overwrite a data disk with zeros, then delete it
  devinfra.providers.libvirt_volume:
    name: ws1-data.qcow2
    pool: default
    state: absent
    wipe: zero

- name: A volume from XML; the pool stays an option
  devinfra.providers.libvirt_volume:
    pool: default
    xml: |
      <volume>
        <name>data.qcow2</name>
        <capacity unit='G'>10</capacity>
        <target><format type='qcow2'/></target>
      </volume>
"""

RETURN = r"""
operation:
  description:
    - What the task did, or would do in check mode, as Terraform's plan names it, C(create), C(update) (in place),
      C(replace), C(delete) or C(none); the C(devinfra.providers.plan) callback shows it.
  returned: always
  type: str
  sample: update
address:
  description:
    - The resource as Terraform prints it, C(<module>.<name>); an object inside another one names both,
      C(libvirt_volume.<pool>/<name>), C(libvirt_domain_snapshot.<domain>/<name>).
  returned: always
  type: str
  sample: libvirt_domain.web
changed_paths:
  description:
    - The option paths that change (C(update), C(replace)), never their values; empty otherwise.
  returned: always
  type: list
  elements: str
  sample: [memory, vcpu]
volume:
  description:
    - The volume as options (everything libvirt holds for it), with C(key), C(path), C(pool) and the computed
      C(capacity), C(allocation) and C(physical) (with their C(_unit)). With O(state=absent), what was removed
      (empty when there was nothing).
    - C(timestamps) holds the file's access, modification and change times (C(atime), C(mtime), C(ctime)) as
      libvirt reads them; they change with every read and are not an option (C(target) holds no times, so it can be
      given back to the module as it is).
    - C(content_checksum) is the digest of O(create.content.checksum) the volume was verified to hold in this run
      (only when that option is set).
  returned: always
  type: dict
  sample:
    name: ws1-data.qcow2
    pool: workspaces
    key: /var/lib/libvirt/workspaces/ws1-data.qcow2
    path: /var/lib/libvirt/workspaces/ws1-data.qcow2
    capacity: 21474836480
    capacity_unit: bytes
    allocation: 200704
    allocation_unit: bytes
    target: {path: /var/lib/libvirt/workspaces/ws1-data.qcow2, format: {type: qcow2}, permissions: {mode: "0600", owner: "0", group: "0"}}
update_method:
  description:
    - How a larger capacity was applied, or would be in check mode; V(resize) (libvirt resizes the volume,
      C(virStorageVolResize)) or V(block_resize) (through the running domain whose disk it is, C(virDomainBlockResize),
      so its guest sees the larger disk at once).
  returned: when an existing volume grew
  type: str
  sample: block_resize
  version_added: 0.6.0
resized_disk:
  description: The disk of the running domain the volume grew through (RV(update_method=block_resize)).
  returned: when RV(update_method) is V(block_resize)
  type: dict
  sample: {domain: ws1, target: vdb}
  contains:
    domain:
      description: The domain's name.
      type: str
    target:
      description: The disk's target device in the domain (C(vdb)).
      type: str
  version_added: 0.6.0
replaced:
  description: True when the volume was deleted and created anew (O(replace=true)).
  returned: when it was replaced
  type: bool
  sample: true
"""

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.resource import run_resource_module
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.volume import VOLUME_ARGSPEC, ensure_volume


def main() -> None:
    run_resource_module(noun="volume", argument_spec=VOLUME_ARGSPEC, run=ensure_volume, schema_struct="StorageVolume", required_one_of=[("name", "xml")])


if __name__ == "__main__":
    main()
