#!/bin/sh
# Builds the microvm backend's guest into DIR, from Debian's packages only:
#   vmlinuz     Debian's kernel (linux-image-$KERNEL)
#   initrd.img  busybox-static and the kernel's virtio-mmio, virtio-blk/net/console and 9p
#               modules, and init (below) as /init
#   rootfs.img  a raw ext4 image of a debootstrap minbase (bash, git, curl, socat, util-linux),
#               never written: each VM boots it with an overlay of its own (qemu snapshot=on)
#   SHA256SUMS  the digests the appliance checks at start (docs/sandbox.md#the-microvm-backend)
# Pinned inputs (the Debian release, the kernel ABI, the package list), SOURCE_DATE_EPOCH for
# every timestamp, a fixed file system UUID and hash seed, a sorted initramfs. Not yet bit for bit
# reproducible: two builds of the same inputs give the same vmlinuz and initrd.img (newc.py) but
# a different rootfs.img (debootstrap's own output differs), so the digests are the build's,
# checked at every start.
# Cached: a DIR whose SHA256SUMS matches and whose inputs.txt names the same inputs is kept.
set -eu
DIR=${1:?usage: build-guest.sh DIR}
SUITE=${PUSHGATE_GUEST_SUITE:-bookworm}
MIRROR=${PUSHGATE_GUEST_MIRROR:-http://deb.debian.org/debian}
KERNEL=${PUSHGATE_GUEST_KERNEL:-6.1.0-57-amd64}
PACKAGES=bash,git,curl,socat,ca-certificates,iproute2,util-linux,procps,less
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-1735689600}
E2FSPROGS_FAKE_TIME=$SOURCE_DATE_EPOCH
export SOURCE_DATE_EPOCH E2FSPROGS_FAKE_TIME LC_ALL=C
HERE=$(cd "$(dirname "$0")" && pwd)
INPUTS="suite=$SUITE kernel=$KERNEL packages=$PACKAGES init=$(cat "$HERE/init" "$HERE/newc.py" | sha256sum | cut -c1-64) guest-init=$(sha256sum "$HERE/pushgate-guest-init" | cut -c1-64)"

mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
if [ -f "$DIR/SHA256SUMS" ] && [ "$(cat "$DIR/inputs.txt" 2>/dev/null)" = "$INPUTS" ] \
    && (cd "$DIR" && sha256sum --quiet -c SHA256SUMS); then
  echo "guest in $DIR is built and matches its digests"
  exit 0
fi
WORK=$(mktemp -d "$DIR/.build.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

echo "guest: downloading the kernel $KERNEL and busybox-static"
apt-get download "linux-image-$KERNEL" busybox-static >/dev/null 2>&1
dpkg-deb -x linux-image-"$KERNEL"_*.deb kernel
dpkg-deb -x busybox-static_*.deb busybox

echo "guest: debootstrap $SUITE (minbase: $PACKAGES)"
debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" rootfs "$MIRROR" >debootstrap.log \
  || { tail -20 debootstrap.log; exit 1; }
install -m 0755 "$HERE/pushgate-guest-init" rootfs/sbin/pushgate-guest-init
# Nothing the guest keeps from its build that differs from one build to the next.
rm -rf rootfs/var/cache/apt/archives/*.deb rootfs/var/lib/apt/lists/* rootfs/var/log/* \
  rootfs/etc/machine-id rootfs/var/cache/ldconfig/aux-cache
: > rootfs/etc/machine-id
find rootfs -newermt "@$SOURCE_DATE_EPOCH" -print0 | xargs -0r touch -h -d "@$SOURCE_DATE_EPOCH"
SIZE=$(( $(du -sm rootfs | cut -f1) * 13 / 10 + 64 ))
mke2fs -q -t ext4 -d rootfs -L pushgate-guest -U 6f1a3c2e-5b4d-4e8f-9a7b-0c1d2e3f4a5b \
  -E hash_seed=0b7c1f3e-2d4a-4c5b-8e6f-7a8b9c0d1e2f,root_owner=0:0 -O ^has_journal \
  -N 65536 rootfs.img "${SIZE}M" >/dev/null

echo "guest: initramfs"
mkdir -p initrd/bin initrd/lib/modules initrd/dev initrd/proc initrd/sys initrd/newroot
cp busybox/bin/busybox initrd/bin/busybox
for m in virtio_ring virtio virtio_mmio virtio_blk failover net_failover virtio_net \
    virtio_console netfs fscache 9pnet 9pnet_virtio 9p crc16 crc32c_generic mbcache jbd2 ext4; do
  f=$(find "kernel/lib/modules/$KERNEL" -name "$m.ko" -o -name "$m.ko.xz" | head -1)
  [ -n "$f" ] || { echo "guest: the kernel has no module $m" >&2; exit 1; }
  case "$f" in *.xz) xz -dc "$f" > "initrd/lib/modules/$m.ko" ;; *) cp "$f" initrd/lib/modules/ ;; esac
done
install -m 0755 "$HERE/init" initrd/init
python3 "$HERE/newc.py" initrd | gzip -9n > initrd.img

cp "kernel/boot/vmlinuz-$KERNEL" vmlinuz
sha256sum vmlinuz initrd.img rootfs.img > SHA256SUMS
mv vmlinuz initrd.img rootfs.img SHA256SUMS "$DIR/"
printf '%s\n' "$INPUTS" > "$DIR/inputs.txt"
echo "guest built in $DIR:"
cat "$DIR/SHA256SUMS"
