package dev.pushgate.gateway;

import static dev.pushgate.gateway.TestRepos.commit;
import static dev.pushgate.gateway.TestRepos.idOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pushgate.types.Secret;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.lib.StoredConfig;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.transport.ReceiveCommand;
import org.eclipse.jgit.transport.RefSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The forwarder pushing from a gateway cache to a real upstream: a second bare repository served
 * over smart HTTP by JGit's own servlet on 127.0.0.1.
 */
class ForwarderTest {
  private static final String STALE =
      "stale info: upstream changed since the gateway read it; fetch and try again";
  private static final String MAIN = "refs/heads/main";
  private static final Secret TOKEN = Secret.of("ghs_WRITEtokenNEVERshown0123456789abcd");

  @TempDir Path dir;
  private Repository upstream;
  private Repository cache;
  private RevCommit base;
  private final List<String> messages = new ArrayList<>();
  private final Forwarder forwarder = new Forwarder(10);
  private HttpUpstream http;

  @BeforeEach
  void upstreamAndCache() throws Exception {
    http = new HttpUpstream(dir);
    upstream = TestRepos.bare(dir.resolve("upstream.git"));
    base = TestRepos.baseOnMainAndOld(upstream);
    cache = TestRepos.bare(dir.resolve("cache.git"));
    sync();
  }

  @AfterEach
  void close() throws Exception {
    upstream.close();
    cache.close();
    http.close();
  }

  @Test
  void forwardsAFastForwardAndReportsOk() throws Exception {
    RevCommit next = commit(cache, "next\n", Map.of("README.md", "next\n"), base);
    ReceiveCommand cmd = new ReceiveCommand(base, next, MAIN);

    Map<ReceiveCommand, Forwarder.Outcome> out = forward(false, cmd);

    assertThat(out.get(cmd)).isEqualTo(new Forwarder.Outcome(ReceiveCommand.Result.OK, null));
    assertThat(out.get(cmd).describe()).isEqualTo("ok");
    assertThat(idOf(upstream, MAIN)).isEqualTo(next);
  }

  @Test
  void forwardsACreate() throws Exception {
    RevCommit feature = commit(cache, "feature\n", Map.of("README.md", "feature\n"), base);
    ReceiveCommand cmd = new ReceiveCommand(ObjectId.zeroId(), feature, "refs/heads/feature");

    assertThat(forward(false, cmd).get(cmd).ok()).isTrue();
    assertThat(idOf(upstream, "refs/heads/feature")).isEqualTo(feature);
  }

  @Test
  void forwardsADelete() throws Exception {
    ReceiveCommand cmd = new ReceiveCommand(base, ObjectId.zeroId(), "refs/heads/old");

    assertThat(forward(false, cmd).get(cmd).ok()).isTrue();
    assertThat(idOf(upstream, "refs/heads/old")).isNull();
  }

  @Test
  void forwardsAForcedUpdate() throws Exception {
    RevCommit rewritten = commit(cache, "rewritten\n", Map.of("README.md", "other\n"));
    ReceiveCommand cmd = new ReceiveCommand(base, rewritten, MAIN,
        ReceiveCommand.Type.UPDATE_NONFASTFORWARD);

    assertThat(forward(false, cmd).get(cmd).ok()).isTrue();
    assertThat(idOf(upstream, MAIN)).isEqualTo(rewritten);
  }

  @Test
  void reportsANonFastForwardThatWasNotForcedAsSuch() throws Exception {
    RevCommit rewritten = commit(cache, "rewritten\n", Map.of("README.md", "other\n"));
    ReceiveCommand cmd = new ReceiveCommand(base, rewritten, MAIN, ReceiveCommand.Type.UPDATE);

    Forwarder.Outcome o = forward(false, cmd).get(cmd);

    assertThat(o).isEqualTo(
        new Forwarder.Outcome(ReceiveCommand.Result.REJECTED_NONFASTFORWARD, null));
    assertThat(o.describe()).isEqualTo("rejected upstream: REJECTED_NONFASTFORWARD");
    assertThat(idOf(upstream, MAIN)).isEqualTo(base);
  }

