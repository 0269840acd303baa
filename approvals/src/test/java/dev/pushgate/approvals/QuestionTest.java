package dev.pushgate.approvals;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class QuestionTest {
  @Test
  void anAgentsCommandCannotRedrawTheApproversTerminal() {
    Question q = new Question("q_1", Instant.EPOCH, Instant.EPOCH, "command", "run_1", "ws",
        "acme/widget", null, null, null, null, "git push\r\u001b[2Kls -la\u202e", "rule", "why",
        List.of());
    assertThat(q.summary())
        .isEqualTo("run run_1 wants to run: git push\\x0d\\x1b[2Kls -la\\u202e");
  }

  @Test
  void aPushSummaryNamesKindRefRepositoryAndRange() {
    Question q = new Question("q_1", Instant.EPOCH, Instant.EPOCH, "push", "run_1", "ws",
        "acme/widget", "refs/heads/main", "update", "0123456789abcdef", "fedcba9876543210", null,
        "rule", "why", List.of());
    assertThat(q.summary())
        .isEqualTo("update refs/heads/main of acme/widget 0123456789..fedcba9876");
  }
}
