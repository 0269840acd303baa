package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The hypervisor's command line: KVM, an overlay per VM, a network with no route but its ports. */
class MicroVmArgvTest {
  private static final MicroVmGuest GUEST = new MicroVmGuest(
      Path.of("/usr/bin/qemu-system-x86_64"), Path.of("/dev/kvm"), Path.of("/g/vmlinuz"),
      Path.of("/g/initrd.img"), Path.of("/g/rootfs.img"), "ab".repeat(32));

  private static List<String> argv() {
    return MicroVmArgv.build(GUEST, List.of(
            new MicroVmArgv.Share("meta", Path.of("/s/meta"), true),
            new MicroVmArgv.Share("m0", Path.of("/srv/work"), false)),
        List.of(new MicroVmArgv.Forward(3128, Path.of("/s/proxy.sock")),
            new MicroVmArgv.Forward(7070, Path.of("/run/pushgate/gateway.sock"))),
        Path.of("/s/exit"));
  }

  @Test
  void bootsTheMicroVmMachineUnderKvmWithAFreshOverlayOverTheBase() {
    List<String> a = argv();
    assertThat(a.get(0)).isEqualTo("/usr/bin/qemu-system-x86_64");
    assertThat(String.join(" ", a)).contains("-M microvm,", "-accel kvm",
        "-drive id=root,file=/g/rootfs.img,format=raw,if=none,snapshot=on",
        "local,id=meta,path=/s/meta,security_model=none,readonly=on",
        "local,id=m0,path=/srv/work,security_model=none -device");
  }

  @Test
  void theNetworkReachesOnlyItsForwardedSocketsAtOnePeer() {
    String net = argv().get(argv().indexOf("-netdev") + 1);
    assertThat(net).isEqualTo("user,id=net,restrict=on,ipv6=off"
        + ",guestfwd=tcp:10.0.2.100:3128-cmd:socat - UNIX-CONNECT:/s/proxy.sock"
        + ",guestfwd=tcp:10.0.2.100:7070-cmd:socat - UNIX-CONNECT:/run/pushgate/gateway.sock");
    assertThat(String.join(" ", argv())).doesNotContain("hostfwd").doesNotContain("smb=");
  }

  @Test
  void aPathQemuOrTheShellWouldSplitIsRefused() {
    assertThatThrownBy(() -> new MicroVmArgv.Share("m0", Path.of("/srv/a,readonly=off"), true))
        .hasMessageStartingWith("a shared directory has a character qemu's options");
    assertThatThrownBy(() -> new MicroVmArgv.Forward(1, Path.of("/s/x;reboot")))
        .hasMessageStartingWith("a forwarded socket has a character");
  }
}
