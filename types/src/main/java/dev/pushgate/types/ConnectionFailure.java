package dev.pushgate.types;

import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import javax.net.ssl.SSLException;

/**
 * Why a connection to a host failed, in fixed words for a person or an agent to read: never the
 * exception's message, which may quote a URL, a credential in it, or the far end's answer
 * (OkHttp's "unexpected end of stream on https://…").
 */
public final class ConnectionFailure {
  private ConnectionFailure() {}

  public static String describe(Throwable failure) {
    if (failure instanceof UnknownHostException) {
      return "the host name does not resolve";
    }
    if (failure instanceof ConnectException) {
      return "the connection was refused";
    }
    if (failure instanceof InterruptedIOException) { // a socket's timeout among them
      return "no answer in time";
    }
    if (failure instanceof SSLException) {
      return "the TLS handshake failed";
    }
    return "the connection failed";
  }
}
