package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * An approver connected to {@code GET /v1/approvals/stream} with curl over the control socket,
 * as a script would: the appliance counts it as connected once {@link #connect} returns, and it
 * answers nothing by itself.
 */
final class ApprovalStream implements AutoCloseable {
  private final Process curl;
  private final BufferedReader events;

  private ApprovalStream(Process curl) {
    this.curl = curl;
    this.events = new BufferedReader(
        new InputStreamReader(curl.getInputStream(), StandardCharsets.UTF_8));
  }

  /** Connects to the appliance of {@code dataDir} and waits for the stream's first line. */
  static ApprovalStream connect(Path dataDir) throws IOException {
    ApprovalStream stream = new ApprovalStream(new ProcessBuilder("curl", "-sN",
        "--unix-socket", dataDir.resolve("control.sock").toString(),
        "http://localhost/v1/approvals/stream").redirectErrorStream(true).start());
    assertThat(stream.readLine()).isEqualTo(": connected");
    return stream;
  }

  /** The stream's next line; null once the appliance has closed it. */
  String readLine() throws IOException {
    return events.readLine();
  }

  @Override
  public void close() {
    curl.destroy();
  }
}
