package dev.pushgate.policy;

import dev.pushgate.types.EnumIds;

/**
 * The classes of effect a guardrail rule speaks about. Each resolves to allow, ask or deny in a
 * workspace's rules; the ids are the keys of the rules document. An action a document leaves out
 * gets its {@link #defaultDecision()}: allow, except for changing CI workflows.
 */
public enum ActionClass {
  PUSH("push", "Push to a remote"),
  COMMIT("commit", "Create a commit"),
  OPEN_PULL_REQUEST("open-pull-request", "Open a pull request"),
  PUBLISH_REVIEW_OR_MERGE("publish-review-or-merge", "Publish a review or merge"),
  WRITE_TRACKER("write-tracker", "Write to an external tracker"),
  INSTALL_PACKAGE("install-package", "Install a package"),
  ACCESS_NETWORK("access-network", "Access the network"),
  /**
   * A push whose new commits change {@code .github/workflows/}. Judged at the gateway only, on
   * what the pushed objects contain: a workflow runs in CI with the repository's own token, which
   * can do what the push rules refuse the agent, so it is denied unless the rules say otherwise.
   */
  PUSH_WORKFLOWS("push-workflows", "Push a change to CI workflows", Decision.DENY, false);

  private final String id;
  private final String displayName;
  private final Decision defaultDecision;
  private final boolean judgedOnCommands;

  ActionClass(String id, String displayName) {
    this(id, displayName, Decision.ALLOW, true);
  }

  ActionClass(String id, String displayName, Decision defaultDecision, boolean judgedOnCommands) {
    this.id = id;
    this.displayName = displayName;
    this.defaultDecision = defaultDecision;
    this.judgedOnCommands = judgedOnCommands;
  }

  /** The decision when a rules document leaves this action out. */
  public Decision defaultDecision() {
    return defaultDecision;
  }

  /**
   * Whether a shell command can be classified as this action; false for what only the gateway
   * can see ({@link #PUSH_WORKFLOWS} depends on the pushed objects, not on the command line).
   */
  public boolean judgedOnCommands() {
    return judgedOnCommands;
  }

  /** The stable id used in rules documents, JSON and audit records, e.g. {@code open-pull-request}. */
  public String id() {
    return id;
  }

  /** The name a person reads, e.g. {@code Open a pull request}. */
  public String displayName() {
    return displayName;
  }

  public static ActionClass fromId(String id) {
    return EnumIds.parse(ActionClass.class, ActionClass::id, id, "an action class");
  }

  /** Every id, comma separated, in declaration order: for error messages. */
  static String ids() {
    return String.join(", ", java.util.Arrays.stream(values()).map(ActionClass::id).toList());
  }

  /** The display name with a lower-case first letter, to be used inside a sentence. */
  String inSentence() {
    return Character.toLowerCase(displayName.charAt(0)) + displayName.substring(1);
  }
}
