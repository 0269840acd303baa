package dev.pushgate.sandbox;

import java.nio.file.Path;

/**
 * A guest the probe verified: the files the hypervisor boots, each matching the digest the
 * build recorded, and the hypervisor it found.
 *
 * @param qemu the {@code qemu-system-x86_64} binary
 * @param kvmDevice the KVM device
 * @param kernel the guest kernel (Debian's vmlinuz)
 * @param initrd the initramfs that loads the virtio and 9p modules and mounts the root image
 * @param rootImage the base root file system (raw ext4), never written: each VM writes to an
 *     overlay of its own
 * @param digest the SHA-256 of the guest's digest list ({@code SHA256SUMS}), naming this guest
 */
public record MicroVmGuest(Path qemu, Path kvmDevice, Path kernel, Path initrd, Path rootImage,
    String digest) {}
