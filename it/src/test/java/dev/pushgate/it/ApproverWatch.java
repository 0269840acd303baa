package dev.pushgate.it;

import dev.pushgate.testkit.Cli;
import dev.pushgate.testkit.RunningAppliance;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** {@code pushgate approvals watch} as a person runs it: its output read while it runs. */
final class ApproverWatch implements AutoCloseable {
  private final Process process;
  private final LiveLines out;
  private final LiveLines err;

  private ApproverWatch(Process process) {
    this.process = process;
    this.out = LiveLines.of(process.getInputStream());
    this.err = LiveLines.of(process.getErrorStream());
  }

  /** Starts the watch and waits until it says it is connected. */
  static ApproverWatch start(Path dataDir) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("java"));
    cmd.addAll(Cli.QUICK_START_JVM);
    cmd.addAll(List.of("-jar", RunningAppliance.jar().toString(), "approvals", "watch",
        "--data-dir", dataDir.toString()));
    ApproverWatch w = new ApproverWatch(new ProcessBuilder(cmd).start());
    w.awaitLine("connected as an approver");
    return w;
  }

  /** The first line of its standard output that contains {@code text}, waiting up to 30 s. */
  String awaitLine(String text) throws InterruptedException {
    try {
      return out.await(text, "approvals watch");
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "\nstderr:\n" + stderr());
    }
  }

  /** Its exit code, waiting up to 30 s for it to end. */
  int awaitExit() throws InterruptedException {
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new AssertionError("approvals watch did not end:\n" + stdout());
    }
    return process.exitValue();
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    process.waitFor(10, TimeUnit.SECONDS);
  }

  String stdout() {
    return out.text();
  }

  String stderr() {
    return err.text();
  }
}
