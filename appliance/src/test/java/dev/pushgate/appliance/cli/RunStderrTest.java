package dev.pushgate.appliance.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** pushgate's lines on a run's standard error begin lines of their own. */
class RunStderrTest {
  @Test
  void aLineOfPushgatesBeginsALineThoughTheRunsOutputStoppedMidLine() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    RunStderr err = new RunStderr(bytes);

    err.print("sh: 1: ");
    err.println("pushgate: sandbox violation: file-write* \"/usr/x\"");
    err.print("cannot create /usr/x: Read-only file system\n");
    err.println("pushgate:   why: read-only");
    err.println((Object) "pushgate: run ended");
    err.print("");
    err.println();

    assertThat(bytes.toString(StandardCharsets.UTF_8)).isEqualTo("""
        sh: 1:\s
        pushgate: sandbox violation: file-write* "/usr/x"
        cannot create /usr/x: Read-only file system
        pushgate:   why: read-only
        pushgate: run ended

        """);
  }
}
