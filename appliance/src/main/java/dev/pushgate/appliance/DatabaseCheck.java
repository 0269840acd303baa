package dev.pushgate.appliance;

import dev.pushgate.appliance.store.Database;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The readiness check of the database: {@code SELECT 1} answered within a timeout and, for
 * SQLite, its file still the one opened and usable. SQLite's open connection would answer
 * {@code SELECT 1} from a file deleted, replaced or made unreadable under it, while what it then
 * writes would be lost or refused, so the file is checked too. One query at a time: a check
 * asked while the last one still waits (a long transaction holds SQLite's connection) shares it
 * rather than queueing another.
 */
final class DatabaseCheck implements Supplier<String>, AutoCloseable {
  private final Database db;
  private final Duration timeout;
  private final Path file;
  private final Object fileKey;
  private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "pushgate-readiness-db");
    t.setDaemon(true);
    return t;
  });
  private Future<?> pending;

  DatabaseCheck(Database db, Duration timeout) throws IOException {
    this.db = db;
    this.timeout = timeout;
    this.file = db.sqliteFile();
    this.fileKey = file == null ? null : key(file);
  }

  @Override
  public String get() {
    if (file != null) {
      String problem = fileProblem();
      if (problem != null) {
        return problem;
      }
    }
    Future<?> query;
    synchronized (this) {
      if (pending == null || pending.isDone()) {
        pending = worker.submit(() -> db.with(c -> {
          try (Statement s = c.createStatement()) {
            s.setQueryTimeout((int) Math.max(1, timeout.toSeconds()));
            return s.execute("SELECT 1");
          }
        }));
      }
      query = pending;
    }
    try {
      query.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      return null;
    } catch (TimeoutException e) {
      return "no answer to SELECT 1 within " + timeout.toMillis() + " ms";
    } catch (ExecutionException e) {
      return "SELECT 1 failed: " + e.getCause().getMessage();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
  }

  private String fileProblem() {
    if (!Files.isRegularFile(file)) {
      return "the database file " + file + " is gone";
    }
    if (!Files.isReadable(file) || !Files.isWritable(file)) {
      return "the database file " + file + " cannot be read and written";
    }
    try {
      if (fileKey != null && !fileKey.equals(key(file))) {
        return "the database file " + file + " was replaced since the appliance opened it;"
            + " restart the appliance";
      }
    } catch (IOException e) {
      return "the database file " + file + " cannot be read: " + e.getMessage();
    }
    return null;
  }

  private static Object key(Path file) throws IOException {
    return Files.readAttributes(file, BasicFileAttributes.class).fileKey();
  }

  @Override
  public void close() {
    worker.shutdownNow();
  }
}
