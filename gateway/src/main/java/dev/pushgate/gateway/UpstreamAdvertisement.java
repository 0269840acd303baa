package dev.pushgate.gateway;

import java.io.IOException;
import java.util.Map;
import java.util.TreeMap;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectIdRef;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.transport.AdvertiseRefsHook;
import org.eclipse.jgit.transport.ReceivePack;
import org.eclipse.jgit.transport.UploadPack;

/**
 * Advertises upstream's branches and tags as just listed, instead of the cache's, while the cache
 * still fetches their objects ({@link UpstreamCache#syncAhead}). Only ids are advertised, so the
 * objects need not be in the cache yet; the push that follows waits for them.
 */
final class UpstreamAdvertisement implements AdvertiseRefsHook {
  private final Map<String, Ref> refs = new TreeMap<>();

  UpstreamAdvertisement(Map<String, ObjectId> listed) {
    listed.forEach((name, id) ->
        refs.put(name, new ObjectIdRef.Unpeeled(Ref.Storage.NETWORK, name, id)));
  }

  @Override
  public void advertiseRefs(ReceivePack rp) throws IOException {
    // The receive-pack's ref filter still applies; no other haves than these refs.
    rp.setAdvertisedRefs(new TreeMap<>(refs), null);
  }

  @Override
  public void advertiseRefs(UploadPack up) {
    throw new UnsupportedOperationException("the push gateway serves no fetches");
  }
}
