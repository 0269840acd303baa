package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pushgate.testkit.GitRun;
import dev.pushgate.testkit.RunningAppliance;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No upstream ref moves unless the rule allowed it. Random rule sets and random pushes by real
 * git (creates, fast-forwards, force-pushes, deletes, tags, several refs at once, atomic or not);
 * after every push the forge's refs must equal what an independent model of the rules predicts.
 * Reproduce a failure with {@code -Dscenario.seed=N}.
 */
class RandomPushScenarioTest {
  private static final int RULE_SETS = Integer.getInteger("scenario.ruleSets", 25);
  private static final int PUSHES_PER_SET = Integer.getInteger("scenario.pushes", 20);
  private static final List<String> REFS = List.of("refs/heads/main", "refs/heads/dev",
      "refs/heads/feature/a", "refs/heads/feature/b", "refs/heads/release/1",
      "refs/heads/release/2", "refs/tags/v1", "refs/tags/v2", "refs/tags/rel/x");
  private static final List<String> PATTERNS = List.of("refs/heads/main", "refs/heads/dev",
      "refs/heads/release/*", "refs/heads/feature/*", "refs/heads/**", "refs/tags/**",
      "refs/tags/v1", "refs/tags/*", "refs/**");
  private static final List<String> KINDS = List.of("create", "update", "force", "delete");
  private static final List<String> DECISIONS = List.of("allow", "deny", "ask");

  @TempDir Path tmp;

  @Test
  void upstreamRefsAlwaysEqualWhatTheRulesAllow() throws Exception {
    long seed = Long.getLong("scenario.seed", System.nanoTime());
    Random random = new Random(seed);
    StringBuilder log = new StringBuilder("seed " + seed + "\n");
    try (RunningAppliance app = RunningAppliance.start(tmp.resolve("data"))) {
      app.forgeCreate("acme/widget");
      Path home = Files.createDirectories(tmp.resolve("home"));
      Path work = null;
      int pushes = 0;
      for (int set = 0; set < RULE_SETS; set++) {
        List<Rule> rules = randomRules(random);
        String runJson = runRequest(rules);
        var run = app.createRun(runJson);
        GitRun git = new GitRun(home, Map.of(
            "GIT_CONFIG_GLOBAL", run.get("env").get("GIT_CONFIG_GLOBAL").asText(),
            "GH_TOKEN", run.get("env").get("GH_TOKEN").asText()));
        if (work == null) {
          git.in(tmp, "clone", "-q", "https://github.com/acme/widget.git", "w").ok();
          work = tmp.resolve("w");
        }
        log.append("rules ").append(runJson).append('\n');
        for (int p = 0; p < PUSHES_PER_SET; p++, pushes++) {
          Map<String, String> upstream = forgeRefs(app);
          List<Command> commands = randomCommands(random, git, work, upstream);
          boolean atomic = random.nextInt(4) == 0;
          Map<String, String> expected = predict(rules, upstream, commands, atomic, git, work);
          List<String> args = new ArrayList<>(List.of("push", "-q"));
          if (atomic) {
            args.add("--atomic");
          }
          args.add("origin");
          commands.forEach(c -> args.add(c.refspec()));
          GitRun.Result r = git.in(work, args.toArray(String[]::new));
          log.append("push ").append(args).append(" -> exit ").append(r.exit()).append('\n');
          Map<String, String> actual = forgeRefs(app);
          if (!actual.equals(expected)) {
            throw new AssertionError("upstream diverged from the model after push " + pushes
                + "\nexpected " + expected + "\nactual   " + actual + "\ngit said:\n" + r.stderr()
                + "\nscenario:\n" + log);
          }
        }
        app.control().delete("/v1/runs/" + run.get("runId").asText());
      }
      assertThat(pushes).isEqualTo(RULE_SETS * PUSHES_PER_SET);
    }
  }

  // --- the model ---

  record Rule(String refs, Set<String> kinds, String decision) {}

  record Command(String ref, String oldId, String newId) {
    boolean delete() {
      return newId == null;
    }

    String refspec() {
      return delete() ? ":" + ref : "+" + newId + ":" + ref;
    }
  }

  /** What upstream holds after the push, by the documented rule semantics. */
  private static Map<String, String> predict(List<Rule> rules, Map<String, String> upstream,
      List<Command> commands, boolean atomic, GitRun git, Path work) throws Exception {
    Map<String, String> allowed = new LinkedHashMap<>();
    boolean anyDenied = false;
    for (Command c : commands) {
      String kind = kindOf(c, git, work);
      if (decide(rules, c.ref(), kind).equals("allow")) {
        allowed.put(c.ref(), c.newId());
      } else {
        anyDenied = true;
      }
    }
    Map<String, String> after = new TreeMap<>(upstream);
    if (atomic && anyDenied) {
      return after;
    }
    allowed.forEach((ref, id) -> {
      if (id == null) {
        after.remove(ref);
      } else {
        after.put(ref, id);
      }
    });
    return after;
  }

  private static String kindOf(Command c, GitRun git, Path work) throws Exception {
    if (c.oldId() == null) {
      return "create";
    }
    if (c.delete()) {
      return "delete";
    }
    return git.in(work, "merge-base", "--is-ancestor", c.oldId(), c.newId()).exit() == 0
        ? "update" : "force";
  }

