package dev.pushgate.it;

import dev.pushgate.testkit.RunningAppliance;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** {@code pushgate approvals watch} as a person runs it: its output read while it runs. */
final class ApproverWatch implements AutoCloseable {
  private final Process process;
  private final List<String> out = new ArrayList<>();
  private final StringBuilder err = new StringBuilder();

  private ApproverWatch(Process process) {
    this.process = process;
    reader(process.getInputStream(), line -> out.add(line));
    reader(process.getErrorStream(), line -> err.append(line).append('\n'));
  }

  /** Starts the watch and waits until it says it is connected. */
  static ApproverWatch start(Path dataDir) throws Exception {
    ApproverWatch w = new ApproverWatch(new ProcessBuilder("java", "-jar",
        RunningAppliance.jar().toString(), "approvals", "watch", "--data-dir", dataDir.toString())
        .start());
    w.awaitLine("connected as an approver");
    return w;
  }

  /** The first line of its standard output that contains {@code text}, waiting up to 30 s. */
  String awaitLine(String text) throws InterruptedException {
    long deadline = System.currentTimeMillis() + 30_000;
    synchronized (this) {
      while (System.currentTimeMillis() < deadline) {
        for (String l : out) {
          if (l.contains(text)) {
            return l;
          }
        }
        wait(200);
      }
    }
    throw new AssertionError("approvals watch never printed '" + text + "':\n" + stdout()
        + "\nstderr:\n" + stderr());
  }

  /** Its exit code, waiting up to 30 s for it to end. */
  int awaitExit() throws InterruptedException {
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new AssertionError("approvals watch did not end:\n" + stdout());
    }
    return process.exitValue();
  }

  synchronized String stdout() {
    return String.join("\n", out);
  }

  synchronized String stderr() {
    return err.toString();
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    process.waitFor(10, TimeUnit.SECONDS);
  }

  private void reader(java.io.InputStream stream, java.util.function.Consumer<String> sink) {
    Thread t = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(
          new InputStreamReader(stream, StandardCharsets.UTF_8))) {
        for (String l; (l = r.readLine()) != null; ) {
          synchronized (this) {
            sink.accept(l);
            notifyAll();
          }
        }
      } catch (Exception ignored) {
        // the process ended
      }
    });
    t.setDaemon(true);
    t.start();
  }
}
