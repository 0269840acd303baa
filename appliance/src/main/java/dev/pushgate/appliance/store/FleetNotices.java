package dev.pushgate.appliance.store;

import dev.pushgate.types.Redaction;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fleet's notices as they arrive: {@code LISTEN} on a connection of its own, read with a
 * timeout so that a stop is seen, and opened again (backing off) whenever it is lost. Each time
 * it is (re)opened, {@code reconnected} runs, to catch up with what was said meanwhile.
 */
final class FleetNotices implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(FleetNotices.class);
  private static final int READ_MILLIS = 1000;
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(10);

  private final Database db;
  private final String channel;
  private final Consumer<String> heard;
  private final Runnable reconnected;
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final Thread thread;

  FleetNotices(Database db, String channel, Consumer<String> heard, Runnable reconnected) {
    if (!channel.matches("[a-z0-9_]+")) {
      throw new IllegalArgumentException("not a plain channel name: " + channel);
    }
    this.db = db;
    this.channel = channel;
    this.heard = heard;
    this.reconnected = reconnected;
    this.thread = new Thread(this::listen, "pushgate-fleet-notices");
    thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  private void listen() {
    long backoff = 250;
    while (stopped.getCount() > 0) {
      try (Connection c = db.openDedicated()) {
        try (Statement s = c.createStatement()) {
          s.execute("LISTEN " + channel);
        }
        backoff = 250;
        reconnected.run();
        PGConnection pg = c.unwrap(PGConnection.class);
        while (stopped.getCount() > 0) {
          PGNotification[] got = pg.getNotifications(READ_MILLIS);
          if (got != null) {
            for (PGNotification n : got) {
              deliver(n.getParameter());
            }
          }
        }
      } catch (SQLException | RuntimeException e) {
        if (stopped.getCount() == 0) {
          return;
        }
        log.warn("fleet: the notices connection was lost ({}); reconnecting in {} ms",
            Redaction.redact(String.valueOf(e.getMessage())), backoff);
        try {
          if (stopped.await(backoff, TimeUnit.MILLISECONDS)) {
            return;
          }
        } catch (InterruptedException ie) {
          return;
        }
        backoff = Math.min(backoff * 2, MAX_BACKOFF.toMillis());
      }
    }
  }

  private void deliver(String payload) {
    try {
      heard.accept(payload == null ? "" : payload);
    } catch (RuntimeException e) {
      log.warn("fleet: a notice could not be handled: {}", e.toString());
    }
  }

  @Override
  public void close() {
    stopped.countDown();
    try {
      thread.join(READ_MILLIS * 3L);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
