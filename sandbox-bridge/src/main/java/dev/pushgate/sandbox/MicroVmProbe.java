package dev.pushgate.sandbox;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The start-up probe of the microvm backend: KVM usable (the device opens for reading and
 * writing), the hypervisor present (a root-owned {@code qemu-system-x86_64}), the guest in place
 * (kernel, initramfs and root image, each matching the digest its build recorded in {@code
 * SHA256SUMS}), and the guest really boots here ({@link MicroVmTrial}). Run once; a host that fails any step cannot boot a VM, and the reason says which
 * step and what to do. An explicit {@code microvm} request is then refused, never run on the
 * host.
 */
public final class MicroVmProbe {
  /** The files a guest directory holds, in the order they are checked. */
  static final List<String> GUEST_FILES = List.of("vmlinuz", "initrd.img", "rootfs.img");

  /** The digest list {@code build-guest.sh} writes, in {@code sha256sum} format. */
  static final String DIGESTS = "SHA256SUMS";

  static final String QEMU = "qemu-system-x86_64";

  /** Why a guest that boots is still no backend: the launcher half is not built. */
  static final String NOT_LAUNCHED = "pushgate does not launch runs or terminals in it yet";

  private static final String BUILD = "build it with sandbox-bridge/src/main/guest/build-guest.sh"
      + " DIR and start pushgate with --microvm-guest DIR";

  private MicroVmProbe() {}

  /** Probes this host as {@code host} describes it. */
  public static MicroVmStatus probe(Platform platform, MicroVmHost host) {
    return probe(platform, host, TerminalProfile::rootOwned,
        guest -> MicroVmTrial.boot(guest, MicroVmTrial.PVM_MODULE));
  }

  /**
   * @param trusted whether a hypervisor found on the search path may be run
   * @param trial boots the verified guest once and says whether it ran
   */
  static MicroVmStatus probe(Platform platform, MicroVmHost host, Predicate<Path> trusted,
      Function<MicroVmGuest, MicroVmTrial.Outcome> trial) {
    if (platform == null || !platform.linuxLike()) {
      return MicroVmStatus.unavailable("the microvm backend boots its guest with KVM, on Linux"
          + " only; this host is " + (platform == null ? "unknown" : platform.id()));
    }
    String kvm = kvmProblem(host.kvmDevice());
    if (kvm != null) {
      return MicroVmStatus.unavailable(kvm);
    }
    String qemu = TerminalProfile.find(host.searchPath(), QEMU, trusted);
    if (qemu == null) {
      return MicroVmStatus.unavailable(QEMU + " is not installed (in a directory root owns and"
          + " nobody else can write, on " + host.searchPath() + "); install it: sudo apt-get"
          + " install qemu-system-x86");
    }
    if (host.guestDir() == null) {
      return MicroVmStatus.unavailable("no guest image is configured; " + BUILD);
    }
    MicroVmStatus verified;
    try {
      verified = verifiedGuest(Path.of(qemu), host);
    } catch (GuestProblem e) {
      return MicroVmStatus.unavailable(e.getMessage());
    }
    MicroVmTrial.Outcome booted = trial.apply(verified.guest());
    if (booted.problem() != null) {
      return MicroVmStatus.unavailable(booted.problem());
    }
    // The guest boots, but no launcher runs a command in it yet: saying "available" would offer
    // runs and terminals a VM that no one starts.
    return MicroVmStatus.unavailable("the guest boots here (" + verified.detail()
        + ", a trial boot took " + booted.took().toMillis() + " ms), but " + NOT_LAUNCHED);
  }

