package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A fetch request the stream cannot read is not the stream's to answer: it is handed to JGit,
 * which answers it in git's ERR line ({@code GatewayFetchTest}), never a 500 from the filter.
 * The stream reads the request only while the cache's fetch is in flight, so the end-to-end
 * test meets this path only sometimes; here it is met every time.
 */
class StreamedFetchRequestTest {

  @ParameterizedTest
  @ValueSource(strings = {"00zzwant x\n0000", "0032want 0123\n0000", "000", "ffff",
      "0009done\n00",
      "0032want 00000000000000000000000000000000000000zz\n0000"})
  void aMalformedV0RequestIsNotTheStreams(String body) throws Exception {
    assertThat(StreamedFetch.parse(bytes(body), false)).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"0014command=ls-refs\n0001000csymrefs000bpeel0000",
      "0012command=fetch\n0001zzzz", "0012command=fetch\n0001000cwant x\n0000", "0004", "zz"})
  void aMalformedV2RequestIsNotTheStreams(String body) throws Exception {
    assertThat(StreamedFetch.parse(bytes(body), true)).isEmpty();
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
