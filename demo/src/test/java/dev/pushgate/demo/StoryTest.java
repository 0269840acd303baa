package dev.pushgate.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StoryTest {
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
  private final List<String> ran = new ArrayList<>();

  @Test
  void passesOnlyWhenEveryStepPasses() {
    Story.Outcome outcome = new Story(out, Throwable::getMessage)
        .step("first", () -> ok("first"))
        .step("second", () -> ok("second"))
        .tell();

    assertThat(outcome.passed()).isTrue();
    assertThat(text()).isEqualTo("""
         1. first
            \u2714 first went well

         2. second
            \u2714 second went well

        \u2714 all 2 steps behaved as described.
        """);
  }

  @Test
  void theFirstStepThatMisbehavesEndsTheStoryAndIsNamed() {
    Story.Outcome outcome = new Story(out, Throwable::getMessage)
        .step("Push a branch: it lands", () -> ok("push"))
        .step("Push main: refused", () -> {
          Story.expect(false, "git push of main succeeded");
          return "never";
        })
        .step("Tear down", () -> ok("teardown"))
        .tell();

    assertThat(outcome.passed()).isFalse();
    assertThat(outcome.failedStep()).isEqualTo(2);
    assertThat(outcome.failedTitle()).isEqualTo("Push main: refused");
    assertThat(ran).containsExactly("push");
    assertThat(text()).contains("    \u2718 git push of main succeeded\n")
        .endsWith("\u2718 the demo failed at step 2 (Push main: refused):"
            + " git push of main succeeded\n")
        .doesNotContain("Tear down");
  }

  @Test
  void anUnexpectedExceptionFailsTheStepWithoutAStackTrace() {
    Story.Outcome outcome = new Story(out, Throwable::getMessage)
        .step("Start", () -> {
          throw new java.io.IOException("address already in use");
        })
        .tell();

    assertThat(outcome.passed()).isFalse();
    assertThat(outcome.why()).isEqualTo("address already in use");
    assertThat(text()).doesNotContain("\tat ");
  }

  @Test
  void secretsAreCutToTheirPrefixAndOtherValuesShownAsTheyAre() {
    assertThat(Demo.masked("ghs_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"))
        .isEqualTo("ghs_\u2026");
    assertThat(Demo.masked("pgr_" + "Zm9vYmFyYmF6cXV4cXV1eHh5enp5eHh5enp5"))
        .isEqualTo("pgr_\u2026");
    // A run's sentinel keeps the marker that says whose it is; its random part is cut.
    assertThat(Demo.masked(dev.pushgate.gateway.api.ApiSentinel.newValue()))
        .isEqualTo("ghs_pushgate\u2026");
    assertThat(Demo.masked("/tmp/run/gitconfig")).isEqualTo("/tmp/run/gitconfig");
  }

  private String ok(String name) {
    ran.add(name);
    return name + " went well";
  }

  private String text() {
    return bytes.toString(StandardCharsets.UTF_8);
  }
}
