package dev.pushgate.testkit;

import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.List;

/** Which of a test's sockets the server has closed, read without waiting on any one of them. */
public final class ClosedByPeer {
  private ClosedByPeer() {}

  /**
   * How many of {@code sockets} read the end of their input now (each waited on for a
   * millisecond at most; one with bytes to read counts as open). Changes each socket's read
   * timeout.
   */
  public static int count(List<Socket> sockets) throws IOException {
    int closed = 0;
    for (Socket s : sockets) {
      s.setSoTimeout(1);
      try {
        if (s.getInputStream().read() < 0) {
          closed++;
        }
      } catch (SocketTimeoutException open) {
        // nothing to read yet: still open
      } catch (IOException reset) {
        closed++;
      }
    }
    return closed;
  }
}
