package dev.pushgate.forge;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.eclipse.jgit.storage.file.FileBasedConfig;
import org.eclipse.jgit.util.FS;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ForgeRefUpdatesTest {
  @TempDir Path dir;

  @Test
  void everyReceiveOfARepositoryKeptOpenFollowsTheOperatorsAutoGcNotTheForgesOwnOverride() {
    // One config for every receive: the forge keeps a repository open between requests.
    FileBasedConfig config = new FileBasedConfig(dir.resolve("config").toFile(), FS.DETECTED);

    assertThat(ForgeRefUpdates.takeOverAutoGc(config)).isTrue();
    assertThat(config.getBoolean("receive", null, "autogc", true)).isFalse();
    assertThat(ForgeRefUpdates.takeOverAutoGc(config)).as("second receive").isTrue();
  }

  @Test
  void anOperatorWhoTurnedAutoGcOffIsNeverCompacted() {
    FileBasedConfig config = new FileBasedConfig(dir.resolve("config").toFile(), FS.DETECTED);
    config.setBoolean("receive", null, "autogc", false);

    assertThat(ForgeRefUpdates.takeOverAutoGc(config)).isFalse();
    assertThat(ForgeRefUpdates.takeOverAutoGc(config)).isFalse();
  }
}
