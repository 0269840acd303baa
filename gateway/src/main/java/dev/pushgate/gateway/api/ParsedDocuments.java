package dev.pushgate.gateway.api;

import graphql.language.Document;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * The GraphQL documents one run sent lately, parsed: gh and the SDKs send the same few queries
 * again and again, and parsing one (graphql-java's ANTLR lexer and parser) was most of judging
 * it (issue 33, docs/benchmarks.md). A document is looked up by its whole text, so the judge reads
 * exactly the tree a parse of that text gives; graphql-java's trees are immutable, and every rule
 * still runs on every call. One per run, never shared: no run can learn by timing what another
 * sent. Bounded: at most {@link #ENTRIES} documents of at most {@link #MAX_TEXT} characters each;
 * a longer one is parsed every time, and one that does not parse is never kept.
 */
final class ParsedDocuments {
  /**
   * A parsed tree takes many times its text's memory: at most 16 documents of 4 KiB (gh's
   * queries are under that) bound what one run holds, however many distinct ones it sends.
   */
  static final int ENTRIES = 16;
  static final int MAX_TEXT = 4 * 1024;

  private final Map<String, Document> recent = new LinkedHashMap<>(ENTRIES * 2, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Document> eldest) {
      return size() > ENTRIES;
    }
  };

  /** The document {@code text} parses to, by {@code parse} unless this run sent it lately. */
  Document of(String text, Function<String, Document> parse) {
    if (text.length() > MAX_TEXT) {
      return parse.apply(text);
    }
    synchronized (recent) {
      Document known = recent.get(text);
      if (known != null) {
        return known;
      }
    }
    // Parsed outside the lock: a run's other calls are not held behind a long parse.
    Document doc = parse.apply(text);
    synchronized (recent) {
      recent.put(text, doc);
    }
    return doc;
  }
}
