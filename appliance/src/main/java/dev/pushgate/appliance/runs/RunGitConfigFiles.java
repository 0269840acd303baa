package dev.pushgate.appliance.runs;

import dev.pushgate.gitconfig.GitConfigFile;
import dev.pushgate.gitconfig.GitHost;
import dev.pushgate.gitconfig.RunGitConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A run's git config file ({@link GitConfigFile}) for the appliance's gateway and git host. A
 * new run's file is not synced (it was a third of a run's creation: docs/benchmarks.md); instead
 * every start checks each live run's file before the run is resumed, and a run whose file lost
 * its credential is ended, so a power loss can cost a run but never leave it without its rewrite.
 *
 * @param fetchBase the local forge's git base, sent to the gateway too; null with GitHub
 */
public record RunGitConfigFiles(String gatewayBase, GitHost gitHost, String fetchBase)
    implements Runs.RunFiles {
  @Override
  public Path writeGitConfig(Path dir, String runCredential) throws IOException {
    Path file = dir.resolve(Runs.GIT_CONFIG);
    GitConfigFile.writeUnsynced(file, config(runCredential));
    return file;
  }

  @Override
  public Optional<String> restoreGitConfig(Path file) throws IOException {
    Optional<String> credential = GitConfigFile.runCredential(file);
    if (credential.isPresent() && !GitConfigFile.holds(file, config(credential.get()))) {
      // cut short after the header, or written before a setting changed: the whole file again
      GitConfigFile.write(file, config(credential.get()));
    }
    return credential;
  }

  private RunGitConfig config(String runCredential) {
    // No token for the git host: fetches and pushes go to the gateway (docs/push-path.md).
    RunGitConfig cfg = RunGitConfig.of(gatewayBase, runCredential).withGitHost(gitHost);
    return fetchBase == null ? cfg : cfg.withFetchBaseUrl(fetchBase);
  }
}
