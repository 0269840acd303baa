package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.testkit.ApplianceExtension;
import dev.pushgate.testkit.GitRun;
import dev.pushgate.testkit.RunningAppliance;
import dev.pushgate.testkit.Wait;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.lib.Repository;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.Cookie;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The approvals web page end to end, in a real headless Chromium: a link from {@code pushgate
 * approvals open}, sign-in, a held push appearing live, answered with a click, and the push
 * landing (or refused) in the same {@code git push}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ApprovalsWebPageTest {
  private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
  /** Generous: a busy machine renders slowly, and a push is held until someone clicks. */
  private static final Duration PATIENCE = Duration.ofSeconds(90);
  private static final String ASK_EVERY_BRANCH = """
      {"workspaceId": "ws", "repository": "acme/widget", "agentId": "claude-code",
       "sessionId": "fix the login form",
       "rules": {"push": [{"refs": "refs/heads/**", "decision": "ask",
                           "reason": "every push needs a human"}]}}""";
  private static final String ASK_ABOUT_TOKENS = """
      {"workspaceId": "ws", "repository": "acme/widget", "agentId": "claude-code",
       "sessionId": "rotate the deploy key",
       "rules": {"push": [{"refs": "refs/heads/**", "decision": "ask",
                           "reason": "every push needs a human"}],
                 "content": [{"name": "tokens need a look", "secrets": ["github-pat"],
                              "decision": "ask", "reason": "is it a test fixture?"}]}}""";
  /** Where the test leaves its screenshots; docs/approvals.md shows copies of them. */
  private static final Path SCREENSHOTS = Path.of("target", "screenshots");

  @RegisterExtension
  static final ApplianceExtension app = ApplianceExtension.serving().withRepos("acme/widget");

  WebDriver browser;
  Map<String, String> env;
  Map<String, String> tokensEnv;

  @BeforeAll
  void start() throws Exception {
    requireChromium();
    env = RunningAppliance.runEnv(app.get().createRun(ASK_EVERY_BRANCH));
    tokensEnv = RunningAppliance.runEnv(app.get().createRun(ASK_ABOUT_TOKENS));
    browser = chromium(app.dir());
  }

  /** Skips the test without Debian's chromium and its driver; on CI, which installs them, fails. */
  static void requireChromium() {
    boolean present = Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER);
    if (!present && "true".equals(System.getenv("CI"))) {
      throw new AssertionError("CI needs Debian's chromium and chromium-driver (.ci/run installs"
          + " them): " + CHROMIUM + " or " + CHROMEDRIVER + " is missing");
    }
    Assumptions.assumeTrue(present, "apt-get install chromium chromium-driver to run this test");
  }

  @AfterAll
  void stop() throws Exception {
    if (browser != null) {
      browser.quit();
    }
    if (app.get() != null) {
      app.get().close();
    }
  }

  /** Debian's chromium and its driver; nothing downloaded (no Selenium Manager). */
  static WebDriver chromium(Path tmp) throws Exception {
    System.setProperty("webdriver.chrome.driver", CHROMEDRIVER.toString());
    ChromeDriverService service = new ChromeDriverService.Builder()
        .usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort()
        .withLogFile(tmp.resolve("chromedriver.log").toFile()).build();
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
        "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--disable-dev-shm-usage",
        "--user-data-dir=" + Files.createDirectories(tmp.resolve("chromium-profile")));
    return new ChromeDriver(service, options);
  }

  @Test
  void anApproverSignsInWithTheLinkSeesTheHeldPushAndAllowsIt() throws Exception {
    // Without a session the page is refused, to a browser as to anything else.
    HttpResponse<String> refused = HttpClient.newHttpClient().send(
        HttpRequest.newBuilder(URI.create(app.get().base() + "/approvals/")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(refused.statusCode()).isEqualTo(401);
    assertThat(refused.body()).contains("pushgate approvals open");
    browser.get(app.get().base() + "/approvals/"); // a page of this origin, to drop its cookies on
    browser.manage().deleteAllCookies();
    browser.get(app.get().base() + "/approvals/");
    assertThat(browser.findElement(By.id("why")).getText())
        .isEqualTo("You are not signed in, or your session ended.");

    String link = signInLink();
    assertThat(link).startsWith(app.get().base() + "/approvals/signin?token=");
    browser.get(link);
    await().until(ExpectedConditions.textToBe(By.id("status"), "connected as an approver"));
    assertThat(browser.getCurrentUrl()).isEqualTo(app.get().base() + "/approvals/");
    // The session as the browser keeps it; the page's script cannot read it.
    Cookie session = browser.manage().getCookieNamed("pushgate_approvals_" + app.get().port());
    assertThat(session.isHttpOnly()).isTrue();
    assertThat(session.getSameSite()).isEqualTo("Strict");
    assertThat(session.getPath()).isEqualTo("/approvals");
    assertThat(((JavascriptExecutor) browser).executeScript("return document.cookie"))
        .isEqualTo("");
    awaitApprover();
    // The link was spent by signing in.
    HttpResponse<String> again = HttpClient.newHttpClient().send(
        HttpRequest.newBuilder(URI.create(link)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(again.statusCode()).isEqualTo(401);

    Path w = worktree("approve", "one\ntwo\nthree\n");
    ApprovalFlowTest.LivePush push = ApprovalFlowTest.LivePush.start(w, app.dir().resolve("home"),
        env, "push", "origin", "main");
    WebElement question = await().until(
        ExpectedConditions.visibilityOfElementLocated(By.cssSelector("li.question")));
    assertThat(question.findElement(By.className("summary")).getText())
        .startsWith("update refs/heads/main of acme/widget");
    assertThat(question.getText()).contains("ask approve").contains("every push needs a human");
    await().until(d -> question.findElement(By.className("diffstat")).getText()
        .contains("file(s) changed"));
    WebElement diff = question.findElement(By.className("diffstat"));
    assertThat(diff.getText()).contains("1 file(s) changed, +3 -0")
        .contains("approve.txt (add) +3 -0");
    // The diff itself, each file folded under its name, with the lines' numbers.
    WebElement file = diff.findElement(By.cssSelector("details.file"));
    assertThat(file.getAttribute("open")).isNotNull();
    assertThat(file.findElements(By.cssSelector("tr.added td.text")))
        .extracting(WebElement::getText).containsExactly("+one", "+two", "+three");
    file.findElement(By.tagName("summary")).click();
    assertThat(file.getAttribute("open")).isNull();
    // Who asks: what the launcher named the run, and who wrote the commits.
    WebElement who = question.findElement(By.className("who"));
    await().until(d -> who.getText().contains("commit authors"));
    assertThat(who.getText()).contains("claude-code").contains("fix the login form")
        .contains("ws");
    // The deadline in the approver's zone, and the time left counting down.
    WebElement left = question.findElement(By.cssSelector(".countdown .left"));
    String first = left.getText();
    assertThat(first).matches("\\d+:\\d\\d left");
    await().until(d -> !left.getText().equals(first));
    assertThat(question.findElement(By.className("countdown")).getText())
        .contains("answer by").contains("(" + browserZone() + ")");

    WebElement by = browser.findElement(By.id("by"));
    by.clear();
    by.sendKeys("alice in the browser");
    question.findElement(By.className("allow")).click();

    assertThat(push.finish()).as(push.stderr()).isZero();
    assertThat(push.stderr()).contains("main -> main").doesNotContain("rejected");
    assertThat(forgeRef("refs/heads/main")).isEqualTo(head(w));
    await().until(ExpectedConditions.textToBePresentInElementLocated(By.id("ended"),
        "allowed by alice in the browser"));
    assertThat(browser.findElements(By.cssSelector("li.question"))).isEmpty();
    await().until(ExpectedConditions.textToBePresentInElementLocated(By.id("audit"),
        "every push needs a human (approved by alice in the browser)"));
    String token = link.substring(link.indexOf("token=") + 6);
    assertThat(app.get().logText()).contains("approvals page: an approver signed in")
        .doesNotContain(token).doesNotContain(session.getValue());
  }

  @Test
  void aBranchNamedLikeMarkupIsShownAsTextAndDeniedWithTheNote() throws Exception {
    browser.get(signInLink());
    await().until(ExpectedConditions.textToBe(By.id("status"), "connected as an approver"));
    awaitApprover();
    String branch = "evil<script>document.title='pwned'</script><img/src=x/onerror=alert(1)>";
    Path w = worktree("markup", "x\n");
    ApprovalFlowTest.LivePush push = ApprovalFlowTest.LivePush.start(w, app.dir().resolve("home"),
        env, "push", "origin", "HEAD:refs/heads/" + branch);
    WebElement question = await().until(
        ExpectedConditions.visibilityOfElementLocated(By.cssSelector("li.question")));
    assertThat(question.findElement(By.className("summary")).getText())
        .startsWith("create refs/heads/" + branch + " of acme/widget new, at ")
        .doesNotContain("0000000");
    assertThat(question.findElements(By.tagName("script"))).isEmpty();
    assertThat(question.findElements(By.tagName("img"))).isEmpty();
    assertThat(browser.getTitle()).isEqualTo("pushgate approvals");

    question.findElement(By.className("note")).sendKeys("no markup in branch names");
    question.findElement(By.className("deny")).click();

    assertThat(push.finish()).isNotZero();
    assertThat(push.stderr()).contains("(Control Center policy: denied by ")
        .contains(": no markup in branch names)");
    assertThat(forgeRef("refs/heads/" + branch)).isNull();
  }

  @Test
  void aFindingIsMarkedOnItsLineAndMarkupInTheDiffIsShownAsText() throws Exception {
    // Tall enough that the screenshot shows the answer's buttons under the diff.
    browser.manage().window().setSize(new org.openqa.selenium.Dimension(1280, 1500));
    browser.get(signInLink());
    await().until(ExpectedConditions.textToBe(By.id("status"), "connected as an approver"));
    awaitApprover();
    String secret = dev.pushgate.testkit.FakeSecrets.githubPat();
    String markup = "<script>document.title='pwned'</script><img src=x onerror=alert(1)>";
    Path w = worktree("fixture", "import os\nTOKEN = \"" + secret + "\"\nprint(TOKEN)\n",
        tokensEnv);
    // (a file name cannot hold the closing tag's slash)
    Files.writeString(w.resolve("<script>alert(1)<script>.html"), markup + "\n");
    GitRun git = new GitRun(app.dir().resolve("home"), tokensEnv);
    git.in(w, "add", ".").ok();
    git.in(w, "commit", "-qm", "add a fixture and a page").ok();
    ApprovalFlowTest.LivePush push = ApprovalFlowTest.LivePush.start(w, app.dir().resolve("home"),
        tokensEnv, "push", "origin", "HEAD:refs/heads/fixture");
    WebElement question = await().until(
        ExpectedConditions.visibilityOfElementLocated(By.cssSelector("li.question")));
    WebElement diff = question.findElement(By.className("diffstat"));
    await().until(d -> diff.getText().contains("file(s) changed"));

    // The finding, listed and on its line; the line's secret is not on the page.
    String finding = "fixture.txt:2 holds a GitHub personal access token (rule \"tokens need a"
        + " look\", gitleaks id github-pat): is it a test fixture?";
    assertThat(diff.findElement(By.className("findings")).getText()).contains("ask: " + finding);
    WebElement marked = diff.findElement(By.cssSelector("tr.finding"));
    assertThat(marked.findElements(By.tagName("td")).get(1).getText()).isEqualTo("2");
    assertThat(marked.findElement(By.xpath("following-sibling::tr[1]")).getText())
        .contains(finding);
    assertThat(browser.getPageSource()).doesNotContain(secret);
    // Markup in a file's name and in its lines is text: no element, no script ran.
    assertThat(diff.getText()).contains("<script>alert(1)<script>.html (add)")
        .contains("+" + markup);
    assertThat(question.findElements(By.tagName("script"))).isEmpty();
    assertThat(question.findElements(By.tagName("img"))).isEmpty();
    assertThat(browser.getTitle()).isEqualTo("pushgate approvals");

    screenshot("approvals-page.png");
    browser.manage().window().setSize(new org.openqa.selenium.Dimension(390, 1400));
    assertThat(question.findElement(By.className("allow")).getSize().getWidth())
        .as("on a narrow screen the buttons take the card's width")
        .isGreaterThan(question.getSize().getWidth() / 2);
    screenshot("approvals-page-narrow.png");
    browser.manage().window().setSize(new org.openqa.selenium.Dimension(1280, 1000));

    question.findElement(By.className("deny")).click();
    assertThat(push.finish()).isNotZero();
    assertThat(push.stderr()).doesNotContain(secret);
  }

  @Test
  void aForcePushNeedsTheAllowConfirmed() throws Exception {
    browser.get(signInLink());
    await().until(ExpectedConditions.textToBe(By.id("status"), "connected as an approver"));
    awaitApprover();
    Path w = worktree("forced", "first\n");
    ApprovalFlowTest.LivePush create = ApprovalFlowTest.LivePush.start(w, app.dir().resolve("home"),
        env, "push", "origin", "HEAD:refs/heads/forced");
    // A create is allowed at the first click: it drops nothing.
    await().until(ExpectedConditions.visibilityOfElementLocated(
        By.cssSelector("li.question[data-kind='create']"))).findElement(By.className("allow"))
        .click();
    assertThat(create.finish()).as(create.stderr()).isZero();
    await().until(ExpectedConditions.invisibilityOfElementLocated(By.cssSelector("li.question")));

    GitRun git = new GitRun(app.dir().resolve("home"), env);
    git.in(w, "commit", "-q", "--amend", "-m", "rewritten").ok();
    ApprovalFlowTest.LivePush force = ApprovalFlowTest.LivePush.start(w, app.dir().resolve("home"),
        env, "push", "--force", "origin", "HEAD:refs/heads/forced");
    WebElement question = await().until(ExpectedConditions.visibilityOfElementLocated(
        By.cssSelector("li.question[data-kind='force']")));
    // The keyboard: "a" on the selected question asks for the confirmation, as the click does.
    new org.openqa.selenium.interactions.Actions(browser).sendKeys("a").perform();
    WebElement confirm = question.findElement(By.className("confirm"));
    await().until(ExpectedConditions.visibilityOf(confirm));
    assertThat(confirm.getText()).contains("A force push rewrites refs/heads/forced")
        .contains("Allow it anyway?");
    assertThat(question.isDisplayed()).isTrue();
    assertThat(forgeRef("refs/heads/forced")).isNotEqualTo(head(w));
    confirm.findElement(By.className("confirm-allow")).click();

    assertThat(force.finish()).as(force.stderr()).isZero();
    assertThat(forgeRef("refs/heads/forced")).isEqualTo(head(w));
  }

  @Test
  void theEmptyPageSaysWhatWillAppear() throws Exception {
    browser.get(signInLink());
    await().until(ExpectedConditions.textToBe(By.id("status"), "connected as an approver"));
    await().until(ExpectedConditions.invisibilityOfElementLocated(By.cssSelector("li.question")));
    assertThat(browser.findElement(By.id("none")).getText()).contains("No question is waiting.")
        .contains("who asks, what would land");
  }

  // --- fixtures

  private String browserZone() {
    return (String) ((JavascriptExecutor) browser).executeScript(
        "return Intl.DateTimeFormat().resolvedOptions().timeZone");
  }

  private void screenshot(String name) throws Exception {
    byte[] png = ((org.openqa.selenium.TakesScreenshot) browser)
        .getScreenshotAs(org.openqa.selenium.OutputType.BYTES);
    Files.createDirectories(SCREENSHOTS);
    Files.write(SCREENSHOTS.resolve(name), png);
  }

  private WebDriverWait await() {
    return new WebDriverWait(browser, PATIENCE, Duration.ofMillis(250));
  }

  private static String signInLink() throws Exception {
    return signInLink(app.get());
  }

  /** A one-time link that signs a browser in to {@code app}'s approvals page. */
  static String signInLink(RunningAppliance app) throws Exception {
    String out = RunningAppliance.cli("approvals", "open", "--data-dir", app.dataDir.toString());
    return out.lines().filter(l -> l.startsWith("http://")).findFirst()
        .orElseThrow(() -> new AssertionError("no link in:\n" + out));
  }

  /** Until the appliance counts the page's stream as an approver. */
  private static void awaitApprover() throws Exception {
    Wait.until(PATIENCE, "the appliance to count the page as a connected approver", () -> {
      JsonNode answer = app.get().control().get("/v1/approvals").body();
      return answer.get("approverConnected").asBoolean();
    });
  }

  /** A clone of acme/widget with one new commit adding {@code name}.txt. */
  private Path worktree(String name, String content) throws Exception {
    return worktree(name, content, env);
  }

  private Path worktree(String name, String content, Map<String, String> env)
      throws Exception {
    GitRun git = new GitRun(Files.createDirectories(app.dir().resolve("home")), env);
    git.in(app.dir(), "clone", "-q", "https://github.com/acme/widget.git", name).ok();
    Path w = app.dir().resolve(name);
    Files.writeString(w.resolve(name + ".txt"), content);
    git.in(w, "add", ".").ok();
    git.in(w, "commit", "-qm", "ask " + name).ok();
    return w;
  }

  private String head(Path w) throws Exception {
    return new GitRun(app.dir().resolve("home"), env).in(w, "rev-parse",
        "HEAD").ok().stdout().strip();
  }

  private static String forgeRef(String ref) throws Exception {
    try (Repository r = new FileRepository(app.get().forgeRepo("acme/widget").toFile())) {
      var found = r.exactRef(ref);
      return found == null ? null : found.getObjectId().name();
    }
  }
}
