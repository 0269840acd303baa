package dev.pushgate.bench;

import dev.pushgate.testkit.GitRun;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.SplittableRandom;

/** Test histories written with {@code git fast-import}: one process, straight into a pack. */
final class Histories {
  private Histories() {}

  /**
   * Adds {@code commits} small commits on top of {@code from} to {@code refs/heads/main}, each
   * changing one of 20 text files (about 1.5 KB each), and checks the result out.
   */
  static void smallCommits(GitRun git, Path repo, String from, int commits)
      throws IOException, InterruptedException {
    git.run(repo, out -> {
      OutputStream w = new BufferedOutputStream(out, 1 << 16);
      for (int i = 1; i <= commits; i++) {
        ascii(w, "commit refs/heads/main\n");
        ascii(w, "committer Bench <bench@example.com> " + (1_700_000_000L + i * 60) + " +0000\n");
        data(w, "change " + i + "\n");
        if (i == 1) {
          ascii(w, "from " + from + "\n");
        }
        int file = i % 20;
        StringBuilder content = new StringBuilder();
        for (int line = 0; line < 40; line++) {
          content.append("line ").append(line).append(" of file ").append(file)
              .append(line == i % 40 ? ", revision " + i : "").append('\n');
        }
        ascii(w, String.format("M 100644 inline src/f%02d.txt%n", file));
        data(w, content.toString());
      }
      w.flush();
    }, "fast-import", "--quiet").ok();
    git.in(repo, "reset", "-q", "--hard", "refs/heads/main").ok();
  }

  /**
   * A new repository whose {@code main} holds {@code commits} commits adding one file of random
   * (incompressible) bytes each, {@code totalBytes} in all.
   */
  static void randomBlobs(GitRun git, Path repo, long totalBytes, int commits, long seed)
      throws IOException, InterruptedException {
    git.in(repo.getParent(), "init", "-q", "--bare", repo.getFileName().toString()).ok();
    long each = totalBytes / commits;
    SplittableRandom random = new SplittableRandom(seed);
    git.run(repo, out -> {
      OutputStream w = new BufferedOutputStream(out, 1 << 20);
      byte[] buf = new byte[1 << 20];
      for (int i = 0; i < commits; i++) {
        ascii(w, "commit refs/heads/main\n");
        ascii(w, "committer Bench <bench@example.com> " + (1_700_000_000L + i * 60) + " +0000\n");
        data(w, "add blob " + i + "\n");
        ascii(w, String.format("M 100644 inline data/%03d.bin%n", i));
        ascii(w, "data " + each + "\n");
        long left = each;
        while (left > 0) {
          for (int b = 0; b < buf.length; b += 8) {
            long v = random.nextLong();
            for (int k = 0; k < 8; k++) {
              buf[b + k] = (byte) (v >>> (8 * k));
            }
          }
          int n = (int) Math.min(buf.length, left);
          w.write(buf, 0, n);
          left -= n;
        }
        ascii(w, "\n");
      }
      w.flush();
    }, "fast-import", "--quiet").ok();
  }

  private static void ascii(OutputStream w, String s) throws IOException {
    w.write(s.getBytes(StandardCharsets.UTF_8));
  }

  private static void data(OutputStream w, String s) throws IOException {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    ascii(w, "data " + b.length + "\n");
    w.write(b);
    ascii(w, "\n");
  }
}
