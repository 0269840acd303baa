package dev.pushgate.gateway;

import jakarta.servlet.http.HttpServletRequest;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Ends a client's read that waits longer than the client timeout, for every push at once from one
 * thread. JGit's receive-pack timeout does the same with a new thread for each push, whose start
 * and end cost more than half a millisecond of a small push. A stalled read is interrupted;
 * Jetty's blocking read then fails and the push is answered as timed out.
 *
 * <p>Measured with {@link System#nanoTime}, not the gateway's clock: this bounds how long a
 * thread is really blocked, and the configured clock may be fixed (tests) or stepped (NTP). Its
 * own test passes a time it moves by hand, so that it never waits for time to pass.
 */
final class ClientReadTimeout implements AutoCloseable {
  private final long timeoutNanos;
  private final LongSupplier nanoTime;
  private final Set<Watched> reading = ConcurrentHashMap.newKeySet();
  private final ScheduledFuture<?> ticking;

  /** Checks every read on {@code ticker}, which the caller owns. */
  ClientReadTimeout(Duration timeout, ScheduledExecutorService ticker) {
    this(timeout, ticker, System::nanoTime);
  }

  /** As above, with {@code nanoTime} in place of {@link System#nanoTime}. */
  ClientReadTimeout(Duration timeout, ScheduledExecutorService ticker, LongSupplier nanoTime) {
    this.timeoutNanos = timeout.toNanos();
    this.nanoTime = nanoTime;
    long tick = Math.max(10, Math.min(1000, timeout.toMillis() / 4));
    this.ticking =
        ticker.scheduleWithFixedDelay(this::expireStalled, tick, tick, TimeUnit.MILLISECONDS);
  }

  /** {@code req} with a body each of whose reads fails once it has waited past the timeout. */
  HttpServletRequest watch(HttpServletRequest req) throws IOException {
    return HandedOn.withBody(req, watch(req.getInputStream()));
  }

  /** {@code in}, each of whose reads fails once it has waited longer than the timeout. */
  InputStream watch(InputStream in) {
    return new Watched(in);
  }

  @Override
  public void close() {
    ticking.cancel(false);
  }

  private void expireStalled() {
    long now = nanoTime.getAsLong();
    for (Watched w : reading) {
      w.expireIfStalled(now);
    }
  }

  private final class Watched extends FilterInputStream {
    private Thread reader;
    private long since;
    private boolean expired;

    Watched(InputStream in) {
      super(in);
    }

    @Override
    public int read() throws IOException {
      begin();
      try {
        return in.read();
      } finally {
        end();
      }
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      begin();
      try {
        return in.read(b, off, len);
      } finally {
        end();
      }
    }

    @Override
    public long skip(long n) throws IOException {
      begin();
      try {
        return in.skip(n);
      } finally {
        end();
      }
    }

    private void begin() throws InterruptedIOException {
      synchronized (this) {
        if (expired) {
          throw timedOut();
        }
        reader = Thread.currentThread();
        since = nanoTime.getAsLong();
      }
      reading.add(this);
    }

    /** Throws the timeout, over whatever the interrupted read threw, if it expired. */
    private void end() throws InterruptedIOException {
      reading.remove(this);
      synchronized (this) {
        reader = null;
        if (expired) {
          Thread.interrupted(); // the interrupt was for this read only
          throw timedOut();
        }
      }
    }

    synchronized void expireIfStalled(long now) {
      if (reader != null && !expired && now - since > timeoutNanos) {
        expired = true;
        reader.interrupt();
      }
    }

    private InterruptedIOException timedOut() {
      long ms = TimeUnit.NANOSECONDS.toMillis(timeoutNanos);
      return new InterruptedIOException("the client sent nothing for "
          + (ms % 1000 == 0 ? ms / 1000 + " s" : ms + " ms"));
    }
  }
}