  /** JGit's receive-pack words it "non-fast forward" (git's own is "non-fast-forward"). */
  @Test
  void reportsUpstreamRefusingAForcedUpdate() throws Exception {
    configureUpstream("denynonfastforwards", true);
    RevCommit rewritten = commit(cache, "rewritten\n", Map.of("README.md", "other\n"));
    ReceiveCommand cmd = new ReceiveCommand(base, rewritten, MAIN,
        ReceiveCommand.Type.UPDATE_NONFASTFORWARD);

    Forwarder.Outcome o = forward(false, cmd).get(cmd);

    assertThat(o).isEqualTo(new Forwarder.Outcome(ReceiveCommand.Result.REJECTED_OTHER_REASON,
        "upstream: non-fast forward"));
    assertThat(o.describe()).isEqualTo("rejected upstream: upstream: non-fast forward");
    assertThat(idOf(upstream, MAIN)).isEqualTo(base);
  }

  @Test
  void reportsUpstreamRefusingADelete() throws Exception {
    configureUpstream("denydeletes", true);
    ReceiveCommand cmd = new ReceiveCommand(base, ObjectId.zeroId(), "refs/heads/old");

    Forwarder.Outcome o = forward(false, cmd).get(cmd);

    assertThat(o).isEqualTo(new Forwarder.Outcome(ReceiveCommand.Result.REJECTED_OTHER_REASON,
        "upstream: deletion prohibited"));
    assertThat(idOf(upstream, "refs/heads/old")).isEqualTo(base);
  }

  @Test
  void aRefThatMovedUpstreamSinceTheCacheReadItIsStale() throws Exception {
    RevCommit theirs = theirsOnUpstreamMain();
    RevCommit ours = oursInCache();
    ReceiveCommand cmd = new ReceiveCommand(base, ours, MAIN);

    Forwarder.Outcome o = forward(false, cmd).get(cmd);

    assertThat(o).isEqualTo(
        new Forwarder.Outcome(ReceiveCommand.Result.REJECTED_OTHER_REASON, STALE));
    assertThat(idOf(upstream, MAIN)).isEqualTo(theirs);
  }

  @Test
  void aForcedUpdateStillHoldsItsLease() throws Exception {
    RevCommit theirs = theirsOnUpstreamMain();
    RevCommit rewritten = commit(cache, "rewritten\n", Map.of("README.md", "other\n"));
    ReceiveCommand cmd = new ReceiveCommand(base, rewritten, MAIN,
        ReceiveCommand.Type.UPDATE_NONFASTFORWARD);

    assertThat(forward(false, cmd).get(cmd).message()).isEqualTo(STALE);
    assertThat(idOf(upstream, MAIN)).isEqualTo(theirs);
  }

  @Test
  void aCreateOfARefThatAppearedUpstreamIsStale() throws Exception {
    TestRepos.setRef(upstream, "refs/heads/feature", base);
    RevCommit feature = commit(cache, "feature\n", Map.of("README.md", "feature\n"), base);
    ReceiveCommand cmd = new ReceiveCommand(ObjectId.zeroId(), feature, "refs/heads/feature");

    assertThat(forward(false, cmd).get(cmd).message()).isEqualTo(STALE);
    assertThat(idOf(upstream, "refs/heads/feature")).isEqualTo(base);
  }

  @Test
  void withoutAtomicTheGoodRefLandsAndTheStaleOneDoesNot() throws Exception {
    theirsOnUpstreamMain();
    RevCommit ours = oursInCache();
    ReceiveCommand stale = new ReceiveCommand(base, ours, MAIN);
    ReceiveCommand feature = new ReceiveCommand(ObjectId.zeroId(), ours, "refs/heads/feature");

    Map<ReceiveCommand, Forwarder.Outcome> out = forward(false, stale, feature);

    assertThat(out.get(stale).ok()).isFalse();
    assertThat(out.get(feature).ok()).isTrue();
    assertThat(idOf(upstream, "refs/heads/feature")).isEqualTo(ours);
  }

