package dev.pushgate.policy;

import dev.pushgate.types.UntrustedText;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;

/**
 * Reads a workspace rules document into a tree that remembers where each node came from, then
 * validates the tree as a whole. The same validation serves YAML text, JSON text and a JSON tree,
 * so the three spellings cannot drift apart.
 */
final class RulesReader {
  static final int MAX_CHARS = 256 * 1024;
  static final int MAX_REASON = 200;
  private static final int MAX_DEPTH = 16;
  static final String CONTENT = "content";
  private static final String UNSUPPORTED =
      "unsupported value (only mappings, lists, strings, numbers, booleans and null)";

  private static final JsonFactory JSON = JsonFactory.builder().build();
  private static final YAMLFactory YAML = YAMLFactory.builder().build();

  private RulesReader() {}

  // ---- the located tree

  sealed interface Node permits MapNode, ListNode, ScalarNode {
    Where where();
  }

  record Where(int line, int column, String path) {}

  record Entry(String key, Where keyWhere, Node value) {}

  record MapNode(List<Entry> entries, Where where) implements Node {}

  record ListNode(List<Node> items, Where where) implements Node {}

  enum ScalarKind {
    STRING,
    NUMBER,
    BOOLEAN,
    NULL
  }

  record ScalarNode(ScalarKind kind, String text, Where where) implements Node {}

  // ---- entry points

  static WorkspaceRules parse(String text) throws RulesException {
    if (text == null) {
      throw new RulesException(0, 0, "", "no rules document");
    }
    if (text.length() > MAX_CHARS) {
      throw new RulesException(
          1, 1, "", "the rules document is longer than " + MAX_CHARS + " characters");
    }
    String body = text.startsWith("\uFEFF") ? text.substring(1) : text;
    boolean json = body.stripLeading().startsWith("{");
    try (JsonParser p = json ? JSON.createParser(body) : YAML.createParser(body)) {
      JsonToken first = p.nextToken();
      if (first == null) {
        return WorkspaceRules.DEFAULT;
      }
      Node root = read(p, "", 0);
      JsonToken extra;
      try {
        extra = p.nextToken();
      } catch (JsonProcessingException e) {
        throw syntax(e, json);
      }
      if (extra != null) {
        Where w = where(p.currentTokenLocation(), "");
        throw new RulesException(
            w.line(), w.column(), "", "unexpected content after the rules document");
      }
      return validate(root);
    } catch (JsonProcessingException e) {
      throw syntax(e, json);
    } catch (IOException e) {
      // A String source does not fail with I/O; anything here is a broken document.
      throw new RulesException(1, 1, "", "unreadable rules document");
    }
  }

  static WorkspaceRules fromJson(JsonNode node, String path) throws RulesException {
    if (node == null || node.isNull() || node.isMissingNode()) {
      return WorkspaceRules.DEFAULT;
    }
    return validate(convert(node, path, 0));
  }

  // ---- reading text

