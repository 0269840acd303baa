package dev.pushgate.sandbox;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A launched command: its state, its handle, and the way to stop it. Its output and violations
 * reach the listener as events while it runs; when it ends, the {@code exit} event is sent, then
 * everything the launch set up on the host (proxy, staged files, lent ownership, placeholders) is
 * taken down, and only then do the {@code waitFor} methods return.
 */
public final class SandboxProcess {
  private static final Logger LOG = LoggerFactory.getLogger(SandboxProcess.class);
  private static final Duration DRAIN = Duration.ofSeconds(5);
  private static final Duration GRACE = Duration.ofSeconds(3);

  private final String sessionId;
  private final SandboxBackend backend;
  private final Process process;
  private final Events events;
  private final String readyLine;
  private final ViolationParser.Denials denials;
  private final List<AutoCloseable> cleanup;
  private final RunEndCheck endCheck;
  private final Map<String, Object> details;
  private final CompletableFuture<Integer> exit = new CompletableFuture<>();
  private final AtomicBoolean killed = new AtomicBoolean();
  private final StringBuilder early = new StringBuilder();
  private volatile SandboxState state = SandboxState.CREATED;
  private volatile String error;
  private volatile boolean ready;
  /**
   * Open once the sandbox is ready or its standard error has ended: the command's output waits
   * for it, so that no {@code stdout} event comes before {@code ready}. The ready line arrives on
   * standard error and the command's output on standard output, read by two threads.
   */
  private final CountDownLatch readyOrGone = new CountDownLatch(1);

  /**
   * @param readyLine the line that says the sandbox is set up and the command starts, or null
   *     when it starts at once (no sandbox)
   * @param denials what the violation parser knows, or null to parse no violations
   * @param cleanup closed in reverse order once the process has ended
   * @param endCheck run once the process has ended, before the {@code exit} event
   */
  SandboxProcess(
      String sessionId,
      SandboxBackend backend,
      Process process,
      Events events,
      String readyLine,
      ViolationParser.Denials denials,
      List<AutoCloseable> cleanup,
      RunEndCheck endCheck,
      Map<String, Object> details,
      Duration timeout) {
    this.sessionId = sessionId;
    this.backend = backend;
    this.process = process;
    this.events = events;
    this.readyLine = readyLine;
    this.denials = denials;
    this.cleanup = List.copyOf(cleanup);
    this.endCheck = endCheck == null ? RunEndCheck.NONE : endCheck;
    this.details = new LinkedHashMap<>(details);
    this.details.put("pid", process.pid());
    events.emit(new SandboxEvent.Starting());
    if (readyLine == null) {
      onReady();
    }
    Thread out = daemon("pushgate-sandbox-stdout", () -> pump(process.getInputStream(), false));
    Thread err = daemon("pushgate-sandbox-stderr", () -> pump(process.getErrorStream(), true));
    daemon("pushgate-sandbox-wait", () -> awaitExit(timeout, out, err));
  }

  /** The handle, as the reference defines it, with the pid and the launch's paths as details. */
  public SandboxHandle handle() {
    return new SandboxHandle(sessionId, backend, state, state == SandboxState.ERROR ? error : null,
        details);
  }

  public SandboxState state() {
    return state;
  }

  public long pid() {
    return process.pid();
  }

