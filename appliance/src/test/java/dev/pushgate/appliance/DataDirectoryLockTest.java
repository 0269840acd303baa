package dev.pushgate.appliance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One serve per data directory: a second is refused with what to do, a stopped one frees it. */
class DataDirectoryLockTest {
  @TempDir Path dir;

  @Test
  void aSecondServeOnTheSameDataDirectoryIsRefusedNamingTheFirst() throws Exception {
    try (DataDirectoryLock first = DataDirectoryLock.hold(dir)) {
      assertThatThrownBy(() -> DataDirectoryLock.hold(dir))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("another pushgate serve is using the data directory " + dir)
          .hasMessageContaining("(process " + ProcessHandle.current().pid() + ")")
          .hasMessageContaining("another --data-dir");
    }
    try (DataDirectoryLock again = DataDirectoryLock.hold(dir)) {
      assertThat(dir.resolve(DataDirectoryLock.FILE)).exists();
    }
  }

  /** On the old code the second took over the first's control socket, database and caches. */
  @Test
  void aSecondApplianceOnARunningOnesDataDirectoryDoesNotStartAndTheFirstKeepsServing()
      throws Exception {
    Path data = dir.resolve("data");
    try (TestAppliance first = TestAppliance.start(data, null)) {
      assertThatThrownBy(() -> TestAppliance.start(data, null).close())
          .hasMessageContaining("another pushgate serve is using the data directory");
      assertThat(first.get("/healthz").statusCode()).isEqualTo(200);
      assertThat(data.resolve("control.sock")).exists();
    }
    TestAppliance.start(data, null).close();
  }
}
