package dev.pushgate.gateway;

import static dev.pushgate.gateway.TestRepos.commit;
import static dev.pushgate.gateway.WireBytes.concat;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.zip.Deflater;
import org.eclipse.jgit.internal.storage.pack.PackWriter;
import org.eclipse.jgit.lib.NullProgressMonitor;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.storage.pack.PackConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pack scanner against packs JGit writes, whole and in pieces, and against broken ones. */
class PackBoundaryTest {
  @TempDir Path dir;

  @Test
  void findsTheTrailerOfARealPackFedInAnyPieces() throws Exception {
    byte[] pack = realPack(false);
    Random random = new Random(42);
    for (int round = 0; round < 50; round++) {
      PackBoundary scan = new PackBoundary(1 << 20);
      int forwardable = 0;
      for (int pos = 0; pos < pack.length; ) {
        int n = Math.min(pack.length - pos, round == 0 ? 1 : 1 + random.nextInt(300));
        forwardable += scan.feed(pack, pos, n);
        pos += n;
      }
      assertThat(scan.done()).isTrue();
      assertThat(forwardable).isEqualTo(pack.length - 20);
      assertThat(scan.trailer()).isEqualTo(Arrays.copyOfRange(pack, pack.length - 20, pack.length));
    }
  }

  @Test
  void followsAThinPackWithDeltasOnObjectsItDoesNotHold() throws Exception {
    byte[] pack = realPack(true);
    PackBoundary scan = new PackBoundary(1 << 20);

    assertThat(scan.feed(pack, 0, pack.length)).isEqualTo(pack.length - 20);
    assertThat(scan.done()).isTrue();
  }

  @Test
  void aPackWithoutItsTrailerIsNotDoneAndNothingOfTheTrailerPasses() throws Exception {
    byte[] pack = realPack(false);
    PackBoundary scan = new PackBoundary(1 << 20);

    assertThat(scan.feed(pack, 0, pack.length - 1)).isEqualTo(pack.length - 20);
    assertThat(scan.done()).isFalse();
    assertThat(scan.failed()).isFalse();
  }

  @Test
  void bytesAfterTheTrailerFailTheScan() throws Exception {
    byte[] pack = realPack(false);
    byte[] longer = Arrays.copyOf(pack, pack.length + 30);
    PackBoundary scan = new PackBoundary(1 << 20);

    assertThat(scan.feed(longer, 0, longer.length)).isZero();
    assertThat(scan.failed()).isTrue();
    assertThat(scan.failure()).isEqualTo("bytes after the pack's trailer");
  }

  @Test
  void brokenPacksFailTheScanAndLetNothingThrough() {
    Map<String, byte[]> broken = new HashMap<>();
    broken.put("no pack signature", bytes("JUNK", 2, 1));
    broken.put("pack version 9", bytes("PACK", 9, 1));
    broken.put("an object of unknown type 0", concat(bytes("PACK", 2, 1), new byte[] {0x05}));
    broken.put("an object of 200 bytes", concat(bytes("PACK", 2, 1),
        new byte[] {(byte) 0xb8, 0x0c}));                            // blob, size 8 + 12 << 4
    broken.put("an object larger than it declared",
        concat(bytes("PACK", 2, 1), new byte[] {0x31}, deflate(new byte[64])));  // blob of 1
    broken.put("an object smaller than it declared",
        concat(bytes("PACK", 2, 1), new byte[] {0x39}, deflate(new byte[2])));   // blob of 9
    broken.put("an object's compressed data is corrupt",
        concat(bytes("PACK", 2, 1), new byte[] {0x33, 0x00, 0x11, 0x22, 0x33}));
    broken.put("a delta's base offset does not fit 64 bits", concat(bytes("PACK", 2, 1),
        new byte[] {0x63}, filled(11, (byte) 0xff)));
    broken.put("an object's size does not fit 64 bits", concat(bytes("PACK", 2, 1),
        new byte[] {(byte) 0xb3}, filled(10, (byte) 0xff)));
    broken.forEach((why, pack) -> {
      PackBoundary scan = new PackBoundary(100);
      assertThat(scan.feed(pack, 0, pack.length)).as(why).isZero();
      assertThat(scan.failed()).as(why).isTrue();
      assertThat(scan.failure()).isEqualTo(why);
      assertThat(scan.feed(pack, 0, pack.length)).as(why).isZero();
    });
  }

  /** A pack of three commits (deltas included); thin: on top of a commit it leaves out. */
  private byte[] realPack(boolean thin) throws Exception {
    Repository db = TestRepos.bare(dir.resolve("r" + System.nanoTime() + ".git"));
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < 400; i++) {
      text.append("line ").append(i).append(" of a file that deltas well\n");
    }
    RevCommit base = commit(db, "base\n", Map.of("a.txt", text.toString(), "b.txt", "b\n"));
    RevCommit second = commit(db, "second\n", Map.of("a.txt", text + "one more\n"), base);
    RevCommit third = commit(db, "third\n", Map.of("a.txt", text + "two more\n", "c", "c"), second);
    try (PackWriter w = new PackWriter(new PackConfig(db), db.newObjectReader())) {
      w.setThin(thin);
      w.setDeltaBaseAsOffset(true);
      Set<ObjectId> have = thin ? Set.of(base) : Set.of();
      w.preparePack(NullProgressMonitor.INSTANCE, Set.of(third), have);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      w.writePack(NullProgressMonitor.INSTANCE, NullProgressMonitor.INSTANCE, out);
      db.close();
      return out.toByteArray();
    }
  }

  private static byte[] bytes(String signature, int version, int count) {
    byte[] h = new byte[12];
    System.arraycopy(signature.getBytes(java.nio.charset.StandardCharsets.US_ASCII), 0, h, 0, 4);
    h[7] = (byte) version;
    h[11] = (byte) count;
    return h;
  }

  private static byte[] deflate(byte[] data) {
    Deflater d = new Deflater();
    d.setInput(data);
    d.finish();
    byte[] out = new byte[data.length + 64];
    int n = d.deflate(out);
    d.end();
    return Arrays.copyOf(out, n);
  }

  private static byte[] filled(int n, byte b) {
    byte[] out = new byte[n];
    Arrays.fill(out, b);
    return out;
  }
}
