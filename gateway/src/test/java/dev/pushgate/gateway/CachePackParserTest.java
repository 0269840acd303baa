package dev.pushgate.gateway;

import static dev.pushgate.gateway.TestRepos.commit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.internal.storage.pack.PackWriter;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.NullProgressMonitor;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectChecker;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.RefUpdate;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.ObjectWalk;
import org.eclipse.jgit.revwalk.RevObject;
import org.eclipse.jgit.storage.pack.PackConfig;
import org.eclipse.jgit.transport.PackLock;
import org.eclipse.jgit.transport.PackParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cache's pack parser against packs JGit writes, whole, thin and broken: what it stores, and
 * what it hands to a streamed copy (never the trailer before the pack is whole and checked).
 */
class CachePackParserTest {
  @TempDir Path dir;

  /** A client's history: three commits, the later ones deltas of the first. */
  private Repository client;
  private RevCommit base;
  private RevCommit third;

  @Test
  void storesAPackAndHandsTheCopyEveryByteButTheTrailerThenTheTrailer() throws Exception {
    byte[] pack = clientPack(false);
    try (Repository cache = cache("c.git")) {
      Copy copy = new Copy();
      PackLock lock = parse(cache, new Trickle(pack, new Random(42)), copy);

      assertThat(copy.objects.toByteArray()).isEqualTo(Arrays.copyOf(pack, pack.length - 20));
      assertThat(copy.trailer).isEqualTo(Arrays.copyOfRange(pack, pack.length - 20, pack.length));
      assertThat(copy.endsSeen).isEqualTo(1);
      assertEveryObjectReadable(cache, third);
      CacheRepository c = (CacheRepository) cache;
      assertThat(c.unforced()).as("a push's pack and index, forced before a ref names them")
          .hasSize(2).allSatisfy(p -> assertThat(p).exists());
      CacheRepository.forceReceived(cache);
      assertThat(c.unforced()).isEmpty();
      assertThat(keepFiles(cache)).as("kept while the receive runs").hasSize(1);
      lock.unlock();
      assertThat(keepFiles(cache)).isEmpty();
      assertThat(incomingFiles(cache)).isEmpty();
    }
  }

  @Test
  void aThinPackIsCompletedFromTheCacheAndUpstreamGetsItAsSent() throws Exception {
    byte[] pack = clientPack(true);
    try (Repository cache = cache("c.git")) {
      commitsOf(base, cache);
      Copy copy = new Copy();
      parse(cache, new Trickle(pack, new Random(7)), copy).unlock();

      assertThat(copy.objects.toByteArray()).isEqualTo(Arrays.copyOf(pack, pack.length - 20));
      assertThat(copy.trailer).isEqualTo(Arrays.copyOfRange(pack, pack.length - 20, pack.length));
      // read back through a repository opened afresh: the completed pack and its index as stored
      try (FileRepository reopened = new FileRepository(cache.getDirectory())) {
        assertEveryObjectReadable(reopened, third);
        long received = org.eclipse.jgit.util.NB.decodeUInt32(pack, 8);
        long stored = reopened.getObjectDatabase().getPacks().stream()
            .mapToLong(p -> {
              try {
                return p.getIndex().getObjectCount();
              } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            }).sum();
        assertThat(stored).as("the base's pack of 4, the push's with the bases it lacked")
            .isGreaterThan(4 + received);
      }
      assertThat(incomingFiles(cache)).isEmpty();
    }
  }

  @Test
  void aThinPackIsNotCompletedWithABaseTheBranchesAndTagsDoNotReach() throws Exception {
    byte[] pack = clientPack(true);
    try (Repository cache = cache("c.git")) {
      commitsOf(base, cache); // held, as a refused push leaves it: no ref names it
      ThinPackBases.Rule branchesAndTags =
          (reader, ids) -> Reach.unreached(reader, Reach.branchesAndTags(cache), ids,
              ReachBound.none(), () -> { });

      assertThatThrownBy(() -> parse(cache, new ByteArrayInputStream(pack), new Copy(),
          branchesAndTags)).isInstanceOf(AbsentObjects.class).hasMessage(AbsentObjects.MESSAGE);
      assertThat(cache.getObjectDatabase().has(third)).as("not completed, not stored").isFalse();
      assertThat(incomingFiles(cache)).isEmpty();

      RefUpdate main = cache.updateRef("refs/heads/main");
      main.setNewObjectId(base);
      main.forceUpdate();
      parse(cache, new ByteArrayInputStream(pack), new Copy(), branchesAndTags).unlock();
      assertEveryObjectReadable(cache, third);
    }
  }

