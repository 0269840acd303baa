package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Set;
import org.eclipse.jgit.lib.ObjectId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class FetchRequestBodyTest {
  private static final String A = "a".repeat(40);
  private static final String B = "b".repeat(40);

  @Test
  void keepsOnlyTheHavesItIsToldToAndEveryOtherLineByteForByte() throws Exception {
    String body = pkt("command=fetch\n") + "0001" + pkt("want " + A + "\n")
        + pkt("have " + A + "\n") + pkt("have " + B.toUpperCase() + "\n") + pkt("done\n") + "0000";
    FetchRequestBody read = FetchRequestBody.read(bytes(body), true);

    assertThat(read.fetches()).isTrue();
    assertThat(read.haves()).containsExactly(ObjectId.fromString(A), ObjectId.fromString(B));
    assertThat(new String(read.keepingHaves(Set.of(ObjectId.fromString(A))),
        StandardCharsets.US_ASCII)).isEqualTo(pkt("command=fetch\n") + "0001"
        + pkt("want " + A + "\n") + pkt("have " + A + "\n") + pkt("done\n") + "0000");
  }

  @Test
  void aV0RequestMayEndWithDoneAndAV2LsRefsFetchesNothing() throws Exception {
    assertThat(FetchRequestBody.read(bytes(pkt("want " + A + "\n") + "0000" + pkt("done\n")),
        false).fetches()).isTrue();
    assertThat(FetchRequestBody.read(bytes(pkt("command=ls-refs\n") + "0001" + "0000"), true)
        .fetches()).isFalse();
  }

  /** Cut before the flush, cut within a line or its header, lengths git never sends. */
  @ParameterizedTest
  @ValueSource(strings = {"2|0011command=fetch0001000dthin-pack",
      "2|0012command=fetch\n0001000ddone\n", "0|0032want " + "a" + "|", "0|00", "0|",
      "2|0002", "2|0003", "2|fff0",
      "0|0032want aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n0000000ahave x\n0000",
      "0|0032want aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n0000"
          + "0032have  aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n0000"})
  void aRequestGitDoesNotSendIsMalformed(String versionAndBody) {
    String[] parts = versionAndBody.split("\\|", -1);
    assertThatThrownBy(() -> FetchRequestBody.read(bytes(parts[1]), "2".equals(parts[0])))
        .isInstanceOf(FetchRequestBody.Malformed.class);
  }

  private static String pkt(String line) {
    return String.format("%04x", line.length() + 4) + line;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
