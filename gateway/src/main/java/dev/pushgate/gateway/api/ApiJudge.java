package dev.pushgate.gateway.api;

/**
 * Judges a run's GitHub API calls with the run's rules: which action each call is (a pull request,
 * a review or merge, a tracker write, a push to a ref, a read, administration), on which
 * repository, and what the rules decide. Never throws on bad input: what it cannot read is denied.
 */
@FunctionalInterface
public interface ApiJudge {
  ApiJudgement judge(ApiCall call);
}
