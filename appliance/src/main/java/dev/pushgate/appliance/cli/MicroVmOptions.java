package dev.pushgate.appliance.cli;

import dev.pushgate.sandbox.MicroVmHost;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * Where the microvm backend finds KVM and its guest: the same two options for {@code serve}
 * (whose probe answers runs and terminals) and {@code pushgate shell} (which probes by itself).
 */
final class MicroVmOptions {
  @Option(names = "--microvm-guest", paramLabel = "DIR",
      description = "The guest the microvm backend boots (kernel, initramfs, root image and their"
          + " SHA256SUMS), as sandbox-bridge/src/main/guest/build-guest.sh DIR builds it. Without"
          + " it the microvm backend is unavailable, and a run or terminal that asks for it is"
          + " refused.")
  Path guest;

  @Option(names = "--microvm-kvm", paramLabel = "DEVICE",
      description = "The KVM device the microvm backend needs. Default: /dev/kvm.")
  Path kvm;

  /** The host as these options describe it, paths made absolute. */
  MicroVmHost host() {
    return MicroVmHost.of(absolute(kvm), absolute(guest));
  }

  private static Path absolute(Path p) {
    return p == null ? null : p.toAbsolutePath().normalize();
  }
}
