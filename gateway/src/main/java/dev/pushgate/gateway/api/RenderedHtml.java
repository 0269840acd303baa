package dev.pushgate.gateway.api;

import graphql.language.Definition;
import graphql.language.Document;
import graphql.language.Field;
import graphql.language.FragmentDefinition;
import graphql.language.InlineFragment;
import graphql.language.OperationDefinition;
import graphql.language.Selection;
import graphql.language.SelectionSet;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * GitHub's rendered HTML is refused, through either door: REST's {@code body_html} (media types
 * {@code html} and {@code full}) and GraphQL's {@code bodyHTML} and every other {@code …HTML}
 * field. GitHub renders an image attached in a private repository there as a link signed for
 * minutes ({@code https://private-user-images.githubusercontent.com/…?jwt=…}) that downloads from
 * anywhere without the sentinel: a credential leaving the boundary. Those answers are passed
 * unread, and the Markdown they are rendered from says the same without the signature, so the
 * call is refused before it is sent rather than its answer rewritten. Fail closed: a media type
 * that names {@code html} or {@code full} anywhere among its parts, and a field whose name ends
 * in {@code html} in any case, anywhere in the document (aliases, fragments, nested selections).
 */
final class RenderedHtml {
  private static final String WHY = "pushgate does not pass GitHub's rendered HTML: it carries"
      + " signed links to private attachments that work from anywhere; ask for the Markdown";

  private RenderedHtml() {}

  /**
   * Why a REST call is refused, when its {@code accept} (its {@code Accept} headers' values,
   * comma-joined) names rendered HTML anywhere: {@code application/vnd.github[.v3].html} or
   * {@code .full}, with or without {@code +json}, in any case, or {@code text/html}. Looked for
   * anywhere in the text, not only where a well-formed list item starts: a value quoted, after a
   * stray word or without its comma is what GitHub's own reading might still take (a review's
   * finding).
   */
  static Optional<String> askedFor(String accept) {
    String text = accept.toLowerCase(Locale.ROOT);
    if (!text.contains("html") && !text.contains("full")) {
      return Optional.empty(); // nothing below can match: every call asks, few name either
    }
    Matcher m = MEDIA_TYPE.matcher(text);
    while (m.find()) {
      String type = m.group();
      if (type.equals("text/html") || type.startsWith("application/vnd.github")
          && namesHtml(type.substring("application/".length()))) {
        return Optional.of(WHY + " (the default media type, application/vnd.github+json, or"
            + " application/vnd.github.raw+json), not " + RestRoutes.shown(type));
      }
    }
    return Optional.empty();
  }

  /** A media type's name wherever it stands: its letters, digits and {@code . + - _}. */
  private static final Pattern MEDIA_TYPE =
      Pattern.compile("(?<![a-z0-9.+_-])[a-z0-9.+_-]+/[a-z0-9.+_-]+");

  /**
   * Whether a {@code vnd.github…} subtype names a rendered representation among its parts, split
   * at every {@code .} and {@code +}: by hand, as every REST call asks this of its media types
   * and {@code split("[.+]")} compiled its pattern each time.
   */
  static boolean namesHtml(String subtype) {
    int start = 0;
    while (start <= subtype.length()) {
      int end = start;
      while (end < subtype.length() && subtype.charAt(end) != '.' && subtype.charAt(end) != '+') {
        end++;
      }
      String p = subtype.substring(start, end).trim();
      if (p.equals("html") || p.equals("full")) {
        return true;
      }
      start = end + 1;
    }
    return false;
  }

  /**
   * Why a GraphQL call is refused, when {@code doc} selects a field GitHub renders as HTML
   * anywhere: in any operation or fragment, at any depth, whatever its alias.
   */
  static Optional<String> selectedIn(Document doc) {
    for (Definition<?> d : doc.getDefinitions()) {
      SelectionSet set = d instanceof OperationDefinition op ? op.getSelectionSet()
          : d instanceof FragmentDefinition f ? f.getSelectionSet() : null;
      Optional<String> field = htmlField(set);
      if (field.isPresent()) {
        return Optional.of(WHY + " (the field without HTML: body, description), not the"
            + " GraphQL field " + RestRoutes.shown(field.get()));
      }
    }
    return Optional.empty();
  }

  /** The first field of {@code set} whose name ends in {@code html}, looked for at every depth. */
  private static Optional<String> htmlField(SelectionSet set) {
    if (set == null) {
      return Optional.empty();
    }
    for (Selection<?> s : set.getSelections()) {
      // A spread's fragment is a definition of the document: selectedIn reads it there.
      SelectionSet below = null;
      if (s instanceof Field f) {
        if (f.getName().toLowerCase(Locale.ROOT).endsWith("html")) {
          return Optional.of(f.getName());
        }
        below = f.getSelectionSet();
      } else if (s instanceof InlineFragment i) {
        below = i.getSelectionSet();
      }
      Optional<String> found = htmlField(below);
      if (found.isPresent()) {
        return found;
      }
    }
    return Optional.empty();
  }
}
