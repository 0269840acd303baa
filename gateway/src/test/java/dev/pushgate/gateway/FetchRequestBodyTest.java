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
  private static final String A = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
  private static final String B = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

  @Test
  void keepsOnlyTheHavesItIsToldToAndEveryOtherLineByteForByte() throws Exception {
    String body = pkt("command=fetch\n") + "0001" + pkt("want " + A + "\n")
        + pkt("have " + A + "\n") + pkt("have " + B.toUpperCase() + "\n") + pkt("done\n") + "0000";
    FetchRequestBody read = FetchRequestBody.read(bytes(body), true);

    assertThat(read.fetches()).isTrue();
    assertThat(read.haves()).containsExactly(ObjectId.fromString(A), ObjectId.fromString(B));
    assertThat(new String(read.handedOn(Set.of(ObjectId.fromString(A))),
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

  @Test
  void readsWhatAV0RequestAsksForOnceLinesWithoutLfAsWithOne() throws Exception {
    FetchRequestBody read = FetchRequestBody.read(bytes(pkt("want " + A + " ofs-delta agent=x")
        + pkt("want " + B + "\n") + pkt("deepen 1")
        + "0000" + pkt("have " + B) + pkt("done")), false);

    assertThat(read.wants()).containsExactly(ObjectId.fromString(A), ObjectId.fromString(B));
    assertThat(read.capabilities()).containsExactly("ofs-delta", "agent=x");
    assertThat(read.arguments()).containsExactly("deepen 1");
    assertThat(read.haves()).containsExactly(ObjectId.fromString(B));
    assertThat(read.done()).isTrue();
  }

  @Test
  void readsWhatAV2RequestAsksForAnUnknownArgumentAmongItsArguments() throws Exception {
    FetchRequestBody read = FetchRequestBody.read(bytes(pkt("command=fetch\n")
        + pkt("object-format=sha1\n") + "0001" + pkt("want " + A)
        + pkt("an-argument-unknown\n") + pkt("ofs-delta\n") + pkt("have " + B + "\n")
        + "0000"), true);

    assertThat(read.v2()).isTrue();
    assertThat(read.wants()).containsExactly(ObjectId.fromString(A));
    assertThat(read.capabilities()).containsExactly("object-format=sha1");
    assertThat(read.arguments()).containsExactly("an-argument-unknown", "ofs-delta");
    assertThat(read.haves()).containsExactly(ObjectId.fromString(B));
    assertThat(read.done()).isFalse();
  }

  /**
   * A have where JGit reads none (so it is not judged as one), a line past the request's end, a
   * delim in v0, a fetch without the delim before its arguments: git sends none of them.
   */
  @ParameterizedTest
  @ValueSource(strings = {
      "0|want " + A + "|have " + B + "|#|done",
      "0|want " + A + "|#|done|have " + B + "|#",
      "0|want " + A + "|#|done|#|want " + B + "|#",
      "0|want " + A + "|@|#|done",
      "0|want " + A + "|#|@|done",
      "2|command=fetch|have " + B + "|@|want " + A + "|#",
      "2|command=fetch|@|want " + A + "|#|have " + B + "|#",
      "2|command=fetch|@|want " + A + "|@|done|#",
      "2|command=fetch|want " + A + "|#",
      // JGit: bytes after done, a line after the round's flush, numbers and ids it cannot read
      "0|want " + A + "|#|done|#",
      "0|want " + A + "|#|have " + B + "|#|#",
      "0|want " + A + "|#|have " + B + "|#|have " + A + "|done",
      "2|command=fetch|@|want " + A + "|deepen-since abc|done|#",
      "2|command=fetch|@|want " + A + "|deepen 99999999999|#",
      "0|want " + A + "|deepen x|#|done",
      "2|command=fetch|@|want " + A + "|shallow " + B + "b|#",
      "0|want " + A + "|shallow 0123|#|done",
      // a want that names no one object id: JGit fails on it with a stack trace (attack37)
      "0|want " + A + " ofs-delta|want 0123|#|done",
      "0|want " + A + " ofs-delta|want " + B + " ofs-delta|#|done",
      "0|want " + A + " ofs-delta|want zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz|#|done",
      "0|want " + A + "x|#|done",
      "2|command=fetch|@|ofs-delta|want zz|done|#",
      "2|command=fetch|@|ofs-delta|want " + A + " more|done|#"})
  void aLineWhereGitSendsNoneIsMalformed(String versionAndLines) {
    String[] parts = versionAndLines.split("\\|", 2);
    StringBuilder body = new StringBuilder();
    for (String line : parts[1].split("\\|")) {
      body.append(line.equals("#") ? "0000" : line.equals("@") ? "0001" : pkt(line + "\n"));
    }
    assertThatThrownBy(() -> FetchRequestBody.read(bytes(body.toString()), "2".equals(parts[0])))
        .isInstanceOf(FetchRequestBody.Malformed.class);
  }

  /**
   * One rule for every id JGit looks up: a have or shallow line naming one not reached is left
   * out (JGit ignores one the cache lacks), a deepen-not naming one refused (JGit fails on one);
   * a deepen-not naming a ref, and the lines after the wants' flush, are no ids JGit looks up.
   */
  @Test
  void everyIdJGitLooksUpIsJudgedByOneRule() throws Exception {
    String body = pkt("want " + A + " shallow deepen-not\n") + pkt("shallow " + A + "\n")
        + pkt("shallow " + B + "\n") + pkt("deepen-not refs/heads/main\n")
        + pkt("deepen-not " + A + "\n") + "0000" + pkt("have " + B + "\n") + pkt("done\n");
    FetchRequestBody read = FetchRequestBody.read(bytes(body), false);

    assertThat(read.named()).containsExactly(ObjectId.fromString(B), ObjectId.fromString(A),
        ObjectId.fromString(B), ObjectId.fromString(A));
    assertThat(new String(read.handedOn(Set.of(ObjectId.fromString(A))),
        StandardCharsets.US_ASCII)).isEqualTo(pkt("want " + A + " shallow deepen-not\n")
        + pkt("shallow " + A + "\n") + pkt("deepen-not refs/heads/main\n")
        + pkt("deepen-not " + A + "\n") + "0000" + pkt("done\n"));
    assertThatThrownBy(() -> read.handedOn(Set.of(ObjectId.fromString(B))))
        .isInstanceOf(FetchRequestBody.NotReached.class)
        .hasMessage("the fetch request's deepen-not names " + A + ", which is no commit this"
            + " repository's branches and tags reach");
  }

  @Test
  void deepenRelativeAndObjectInfoAreNotServed() throws Exception {
    assertThat(FetchRequestBody.read(bytes(pkt("command=fetch\n") + "0001"
        + pkt("want " + A + "\n") + pkt("deepen-relative\n") + pkt("deepen 1\n") + "0000"),
        true).unserved()).hasValueSatisfying(s -> assertThat(s).startsWith("deepen-relative"));
    assertThat(FetchRequestBody.read(bytes(pkt("want " + A + " deepen-relative\n")
        + pkt("deepen 1\n") + "0000" + pkt("done\n")), false).unserved()).isPresent();
    assertThat(FetchRequestBody.read(bytes(pkt("command=object-info\n") + "0001"
        + pkt("size\n") + pkt("oid " + A + "\n") + "0000"), true).unserved())
        .hasValue("the object-info command");
    assertThat(FetchRequestBody.read(bytes(pkt("command=fetch\n") + "0001"
        + pkt("want " + A + "\n") + pkt("deepen 1\n") + "0000"), true).unserved()).isEmpty();
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
