package dev.pushgate.it;

import dev.pushgate.testkit.ApplianceExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The workspace rules the {@code pushgate exec} classes launch their runs with: bubblewrap cannot
 * deny file-name globs, so the default list is set to [] explicitly, and main is protected.
 */
final class ExecRules {
  static final String MAIN_DENIED = """
      denyWriteGlobs: []
      push:
        - refs: refs/heads/main
          decision: deny
          reason: push to main is denied
      """;

  private ExecRules() {}

  /** The appliance of a class whose runs {@code pushgate exec} launches, with acme/widget. */
  static ApplianceExtension appliance() {
    return ApplianceExtension.serving().forSandboxedRuns().withRepos("acme/widget");
  }

  /**
   * Skips the class without bubblewrap ({@link ExecTest#requireBwrap}), then writes
   * {@link #MAIN_DENIED} in the class's directory: the file {@code pushgate exec --rules} reads.
   */
  static Path mainDenied(ApplianceExtension app) throws IOException {
    ExecTest.requireBwrap();
    return Files.writeString(app.dir().resolve("rules.yaml"), MAIN_DENIED);
  }
}
