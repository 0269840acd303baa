package dev.pushgate.policy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A workspace's guardrail rules: one decision per action class, ref-scoped push rules, and the
 * sandbox's write-deny globs (kept as data; the sandbox bridge interprets them).
 *
 * <p>One document shape everywhere, YAML in a file or JSON inline in a control API request:
 *
 * <pre>
 * commit: allow
 * open-pull-request: ask
 * push:
 *   - refs: refs/heads/main
 *     decision: ask
 *     reason: main needs a human
 *   - refs: "refs/heads/**"
 *     kinds: [force, delete]
 *     decision: deny
 * denyWriteGlobs: [".env", "*.key", "*.pem"]
 * </pre>
 *
 * An action key left out is {@code allow}, except {@code push-workflows}, which is {@code deny}. {@code push} is a decision or a list of scoped rules; a
 * ref no scoped rule covers is allowed. A document is validated as a whole: a bad one is refused
 * with a {@link RulesException} and nothing of it applies.
 */
public final class WorkspaceRules {
  /** What {@code denyWriteGlobs} is when a document leaves it out: the secret files. */
  public static final List<String> DEFAULT_DENY_WRITE_GLOBS = SecretFiles.GLOBS;

  /** The rules of a workspace that has none: every action allowed, the default write-deny globs. */
  public static final WorkspaceRules DEFAULT =
      new WorkspaceRules(Map.of(), PushRules.ALLOW_ALL, DEFAULT_DENY_WRITE_GLOBS, false,
          ContentRules.DEFAULT);

  private final Map<ActionClass, Decision> decisions;
  private final PushRules push;
  private final List<String> denyWriteGlobs;
  private final boolean denyWriteGlobsExplicit;
  private final ContentRules content;

  private WorkspaceRules(
      Map<ActionClass, Decision> decisions,
      PushRules push,
      List<String> denyWriteGlobs,
      boolean denyWriteGlobsExplicit,
      ContentRules content) {
    EnumMap<ActionClass, Decision> all = new EnumMap<>(ActionClass.class);
    for (ActionClass a : ActionClass.values()) {
      all.put(a, a == ActionClass.PUSH ? push.fallback() : decisions.getOrDefault(a, a.defaultDecision()));
    }
    this.decisions = Collections.unmodifiableMap(all);
    this.push = push;
    this.denyWriteGlobs = List.copyOf(denyWriteGlobs);
    this.denyWriteGlobsExplicit = denyWriteGlobsExplicit;
    this.content = Objects.requireNonNull(content, "content");
  }

  /**
   * Parses a rules document, YAML or JSON (text starting with <code>{</code> is read as JSON).
   * Empty text means {@link #DEFAULT}.
   *
   * @throws RulesException naming the line, column and problem of the first thing wrong
   */
  public static WorkspaceRules parse(String yamlOrJson) throws RulesException {
    return RulesReader.parse(yamlOrJson);
  }

  /**
   * Reads rules given inline in a JSON request, errors naming the JSON path under {@code rules}
   * (e.g. {@code rules.push[1].decision}). JSON null or a missing node means {@link #DEFAULT}.
   */
  public static WorkspaceRules fromJson(JsonNode rules) throws RulesException {
    return RulesReader.fromJson(rules, "rules");
  }

  /** As {@link #fromJson(JsonNode)}, with errors named under {@code path} ("" for the root). */
  public static WorkspaceRules fromJson(JsonNode rules, String path) throws RulesException {
    return RulesReader.fromJson(rules, Objects.requireNonNull(path, "path"));
  }

  /**
   * Builds rules in code. {@code decisions} must not hold {@link ActionClass#PUSH} (push is given
   * by {@code push}); absent actions are allowed. {@code denyWriteGlobs} null means the default
   * globs, not explicit. Push rules with scoped rules must fall back to allow, because the
   * document has no way to say otherwise (write a {@code refs/**} rule instead).
   */
  public static WorkspaceRules of(
      Map<ActionClass, Decision> decisions, PushRules push, List<String> denyWriteGlobs) {
    Objects.requireNonNull(decisions, "decisions");
    Objects.requireNonNull(push, "push");
    if (decisions.containsKey(ActionClass.PUSH)) {
      throw new IllegalArgumentException("give the push decision through push, not decisions");
    }
    decisions.values().forEach(d -> Objects.requireNonNull(d, "decision"));
    if (!push.rules().isEmpty() && push.fallback() != Decision.ALLOW) {
      throw new IllegalArgumentException(
          "scoped push rules fall back to allow; add a refs/** rule for another default");
    }
    if (denyWriteGlobs != null) {
      for (String g : denyWriteGlobs) {
        if (g == null || g.isEmpty()) {
          throw new IllegalArgumentException("empty glob in denyWriteGlobs");
        }
      }
      ContentGlob.checkList(denyWriteGlobs.stream().map(ContentGlob::name).toList());
    }
    return validated(decisions, push, denyWriteGlobs);
  }

  static WorkspaceRules validated(
      Map<ActionClass, Decision> decisions, PushRules push, List<String> denyWriteGlobs) {
    return validated(decisions, push, denyWriteGlobs, ContentRules.DEFAULT);
  }

  static WorkspaceRules validated(Map<ActionClass, Decision> decisions, PushRules push,
      List<String> denyWriteGlobs, ContentRules content) {
    return denyWriteGlobs == null
        ? new WorkspaceRules(decisions, push, DEFAULT_DENY_WRITE_GLOBS, false, content)
        : new WorkspaceRules(decisions, push, denyWriteGlobs, true, content);
  }

