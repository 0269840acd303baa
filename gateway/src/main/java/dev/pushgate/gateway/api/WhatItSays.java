package dev.pushgate.gateway.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.types.UntrustedText;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * What a pull request, review or tracker write would put on GitHub, in one line for an approver:
 * every field the call gives, in its order, nested fields by their dotted names ({@code
 * comments[1].body}), each text's first lines. An approver's "allow" covers what this shows, so it
 * shows every field, not a chosen few: a fixed list once let a REST body carry an {@code input}
 * object that the question showed while GitHub, which ignores it, applied the top-level fields,
 * and left {@code state}, {@code milestone} or a second review comment unshown. A GraphQL
 * mutation's {@code input} is what it does, so its fields are shown by their own names; a long
 * text is cut and says so.
 */
final class WhatItSays {
  /** A body shows at most this many of its lines and characters. */
  static final int BODY_LINES = 3;
  static final int MAX_TEXT = 200;
  private static final Pattern PLAIN_NAME = Pattern.compile("[A-Za-z0-9_.-]{1,100}");

  private WhatItSays() {}

  /** A REST body: every field as given (an {@code input} object is just another field). */
  static String ofRestBody(JsonNode body) {
    List<String> parts = new ArrayList<>();
    fields("", body, parts);
    return String.join(", ", parts);
  }

  /**
   * A contents write: what it does to the file ({@code writes a.txt (12 bytes)}), then every
   * other field of the body as given (the commit {@code message}, {@code author}, {@code
   * committer}, {@code branch}, {@code sha}): the commit GitHub makes shows them as a pushed
   * commit shows its message and identities. The file's bytes are shown by their size only.
   */
  static String ofContentsWrite(String does, JsonNode body) {
    List<String> parts = new ArrayList<>(List.of(does));
    body.fields().forEachRemaining(e -> {
      if (!e.getKey().equals("content")) {
        value(key(e.getKey()), e.getValue(), parts);
      }
    });
    return String.join(", ", parts);
  }

  /** A GraphQL mutation's arguments: {@code input}'s fields by their names, then the others. */
  static String ofMutation(JsonNode args) {
    List<String> parts = new ArrayList<>();
    JsonNode input = args.path("input");
    if (input.isObject()) {
      fields("", input, parts);
    }
    args.fields().forEachRemaining(e -> {
      if (!(e.getKey().equals("input") && input.isObject())) {
        value(key(e.getKey()), e.getValue(), parts);
      }
    });
    return String.join(", ", parts);
  }

  private static void fields(String prefix, JsonNode object, List<String> parts) {
    object.fields().forEachRemaining(
        e -> value(prefix + key(e.getKey()), e.getValue(), parts));
  }

  /**
   * A field's name as shown: plain when it is a plain name, else quoted as a value is, so that
   * a name cannot pose as a value and other fields ({@code x", branch "main}).
   */
  private static String key(String name) {
    return PLAIN_NAME.matcher(name).matches() ? name : "\"" + escaped(name) + "\"";
  }

  /**
   * {@code \} and {@code "} escaped, then control characters ({@link UntrustedText#printable}):
   * a shown text cannot close its quotes early and pose as further fields ({@code tidy", branch
   * "ask/two}), nor a literal {@code \x0a} pass for an escaped newline.
   */
  private static String escaped(String text) {
    return UntrustedText.printable(text.replace("\\", "\\\\").replace("\"", "\\\""));
  }

  private static void value(String name, JsonNode v, List<String> parts) {
    if (v.isObject()) {
      fields(name + ".", v, parts);
    } else if (v.isArray() && containsObject(v)) {
      for (int i = 0; i < v.size(); i++) {
        value(name + "[" + i + "]", v.get(i), parts);
      }
    } else if (v.isTextual()) {
      parts.add(name + " " + quoted(v.asText()));
    } else if (v.isArray() && v.isEmpty()) {
      parts.add(name + " []");
    } else {
      parts.add(name + " " + (v.isArray() ? quoted(v.toString()) : v.toString()));
    }
  }

  private static boolean containsObject(JsonNode array) {
    for (JsonNode e : array) {
      if (e.isContainerNode()) {
        return true;
      }
    }
    return false;
  }

  /** The text's first lines, cut, as one printable line in quotes. */
  static String quoted(String text) {
    String[] lines = text.split("\r\n|\n|\r", -1);
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < Math.min(lines.length, BODY_LINES); i++) {
      b.append(i == 0 ? "" : " / ").append(lines[i]);
    }
    // escaped escapes quotes, backslashes and control characters, and cuts past MAX_TEXT with "…".
    String shown = b.length() == 0 ? "" : escaped(b.toString());
    boolean cut = lines.length > BODY_LINES || b.length() > MAX_TEXT;
    return "\"" + shown + "\"" + (cut ? " (cut; " + text.length() + " characters in all)" : "");
  }
}
