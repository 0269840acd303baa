package dev.pushgate.sandbox;

import java.nio.file.Path;

/**
 * Where the microvm backend looks for what it needs on this host: the KVM device, the guest
 * (kernel, initramfs, root image and their digests, built by {@code build-guest.sh}) and the
 * directories the hypervisor is looked up in (only a {@code qemu-system-x86_64} that root owns
 * and nobody else can write counts).
 *
 * @param kvmDevice the KVM device, {@code /dev/kvm}; a test hides KVM by naming a missing one
 * @param guestDir the directory of the built guest
 * @param searchPath a {@code PATH}-style list of directories
 */
public record MicroVmHost(Path kvmDevice, Path guestDir, String searchPath) {
  /** The device KVM lives at on Linux. */
  public static final Path KVM = Path.of("/dev/kvm");

  /** The directories the hypervisor is looked up in unless told otherwise. */
  public static final String SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin";

  public MicroVmHost {
    if (kvmDevice == null || !kvmDevice.isAbsolute()) {
      throw new IllegalArgumentException("the KVM device must be an absolute path: " + kvmDevice);
    }
    if (guestDir != null && !guestDir.isAbsolute()) {
      throw new IllegalArgumentException("the microvm guest directory must be an absolute path: "
          + guestDir);
    }
    searchPath = searchPath == null ? SYSTEM_PATH : searchPath;
  }

  /** This host's KVM and hypervisor, the guest in {@code guestDir} (null: none configured). */
  public static MicroVmHost of(Path kvmDevice, Path guestDir) {
    return new MicroVmHost(kvmDevice == null ? KVM : kvmDevice, guestDir, SYSTEM_PATH);
  }
}