  /**
   * Stops the command: the {@code killed} event with the reason, SIGTERM to the sandbox (bwrap
   * takes everything inside down with it), SIGKILL when it has not ended after a grace period.
   * Does nothing once the command has ended.
   */
  public void kill(String reason) {
    if (!process.isAlive() || !killed.compareAndSet(false, true)) {
      return;
    }
    events.emit(new SandboxEvent.Killed(reason));
    process.descendants().forEach(ProcessHandle::destroy);
    process.destroy();
    daemon("pushgate-sandbox-kill", () -> {
      try {
        if (!process.waitFor(GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
          process.descendants().forEach(ProcessHandle::destroyForcibly);
          process.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
  }

  /** Waits until the command has ended and the launch is taken down; returns its exit code. */
  public int waitFor() throws InterruptedException {
    try {
      return exit.get();
    } catch (ExecutionException e) {
      throw new IllegalStateException("the sandbox waiter failed", e.getCause());
    }
  }

  /** Like {@link #waitFor()}, giving up after {@code timeout}. */
  public OptionalInt waitFor(Duration timeout) throws InterruptedException {
    try {
      return OptionalInt.of(exit.get(timeout.toMillis(), TimeUnit.MILLISECONDS));
    } catch (TimeoutException e) {
      return OptionalInt.empty();
    } catch (ExecutionException e) {
      throw new IllegalStateException("the sandbox waiter failed", e.getCause());
    }
  }

  private void onReady() {
    ready = true;
    state = SandboxState.ACTIVE;
    events.emit(new SandboxEvent.Ready());
    readyOrGone.countDown();
  }

  private void awaitExit(Duration timeout, Thread out, Thread err) {
    int code;
    try {
      if (timeout != null && !process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        kill("timeout: ran longer than " + (timeout.toMillis() % 1000 == 0
            ? timeout.toSeconds() + " s" : timeout.toMillis() + " ms"));
      }
      code = process.waitFor();
      out.join(DRAIN.toMillis());
      err.join(DRAIN.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
      code = -1;
    }
    if (!ready) {
      String said = early.toString().strip();
      error = "the sandbox did not start (exit " + code + ")" + (said.isEmpty() ? "" : ": " + said);
      state = SandboxState.ERROR;
      LOG.info("run {}: {}", sessionId, error);
    }
    events.flush();
    endCheck();
    events.emit(new SandboxEvent.Exit(code));
    for (int i = cleanup.size() - 1; i >= 0; i--) {
      try {
        cleanup.get(i).close();
      } catch (Exception e) {
        LOG.warn("run {}: cleanup after the sandbox failed: {}", sessionId, e.getMessage());
      }
    }
    if (state != SandboxState.ERROR) {
      state = SandboxState.DESTROYED;
    }
    exit.complete(code);
  }

  /** Fails closed: a check that breaks is itself reported, so that nobody trusts the worktree. */
  private void endCheck() {
    try {
      for (SandboxViolation v : endCheck.check()) {
        events.violation(v);
      }
    } catch (RuntimeException e) {
      LOG.warn("run {}: the end-of-run check failed: {}", sessionId, e.toString());
      events.violation(new SandboxViolation(GitMetadataCheck.ACTION, "(worktree)",
          "the end-of-run check of the worktree failed (" + e.getMessage() + "); look at its .git"
              + " before running git there"));
    }
  }

  /** Forwards a stream as events; standard error is also read line by line for violations. */
  private void pump(InputStream stream, boolean stderr) {
    char[] buf = new char[8192];
    StringBuilder line = new StringBuilder();
    try (Reader in = new InputStreamReader(stream, StandardCharsets.UTF_8)) {
      int n;
      while ((n = in.read(buf)) > 0) {
        String chunk = new String(buf, 0, n);
        if (!stderr) {
          awaitReadyOrGone();
          events.emit(new SandboxEvent.Stdout(chunk));
          continue;
        }
        if (ready) {
          events.emit(new SandboxEvent.Stderr(chunk));
        }
        for (int i = 0; i < chunk.length(); i++) {
          char c = chunk.charAt(i);
          if (c != '\n') {
            line.append(c);
            continue;
          }
          String l = line.toString();
          line.setLength(0);
          if (!ready) {
            if (l.equals(readyLine)) {
              onReady();
              if (i + 1 < chunk.length()) {
                events.emit(new SandboxEvent.Stderr(chunk.substring(i + 1)));
              }
              continue;
            }
            events.emit(new SandboxEvent.Stderr(l + "\n"));
            if (early.length() < 2000) {
              early.append(l).append('\n');
            }
          }
          violation(l);
        }
        if (!ready && line.length() > 0 && readyLine != null
            && !readyLine.startsWith(line.toString())) {
          // A partial line that cannot be the ready line: pass it on now.
          events.emit(new SandboxEvent.Stderr(line.toString()));
          early.append(line);
          violation(line.toString());
          line.setLength(0);
        }
      }
      if (line.length() > 0) {
        if (!ready) {
          events.emit(new SandboxEvent.Stderr(line.toString()));
          early.append(line);
        }
        violation(line.toString());
      }
    } catch (IOException e) {
      LOG.debug("run {}: output stream closed: {}", sessionId, e.getMessage());
    } finally {
      if (stderr) {
        readyOrGone.countDown();
      }
    }
  }

  private void awaitReadyOrGone() {
    try {
      readyOrGone.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void violation(String line) {
    if (denials != null) {
      ViolationParser.parse(line, denials).ifPresent(events::violation);
    }
  }

  private static Thread daemon(String name, Runnable r) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    t.start();
    return t;
  }

  /**
   * Delivers events one at a time. Every refused attempt is reported, a later one on the same
   * path again: an agent that tries twice must hear why twice. The one thing dropped is the
   * second report of one attempt: the name-deny layer reports a refusal (EACCES), and the
   * command's error line for it, read as a violation of the same path (spelled relative,
   * perhaps), would say it again with a vaguer or wrong reason; whatever the line is read as
   * (bash's {@code .env: Permission denied} names no write), it is the same attempt. The two come
   * through different pipes, in either order: an error line that could be the layer's (a
   * {@code Permission denied} on a path the sandbox shows) is held until the layer's stream has
   * been read past it ({@link NameDenyLayer#reportsRead}: the layer writes a refusal before the
   * command can see it, so then its report, if any, has come), or {@link #HOLD} at most should a
   * daemon not answer.
   */
  static final class Events {
    static final Duration HOLD = Duration.ofSeconds(10);
    private static final int MAX_AWAITED = 1024;

    private final SandboxListener listener;
    /** The layer's barrier ({@link NameDenyLayer#reportsRead}); null: no layer, nothing to wait for. */
    private Supplier<CompletableFuture<Void>> layerReportsRead;
    /** The layer's reports whose command error line has not come yet, by absolute path. */
    private final Map<String, Integer> awaitingErrorLine = new HashMap<>();
    /** Command error lines waiting for the layer's report of the same attempt, oldest first. */
    private final List<SandboxViolation> held = new ArrayList<>();
    private ScheduledExecutorService timer;

    Events(SandboxListener listener) {
      this.listener = listener == null ? SandboxListener.NULL : listener;
    }

    /** The launch runs under the name-deny layer, whose reports come through {@code reportsRead}. */
    synchronized void underLayer(Supplier<CompletableFuture<Void>> reportsRead) {
      this.layerReportsRead = reportsRead;
    }

    synchronized void emit(SandboxEvent event) {
      try {
        listener.onEvent(event);
      } catch (RuntimeException e) {
        LOG.warn("a sandbox listener failed on {}: {}", event.getClass().getSimpleName(),
            e.toString());
      }
    }

    synchronized void violation(SandboxViolation v) {
      if (RefusalReason.fromNameDenyLayer(v)) {
        if (!takeHeld(v.target())) {
          if (awaitingErrorLine.size() >= MAX_AWAITED) {
            // Refusals whose error lines never came (sent to /dev/null): forget them rather than
            // grow without end; at worst a later error line is shown beside the layer's report.
            awaitingErrorLine.clear();
          }
          awaitingErrorLine.merge(v.target(), 1, Integer::sum);
        }
      } else if (ViolationParser.isFileAction(v.action())) {
        if (pairedWithLayer(v.target())) {
          return;
        }
        if (couldBeTheLayers(v) && hold(v)) {
          return;
        }
      }
      emit(new SandboxEvent.Violation(v));
    }

    /**
     * Delivers every error line still held, once the layer's stream has been read past the
     * process's end ({@link #HOLD} at most): a refusal the layer reported just before the
     * command exited may still be in its pipe, and its report must replace the line, as it
     * would have before the end (on a loaded machine the line was once delivered beside it).
     */
    void flush() {
      Supplier<CompletableFuture<Void>> reportsRead;
      synchronized (this) {
        reportsRead = held.isEmpty() ? null : layerReportsRead;
      }
      if (reportsRead != null) {
        try {
          // Not under this lock: the report that comes meanwhile is delivered through it.
          reportsRead.get().get(HOLD.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
          // the daemon did not answer: deliver what is held, as the hold's own clock would
        }
      }
      deliverHeld();
    }

    private synchronized void deliverHeld() {
      for (SandboxViolation v : held) {
        emit(new SandboxEvent.Violation(v));
      }
      held.clear();
      if (timer != null) {
        timer.shutdownNow();
        timer = null;
      }
    }

    /** The layer refuses with EACCES; a read-only mount's EROFS or a hidden path never is it. */
    private static boolean couldBeTheLayers(SandboxViolation v) {
      String raw = v.raw() == null ? "" : v.raw().toLowerCase(Locale.ROOT);
      return !ViolationParser.FILE_READ.equals(v.action()) && !v.target().isEmpty()
          && (raw.contains("permission denied") || raw.contains("eacces"));
    }

    private boolean hold(SandboxViolation v) {
      Supplier<CompletableFuture<Void>> reportsRead = layerReportsRead;
      if (reportsRead == null || held.size() >= MAX_AWAITED) {
        return false;
      }
      if (timer == null) {
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
          Thread t = new Thread(r, "pushgate-sandbox-refusals");
          t.setDaemon(true);
          return t;
        });
      }
      held.add(v);
      // Asked from the timer's thread: writing to a daemon never blocks a delivery.
      timer.execute(() -> reportsRead.get().whenComplete((done, e) -> release(v)));
      timer.schedule(() -> release(v), HOLD.toMillis(), TimeUnit.MILLISECONDS);
      return true;
    }

    private synchronized void release(SandboxViolation v) {
      for (int i = 0; i < held.size(); i++) {
        if (held.get(i) == v) {
          held.remove(i);
          emit(new SandboxEvent.Violation(v));
          return;
        }
      }
    }

    /** Drops the held error line that is this layer report's, if one came first. */
    private boolean takeHeld(String reported) {
      for (int i = 0; i < held.size(); i++) {
        if (samePath(reported, held.get(i).target())) {
          held.remove(i);
          return true;
        }
      }
      return false;
    }

    /** Takes the layer's report this error line repeats, if one awaits it. */
    private boolean pairedWithLayer(String target) {
      for (Map.Entry<String, Integer> e : awaitingErrorLine.entrySet()) {
        String reported = e.getKey();
        if (samePath(reported, target)) {
          if (e.getValue() == 1) {
            awaitingErrorLine.remove(reported);
          } else {
            e.setValue(e.getValue() - 1);
          }
          return true;
        }
      }
      return false;
    }

    /** Whether an error line's target, absolute or relative, names the layer's absolute path. */
    private static boolean samePath(String reported, String target) {
      return reported.equals(target)
          || !target.isEmpty() && !target.startsWith("/") && reported.endsWith("/" + target);
    }
  }
}
