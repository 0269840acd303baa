package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.pushgate.testkit.ApplianceExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * The test kit's {@link ApplianceExtension}, as a test class using it meets it: a failing test's
 * message ends with its appliance's log, whose whole is kept; the class leaves no log behind.
 */
class ApplianceExtensionTest {
  private static final Pattern KEPT = Pattern.compile("the whole log kept in (\\S+)\\)");

  @Test
  void aFailureCarriesTheAppliancesLogAndTheClassLeavesNoLogBehind() throws Exception {
    List<Throwable> failures = run(FailsWithItsAppliance.class);

    assertThat(failures).hasSize(1);
    String message = failures.get(0).getMessage();
    assertThat(message).startsWith("as planned\n-- the appliance's log, its last 60 lines")
        .contains("pushgate gateway at http://127.0.0.1:");
    Matcher kept = KEPT.matcher(message);
    assertThat(kept.find()).as(message).isTrue();
    Path copy = Path.of(kept.group(1));
    try {
      assertThat(Files.readString(copy)).contains("pushgate gateway at http://127.0.0.1:");
    } finally {
      Files.deleteIfExists(copy);
    }
    assertThat(FailsWithItsAppliance.log.getParent()).as("the log is in the class's directory")
        .isEqualTo(FailsWithItsAppliance.dir);
    assertThat(FailsWithItsAppliance.dir).as("deleted with the log in it").doesNotExist();
  }

  /** Each failure of {@code testClass}'s tests, run by the JUnit platform here. */
  private static List<Throwable> run(Class<?> testClass) {
    List<Throwable> failures = new ArrayList<>();
    LauncherFactory.create().execute(
        LauncherDiscoveryRequestBuilder.request().selectors(selectClass(testClass)).build(),
        new TestExecutionListener() {
          @Override
          public void executionFinished(TestIdentifier id, TestExecutionResult result) {
            result.getThrowable().ifPresent(failures::add);
          }
        });
    return failures;
  }

  /** Run by the test above only: a nested class is not one Maven's test run selects. */
  static class FailsWithItsAppliance {
    @RegisterExtension
    static final ApplianceExtension app = ApplianceExtension.serving();

    static Path dir;
    static Path log;

    @Test
    void fails() {
      dir = app.dir();
      log = app.get().log;
      throw new AssertionError("as planned");
    }
  }
}
