#!/usr/bin/env bash
# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
# Build the real cloud-init test guest: a minimal Debian (debootstrap) with systemd and
# Debian's own cloud-init package, as a sparse raw ext4 disk image plus its kernel and
# initramfs for a direct kernel boot. Output (cached; rebuilt when this script changes):
#   $OUT/disk.raw  $OUT/vmlinuz  $OUT/initrd.img  $OUT/stamp
# Needs root, debootstrap, mkfs.ext4 (e2fsprogs) and the Debian mirror apt already uses.
#
#   build-cloudinit-guest.sh OUT
set -euo pipefail
OUT=${1:?usage: $0 OUT}
SUITE=${DEVINFRA_TEST_SUITE:-bookworm}

stamp=$(sha256sum "$0" | cut -c1-16)
if [ -s "$OUT/disk.raw" ] && [ -s "$OUT/vmlinuz" ] && [ -s "$OUT/initrd.img" ] && [ "$(cat "$OUT/stamp" 2>/dev/null)" = "$stamp" ]; then
  echo "$OUT"
  exit 0
fi
command -v debootstrap >/dev/null || { echo "debootstrap is not installed" >&2; exit 1; }
mirror=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
mirror=${mirror:-http://deb.debian.org/debian}

mkdir -p "$OUT"
work=$(mktemp -d "$OUT/.build.XXXXXX")
root=$work/rootfs
cleanup() {
  for m in proc sys dev; do umount "$root/$m" 2>/dev/null || true; done
  rm -rf --one-file-system "$work"  # never into a /dev bind mount that did not come off
}
trap cleanup EXIT

# cloud-init is installed with apt inside the chroot: debootstrap itself cannot resolve
# python3-cryptography's virtual dependency. curl: a Coder agent's init script downloads the
# agent with it (the workspace_vm scenario's stand-in deployment serves one). qemu-guest-agent:
# the libvirt_qemu connection plugin runs its commands; udev starts it when the domain has the
# org.qemu.guest_agent.0 channel, and nothing starts it otherwise.
debootstrap --variant=minbase --include=systemd-sysv,udev,linux-image-cloud-amd64,initramfs-tools \
  "$SUITE" "$root" "$mirror" >"$work/debootstrap.log" 2>&1 || { tail -20 "$work/debootstrap.log" >&2; exit 1; }
mount -t proc proc "$root/proc"
mount -t sysfs sys "$root/sys"
mount --bind /dev "$root/dev"
chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends cloud-init curl qemu-guest-agent >"$work/apt.log" 2>&1 \
  || { tail -20 "$work/apt.log" >&2; exit 1; }
chroot "$root" apt-get clean
for m in proc sys dev; do umount "$root/$m"; done

echo '/dev/vda / ext4 defaults 0 1' >"$root/etc/fstab"
# No network in the test (it is not what is proven) and only the NoCloud seed: cloud-init
# must not wait for a DHCP lease or probe other clouds.
cat >"$root/etc/cloud/cloud.cfg.d/99-devinfra-test.cfg" <<'CFG'
network: {config: disabled}
datasource_list: [NoCloud, None]
CFG
# A hostname that the test's meta-data must replace.
echo debootstrap-guest >"$root/etc/hostname"
rm -f "$root/etc/machine-id" && touch "$root/etc/machine-id"

cp "$root"/boot/vmlinuz-* "$work/vmlinuz"
cp "$root"/boot/initrd.img-* "$work/initrd.img"
# mkfs.ext4 -d fills the file system from the directory: no loop device or mount needed,
# and the image stays sparse.
mkfs.ext4 -q -F -L root -d "$root" "$work/disk.raw" 2G >/dev/null
chmod 0644 "$work/disk.raw" "$work/vmlinuz" "$work/initrd.img"
mv "$work/disk.raw" "$work/vmlinuz" "$work/initrd.img" "$OUT/"
echo "$stamp" >"$OUT/stamp"
echo "$OUT"
