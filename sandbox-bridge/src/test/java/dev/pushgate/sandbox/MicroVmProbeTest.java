package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The microvm probe, step by step: each missing piece is named with what to do, and only a host
 * with KVM, the hypervisor and a guest matching its digests is available. {@code /dev/null}
 * stands in for a device that opens read-write; the hypervisor is a fake executable found in a
 * directory the test trusts.
 */
class MicroVmProbeTest {
  @TempDir Path tmp;
  private Path bin;
  private Path guest;

  @BeforeEach
  void hostWithAGuest() throws Exception {
    bin = Files.createDirectories(tmp.resolve("bin"));
    Path qemu = Files.writeString(bin.resolve("qemu-system-x86_64"), "#!/bin/sh\n");
    qemu.toFile().setExecutable(true);
    guest = Files.createDirectories(tmp.resolve("guest"));
    StringBuilder sums = new StringBuilder();
    for (String name : MicroVmProbe.GUEST_FILES) {
      byte[] bytes = ("the " + name).getBytes(StandardCharsets.UTF_8);
      Files.write(guest.resolve(name), bytes);
      sums.append(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes)))
          .append("  ").append(name).append('\n');
    }
    Files.writeString(guest.resolve("SHA256SUMS"), sums);
  }

  private static final MicroVmTrial.Outcome BOOTED =
      new MicroVmTrial.Outcome(null, java.time.Duration.ofMillis(640));

  private MicroVmStatus probe(Path kvm, Path guestDir) {
    return MicroVmProbe.probe(Platform.LINUX, new MicroVmHost(kvm, guestDir, bin.toString()),
        p -> true, g -> BOOTED);
  }

  /**
   * A guest that is in place, verified and boots is still not offered: no launcher runs a command
   * in it yet, and the probe never offers a VM that nobody starts.
   */
  @Test
  void aHostThatBootsTheVerifiedGuestSaysSoButDoesNotOfferItYet() {
    MicroVmStatus s = probe(Path.of("/dev/null"), guest);
    assertThat(s.available()).isFalse();
    assertThat(s.summary()).startsWith("microvm unavailable: the guest boots here (KVM at"
        + " /dev/null, " + bin.resolve("qemu-system-x86_64") + ", guest sha256:")
        .endsWith(" in " + guest + ", a trial boot took 640 ms), but pushgate does not launch"
            + " runs or terminals in it yet");
  }

  @Test
  void aMissingKvmDeviceIsNamed() {
    MicroVmStatus s = probe(tmp.resolve("no-kvm"), guest);
    assertThat(s.available()).isFalse();
    assertThat(s.summary()).isEqualTo("microvm unavailable: " + tmp.resolve("no-kvm")
        + " does not exist: this host offers no KVM (enable virtualisation, or nested"
        + " virtualisation in a VM, and load kvm_intel or kvm_amd)");
  }

  @Test
  void aRegularFileIsNotTheKvmDevice() throws Exception {
    Path file = Files.writeString(tmp.resolve("kvm"), "");
    assertThat(probe(file, guest).detail()).isEqualTo(file
        + " is not a device, so not the KVM device");
  }

  @Test
  void aMissingOrUntrustedHypervisorIsNamedWithThePackage() throws Exception {
    MicroVmStatus untrusted = MicroVmProbe.probe(Platform.LINUX,
        new MicroVmHost(Path.of("/dev/null"), guest, bin.toString()), p -> false, g -> BOOTED);
    assertThat(untrusted.detail()).startsWith("qemu-system-x86_64 is not installed")
        .endsWith("sudo apt-get install qemu-system-x86");
    Files.delete(bin.resolve("qemu-system-x86_64"));
    assertThat(probe(Path.of("/dev/null"), guest).detail())
        .startsWith("qemu-system-x86_64 is not installed");
  }

  @Test
  void noGuestOrAMissingFileSaysHowToBuildIt() throws Exception {
    assertThat(probe(Path.of("/dev/null"), null).detail()).isEqualTo("no guest image is"
        + " configured; build it with sandbox-bridge/src/main/guest/build-guest.sh DIR and start"
        + " pushgate with --microvm-guest DIR");
    Files.delete(guest.resolve("initrd.img"));
    assertThat(probe(Path.of("/dev/null"), guest).detail()).startsWith(
        "the guest image is not in place: " + guest.resolve("initrd.img") + " is missing; build");
  }

  @Test
  void aGuestFileThatChangedSinceItsBuildIsRefused() throws Exception {
    Files.writeString(guest.resolve("rootfs.img"), "the rootfs.img, changed");
    MicroVmStatus s = probe(Path.of("/dev/null"), guest);
    assertThat(s.available()).isFalse();
    assertThat(s.detail()).startsWith("the guest's rootfs.img does not match its digest in "
        + guest.resolve("SHA256SUMS")).endsWith("it changed since it was built; build it again");
  }

  @Test
  void aDigestListWithoutAFileOrNotInSha256sumFormatIsRefused() throws Exception {
    String sums = Files.readString(guest.resolve("SHA256SUMS"));
    Files.writeString(guest.resolve("SHA256SUMS"), sums.replaceAll("(?m)^.*vmlinuz\n", ""));
    assertThat(probe(Path.of("/dev/null"), guest).detail()).startsWith(
        guest.resolve("SHA256SUMS") + " names no digest for vmlinuz");
    Files.writeString(guest.resolve("SHA256SUMS"), "vmlinuz is fine\n");
    assertThat(probe(Path.of("/dev/null"), guest).detail()).startsWith(
        guest.resolve("SHA256SUMS") + " is not a sha256sum digest list");
  }

  /**
   * A KVM that opens but cannot run the guest (kvm_pvm boots only PVM kernels: Debian's hangs
   * before its first line) is no microvm backend: the trial boot, a real qemu here standing in as
   * a script, decides, and the reason names PVM where its module is loaded.
   */
  @Test
  void aGuestThatDoesNotBootInTheTrialMakesTheBackendUnavailable() throws Exception {
    Files.writeString(bin.resolve("qemu-system-x86_64"), "#!/bin/sh\necho 'qemu: no boot'\n"
        + "exit 1\n");
    Path pvm = Files.createDirectories(tmp.resolve("sys/module/kvm_pvm"));
    MicroVmStatus s = MicroVmProbe.probe(Platform.LINUX,
        new MicroVmHost(Path.of("/dev/null"), guest, bin.toString()), p -> true,
        g -> MicroVmTrial.boot(g, pvm));
    assertThat(s.available()).isFalse();
    assertThat(s.detail()).isEqualTo("the trial boot of the guest failed (qemu exit 1): qemu: no"
        + " boot; this host's KVM is kvm_pvm, which boots only kernels built as PVM guests, and"
        + " Debian's kernel is not one: this host cannot run the microvm backend");
  }

  @Test
  void aGuestThatReportsItsExitInTheTrialBooted() throws Exception {
    // What pushgate-guest-init does at the end: the command's status on the port pushgate.exit.
    Files.writeString(bin.resolve("qemu-system-x86_64"), "#!/bin/sh\nfor a; do case \"$a\" in"
        + " file,id=exit,path=*) echo 0 > \"${a#*path=}\";; esac; done\n");
    MicroVmStatus s = MicroVmProbe.probe(Platform.LINUX,
        new MicroVmHost(Path.of("/dev/null"), guest, bin.toString()), p -> true,
        g -> MicroVmTrial.boot(g, tmp.resolve("no-pvm")));
    assertThat(s.detail()).containsPattern("^the guest boots here \\(.*, a trial boot took"
        + " \\d+ ms\\), but pushgate does not launch runs or terminals in it yet$");
  }

  @Test
  void onlyLinuxBootsTheGuest() {
    MicroVmStatus s = MicroVmProbe.probe(Platform.MACOS,
        new MicroVmHost(Path.of("/dev/null"), guest, bin.toString()), p -> true, g -> BOOTED);
    assertThat(s.detail()).isEqualTo("the microvm backend boots its guest with KVM, on Linux"
        + " only; this host is macos");
  }
}
