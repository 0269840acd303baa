package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 30: a denied name refused by a rename or a link ({@code mv notes.txt .env}, {@code ln x
 * id_rsa}, {@code mv x .mcp.json}) gets the reason a create of that name gets, on every reader:
 * the launch's violations ({@code exec}, the hook's log) and the tool's own output as the
 * {@code PostToolUse} hook reads it; and no second report blames the file the link was made
 * from. Real bubblewrap, FUSE and coreutils.
 */
class RefusedNameReasonsTest {
  @TempDir Path tmp;
  private Path work;
  private SandboxPlan plan;

  @BeforeEach
  void sandbox() throws Exception {
    RealBwrap.require();
    NameDenyLayerTest.requireLayer();
    RealBwrap.RunDirs dirs = RealBwrap.RunDirs.in(tmp);
    work = dirs.work();
    Files.writeString(work.resolve("notes.txt"), "n\n");
    plan = dirs.underDefaultRules();
  }

  /** Every reason line one command's refusals get, launch's and tool output's, in order. */
  private List<String> reasons(String command) throws Exception {
    RealBwrap.Run run = RealBwrap.run(new LocalLauncher(LocalLauncher.Settings.defaults()),
        LaunchRequest.of(plan, List.of("/bin/sh", "-c", command)));
    List<String> out = new ArrayList<>();
    for (SandboxViolation v : run.violations()) {
      out.add("launch " + RefusalReason.line(v).replace(work + "/", ""));
    }
    for (String l : ToolOutputRefusals.in(run.stderr(), plan.filesystem(), work.toString())) {
      out.add("output " + l);
    }
    return out;
  }

  @Test
  void aRenameOrLinkOntoADeniedNameIsRefusedForTheReasonACreateIs() throws Exception {
    List<String> create = reasons("cp notes.txt .env");
    assertThat(create).hasSize(2).allSatisfy(r -> assertThat(r)
        .contains("file-write* \".env\": " + RefusalReason.NAME_DENIED));
    assertThat(reasons("mv notes.txt .env")).isEqualTo(create);

    List<String> key = reasons("cp notes.txt id_rsa");
    assertThat(key).hasSize(2).allSatisfy(r -> assertThat(r)
        .contains("file-write* \"id_rsa\": " + RefusalReason.NAME_DENIED));
    assertThat(reasons("ln notes.txt id_rsa")).isEqualTo(key);
    assertThat(reasons("ln -s notes.txt id_rsa")).isEqualTo(key);

    List<String> tool = reasons("touch .mcp.json");
    assertThat(tool).hasSize(2).allSatisfy(r -> assertThat(r)
        .contains("file-write* \".mcp.json\": " + RefusalReason.HOST_TOOL_FILE));
    assertThat(reasons("mv notes.txt .mcp.json")).isEqualTo(tool);
    assertThat(work.resolve("notes.txt")).hasContent("n");
  }
}
