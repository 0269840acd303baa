package dev.pushgate.it;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.zip.Deflater;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;

/**
 * Packs built byte by byte, so that they can lie: about an object's size, its compressed data,
 * the number of objects, the trailing checksum.
 */
final class PackBytes {
  /** One entry of a pack: a type, the size its header declares, and the bytes that follow. */
  record Entry(int type, long declaredSize, byte[] data) {}

  private PackBytes() {}

  /** An honest entry: {@code raw} deflated, its true size declared. */
  static Entry object(int type, byte[] raw) {
    return new Entry(type, raw.length, deflate(raw));
  }

  /** A receive-pack request: one command with {@code capabilities}, a flush, then the pack. */
  static byte[] request(String command, String capabilities, byte[] pack) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    pkt(out, command + "\0" + capabilities + "\n");
    out.writeBytes("0000".getBytes(StandardCharsets.US_ASCII));
    out.writeBytes(pack);
    return out.toByteArray();
  }

  static byte[] request(String command, byte[] pack) {
    return request(command, "report-status agent=it", pack);
  }

  /** A pack of {@code entries} with a correct header count and checksum. */
  static byte[] pack(Entry... entries) {
    ByteArrayOutputStream p = new ByteArrayOutputStream();
    p.writeBytes(header(entries.length));
    for (Entry e : entries) {
      p.writeBytes(objectHeader(e.type(), e.declaredSize()));
      p.writeBytes(e.data());
    }
    return withChecksum(p.toByteArray());
  }

  static byte[] header(long objectCount) {
    return new byte[] {'P', 'A', 'C', 'K', 0, 0, 0, 2, (byte) (objectCount >>> 24),
        (byte) (objectCount >>> 16), (byte) (objectCount >>> 8), (byte) objectCount};
  }

  static byte[] withChecksum(byte[] body) {
    ByteArrayOutputStream p = new ByteArrayOutputStream();
    p.writeBytes(body);
    p.writeBytes(sha1(body));
    return p.toByteArray();
  }

  /** The id git gives {@code raw} as an object of {@code type}. */
  static ObjectId id(int type, byte[] raw) {
    return ObjectId.fromRaw(sha1(concat(
        (Constants.typeString(type) + " " + raw.length + "\0").getBytes(StandardCharsets.US_ASCII),
        raw)));
  }

  static byte[] commit(ObjectId tree, ObjectId parent, String message) {
    return ("tree " + tree.name() + "\n" + (parent == null ? "" : "parent " + parent.name() + "\n")
        + "author Agent <agent@example.com> 1700000000 +0000\n"
        + "committer Agent <agent@example.com> 1700000000 +0000\n\n" + message + "\n")
        .getBytes(StandardCharsets.UTF_8);
  }

  /** A tree with one regular file {@code name} pointing at {@code blob}. */
  static byte[] tree(String name, ObjectId blob) {
    ByteArrayOutputStream t = new ByteArrayOutputStream();
    t.writeBytes(("100644 " + name + "\0").getBytes(StandardCharsets.UTF_8));
    byte[] raw = new byte[20];
    blob.copyRawTo(raw, 0);
    t.writeBytes(raw);
    return t.toByteArray();
  }

  /**
   * A {@code REF_DELTA} entry that makes {@code result} from {@code base}, declaring the base
   * {@code baseSize} bytes long (a lie, if one likes), by inserting every byte of the result.
   */
  static Entry refDelta(ObjectId base, long baseSize, byte[] result) {
    ByteArrayOutputStream delta = new ByteArrayOutputStream();
    for (long v : new long[] {baseSize, result.length}) {
      for (; v >= 0x80; v >>>= 7) {
        delta.write((int) ((v & 0x7f) | 0x80));
      }
      delta.write((int) v);
    }
    for (int at = 0; at < result.length; at += 127) {
      int n = Math.min(127, result.length - at);
      delta.write(n);
      delta.write(result, at, n);
    }
    ByteArrayOutputStream data = new ByteArrayOutputStream();
    byte[] raw = new byte[20];
    base.copyRawTo(raw, 0);
    data.writeBytes(raw);
    data.writeBytes(deflate(delta.toByteArray()));
    return new Entry(Constants.OBJ_REF_DELTA, delta.size(), data.toByteArray());
  }

  static byte[] deflate(byte[] raw) {
    Deflater d = new Deflater(Deflater.BEST_SPEED);
    d.setInput(raw);
    d.finish();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buf = new byte[65536];
    while (!d.finished()) {
      out.write(buf, 0, d.deflate(buf));
    }
    d.end();
    return out.toByteArray();
  }

  /** {@code size} zero bytes, deflated without ever holding them: a zlib bomb. */
  static byte[] deflatedZeros(long size) {
    Deflater d = new Deflater(Deflater.BEST_COMPRESSION);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] zeros = new byte[1 << 20];
    byte[] buf = new byte[65536];
    for (long left = size; left > 0; left -= zeros.length) {
      d.setInput(zeros, 0, (int) Math.min(zeros.length, left));
      while (!d.needsInput()) {
        out.write(buf, 0, d.deflate(buf));
      }
    }
    d.finish();
    while (!d.finished()) {
      out.write(buf, 0, d.deflate(buf));
    }
    d.end();
    return out.toByteArray();
  }

  private static byte[] objectHeader(int type, long size) {
    ByteArrayOutputStream h = new ByteArrayOutputStream();
    int c = (type << 4) | (int) (size & 0x0f);
    size >>>= 4;
    while (size != 0) {
      h.write(c | 0x80);
      c = (int) (size & 0x7f);
      size >>>= 7;
    }
    h.write(c);
    return h.toByteArray();
  }

  private static void pkt(ByteArrayOutputStream out, String line) {
    byte[] b = line.getBytes(StandardCharsets.UTF_8);
    out.writeBytes(String.format("%04x", b.length + 4).getBytes(StandardCharsets.US_ASCII));
    out.writeBytes(b);
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] c = new byte[a.length + b.length];
    System.arraycopy(a, 0, c, 0, a.length);
    System.arraycopy(b, 0, c, a.length, b.length);
    return c;
  }

  private static byte[] sha1(byte[] b) {
    try {
      return MessageDigest.getInstance("SHA-1").digest(b);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
