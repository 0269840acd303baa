package dev.pushgate.policy;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Judges a shell command line an agent wants to run, for the harness bash tool and Claude Code's
 * {@code Bash} tool. Every simple command in the line is judged by the mode's command policy and
 * by the workspace rules; the strictest decision wins.
 *
 * <ul>
 *   <li>{@code plan}, {@code review}, {@code orchestrate}: every state-changing command is denied.
 *   <li>{@code chat}: a fixed list (privilege escalation, system and disk destruction, container
 *       and namespace escape) is denied; remote-state mutations (push, pull requests, reviews and
 *       merges, tracker writes, installs, publishes) ask first; everything else runs.
 *   <li>Workspace rules: each action class the line belongs to gets its rule's decision; {@code git
 *       push} is judged against the ref-scoped push rules for the refs the line names.
 *   <li>A line that cannot be parsed, or whose command cannot be seen ({@code $CMD}, a shell
 *       reading standard input), is judged as strictly as the strictest rule in force: deny in a
 *       read-only mode, otherwise the strictest of ask and every workspace rule. Never allow.
 * </ul>
 *
 * <p>Where a boundary is in force for the run ({@link Boundary}), what it judges is let through to
 * it instead of asking first: a {@code git push} to the git host when pushes go through the
 * gateway, a gh call or an HTTP request to GitHub's API when the API goes through the run's
 * proxy. The refusal or the approval then comes from the boundary, with the rule's own reason.
 * What does not depend on the boundary stays: a read-only mode still denies, and so does a
 * workspace rule that denies the action whatever the refs (the boundary would refuse it too).
 *
 * This is a soft gate: it recognises the conventional spelling of an action. Pushes never depend
 * on it; the gateway enforces them.
 */
public final class CommandPolicy {
  private static final String STRICT = "so it is judged as strictly as the strictest rule in force";

  private CommandPolicy() {}

  /**
   * Judges one command line for a run where no boundary is in force. Never returns null and never
   * throws for any line.
   */
  public static CommandJudgement judge(String commandLine, Mode mode, WorkspaceRules rules) {
    return judge(commandLine, mode, rules, Set.of());
  }

  /**
   * Judges one command line for a run where {@code boundaries} are in force. Never returns null
   * and never throws for any line.
   */
  public static CommandJudgement judge(String commandLine, Mode mode, WorkspaceRules rules,
      Set<Boundary> boundaries) {
    Objects.requireNonNull(commandLine, "commandLine");
    Objects.requireNonNull(mode, "mode");
    Objects.requireNonNull(rules, "rules");
    Objects.requireNonNull(boundaries, "boundaries");
    if (commandLine.isBlank()) {
      return new CommandJudgement(Decision.ALLOW, Set.of(), "the command is empty");
    }
    try {
      List<SimpleCommand> commands = ShellParser.parse(commandLine);
      return combine(CommandClassifier.classify(commands), mode, rules, boundaries);
    } catch (ShellSyntaxException e) {
      return new CommandJudgement(failClosed(mode, rules), Set.of(), "cannot parse the command ("
          + CommandClassifier.display(e.getMessage()) + " at character " + (e.offset() + 1) + "), "
          + STRICT);
    } catch (RuntimeException | StackOverflowError e) {
      // A bug in the parser or classifier must not become an allow.
      return new CommandJudgement(failClosed(mode, rules), Set.of(),
          "the command could not be classified, " + STRICT);
    }
  }

  /**
   * The decision for a line that cannot be judged: deny in a read-only mode, otherwise the
   * strictest of ask and every decision in the workspace rules.
   */
  static Decision failClosed(Mode mode, WorkspaceRules rules) {
    return mode.isReadOnly() ? Decision.DENY : Decision.ASK.strictest(rules.strictest());
  }

  /** @param deferred whether it lets the command through to a boundary that judges it */
  private record Verdict(Decision decision, String reason, boolean deferred) {
    Verdict(Decision decision, String reason) {
      this(decision, reason, false);
    }
  }

  private static CommandJudgement combine(List<Finding> findings, Mode mode, WorkspaceRules rules,
      Set<Boundary> boundaries) {
    Decision decision = Decision.ALLOW;
    String reason = null;
    boolean forbidden = false;
    boolean deferred = false;
    EnumSet<ActionClass> actions = EnumSet.noneOf(ActionClass.class);
    for (Finding f : findings) {
      if (f.action() != null) {
        actions.add(f.action());
      }
      Verdict v = verdict(f, mode, rules, boundaries);
      boolean isForbidden = f.kind() == Finding.Kind.FORBIDDEN;
      int stricter = v.decision().compareTo(decision);
      // The first of the strictest findings gives the reason, except that "never allowed" says
      // more than "read-only" about a line that is both, and an allow that a boundary will judge
      // says more than one that nothing judges.
      if (stricter > 0 || (stricter == 0 && (reason == null || (isForbidden && !forbidden)
          || (v.deferred() && !deferred)))) {
        decision = v.decision();
        reason = v.reason();
        forbidden = isForbidden;
        deferred = v.deferred();
      }
    }
    return new CommandJudgement(decision, actions,
        reason == null ? "no rule restricts this command" : reason);
  }

