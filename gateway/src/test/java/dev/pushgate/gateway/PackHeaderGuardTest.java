package dev.pushgate.gateway;

import static dev.pushgate.gateway.WireBytes.ascii;
import static dev.pushgate.gateway.WireBytes.concat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import jakarta.servlet.http.HttpServletRequest;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import org.eclipse.jgit.transport.PacketLineIn;
import org.eclipse.jgit.transport.PacketLineOut;
import org.eclipse.jgit.transport.ServiceMayNotContinueException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The command list read in front of JGit: what is read is replayed to JGit byte for byte, the
 * commands are those JGit's reader sees, and a request that is cut, too long or declares too large
 * a pack is refused with a reason.
 */
class PackHeaderGuardTest {
  private static final String A = "a".repeat(40);
  private static final String B = "b".repeat(40);
  private static final String FIRST = A + " " + B + " refs/heads/main\0report-status\n";
  private static final String SECOND = A + " " + B + " refs/heads/other\n";
  /** A pack header declaring two objects, and a few bytes of what would follow. */
  private static final byte[] PACK = {'P', 'A', 'C', 'K', 0, 0, 0, 2, 0, 0, 0, 2, 1, 2, 3};

  @Test
  void theCommandsAreReadAndTheBodyIsReplayedWhole() throws IOException {
    byte[] body = concat(pkts(FIRST, SECOND, null, "an option\n", null), PACK);

    PackHeaderGuard.Guarded g = PackHeaderGuard.check(request(body), 100);

    assertThat(g.commands()).containsExactly(FIRST, SECOND);
    assertThat(g.request().getInputStream().readAllBytes()).isEqualTo(body);
  }

  /** JGit's servlet inflates {@code x-gzip} too: the commands judged are those it would run. */
  @ParameterizedTest
  @ValueSource(strings = {"gzip", "x-gzip", " X-GZIP "})
  void aGzippedBodyIsReadAndHandedOnDecompressedAsJGitReadsIt(String encoding)
      throws IOException {
    byte[] body = concat(pkts(FIRST, null), PACK);

    PackHeaderGuard.Guarded g = PackHeaderGuard.check(request(gzipped(body), encoding), 100);

    assertThat(g.commands()).containsExactly(FIRST);
    assertThat(g.request().getHeader("Content-Encoding")).isNull();
    assertThat(g.request().getInputStream().readAllBytes()).isEqualTo(body);
  }

  /** A body in an encoding nothing here reads is refused, not judged as if it were plain. */
  @Test
  void aBodyInAnotherEncodingIsRefusedWithWhatTheGatewayTakes() {
    byte[] body = concat(pkts(FIRST, null), PACK);

    assertThatThrownBy(() -> PackHeaderGuard.check(request(body, "deflate"), 100))
        .isInstanceOfSatisfying(ServiceMayNotContinueException.class,
            e -> assertThat(e.getStatusCode()).isEqualTo(415))
        .hasMessage("Control Center policy: the gateway takes a push request plain or"
            + " gzip-compressed only");
  }

  @Test
  void aPushOfDeletesOnlyEndsAtItsFlush() throws IOException {
    byte[] body = pkts(A + " " + "0".repeat(40) + " refs/heads/gone\0report-status\n", null);

    PackHeaderGuard.Guarded g = PackHeaderGuard.check(request(body), 100);

    assertThat(g.commands()).hasSize(1);
    assertThat(g.request().getInputStream().readAllBytes()).isEqualTo(body);
  }

  @Test
  void whatIsNotAPktLineIsLeftToJGitWhichRefusesItInItsOwnWords() throws IOException {
    for (String bad : List.of("zzzz", "+01a", "-001", "0002", "0003", " 010")) {
      byte[] body = concat(pkts(FIRST), ascii(bad + "rest of the body"));

      PackHeaderGuard.Guarded g = PackHeaderGuard.check(request(body), 100);

      assertThat(g.commands()).as(bad).containsExactly(FIRST);
      byte[] replayed = g.request().getInputStream().readAllBytes();
      assertThat(replayed).as(bad).isEqualTo(body);
      PacketLineIn jgit = new PacketLineIn(new ByteArrayInputStream(replayed));
      assertThat(jgit.readStringRaw()).isEqualTo(FIRST);
      assertThatThrownBy(jgit::readString).as(bad).isInstanceOf(IOException.class)
          .hasMessage("Invalid packet line header: " + bad);
    }
  }

  @Test
  void delimitersAndEmptyLinesAreNoCommands() throws IOException {
    byte[] body = concat(pkts(FIRST), ascii("00010004"), pkts(SECOND, null), PACK);

    PackHeaderGuard.Guarded g = PackHeaderGuard.check(request(body), 100);

    assertThat(g.commands()).containsExactly(FIRST, SECOND);
    assertThat(g.request().getInputStream().readAllBytes()).isEqualTo(body);
  }

