package dev.pushgate.appliance.api;

import dev.pushgate.gateway.api.ApiCall;
import dev.pushgate.gateway.api.ApiJudge;
import dev.pushgate.gateway.api.ApiJudgement;
import dev.pushgate.policy.Decision;
import java.util.List;

/**
 * A judge for tests of the boundaries' plumbing, not of judging:
 * reads pass, every other call is denied. Fail closed: nothing writes that was not judged.
 */
final class ReadsOnlyApiJudge implements ApiJudge {
  @Override
  public ApiJudgement judge(ApiCall call) {
    boolean read = call.method().equals("GET") || call.method().equals("HEAD");
    return new ApiJudgement(List.of(new ApiJudgement.ApiAction(read ? "read" : "unknown", null,
        call.path(), read ? Decision.ALLOW : Decision.DENY,
        read ? "reads pass" : "this appliance judges no GitHub API writes yet; denied")), false);
  }
}
