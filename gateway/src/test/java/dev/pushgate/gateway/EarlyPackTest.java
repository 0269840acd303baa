package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * What a streamed push sends upstream while the cache fetches: never 20 bytes that could
 * complete its pack, whatever follows them, and what JGit's parser then hands the copy is
 * checked against it.
 */
class EarlyPackTest {
  private static final byte[] HEADER = {'P', 'A', 'C', 'K', 0, 0, 0, 2, 0, 0, 0, 3};

  @Test
  void aWholePackIsClearedUpToItsTrailerHoweverItArrives() {
    byte[] pack = pack(900, new Random(1));
    for (int seed = 0; seed < 20; seed++) {
      Random reads = new Random(seed);
      TrailerScan scan = new TrailerScan();
      int cleared = 0;
      for (int length = 0; length < pack.length; ) {
        length = Math.min(pack.length, length + 1 + reads.nextInt(200));
        int now = scan.clear(pack, length);
        assertThat(now).as("never shrinks").isGreaterThanOrEqualTo(cleared);
        assertThat(now).as("never the trailer").isLessThanOrEqualTo(pack.length - 20);
        cleared = now;
      }
      assertThat(cleared).isEqualTo(pack.length - 20);
      assertThat(scan.foundTrailer()).isTrue();
    }
  }

  /**
   * Junk after the trailer would move it out of the last 20 bytes read: the scan stops at it
   * all the same, for good.
   */
  @Test
  void bytesAfterTheTrailerNeverLetItThrough() {
    byte[] pack = pack(300, new Random(2));
    byte[] withJunk = Arrays.copyOf(pack, pack.length + 4096);
    Arrays.fill(withJunk, pack.length, withJunk.length, (byte) 'x');
    TrailerScan scan = new TrailerScan();

    assertThat(scan.clear(withJunk, pack.length + 20)).isEqualTo(pack.length - 20);
    assertThat(scan.clear(withJunk, withJunk.length)).isEqualTo(pack.length - 20);
  }

  /** A trailer anywhere, not only where the objects end: whoever parses it, nothing completes. */
  @Test
  void theFirstRunOfTwentyBytesThatIsTheShaOfAllBeforeStopsIt() {
    byte[] early = pack(40, new Random(3)); // 12 + 40 bytes, then their SHA-1
    byte[] more = new byte[500];
    new Random(4).nextBytes(more);
    byte[] stream = Arrays.copyOf(early, early.length + more.length);
    System.arraycopy(more, 0, stream, early.length, more.length);

    assertThat(new TrailerScan().clear(stream, stream.length)).isEqualTo(early.length - 20);
  }

  @Test
  void bytesWithoutATrailerAreClearedButTheirLastTwenty() {
    byte[] bytes = new byte[1000];
    new Random(5).nextBytes(bytes);
    TrailerScan scan = new TrailerScan();

    assertThat(scan.clear(bytes, 10)).isZero();
    assertThat(scan.clear(bytes, 1000)).isEqualTo(980);
    assertThat(scan.foundTrailer()).isFalse();
  }

  @Test
  void sendsWhatArrivesWhileTheFetchRunsAndReplaysItAllToJGit() throws Exception {
    byte[] pack = pack(2000, new Random(6));
    byte[] afterHeader = Arrays.copyOfRange(pack, 12, pack.length);
    ByteArrayOutputStream upstream = new ByteArrayOutputStream();
    ByteArrayInputStream body = new ByteArrayInputStream(afterHeader);
    EarlyPack early = new EarlyPack(HEADER);

    early.send(body, () -> true, upstream::write);

    assertThat(upstream.toByteArray()).isEqualTo(Arrays.copyOf(pack, pack.length - 20));
    assertThat(early.sent()).isEqualTo(pack.length - 20);
    assertThat(early.replay(body).readAllBytes()).isEqualTo(afterHeader);
  }

  @Test
  void readsNothingOnceTheFetchHasEnded() throws Exception {
    byte[] afterHeader = Arrays.copyOfRange(pack(2000, new Random(7)), 12, 2032);
    ByteArrayInputStream rest = new ByteArrayInputStream(afterHeader);
    EarlyPack early = new EarlyPack(HEADER);

    early.send(rest, () -> false, (b, off, len) -> {
      throw new AssertionError("nothing to send");
    });

    assertThat(early.sent()).isZero();
    assertThat(early.replay(rest).readAllBytes()).isEqualTo(afterHeader);
  }