  /** These rules with other content rules. */
  public WorkspaceRules withContent(ContentRules content) {
    return new WorkspaceRules(decisions, push, denyWriteGlobs, denyWriteGlobsExplicit, content);
  }

  /**
   * The content rules the gateway judges pushed files by: {@link ContentRules#DEFAULT} (secret
   * files and detected secrets denied) unless the document gives {@code content}.
   */
  public ContentRules content() {
    return content;
  }

  /** The "Push to a remote" rules, which the gateway consults per ref update. */
  public PushRules push() {
    return push;
  }

  /**
   * The decision for an action class. For {@link ActionClass#PUSH} it is the decision for a ref no
   * scoped push rule covers; ask {@link #push()} about a particular ref.
   */
  public Decision decisionFor(ActionClass action) {
    return decisions.get(Objects.requireNonNull(action, "action"));
  }

  /**
   * The most restrictive decision these rules give any shell command, push rules included. What
   * only the gateway judges ({@code push-workflows}) is left out: no command line is classified
   * as it, so its default of deny must not turn every unclassifiable command into a deny.
   */
  public Decision strictest() {
    Decision d = push.strictest();
    for (Map.Entry<ActionClass, Decision> each : decisions.entrySet()) {
      if (each.getKey().judgedOnCommands()) {
        d = d.strictest(each.getValue());
      }
    }
    return d;
  }

  /**
   * Whether a push whose new commits change {@code .github/workflows/} may go upstream: the
   * {@code push-workflows} decision, deny unless the document says otherwise.
   */
  public Decision pushWorkflows() {
    return decisions.get(ActionClass.PUSH_WORKFLOWS);
  }

  /** Filename globs the sandbox must deny writes to; {@code .env, *.key, *.pem} when not given. */
  public List<String> denyWriteGlobs() {
    return denyWriteGlobs;
  }

  /** Whether the document gave {@code denyWriteGlobs} itself (an empty list counts). */
  public boolean denyWriteGlobsExplicit() {
    return denyWriteGlobsExplicit;
  }

  /**
   * These rules as a JSON document of the same shape {@link #fromJson(JsonNode)} reads, with every
   * action key written out. Reading it back gives equal rules.
   */
  public ObjectNode toJson() {
    JsonNodeFactory f = JsonNodeFactory.instance;
    ObjectNode doc = f.objectNode();
    for (ActionClass a : ActionClass.values()) {
      if (a != ActionClass.PUSH) {
        doc.put(a.id(), decisions.get(a).id());
        continue;
      }
      if (push.rules().isEmpty()) {
        doc.put(a.id(), push.fallback().id());
        continue;
      }
      ArrayNode list = doc.putArray(a.id());
      for (PushRule r : push.rules()) {
        ObjectNode rule = list.addObject();
        rule.put("refs", r.refs().toString());
        if (!r.kinds().isEmpty()) {
          ArrayNode kinds = rule.putArray("kinds");
          for (UpdateKind k : UpdateKind.values()) {
            if (r.kinds().contains(k)) {
              kinds.add(k.id());
            }
          }
        }
        rule.put("decision", r.decision().id());
        // A default reason is left out, as a document leaves it out: it names the pattern, so it
        // can be longer than a written reason may be.
        if (!r.reason().equals(new PushRule(r.refs(), r.kinds(), r.decision(), null).reason())) {
          rule.put("reason", r.reason());
        }
      }
    }
    if (denyWriteGlobsExplicit) {
      ArrayNode globs = doc.putArray("denyWriteGlobs");
      denyWriteGlobs.forEach(globs::add);
    }
    if (content.explicit()) {
      ArrayNode list = doc.putArray(RulesReader.CONTENT);
      for (ContentRule r : content.rules()) {
        list.add(contentJson(r));
      }
    }
    return doc;
  }

  private static ObjectNode contentJson(ContentRule r) {
    ObjectNode rule = JsonNodeFactory.instance.objectNode();
    rule.put("name", r.name());
    if (!r.paths().isEmpty()) {
      ArrayNode a = rule.putArray("paths");
      r.paths().forEach(g -> a.add(g.toString()));
    }
    if (!r.files().isEmpty()) {
      ArrayNode a = rule.putArray("files");
      r.files().forEach(g -> a.add(g.toString()));
    }
    r.maxSize().ifPresent(size -> rule.put("maxSize", size));
    if (r.binary()) {
      rule.put("binary", true);
    }
    if (r.secrets().equals(ContentRule.ALL_SECRETS)) {
      rule.put("secrets", "all");
    } else if (!r.secrets().isEmpty()) {
      ArrayNode a = rule.putArray("secrets");
      r.secrets().stream().sorted().forEach(a::add);
    }
    rule.put("decision", r.decision().id());
    if (r.reason() != null) {
      rule.put("reason", r.reason());
    }
    return rule;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof WorkspaceRules r
        && r.decisions.equals(decisions)
        && r.push.equals(push)
        && r.denyWriteGlobs.equals(denyWriteGlobs)
        && r.denyWriteGlobsExplicit == denyWriteGlobsExplicit
        && r.content.equals(content);
  }

  @Override
  public int hashCode() {
    return Objects.hash(decisions, push, denyWriteGlobs, denyWriteGlobsExplicit, content);
  }

  @Override
  public String toString() {
    return "WorkspaceRules" + toJson();
  }
}
