package dev.pushgate.bench;

import dev.pushgate.testkit.GitRun;
import java.util.List;

/** Per-push times taken from the wire by the timing proxy. */
record PushPhases(double total, double authRetry, double refs, double upload, double afterPack) {

  static PushPhases of(GitRun.Result r, List<TimingProxy.Exchange> ex) {
    double auth = 0;
    double refs = Double.NaN;
    TimingProxy.Exchange post = null;
    for (TimingProxy.Exchange e : ex) {
      if (e.path.contains("/info/refs") && e.status == 401) {
        auth += (e.responseLastByte - e.requestStart) / 1e6;
      } else if (e.path.contains("/info/refs") && e.status == 200) {
        refs = e.serverMillis();
      } else if (e.path.endsWith("/git-receive-pack") && e.method.equals("POST")) {
        post = e; // the last one: a large push probes first
      }
    }
    return new PushPhases(r.millis(), auth, refs, post == null ? Double.NaN : post.uploadMillis(),
        post == null ? Double.NaN : post.serverMillis());
  }

  /** The median of {@code f} over {@code list}, formatted. */
  static String median(List<PushPhases> list,
      java.util.function.ToDoubleFunction<PushPhases> f) {
    return Stats.fmt(Stats.of(list.stream().map(p -> f.applyAsDouble(p)).toList()).median(), 0);
  }
}
