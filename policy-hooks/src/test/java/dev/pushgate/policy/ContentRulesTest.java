package dev.pushgate.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class ContentRulesTest {
  @Test
  void aDocumentWithoutContentGetsTheDefaultSet() throws RulesException {
    ContentRules rules = WorkspaceRules.parse("commit: allow").content();

    assertThat(rules).isEqualTo(ContentRules.DEFAULT);
    assertThat(rules.explicit()).isFalse();
    assertThat(rules.rules()).extracting(ContentRule::name)
        .containsExactly("no secret files", "no secrets");
    ContentRule files = rules.rules().get(0);
    assertThat(files.covers("config/.env")).isTrue();
    assertThat(files.covers("certs/server.PEM")).isTrue();
    assertThat(files.covers("home/.ssh/id_rsa")).isTrue();
    assertThat(files.covers("home/.ssh/id_rsa.pub")).isFalse();
    assertThat(files.covers("src/env.py")).isFalse();
    assertThat(rules.rules().get(1).runsDetector("github-pat")).isTrue();
  }

  /**
   * Issue 29: the sandbox refuses {@code mkdir .env} and a symlink to {@code .env}, so the push
   * refuses a file under such a directory and a symlink naming one, by the same list.
   */
  @Test
  void aSecretFileNameAsADirectoryOrALinkTargetIsCovered() {
    ContentRule files = ContentRules.DEFAULT.rules().get(0);
    assertThat(List.of(".env/config", "id_rsa/key", "deploy/.ENV/a/b", "certs.pem/readme"))
        .allMatch(files::covers);
    // The exceptions hold per segment.
    assertThat(List.of(".env.example/readme", "keys/id_rsa.pub/readme", "src/env/config"))
        .noneMatch(files::covers);

    assertThat(List.of(".env", "../config/.env", "/home/u/.ssh/id_rsa", ".env/"))
        .allMatch(files::coversLinkTarget);
    assertThat(List.of(".env.example", "README.md")).noneMatch(files::coversLinkTarget);
  }

  /** A refusing rule's {@code files} reach directories too; an allow is not widened by them. */
  @Test
  void onlyARuleThatRefusesOrAsksMatchesDirectoriesByItsFiles() {
    ContentRule pem = new ContentRule("no pem", java.util.List.of(),
        java.util.List.of(ContentGlob.name("*.pem")), OptionalLong.empty(), false,
        java.util.Set.of(), Decision.DENY, null);
    assertThat(pem.covers("certs.pem/readme")).isTrue();
    ContentRule docs = new ContentRule("docs", java.util.List.of(),
        java.util.List.of(ContentGlob.name("*.md")), OptionalLong.empty(), false,
        java.util.Set.of(), Decision.ALLOW, null);
    assertThat(docs.covers("notes.md/.env")).isFalse();
    assertThat(docs.covers("notes/a.md")).isTrue();
    assertThat(docs.coversLinkTarget("a.md")).isFalse();
  }

  @Test
  void anEmptyListTurnsContentRulesOff() throws RulesException {
    ContentRules rules = WorkspaceRules.parse("content: []").content();

    assertThat(rules.rules()).isEmpty();
    assertThat(rules.explicit()).isTrue();
  }

  @Test
  void readsEveryKeyAndWritesItBackUnchanged() throws Exception {
    WorkspaceRules rules = WorkspaceRules.parse("""
        content:
          - name: fixtures
            paths: ["tests/fixtures/**", "docs/*.md"]
            decision: allow
          - name: no big files
            files: ["*.csv"]
            maxSize: 10MiB
            decision: ask
            reason: big data goes to the bucket
          - name: keys
            binary: true
            secrets: [github-pat, aws-access-token]
            decision: deny
        """);

    ContentRule big = rules.content().rules().get(1);
    assertThat(big.maxSize()).isEqualTo(OptionalLong.of(10L << 20));
    assertThat(big.reason()).isEqualTo("big data goes to the bucket");
    assertThat(rules.content().rules().get(0).covers("tests/fixtures/a/b.txt")).isTrue();
    assertThat(rules.content().rules().get(0).covers("docs/x/y.md")).isFalse();
    assertThat(rules.content().rules().get(2).secrets())
        .containsExactlyInAnyOrder("github-pat", "aws-access-token");
    assertThat(WorkspaceRules.fromJson(new ObjectMapper().readTree(rules.toJson().toString())))
        .isEqualTo(rules);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "content: deny|line 1, column 10: wrong type: 'content' must be a list of content rules, not the string 'deny'",
      "content: [{decision: deny, files: ['.env']}]|line 1, column 11: a content rule is missing 'name'",
      "content: [{name: x, files: ['.env']}]|line 1, column 11: content rule 'x' is missing 'decision'",
      "content: [{name: x, decision: deny}]|line 1, column 11: content rule 'x' matches nothing (give paths, files, maxSize, binary or secrets)",
      "content: [{name: x, decision: deny, size: 1}]|line 1, column 37: unknown key 'size' in a content rule (expected name, paths, files, maxSize, binary, secrets, decision or reason)",
      "content: [{name: x, decision: deny, maxSize: 10 parsecs}]|line 1, column 46: bad size '10 parsecs' (expected a positive number of bytes, or with B, KiB, MiB, GiB, KB, MB or GB)",
      "content: [{name: x, decision: deny, maxSize: 0}]|line 1, column 46: bad size '0' (expected a positive number of bytes, or with B, KiB, MiB, GiB, KB, MB or GB)",
      "content: [{name: x, decision: deny, binary: false}]|line 1, column 45: 'binary: false' means nothing (leave 'binary' out)",
      "content: [{name: x, decision: deny, secrets: [no-such-detector]}]|line 1, column 47: unknown secret detector 'no-such-detector' (expected all or gitleaks rule ids such as github-pat, aws-access-token)",
      "content: [{name: x, decision: deny, secrets: some}]|line 1, column 46: wrong type: 'secrets' must be all or a list of detector ids, not the string 'some'",
      "content: [{name: x, decision: deny, files: ['a/b']}]|line 1, column 45: bad glob: a file-name glob has no '/' (use paths for that): a/b",
      "content: [{name: x, decision: deny, paths: ['/abs']}]|line 1, column 45: bad glob: a path glob has no leading or trailing '/' and no empty segment: /abs",
      "content: [{name: x, decision: deny, paths: ['src/**.py']}]|line 1, column 45: bad glob: '**' must be a whole path segment: src/**.py",
      "content: [{name: x, decision: deny, paths: ['[ab].txt']}]|line 1, column 45: bad glob: unsupported character '[' in glob [ab].txt (only *, ? and ** are special)",
      "content: [{name: x, decision: deny, paths: []}]|line 1, column 44: 'paths' is empty (leave it out to cover every file)",
      "content: [{name: x, decision: maybe, binary: true}]|line 1, column 31: bad decision 'maybe' (expected allow, ask or deny)",
      "content: [{name: x, decision: deny, binary: true}, {name: x, decision: ask, binary: true}]|line 1, column 52: duplicate content rule name 'x'",
  })
  void refusesMalformedContentRules(String doc, String error) {
    assertThatThrownBy(() -> WorkspaceRules.parse(doc))
        .isInstanceOf(RulesException.class).hasMessage(error);
  }

  @Test
  void errorsInInlineJsonNameTheJsonPath() throws Exception {
    var doc = new ObjectMapper().readTree(
        "{\"content\": [{\"name\": \"x\", \"decision\": \"deny\", \"maxSize\": \"big\"}]}");

    assertThatThrownBy(() -> WorkspaceRules.fromJson(doc))
        .hasMessageStartingWith("rules.content[0].maxSize: bad size 'big'");
  }

  /**
   * A name is the agent's to choose and may be long; a glob with several stars, matched by a
   * backtracking engine, cost the name's length to the power of the stars (java.util.regex did
   * not finish this in a minute). Globs are matched by RE2/J.
   */
  @Test
  void aGlobWithManyStarsMatchesALongNameInLinearTime() {
    ContentGlob glob = ContentGlob.name("*a*a*a*a*b");

    assertThat(glob.matches("a".repeat(5000))).isFalse();
    assertThat(glob.matches("a".repeat(5000) + "b")).isTrue();
    assertThat(ContentGlob.path("src/**/*a*a*a*b").matches("src/x/" + "a".repeat(5000)))
        .isFalse();
  }
}