  /** A client that went: JGit's read of the same bytes fails as the read ahead did. */
  @Test
  void aFailedReadFailsJGitsReadAtTheSamePoint() throws Exception {
    byte[] pack = pack(500, new Random(8));
    InputStream cut = new java.io.SequenceInputStream(
        new ByteArrayInputStream(pack, 12, 200), failing());
    EarlyPack early = new EarlyPack(HEADER);

    early.send(cut, () -> true, (b, off, len) -> { });

    InputStream replay = early.replay(new ByteArrayInputStream(new byte[0]));
    assertThat(replay.readNBytes(200)).isEqualTo(Arrays.copyOfRange(pack, 12, 212));
    assertThatThrownBy(replay::read).hasMessage("the client went");
  }

  @Test
  void theParserHandsTheCopyOnlyWhatCameAfterTheBytesSentAhead() throws Exception {
    byte[] pack = pack(3000, new Random(9));
    EarlyPack early = new EarlyPack(HEADER);
    early.send(new ByteArrayInputStream(pack, 12, 1000), () -> true, (b, off, len) -> { });
    RecordingCopy copy = new RecordingCopy();
    PackCopy resumed = early.resume(copy);

    for (int at = 0; at < pack.length - 20; at += 77) {
      resumed.objects(pack, at, Math.min(77, pack.length - 20 - at));
    }
    resumed.objectsEnd(Arrays.copyOfRange(pack, pack.length - 20, pack.length));

    assertThat(copy.objects.toByteArray())
        .isEqualTo(Arrays.copyOfRange(pack, early.sent(), pack.length - 20));
    assertThat(copy.trailer).isEqualTo(Arrays.copyOfRange(pack, pack.length - 20, pack.length));
  }

  @Test
  void aParsedByteThatDiffersFromOneSentAheadFailsThePush() throws Exception {
    byte[] pack = pack(3000, new Random(10));
    EarlyPack early = new EarlyPack(HEADER);
    early.send(new ByteArrayInputStream(pack, 12, 1000), () -> true, (b, off, len) -> { });
    RecordingCopy copy = new RecordingCopy();
    byte[] other = pack.clone();
    other[500] ^= 1;

    assertThatThrownBy(() -> early.resume(copy).objects(other, 0, 1000))
        .hasMessage("the pack parsed differs from the pack sent upstream ahead of it at byte 0");
    assertThat(copy.objects.size()).isZero();
  }

  @Test
  void objectsThatEndInsideWhatWasSentAheadFailThePush() throws Exception {
    byte[] pack = pack(3000, new Random(11));
    EarlyPack early = new EarlyPack(HEADER);
    early.send(new ByteArrayInputStream(pack, 12, 1000), () -> true, (b, off, len) -> { });
    PackCopy resumed = early.resume(new RecordingCopy());
    resumed.objects(pack, 0, 500);

    assertThatThrownBy(() -> resumed.objectsEnd(new byte[20])).hasMessage("the pack's objects"
        + " end at byte 500, before the " + early.sent() + " sent upstream ahead of its parser");
  }

  /** {@link #HEADER}, {@code bodyBytes} random bytes, then the SHA-1 of all of them. */
  private static byte[] pack(int bodyBytes, Random random) {
    byte[] pack = Arrays.copyOf(HEADER, 12 + bodyBytes + 20);
    byte[] body = new byte[bodyBytes];
    random.nextBytes(body);
    System.arraycopy(body, 0, pack, 12, bodyBytes);
    try {
      MessageDigest sha1 = MessageDigest.getInstance("SHA-1");
      sha1.update(pack, 0, 12 + bodyBytes);
      System.arraycopy(sha1.digest(), 0, pack, 12 + bodyBytes, 20);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
    return pack;
  }

  private static InputStream failing() {
    return new InputStream() {
      @Override
      public int read() throws IOException {
        throw new IOException("the client went");
      }
    };
  }

  private static final class RecordingCopy implements PackCopy {
    final ByteArrayOutputStream objects = new ByteArrayOutputStream();
    byte[] trailer;

    @Override
    public void objects(byte[] b, int off, int len) {
      objects.write(b, off, len);
    }

    @Override
    public void objectsEnd(byte[] packTrailer) {
      trailer = packTrailer;
    }
  }
}
