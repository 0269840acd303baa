package dev.pushgate.http;

import java.nio.ByteBuffer;
import org.eclipse.jetty.io.AbstractConnection;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Connector;

/**
 * A refused connection: closed as soon as it opens, nothing read from it, nothing written. It
 * may stand where a PROXY header reader upgrades to the next protocol; bytes that came with the
 * header are dropped unread.
 */
public final class ClosedAtOnce extends AbstractConnection implements Connection.UpgradeTo {
  public ClosedAtOnce(EndPoint endPoint, Connector connector) {
    super(endPoint, connector.getExecutor());
  }

  @Override
  public void onOpen() {
    super.onOpen();
    getEndPoint().close();
  }

  @Override
  public void onUpgradeTo(ByteBuffer unread) {
    // never read
  }

  @Override
  public void onFillable() {
    getEndPoint().close();
  }
}
