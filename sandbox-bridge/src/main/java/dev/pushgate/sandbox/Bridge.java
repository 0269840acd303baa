package dev.pushgate.sandbox;

import dev.pushgate.types.UntrustedText;
import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * A TCP port on the sandbox's own loopback that leads to a Unix socket on the host. The sandbox
 * has no network of its own; a bridge is how a service on the host (the push gateway, the egress
 * proxy) is reached from inside at {@code 127.0.0.1:guestPort}.
 *
 * @param name a short name ({@code gateway}); the socket appears inside as {@code
 *     /run/pushgate/NAME.sock}
 * @param hostSocket the Unix socket on the host; the sandbox user must be able to reach and
 *     connect to it
 * @param guestPort the port inside, 1024 or above (the sandbox holds no capability to bind below)
 */
public record Bridge(String name, Path hostSocket, int guestPort) {
  private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9-]{0,30}");

  public Bridge {
    if (name == null || !NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "a bridge name is a short lower-case word, not: " + UntrustedText.printable(name));
    }
    if (hostSocket == null || !hostSocket.isAbsolute()) {
      throw new IllegalArgumentException(
          "bridge " + name + " needs an absolute socket path, not: " + hostSocket);
    }
    if (guestPort < 1024 || guestPort > 65535) {
      throw new IllegalArgumentException(
          "bridge " + name + ": the sandbox cannot listen on port " + guestPort
              + " (it holds no capability to bind below 1024)");
    }
  }

  /** Where the socket is mounted inside the sandbox. */
  public String guestSocket() {
    return "/run/pushgate/" + name + ".sock";
  }
}
