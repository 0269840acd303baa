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
 * (the gateway's boundary, through Jetty's {@code ProxyConnectionFactory}, the handle read from
 * the header's own bytes by {@link #fromProxyHeader}) share this class.
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

  /**
   * The handle a whole PROXY v2 header names, as its bytes came off the wire: null unless the
   * header is a well-formed v2 PROXY header whose TLVs fill its length exactly and name exactly one
   * handle ({@link #read}). Jetty's parser keeps one value per TLV type and drops the others
   * unseen, so two handles in one header would name whichever it kept; a header that names two is
   * refused here, as one whose TLVs overrun it.
   *
   * @param header the first bytes of the connection; more than the header is fine
   */
  public static String fromProxyHeader(byte[] header) {
    int length = header == null ? 0 : header.length;
    if (length < 16) {
      return null;
    }
    for (int i = 0; i < SIGNATURE.length; i++) {
      if (header[i] != SIGNATURE[i]) {
        return null;
      }
    }
    if (header[12] != VERSION_COMMAND) {
      return null;
    }
    int addresses = switch (header[13] & 0xFF) {
      case 0x11, 0x12 -> 12; // IPv4, stream or datagram
      case 0x21, 0x22 -> 36; // IPv6
      case 0x31, 0x32 -> 216; // UNIX
      default -> -1; // UNSPEC and anything else: a run's proxy writes TCP over IPv4
    };
    int end = 16 + ((header[14] & 0xFF) << 8 | header[15] & 0xFF);
    if (addresses < 0 || end > length || 16 + addresses > end) {
      return null;
    }
    byte[] handle = null;
    for (int at = 16 + addresses; at < end; ) {
      if (at + 3 > end) {
        return null;
      }
      int type = header[at] & 0xFF;
      int size = (header[at + 1] & 0xFF) << 8 | header[at + 2] & 0xFF;
      if (at + 3 + size > end) {
        return null;
      }
      if (type == TLV_TYPE) {
        if (handle != null) {
          return null;
        }
        handle = java.util.Arrays.copyOfRange(header, at + 3, at + 3 + size);
      }
      at += 3 + size;
    }
    return read(handle);
  }

  private static void short16(ByteArrayOutputStream out, int n) {
    out.write((n >>> 8) & 0xFF);
    out.write(n & 0xFF);
  }
}
