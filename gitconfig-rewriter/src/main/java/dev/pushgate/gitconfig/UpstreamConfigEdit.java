package dev.pushgate.gitconfig;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Whether a new text of a repository's {@code .git/config} differs from the current one only by
 * what {@code git push -u} and {@code git branch --set-upstream-to} store: an upstream for a
 * branch that has none, {@code branch.<b>.remote} naming a remote the current config defines and
 * {@code branch.<b>.merge} = {@code refs/heads/} and a valid branch name. An upstream a branch has
 * stays as it is (re-pointed, the operator's next {@code git pull} on it would merge what the
 * agent chose). Both are {@link InertRepositoryConfig inert}; every
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
    // An upstream the operator's branch has is theirs: re-pointed, their next git pull on it
    // would merge what the agent chose. Only a branch without one may gain one. A branch has one
    // when it has a merge (git's branch_get_upstream); git stores the remote first and the merge
    // in a second edit, so a remote alone is an upstream half made, which may be completed.
    Map<String, List<String>> upstreamsWas = upstreams(was);
    upstreamsWas.values().removeIf(
        entries -> entries.stream().noneMatch(e -> e.startsWith("merge=")));
    Map<String, List<String>> upstreamsNow = upstreams(now);
    for (Map.Entry<String, List<String>> e : upstreamsWas.entrySet()) {
      if (!e.getValue().equals(upstreamsNow.get(e.getKey()))) {
        return new Refusal(EXISTING_UPSTREAM, "branch." + e.getKey());
      }
    }
    Set<String> kept = new HashSet<>();
    for (ConfigEntry e : tracking(was)) {
      kept.add(e.variable() + "=" + e.value());
    }
    for (ConfigEntry e : tracking(now)) {
      if (upstreamsWas.containsKey(e.subsection())
          || kept.contains(e.variable() + "=" + e.value())) {
        continue; // there already
      }
      Refusal bad = badUpstream(e, remotes);
      if (bad != null) {
        return bad;
      }
    }
    return null;
  }

  /** Why changing or removing an upstream is refused, and what the agent can do instead. */
  public static final String EXISTING_UPSTREAM = "it changes or removes the upstream of a branch that has"
      + " one (a run may only add an upstream to a branch that has none); push with git push"
      + " origin HEAD:BRANCH, or work on a new branch";

  /** Each branch's tracking entries ({@code key=value}, in order), by branch name. */
  private static Map<String, List<String>> upstreams(List<ConfigEntry> entries) {
    Map<String, List<String>> out = new LinkedHashMap<>();
    for (ConfigEntry e : tracking(entries)) {
      out.computeIfAbsent(e.subsection(), b -> new ArrayList<>()).add(e.key() + "=" + e.value());
    }
    return out;
  }

  /** Why a new tracking entry is not an upstream git would store; null when it is. */
  private static Refusal badUpstream(ConfigEntry e, Set<String> remotes) {
    String branch = e.subsection();
    if (!branchName(branch) || e.value() == null) {
      return new Refusal("it names a branch or value git would not write", e.variable());
    }
    if (e.key().equals("remote") && !remotes.contains(e.value())) {
      return new Refusal("branch.BRANCH.remote names no remote this repository has",
          e.value());
    }
    if (e.key().equals("merge")
        && !(e.value().startsWith(HEADS) && branchName(e.value().substring(HEADS.length())))) {
      return new Refusal("branch.BRANCH.merge must be refs/heads/ and a valid branch name",
          e.value());
    }
    return null;
  }

  /**
   * A branch name git accepts and writes unquoted: git's {@code check_refname_format} (no
   * component empty, starting with a dot or ending in {@code .lock}; no {@code ..}, {@code @{},
   * trailing dot, control, space or {@code ~^:?*[\}; not {@code @}) and {@code
   * strbuf_check_branch_ref} (not starting with {@code -}, not {@code HEAD}); no quote.
   */
  static boolean branchName(String s) {
    if (!plain(s) || s.startsWith("-") || s.equals("HEAD") || s.equals("@")
        || s.contains("..") || s.contains("@{") || s.endsWith(".")) {
      return false;
    }
    for (String component : s.split("/", -1)) {
      if (component.isEmpty() || component.startsWith(".") || component.endsWith(".lock")) {
        return false;
      }
    }
    return true;
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