  private static Verdict verdict(Finding f, Mode mode, WorkspaceRules rules,
      Set<Boundary> boundaries) {
    String subject = "`" + f.label() + "` " + f.what();
    String readOnly = subject + ", and " + mode.id() + " mode is read-only";
    boolean atBoundary = f.judgedAt() != null && boundaries.contains(f.judgedAt());
    return switch (f.kind()) {
      case FORBIDDEN -> new Verdict(Decision.DENY, "`" + f.label() + "` is never allowed: " + f.what());
      case OPAQUE -> new Verdict(failClosed(mode, rules), subject + ", " + STRICT);
      case STATE_CHANGE -> mode.isReadOnly()
          ? new Verdict(Decision.DENY, readOnly)
          : new Verdict(Decision.ALLOW, null);
      case REMOTE_CHANGE -> mode.isReadOnly()
          ? new Verdict(Decision.DENY, readOnly)
          : atBoundary
              ? deferred(subject, f.judgedAt())
              : new Verdict(Decision.ASK, subject + ", which needs approval in chat mode");
      case ACTION -> {
        // What the mode does to the action class is Mode's one table, read by every door.
        Decision modeDecision = mode.decisionFor(f.action());
        if (atBoundary && modeDecision != Decision.DENY) {
          Verdict denied = deniedWhatever(f, subject, rules);
          yield denied != null ? denied : deferred(subject, f.judgedAt());
        }
        Verdict byMode = switch (modeDecision) {
          case ALLOW -> new Verdict(Decision.ALLOW, null);
          case ASK -> new Verdict(Decision.ASK, subject + ", which needs approval in chat mode");
          case DENY -> new Verdict(Decision.DENY, readOnly);
        };
        Verdict byRules = byRules(f, subject, rules);
        // At equal strictness the workspace's own words say more than the mode's.
        yield byRules.decision().compareTo(byMode.decision()) >= 0 ? byRules : byMode;
      }
    };
  }

  private static Verdict deferred(String subject, Boundary boundary) {
    return new Verdict(Decision.ALLOW, subject + ", which is judged at " + boundary.place(), true);
  }

  /**
   * The deny of a workspace rule that refuses this action whatever it touches, or null. The
   * boundary would refuse it by the same rule; saying so now spares a round trip. A push is
   * denied here only when every ref is denied ({@code push: deny}, or only deny rules, one of them
   * on {@code refs/**}): which refs and kinds of update a line makes is the gateway's to see, not
   * a guess from the line.
   */
  private static Verdict deniedWhatever(Finding f, String subject, WorkspaceRules rules) {
    if (f.action() == ActionClass.PUSH) {
      PushRules push = rules.push();
      boolean everyRefDenied = push.fallback() == Decision.DENY || push.rules().stream()
          .anyMatch(r -> r.kinds().isEmpty() && r.refs().toString().equals("refs/**"));
      boolean allDeny = everyRefDenied
          && push.rules().stream().allMatch(r -> r.decision() == Decision.DENY);
      return allDeny ? byPushRules(f, subject, push) : null;
    }
    Decision d = rules.decisionFor(f.action());
    return d == Decision.DENY ? byDecision(d, subject) : null;
  }

  private static Verdict byRules(Finding f, String subject, WorkspaceRules rules) {
    if (f.action() == ActionClass.PUSH) {
      return byPushRules(f, subject, rules.push());
    }
    return byDecision(rules.decisionFor(f.action()), subject);
  }

  private static Verdict byDecision(Decision d, String subject) {
    return switch (d) {
      case ALLOW -> new Verdict(d, subject + ", which this workspace's rules allow");
      case ASK -> new Verdict(d, subject + ", which needs approval under this workspace's rules");
      case DENY -> new Verdict(d, subject + ", which this workspace's rules deny");
    };
  }

  /**
   * Judges a push against the push rules for each ref the line names and each kind of update it
   * may be; a ref the line does not name is some branch, and {@code --mirror} is any ref.
   */
  private static Verdict byPushRules(Finding f, String subject, PushRules push) {
    List<PushTarget> targets = f.pushTargets().isEmpty()
        ? List.of(new PushTarget("refs/heads/" + PushTarget.SOME,
            EnumSet.of(UpdateKind.CREATE, UpdateKind.UPDATE)))
        : f.pushTargets();
    Verdict fallback = byDecision(push.fallback(), subject);
    Verdict best = null;
    for (PushTarget t : targets) {
      for (UpdateKind kind : UpdateKind.values()) {
        if (!t.kinds().contains(kind)) {
          continue;
        }
        List<Verdict> candidates = new ArrayList<>();
        if (t.ref() == null) {
          for (PushRule r : push.rules()) {
            if (r.kinds().isEmpty() || r.kinds().contains(kind)) {
              candidates.add(new Verdict(r.decision(), "`" + f.label() + "` (any ref): " + r.reason()));
            }
          }
          candidates.add(fallback);
        } else {
          String where = t.named() ? " to " + CommandClassifier.display(t.ref()) : "";
          candidates.add(push.decidingRule(t.ref(), kind)
              .map(r -> new Verdict(r.decision(), "`" + f.label() + "`" + where + ": " + r.reason()))
              .orElse(fallback));
        }
        for (Verdict v : candidates) {
          if (best == null || v.decision().compareTo(best.decision()) > 0) {
            best = v;
          }
        }
      }
    }
    return best == null ? fallback : best;
  }
}
