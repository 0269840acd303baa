package dev.pushgate.policy;

/**
 * A place where pushgate judges what a command does, whatever command does it: there a refusal or
 * an approval comes with the rule's own reason, in git's or gh's output. The appliance decides, for
 * each run, which of these are in force; where one is, the command policy lets through what it
 * would judge instead of asking first ({@link CommandPolicy#judge(String, Mode, WorkspaceRules,
 * java.util.Set)}).
 */
public enum Boundary {
  /** Every push to the git host goes through the gateway, which judges each ref update. */
  GIT_PUSH("the push gateway"),
  /** Every call to the GitHub API goes through the run's proxy, which judges each request. */
  GITHUB_API("the GitHub API boundary");

  private final String place;

  Boundary(String place) {
    this.place = place;
  }

  /** Where the judging happens, inside a sentence: {@code the push gateway}. */
  public String place() {
    return place;
  }
}
