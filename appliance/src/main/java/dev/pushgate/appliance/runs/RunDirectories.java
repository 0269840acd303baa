package dev.pushgate.appliance.runs;

import dev.pushgate.appliance.store.Ledger;
import dev.pushgate.types.UntrustedText;
import java.io.IOException;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runs' directories, {@code runs/<id>}: named from a well-formed id only, never from a path a
 * row names, and removed without following a link.
 */
final class RunDirectories {
  private static final Logger log = LoggerFactory.getLogger(RunDirectories.class);

  private final Path runsDir;
  private final Runs.RunFiles files;

  RunDirectories(Path runsDir, Runs.RunFiles files) {
    this.runsDir = runsDir;
    this.files = files;
  }

  /** Whether the run's git config still holds the run's own credential (restored if needed). */
  boolean gitConfigSurvived(Ledger.RunRow row) throws IOException {
    // where create writes it, from the well-formed id: never a path the row names
    Path file = runsDir.resolve(row.id()).resolve(Runs.GIT_CONFIG);
    return files.restoreGitConfig(file)
        .map(Credentials::hash)
        .filter(row.credentialHash()::equals)
        .isPresent();
  }

  /**
   * Removes the run's directory, {@code runs/<id>}, never anything outside it: an id that is not
   * one pushgate makes names no file, and the removal follows no link (a run directory that is
   * a link is left in place).
   */
  boolean remove(String runId) {
    if (!RunId.isWellFormed(runId)) {
      log.error("run {}: not a run id, so no file is removed for it",
          UntrustedText.printable(runId));
      return false;
    }
    try {
      DirectoryRemoval.removeChild(runsDir, runId);
      return true;
    } catch (IOException e) {
      log.warn("could not remove the files of run {}: {}", runId, e.getMessage());
      return false;
    }
  }
}