  @Test
  void anAtomicPushWithAStaleRefMovesNothing() throws Exception {
    RevCommit theirs = theirsOnUpstreamMain();
    RevCommit ours = oursInCache();
    ReceiveCommand stale = new ReceiveCommand(base, ours, MAIN);
    ReceiveCommand feature = new ReceiveCommand(ObjectId.zeroId(), ours, "refs/heads/feature");

    Map<ReceiveCommand, Forwarder.Outcome> out = forward(true, stale, feature);

    assertThat(out.get(stale).message()).isEqualTo(STALE);
    assertThat(out.get(feature)).isEqualTo(new Forwarder.Outcome(
        ReceiveCommand.Result.REJECTED_OTHER_REASON, "upstream: transaction aborted"));
    assertThat(idOf(upstream, "refs/heads/feature")).isNull();
    assertThat(idOf(upstream, MAIN)).isEqualTo(theirs);
  }

  @Test
  void anAtomicPushUpstreamRefusesInPartMovesNothing() throws Exception {
    configureUpstream("denydeletes", true);
    RevCommit feature = commit(cache, "feature\n", Map.of("README.md", "feature\n"), base);
    ReceiveCommand create = new ReceiveCommand(ObjectId.zeroId(), feature, "refs/heads/feature");
    ReceiveCommand delete = new ReceiveCommand(base, ObjectId.zeroId(), "refs/heads/old");

    Map<ReceiveCommand, Forwarder.Outcome> out = forward(true, create, delete);

    assertThat(out.get(create)).isEqualTo(new Forwarder.Outcome(
        ReceiveCommand.Result.REJECTED_OTHER_REASON, "upstream: transaction aborted"));
    assertThat(out.get(delete)).isEqualTo(new Forwarder.Outcome(
        ReceiveCommand.Result.REJECTED_OTHER_REASON, "upstream: deletion prohibited"));
    assertThat(idOf(upstream, "refs/heads/feature")).isNull();
    assertThat(idOf(upstream, "refs/heads/old")).isEqualTo(base);
  }

  @Test
  void aDeadUpstreamFailsEveryCommandWithoutShowingTheToken() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    RevCommit next = commit(cache, "next\n", Map.of("README.md", "next\n"), base);
    ReceiveCommand update = new ReceiveCommand(base, next, MAIN);
    ReceiveCommand create = new ReceiveCommand(ObjectId.zeroId(), next, "refs/heads/feature");

    String url = "http://127.0.0.1:" + port + "/acme/widget.git";
    Map<ReceiveCommand, Forwarder.Outcome> out = forwarder.forward(cache, url, TOKEN,
        List.of(update, create), advertised(), true, List.of(), messages::add);

