package dev.pushgate.gateway;

import java.io.IOException;
import java.nio.file.Path;
import org.eclipse.jgit.lib.Repository;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/** The arrange of tests that read commits out of one bare cache repository, new for each test. */
abstract class OnABareCache {
  @TempDir Path dir;
  Repository db;

  @BeforeEach
  void openCache() throws IOException {
    db = TestRepos.bare(dir.resolve("cache.git"));
  }

  @AfterEach
  void closeCache() {
    db.close();
  }
}
