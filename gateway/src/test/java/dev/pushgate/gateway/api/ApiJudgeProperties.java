package dev.pushgate.gateway.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.gateway.api.ApiJudgement.ApiAction;
import dev.pushgate.policy.Decision;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/** What must hold of every judgement, whatever the call: for the random and the fuzz tests. */
final class ApiJudgeProperties {
  private static final Set<String> RUN_REPOS = Set.of("acme/widget", "acme/gadget");
  private static final Set<String> READS = Set.of("GET", "HEAD");

  private ApiJudgeProperties() {}

  /** Judges {@code call} and checks the judgement; a throw fails the caller. */
  static ApiJudgement check(ApiJudge judge, ApiCall call) {
    ApiJudgement j = judge.judge(call);
    assertThat(j).isNotNull();
    assertThat(j.actions()).isNotEmpty();
    assertThat(j.reason()).isNotBlank().doesNotContain("\n").doesNotContain("\r");
    for (ApiAction a : j.actions()) {
      assertThat(a.decision()).isNotNull();
      if (a.repository() != null && a.decision() != Decision.DENY) {
        assertThat(RUN_REPOS).contains(a.repository().toLowerCase(Locale.ROOT));
      }
    }
    if (j.decision() != Decision.DENY && call.method() != null
        && !READS.contains(call.method()) && !call.path().equals("/graphql")) {
      // An allowed or asked REST write is on one of the run's repositories, through the REST host.
      Optional<List<String>> segments = ApiPath.segments(call.path());
      assertThat(segments).isPresent();
      List<String> s = segments.get();
      assertThat(s.size()).isGreaterThanOrEqualTo(4);
      assertThat(s.get(0)).isEqualTo("repos");
      assertThat(RUN_REPOS).contains((s.get(1) + "/" + s.get(2)).toLowerCase(Locale.ROOT));
    }
    return j;
  }
}
