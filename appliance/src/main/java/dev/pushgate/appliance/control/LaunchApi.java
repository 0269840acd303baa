package dev.pushgate.appliance.control;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pushgate.appliance.launch.Launches;
import dev.pushgate.appliance.runs.RunRequestException;
import dev.pushgate.sandbox.RefusalReason;
import dev.pushgate.sandbox.SandboxBackend;
import dev.pushgate.sandbox.SandboxEvent;
import dev.pushgate.sandbox.SandboxListener;
import dev.pushgate.sandbox.SandboxPlan;
import dev.pushgate.sandbox.SandboxProcess;
import dev.pushgate.sandbox.SandboxViolation;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Blocker;
import org.eclipse.jetty.util.Callback;

/**
 * {@code POST /v1/runs/{id}/launch}: launches a command under a live run's plan and streams it
 * back as newline-delimited JSON, one object a line: {@code started}, then {@code stdout}, {@code
 * stderr} and {@code event} lines as they come, {@code heartbeat} lines while nothing comes, and
 * {@code exit} last. The command lives as long as the stream: a client that goes away (seen at
 * the latest at the next heartbeat) has it killed, and so does the run's end.
 */
final class LaunchApi {
  static final Duration HEARTBEAT = Duration.ofSeconds(5);
  /**
   * Output waiting for the client. Past it the command's output is held back (its pipe fills and
   * it waits on its writes, as with any pipe); a client that reads nothing for {@link
   * #SLOW_CLIENT} with this much waiting has the command killed.
   */
  static final long MAX_PENDING_CHARS = 4L << 20;
  static final Duration SLOW_CLIENT = Duration.ofSeconds(10);
  /** The exit code of a command pushgate could not run to its end, as {@code pushgate exec}'s. */
  static final int FAILED = 125;

  private final Launches launches;
  private final ObjectMapper json;
  private final RunEndFindings findings;

  LaunchApi(Launches launches, ObjectMapper json, RunEndFindings findings) {
    this.launches = launches;
    this.json = json;
    this.findings = findings;
  }

  /** Answers the launch: an error before anything started, else the stream until the exit. */
  void launch(String runId, JsonNode body, Response response, Callback callback,
      ErrorAnswer error) throws RunRequestException {
    LaunchBody parsed = LaunchBody.parse(body);
    Output output = new Output(MAX_PENDING_CHARS, SLOW_CLIENT);
    Launches.Launch launch;
    try {
      // The audit hears the end-of-run findings whether or not a client still reads the stream.
      launch = launches.start(runId, parsed.command(), parsed.workdir(), event -> {
        if (event instanceof SandboxEvent.Violation v) {
          findings.onViolation(runId, v.violation());
        }
        output.onEvent(event);
      });
    } catch (Launches.Refused r) {
      ObjectNode e = json.createObjectNode();
      e.put("error", r.getMessage());
      if (!r.waysOut().isEmpty()) {
        ArrayNode ways = e.putArray("waysOut");
        r.waysOut().forEach(ways::add);
      }
      error.send(r.status(), e);
      return;
    }
    output.attach(launch);
    response.setStatus(200);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/x-ndjson");
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
    try {
      write(response, started(launch));
      int code = stream(response, launch, output);
      response.write(true, utf8(exit(launch.process(), code)), callback);
    } catch (IOException e) {
      launch.stop("the client of the launch went away");
      callback.succeeded();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      launch.stop("the appliance is stopping");
      callback.failed(e);
    } catch (RuntimeException e) {
      launch.stop("the launch's stream failed");
      callback.failed(e);
    } finally {
      output.close();
    }
  }

  /** Writes the command's events as they come; returns its exit code once it has ended. */
  private int stream(Response response, Launches.Launch launch, Output output)
      throws IOException, InterruptedException {
    StringBuilder batch = new StringBuilder();
    while (true) {
      SandboxEvent e = output.events.poll(HEARTBEAT.toMillis(), TimeUnit.MILLISECONDS);
      if (e == null) {
        write(response, "{\"type\":\"heartbeat\"}\n");
        continue;
      }
      batch.setLength(0);
      boolean exited = false;
      // What is already waiting goes in one write, up to a bound.
      while (e != null) {
        if (e instanceof SandboxEvent.Exit) {
          exited = true;
          break;
        }
        String line = line(e, launch, output);
        if (line != null) {
          batch.append(line).append('\n');
        }
        e = batch.length() < 64 * 1024 ? output.events.poll() : null;
      }
      if (batch.length() > 0) {
        write(response, batch.toString());
      }
      if (exited) {
        // After the exit event the launch takes down what it set up (proxy, lent ownership):
        // the client hears the exit once the worktree is its owner's again.
        return launch.process().waitFor();
      }
    }
  }

