package dev.pushgate.policy;

/**
 * The classes of effect a guardrail rule speaks about. Each resolves to allow, ask or deny in a
 * workspace's rules; the ids are the keys of the rules document.
 */
public enum ActionClass {
  PUSH("push", "Push to a remote"),
  COMMIT("commit", "Create a commit"),
  OPEN_PULL_REQUEST("open-pull-request", "Open a pull request"),
  PUBLISH_REVIEW_OR_MERGE("publish-review-or-merge", "Publish a review or merge"),
  WRITE_TRACKER("write-tracker", "Write to an external tracker"),
  INSTALL_PACKAGE("install-package", "Install a package"),
  ACCESS_NETWORK("access-network", "Access the network");

  private final String id;
  private final String displayName;

  ActionClass(String id, String displayName) {
    this.id = id;
    this.displayName = displayName;
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
    for (ActionClass a : values()) {
      if (a.id.equals(id)) {
        return a;
      }
    }
    throw new IllegalArgumentException("not an action class: " + id + " (expected " + ids() + ")");
  }

  /** Every id, comma separated, in declaration order: for error messages. */
  static String ids() {
    StringBuilder s = new StringBuilder();
    for (ActionClass a : values()) {
      if (s.length() > 0) {
        s.append(", ");
      }
      s.append(a.id);
    }
    return s.toString();
  }

  /** The display name with a lower-case first letter, to be used inside a sentence. */
  String inSentence() {
    return Character.toLowerCase(displayName.charAt(0)) + displayName.substring(1);
  }
}
