package dev.pushgate.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class PermissionsTest {
  @Test
  void runTokenCanReadAndOpenPullRequestsButNotPush() {
    assertThat(Permissions.READ)
        .isEqualTo(Map.of("contents", "read", "pull_requests", "write", "metadata", "read"));
  }

  @Test
  void gatewayTokenAddsWorkflowsOnlyWhenAsked() {
    assertThat(Permissions.write(false)).isEqualTo(Map.of("contents", "write", "metadata", "read"));
    assertThat(Permissions.write(true))
        .isEqualTo(Map.of("contents", "write", "metadata", "read", "workflows", "write"));
  }

  @Test
  void exactGrantIsNeitherExcessNorShort() {
    assertThat(Permissions.excess(Permissions.READ, Permissions.READ)).isEmpty();
    assertThat(Permissions.shortfall(Permissions.READ, Permissions.READ)).isEmpty();
  }

  @Test
  void higherLevelOrExtraPermissionIsExcess() {
    assertThat(Permissions.excess(Map.of("contents", "read"),
        Map.of("contents", "admin", "issues", "read")))
        .containsExactly("contents: admin (asked read)", "issues: read (not asked)");
  }

  @Test
  void unknownLevelCountsAsExcessSoItFailsClosed() {
    assertThat(Permissions.excess(Map.of("contents", "write"), Map.of("contents", "maintain")))
        .containsExactly("contents: maintain (asked write)");
  }

  @Test
  void lowerLevelOrMissingPermissionIsShortfall() {
    assertThat(Permissions.shortfall(Permissions.write(true), Map.of("contents", "read")))
        .containsExactly("contents: write (granted read)", "metadata: read (not granted)",
            "workflows: write (not granted)");
  }
}
