package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.testkit.ApplianceExtension;
import dev.pushgate.testkit.GitRun;
import java.nio.file.Files;
import java.nio.file.Path;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.lib.Repository;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Attack finding (push path, symbolic refs upstream; severity: low, needs an upstream on a
 * macOS file system holding a symref): a name that differs from an upstream symref only in case
 * is judged as that symref, "since an upstream on a case-insensitive file system would resolve
 * it so" (docs/push-path.md). Such a file system (HFS+, APFS) also folds Unicode normalization
 * (NFC {@code é} = NFD {@code e + U+0301}) and HFS+ ignores U+200C and its kin (why git's fsck
 * checks {@code .git\u200c}). Those spellings of the symref {@code refs/heads/café} → main are
 * judged as creates of a new name and allowed: there they would move the denied main.
 */
class SymrefFoldedSpellingTest {
  @RegisterExtension
  static final ApplianceExtension app = ApplianceExtension.serving().withRepos("acme/widget");

  @ParameterizedTest
  @ValueSource(strings = {"refs/heads/cafe\u0301", "refs/heads/caf\u00e9\u200c"})
  void anotherSpellingOfASymrefIsJudgedAsThatSymref(String spelling) throws Exception {
    try (Repository forge = new FileRepository(app.get().forgeRepo("acme/widget").toFile())) {
      forge.updateRef("refs/heads/caf\u00e9").link("refs/heads/main");
    }
    JsonNode run = app.get().createRun("""
        {"workspaceId": "ws-%d", "repository": "acme/widget",
         "rules": {"push": [{"refs": "refs/heads/main", "decision": "deny",
                             "reason": "push to main is denied"}]}}"""
        .formatted(Math.abs(spelling.hashCode())));
    Path home = Files.createDirectories(app.dir().resolve("home-" + Math.abs(spelling.hashCode())));
    GitRun git = new GitRun(home, ForgeRefs.env(run));
    Path work = home.resolve("w");
    git.in(home, "clone", "-q", "https://github.com/acme/widget.git", "w").ok();
    Files.writeString(work.resolve("x.txt"), "through another spelling\n");
    git.in(work, "add", "x.txt").ok();
    git.in(work, "-c", "user.name=A", "-c", "user.email=a@example.com", "commit", "-q", "-m", "x")
        .ok();

    GitRun.Result push = git.in(work, "push", "origin", "HEAD:" + spelling);

    assertThat(push.stderr()).as("a spelling a macOS upstream resolves to café → main")
        .contains("is a symbolic ref upstream to refs/heads/main");
  }
}
