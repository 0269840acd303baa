package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.eclipse.jgit.lib.ObjectId;
import org.junit.jupiter.api.Test;

/** The ref list the sync reads before every push, well formed or not. */
class UpstreamRefListTest {
  private static final String A = "1111111111111111111111111111111111111111";
  private static final String B = "2222222222222222222222222222222222222222";
  private static final String C = "3333333333333333333333333333333333333333";
  private static final String ZERO = "0000000000000000000000000000000000000000";
  private static final String CAPS = "multi_ack thin-pack side-band side-band-64k ofs-delta"
      + " shallow no-progress include-tag multi_ack_detailed symref=HEAD:refs/heads/main";

  @Test
  void readsBranchesAndTagsAsGitHubListsThem() throws Exception {
    String list = pkt("# service=git-upload-pack\n") + "0000"
        + pkt(A + " HEAD\0" + CAPS + "\n")
        + pkt(A + " refs/heads/main\n")
        + pkt(B + " refs/heads/feature/x\n")
        + pkt(A + " refs/pull/7/head\n")
        + pkt(C + " refs/tags/v1\n")
        + pkt(A + " refs/tags/v1^{}\n")
        + "0000";

    assertThat(parse(list)).hasValue(Map.of("refs/heads/main", ObjectId.fromString(A),
        "refs/heads/feature/x", ObjectId.fromString(B), "refs/tags/v1", ObjectId.fromString(C)));
  }

  @Test
  void anEmptyRepositoryListsNoRef() throws Exception {
    String list = pkt("# service=git-upload-pack\n") + "0000"
        + pkt(ZERO + " capabilities^{}\0" + CAPS + "\n") + "0000";

    assertThat(parse(list)).hasValue(Map.of());
  }

  @Test
  void anythingMalformedIsNotAListSoTheSyncFetches() {
    String head = pkt("# service=git-upload-pack\n") + "0000";
    List<String> malformed = List.of(
        "",                                                          // nothing
        pkt("# service=git-receive-pack\n") + "0000",                // another service
        pkt("# service=git-upload-pack\n") + pkt(A + " refs/heads/main\0caps\n"), // no flush
        head + "0000",                                               // no capabilities line
        head + pkt(A + " refs/heads/main\n") + "0000",               // capabilities missing
        head + pkt(A + " refs/heads/main\0" + CAPS + "\n"),          // cut before the flush
        head + pkt("xyz refs/heads/main\0" + CAPS + "\n") + "0000",  // not an id
        head + pkt(A + "  refs/heads/main\0" + CAPS + "\n") + "0000", // two spaces
        head + pkt(A + " refs/heads/main\0" + CAPS + "\n")
            + pkt(B + " refs/heads/x\0late caps\n") + "0000",        // capabilities twice
        head + pkt(A + " refs/heads/main\0" + CAPS + "\n")
            + pkt(B + " refs/heads/main\n") + "0000",                // the same ref twice
        head + "00zz",                                               // not a length
        head + "0003",                                               // reserved length
        head + "0040" + A);                                          // cut inside a line
    for (String list : malformed) {
      assertThat(parse(list)).as(list).isEmpty();
    }
  }

  @Test
  void reservedLengthsAndMisplacedBytesAreNotAListEither() {
    String head = pkt("# service=git-upload-pack\n") + "0000";
    String caps = pkt(A + " refs/heads/main\0" + CAPS + "\n");
    List<String> malformed = List.of(
        head + "0001" + caps + "0000",                              // a delimiter
        head + caps + "0004" + "0000",                              // an empty line
        head + caps + "0002" + "0000",                              // a v2 response end
        head + caps + "+010" + "0000",                              // a sign for a length
        head + caps + "00",                                         // cut inside a length
        head + caps + pkt(B + " refs/heads/a\0b\n") + "0000",      // a NUL in a later ref
        head + caps + pkt(B + "\0refs/heads/a\n") + "0000",        // a NUL for the space
        head + caps + pkt(B + " refs/heads/a b\n") + "0000",        // a space in the name
        head + caps + pkt(B + " \n") + "0000",                      // no name
        "0000" + caps + "0000",                                     // no service line
        head + caps + "fff0" + "x".repeat(100));                    // cut inside a long line
    for (String list : malformed) {
      assertThat(parse(list)).as(list).isEmpty();
    }
  }

  @Test
  void theLongestPktLineIsReadAsALine() {
    String name = "refs/heads/" + "n".repeat(0xfff0 - 4 - 41 - 12);
    String list = pkt("# service=git-upload-pack\n") + "0000"
        + pkt(A + " refs/heads/main\0" + CAPS + "\n") + pkt(B + " " + name + "\n") + "0000";

    assertThat(parse(list).orElseThrow()).containsEntry(name, ObjectId.fromString(B));
  }

  private static Optional<Map<String, ObjectId>> parse(String list) {
    try {
      return UpstreamRefList.parse(
          new ByteArrayInputStream(list.getBytes(StandardCharsets.UTF_8)));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  private static String pkt(String payload) {
    return String.format("%04x", payload.getBytes(StandardCharsets.UTF_8).length + 4) + payload;
  }
}
