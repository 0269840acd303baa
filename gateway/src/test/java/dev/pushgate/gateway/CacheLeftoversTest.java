package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.policy.PushRules;
import dev.pushgate.types.RepoSlug;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Review F3: the spool files of a fetch the appliance was killed in the middle of survived every
 * restart (only deleteOnExit). The gateway sweeps them before it serves, and nothing else.
 */
class CacheLeftoversTest {
  @TempDir Path dir;

  @Test
  void theGatewaySweepsAKilledFetchsSpoolFilesBeforeItServesAndNothingElse() throws Exception {
    Path cache = dir.resolve("cache");
    Path widget = Files.createDirectories(cache.resolve("acme/widget.git"));
    Files.writeString(widget.resolve("HEAD"), "ref: refs/heads/main\n");
    List<Path> leftovers = List.of(
        write(widget.resolve("streamed-123.pack")),
        write(widget.resolve("objects/incoming_456.pack")),
        write(widget.resolve("objects/incoming_456.idx")),
        write(widget.resolve("objects/pack/gc_789.pack_tmp")),
        write(widget.resolve("objects/pack/rollup_123.pack_tmp")),
        write(widget.resolve("objects/pack/rollup_123.idx_tmp")),
        write(cache.resolve("acme/gadget.git/streamed-7.pack")));
    List<Path> kept = List.of(
        write(widget.resolve("objects/pack/pack-abc.pack")),
        write(widget.resolve("objects/pack/pack-abc.idx")),
        write(widget.resolve("objects/pack/incoming_1.pack")),
        write(widget.resolve("objects/pack/pack-rollup_1.pack")),
        write(widget.resolve("pushgate-compaction-base")),
        write(widget.resolve("streamed-notes.txt")),
        write(widget.resolve("config")),
        write(cache.resolve("streamed-9.pack")),
        write(cache.resolve("acme/streamed-8.pack")),
        write(cache.resolve("acme/notarepo/streamed-6.pack")));

    gateway(cache).handler();

    assertThat(leftovers).allMatch(p -> !Files.exists(p));
    assertThat(kept).allMatch(Files::exists);
  }

  @Test
  void aGatewayWithoutACacheYetStarts() {
    gateway(dir.resolve("no-cache-yet")).handler();

    assertThat(dir.resolve("no-cache-yet")).doesNotExist();
  }

  private static Path write(Path file) throws Exception {
    Files.createDirectories(file.getParent());
    return Files.writeString(file, "left over");
  }

  private static Gateway gateway(Path cache) {
    RunContext run = new RunContext("run-1", "ws-1", new RepoSlug("acme", "widget"), List.of(),
        PushRules.of(List.of()));
    GatewayConfig config = new GatewayConfig(GatewayConfig.GITHUB_HOST, cache, 1L << 30,
        Duration.ofSeconds(30), Duration.ofSeconds(10), Clock.systemUTC(),
        GatewayConfig.DEFAULT_WRITE_TOKENS_PER_MINUTE);
    return new Gateway(config, c -> Optional.of(run), new RecordingUpstream(null),
        new RecordingAudit(), Approvals.NONE, PushMetrics.NONE);
  }
}
