#!/usr/bin/env bash
# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
# Build the small test guest: Debian's cloud kernel plus a busybox initramfs whose /init
# is tests/guest/init. Output: $OUT/vmlinuz and $OUT/initrd.img (cached; rebuilt when
# the init script or the module list changes). Needs apt-get download and dpkg-deb.
#
#   tests/guest/build.sh [OUT]     default OUT: /var/cache/devinfra-test/guest
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-${DEVINFRA_TEST_GUEST_DIR:-/var/cache/devinfra-test/guest}}
# Loaded in this order by /init; dependencies are resolved from each .ko's modinfo.
MODULES="ata_piix sr_mod isofs virtio_pci virtio_scsi virtio_blk virtio_net button evdev virtio_balloon qemu_fw_cfg"

stamp=$(cat "$HERE/init" "$HERE/build.sh" | sha256sum | cut -c1-16)
if [ -s "$OUT/initrd.img" ] && [ -s "$OUT/vmlinuz" ] && [ "$(cat "$OUT/stamp" 2>/dev/null)" = "$stamp" ]; then
  echo "$OUT"
  exit 0
fi
mkdir -p "$OUT"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
kpkg=$(apt-cache depends linux-image-cloud-amd64 | awk '/Depends: linux-image-/{print $2; exit}')
[ -n "$kpkg" ] || { echo "cannot resolve linux-image-cloud-amd64 (apt-get update?)" >&2; exit 1; }
apt-get download -q "$kpkg" busybox-static >/dev/null
dpkg-deb -x linux-image-*.deb kpkg
dpkg-deb -x busybox-static_*.deb bb
kdir=$(ls -d kpkg/lib/modules/*)
mkdir -p ir/bin ir/proc ir/sys ir/dev ir/mnt ir/lib/mods
cp bb/bin/busybox ir/bin/
ln -s busybox ir/bin/sh   # /init runs under /bin/sh before busybox --install
install -m 0755 "$HERE/init" ir/init
# Resolve module dependencies (modinfo is not installed): read depends= out of each .ko.
# shellcheck disable=SC2086  # one argument per module name
python3 - "$kdir" ir/lib/mods $MODULES <<'PY'
import os, re, shutil, sys
kdir, dest, wanted = sys.argv[1], sys.argv[2], sys.argv[3:]
paths = {}
for root, _, files in os.walk(kdir):
    for f in files:
        if f.endswith(".ko"):
            paths[f[:-3].replace("-", "_")] = os.path.join(root, f)
order = []
def visit(name):
    if name in order:
        return
    with open(paths[name], "rb") as fh:
        m = re.search(rb"\x00depends=([^\x00]*)\x00", b"\x00" + fh.read())
    for dep in filter(None, (m.group(1).decode() if m else "").split(",")):
        visit(dep.replace("-", "_"))
    order.append(name)
    shutil.copy(paths[name], os.path.join(dest, name + ".ko"))
for name in wanted:
    if name in paths:          # built into this kernel when absent
        visit(name)
with open(os.path.join(dest, "order"), "w") as fh:
    fh.write("\n".join(order) + "\n")
PY
(cd ir && find . | ../bb/bin/busybox cpio -o -H newc 2>/dev/null | gzip -1) > "$OUT/initrd.img.tmp"
cp kpkg/boot/vmlinuz-* "$OUT/vmlinuz.tmp"
mv "$OUT/initrd.img.tmp" "$OUT/initrd.img"
mv "$OUT/vmlinuz.tmp" "$OUT/vmlinuz"
chmod 0644 "$OUT/initrd.img" "$OUT/vmlinuz"
echo "$stamp" > "$OUT/stamp"
echo "$OUT"
