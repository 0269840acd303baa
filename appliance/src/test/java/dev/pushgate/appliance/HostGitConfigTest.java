package dev.pushgate.appliance;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.lib.StoredConfig;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.eclipse.jgit.util.FS;
import org.eclipse.jgit.util.SystemReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** JGit in the appliance reads no host git configuration that could redirect its traffic. */
class HostGitConfigTest {
  @TempDir Path tmp;
  private final File home = FS.DETECTED.userHome();
  private final SystemReader reader = SystemReader.getInstance();

  @AfterEach
  void restore() {
    FS.DETECTED.setUserHome(home);
    SystemReader.setInstance(reader);
  }

  @Test
  void aRepositoryOfTheApplianceDoesNotSeeTheHostUsersGitConfig() throws Exception {
    Path userHome = Files.createDirectories(tmp.resolve("home"));
    Files.writeString(userHome.resolve(".gitconfig"),
        "[url \"http://127.0.0.1:9/evil/\"]\n\tinsteadOf = https://github.com/\n"
            + "[http]\n\tsslVerify = false\n");
    FS.DETECTED.setUserHome(userHome.toFile());
    // JGit's default reader, reading the home set above: a fresh one, as JGit's own caches the
    // user's config file it first opened, which an earlier test of this JVM may have made it
    // open under another home (a repository created before any appliance started)
    SystemReader.setInstance(null);
    SystemReader.setInstance(new SystemReader.Delegate(SystemReader.getInstance()));
    assertThat(repoConfig().getBoolean("http", "sslVerify", true))
        .as("the default reader reads the user's file (the premise)").isFalse();

    HostGitConfig.ignore();
    HostGitConfig.ignore(); // once is enough, twice changes nothing

    StoredConfig config = repoConfig();
    assertThat(config.getBoolean("http", "sslVerify", true)).isTrue();
    assertThat(config.getSubsections("url")).isEmpty();
  }

  private StoredConfig repoConfig() throws Exception {
    try (Repository db = new FileRepositoryBuilder().setGitDir(tmp.resolve("r.git").toFile())
        .setBare().build()) {
      if (!db.getDirectory().exists()) {
        db.create(true);
      }
      return db.getConfig();
    }
  }
}