  @Test
  void bytesAfterTheTrailerFailTheParseAndTheTrailerIsNeverHanded() throws Exception {
    byte[] pack = clientPack(false);
    byte[] longer = Arrays.copyOf(pack, pack.length + 30);
    assertRefusedWithoutTrailer(longer, pack.length - 20);
  }

  @Test
  void aPackWithAWrongChecksumFailsTheParseAndTheTrailerIsNeverHanded() throws Exception {
    byte[] pack = clientPack(false);
    pack[pack.length - 1] ^= 1;
    assertRefusedWithoutTrailer(pack, pack.length - 20);
  }

  @Test
  void aPackCutShortFailsTheParseAndTheTrailerIsNeverHanded() throws Exception {
    byte[] pack = clientPack(false);
    assertRefusedWithoutTrailer(Arrays.copyOf(pack, pack.length - 1), pack.length - 20);
  }

  @Test
  void aPackReceivedOutsideAPushIsForcedBeforeItIsInPlace() throws Exception {
    byte[] pack = clientPack(false);
    try (Repository cache = cache("c.git"); ObjectInserter ins = cache.newObjectInserter()) {
      ins.newPackParser(new java.io.ByteArrayInputStream(pack)).parse(NullProgressMonitor.INSTANCE);
      ins.flush();

      assertEveryObjectReadable(cache, third);
      assertThat(((CacheRepository) cache).unforced()).isEmpty();
    }
  }

  @Test
  void theCachesOfTheGatewayAreCacheRepositories() throws Exception {
    try (Repository created = new FileRepository(dir.resolve("x.git").toFile())) {
      created.create(true);
    }
    try (Repository opened = CacheRepository.key(dir.resolve("x.git").toFile()).open(true);
        ObjectInserter ins = opened.newObjectInserter()) {
      assertThat(ins.newPackParser(InputStream.nullInputStream()))
          .isInstanceOf(CachePackParser.class);
    }
  }

