package dev.pushgate.gateway.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pushgate.gateway.ProposedContent;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Optional;

/**
 * The API's write doors read as what they would put on GitHub ({@link ProposedContent}): the
 * files, blobs and texts of a contents write, a git-data object or a {@code createCommitOnBranch}.
 * Readers only: the push path's content judge decides. Each gives empty when the body does not
 * say plainly what it writes (a field of the wrong type, content that is not base64), and the
 * write is then refused unread.
 */
final class ContentReaders {
  static final String COMMIT_MESSAGE = "the commit message";
  static final String FIELD_NAMES = "a field's name";
  /** Shorter than any token the provider-specific detectors know (AWS key ids are 20). */
  private static final int MAX_SHOWN_KEY = 12;

  private ContentReaders() {}

  /**
   * {@code PUT /repos/{o}/{r}/contents/{path}} (content: base64) or {@code DELETE} (no content):
   * the file at {@code path}, the commit's message, and the text of every other field.
   */
  static Optional<ProposedContent> contents(boolean put, String path, JsonNode body) {
    // The question shows every field but the content (WhatItSays.ofContentsWrite).
    ProposedContent out = otherFields(body, "content", "message");
    if (put) {
      Optional<byte[]> bytes = base64(body.get("content"));
      if (bytes.isEmpty()) {
        return Optional.empty();
      }
      out.file(path, bytes.get());
    }
    return text(out, COMMIT_MESSAGE, body.get("message"), true);
  }

  /**
   * Every text value of a pull request, review or tracker write (title, body, each comment's
   * body, a label's name), each called by its place in the body ({@code the body}, {@code the
   * comments[0].body}): whatever the call puts on GitHub is read, not a list of known fields.
   */
  static ProposedContent visibleText(JsonNode body) {
    ProposedContent out = new ProposedContent();
    addTexts(out, "", body);
    return out;
  }

  private static void addTexts(ProposedContent out, String at, JsonNode v) {
    if (v.isTextual()) {
      out.text("the " + (at.isEmpty() ? "text" : at), v.asText());
    } else if (v.isArray()) {
      for (int i = 0; i < v.size(); i++) {
        addTexts(out, at + "[" + i + "]", v.get(i));
      }
    } else if (v.isObject()) {
      v.fields().forEachRemaining(e -> {
        // A field's name is shown to the approver as its value is: judged too, never quoted.
        out.text(FIELD_NAMES, e.getKey());
        addTexts(out, at.isEmpty() ? shownKey(e.getKey()) : at + "." + shownKey(e.getKey()),
            e.getValue());
      });
    }
  }

  /**
   * A JSON key as a finding names it: printable, and too short to be a whole token (it is the
   * caller's text, and may be the very secret the finding reports).
   */
  private static String shownKey(String key) {
    return RestRoutes.shown(key.length() > MAX_SHOWN_KEY
        ? key.substring(0, MAX_SHOWN_KEY) + "…" : key);
  }

  /** {@code POST git/blobs}: {@code content} in {@code encoding} utf-8 (the default) or base64. */
  static Optional<ProposedContent> blob(JsonNode body) {
    JsonNode content = body.get("content");
    JsonNode encoding = body.get("encoding");
    if (content == null || !content.isTextual()) {
      return Optional.empty();
    }
    String enc = encoding == null || encoding.isNull() ? "utf-8"
        : encoding.isTextual() ? encoding.asText() : "";
    Optional<byte[]> bytes = switch (enc) {
      case "utf-8" -> Optional.of(content.asText().getBytes(StandardCharsets.UTF_8));
      case "base64" -> base64(content);
      default -> Optional.empty();
    };
    return bytes.map(b -> new ProposedContent().blob(b));
  }

