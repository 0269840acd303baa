package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.testkit.Wait;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The start-up warm-up pushes through a gateway of its own and leaves nothing behind. */
class GatewayWarmUpTest {
  @TempDir Path tmp;

  @Test
  void pushesEveryPathAndLeavesNoFileAndNoThread() throws Exception {
    Set<Thread> before = Thread.getAllStackTraces().keySet();

    int done = GatewayWarmUp.run(6, tmp, Duration.ofSeconds(60));

    assertThat(done).isEqualTo(6);
    try (Stream<Path> left = Files.list(tmp)) {
      assertThat(left).isEmpty();
    }
    Wait.forValue(Duration.ofSeconds(30), "the warm-up's threads to end",
        () -> newThreads(before), Set::isEmpty);
  }

  @Test
  void aWarmUpThatCannotStartReturnsWithoutThrowing() throws Exception {
    Path notADirectory = Files.writeString(tmp.resolve("file"), "x");

    assertThat(GatewayWarmUp.run(3, notADirectory, Duration.ofSeconds(60))).isZero();
  }

  @Test
  void noPushesIsNoWarmUp() {
    assertThat(GatewayWarmUp.run(0, tmp, Duration.ofSeconds(60))).isZero();
  }

  @Test
  void anExhaustedBoundStopsBeforeTheNextPush() throws Exception {
    assertThat(GatewayWarmUp.run(6, tmp, Duration.ZERO)).isZero();
    try (Stream<Path> left = Files.list(tmp)) {
      assertThat(left).isEmpty();
    }
  }

  /**
   * Threads started since {@code before} that are still alive, but for the JDK's and JGit's
   * process-wide ones, which outlive any one user (HTTP keep-alive, JGit's file-store probes).
   */
  private static Set<String> newThreads(Set<Thread> before) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> !before.contains(t) && t.isAlive())
        .map(Thread::getName)
        .filter(n -> !n.startsWith("Keep-Alive-") && !n.startsWith("JGit-")
            && !n.startsWith("process reaper") && !n.startsWith("ForkJoinPool"))
        .collect(Collectors.toSet());
  }
}