  /** Null when the device is a character device this process can open read-write. */
  private static String kvmProblem(Path device) {
    if (!Files.exists(device, LinkOption.NOFOLLOW_LINKS)) {
      return device + " does not exist: this host offers no KVM (enable virtualisation, or"
          + " nested virtualisation in a VM, and load kvm_intel or kvm_amd)";
    }
    try {
      if (!Files.readAttributes(device, java.nio.file.attribute.BasicFileAttributes.class)
          .isOther()) {
        return device + " is not a device, so not the KVM device";
      }
    } catch (IOException | RuntimeException e) {
      return device + " cannot be examined: " + e.getMessage();
    }
    try (FileChannel c = FileChannel.open(device, StandardOpenOption.READ,
        StandardOpenOption.WRITE)) {
      return null;
    } catch (IOException | RuntimeException e) {
      return device + " cannot be opened for reading and writing by this user (" + e.getMessage()
          + "): add the appliance's user to the kvm group, or run it as root";
    }
  }

  private static MicroVmStatus verifiedGuest(Path qemu, MicroVmHost host) throws GuestProblem {
    Path dir = host.guestDir();
    Path list = dir.resolve(DIGESTS);
    byte[] listBytes;
    try {
      listBytes = Files.readAllBytes(list);
    } catch (NoSuchFileException e) {
      throw new GuestProblem("the guest image is not in place: " + list + " is missing; " + BUILD);
    } catch (IOException e) {
      throw new GuestProblem("the guest's digest list " + list + " cannot be read: "
          + e.getMessage());
    }
    Map<String, String> expected = digests(list, new String(listBytes, StandardCharsets.UTF_8));
    for (String name : GUEST_FILES) {
      String want = expected.get(name);
      if (want == null) {
        throw new GuestProblem(list + " names no digest for " + name + "; " + BUILD);
      }
      Path file = dir.resolve(name);
      String got = sha256(file);
      if (!got.equals(want)) {
        throw new GuestProblem("the guest's " + name + " does not match its digest in " + list
            + " (sha256 " + got.substring(0, 16) + "…, expected " + want.substring(0, 16)
            + "…): it changed since it was built; build it again");
      }
    }
    String digest = hex(sha256(listBytes));
    MicroVmGuest guest = new MicroVmGuest(qemu, host.kvmDevice(), dir.resolve("vmlinuz"),
        dir.resolve("initrd.img"), dir.resolve("rootfs.img"), digest);
    return new MicroVmStatus(true, "KVM at " + host.kvmDevice() + ", " + qemu + ", guest sha256:"
        + digest.substring(0, 16) + " in " + dir, guest);
  }

  /** The {@code sha256sum} lines of {@code list}: 64 hex digits, two spaces (or " *"), a name. */
  private static Map<String, String> digests(Path list, String text) throws GuestProblem {
    Map<String, String> out = new LinkedHashMap<>();
    for (String line : text.split("\n")) {
      if (line.isBlank()) {
        continue;
      }
      if (!line.matches("[0-9a-f]{64} [ *][^/]+")) {
        throw new GuestProblem(list + " is not a sha256sum digest list; " + BUILD);
      }
      out.put(line.substring(66), line.substring(0, 64));
    }
    return out;
  }

  private static String sha256(Path file) throws GuestProblem {
    MessageDigest md = sha256();
    try (InputStream in = Files.newInputStream(file)) {
      byte[] buf = new byte[1 << 20];
      for (int n; (n = in.read(buf)) > 0; ) {
        md.update(buf, 0, n);
      }
    } catch (NoSuchFileException e) {
      throw new GuestProblem("the guest image is not in place: " + file + " is missing; " + BUILD);
    } catch (IOException e) {
      throw new GuestProblem("the guest's " + file + " cannot be read: " + e.getMessage());
    }
    return hex(md.digest());
  }

  private static byte[] sha256(byte[] bytes) {
    return sha256().digest(bytes);
  }

  private static String hex(byte[] bytes) {
    return HexFormat.of().formatHex(bytes);
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
    }
  }

  /** Why the guest cannot be booted; the message is the operator's. */
  private static final class GuestProblem extends Exception {
    private static final long serialVersionUID = 1L;

    GuestProblem(String message) {
      super(message);
    }
  }
}
