package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class MountGuardTest {
  @TempDir Path tmp;
  private Path root;
  private Path data;
  private MountGuard guard;

  @BeforeEach
  void layout() throws Exception {
    root = tmp.toRealPath();
    data = Files.createDirectories(root.resolve("pushgate/data"));
    Files.createDirectories(root.resolve("agents/a1/work"));
    guard = new MountGuard(List.of(data));
  }

  @ParameterizedTest
  @ValueSource(strings = {"/", "/home", "/tmp", "/var", "/opt", "/root", "/srv", "/var/lib",
      "/var/tmp", "/nonexistent"})
  void refusesTheRootTopLevelDirectoriesAndSharedParents(String path) {
    assertThat(MountGuard.SYSTEM.problem(path)).isNotNull()
        .containsAnyOf("is / or a top-level directory", "is " + path + ",");
  }

  @ParameterizedTest
  @ValueSource(strings = {"/etc", "/etc/cron.d", "/usr", "/usr/local/bin", "/bin", "/lib64",
      "/boot", "/dev/shm", "/proc/1", "/sys/fs", "/run/user/0", "/var/run", "/var/log/x",
      "/var/spool/cron", "/var/cache/apt", "/sbin"})
  void refusesTheSystemTreesAndEverythingInside(String path) {
    assertThat(MountGuard.SYSTEM.problem(path)).startsWith("lies in the system tree /");
  }

  @Test
  void refusesTheAppliancesOwnDirectoryWhatIsInsideAndWhatContainsIt() {
    assertThat(guard.problem(data.toString())).startsWith("is or lies inside " + data);
    assertThat(guard.problem(data.resolve("forge/acme/widget.git").toString()))
        .startsWith("is or lies inside " + data);
    assertThat(guard.problem(data.getParent().toString())).startsWith("contains " + data);
    assertThat(guard.problem(root.toString())).startsWith("contains " + data);
    assertThat(guard.problem(root.resolve("agents/a1/work").toString())).isNull();
    assertThat(guard.problem(root.resolve("pushgate/data-other").toString())).isNull();
  }

  @Test
  void judgesThePathTheKernelResolvesToo() throws Exception {
    Path toEtc = Files.createSymbolicLink(root.resolve("agents/etc"), Path.of("/etc"));
    Path toData = Files.createSymbolicLink(root.resolve("agents/data"), data);
    assertThat(guard.problem(toEtc.toString()))
        .isEqualTo("lies in the system tree /etc (it resolves to /etc); a run never mounts the"
            + " system");
    // Not there yet, but under a link into the data directory.
    assertThat(guard.problem(toData.resolve("forge/new").toString()))
        .startsWith("is or lies inside " + data + " (it resolves to " + data.resolve("forge/new"));
    // The guard's own roots are taken in both spellings as well.
    MountGuard viaLink = new MountGuard(List.of(toData));
    assertThat(viaLink.problem(data.resolve("cache").toString())).isNotNull();
  }

  @Test
  void checkNamesTheField() {
    RunPaths paths = new RunPaths(root.resolve("agents/a1/work").toString(), null, null, null,
        List.of(), List.of(data.resolve("runs").toString()), List.of());
    assertThatThrownBy(() -> guard.check(paths))
        .isInstanceOf(SandboxRequestException.class)
        .hasMessageStartingWith("runnerStateDirs[0] " + data.resolve("runs") + " is or lies inside");
    assertThatThrownBy(() -> guard.check(RunPaths.workdirOnly("/etc")))
        .hasMessage("workdir /etc lies in the system tree /etc; a run never mounts the system");
  }
}
