package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.testkit.ApplianceExtension;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.jgit.lib.ObjectId;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A push naming one ref twice is refused whole before anything goes upstream, as git's own
 * receive-pack refuses it; the audit and git's report say the same as upstream holds.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DuplicatedRefPushTest {
  private static final String RUN = """
      {"workspaceId": "ws-dup", "mode": "chat", "repository": "acme/widget"}""";
  private static final String PUSH_PATH = "/git/github.com/acme/widget.git/git-receive-pack";

  @RegisterExtension
  static final ApplianceExtension app = ApplianceExtension.serving().withRepos("acme/widget");

  private JsonNode run;
  private String credential;
  private ObjectId main;

  @BeforeAll
  void start() throws Exception {
    run = app.get().createRun(RUN);
    credential = ForgeRefs.credential(run);
    main = ForgeRefs.ref(app.get(), "acme/widget", "refs/heads/main");
    // The advertisement that syncs the cache, as git asks for it before every push.
    assertThat(Forge.gatewayStatus(app.get(), "acme/widget", credential)).isEqualTo(200);
  }

  @Test
  void aPushNamingOneRefTwiceIsRefusedWholeAndNothingLands() throws Exception {
    Wire.Answer a = Wire.post(app.get(), PUSH_PATH, credential, push(
        create("refs/heads/also"), create("refs/heads/dup"), create("refs/heads/dup")));

    assertThat(a.status()).isEqualTo(200);
    String refusal = "multiple updates for ref 'refs/heads/dup' not allowed; nothing was pushed";
    assertThat(a.body()).contains("ng refs/heads/dup " + refusal)
        .contains("ng refs/heads/also " + refusal).doesNotContain("ok refs/heads/");
    assertThat(ForgeRefs.of(app.get(), "acme/widget"))
        .doesNotContainKeys("refs/heads/dup", "refs/heads/also");
    assertThat(auditOf("refs/heads/dup")).hasSize(2).allSatisfy(d -> {
      assertThat(d.get("decision").asText()).isEqualTo("denied");
      assertThat(d.get("code").asText()).isEqualTo("INVALID_COMMAND");
      assertThat(d.get("reason").asText()).isEqualTo(refusal);
    });
    assertThat(auditOf("refs/heads/also")).singleElement()
        .satisfies(d -> assertThat(d.get("decision").asText()).isEqualTo("denied"));
  }

  @Test
  void aDuplicateInACommandListOnlyJGitCanReadIsRefusedWholeToo() throws Exception {
    // A shallow line first keeps the filter from reading the list before the pack: JGit reads
    // it, and the push hook refuses the duplicate.
    Wire.Answer a = Wire.post(app.get(), PUSH_PATH, credential, push("shallow " + main.name(),
        create("refs/heads/twice"), create("refs/heads/twice")));

    assertThat(a.status()).isEqualTo(200);
    assertThat(a.body()).contains("ng refs/heads/twice multiple updates for ref"
        + " 'refs/heads/twice' not allowed; nothing was pushed").doesNotContain("ok refs/heads/");
    assertThat(ForgeRefs.of(app.get(), "acme/widget")).doesNotContainKey("refs/heads/twice");
    assertThat(auditOf("refs/heads/twice")).hasSize(2).allSatisfy(d -> {
      assertThat(d.get("decision").asText()).isEqualTo("denied");
      assertThat(d.get("code").asText()).isEqualTo("INVALID_COMMAND");
    });
  }

  @Test
  void aPushOfOneRefOnceStillLands() throws Exception {
    Wire.Answer a = Wire.post(app.get(), PUSH_PATH, credential, push(create("refs/heads/single")));
    assertThat(a.status()).isEqualTo(200);
    assertThat(a.body()).contains("ok refs/heads/single");
    assertThat(ForgeRefs.ref(app.get(), "acme/widget", "refs/heads/single")).isEqualTo(main);
  }

  private String create(String ref) {
    return RawPush.command(ObjectId.zeroId(), main, ref);
  }

  /** The lines as pkt-lines, capabilities on the first command, then an empty pack. */
  private byte[] push(String... commands) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    boolean capabilities = false;
    for (String command : commands) {
      boolean first = !capabilities && !command.startsWith("shallow ");
      capabilities |= first;
      String line = command + (first ? "\0report-status side-band-64k agent=it" : "") + "\n";
      byte[] b = line.getBytes(StandardCharsets.UTF_8);
      out.write(String.format("%04x", b.length + 4).getBytes(StandardCharsets.US_ASCII));
      out.write(b);
    }
    out.write("0000".getBytes(StandardCharsets.US_ASCII));
    out.write(RawPush.emptyPack());
    return out.toByteArray();
  }

  private List<JsonNode> auditOf(String ref) throws Exception {
    JsonNode all = app.get().control().get("/v1/audit?runId=" + run.get("runId").asText()).body();
    List<JsonNode> out = new ArrayList<>();
    all.get("decisions").forEach(d -> {
      if (ref.equals(d.path("ref").asText())) {
        out.add(d);
      }
    });
    return out;
  }
}