    Forwarder.Outcome failed = new Forwarder.Outcome(ReceiveCommand.Result.REJECTED_OTHER_REASON,
        "upstream push failed: " + url + ": connection failed");
    assertThat(out).containsOnlyKeys(update, create);
    assertThat(out.get(update)).isEqualTo(failed);
    assertThat(out.get(create)).isEqualTo(failed);
    assertThat(failed.message()).doesNotContain(TOKEN.reveal());
    assertThat(messages).isEmpty();
  }

  @Test
  void aMissingUpstreamRepositoryFailsEveryCommand() throws Exception {
    RevCommit next = commit(cache, "next\n", Map.of("README.md", "next\n"), base);

    assertAMissingUpstreamIsReported(next);
  }

  /** Upstream answers 404 before it reads the pack, and stops reading: its answer is reported. */
  @Test
  void aLargePushToAMissingUpstreamRepositoryReportsUpstreamsAnswer() throws Exception {
    byte[] noise = new byte[8 << 20];
    new java.util.Random(3).nextBytes(noise);
    RevCommit big = commit(cache, "big\n",
        Map.of("noise.bin", new String(noise, StandardCharsets.ISO_8859_1)), base);

    assertAMissingUpstreamIsReported(big);
  }

  @Test
  void aMalformedUpstreamUrlFailsEveryCommand() throws Exception {
    RevCommit next = commit(cache, "next\n", Map.of("README.md", "next\n"), base);
    ReceiveCommand cmd = new ReceiveCommand(base, next, MAIN);

    for (String url : List.of("::not a url::", TestRepos.url(dir.resolve("upstream.git")))) {
      Map<ReceiveCommand, Forwarder.Outcome> out = forwarder.forward(cache, url, TOKEN,
          List.of(cmd), advertised(), false, List.of(), messages::add);

      assertThat(out.get(cmd)).isEqualTo(new Forwarder.Outcome(
          ReceiveCommand.Result.REJECTED_OTHER_REASON,
          "upstream push failed: the upstream URL is not valid"));
    }
    assertThat(idOf(upstream, MAIN)).isEqualTo(base);
  }

  @Test
  void aForwardIsOnePostWithTheTokenAndNoSecondRefListing() throws Exception {
    RevCommit next = commit(cache, "next\n", Map.of("README.md", "next\n"), base);
    ReceiveCommand cmd = new ReceiveCommand(base, next, MAIN);
    http.requests.clear();

    assertThat(forward(false, cmd).get(cmd).ok()).isTrue();

    assertThat(http.requests).containsExactly(
        new HttpUpstream.Seen("POST /upstream.git/git-receive-pack", true));
  }

  @Test
  void relaysUpstreamsMessagesAndForwardsPushOptions() throws Exception {
    List<String> optionsSeen = new ArrayList<>();
    http.hook = (rp, commands) -> {
      optionsSeen.addAll(rp.getPushOptions() == null ? List.of() : rp.getPushOptions());
      rp.sendMessage("Create a pull request for 'main' by visiting:");
      rp.sendMessage("     http://forge.invalid/acme/widget/pull/new/main");
    };
    RevCommit next = commit(cache, "next\n", Map.of("README.md", "next\n"), base);
    ReceiveCommand cmd = new ReceiveCommand(base, next, MAIN);

    Map<ReceiveCommand, Forwarder.Outcome> out = forwarder.forward(cache,
        http.url(dir.resolve("upstream.git")), TOKEN, List.of(cmd), advertised(), false,
        List.of("ci.skip", "reviewer=a"), messages::add);

    assertThat(out.get(cmd).ok()).isTrue();
    assertThat(optionsSeen).containsExactly("ci.skip", "reviewer=a");
    assertThat(messages).containsExactly(
        "upstream: Create a pull request for 'main' by visiting:",
        "upstream: http://forge.invalid/acme/widget/pull/new/main");
  }

  @Test
  void aNonFastForwardInAnAtomicPushSendsNothing() throws Exception {
    RevCommit rewritten = commit(cache, "rewritten\n", Map.of("README.md", "other\n"));
    ReceiveCommand notFf = new ReceiveCommand(base, rewritten, MAIN, ReceiveCommand.Type.UPDATE);
    ReceiveCommand create = new ReceiveCommand(ObjectId.zeroId(), base, "refs/heads/feature");
    http.requests.clear();

    Map<ReceiveCommand, Forwarder.Outcome> out = forward(true, notFf, create);

    assertThat(out.get(notFf).result()).isEqualTo(ReceiveCommand.Result.REJECTED_NONFASTFORWARD);
    assertThat(out.get(create).message())
        .isEqualTo("atomic push refused because another ref was refused");
    assertThat(http.requests).isEmpty();
    assertThat(idOf(upstream, "refs/heads/feature")).isNull();
  }

  @Test
  void readsASideBandReport() throws Exception {
    byte[] answer = sideBand(
        1, pkt("unpack ok\n") + pkt("ok refs/heads/main\n") + pkt("ng refs/heads/x stale info\n")
            + "0000",
        2, "Resolving deltas: 100% (1/1)\rdone.\n",
        3, "");
    UpstreamReport r = UpstreamReport.read(new ByteArrayInputStream(answer));

    assertThat(r.unpack()).isEqualTo("ok");
    assertThat(r.refs()).containsExactly(Map.entry("refs/heads/main", ""),
        Map.entry("refs/heads/x", "stale info"));
    assertThat(r.messages()).isEqualTo("Resolving deltas: 100% (1/1)\rdone.\n");
  }

  @Test
  void aMalformedReportIsAnErrorNotAVerdict() {
    List<byte[]> malformed = List.of(
        "zzzz".getBytes(StandardCharsets.US_ASCII),            // not a length
        "+01a".getBytes(StandardCharsets.US_ASCII),            // a sign is not a hex digit
        "00".getBytes(StandardCharsets.US_ASCII),              // cut inside the length
        "0010\u0001unpack".getBytes(StandardCharsets.US_ASCII), // cut inside the payload
        "0006\u0009x".getBytes(StandardCharsets.US_ASCII),     // no such side-band channel
        sideBand(1, "0010unpack ok"),                          // the inner report is cut
        repeat(sideBand(2, "x".repeat(60_000)), 20));          // longer than a report can be
    for (byte[] bytes : malformed) {
      assertThatThrownBy(() -> UpstreamReport.read(new ByteArrayInputStream(bytes)))
          .isInstanceOf(IOException.class);
    }
  }

  private static String pkt(String payload) {
    return String.format("%04x", payload.getBytes(StandardCharsets.UTF_8).length + 4) + payload;
  }

  /** Side-band packets: channel, text, channel, text...; an empty text is skipped. */
  private static byte[] sideBand(Object... channelsAndTexts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i < channelsAndTexts.length; i += 2) {
      byte[] text = ((String) channelsAndTexts[i + 1]).getBytes(StandardCharsets.UTF_8);
      if (text.length == 0) {
        continue;
      }
      out.writeBytes(String.format("%04x", text.length + 5).getBytes(StandardCharsets.US_ASCII));
      out.write((Integer) channelsAndTexts[i]);
      out.writeBytes(text);
    }
    return out.toByteArray();
  }

  private static byte[] repeat(byte[] bytes, int times) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i < times; i++) {
      out.writeBytes(bytes);
    }
    return out.toByteArray();
  }

  @Test
  void oneLineFoldsControlCharactersAndNamesAMissingDetail() {
    assertThat(Forwarder.oneLine("remote: a\r\nb\u0000\u001bc\n")).isEqualTo("remote: a b c");
    assertThat(Forwarder.oneLine(null)).isEqualTo("no detail");
    assertThat(Forwarder.oneLine("remote: a\u2028b\u009b2Jc\u202e")).isEqualTo("remote: a b 2Jc");
  }

  private Map<ReceiveCommand, Forwarder.Outcome> forward(boolean atomic, ReceiveCommand... cmds)
      throws IOException {
    return forwarder.forward(cache, http.url(dir.resolve("upstream.git")), TOKEN,
        List.of(cmds), advertised(), atomic, List.of(), messages::add);
  }

  /** Pushing {@code pushed} onto main of a repository upstream does not have: its 404 is told. */
  private void assertAMissingUpstreamIsReported(RevCommit pushed) throws IOException {
    ReceiveCommand cmd = new ReceiveCommand(base, pushed, MAIN);

    String url = http.url(dir.resolve("nowhere.git"));
    Map<ReceiveCommand, Forwarder.Outcome> out = forwarder.forward(cache, url, TOKEN,
        List.of(cmd), advertised(), false, List.of(), messages::add);

    assertThat(out.get(cmd)).isEqualTo(new Forwarder.Outcome(
        ReceiveCommand.Result.REJECTED_OTHER_REASON,
        "upstream push failed: " + url + ": not found (HTTP 404)"));
  }

  /** Someone else's commit on main upstream, which the cache has not read. */
  private RevCommit theirsOnUpstreamMain() throws IOException {
    RevCommit theirs = commit(upstream, "theirs\n", Map.of("README.md", "theirs\n"), base);
    TestRepos.setRef(upstream, MAIN, theirs);
    return theirs;
  }

  /** Our commit on {@code base}, in the cache: what a push of ours to main would bring. */
  private RevCommit oursInCache() throws IOException {
    return commit(cache, "ours\n", Map.of("README.md", "ours\n"), base);
  }

  /** What the gateway advertised: the cache's refs, as of its last sync. */
  private List<Ref> advertised() throws IOException {
    return cache.getRefDatabase().getRefs();
  }

  private void sync() throws Exception {
    try (Git git = Git.wrap(cache)) {
      git.fetch().setRemote(http.url(dir.resolve("upstream.git")))
          .setRefSpecs(new RefSpec("+refs/heads/*:refs/heads/*")).call();
    }
  }

  private void configureUpstream(String key, boolean value) throws IOException {
    StoredConfig c = upstream.getConfig();
    c.setBoolean("receive", null, key, value);
    c.save();
  }
}