  /**
   * Most specific pattern wins (exact, then literal length, then fewer {@code **}, then
   * kind-scoped); deny > ask > allow (docs/policy.md).
   */
  static String decide(List<Rule> rules, String ref, String kind) {
    Rule best = null;
    for (Rule r : rules) {
      if (!matches(r.refs(), ref) || !r.kinds().isEmpty() && !r.kinds().contains(kind)) {
        continue;
      }
      if (best == null || compare(r, best) > 0) {
        best = r;
      }
    }
    String d = best == null ? "allow" : best.decision();
    return d.equals("ask") ? "deny" : d; // nobody is connected to answer: ask is a deny
  }

  private static int compare(Rule a, Rule b) {
    boolean ea = !a.refs().contains("*");
    boolean eb = !b.refs().contains("*");
    if (ea != eb) {
      return ea ? 1 : -1;
    }
    int la = a.refs().replace("*", "").length();
    int lb = b.refs().replace("*", "").length();
    if (la != lb) {
      return Integer.compare(la, lb);
    }
    int sa = a.refs().split("\\*\\*", -1).length;
    int sb = b.refs().split("\\*\\*", -1).length;
    if (sa != sb) {
      return Integer.compare(sb, sa); // fewer ** is narrower: refs/tags/* beats refs/tags/**
    }
    if (a.kinds().isEmpty() != b.kinds().isEmpty()) {
      return a.kinds().isEmpty() ? -1 : 1;
    }
    return Integer.compare(DECISIONS_BY_STRICTNESS.indexOf(a.decision()),
        DECISIONS_BY_STRICTNESS.indexOf(b.decision()));
  }

  private static final List<String> DECISIONS_BY_STRICTNESS = List.of("allow", "ask", "deny");

  private static boolean matches(String pattern, String ref) {
    StringBuilder re = new StringBuilder();
    for (int i = 0; i < pattern.length(); i++) {
      char ch = pattern.charAt(i);
      if (ch == '*' && i + 1 < pattern.length() && pattern.charAt(i + 1) == '*') {
        re.append(".+");
        i++;
      } else if (ch == '*') {
        re.append("[^/]+");
      } else {
        re.append(Pattern.quote(String.valueOf(ch)));
      }
    }
    return ref.matches(re.toString());
  }

  // --- random input ---

  private static List<Rule> randomRules(Random random) {
    List<Rule> rules = new ArrayList<>();
    int n = 1 + random.nextInt(5);
    for (int i = 0; i < n; i++) {
      Set<String> kinds = new java.util.TreeSet<>();
      if (random.nextInt(3) == 0) {
        for (String k : KINDS) {
          if (random.nextBoolean()) {
            kinds.add(k);
          }
        }
      }
      rules.add(new Rule(PATTERNS.get(random.nextInt(PATTERNS.size())), kinds,
          DECISIONS.get(random.nextInt(DECISIONS.size()))));
    }
    return rules;
  }

  private static String runRequest(List<Rule> rules) {
    ObjectMapper json = new ObjectMapper();
    ObjectNode body = json.createObjectNode();
    body.put("workspaceId", "scenario");
    body.put("repository", "acme/widget");
    ArrayNode push = body.putObject("rules").putArray("push");
    for (Rule r : rules) {
      ObjectNode n = push.addObject();
      n.put("refs", r.refs());
      if (!r.kinds().isEmpty()) {
        ArrayNode k = n.putArray("kinds");
        r.kinds().forEach(k::add);
      }
      n.put("decision", r.decision());
    }
    return body.toString();
  }

  private static List<Command> randomCommands(Random random, GitRun git, Path work,
      Map<String, String> upstream) throws Exception {
    List<String> refs = new ArrayList<>(REFS);
    java.util.Collections.shuffle(refs, random);
    int n = 1 + (random.nextInt(3) == 0 ? random.nextInt(3) : 0);
    List<Command> out = new ArrayList<>();
    for (String ref : refs.subList(0, n)) {
      String old = upstream.get(ref);
      int op = random.nextInt(10);
      if (old != null && op < 2 && !ref.equals("refs/heads/main")) {
        out.add(new Command(ref, old, null));
      } else if (old != null && op < 6) {
        out.add(new Command(ref, old, commit(git, work, old, random)));
      } else {
        String base = upstream.getOrDefault("refs/heads/main", null);
        List<String> ids = new ArrayList<>(upstream.values());
        String parent = ids.isEmpty() ? base : ids.get(random.nextInt(ids.size()));
        out.add(new Command(ref, old, commit(git, work, parent, random)));
      }
    }
    out.sort(Comparator.comparing(Command::ref));
    return out;
  }

  private static String commit(GitRun git, Path work, String parent, Random random)
      throws Exception {
    // One git process a commit: commit-tree names the parent's tree itself.
    return git.in(work, "commit-tree", parent + "^{tree}", "-p", parent, "-m",
        "c" + random.nextLong()).ok().stdout().strip();
  }

  private static Map<String, String> forgeRefs(RunningAppliance app) throws Exception {
    Map<String, String> refs = new TreeMap<>();
    try (Repository r = new FileRepository(app.forgeRepo("acme/widget").toFile())) {
      for (Ref ref : r.getRefDatabase().getRefs()) {
        if (!ref.isSymbolic()) {
          refs.put(ref.getName(), ref.getObjectId().name());
        }
      }
    }
    return refs;
  }

}
