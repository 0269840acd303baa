package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.testkit.ApplianceExtension;
import dev.pushgate.testkit.GitRun;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Attack atk-push (high: one run took the appliance down): a pack of
 * one REF_DELTA whose delta copies its whole base, so that the object it makes has its base's
 * id, sent with the base's exact size, makes the gateway's parser run out of heap (the answer is
 * {@code OutOfMemoryError Java heap space}; a JVM without -Xmx grew to 6.5 GB). A ~60-byte body.
 */
class SelfDeltaPushTest {
  @RegisterExtension
  static final ApplianceExtension app = ApplianceExtension.serving().withRepos("acme/widget");

  @Test
  void aDeltaThatRebuildsItsOwnBaseIsRefusedWithoutExhaustingTheHeap() throws Exception {
    JsonNode run = app.get().createRun("{\"workspaceId\": \"ws-c\", \"repository\": \"acme/widget\"}");
    GitRun git = new GitRun(Files.createDirectories(app.dir().resolve("home")), ForgeRefs.env(run));
    git.in(app.dir(), "clone", "-q", "https://github.com/acme/widget.git", "w").ok();
    Path work = app.dir().resolve("w");
    String entry = git.in(work, "ls-tree", "HEAD").ok().stdout().lines()
        .filter(l -> l.contains(" blob ")).findFirst().orElseThrow();
    ObjectId base = ObjectId.fromString(entry.split("\\s+")[2]);
    int size = Integer.parseInt(git.in(work, "cat-file", "-s", base.name()).ok().stdout().strip());

    ByteArrayOutputStream delta = new ByteArrayOutputStream();
    for (int v : new int[] {size, size}) {
      for (; v >= 0x80; v >>>= 7) {
        delta.write((v & 0x7f) | 0x80);
      }
      delta.write(v);
    }
    delta.write(0x80 | 0x10 | 0x20);
    delta.write(size & 0xff);
    delta.write((size >>> 8) & 0xff);
    byte[] raw = new byte[20];
    base.copyRawTo(raw, 0);
    ByteArrayOutputStream data = new ByteArrayOutputStream();
    data.writeBytes(raw);
    data.writeBytes(PackBytes.deflate(delta.toByteArray()));
    byte[] pack = PackBytes.pack(new PackBytes.Entry(Constants.OBJ_REF_DELTA, delta.size(),
        data.toByteArray()));
    Wire.Answer a = Wire.post(app.get(), "/git/github.com/acme/widget.git/git-receive-pack",
        ForgeRefs.credential(run), PackBytes.request(RawPush.command(ObjectId.zeroId(), base,
            "refs/tags/self"), pack));
    assertThat(a.body()).doesNotContain("OutOfMemoryError")
        .contains("twice, once as a delta; git never sends one object twice");
  }
}