  private static Node read(JsonParser p, String path, int depth)
      throws IOException, RulesException {
    Where at = where(p.currentTokenLocation(), path);
    if (depth > MAX_DEPTH) {
      throw new RulesException(at.line(), at.column(), path, "the document is nested too deeply");
    }
    if (p instanceof YAMLParser y && (y.getObjectId() != null || y.isCurrentAlias())) {
      throw new RulesException(
          at.line(), at.column(), path, "YAML anchors and aliases are not supported in rules");
    }
    JsonToken t = p.currentToken();
    switch (t) {
      case START_OBJECT -> {
        List<Entry> entries = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String key = p.currentName();
          Where keyAt = where(p.currentTokenLocation(), child(path, key));
          if (!seen.add(key)) {
            throw new RulesException(
                keyAt.line(), keyAt.column(), keyAt.path(), "duplicate key '" + key + "'");
          }
          p.nextToken();
          entries.add(new Entry(key, keyAt, read(p, child(path, key), depth + 1)));
        }
        return new MapNode(List.copyOf(entries), at);
      }
      case START_ARRAY -> {
        List<Node> items = new ArrayList<>();
        while (p.nextToken() != JsonToken.END_ARRAY) {
          items.add(read(p, path + "[" + items.size() + "]", depth + 1));
        }
        return new ListNode(List.copyOf(items), at);
      }
      case VALUE_STRING -> {
        return new ScalarNode(ScalarKind.STRING, p.getText(), at);
      }
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> {
        return new ScalarNode(ScalarKind.NUMBER, p.getText(), at);
      }
      case VALUE_TRUE, VALUE_FALSE -> {
        return new ScalarNode(ScalarKind.BOOLEAN, p.getText(), at);
      }
      case VALUE_NULL -> {
        return new ScalarNode(ScalarKind.NULL, "null", at);
      }
      default -> throw new RulesException(at.line(), at.column(), path, UNSUPPORTED);
    }
  }

  private static Where where(JsonLocation l, String path) {
    return new Where(Math.max(1, l.getLineNr()), Math.max(1, l.getColumnNr()), path);
  }

  private static RulesException syntax(JsonProcessingException e, boolean json) {
    String language = json ? "JSON" : "YAML";
    if (e.getCause() instanceof MarkedYAMLException y) {
      // snakeyaml's own message spans lines with a source excerpt; its marks say it better. The
      // context mark points at the construct left open (a quote, a bracket), which is what a
      // person has to fix, so it wins over the problem mark at the end of the stream.
      Mark mark = y.getContextMark() != null ? y.getContextMark() : y.getProblemMark();
      String why = y.getContext() == null ? y.getProblem() : y.getContext() + ": " + y.getProblem();
      int line = mark == null ? 1 : mark.getLine() + 1;
      int column = mark == null ? 1 : mark.getColumn() + 1;
      return new RulesException(line, column, "", "not valid " + language + ": " + clip(why));
    }
    JsonLocation l = e.getLocation();
    int line = l == null ? 1 : Math.max(1, l.getLineNr());
    int column = l == null ? 1 : Math.max(1, l.getColumnNr());
    String why = e.getOriginalMessage();
    return new RulesException(line, column, "", "not valid " + language + ": " + clip(why));
  }

  private static String clip(String why) {
    return why == null ? "syntax error" : UntrustedText.oneLine(why, 160);
  }

  // ---- converting a JSON tree

  private static Node convert(JsonNode n, String path, int depth) throws RulesException {
    Where at = new Where(0, 0, path);
    if (depth > MAX_DEPTH) {
      throw new RulesException(0, 0, path, "the document is nested too deeply");
    }
    if (n.isObject()) {
      List<Entry> entries = new ArrayList<>();
      for (Map.Entry<String, JsonNode> e : n.properties()) {
        String p = child(path, e.getKey());
        entries.add(new Entry(e.getKey(), new Where(0, 0, p), convert(e.getValue(), p, depth + 1)));
      }
      return new MapNode(List.copyOf(entries), at);
    }
    if (n.isArray()) {
      List<Node> items = new ArrayList<>();
      for (JsonNode item : n) {
        items.add(convert(item, path + "[" + items.size() + "]", depth + 1));
      }
      return new ListNode(List.copyOf(items), at);
    }
    if (n.isTextual()) {
      return new ScalarNode(ScalarKind.STRING, n.textValue(), at);
    }
    if (n.isNumber()) {
      return new ScalarNode(ScalarKind.NUMBER, n.asText(), at);
    }
    if (n.isBoolean()) {
      return new ScalarNode(ScalarKind.BOOLEAN, n.asText(), at);
    }
    if (n.isNull()) {
      return new ScalarNode(ScalarKind.NULL, "null", at);
    }
    throw new RulesException(0, 0, path, UNSUPPORTED);
  }

  private static String child(String path, String key) {
    return path.isEmpty() ? key : path + "." + key;
  }

  // ---- validation

  private static WorkspaceRules validate(Node root) throws RulesException {
    if (root instanceof ScalarNode s && s.kind() == ScalarKind.NULL) {
      return WorkspaceRules.DEFAULT;
    }
    if (!(root instanceof MapNode map)) {
      throw fail(root.where(), "the rules document must be a mapping of action ids to decisions, not "
          + describe(root));
    }
    Map<ActionClass, Decision> decisions = new EnumMap<>(ActionClass.class);
    PushRules push = PushRules.ALLOW_ALL;
    List<String> globs = null;
    ContentRules content = ContentRules.DEFAULT;
    for (Entry e : map.entries()) {
      if (e.key().equals("denyWriteGlobs")) {
        globs = globs(e.value());
        continue;
      }
      if (e.key().equals(CONTENT)) {
        content = ContentRulesReader.content(e.value());
        continue;
      }
      ActionClass action = actionFor(e.key());
      if (action == null) {
        throw fail(e.keyWhere(), "unknown key '" + e.key() + "' (expected "
            + ActionClass.ids() + ", content or denyWriteGlobs)");
      }
      if (action == ActionClass.PUSH) {
        push = push(e.value());
      } else {
        decisions.put(action, decision(e.value(), e.key()));
      }
    }
    return WorkspaceRules.validated(decisions, push, globs, content);
  }

  private static ActionClass actionFor(String key) {
    for (ActionClass a : ActionClass.values()) {
      if (a.id().equals(key)) {
        return a;
      }
    }
    return null;
  }

  static Decision decision(Node n, String what) throws RulesException {
    if (n instanceof ScalarNode s) {
      if (s.kind() == ScalarKind.NULL || s.text().isEmpty()) {
        throw fail(n.where(), "missing decision for '" + what + "' (expected allow, ask or deny)");
      }
      for (Decision d : Decision.values()) {
        if (d.id().equals(s.text())) {
          return d;
        }
      }
      throw fail(n.where(), "bad decision '" + shorten(s.text()) + "' (expected allow, ask or deny)");
    }
    throw fail(n.where(), "wrong type: '" + what + "' must be a decision (allow, ask or deny), not "
        + describe(n));
  }

  private static PushRules push(Node n) throws RulesException {
    if (n instanceof ScalarNode) {
      return PushRules.of(decision(n, "push"), List.of());
    }
    if (!(n instanceof ListNode list)) {
      throw fail(n.where(), "wrong type: 'push' must be a decision (allow, ask or deny) or a list of"
          + " rules, not " + describe(n));
    }
    List<PushRule> rules = new ArrayList<>();
    for (Node item : list.items()) {
      rules.add(pushRule(item));
    }
    return PushRules.of(Decision.ALLOW, rules);
  }

  private static PushRule pushRule(Node n) throws RulesException {
    if (!(n instanceof MapNode map)) {
      throw fail(n.where(), "wrong type: a push rule must be a mapping with refs and decision, not "
          + describe(n));
    }
    RefPattern refs = null;
    Set<UpdateKind> kinds = Set.of();
    Decision decision = null;
    String reason = null;
    for (Entry e : map.entries()) {
      switch (e.key()) {
        case "refs" -> refs = pattern(e.value());
        case "kinds" -> kinds = kinds(e.value());
        case "decision" -> decision = decision(e.value(), "decision");
        case "reason" -> reason = reason(e.value());
        default -> throw fail(e.keyWhere(), "unknown key '" + e.key()
            + "' in a push rule (expected refs, kinds, decision or reason)");
      }
    }
    if (refs == null) {
      throw fail(map.where(), "a push rule is missing 'refs'");
    }
    if (decision == null) {
      throw fail(map.where(), "a push rule is missing 'decision'");
    }
    return new PushRule(refs, kinds, decision, reason);
  }

  private static RefPattern pattern(Node n) throws RulesException {
    String text = string(n, "refs");
    try {
      return RefPattern.parse(text);
    } catch (IllegalArgumentException e) {
      throw fail(n.where(), "bad pattern: " + e.getMessage());
    }
  }

  private static Set<UpdateKind> kinds(Node n) throws RulesException {
    if (!(n instanceof ListNode list)) {
      throw fail(n.where(), "wrong type: 'kinds' must be a list of create, update, force or delete,"
          + " not " + describe(n));
    }
    if (list.items().isEmpty()) {
      throw fail(n.where(), "'kinds' is empty (leave it out to cover every kind of update)");
    }
    Set<UpdateKind> kinds = EnumSet.noneOf(UpdateKind.class);
    for (Node item : list.items()) {
      String id = string(item, "a kind");
      UpdateKind kind = null;
      for (UpdateKind k : UpdateKind.values()) {
        if (k.id().equals(id)) {
          kind = k;
        }
      }
      if (kind == null) {
        throw fail(item.where(), "bad kind '" + shorten(id)
            + "' (expected create, update, force or delete)");
      }
      if (!kinds.add(kind)) {
        throw fail(item.where(), "duplicate kind '" + id + "'");
      }
    }
    return kinds;
  }

  static String reason(Node n) throws RulesException {
    String text = string(n, "reason");
    String r = text.strip();
    if (r.indexOf('\n') >= 0 || r.indexOf('\r') >= 0) {
      throw fail(n.where(), "multi-line reason (a reason is shown on one line of git's output)");
    }
    for (int i = 0; i < r.length(); i++) {
      char c = r.charAt(i);
      if (c < 0x20 || c == 0x7f) {
        throw fail(n.where(), String.format("reason has a control character %#04x", (int) c));
      }
    }
    if (r.length() > MAX_REASON) {
      throw fail(n.where(), "reason is longer than " + MAX_REASON + " characters");
    }
    return r;
  }

  private static List<String> globs(Node n) throws RulesException {
    if (!(n instanceof ListNode list)) {
      throw fail(n.where(), "wrong type: 'denyWriteGlobs' must be a list of strings, not "
          + describe(n));
    }
    List<String> globs = new ArrayList<>();
    List<ContentGlob> parsed = new ArrayList<>();
    for (Node item : list.items()) {
      String g = string(item, "a glob");
      if (g.isEmpty()) {
        throw fail(item.where(), "empty glob");
      }
      for (int i = 0; i < g.length(); i++) {
        if (g.charAt(i) < 0x20 || g.charAt(i) == 0x7f) {
          throw fail(item.where(), String.format("glob has a control character %#04x",
              (int) g.charAt(i)));
        }
      }
      // One glob language: the sandbox's name-deny layer matches these as content rules match
      // their files (SecretFiles names both lists' default).
      try {
        parsed.add(ContentGlob.name(g));
      } catch (IllegalArgumentException e) {
        throw fail(item.where(), "bad glob: " + e.getMessage());
      }
      globs.add(g);
    }
    try {
      ContentGlob.checkList(parsed);
    } catch (IllegalArgumentException e) {
      throw fail(n.where(), "bad 'denyWriteGlobs': " + e.getMessage());
    }
    return globs;
  }

  static String string(Node n, String what) throws RulesException {
    if (n instanceof ScalarNode s && s.kind() == ScalarKind.STRING) {
      return s.text();
    }
    throw fail(n.where(), "wrong type: " + quoteIfKey(what) + " must be a string, not "
        + describe(n));
  }

  private static String quoteIfKey(String what) {
    return what.startsWith("a ") ? what : "'" + what + "'";
  }

  static String describe(Node n) {
    if (n instanceof MapNode) {
      return "a mapping";
    }
    if (n instanceof ListNode) {
      return "a list";
    }
    ScalarNode s = (ScalarNode) n;
    return switch (s.kind()) {
      case STRING -> "the string '" + shorten(s.text()) + "'";
      case NUMBER -> "the number " + shorten(s.text());
      case BOOLEAN -> "the boolean " + s.text();
      case NULL -> "null";
    };
  }

  /** Keeps quoted document text short and on one line inside an error message. */
  static String shorten(String s) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < s.length() && b.length() < 60; i++) {
      char c = s.charAt(i);
      b.append(c < 0x20 || c == 0x7f ? ' ' : c);
    }
    return s.length() > 60 ? b + "…" : b.toString();
  }

  static RulesException fail(Where w, String problem) {
    return new RulesException(w.line(), w.column(), w.path(), problem);
  }
}
