package dev.pushgate.appliance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Attack (attack2, target 2), severity MEDIUM: the one-serve-per-data-directory lock is a lock
 * on the file {@code serve.lock}, which outlives every serve with a pid in it (the kernel drops
 * the lock, the file stays), so it looks like a stale lock to clean up. Deleted (or replaced)
 * while a serve runs, the next serve creates a new {@code serve.lock}, locks that and starts
 * beside the first: it runs the start-up recovery over the first one's live runs, takes over
 * its control socket and, when it stops, deletes it (reproduced with the packaged jar:
 * {@code pushgate runs} then says no appliance is running while the first still serves).
 */
class AtkServeLockTest {
  @TempDir Path dir;

  @Test
  void aServeLockDeletedWhileServingDoesNotLetASecondServeStartOnTheSameDirectory()
      throws Exception {
    Path data = dir.resolve("data");
    try (TestAppliance first = TestAppliance.start(data, null)) {
      Files.delete(data.resolve(DataDirectoryLock.FILE)); // an operator's "stale lock" clean-up
      assertThatThrownBy(() -> TestAppliance.start(data, null).close())
          .hasMessageContaining("another pushgate serve is using the data directory");
      assertThat(first.get("/healthz").statusCode()).isEqualTo(200);
      assertThat(data.resolve("control.sock")).exists();
    }
  }
}
