package dev.pushgate.types;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class BoundedBodyTest {
  @Test
  void aBodyWithinTheLimitIsReadWhole() throws Exception {
    byte[] body = "{\"a\":1}".getBytes(StandardCharsets.UTF_8);
    assertThat(BoundedBody.read(new ByteArrayInputStream(body), body.length, body.length))
        .isEqualTo(body);
    assertThat(BoundedBody.read(new ByteArrayInputStream(new byte[0]), -1, 0)).isEmpty();
  }

  /** A call without a body (every GET) no longer costs a 64 KiB buffer (issue 33). */
  @Test
  void anEmptyBodyIsReadWithASmallBufferAndALargeOneWhole() throws Exception {
    List<Integer> asked = new ArrayList<>();
    class Recording extends ByteArrayInputStream {
      Recording(byte[] bytes) {
        super(bytes);
      }

      @Override
      public synchronized int read(byte[] b, int off, int len) {
        asked.add(len);
        return super.read(b, off, len);
      }
    }
    assertThat(BoundedBody.read(new Recording(new byte[0]), -1, 1 << 20)).isEmpty();
    assertThat(BoundedBody.read(new Recording(new byte[0]), 0, 1 << 20)).isEmpty();
    assertThat(asked).allSatisfy(n -> assertThat(n)
        .isLessThanOrEqualTo(BoundedBody.FIRST_UNDECLARED_CHUNK));
    byte[] large = new byte[300_000];
    new java.util.Random(1).nextBytes(large);
    assertThat(BoundedBody.read(new Recording(large), -1, 1 << 20)).isEqualTo(large);
    assertThat(BoundedBody.read(new Recording(large), large.length, 1 << 20)).isEqualTo(large);
  }

  @Test
  void aDeclaredLengthOverTheLimitIsRefusedUnread() {
    InputStream never = new InputStream() {
      @Override
      public int read() {
        throw new AssertionError("a body declared too large is not read");
      }
    };
    assertThatThrownBy(() -> BoundedBody.read(never, 11, 10))
        .isInstanceOf(BoundedBody.Refused.class)
        .hasMessage("the body is larger than 10 bytes")
        .extracting(e -> ((BoundedBody.Refused) e).why())
        .isEqualTo(BoundedBody.Refused.Why.TOO_LARGE);
  }

  @Test
  void aBodyThatArrivesLargerThanItsDeclaredLengthIsRefusedAtTheLimit() {
    assertThatThrownBy(() -> BoundedBody.read(new ByteArrayInputStream(new byte[11]), 3, 10))
        .isInstanceOf(BoundedBody.Refused.class)
        .hasMessage("the body is larger than 10 bytes");
  }

  @Test
  void aBudgetThatRunsOutRefusesTheBodyAndKeepsWhatItGave() {
    AtomicInteger left = new AtomicInteger(100_000);
    BoundedBody.Budget budget = n -> left.addAndGet(-n) >= 0;
    assertThatThrownBy(() -> BoundedBody.read(new ByteArrayInputStream(new byte[200_000]), -1,
        1_000_000, budget))
        .isInstanceOf(BoundedBody.Refused.class)
        .extracting(e -> ((BoundedBody.Refused) e).why())
        .isEqualTo(BoundedBody.Refused.Why.OVER_BUDGET);
  }

  @Test
  void textIsStrictUtf8() throws Exception {
    assertThat(BoundedBody.utf8("gr\u00fc\u00df".getBytes(StandardCharsets.UTF_8)))
        .isEqualTo("gr\u00fc\u00df");
    assertThatThrownBy(() -> BoundedBody.utf8(new byte[] {'a', (byte) 0xc3, 'b'}))
        .isInstanceOf(BoundedBody.Refused.class)
        .hasMessage("the body is not valid UTF-8")
        .extracting(e -> ((BoundedBody.Refused) e).why())
        .isEqualTo(BoundedBody.Refused.Why.NOT_UTF8);
  }

  @Test
  void aCollectorRefusesTheChunkThatPassesTheLimit() throws Exception {
    BoundedBody.Collector c = new BoundedBody.Collector(-1, 10, BoundedBody.Budget.NONE);
    c.add(new byte[8], 0, 8);
    assertThatThrownBy(() -> c.add(new byte[8], 0, 3))
        .isInstanceOf(BoundedBody.Refused.class);
    assertThat(c.bytes()).hasSize(8);
  }

  /**
   * attack36: a body was held in a ByteArrayOutputStream that grew by doubling and was copied
   * again whole, ~1.6 times its length. A declared length is now taken from the budget before a
   * byte is held and read into one buffer of that length, returned as it is.
   */
  @Test
  void aDeclaredBodyIsTakenWholeFirstAndReadIntoOneBufferOfItsLength() throws Exception {
    List<Integer> taken = new ArrayList<>();
    BoundedBody.Collector body = new BoundedBody.Collector(10, 100, taken::add);
    assertThat(taken).containsExactly(10);
    body.add("01234".getBytes(StandardCharsets.US_ASCII), 0, 5);
    body.add(java.nio.ByteBuffer.wrap("56789".getBytes(StandardCharsets.US_ASCII)));
    assertThat(taken).containsExactly(10);
    byte[] bytes = body.bytes();
    assertThat(bytes).isEqualTo("0123456789".getBytes(StandardCharsets.US_ASCII));
    assertThat(body.bytes()).isSameAs(bytes);
    assertThatThrownBy(() -> body.add(new byte[1], 0, 1))
        .hasMessage("the body is longer than its declared 10 bytes");
  }

  @Test
  void aDeclaredLengthTheBudgetHasNotIsRefusedBeforeAByteIsHeld() {
    assertThatThrownBy(() -> new BoundedBody.Collector(10, 100, n -> n <= 9))
        .isInstanceOf(BoundedBody.Refused.class)
        .extracting(e -> ((BoundedBody.Refused) e).why())
        .isEqualTo(BoundedBody.Refused.Why.OVER_BUDGET);
  }

  /**
   * A body of no declared length is kept in one buffer grown by doubling, whose whole capacity
   * the budget counts while the body arrives; once whole, the body takes its length and gives
   * the buffer back. However it is cut (attack atk-fairbody: a million one-byte chunks once held
   * ~30 bytes of heap for each byte counted), what is held is what is counted.
   */
  @Test
  void anUndeclaredBodyIsCountedAsTheBufferThatHoldsItHoweverItIsChunked() throws Exception {
    AtomicInteger held = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    BoundedBody.Budget budget = new BoundedBody.Budget() {
      @Override
      public boolean take(int bytes) {
        most.accumulateAndGet(held.addAndGet(bytes), Math::max);
        return true;
      }

      @Override
      public void give(int bytes) {
        held.addAndGet(-bytes);
      }
    };
    int length = 100_000;
    BoundedBody.Collector body = new BoundedBody.Collector(-1, 1 << 20, budget);
    for (int i = 0; i < length; i++) {
      body.add(new byte[] {(byte) i}, 0, 1);
    }
    assertThat(held.get()).isEqualTo(131_072); // the buffer: 256 doubled to the first ≥ 100,000
    byte[] whole = body.bytes();
    assertThat(whole).hasSize(length);
    assertThat(whole[99_999]).isEqualTo((byte) 99_999);
    assertThat(held.get()).isEqualTo(length);
    assertThat(most.get()).isEqualTo(131_072 + length); // the buffer and its trimmed copy, briefly
  }

  /** A body that fills its buffer (here: the limit caps it) is handed on with no copy. */
  @Test
  void anUndeclaredBodyThatFillsItsBufferIsNotCopied() throws Exception {
    AtomicInteger held = new AtomicInteger();
    BoundedBody.Collector body = new BoundedBody.Collector(-1, 12, bytes -> {
      held.addAndGet(bytes);
      return true;
    });
    for (String part : List.of("abcd", "efgh", "ijkl")) {
      body.add(part.getBytes(StandardCharsets.US_ASCII), 0, 4);
    }
    assertThat(held.get()).isEqualTo(12);
    assertThat(body.bytes()).isEqualTo("abcdefghijkl".getBytes(StandardCharsets.US_ASCII));
    assertThat(held.get()).isEqualTo(12);
  }
}
