package dev.pushgate.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class SecretFilesTest {
  private static final ContentRule NO_SECRET_FILES = ContentRules.DEFAULT.rules().get(0);

  /** A name the glob matches: each wildcard filled in. */
  static String exampleOf(String glob) {
    return glob.replace("!", "").replace("*", "x").replace("?", "x");
  }

  @Test
  void theSandboxDefaultAndTheContentRuleAreTheOneList() {
    assertThat(WorkspaceRules.DEFAULT.denyWriteGlobs()).isSameAs(SecretFiles.GLOBS);
    assertThat(NO_SECRET_FILES.name()).isEqualTo("no secret files");
    assertThat(NO_SECRET_FILES.files()).isEqualTo(SecretFiles.NAME_GLOBS);
    assertThat(NO_SECRET_FILES.paths()).isEmpty();
    assertThat(NO_SECRET_FILES.readsContent()).isFalse();
  }

  @Test
  void everyEntryIsRefusedByTheContentRuleAndEveryExceptionLetThrough() {
    for (String g : SecretFiles.GLOBS) {
      String name = exampleOf(g);
      boolean exception = g.startsWith("!");
      assertThat(NO_SECRET_FILES.covers("deploy/" + name)).as(g).isEqualTo(!exception);
      assertThat(SecretFiles.matches(name)).as(g).isEqualTo(!exception);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {".env", ".env.production", ".ENV.production", ".env.local",
      ".env.example.local", ".env.local.example", ".env.examples", ".env.example ",
      ".env.example\u200c", "id_rsa", "ID_RSA", "id_rsa.bak", "id_rsa.pub.bak", "id_ed25519",
      "id_ed25519_sk", "id_ecdsa", "id_dsa", "server.p12", "SERVER.PFX", "release.jks",
      "debug.keystore", "putty.ppk", "tls.key", "tls.pem", ".netrc", "_netrc",
      ".git-credentials", ".pgpass", ".pypirc", ".dockercfg", ".htpasswd", "credentials.json"})
  void secretFileNamesAreSecretFiles(String name) {
    assertThat(SecretFiles.matches(name)).isTrue();
    assertThat(NO_SECRET_FILES.covers("a/" + name)).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {".env.example", ".ENV.Example", ".env.sample", ".env.template",
      ".env.dist", "id_rsa.pub", "ID_ED25519.PUB", "id_ecdsa_sk.pub", "env.py", ".envrc",
      "environment", "key.txt", "credentials.yaml", ".npmrc", "README.md"})
  void otherNamesAreNot(String name) {
    assertThat(SecretFiles.matches(name)).isFalse();
    assertThat(NO_SECRET_FILES.covers("a/" + name)).isFalse();
  }

  @Test
  void anExceptionExceptsWhateverItsPlaceInTheList() {
    List<ContentGlob> before = List.of(ContentGlob.name("!.env.example"),
        ContentGlob.name(".env*"));
    List<ContentGlob> after = List.of(ContentGlob.name(".env*"),
        ContentGlob.name("!.env.example"));
    for (List<ContentGlob> globs : List.of(before, after)) {
      assertThat(ContentGlob.listMatches(globs, ".env.example")).isFalse();
      assertThat(ContentGlob.listMatches(globs, ".env.local")).isTrue();
    }
  }

  @Test
  void aListOfExceptionsAloneIsRefusedBecauseItWouldMatchNothing() {
    assertThatThrownBy(() -> ContentGlob.checkList(List.of(ContentGlob.name("!.env.example"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("'!.env.example' is an exception, and the list has no glob for it to except"
            + " from (add one, such as '.env.*')");
    assertThatThrownBy(() -> ContentGlob.name("!!x")).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("one '!' makes an exception; '!!' means nothing: !!x");
    assertThatThrownBy(() -> ContentGlob.name("!")).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("empty glob");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "denyWriteGlobs: ['!.env.example']|line 1, column 17: bad 'denyWriteGlobs': '!.env.example'"
          + " is an exception, and the list has no glob for it to except from (add one, such as"
          + " '.env.*')",
      "denyWriteGlobs: ['[ab].env']|line 1, column 18: bad glob: unsupported character '[' in glob"
          + " [ab].env (only *, ? and ** are special)",
      "content: [{name: x, files: ['!a'], decision: deny}]|line 1, column 28: bad 'files':"
          + " '!a' is an exception, and the list has no glob for it to except from (add one,"
          + " such as '.env.*')"})
  void rulesDocumentsSpeakTheSameGlobLanguage(String doc, String error) {
    assertThatThrownBy(() -> WorkspaceRules.parse(doc)).isInstanceOf(RulesException.class)
        .hasMessage(error);
  }

  @Test
  void aWorkspacesOwnListsTakeExceptionsToo() throws RulesException {
    WorkspaceRules rules = WorkspaceRules.parse("denyWriteGlobs: ['*.secret', '!demo.secret']\n"
        + "content: [{name: keys, files: ['*.secret', '!demo.secret'], decision: deny}]\n");
    assertThat(rules.denyWriteGlobs()).containsExactly("*.secret", "!demo.secret");
    ContentRule keys = rules.content().rules().get(0);
    assertThat(keys.covers("x/prod.secret")).isTrue();
    assertThat(keys.covers("x/demo.secret")).isFalse();
  }
}