  private String line(SandboxEvent e, Launches.Launch launch, Output output) {
    ObjectNode n = json.createObjectNode();
    if (e instanceof SandboxEvent.Stdout s) {
      output.taken(s.data().length());
      n.put("type", "stdout").put("data", s.data());
    } else if (e instanceof SandboxEvent.Stderr s) {
      output.taken(s.data().length());
      n.put("type", "stderr").put("data", s.data());
    } else if (e instanceof SandboxEvent.Violation v) {
      SandboxViolation violation = v.violation();
      n.put("type", "event").put("event", "violation")
          .put("action", launch.redact(violation.action()))
          .put("target", launch.redact(violation.target()));
      if (violation.endOfRun()) {
        // What was undone, and where the planted thing now is: the operator acts on this.
        n.put("detail", launch.redact(violation.raw()));
      } else {
        n.put("reason", RefusalReason.of(violation));
      }
    } else if (e instanceof SandboxEvent.Killed k) {
      n.put("type", "event").put("event", "killed")
          .put("reason", launch.redact(k.reason() == null ? "killed" : k.reason()));
    } else {
      return null; // starting, ready: the started line said it
    }
    return n.toString();
  }

  private String started(Launches.Launch launch) {
    SandboxProcess p = launch.process();
    Object workdir = p.handle().details().get("workdir");
    ObjectNode n = json.createObjectNode();
    n.put("type", "started").put("runId", launch.runId()).put("pid", p.pid())
        .put("backend", p.handle().backend().id());
    n.put("workdir", workdir == null ? null : workdir.toString());
    SandboxPlan plan = launch.plan();
    n.put("sandbox", plan.effectiveBackend() == SandboxBackend.NONE
        ? "no OS sandbox: " + plan.backendReason() : plan.enforcement().osSandboxNote());
    ArrayNode weakenings = n.putArray("weakenings");
    plan.enforcement().weakenings().forEach(weakenings::add);
    return n + "\n";
  }

  private String exit(SandboxProcess p, int code) {
    ObjectNode n = json.createObjectNode();
    String error = p.handle().error();
    n.put("type", "exit").put("code", error == null ? code : FAILED);
    if (error != null) {
      n.put("error", error);
    }
    return n + "\n";
  }

  private static void write(Response response, String text) throws IOException {
    try (Blocker.Callback cb = Blocker.callback()) {
      response.write(false, utf8(text), cb);
      cb.block();
    }
  }

  private static ByteBuffer utf8(String text) {
    return ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
  }

  /** How the control API answers an error before anything was streamed. */
  @FunctionalInterface
  interface ErrorAnswer {
    void send(int status, JsonNode body);
  }

  /**
   * The launch's listener: queues events for the stream. Output beyond {@code maxPending} waits
   * for the stream to take some (the sandbox's reader thread waits, so the command waits on its
   * pipe): a command that writes faster than the appliance streams is slowed, not killed. Only a
   * client that takes nothing for {@code slowClient} has its command killed, and its output
   * dropped. The wait is bounded because the sandbox delivers events one at a time: a kill's
   * event waits behind it.
   */
  static final class Output implements SandboxListener {
    final BlockingQueue<SandboxEvent> events = new LinkedBlockingQueue<>();
    final AtomicLong pending = new AtomicLong();
    final AtomicBoolean overflowed = new AtomicBoolean();
    final AtomicReference<Launches.Launch> launch = new AtomicReference<>();
    private final long maxPending;
    private final long slowClientNanos;
    private final Object room = new Object();
    private volatile boolean closed;

    Output(long maxPending, Duration slowClient) {
      this.maxPending = maxPending;
      this.slowClientNanos = slowClient.toNanos();
    }

    @Override
    public void onEvent(SandboxEvent event) {
      String data = event instanceof SandboxEvent.Stdout s ? s.data()
          : event instanceof SandboxEvent.Stderr s ? s.data() : null;
      if (data != null && !awaitRoom(data.length())) {
        if (overflowed.compareAndSet(false, true)) {
          stopSlowClient(launch.get());
        }
        return;
      }
      events.add(event);
    }

    /** Counts {@code chars} as waiting once there is room; false when the client took none. */
    private boolean awaitRoom(int chars) {
      if (overflowed.get()) {
        return false;
      }
      long deadline = System.nanoTime() + slowClientNanos;
      synchronized (room) {
        while (pending.get() > 0 && pending.get() + chars > maxPending) {
          long left = deadline - System.nanoTime();
          if (closed || left <= 0) {
            return false;
          }
          try {
            room.wait(Math.max(1, left / 1_000_000));
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
          }
        }
        pending.addAndGet(chars);
        return true;
      }
    }

    /** The stream took {@code chars} of output off the queue. */
    void taken(int chars) {
      synchronized (room) {
        pending.addAndGet(-chars);
        room.notifyAll();
      }
    }

    /** The stream has ended: nothing more is taken, so nobody waits for room. */
    void close() {
      synchronized (room) {
        closed = true;
        room.notifyAll();
      }
    }

    /** The launch has started: an overflow before it knew the launch is acted on now. */
    void attach(Launches.Launch l) {
      launch.set(l);
      if (overflowed.get()) {
        stopSlowClient(l);
      }
    }

    private static void stopSlowClient(Launches.Launch l) {
      if (l == null) {
        return; // attach() sees the overflow
      }
      // Not on the caller's thread: the kill reports itself through this listener.
      Thread t = new Thread(() -> l.stop("the client read none of the output for "
          + SLOW_CLIENT.toSeconds() + " s while " + (MAX_PENDING_CHARS >> 20)
          + " MiB of it waited"), "pushgate-launch-overflow");
      t.setDaemon(true);
      t.start();
    }
  }
}
