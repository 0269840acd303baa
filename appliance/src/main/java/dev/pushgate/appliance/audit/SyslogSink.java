package dev.pushgate.appliance.audit;

import dev.pushgate.appliance.store.AuditSink;
import dev.pushgate.appliance.store.ChainedRecord;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends each record to syslog as an RFC 5424 message over UDP (RFC 5426): facility 13 (log
 * audit), severity 6, the host id as HOSTNAME, the record type as MSGID, the JSON line as MSG.
 * UDP because the JDK has no datagram socket for {@code /dev/log}; a local syslog daemon listens
 * on 127.0.0.1:514 once its UDP input is enabled. Best effort: UDP confirms nothing, so a send
 * that fails is logged and never refuses anything (the file sink is the one that fails closed).
 */
public final class SyslogSink implements AuditSink {
  /** The largest message sent; a longer one (a very long command) is cut. */
  static final int MAX_MESSAGE = 60_000;
  private static final int PRI = 13 * 8 + 6;
  private static final byte[] BOM = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};
  private static final Logger log = LoggerFactory.getLogger(SyslogSink.class);

  private final InetSocketAddress target;
  private final String hostname;
  private final String procId = String.valueOf(ProcessHandle.current().pid());
  private final DatagramSocket socket;

  public SyslogSink(InetSocketAddress target, String hostname) throws IOException {
    this.target = target;
    this.hostname = hostname;
    this.socket = new DatagramSocket();
  }

  /** {@code HOST:PORT}, {@code [V6]:PORT}, or {@code HOST} for port 514. */
  public static InetSocketAddress parse(String hostPort) {
    String host = hostPort.strip();
    int port = 514;
    int colon = host.lastIndexOf(':');
    if (colon > 0 && (host.startsWith("[") ? host.charAt(colon - 1) == ']' : host.indexOf(':') == colon)) {
      try {
        port = Integer.parseInt(host.substring(colon + 1));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("--audit-syslog takes HOST:PORT, not: " + hostPort);
      }
      host = host.substring(0, colon);
    }
    host = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    if (host.isEmpty() || port < 1 || port > 65535) {
      throw new IllegalArgumentException("--audit-syslog takes HOST:PORT, not: " + hostPort);
    }
    return new InetSocketAddress(host, port);
  }

  @Override
  public void write(List<ChainedRecord> records) {
    for (ChainedRecord r : records) {
      byte[] m = message(r);
      try {
        socket.send(new DatagramPacket(m, m.length, target));
      } catch (IOException e) {
        log.warn("audit record {} not sent to syslog at {}: {}", r.id(), target, e.getMessage());
      }
    }
  }

  byte[] message(ChainedRecord r) {
    String header = "<" + PRI + ">1 " + DateTimeFormatter.ISO_INSTANT.format(r.entry().at())
        + " " + hostname + " pushgate " + procId + " " + r.entry().type().id() + " - ";
    byte[] head = header.getBytes(StandardCharsets.US_ASCII);
    byte[] body = AuditRecordJson.of(r).toString().getBytes(StandardCharsets.UTF_8);
    int bodyLength = Math.min(body.length, MAX_MESSAGE - head.length - BOM.length);
    byte[] out = Arrays.copyOf(head, head.length + BOM.length + bodyLength);
    System.arraycopy(BOM, 0, out, head.length, BOM.length);
    System.arraycopy(body, 0, out, head.length + BOM.length, bodyLength);
    return out;
  }

  @Override
  public void close() {
    socket.close();
  }

  @Override
  public String toString() {
    return "syslog udp://" + target.getHostString() + ":" + target.getPort();
  }
}
