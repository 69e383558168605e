package dev.postbox.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.logging.Level;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebDriverException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * A headless Chromium driven through its chromedriver, both Debian's: nothing is downloaded (the
 * driver and the browser are given, so Selenium Manager has nothing to find). Missing, it fails:
 * the browser tests never skip. Not thread-safe; one per test class.
 */
public final class Browser implements AutoCloseable {
  static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final int WIDTH = 1280;
  private static final int HEIGHT = 900;

  // the tests use no DevTools protocol; that Selenium ships none for Chromium 156 is noise
  private static final java.util.logging.Logger CDP_FINDER = quiet("org.openqa.selenium.devtools");

  private final ChromeDriver driver;

  private Browser(ChromeDriver driver) {
    this.driver = driver;
  }

  /** Starts the browser; fails naming the packages when chromium or its driver is missing. */
  public static Browser start() {
    for (Path p : List.of(CHROMIUM, CHROMEDRIVER)) {
      if (!Files.isExecutable(p)) {
        throw new IllegalStateException(
            p
                + " is missing: the console's browser tests need Debian's chromium and"
                + " chromium-driver (apt-get install -y chromium chromium-driver; .ci/run installs"
                + " them)");
      }
    }
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(CHROMEDRIVER.toFile())
            .usingAnyFreePort()
            .build();
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments(
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--window-size=" + WIDTH + "," + HEIGHT);
    LoggingPreferences logs = new LoggingPreferences();
    logs.enable(LogType.BROWSER, Level.ALL); // to read CSP violations and script errors
    options.setCapability("goog:loggingPrefs", logs);
    return new Browser(new ChromeDriver(service, options));
  }

  private static java.util.logging.Logger quiet(String name) {
    java.util.logging.Logger logger = java.util.logging.Logger.getLogger(name);
    logger.setLevel(Level.SEVERE);
    return logger;
  }

  /** Loads {@code url} and returns once the page and its deferred script have run. */
  public void open(String url) {
    driver.get(url);
    until("the page loaded", d -> "complete".equals(script("return document.readyState")));
  }

  /** Clicks the submit button {@code css} of a GET form and returns once its page has loaded. */
  public void submit(String css) {
    String before = driver.getCurrentUrl();
    find(css).click();
    until(
        "the page of " + css,
        d ->
            !before.equals(d.getCurrentUrl())
                && "complete".equals(script("return document.readyState")));
  }

  public WebElement find(String css) {
    return driver.findElement(By.cssSelector(css));
  }

  public List<WebElement> all(String css) {
    return driver.findElements(By.cssSelector(css));
  }

  /** The visible text of the first element matching {@code css}. */
  public String text(String css) {
    return find(css).getText();
  }

  /** The visible texts of the elements matching {@code css}, in the page's order. */
  public List<String> texts(String css) {
    return all(css).stream().map(WebElement::getText).toList();
  }

  /** Types {@code token} into the page's action token field, replacing what it held. */
  public void typeToken(String token) {
    WebElement field = find("#token");
    field.clear();
    field.sendKeys(token);
  }

  /**
   * Waits until {@code #status} shows an outcome ({@code ok} after an action's reload, {@code
   * failed} in place), checks it is {@code outcome}, and returns its text.
   */
  public String status(String outcome) {
    // one script reads class and text together, from whichever document is there: after a click
    // the page reloads under the wait, and an element found in the old one can no longer be read
    List<?> shown =
        new WebDriverWait(driver, WAIT)
            .withMessage("#status to show an outcome")
            .ignoring(WebDriverException.class)
            .until(
                d ->
                    (List<?>)
                        script(
                            "const s = document.getElementById('status');"
                                + " return s && s.className ? [s.className, s.textContent] : null;"));
    if (!shown.get(0).equals(outcome)) {
      throw new AssertionError("#status is " + shown.get(0) + ", not " + outcome + ": " + shown);
    }
    return (String) shown.get(1);
  }

  /** Waits until {@code condition} returns neither null nor false; fails after 30 s. */
  public <T> T until(String what, Function<WebDriver, T> condition) {
    return new WebDriverWait(driver, WAIT)
        .withMessage(what)
        .ignoring(StaleElementReferenceException.class) // the page reloads after an action
        .until(condition);
  }

  public Object script(String js, Object... args) {
    return ((JavascriptExecutor) driver).executeScript(js, args);
  }

  /** Runs {@code js}, which calls {@code arguments[arguments.length - 1]} with its result. */
  public Object asyncScript(String js, Object... args) {
    return ((JavascriptExecutor) driver).executeAsyncScript(js, args);
  }

  /**
   * POSTs {@code form} to {@code path} from the page's own script, as a forged request would be
   * made; {@return the answer's status and error text}
   */
  public Map<?, ?> post(String path, String form, String token) {
    return (Map<?, ?>)
        asyncScript(
            """
            const done = arguments[arguments.length - 1];
            fetch(arguments[0], {method: "POST", body: arguments[1], headers: {
                "Content-Type": "application/x-www-form-urlencoded",
                "X-Postbox-Token": arguments[2]}})
              .then(r => r.json().then(j => done({status: r.status, error: j.error || null})))
              .catch(e => done({status: -1, error: String(e)}));
            """,
            path,
            form,
            token);
  }

  /** The browser's console messages since the last call (CSP violations, script errors). */
  public List<String> consoleMessages() {
    return driver.manage().logs().get(LogType.BROWSER).getAll().stream()
        .filter(e -> e.getLevel().intValue() >= Level.WARNING.intValue()) // not DOM advice
        .map(LogEntry::getMessage)
        .toList();
  }

  /** Saves the whole page, 1280 pixels wide and as tall as it is, as a PNG. */
  public void screenshot(Path file) {
    // the body's height, not the document's (at least the window's); the window's size counts a
    // toolbar, even headless
    long height =
        (Long)
            script(
                "return Math.ceil(document.body.getBoundingClientRect().height)"
                    + " + window.outerHeight - window.innerHeight");
    driver.manage().window().setSize(new Dimension(WIDTH, (int) height));
    try {
      Files.createDirectories(file.toAbsolutePath().getParent());
      Files.write(file, driver.getScreenshotAs(OutputType.BYTES));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } finally {
      driver.manage().window().setSize(new Dimension(WIDTH, HEIGHT));
    }
  }

  @Override
  public void close() {
    driver.quit();
  }
}
