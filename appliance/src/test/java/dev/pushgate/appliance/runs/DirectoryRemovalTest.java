package dev.pushgate.appliance.runs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A run's directory goes, and nothing outside it: no link is followed, no name leaves it. */
class DirectoryRemovalTest {
  @TempDir Path root;

  @Test
  void removesTheTreeAndTheLinksInItButNothingTheyPointAt() throws IOException {
    Path runs = Files.createDirectories(root.resolve("runs"));
    Path outside = precious(root.resolve("outside"));
    Path run = Files.createDirectories(runs.resolve("run").resolve("deep"));
    Files.writeString(run.resolve("gitconfig"), "x");
    Files.createSymbolicLink(run.resolve("to-dir"), outside);
    Files.createSymbolicLink(run.resolve("to-file"), outside.resolve("precious"));

    DirectoryRemoval.removeChild(runs, "run");

    assertThat(runs.resolve("run")).doesNotExist();
    assertThat(outside.resolve("precious")).hasContent("keep me");
  }

  @Test
  void refusesAnEntryThatIsALink() throws IOException {
    Path runs = Files.createDirectories(root.resolve("runs"));
    Path outside = precious(root.resolve("outside"));
    Files.createSymbolicLink(runs.resolve("run"), outside);

    assertThatThrownBy(() -> DirectoryRemoval.removeChild(runs, "run"))
        .hasMessage(runs.resolve("run") + " is a symbolic link, which pushgate never makes"
            + " there; left in place");
    assertThat(runs.resolve("run")).isSymbolicLink();
    assertThat(outside.resolve("precious")).hasContent("keep me");
  }

  @Test
  void refusesANameThatIsNotOnePlainName() throws IOException {
    Path runs = Files.createDirectories(root.resolve("data").resolve("runs"));
    precious(root.resolve("victim"));
    for (String name : new String[] {"../../victim", "..", ".", "", "a/../..",
        root.resolve("victim").toString()}) {
      assertThatThrownBy(() -> DirectoryRemoval.removeChild(runs, name))
          .hasMessageStartingWith("not one plain name in " + runs + ": ");
    }
    assertThat(root.resolve("victim").resolve("precious")).hasContent("keep me");
  }

  @Test
  void aMissingEntryIsNothingToDo() throws IOException {
    Path runs = Files.createDirectories(root.resolve("runs"));
    DirectoryRemoval.removeChild(runs, "run");
    assertThat(runs).isEmptyDirectory();
    DirectoryRemoval.removeChild(root.resolve("no-runs-yet"), "run");
    assertThat(root.resolve("no-runs-yet")).doesNotExist();
  }

  private static Path precious(Path dir) throws IOException {
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("precious"), "keep me");
    return dir;
  }
}
