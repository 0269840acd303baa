package dev.pushgate.gitconfig;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Whether a new text of a repository's {@code .git/config} differs from the current one only by
 * what {@code git push -u} and {@code git branch --set-upstream-to} store: a branch's upstream,
 * {@code branch.<b>.remote} naming a remote the current config defines and {@code
 * branch.<b>.merge} = {@code refs/heads/…}. Both are {@link InertRepositoryConfig inert}; every
 * other setting must stay as it is, in number, order and value, and git must be able to read both
 * texts. Read with {@link ConfigScanner}, git's own parser step for step, so that what is judged
 * is what git will read. docs/sandbox.md, "The repository's .git/config: only an upstream".
 */
public final class UpstreamConfigEdit {
  /** Larger than this, a config is refused unread: git's own are a few hundred bytes. */
  public static final int MAX_BYTES = 256 * 1024;

  /**
   * Why an edit was refused: {@code what} is ours, {@code name} (a setting's name or value, or
   * null) comes from the file and must be quoted by whoever shows it.
   */
  public record Refusal(String what, String name) {}

  private static final Set<String> TRACKING_KEYS = Set.of("remote", "merge");
  private static final String HEADS = "refs/heads/";
  /** What git's check_refname_format refuses in a branch name, beyond controls and space. */
  private static final String NOT_IN_REFNAME = "~^:?*[\\\"";

  private UpstreamConfigEdit() {}

  /**
   * Judges {@code proposed} against {@code current}, both a file's bytes as ISO-8859-1.
   *
   * @return null when the edit stores upstreams only, else why not
   */
  public static Refusal refusal(String current, String proposed) {
    if (current.length() > MAX_BYTES || proposed.length() > MAX_BYTES) {
      return new Refusal("it is larger than " + MAX_BYTES / 1024 + " KiB", null);
    }
    List<ConfigEntry> was;
    List<ConfigEntry> now;
    try {
      was = ConfigScanner.scan(current);
    } catch (ConfigSyntaxException e) {
      return new Refusal("git cannot read the current one (" + e.getMessage() + ")", null);
    }
    try {
      now = ConfigScanner.scan(proposed);
    } catch (ConfigSyntaxException e) {
      return new Refusal("git could not read the new one (" + e.getMessage() + ")", null);
    }
    List<ConfigEntry> otherWas = others(was);
    List<ConfigEntry> otherNow = others(now);
    for (int i = 0; i < Math.max(otherWas.size(), otherNow.size()); i++) {
      ConfigEntry a = i < otherWas.size() ? otherWas.get(i) : null;
      ConfigEntry b = i < otherNow.size() ? otherNow.get(i) : null;
      if (a == null || b == null || !a.variable().equals(b.variable())
          || !Objects.equals(a.value(), b.value())) {
        return new Refusal("it adds, changes or removes a setting other than an upstream",
            (b != null ? b : a).variable());
      }
    }
    Set<String> remotes = new HashSet<>();
    for (ConfigEntry e : was) {
      if (e.section().equals("remote") && e.key().equals("url") && e.subsection() != null) {
        remotes.add(e.subsection());
      }
    }
    Set<String> kept = new HashSet<>();
    for (ConfigEntry e : tracking(was)) {
      kept.add(e.variable() + "=" + e.value());
    }
    for (ConfigEntry e : tracking(now)) {
      if (kept.contains(e.variable() + "=" + e.value())) {
        continue; // there already
      }
      Refusal bad = badUpstream(e, remotes);
      if (bad != null) {
        return bad;
      }
    }
    return null;
  }

  /** Why a new or changed tracking entry is not an upstream git would store; null when it is. */
  private static Refusal badUpstream(ConfigEntry e, Set<String> remotes) {
    String branch = e.subsection();
    if (!plain(branch) || e.value() == null) {
      return new Refusal("it names a branch or value git would not write", e.variable());
    }
    if (e.key().equals("remote") && !remotes.contains(e.value())) {
      return new Refusal("branch.BRANCH.remote names no remote this repository has",
          e.value());
    }
    if (e.key().equals("merge")
        && !(e.value().startsWith(HEADS) && e.value().length() > HEADS.length()
            && plain(e.value()))) {
      return new Refusal("branch.BRANCH.merge must be refs/heads/ and a branch name", e.value());
    }
    return null;
  }

  /** A branch or ref name as git writes it unquoted: no control, space, quote or backslash. */
  private static boolean plain(String s) {
    if (s == null || s.isEmpty()) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c <= ' ' || c == 0x7f || NOT_IN_REFNAME.indexOf(c) >= 0) {
        return false;
      }
    }
    return true;
  }

  private static boolean isTracking(ConfigEntry e) {
    return e.section().equals("branch") && e.subsection() != null
        && TRACKING_KEYS.contains(e.key()) && InertRepositoryConfig.isInert(e.variable());
  }

  private static List<ConfigEntry> tracking(List<ConfigEntry> entries) {
    List<ConfigEntry> out = new ArrayList<>();
    for (ConfigEntry e : entries) {
      if (isTracking(e)) {
        out.add(e);
      }
    }
    return out;
  }

  private static List<ConfigEntry> others(List<ConfigEntry> entries) {
    List<ConfigEntry> out = new ArrayList<>();
    for (ConfigEntry e : entries) {
      if (!isTracking(e)) {
        out.add(e);
      }
    }
    return out;
  }
}
