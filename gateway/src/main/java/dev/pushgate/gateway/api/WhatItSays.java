package dev.pushgate.gateway.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.types.UntrustedText;
import java.util.ArrayList;
import java.util.List;

/**
 * What a pull request, review or tracker write would put on GitHub, in one line for an approver:
 * its title, base and head, event, label names and the first lines of its body, read from a REST
 * body or a GraphQL mutation's arguments ({@code input} looked into). An approver's "allow"
 * covers what this shows, so it leaves out nothing it names only partly: a long body is cut and
 * says so.
 */
final class WhatItSays {
  /** A body shows at most this many of its lines and characters. */
  static final int BODY_LINES = 3;
  static final int MAX_TEXT = 200;

  private static final String[][] FIELDS = {{"title", "title"}, {"base", "base"},
      {"baseRefName", "base"}, {"head", "head"}, {"headRefName", "head"}, {"event", "event"},
      {"name", "name"}, {"path", "path"}, {"body", "body"}};

  private WhatItSays() {}

  static String of(JsonNode call) {
    JsonNode n = call.path("input").isObject() ? call.get("input") : call;
    List<String> parts = new ArrayList<>();
    for (String[] f : FIELDS) {
      JsonNode v = n.get(f[0]);
      if (v != null && v.isTextual()) {
        parts.add(f[1] + " " + quoted(v.asText()));
      }
    }
    for (String list : List.of("labels", "labelIds", "assignees")) {
      JsonNode v = n.get(list);
      if (v != null && v.isArray() && !v.isEmpty()) {
        parts.add(list + " " + quoted(v.toString()));
      }
    }
    JsonNode comments = n.get("comments");
    if (comments != null && comments.isArray() && !comments.isEmpty()) {
      parts.add(comments.size() + " review comment" + (comments.size() == 1 ? "" : "s")
          + ", the first " + quoted(comments.get(0).path("body").asText("")));
    }
    return String.join(", ", parts);
  }

  /** The text's first lines, cut, as one printable line in quotes. */
  static String quoted(String text) {
    String[] lines = text.split("\r\n|\n|\r", -1);
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < Math.min(lines.length, BODY_LINES); i++) {
      b.append(i == 0 ? "" : " / ").append(lines[i]);
    }
    // printable escapes control characters and cuts past MAX_TEXT with "…".
    String shown = b.length() == 0 ? "" : UntrustedText.printable(b.toString());
    boolean cut = lines.length > BODY_LINES || b.length() > MAX_TEXT;
    return "\"" + shown + "\"" + (cut ? " (cut; " + text.length() + " characters in all)" : "");
  }
}
