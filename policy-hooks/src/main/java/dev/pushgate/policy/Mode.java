package dev.pushgate.policy;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.pushgate.types.EnumIds;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The mode of a conversation. {@code plan}, {@code review} and {@code orchestrate} are read-only:
 * their command policy denies every state-changing command outright, and their sandbox mounts
 * everything read-only.
 *
 * <p>What a mode does to each action class is said here once ({@link #decisionFor}) and read by
 * every door: the command policy, the push gateway and the GitHub API boundary.
 */
public enum Mode {
  CHAT,
  PLAN,
  REVIEW,
  ORCHESTRATE;

  /** The lower-case id used by the control API and the run spec: {@code chat}, {@code plan}, … */
  @JsonValue
  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Remote mutations and installs: what chat mode asks about before it happens. */
  private static final Set<ActionClass> CHAT_ASKS = EnumSet.of(
      ActionClass.PUSH,
      ActionClass.OPEN_PULL_REQUEST,
      ActionClass.PUBLISH_REVIEW_OR_MERGE,
      ActionClass.WRITE_TRACKER,
      ActionClass.INSTALL_PACKAGE);

  public boolean isReadOnly() {
    return this != CHAT;
  }

  /**
   * What this mode alone decides about an action of class {@code action}, whatever door it comes
   * through. A read-only mode denies every action but reading the network (reads are not the
   * mode's to deny); chat mode asks before remote mutations and installs and allows the rest.
   */
  public Decision decisionFor(ActionClass action) {
    if (isReadOnly()) {
      return action == ActionClass.ACCESS_NETWORK ? Decision.ALLOW : Decision.DENY;
    }
    return CHAT_ASKS.contains(action) ? Decision.ASK : Decision.ALLOW;
  }

  /**
   * The mode's own refusal of {@code action}, or empty when this mode does not deny it.
   * {@code what} names the act inside a sentence ({@code push to refs/heads/main}); the reason
   * names the mode: {@code push to refs/heads/main is denied in plan mode, which is read-only}.
   */
  public Optional<Judgement> denies(ActionClass action, String what) {
    return decisionFor(action) == Decision.DENY
        ? Optional.of(new Judgement(Decision.DENY, id() + " mode", deniedReason(what)))
        : Optional.empty();
  }

  /**
   * The judgement of {@code action} under this mode where the workspace's rules judged it
   * {@code byRules}: the stricter of the two, the rules' own words at equal strictness (as the
   * command policy words it). {@code what} names the act inside a sentence.
   */
  public Judgement judge(ActionClass action, String what, Judgement byRules) {
    Decision byMode = decisionFor(action);
    if (byRules.decision().compareTo(byMode) >= 0) {
      return byRules;
    }
    return new Judgement(byMode, id() + " mode", byMode == Decision.DENY ? deniedReason(what)
        : what + " needs approval in " + id() + " mode");
  }

  /** Why this (read-only) mode denies {@code what}, in the words every door gives. */
  public String deniedReason(String what) {
    return what + " is denied in " + id() + " mode, which is read-only";
  }

  @JsonCreator
  public static Mode fromId(String id) {
    return EnumIds.parse(Mode.class, Mode::id, id, "a mode");
  }
}
