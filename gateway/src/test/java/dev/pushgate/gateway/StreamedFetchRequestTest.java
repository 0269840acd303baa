package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.eclipse.jgit.lib.ObjectId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The stream reads a fetch request as the gateway read it for JGit ({@link FetchRequestBody}):
 * what it cannot answer is not the stream's, and is handed to JGit, which answers it in git's
 * ERR line ({@code GatewayFetchTest}), never a 500 from the filter. The stream reads the request
 * only while the cache's fetch is in flight, so the end-to-end test meets this path only
 * sometimes; here it is met every time.
 */
class StreamedFetchRequestTest {
  private static final String A = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
  private static final String B = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
  private static final String V0_CAPS = " multi_ack_detailed no-done side-band-64k ofs-delta";

  @Test
  void aPlainV0RequestIsTheStreamsWithItsWantsHavesAndCapabilities() throws Exception {
    StreamedFetch.Request request = parse(false, pkt("want " + A + V0_CAPS + "\n")
        + pkt("want " + B + "\n") + "0000" + pkt("have " + B + "\n") + pkt("done\n"))
        .orElseThrow();

    assertThat(request.wants()).containsExactly(ObjectId.fromString(A), ObjectId.fromString(B));
    assertThat(request.haves()).containsExactly(ObjectId.fromString(B));
    assertThat(request.done()).isTrue();
    assertThat(request.sideBand64k()).isTrue();
    assertThat(request.progress()).isTrue();
  }

  @Test
  void aPlainV2RoundIsTheStreamsWithoutDoneAndLinesWithoutLfReadAsWithOne() throws Exception {
    StreamedFetch.Request request = parse(true, pkt("command=fetch") + pkt("agent=git/2.39\n")
        + "0001" + pkt("thin-pack") + pkt("no-progress\n") + pkt("ofs-delta")
        + pkt("want " + A) + pkt("have " + B) + "0000").orElseThrow();

    assertThat(request.v2()).isTrue();
    assertThat(request.wants()).containsExactly(ObjectId.fromString(A));
    assertThat(request.haves()).containsExactly(ObjectId.fromString(B));
    assertThat(request.done()).isFalse();
    assertThat(request.progress()).isFalse();
  }

  /**
   * Each git would send only as a shallow, filtered or otherwise unusual fetch, or never: no
   * ofs-delta, no side-band, no done without no-done. (A want that names no one object id is
   * malformed: FetchRequestBodyTest.)
   */
  @ParameterizedTest
  @ValueSource(strings = {
      "want " + A + V0_CAPS + "|shallow " + B + "|deepen 1|#|done",
      "want " + A + " side-band-64k|#|done",
      "want " + A + " ofs-delta|#|done",
      "want " + A + " side-band-64k ofs-delta|#|have " + B + "|#",
      "want " + A + V0_CAPS + "|#|have " + B + "|filter blob:none|done",
      "done"})
  void aV0RequestGitSendsOnlyForAnotherFetchIsNotTheStreams(String lines) throws Exception {
    assertThat(parse(false, pkts(lines))).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "command=ls-refs|@|peel|#",
      "command=fetch|object-format=sha256|@|ofs-delta|want " + A + "|done|#",
      "command=fetch|@|want " + A + "|done|#",
      "command=fetch|@|ofs-delta|want " + A + "|deepen 1|done|#",
      "command=fetch|@|ofs-delta|want " + A + "|filter blob:none|done|#",
      "command=fetch|@|ofs-delta|want " + A + "|an-argument-unknown|done|#",
      "command=fetch|@|ofs-delta|want-ref refs/heads/main|done|#",
      "command=fetch|@|ofs-delta|sideband-all|want " + A + "|done|#"})
  void aV2RequestGitSendsOnlyForAnotherFetchIsNotTheStreams(String lines) throws Exception {
    assertThat(parse(true, pkts(lines))).isEmpty();
  }

  /** Never the stream's: the gateway refuses them before anything reads what they ask. */
  @ParameterizedTest
  @ValueSource(strings = {"0|00zzwant x\n0000", "0|0032want 0123\n0000", "0|000", "0|ffff",
      "0|0009done\n00", "2|0012command=fetch\n0001zzzz", "2|0004", "2|zz"})
  void aMalformedRequestIsRefusedBeforeTheStreamReadsIt(String versionAndBody) {
    String[] parts = versionAndBody.split("\\|", -1);
    assertThatThrownBy(() -> parse("2".equals(parts[0]), parts[1]))
        .isInstanceOf(FetchRequestBody.Malformed.class);
  }

  private static Optional<StreamedFetch.Request> parse(boolean v2, String body)
      throws FetchRequestBody.Malformed {
    return StreamedFetch.parse(
        FetchRequestBody.read(body.getBytes(StandardCharsets.US_ASCII), v2));
  }

  /** Lines separated by {@code |}, each with an LF; {@code #} a flush, {@code @} a delim. */
  private static String pkts(String lines) {
    StringBuilder body = new StringBuilder();
    for (String line : lines.split("\\|")) {
      body.append(line.equals("#") ? "0000" : line.equals("@") ? "0001" : pkt(line + "\n"));
    }
    return body.toString();
  }

  private static String pkt(String line) {
    return String.format("%04x", line.length() + 4) + line;
  }
}
