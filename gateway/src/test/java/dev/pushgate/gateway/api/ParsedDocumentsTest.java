package dev.pushgate.gateway.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import graphql.language.Document;
import graphql.parser.Parser;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** A run's recent GraphQL documents: parsed once, looked up by their whole text, bounded. */
class ParsedDocumentsTest {
  private final List<String> parses = new ArrayList<>();
  private final Function<String, Document> parse = text -> {
    parses.add(text);
    return Parser.parse(text);
  };
  private final ParsedDocuments documents = new ParsedDocuments();

  @Test
  void aDocumentSentAgainIsNotParsedAgain() {
    Document first = documents.of("{ viewer { login } }", parse);
    Document again = documents.of("{ viewer { login } }", parse);

    assertThat(again).isSameAs(first);
    assertThat(parses).containsExactly("{ viewer { login } }");
  }

  @Test
  void aDocumentDifferingByOneCharacterIsParsedOnItsOwn() {
    Document a = documents.of("{ viewer { login } }", parse);
    Document b = documents.of("{ viewer { login }}", parse);

    assertThat(b).isNotSameAs(a);
    assertThat(parses).hasSize(2);
  }

  @Test
  void aDocumentThatDoesNotParseIsNeverKept() {
    for (int i = 0; i < 2; i++) {
      assertThatThrownBy(() -> documents.of("mutation {", parse))
          .isInstanceOf(RuntimeException.class);
    }
    assertThat(parses).hasSize(2);
  }

  @Test
  void aLongDocumentIsParsedEveryTime() {
    String longOne = "{ viewer { login } }" + " ".repeat(ParsedDocuments.MAX_TEXT);
    documents.of(longOne, parse);
    documents.of(longOne, parse);

    assertThat(parses).hasSize(2);
  }

  @Test
  void itKeepsTheMostRecentlyUsedDocumentsOnly() {
    String kept = "{ viewer { login } }";
    documents.of(kept, parse);
    for (int i = 0; i < ParsedDocuments.ENTRIES; i++) {
      documents.of("{ a" + i + " }", parse);
      documents.of(kept, parse); // used again: stays
    }
    documents.of("{ a0 }", parse); // pushed out by the later ones

    assertThat(parses).filteredOn(kept::equals).hasSize(1);
    assertThat(parses).filteredOn("{ a0 }"::equals).hasSize(2);
  }
}
