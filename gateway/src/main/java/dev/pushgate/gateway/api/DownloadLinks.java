package dev.pushgate.gateway.api;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import dev.pushgate.types.BoundedBody;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * GitHub's download links carry a credential of their own: a private repository's
 * tarball or zipball redirect ({@code Location: https://codeload.github.com/…?token=…}, good for
 * five minutes), a contents answer's {@code download_url} ({@code
 * https://raw.githubusercontent.com/…?token=…}), the signed redirects of artifacts, logs and
 * release assets. Whoever holds such a link downloads with it, from anywhere, without the
 * sentinel: a credential leaving the boundary. The boundary strips them from what the run reads,
 * so the run's only GitHub credential stays its sentinel; the same bytes are read through the
 * boundary (the contents API with {@code Accept: application/vnd.github.raw}) or the gateway
 * ({@code git clone}, {@code git archive} of a clone).
 */
final class DownloadLinks {
  /** Parameter names that carry a credential when spelt whole, decoded and lowercased. */
  private static final Set<String> CREDENTIAL_NAMES = Set.of("sig", "key", "auth", "pass",
      "pw", "pwd", "passwd", "code", "jwt");
  /** Parts of a parameter name (decoded, lowercased) that make it a credential's. */
  private static final List<String> CREDENTIAL_PARTS = List.of("token", "signature", "secret",
      "password", "credential", "session", "apikey", "api_key", "api-key");
  /** A {@code %} that starts no escape: kept as itself, as a lenient client reads it. */
  private static final Pattern NO_ESCAPE = Pattern.compile("%(?![0-9A-Fa-f]{2})");
  private static final JsonFactory JSON = new JsonFactory();
  /** GitHub's media types that answer with content, not JSON: {@code vnd.github[.v3].raw[+json]}. */
  private static final Pattern CONTENT_MEDIA_TYPE = Pattern.compile(
      "application/vnd\\.github(\\.v[0-9]+)?\\.(raw|html|diff|patch|sha|base64)(\\+json)?");

  private DownloadLinks() {}

  /**
   * A redirect's {@code Location} as the run may see it: a link that does not lead back to
   * {@code backTo} (the call's host and port, the upstream's), as any client may read it ({@link
   * LinkReading#staysOn}: {@code https:/host/…}, {@code https:\\host}, {@code
   * https://host\@other}, a host it cannot decide), loses its whole query (where the signature or
   * token is); any link loses its userinfo and every parameter a credential rides in ({@link
   * #withoutCredentials}). A scheme-relative link stays scheme-relative; a link with nothing to
   * lose is kept as it came.
   */
  static String location(String value, Set<LinkReading.Origin> backTo) {
    String link = LinkReading.cleaned(value);
    String stripped = withoutCredentials(
        LinkReading.staysOn(link, backTo) ? link : withoutQuery(link));
    return stripped.equals(link) ? value : stripped;
  }

  /** {@code link} without its query, its fragment kept. */
  private static String withoutQuery(String link) {
    int fragment = link.indexOf('#');
    int query = link.indexOf('?');
    if (query < 0 || fragment >= 0 && fragment < query) {
      return link;
    }
    return link.substring(0, query) + (fragment < 0 ? "" : link.substring(fragment));
  }

  /**
   * The body of an answer as the run may read it: an answer of a route that carries download
   * links ({@link #carriesLinks}) is read as JSON, whatever its label, with every link in it (a string value
   * with an authority, read as a JSON client reads it) {@link #withoutCredentials}, unless it is
   * a file's own bytes ({@link #isContent}); any other answer as it came. A body that is read and
   * is not JSON fails while read ({@link NotJson}), as does one whose values the call's {@code
   * budget} will not hold ({@link CountedAnswer.Unread}).
   */
  static InputStream body(String path, String accept, String contentType, InputStream in,
      BoundedBody.Budget budget) throws IOException {
    return rewrites(path, accept, contentType)
        ? new CleanJson(new CountedAnswer(in, budget)) : in;
  }

  /** Whether {@link #body} rewrites such an answer: its length is then not upstream's. */
  static boolean rewrites(String path, String accept, String contentType) {
    return carriesLinks(path) && !isContent(accept, contentType);
  }

  /**
   * Whether an answer is a file's (or a diff's) own bytes, not GitHub's JSON: the call asked
   * only for such a representation ({@code Accept: application/vnd.github.raw}, {@code .raw+json},
   * {@code .v3.raw}, {@code .html}, {@code .html+json}, {@code .diff}, {@code .patch}, {@code
   * .sha}, {@code .base64}: GitHub's media types that answer with content), and GitHub did not
   * answer plain {@code application/json}, as it does for a directory or a submodule whatever
   * was asked (GitHub's docs: raw is "for files and symlinks"); that JSON is read like any other.
   */
  static boolean isContent(String accept, String contentType) {
    if (accept == null || accept.isBlank()) {
      return false;
    }
    for (String range : accept.split(",")) {
      if (!CONTENT_MEDIA_TYPE.matcher(mediaType(range)).matches()) {
        return false;
      }
    }
    return contentType == null || !mediaType(contentType).equals("application/json");
  }

  /** A media type or range without its parameters, trimmed, in lower case. */
  private static String mediaType(String value) {
    int params = value.indexOf(';');
    return (params < 0 ? value : value.substring(0, params)).trim().toLowerCase(Locale.ROOT);
  }

  /**
   * The routes of a repository whose GET answers GitHub's description ({@code @octokit/openapi})
   * gives a {@code download_url}, each as the segments it starts with (after {@code
   * /repos/{owner}/{repo}} or {@code /repositories/{id}}). {@code DownloadLinksDescriptionTest}
   * walks the description and fails when it names a route this list does not.
   */
  private static final List<List<String>> LINK_ROUTES = List.of(
      List.of("contents"), // a file, a directory's entries, a symlink, a submodule
      List.of("readme"), // also readme/{dir}
      List.of("license"),
      List.of("actions", "runners", "downloads"));

  /**
   * Whether answers of {@code path} may carry download links in their body: a repository's route
   * that GitHub's description gives a {@code download_url} ({@link #LINK_ROUTES}), at {@code
   * /repos/{owner}/{repo}/…} or {@code /repositories/{id}/…}, also under GHES's {@code /api/v3};
   * or a path the judge would refuse, so that nothing is left unread. Not every repository route:
   * an issue's or a comment's text is the run's to read as written, and each read answer costs a
   * parse and loses upstream's compression and length. Such a call is sent upstream without the
   * client's {@code Accept-Encoding}: a compressed answer could not be read for its links.
   */
  static boolean carriesLinks(String path) {
    // Read as the judge reads it (segments decoded once: %72epos is repos, %63ontents contents),
    // in any case.
    Optional<List<String>> segments = ApiPath.segments(path);
    if (segments.isEmpty()) {
      return true;
    }
    List<String> s = segments.get();
    int at = s.size() > 2 && s.get(0).equalsIgnoreCase("api") && s.get(1).equalsIgnoreCase("v3")
        ? 2 : 0;
    if (s.size() <= at) {
      return false;
    }
    int route = s.get(at).equalsIgnoreCase("repos") ? at + 3
        : s.get(at).equalsIgnoreCase("repositories") ? at + 2 : s.size();
    List<String> rest = s.subList(Math.min(route, s.size()), s.size());
    for (List<String> r : LINK_ROUTES) { // a loop: every answer asks, a stream cost 5 µs a call
      if (startsWith(rest, r)) {
        return true;
      }
    }
    return false;
  }

  /** Whether {@code segments} begin with {@code prefix}, in any case. */
  private static boolean startsWith(List<String> segments, List<String> prefix) {
    if (segments.size() < prefix.size()) {
      return false;
    }
    for (int i = 0; i < prefix.size(); i++) {
      if (!segments.get(i).equalsIgnoreCase(prefix.get(i))) {
        return false;
      }
    }
    return true;
  }

  /**
   * {@code link} as a client would use it ({@link LinkReading#cleaned}), less what could be a
   * credential: the userinfo of its
   * authority ({@code user:pw@}), and every parameter, of its path ({@code ;token=}), its query
   * ({@code ?}, {@code &} or {@code ;}) or its fragment, whose name, percent-decoded and in any
   * case, is a credential's ({@code token}, {@code access_token}, {@code sig}, …).
   */
  static String withoutCredentials(String link) {
    link = LinkReading.cleaned(link); // a tab inside "to\tken" is dropped as the parser drops it
    int[] authority = LinkReading.authority(link);
    String head = "";
    String rest = link;
    if (authority != null) {
      String named = link.substring(authority[0], authority[1]);
      head = link.substring(0, authority[0]) + named.substring(named.lastIndexOf('@') + 1);
      rest = link.substring(authority[1]);
    }
    int fragmentAt = rest.indexOf('#');
    String fragment = fragmentAt < 0 ? null : rest.substring(fragmentAt + 1);
    String beforeFragment = fragmentAt < 0 ? rest : rest.substring(0, fragmentAt);
    int queryAt = beforeFragment.indexOf('?');
    String query = queryAt < 0 ? null : beforeFragment.substring(queryAt + 1);
    String path = queryAt < 0 ? beforeFragment : beforeFragment.substring(0, queryAt);
    StringBuilder out = new StringBuilder(head);
    String[] segments = path.split("/", -1);
    for (int i = 0; i < segments.length; i++) {
      out.append(i == 0 ? "" : "/").append(parameters(segments[i], true));
    }
    if (query != null) {
      String q = parameters(query, false);
      out.append(q.isEmpty() ? "" : "?" + q);
    }
    if (fragment != null) {
      String f = parameters(fragment, false);
      out.append(f.isEmpty() ? "" : "#" + f);
    }
    return out.toString();
  }

  /**
   * {@code text} (a query, a fragment, or with {@code keepFirst} a path segment and its {@code
   * ;} parameters) without the parameters that carry a credential; separators {@code &} and
   * {@code ;} as they were.
   */
  private static String parameters(String text, boolean keepFirst) {
    StringBuilder kept = new StringBuilder();
    int start = 0;
    for (int i = 0; start <= text.length(); i++) {
      int end = start;
      while (end < text.length() && text.charAt(end) != '&' && text.charAt(end) != ';') {
        end++;
      }
      String part = text.substring(start, end);
      if (i == 0 && keepFirst || !isCredential(part)) {
        if (kept.length() > 0 || keepFirst && i > 0) {
          kept.append(text.charAt(start - 1)); // the separator it came with
        }
        kept.append(part);
      }
      start = end + 1;
    }
    return kept.toString();
  }

  /** Whether parameter {@code nameAndValue} ({@code name=value}) carries a credential. */
  private static boolean isCredential(String nameAndValue) {
    int eq = nameAndValue.indexOf('=');
    String name = percentDecoded(eq < 0 ? nameAndValue : nameAndValue.substring(0, eq))
        .trim().toLowerCase(Locale.ROOT);
    if (name.isEmpty() || name.indexOf('/') >= 0) {
      return false;
    }
    return CREDENTIAL_NAMES.contains(name)
        || CREDENTIAL_PARTS.stream().anyMatch(name::contains)
        || name.startsWith("x-amz-") || name.startsWith("x-goog-");
  }

  /** {@code s} decoded as a form is: {@code +} a space, a {@code %} that starts no escape kept. */
  private static String percentDecoded(String s) {
    return URLDecoder.decode(NO_ESCAPE.matcher(s).replaceAll("%25"), StandardCharsets.UTF_8);
  }

  /**
   * An answer of a route that carries download links whose body is not JSON: its links cannot be
   * read, so no more of it is passed on. The message is for the run, and quotes nothing of the body.
   */
  static final class NotJson extends IOException {
    private static final long serialVersionUID = 1L;

    NotJson() {
      super("GitHub's answer is not JSON; pushgate reads this route's answer for its"
          + " download links and passes on none it cannot read (a file's bytes: ask for"
          + " Accept: application/vnd.github.raw)");
    }
  }

  /**
   * A JSON answer as a JSON client reads it, written again with every link's credentials gone:
   * the escapes GitHub (or anyone) may use in a string ({@code \u0074oken}) are read, not
   * matched. It is read token by token, so a long answer is never held whole, and what a token
   * holds is counted ({@link CountedAnswer}).
   */
  private static final class CleanJson extends InputStream {
    private final CountedAnswer in;
    private final JsonParser parser;
    private final java.io.ByteArrayOutputStream written = new java.io.ByteArrayOutputStream();
    private final JsonGenerator out;
    private byte[] pending = new byte[0];
    private int at;
    private boolean ended;

    CleanJson(CountedAnswer in) throws IOException {
      this.in = in;
      this.parser = JSON.createParser(in);
      this.out = JSON.createGenerator(written);
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] buf, int off, int len) throws IOException {
      if (len == 0) {
        return 0;
      }
      while (at == pending.length) {
        if (ended) {
          return -1;
        }
        next();
      }
      int n = Math.min(len, pending.length - at);
      System.arraycopy(pending, at, buf, off, n);
      at += n;
      return n;
    }

    private void next() throws IOException {
      // The last token's bytes are the run's now; what the parser read past it is still held.
      in.passedOn(parser.currentLocation().getByteOffset());
      JsonToken t;
      try {
        t = parser.nextToken();
      } catch (JsonProcessingException e) {
        throw new NotJson(); // Jackson's message quotes the body, which may hold a token
      }
      if (t == null) {
        ended = true;
        out.close();
      } else if (t == JsonToken.VALUE_STRING) {
        String v = parser.getText();
        String link = LinkReading.cleaned(v);
        String stripped = LinkReading.authority(link) == null ? link : withoutCredentials(link);
        out.writeString(stripped.equals(link) ? v : stripped);
      } else {
        out.copyCurrentEvent(parser);
      }
      out.flush();
      pending = written.toByteArray();
      written.reset();
      at = 0;
    }

    @Override
    public void close() throws IOException {
      parser.close();
    }
  }
}
