package dev.pushgate.forge;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The forge the API test classes ask, one per class: {@code acme/widget} and {@code acme/other},
 * and two installation tokens for widget, {@link #writer} (contents, pull requests and issues
 * written) and {@link #reader} (contents read, pull requests written).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class WidgetForgeFixture {
  static final String ALL =
      "{\"contents\":\"write\",\"pull_requests\":\"write\",\"issues\":\"write\"}";

  TestForge forge;
  ForgeRepositories.ForgeRepo widget;
  String writer;
  String reader;

  @BeforeAll
  void start(@TempDir Path dir) throws Exception {
    forge = new TestForge(dir);
    widget = forge.create("acme/widget");
    forge.create("acme/other");
    writer = forge.token(ALL, "widget");
    reader = forge.token("{\"contents\":\"read\",\"pull_requests\":\"write\"}", "widget");
  }

  @AfterAll
  void stop() throws Exception {
    forge.close();
  }
}
