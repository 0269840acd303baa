package dev.pushgate.types;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * How a run's egress proxy tells the appliance's one GitHub API boundary listener whose tunnel a
 * connection is: a PROXY protocol v2 header (haproxy's proxy-protocol.txt, section 2.2) written
 * before the first TLS byte, carrying the run's handle in a TLV of pushgate's own type. The
 * handle is a random value made per run, never the run id: anything on the host's loopback can
 * connect to the listener, and a run id is no secret. The writer (sandbox-bridge) and the reader
 * (the gateway's boundary, through Jetty's {@code ProxyConnectionFactory}) share this class.
 */
public final class BoundaryHandle {
  /** The TLV type carrying the handle: the first of the range kept for custom use (0xE0). */
  public static final int TLV_TYPE = 0xE0;
  /** Random bytes in a handle: as unguessable as a run's sentinel. */
  static final int BYTES = 32;

  private static final SecureRandom RANDOM = new SecureRandom();
  private static final byte[] SIGNATURE = {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55,
      0x49, 0x54, 0x0A};
  /** Version 2, command PROXY. */
  private static final int VERSION_COMMAND = 0x21;
  /** TCP over IPv4: the addresses are loopback's, the handle alone says who. */
  private static final int TCP4 = 0x11;

  private BoundaryHandle() {}

  /** A new handle: 32 random bytes, base64url without padding (43 ASCII characters). */
  public static String newValue() {
    byte[] b = new byte[BYTES];
    RANDOM.nextBytes(b);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }

  /**
   * The PROXY v2 header naming {@code handle}: what a proxy writes on a connection to the
   * boundary before it relays the run's first byte.
   */
  public static byte[] proxyHeader(String handle) {
    if (handle == null || handle.isEmpty()) {
      throw new IllegalArgumentException("a boundary connection names a run's handle");
    }
    byte[] value = handle.getBytes(StandardCharsets.US_ASCII);
    int length = 12 + 3 + value.length;
    ByteArrayOutputStream out = new ByteArrayOutputStream(16 + length);
    out.writeBytes(SIGNATURE);
    out.write(VERSION_COMMAND);
    out.write(TCP4);
    short16(out, length);
    // Source and destination 127.0.0.1, ports 0: Jetty wants addresses; nothing reads them.
    out.writeBytes(new byte[] {127, 0, 0, 1, 127, 0, 0, 1, 0, 0, 0, 0});
    out.write(TLV_TYPE);
    short16(out, value.length);
    out.writeBytes(value);
    return out.toByteArray();
  }

  /** The handle a TLV's value spells, or null when it is none (absent, empty, not ASCII). */
  public static String read(byte[] tlv) {
    if (tlv == null || tlv.length == 0 || tlv.length > 64) {
      return null;
    }
    for (byte b : tlv) {
      if (b <= 0x20 || b >= 0x7F) {
        return null;
      }
    }
    return new String(tlv, StandardCharsets.US_ASCII);
  }

  private static void short16(ByteArrayOutputStream out, int n) {
    out.write((n >>> 8) & 0xFF);
    out.write(n & 0xFF);
  }
}
