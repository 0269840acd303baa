package dev.pushgate.types;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The PROXY v2 header a run's proxy writes, read back from its bytes as sent. */
class BoundaryHandleTest {
  private static final String A = BoundaryHandle.newValue();
  private static final String B = BoundaryHandle.newValue();

  @Test
  void theHeaderAProxyWritesNamesItsHandleWhateverFollowsIt() {
    byte[] header = BoundaryHandle.proxyHeader(A);
    assertThat(BoundaryHandle.fromProxyHeader(header)).isEqualTo(A);
    byte[] withTls = Arrays.copyOf(header, header.length + 5);
    withTls[header.length] = 0x16; // a TLS record begins
    assertThat(BoundaryHandle.fromProxyHeader(withTls)).isEqualTo(A);
  }

  @Test
  void aHeaderNamingTwoHandlesNamesNone() {
    assertThat(BoundaryHandle.fromProxyHeader(withTlvs(tlv(0xE0, A), tlv(0xE0, B)))).isNull();
    assertThat(BoundaryHandle.fromProxyHeader(withTlvs(tlv(0xE0, A), tlv(0xE0, A)))).isNull();
    // a TLV of another type beside the one handle is no matter
    assertThat(BoundaryHandle.fromProxyHeader(withTlvs(tlv(0x04, "x"), tlv(0xE0, A))))
        .isEqualTo(A);
  }

  @Test
  void aMalformedHeaderNamesNone() {
    byte[] good = BoundaryHandle.proxyHeader(A);
    // cut short: the header's length promises more than came
    assertThat(BoundaryHandle.fromProxyHeader(Arrays.copyOf(good, good.length - 1))).isNull();
    // a TLV whose length runs past the header's end
    byte[] overrun = good.clone();
    overrun[16 + 12 + 2] += 1;
    assertThat(BoundaryHandle.fromProxyHeader(overrun)).isNull();
    // a header length that ends inside a TLV
    byte[] inside = good.clone();
    inside[15] -= 1;
    assertThat(BoundaryHandle.fromProxyHeader(inside)).isNull();
    // version 1, a LOCAL command, an unspecified family, no handle at all, nothing
    assertThat(BoundaryHandle.fromProxyHeader("PROXY TCP4 127.0.0.1 127.0.0.1 1 2\r\n"
        .getBytes(StandardCharsets.US_ASCII))).isNull();
    byte[] local = good.clone();
    local[12] = 0x20;
    assertThat(BoundaryHandle.fromProxyHeader(local)).isNull();
    byte[] unspec = good.clone();
    unspec[13] = 0x00;
    assertThat(BoundaryHandle.fromProxyHeader(unspec)).isNull();
    assertThat(BoundaryHandle.fromProxyHeader(withTlvs())).isNull();
    assertThat(BoundaryHandle.fromProxyHeader(new byte[0])).isNull();
    assertThat(BoundaryHandle.fromProxyHeader(null)).isNull();
  }

  /** The proxy's header for {@link #A}, its TLVs replaced by {@code tlvs}. */
  static byte[] withTlvs(byte[]... tlvs) {
    byte[] good = BoundaryHandle.proxyHeader(A);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(good, 0, 16 + 12);
    for (byte[] t : tlvs) {
      out.writeBytes(t);
    }
    byte[] header = out.toByteArray();
    int length = header.length - 16;
    header[14] = (byte) (length >>> 8);
    header[15] = (byte) length;
    return header;
  }

  static byte[] tlv(int type, String value) {
    byte[] v = value.getBytes(StandardCharsets.US_ASCII);
    byte[] t = new byte[3 + v.length];
    t[0] = (byte) type;
    t[1] = (byte) (v.length >>> 8);
    t[2] = (byte) v.length;
    System.arraycopy(v, 0, t, 3, v.length);
    return t;
  }
}
