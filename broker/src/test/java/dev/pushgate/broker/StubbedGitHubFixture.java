package dev.pushgate.broker;

import java.nio.file.Path;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the test classes that drive the broker against {@link GitHubStub} arrange, one per class:
 * the stub, started before the first test and closed after the last, and an App key in PKCS#1
 * PEM in a file of its own ({@link #keyFile}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class StubbedGitHubFixture {
  static final OkHttpClient HTTP = new OkHttpClient();

  GitHubStub github;
  Path keyFile;

  @BeforeAll
  void start(@TempDir Path dir) throws Exception {
    github = new GitHubStub();
    keyFile = TestKeys.write(dir, "app.pem", TestKeys.pkcs1(TestKeys.rsa().getPrivate()));
  }

  @AfterAll
  void stop() {
    github.close();
  }
}
