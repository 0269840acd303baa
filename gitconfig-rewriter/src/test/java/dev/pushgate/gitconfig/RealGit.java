package dev.pushgate.gitconfig;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs the real {@code git} in a clean environment: no system config, a given (or empty) global
 * config, no prompts, a throw-away HOME. Tests that use it fail, rather than skip, without git.
 */
final class RealGit {
  private final Path home;
  private final Map<String, String> env = new HashMap<>();

  RealGit(Path home) {
    this.home = home;
    env.put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
    env.put("HOME", home.toString());
    env.put("GIT_CONFIG_NOSYSTEM", "1");
    env.put("GIT_CONFIG_GLOBAL", "/dev/null");
    env.put("GIT_TERMINAL_PROMPT", "0");
    env.put("LC_ALL", "C");
  }

  RealGit with(String name, String value) {
    RealGit copy = new RealGit(home);
    copy.env.clear();
    copy.env.putAll(env);
    if (value == null) {
      copy.env.remove(name);
    } else {
      copy.env.put(name, value);
    }
    return copy;
  }

  RealGit globalConfig(Path file) {
    return with("GIT_CONFIG_GLOBAL", file.toString());
  }

  record Result(int exit, byte[] stdout, String stderr) {
    String out() {
      return new String(stdout, StandardCharsets.UTF_8);
    }

    Result ok() {
      if (exit != 0) {
        throw new AssertionError("git failed (" + exit + "): " + stderr);
      }
      return this;
    }
  }

  Result runWithInput(Path dir, String stdin, String... args) {
    List<String> command = new ArrayList<>();
    command.add("git");
    command.addAll(Arrays.asList(args));
    ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile());
    pb.environment().clear();
    pb.environment().putAll(env);
    try {
      Process p = pb.start();
      CompletableFuture<byte[]> out = drain(p.getInputStream());
      CompletableFuture<byte[]> err = drain(p.getErrorStream());
      try (OutputStream in = p.getOutputStream()) {
        if (stdin != null) {
          in.write(stdin.getBytes(StandardCharsets.UTF_8));
        }
      } catch (IOException ignored) {
        // git may exit before reading its input
      }
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError("git timed out: " + command);
      }
      return new Result(p.exitValue(), out.join(),
          new String(err.join(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run git", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  Result run(Path dir, String... args) {
    return runWithInput(dir, null, args);
  }

  /** {@code git config --file F --list -z}, as raw (name, value) byte strings; value may be null. */
  List<byte[][]> listRaw(Path file) {
    byte[] out = run(file.getParent(), "config", "--file", file.toString(), "--list", "-z")
        .ok().stdout();
    List<byte[][]> entries = new ArrayList<>();
    int start = 0;
    for (int i = 0; i < out.length; i++) {
      if (out[i] == 0) {
        byte[] record = Arrays.copyOfRange(out, start, i);
        int nl = indexOf(record, (byte) '\n');
        entries.add(nl < 0
            ? new byte[][] {record, null}
            : new byte[][] {Arrays.copyOfRange(record, 0, nl),
                Arrays.copyOfRange(record, nl + 1, record.length)});
        start = i + 1;
      }
    }
    return entries;
  }

  /** As {@link #listRaw} decoded as UTF-8, each entry {@code name=value} (or just the name). */
  List<String> list(Path file) {
    List<String> out = new ArrayList<>();
    for (byte[][] e : listRaw(file)) {
      String name = new String(e[0], StandardCharsets.UTF_8);
      out.add(e[1] == null ? name : name + "=" + new String(e[1], StandardCharsets.UTF_8));
    }
    return out;
  }

  private static int indexOf(byte[] bytes, byte b) {
    for (int i = 0; i < bytes.length; i++) {
      if (bytes[i] == b) {
        return i;
      }
    }
    return -1;
  }

  // a thread of its own per stream: the common pool may have a single thread on a small machine
  private static CompletableFuture<byte[]> drain(InputStream in) {
    CompletableFuture<byte[]> result = new CompletableFuture<>();
    Thread t = new Thread(() -> {
      try (in) {
        result.complete(in.readAllBytes());
      } catch (IOException e) {
        result.completeExceptionally(new UncheckedIOException(e));
      }
    }, "git-output");
    t.setDaemon(true);
    t.start();
    return result;
  }
}