  /**
   * {@code POST git/trees}: each entry with inline {@code content} is a file with those bytes
   * (utf-8); one placed by {@code sha} is judged by its name (its bytes were judged when they were
   * uploaded, or are already in the repository); a {@code sha: null} entry removes a file.
   */
  static Optional<ProposedContent> tree(JsonNode body) {
    JsonNode entries = body.get("tree");
    if (entries == null || !entries.isArray()) {
      return Optional.empty();
    }
    ProposedContent out = new ProposedContent();
    for (JsonNode e : entries) {
      JsonNode path = e.get("path");
      JsonNode content = e.get("content");
      JsonNode sha = e.get("sha");
      JsonNode type = e.get("type");
      boolean hasContent = content != null && !content.isNull();
      boolean hasSha = sha != null && !sha.isNull();
      String kind = type == null || type.isNull() ? "blob" : type.isTextual() ? type.asText() : "";
      if (path == null || !path.isTextual() || hasContent && (hasSha || !content.isTextual())
          || hasSha && !sha.isTextual() || !kind.equals("blob") && !kind.equals("tree")
              && !kind.equals("commit")) {
        return Optional.empty();
      }
      if (hasContent) {
        if (!kind.equals("blob")) {
          return Optional.empty();
        }
        out.file(path.asText(), content.asText().getBytes(StandardCharsets.UTF_8));
      } else if (hasSha && !kind.equals("tree")) {
        out.name(path.asText());
      }
    }
    return Optional.of(out);
  }

  /** {@code POST git/commits}: its message and every other field's text. */
  static Optional<ProposedContent> commit(JsonNode body) {
    return text(otherFields(body, "message"), COMMIT_MESSAGE, body.get("message"), true);
  }

  /**
   * The text of every field of {@code body} but those read as something else ({@code
   * elsewhere}: the file's bytes, the message), each called by its place in the body: the
   * identities ({@code author}, {@code committer}, {@code tagger}) are visible on GitHub as the
   * message is, and whatever else the call carries may be shown to an approver, so no field is
   * left unjudged for being unexpected (an author given as a string, a field GitHub ignores).
   */
  private static ProposedContent otherFields(JsonNode body, String... elsewhere) {
    ObjectNode rest = body.deepCopy();
    rest.remove(List.of(elsewhere));
    return visibleText(rest);
  }

  /** {@code POST git/tags}: the tag's name and message, and every other field's text. */
  static Optional<ProposedContent> tag(JsonNode body) {
    return text(otherFields(body, "tag", "message"), "the tag name", body.get("tag"), true)
        .flatMap(p -> text(p, "the tag message", body.get("message"), true));
  }

  /**
   * GraphQL {@code createCommitOnBranch}'s input: {@code fileChanges.additions} (path, base64
   * {@code contents}) are files; deletions add nothing to judge; {@code message.headline} and
   * {@code .body} are the commit message.
   */
  static Optional<ProposedContent> commitOnBranch(JsonNode input) {
    ProposedContent out = new ProposedContent();
    JsonNode additions = input.path("fileChanges").path("additions");
    if (!additions.isMissingNode() && !additions.isNull()) {
      if (!additions.isArray()) {
        return Optional.empty();
      }
      for (JsonNode a : additions) {
        JsonNode path = a.path("path");
        Optional<byte[]> bytes = base64(a.get("contents"));
        if (!path.isTextual() || bytes.isEmpty()) {
          return Optional.empty();
        }
        out.file(path.asText(), bytes.get());
      }
    }
    JsonNode message = input.path("message");
    if (message.isMissingNode() || message.isNull()) {
      return Optional.of(out);
    }
    if (!message.isObject()) {
      return Optional.empty();
    }
    return text(out, COMMIT_MESSAGE, message.get("headline"), true)
        .flatMap(p -> text(p, COMMIT_MESSAGE, message.get("body"), true));
  }

  /**
   * Adds a text field: empty when it is not text (or absent, unless {@code optional}: what a call
   * leaves out puts nothing on GitHub, and GitHub refuses a call missing what it needs).
   */
  private static Optional<ProposedContent> text(ProposedContent to, String what, JsonNode v,
      boolean optional) {
    if (v == null || v.isNull()) {
      return optional ? Optional.of(to) : Optional.empty();
    }
    return v.isTextual() ? Optional.of(to.text(what, v.asText())) : Optional.empty();
  }

  /**
   * Base64 as GitHub takes file contents: the standard alphabet, line breaks and spaces between
   * groups ignored. Any other character makes it unreadable: the bytes judged must be the bytes
   * GitHub stores, and a lenient decoder skipping characters could read other bytes than the
   * strict one would.
   */
  static Optional<byte[]> base64(JsonNode v) {
    if (v == null || !v.isTextual()) {
      return Optional.empty();
    }
    String s = v.asText().replaceAll("[\\r\\n\\t ]", "");
    try {
      return Optional.of(Base64.getDecoder().decode(s));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }
}
