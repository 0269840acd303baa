package dev.pushgate.sandbox;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The hypervisor's command line for one guest: {@code qemu-system-x86_64 -M microvm} under KVM,
 * the guest's kernel and initramfs, its root image with an overlay of this VM's own ({@code
 * snapshot=on}: writes go to a file qemu deletes, the cached base is never written), the launch's
 * read-only share {@code meta} and the run's shares over 9p, one virtio console (the command's
 * input and output) and the port {@code pushgate.exit} its exit status comes back on.
 *
 * <p>The network is qemu's user-mode stack with {@code restrict=on}: the guest reaches no host
 * address and nothing outside; the only connections that leave it are to {@link #PEER}, where one
 * {@code guestfwd} per port connects each connection to a Unix socket of the host (the run's
 * egress proxy, the gateway). Nothing secret is on this command line ({@code /proc/PID/cmdline}
 * is world-readable): the run's environment and files are in the {@code meta} share, readable by
 * the sandbox user alone.
 */
public final class MicroVmArgv {
  /** The guest's only peer: qemu's user-mode stack connects its ports to the host's sockets. */
  public static final String PEER = "10.0.2.100";

  /** Memory of one guest, in MiB. */
  static final int MEMORY_MIB = 512;

  /** A host Unix socket the guest reaches at {@link #PEER}:{@code port}. */
  public record Forward(int port, Path socket) {
    public Forward {
      if (port < 1 || port > 65535 || socket == null || !socket.isAbsolute()) {
        throw new IllegalArgumentException("a forward is a port and an absolute socket path");
      }
      checkPlain(socket.toString(), "a forwarded socket");
    }
  }

  /** A host directory shared into the guest under {@code tag}. */
  public record Share(String tag, Path hostPath, boolean readOnly) {
    public Share {
      if (tag == null || !tag.matches("[a-z][a-z0-9]{0,30}") || hostPath == null
          || !hostPath.isAbsolute()) {
        throw new IllegalArgumentException("a share is a short tag and an absolute path");
      }
      checkPlain(hostPath.toString(), "a shared directory");
    }
  }

  private MicroVmArgv() {}

  /**
   * The argv of one guest.
   *
   * @param guest the verified guest
   * @param shares the {@code meta} share first, then the run's
   * @param forwards the ports the guest reaches at {@link #PEER}
   * @param exitFile where the guest's exit status is written
   */
  public static List<String> build(MicroVmGuest guest, List<Share> shares,
      List<Forward> forwards, Path exitFile) {
    checkPlain(exitFile.toString(), "the exit file");
    List<String> a = new ArrayList<>(List.of(guest.qemu().toString(),
        "-M", "microvm,x-option-roms=off,isa-serial=off,rtc=off",
        "-accel", "kvm", "-cpu", "host", "-m", String.valueOf(MEMORY_MIB), "-smp", "1",
        "-nodefaults", "-no-user-config", "-nographic", "-no-reboot",
        "-kernel", guest.kernel().toString(), "-initrd", guest.initrd().toString(),
        "-append", "console=hvc0 quiet loglevel=0 panic=-1",
        "-drive", "id=root,file=" + guest.rootImage() + ",format=raw,if=none,snapshot=on",
        "-device", "virtio-blk-device,drive=root"));
    for (Share s : shares) {
      a.add("-fsdev");
      a.add("local,id=" + s.tag() + ",path=" + s.hostPath() + ",security_model=none"
          + (s.readOnly() ? ",readonly=on" : ""));
      a.add("-device");
      a.add("virtio-9p-device,fsdev=" + s.tag() + ",mount_tag=" + s.tag());
    }
    StringBuilder net = new StringBuilder("user,id=net,restrict=on,ipv6=off");
    for (Forward f : forwards) {
      // qemu runs the command for each connection; socat's "-" is that connection.
      net.append(",guestfwd=tcp:").append(PEER).append(':').append(f.port())
          .append("-cmd:socat - UNIX-CONNECT:").append(f.socket());
    }
    a.addAll(List.of("-netdev", net.toString(), "-device", "virtio-net-device,netdev=net",
        "-device", "virtio-serial-device",
        "-chardev", "stdio,id=console,signal=off", "-device", "virtconsole,chardev=console",
        "-chardev", "file,id=exit,path=" + exitFile,
        "-device", "virtserialport,chardev=exit,name=pushgate.exit"));
    return a;
  }

  /**
   * qemu splits its option values at commas and the guestfwd command is run by a shell: a path
   * there is one qemu and the shell take as it is written, or it is refused.
   */
  private static void checkPlain(String path, String what) {
    if (!path.matches("/[A-Za-z0-9._/+-]*")) {
      throw new IllegalArgumentException(what + " has a character qemu's options or the shell"
          + " would read: " + dev.pushgate.types.UntrustedText.printable(path));
    }
  }
}
