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

/** The ref list the sync reads before every push ({@code ls-refs}), well formed or not. */
class UpstreamRefListTest {
  private static final String A = "1111111111111111111111111111111111111111";
  private static final String B = "2222222222222222222222222222222222222222";
  private static final String C = "3333333333333333333333333333333333333333";

  @Test
  void readsBranchesAndTagsAsGitListsThem() throws Exception {
    String list = pkt(A + " HEAD symref-target:refs/heads/main\n")
        + pkt(A + " refs/heads/main\n")
        + pkt(B + " refs/heads/feature/x\n")
        + pkt(A + " refs/pull/7/head\n")
        + pkt(C + " refs/tags/v1 peeled:" + A + "\n")
        + "0000";

    UpstreamRefList.Listing listing = parse(list).orElseThrow();
    assertThat(listing.refs()).isEqualTo(Map.of("refs/heads/main", ObjectId.fromString(A),
        "refs/heads/feature/x", ObjectId.fromString(B), "refs/tags/v1", ObjectId.fromString(C)));
    assertThat(listing.head()).isEqualTo("refs/heads/main");
    assertThat(listing.peeled()).isEqualTo(Map.of("refs/tags/v1", ObjectId.fromString(A)));
    assertThat(listing.symrefs()).isEmpty();
  }

  @Test
  void namesEverySymbolicBranchAndTagWithTheRefGitResolvesItTo() throws Exception {
    String list = pkt(A + " HEAD symref-target:refs/heads/main\n")
        + pkt(A + " refs/heads/alias symref-target:refs/heads/main\n")
        + pkt(A + " refs/heads/main\n")
        + pkt(C + " refs/tags/latest symref-target:refs/tags/v1 peeled:" + A + "\n")
        + pkt(C + " refs/tags/v1 peeled:" + A + "\n")
        + "0000";

    UpstreamRefList.Listing listing = parse(list).orElseThrow();
    assertThat(listing.symrefs()).isEqualTo(Map.of("refs/heads/alias", "refs/heads/main",
        "refs/tags/latest", "refs/tags/v1"));
    assertThat(listing.refs()).containsEntry("refs/heads/alias", ObjectId.fromString(A));
  }

  @Test
  void anEmptyRepositoryListsNoRef() throws Exception {
    assertThat(parse("0000").orElseThrow().refs()).isEmpty();
  }

  @Test
  void aFetchsRequestAsksForPeeledTagsAPushsForNoneEachForSymrefsHeadBranchesAndTags() {
    String fetch = new String(UpstreamRefList.LS_REFS_PEELED, StandardCharsets.UTF_8);
    String push = new String(UpstreamRefList.LS_REFS, StandardCharsets.UTF_8);

    assertThat(fetch).contains("00010009peel\n000csymrefs\n");
    assertThat(push).doesNotContain("peel").contains("0001000csymrefs\n");
    for (String request : List.of(fetch, push)) {
      assertThat(request).startsWith("0014command=ls-refs\n").contains("0014ref-prefix HEAD\n")
          .contains("001bref-prefix refs/heads/\n").endsWith("001aref-prefix refs/tags/\n0000");
    }
  }

  @Test
  void anythingMalformedIsNotAListSoTheSyncFetches() {
    String main = pkt(A + " refs/heads/main\n");
    List<String> malformed = List.of(
        "",                                                          // nothing
        main,                                                        // cut before the flush
        pkt("xyz refs/heads/main\n") + "0000",                       // not an id
        pkt(A + "  refs/heads/main\n") + "0000",                     // two spaces
        pkt(A + "\n") + "0000",                                      // no name
        main + pkt(B + " refs/heads/main\n") + "0000",               // the same ref twice
        pkt(A + " refs/heads/a unborn\n") + "0000",                  // an unknown attribute
        pkt(A + " refs/heads/a symref-target:\n") + "0000",          // an empty target
        pkt(A + " refs/heads/a symref-target:x symref-target:y\n") + "0000", // two targets
        pkt(A + " refs/tags/a peeled:" + B + " peeled:" + C + "\n") + "0000", // peeled twice
        pkt(A + " refs/tags/a peeled:xyz\n") + "0000",               // peeled to no id
        pkt(A + " refs/heads/a\0b\n") + "0000",                      // a NUL in the name
        "0001" + main + "0000",                                      // a delimiter
        main + "0004" + "0000",                                      // an empty line
        "00zz",                                                      // not a length
        "0003",                                                      // reserved length
        "0040" + A,                                                  // cut inside a line
        main + "fff0" + "x".repeat(100));                            // cut inside a long line
    for (String list : malformed) {
      assertThat(parse(list)).as(list).isEmpty();
    }
  }

  @Test
  void theLongestPktLineIsReadAsALine() {
    String name = "refs/heads/" + "n".repeat(0xfff0 - 4 - 41 - 12);
    String list = pkt(A + " refs/heads/main\n") + pkt(B + " " + name + "\n") + "0000";

    assertThat(parse(list).orElseThrow().refs()).containsEntry(name, ObjectId.fromString(B));
  }

  private static Optional<UpstreamRefList.Listing> parse(String list) {
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