  /**
   * Attack atk-push (high): one REF_DELTA that copies its whole base, a blob the cache has, makes
   * that blob again: the pack then held the blob twice, once as a delta on itself, and reading
   * it followed that chain without end, a copy of the blob held each time (a 60-byte push took
   * the appliance's heap). The parse fails: the receive ends before the hook, whose judgement
   * alone lets a streamed copy's trailer go.
   */
  @Test
  @org.junit.jupiter.api.Timeout(120)
  void aDeltaThatRebuildsItsOwnBaseFailsTheParse() throws Exception {
    clientPack(false);
    try (Repository cache = cache("c.git")) {
      commitsOf(base, cache);
      ObjectId blob;
      try (org.eclipse.jgit.treewalk.TreeWalk w =
          org.eclipse.jgit.treewalk.TreeWalk.forPath(client, "a.txt", base.getTree())) {
        blob = w.getObjectId(0);
      }
      int size = (int) client.open(blob).getSize();
      ByteArrayOutputStream delta = new ByteArrayOutputStream();
      for (int v : new int[] {size, size}) { // the base's size, the result's
        for (; v >= 0x80; v >>>= 7) {
          delta.write((v & 0x7f) | 0x80);
        }
        delta.write(v);
      }
      delta.write(0x80 | 0x10 | 0x20); // copy from offset 0, a two-byte length: all of it
      delta.write(size & 0xff);
      delta.write((size >>> 8) & 0xff);
      ByteArrayOutputStream pack = new ByteArrayOutputStream();
      pack.writeBytes(new byte[] {'P', 'A', 'C', 'K', 0, 0, 0, 2, 0, 0, 0, 1});
      int n = delta.size();
      pack.write((7 << 4) | (n & 15) | (n > 15 ? 0x80 : 0)); // OBJ_REF_DELTA
      for (n >>>= 4; n > 0; n >>>= 7) {
        pack.write((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
      }
      byte[] raw = new byte[20];
      blob.copyRawTo(raw, 0);
      pack.writeBytes(raw);
      java.util.zip.Deflater z = new java.util.zip.Deflater();
      z.setInput(delta.toByteArray());
      z.finish();
      byte[] deflated = new byte[256];
      pack.write(deflated, 0, z.deflate(deflated));
      z.end();
      pack.writeBytes(Constants.newMessageDigest().digest(pack.toByteArray()));

      Copy copy = new Copy();
      assertThatThrownBy(() -> parse(cache, new ByteArrayInputStream(pack.toByteArray()), copy))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("twice, once as a delta; git never sends one object twice");
    }
  }

  @Test
  void aSmallPushsPackIsHeldInMemoryAndWrittenToTheCacheOnlyWhenInstalled() throws Exception {
    byte[] pack = clientPack(false);
    long budget = ReceivedInMemory.BUDGET.left();
    try (Repository cache = cache("c.git")) {
      Copy copy = new Copy();
      ReceivingCache view = holding((CacheRepository) cache, copy);
      assertThat(parse(view, new Trickle(pack, new Random(5)))).as("no file, no .keep").isNull();

      assertThat(copy.trailer).isEqualTo(Arrays.copyOfRange(pack, pack.length - 20, pack.length));
      ReceivedInMemory held = view.held().orElseThrow();
      assertEveryObjectReadable(view, third);
      assertThat(cache.getObjectDatabase().has(third)).as("not in the cache yet").isFalse();
      assertThat(packFiles(cache)).isEmpty();
      assertThat(incomingFiles(cache)).isEmpty();
      assertThat(ReceivedInMemory.BUDGET.left()).isLessThan(budget);

      held.installInto((CacheRepository) cache);
      held.release();
      assertThat(ReceivedInMemory.BUDGET.left()).isEqualTo(budget);
      assertThat(packFiles(cache)).as("the pack and its index").hasSize(2);
      assertThat(incomingFiles(cache)).isEmpty();
      try (FileRepository reopened = new FileRepository(cache.getDirectory())) {
        assertEveryObjectReadable(reopened, third);
      }
    }
  }

  @Test
  void aThinPackHeldInMemoryIsReadWithItsBasesFromTheCacheAndStoredWhole() throws Exception {
    byte[] pack = clientPack(true);
    try (Repository cache = cache("c.git")) {
      commitsOf(base, cache);
      ReceivingCache view = holding((CacheRepository) cache, new Copy());
      assertThat(parse(view, new ByteArrayInputStream(pack))).isNull();
      assertEveryObjectReadable(view, third);

      ReceivedInMemory held = view.held().orElseThrow();
      held.installInto((CacheRepository) cache);
      held.release();
      try (FileRepository reopened = new FileRepository(cache.getDirectory())) {
        assertEveryObjectReadable(reopened, third);
      }
    }
  }

  @Test
  void aPackTooLargeOrInflatingTooFarOrPastTheBudgetIsStoredAsBefore() throws Exception {
    clientPack(false);
    Random random = new Random(1);
    StringBuilder noise = new StringBuilder(); // 6 bits a character: a pack past the bound
    for (int i = 0; i < 2 * ReceivedInMemory.MAX_PACK_BYTES; i++) {
      noise.append((char) ('0' + random.nextInt(64)));
    }
    String zeros = "0".repeat((int) ReceivedInMemory.MAX_HELD_BYTES + 1); // deflates to KiBs
    assertStoredInAFile(Map.of("big.bin", noise.toString()), "the pack's bytes one push holds");
    assertStoredInAFile(Map.of("big.bin", zeros), "the inflated bytes one push holds");
    // Each object held costs the heap more than its bytes: a review's 87,000 four-byte blobs
    // in 1 MiB of pack took 15 MiB of heap, charged 1.3 MiB.
    Map<String, String> tiny = new java.util.HashMap<>();
    for (int i = 0; i < ReceivedInMemory.MAX_HELD_OBJECTS; i++) {
      tiny.put("f" + i, Integer.toString(i));
    }
    assertStoredInAFile(tiny, "the objects one push may hold");
    long left = ReceivedInMemory.BUDGET.left();
    assertThat(ReceivedInMemory.BUDGET.take(left - 100)).isTrue();
    try {
      assertStoredInAFile(Map.of("small.txt", "small\n"), "what all pushes hold at once");
    } finally {
      ReceivedInMemory.BUDGET.release(left - 100);
    }
    assertThat(ReceivedInMemory.BUDGET.left()).as("every byte given back").isEqualTo(left);
  }

  @Test
  void aBrokenPackHeldInMemoryGivesItsMemoryBackAndLeavesNothing() throws Exception {
    byte[] pack = clientPack(false);
    pack[pack.length - 1] ^= 1;
    long budget = ReceivedInMemory.BUDGET.left();
    try (Repository cache = cache("c.git")) {
      ReceivingCache view = holding((CacheRepository) cache, new Copy());
      assertThatThrownBy(() -> parse(view, new ByteArrayInputStream(pack)))
          .isInstanceOf(IOException.class);
      assertThat(view.held()).isEmpty();
      assertThat(ReceivedInMemory.BUDGET.left()).isEqualTo(budget);
      assertThat(incomingFiles(cache)).isEmpty();
      assertThat(packFiles(cache)).isEmpty();
    }
  }

  private void assertStoredInAFile(Map<String, String> files, String why) throws Exception {
    long budget = ReceivedInMemory.BUDGET.left();
    RevCommit big = commit(client, why + "\n", files, third);
    try (Repository cache = cache("c-" + why.replace(' ', '-') + ".git");
        PackWriter w = new PackWriter(new PackConfig(client), client.newObjectReader())) {
      w.preparePack(NullProgressMonitor.INSTANCE, Set.of(big), Set.of());
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      w.writePack(NullProgressMonitor.INSTANCE, NullProgressMonitor.INSTANCE, out);
      ReceivingCache view = holding((CacheRepository) cache, new Copy());
      PackLock lock = parse(view, new ByteArrayInputStream(out.toByteArray()));
      assertThat(view.held()).as(why).isEmpty();
      assertThat(cache.getObjectDatabase().has(big)).as(why).isTrue();
      lock.unlock();
    }
    assertThat(ReceivedInMemory.BUDGET.left()).as(why).isEqualTo(budget);
  }

  /** A push's view of {@code cache} that holds a small pack in memory, as the gateway's does. */
  private static ReceivingCache holding(CacheRepository cache, PackCopy copy) {
    return new ReceivingCache(cache, copy, Runnable::run, ThinPackBases.Rule.ANY, true);
  }

  private static List<Path> packFiles(Repository db) throws IOException {
    try (Stream<Path> s = Files.list(db.getDirectory().toPath().resolve("objects/pack"))) {
      return s.toList();
    } catch (java.nio.file.NoSuchFileException e) {
      return List.of();
    }
  }

  private void assertRefusedWithoutTrailer(byte[] sent, int objectBytes) throws Exception {
    try (Repository cache = cache("c.git")) {
      Copy copy = new Copy();
      assertThatThrownBy(() -> parse(cache, new Trickle(sent, new Random(3)), copy))
          .isInstanceOf(IOException.class);
      assertThat(copy.trailer).isNull();
      assertThat(copy.objects.size()).isLessThanOrEqualTo(objectBytes);
      assertThat(incomingFiles(cache)).isEmpty();
      assertThat(cache.getObjectDatabase().has(third)).isFalse();
    }
  }

  /** Parsed as the gateway's receive-pack parses a push over HTTP. */
  private static PackLock parse(Repository cache, InputStream in, PackCopy copy)
      throws IOException {
    return parse(cache, in, copy, ThinPackBases.Rule.ANY);
  }

  private static PackLock parse(Repository cache, InputStream in, PackCopy copy,
      ThinPackBases.Rule bases) throws IOException {
    return parse(new ReceivingCache((CacheRepository) cache, copy, Runnable::run, bases), in);
  }

  private static PackLock parse(ReceivingCache view, InputStream in) throws IOException {
    try (ObjectInserter ins = view.newObjectInserter()) {
      PackParser parser = ins.newPackParser(in);
      parser.setAllowThin(true);
      parser.setNeedNewObjectIds(true);
      parser.setNeedBaseObjectIds(true);
      parser.setCheckEofAfterPackFooter(true);
      parser.setObjectChecker(new ObjectChecker());
      parser.setLockMessage("receiving");
      PackLock lock = parser.parse(NullProgressMonitor.INSTANCE);
      ins.flush();
      return lock;
    }
  }

  private Repository cache(String name) throws IOException {
    Path gitDir = dir.resolve(name);
    try (Repository created = new FileRepository(gitDir.toFile())) {
      created.create(true);
    }
    return CacheRepository.key(gitDir.toFile()).open(true);
  }

  /** The client's pack of its three commits; thin: on top of the first, which it leaves out. */
  private byte[] clientPack(boolean thin) throws Exception {
    client = TestRepos.bare(dir.resolve("client.git"));
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < 400; i++) {
      text.append("line ").append(i).append(" of a file that deltas well\n");
    }
    base = commit(client, "base\n", Map.of("a.txt", text.toString(), "b.txt", "b\n"));
    RevCommit second = commit(client, "second\n", Map.of("a.txt", text + "one more\n"), base);
    third = commit(client, "third\n", Map.of("a.txt", text + "two more\n", "c", "c"), second);
    try (PackWriter w = new PackWriter(new PackConfig(client), client.newObjectReader())) {
      w.setThin(thin);
      w.setDeltaBaseAsOffset(true);
      w.preparePack(NullProgressMonitor.INSTANCE, Set.of(third), thin ? Set.of(base) : Set.of());
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      w.writePack(NullProgressMonitor.INSTANCE, NullProgressMonitor.INSTANCE, out);
      if (thin) {
        assertThat(w.getObjectCount()).as("the pack leaves the base out").isLessThan(11);
      }
      return out.toByteArray();
    }
  }

  /** Copies the objects of {@code tip} from the client into {@code cache}, as a fetch would. */
  private void commitsOf(RevCommit tip, Repository cache) throws Exception {
    try (PackWriter w = new PackWriter(new PackConfig(client), client.newObjectReader())) {
      w.preparePack(NullProgressMonitor.INSTANCE, Set.of(tip), Set.of());
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      w.writePack(NullProgressMonitor.INSTANCE, NullProgressMonitor.INSTANCE, out);
      try (ObjectInserter ins = cache.newObjectInserter()) {
        ins.newPackParser(new java.io.ByteArrayInputStream(out.toByteArray()))
            .parse(NullProgressMonitor.INSTANCE);
        ins.flush();
      }
    }
  }

  private static void assertEveryObjectReadable(Repository db, RevCommit tip) throws Exception {
    int objects = 0;
    try (ObjectWalk walk = new ObjectWalk(db)) {
      walk.markStart(walk.parseCommit(tip));
      while (walk.next() != null) {
        objects++;
      }
      for (RevObject o; (o = walk.nextObject()) != null; ) {
        db.open(o).getBytes();
        objects++;
      }
    }
    assertThat(objects).as("3 commits, 3 trees, 5 blobs").isEqualTo(11);
  }

  private static List<Path> keepFiles(Repository db) throws IOException {
    try (Stream<Path> s = Files.list(db.getDirectory().toPath().resolve("objects/pack"))) {
      return s.filter(p -> p.toString().endsWith(".keep")).toList();
    }
  }

  private static List<Path> incomingFiles(Repository db) throws IOException {
    try (Stream<Path> s = Files.list(db.getDirectory().toPath().resolve("objects"))) {
      return s.filter(p -> p.getFileName().toString().startsWith("incoming_")).toList();
    }
  }

  /** What the parser handed over. */
  private static final class Copy implements PackCopy {
    final ByteArrayOutputStream objects = new ByteArrayOutputStream();
    byte[] trailer;
    int endsSeen;

    @Override
    public void objects(byte[] b, int off, int len) {
      assertThat(trailer).as("nothing after the trailer").isNull();
      objects.write(b, off, len);
    }

    @Override
    public void objectsEnd(byte[] packTrailer) {
      trailer = packTrailer.clone();
      endsSeen++;
    }
  }

  /** Gives the bytes in reads of random small sizes, as a network does. */
  private static final class Trickle extends InputStream {
    private final byte[] data;
    private final Random random;
    private int pos;

    Trickle(byte[] data, Random random) {
      this.data = data;
      this.random = random;
    }

    @Override
    public int read() {
      return pos < data.length ? data[pos++] & 0xff : -1;
    }

    @Override
    public int read(byte[] b, int off, int len) {
      if (pos == data.length) {
        return -1;
      }
      int n = Math.min(Math.min(len, data.length - pos), 1 + random.nextInt(300));
      System.arraycopy(data, pos, b, off, n);
      pos += n;
      return n;
    }
  }
}
