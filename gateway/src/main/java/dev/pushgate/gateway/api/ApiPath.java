package dev.pushgate.gateway.api;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A request path read strictly, as segments decoded once. What two servers could read two ways is
 * refused rather than guessed at: an empty segment ({@code //}, a trailing slash), {@code .} or
 * {@code ..}, a {@code ;} path parameter, an encoded {@code /} or {@code \}, a {@code %} left after
 * decoding (double encoding), a malformed escape, a control character or anything not ASCII on
 * the wire, and an escape that is not UTF-8.
 */
final class ApiPath {
  /** Longer paths are refused unread: no GitHub route comes near this. */
  static final int MAX_LENGTH = 8192;

  private ApiPath() {}

  /** The decoded segments of {@code raw} ({@code "/"} gives none), or empty when it is refused. */
  static Optional<List<String>> segments(String raw) {
    if (raw == null || raw.isEmpty() || raw.charAt(0) != '/' || raw.length() > MAX_LENGTH) {
      return Optional.empty();
    }
    if (raw.equals("/")) {
      return Optional.of(List.of());
    }
    List<String> out = new ArrayList<>();
    for (String part : raw.substring(1).split("/", -1)) {
      String s = decoded(part);
      if (s == null || s.isEmpty() || s.equals(".") || s.equals("..")) {
        return Optional.empty();
      }
      out.add(s);
    }
    return Optional.of(List.copyOf(out));
  }

  private static String decoded(String part) {
    if (isPlain(part)) {
      return part;
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    for (int i = 0; i < part.length(); i++) {
      char c = part.charAt(i);
      if (c <= 0x20 || c >= 0x7f || c == ';' || c == '\\') {
        return null;
      }
      if (c != '%') {
        bytes.write(c);
        continue;
      }
      if (i + 2 >= part.length()) {
        return null;
      }
      int hi = Character.digit(part.charAt(i + 1), 16);
      int lo = Character.digit(part.charAt(i + 2), 16);
      if (hi < 0 || lo < 0) {
        return null;
      }
      bytes.write(hi * 16 + lo);
      i += 2;
    }
    String s;
    try {
      s = StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes.toByteArray())).toString();
    } catch (CharacterCodingException e) {
      return null;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x20 || c == 0x7f || c == '/' || c == '\\' || c == '%' || c == ';') {
        return null;
      }
    }
    return s;
  }

  /**
   * Whether {@code part} is printable ASCII with no escape, {@code ;} or {@code \}: then it is
   * its own decoding, every check below passed, and nothing is allocated. Nearly every segment
   * is, and the path is read this way several times a call (the judge, download links).
   */
  private static boolean isPlain(String part) {
    for (int i = 0; i < part.length(); i++) {
      char c = part.charAt(i);
      if (c <= 0x20 || c >= 0x7f || c == '%' || c == ';' || c == '\\') {
        return false;
      }
    }
    return true;
  }
}