  @Test
  void aNulOutsideTheFirstCommandIsHandedOnAsSentForTheCommandParserToJudge()
      throws IOException {
    String late = A + " " + B + " refs/heads/x\0late capabilities\n";
    byte[] body = concat(pkts(FIRST, late, null), PACK);

    PackHeaderGuard.Guarded g = PackHeaderGuard.check(request(body), 100);

    assertThat(g.commands()).containsExactly(FIRST, late);
    assertThat(g.request().getInputStream().readAllBytes()).isEqualTo(body);
  }

  @Test
  void theCommandsAreThoseJGitsReaderSeesEvenWhenTheyAreNotUtf8() throws IOException {
    byte[] line = concat(ascii(A + " " + B + " refs/heads/"), new byte[] {(byte) 0xe9, 'x'},
        ascii("\0report-status\n"));
    byte[] body = concat(ascii(String.format("%04x", line.length + 4)), line, ascii("0000"));

    PackHeaderGuard.Guarded g = PackHeaderGuard.check(request(body), 100);

    String jgit = new PacketLineIn(new ByteArrayInputStream(body)).readStringRaw();
    assertThat(g.commands()).containsExactly(jgit);
  }

  @Test
  void aRequestCutShortIsRefusedWithWhereItWasCut() {
    assertRefused(new byte[0], "the request holds no command");
    assertRefused(ascii("00"), "the request ends inside a pkt-line length");
    assertRefused(concat(pkts(FIRST), ascii("003")), "the request ends inside a pkt-line length");
    assertRefused(ascii("ffffabc"), "the request ends inside a pkt-line of 65535 bytes");
    assertRefused(ascii("00300000000 abc"), "the request ends inside a pkt-line of 48 bytes");
  }

  @Test
  void aCommandListLongerThanJGitReadsIsRefusedBeforeThePack() {
    List<String> lines = new ArrayList<>();
    for (int i = 0; lines.size() * 80 < PackHeaderGuard.MAX_COMMAND_BYTES + 80; i++) {
      lines.add(A + " " + B + " refs/heads/r" + i + "\n");
    }
    byte[] body = concat(pkts(lines.toArray(String[]::new)), pkts((String) null), PACK);

    assertThatThrownBy(() -> PackHeaderGuard.check(request(body), 100))
        .isInstanceOf(PackHeaderGuard.Refused.class)
        .hasMessageStartingWith("the push's command list exceeds 3,145,728 bytes (")
        .hasMessageEndingWith(" refs and more); push fewer refs at a time");
  }

  @Test
  void endlessDelimitersAreBoundedLikeCommands() {
    // A delimiter carries no payload, so JGit's own byte limit would never count it.
    byte[] body = ascii("0001".repeat(PackHeaderGuard.MAX_COMMAND_BYTES / 4 + 2));

    assertThatThrownBy(() -> PackHeaderGuard.check(request(body), 100))
        .isInstanceOf(PackHeaderGuard.Refused.class)
        .hasMessageStartingWith("the push's command list exceeds");
  }

  @Test
  void aPackDeclaringMoreObjectsThanAllowedIsRefused() {
    byte[] pack = PACK.clone();
    pack[8] = (byte) 0xff;

    assertThatThrownBy(() -> PackHeaderGuard.check(request(concat(pkts(FIRST, null), pack)), 100))
        .isInstanceOf(PackHeaderGuard.Refused.class)
        .hasMessage("the pack declares 4278190082 objects, more than a push may hold (100)");
  }

  private static void assertRefused(byte[] body, String reason) {
    assertThatThrownBy(() -> PackHeaderGuard.check(request(body), 100))
        .isInstanceOf(PackHeaderGuard.Refused.class).hasMessage(reason);
  }

  /** The pkt-lines of {@code lines} as JGit writes them; null for a flush. */
  private static byte[] pkts(String... lines) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PacketLineOut pkt = new PacketLineOut(out);
    try {
      for (String line : lines) {
        if (line == null) {
          pkt.end();
        } else {
          pkt.writeString(line);
        }
      }
    } catch (IOException e) {
      throw new AssertionError(e);
    }
    return out.toByteArray();
  }

  private static byte[] gzipped(byte[] body) throws IOException {
    ByteArrayOutputStream gz = new ByteArrayOutputStream();
    try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
      out.write(body);
    }
    return gz.toByteArray();
  }

  private static HttpServletRequest request(byte[] body) {
    return request(body, null);
  }

  private static HttpServletRequest request(byte[] body, String contentEncoding) {
    InputStream in = new ByteArrayInputStream(body);
    return (HttpServletRequest) Proxy.newProxyInstance(
        PackHeaderGuardTest.class.getClassLoader(), new Class<?>[] {HttpServletRequest.class},
        (proxy, method, args) -> switch (method.getName()) {
          case "getHeader" -> "Content-Encoding".equalsIgnoreCase((String) args[0])
              ? contentEncoding : null;
          case "getInputStream" -> HandedOn.blocking(in);
          case "hashCode" -> System.identityHashCode(proxy);
          case "equals" -> proxy == args[0];
          case "toString" -> "request";
          default -> throw new UnsupportedOperationException(method.getName());
        });
  }
}
