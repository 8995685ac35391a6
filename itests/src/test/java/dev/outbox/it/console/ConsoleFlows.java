package dev.outbox.it.console;

import dev.outbox.it.support.ExampleService;
import dev.outbox.it.support.ExampleService.Reply;
import dev.outbox.it.support.OutboxDatabase;
import dev.outbox.it.support.OutboxDatabase.StoredEvent;
import dev.outbox.it.support.Settings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.Alert;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.File;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static dev.outbox.it.support.Eventually.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The operator console (issue 22) in a real browser: Debian's headless Chromium, driven through its chromedriver by
 * Selenium, against the example server. Open Liberty (ConsoleIT) and WildFly (WildFlyConsoleIT) run these same
 * flows on their own deployment, each server with a 2000-byte JMS limit (so a big note parks OrderPlaced), an
 * approval threshold of 2 events and replays at 4 a second. Each step leaves a screenshot in
 * {@code target/console/}.
 */
public abstract class ConsoleFlows {

    private static final Duration SOON = Duration.ofSeconds(20);

    private final ExampleService service = ExampleService.fromSystemProperties();
    private final OutboxDatabase db = OutboxDatabase.fromSystemProperties();
    private WebDriver browser;

    /** Someone with both roles who may request a replay, and is refused approving their own. */
    protected abstract String requesterWithBothRoles();

    /** Where this server's screenshots go. */
    protected abstract Path screenshots();

    @AfterEach
    void closeTheBrowser() {
        if (browser != null) {
            browser.quit();
        }
    }

    /** A 3000-byte note parks OrderPlaced on the server's 2000-byte JMS limit, as in AdminIT. */
    private StoredEvent parkOne() {
        Reply big = service.placeOrderRaw("{\"customerId\":\"console-" + UUID.randomUUID() + "\",\"amount\":4,"
                + "\"note\":\"" + "n".repeat(3000) + "\"}", null);
        assertEquals(201, big.status(), big.toString());
        return await(SOON, "OrderPlaced parked", () -> db.eventsOf(big.orderId()).get(0),
                e -> e.state().equals("PARKED"));
    }

    @Test
    void anOperatorFixesAndResumesAParkedEventAndSeesItDelivered() throws IOException {
        StoredEvent parked = parkOne();
        forgetEarlierActionsOf("operator"); // a fix and a resume: within the server's approval threshold of 2
        String id = parked.eventId().toString();
        String orderId = parked.aggregateId();

        open("operator", "operator-password");
        waitForText(By.id("who"), "operator (outbox-operator)");
        waitForText(By.id("backlog-rows"), "OrderPlaced");
        shot("1-backlog");
        click(By.cssSelector("nav button[data-view=parked]"));
        WebElement openButton = waitFor(By.cssSelector("button[data-event='" + id + "']"));
        assertFalse(browser.getPageSource().contains("nnnnnnnnnn"), "lists carry no bodies: the page has none yet");
        String listed = browser.findElement(By.xpath("//tr[td[text()='" + id + "']]")).getText();
        assertTrue(listed.contains(" ago)"), "the parked list says when the event parked: " + listed);
        shot("2-parked");
        openButton.click();
        WebElement payload = waitFor(By.id("detail-payload"));
        new WebDriverWait(browser, SOON).until(d -> payload.getDomProperty("value").contains("nnnnnnnnnn"));

        // A body that is not a JSON object: the server's refusal is shown, naming the field.
        payload.clear();
        payload.sendKeys("[1]");
        browser.findElement(By.id("detail-reason")).sendKeys("note shortened to fit the broker");
        click(By.id("detail-fix"));
        waitForText(By.id("detail-error"), "payload");
        shot("3-refused-fix");

        payload.clear();
        payload.sendKeys("{\"orderId\":\"" + orderId + "\",\"customerId\":\"console\",\"amount\":4,"
                + "\"note\":\"shortened in the console\"}");
        click(By.id("detail-fix"));
        waitForText(By.id("message"), "fixed " + id);
        click(By.id("detail-resume"));
        waitForText(By.id("message"), "resumed " + id);
        shot("4-resumed");

        await(SOON, "the resumed event delivered", () -> db.eventsOf(orderId).get(0).state(),
                s -> s.equals("DELIVERED"));
        browser.findElement(By.id("lookup-id")).sendKeys(id);
        click(By.id("lookup"));
        waitForText(By.id("detail-facts"), "DELIVERED");
        assertFalse(browser.findElement(By.id("detail-resume")).isEnabled(), "a delivered event is not resumed");
        shot("5-delivered");

        click(By.cssSelector("nav button[data-view=audit]"));
        browser.findElement(By.id("audit-event")).sendKeys(id);
        browser.findElement(By.id("audit-actor")).sendKeys("operator");
        click(By.id("audit-load"));
        // The view first shows the whole trail; wait for the filtered one: this event's rows only.
        String audit = new WebDriverWait(browser, SOON).withMessage("the audit view filtered to " + id)
                .ignoring(StaleElementReferenceException.class).until(d -> {
            var rows = d.findElements(By.cssSelector("#audit-rows tr"));
            String text = d.findElement(By.id("audit-rows")).getText();
            return !rows.isEmpty() && rows.stream().allMatch(r -> r.getText().contains(id))
                    && text.contains("PARKED_RESUMED") ? text : null;
        });
        assertTrue(audit.contains("PARKED_FIXED") && audit.contains("PAYLOAD_READ") && audit.contains("operator"),
                "the audit view shows who read, fixed and resumed the event: " + audit);
        shot("6-audit");
    }

    @Test
    void aReplayAboveTheThresholdWaitsForASecondPersonWhoApprovesItAndSeesTheResendsCounted() throws IOException {
        // Three delivered events: above this server's approval threshold of 2 (itests.xml).
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Reply placed = service.placeOrder("console-replay-" + UUID.randomUUID(), new BigDecimal("3.00"));
            assertEquals(201, placed.status(), placed.toString());
            ids.add(await(SOON, "OrderPlaced delivered", () -> db.eventsOf(placed.orderId()).get(0),
                    e -> e.state().equals("DELIVERED")).eventId().toString());
        }

        // Someone with both roles requests the replay and is not offered approving it.
        String requester = requesterWithBothRoles();
        open(requester, requester + "-password");
        waitForText(By.id("who"), requester + " (");
        click(By.cssSelector("nav button[data-view=replay]"));
        waitFor(By.id("replay-ids")).sendKeys(String.join("\n", ids));
        browser.findElement(By.id("replay-reason")).sendKeys("consumers lost their copies");
        click(By.id("replay-preview"));
        waitForText(By.id("replay-result"), "needs a second person to approve");
        assertTrue(browser.findElement(By.id("replay-result")).getText().contains("dry run: 3 events"),
                browser.findElement(By.id("replay-result")).getText());
        click(By.id("replay-request"));
        waitForText(By.id("replay-result"), "AWAITING_APPROVAL");
        String request = browser.findElement(By.id("request-id")).getDomProperty("value");
        click(By.id("request-show"));
        waitForText(By.id("request-why"), "You requested this");
        assertFalse(browser.findElement(By.id("request-approve")).isEnabled(), "the requester cannot approve it");
        click(By.id("waiting-load"));
        waitForText(By.id("waiting-rows"), "yours: a second person decides");
        shot("8-replay-waits");

        // The approver sees it waiting, approves it, and watches the re-sends counted.
        decideAsTheApprover("approve", request);
        waitForText(By.id("request-result"), "EXECUTED, 3 events, 3 made due again");
        assertTrue(browser.findElement(By.id("request-result")).getText().contains("progress: 3 pending, 0 delivered"),
                "right after the approval all three wait to be sent: " + browser.findElement(By.id("request-result"))
                        .getText());
        new WebDriverWait(browser, SOON).withMessage("the replay's progress reaching 3 delivered").until(d -> {
            d.findElement(By.id("request-show")).click();
            return d.findElement(By.id("request-result")).getText().contains("progress: 0 pending, 3 delivered, 0 parked");
        });
        shot("9-replay-approved");
        String inList = "'" + String.join("','", ids) + "'";
        await(SOON, "the shipping inbox absorbed the 3 re-sends", () -> ((Number) db.rows("SELECT COALESCE(SUM("
                + "duplicates), 0) FROM processed_event WHERE consumer = 'shipping' AND event_id IN (" + inList + ")")
                .get(0).get(0)).longValue(), n -> n == 3);
    }

    @Test
    void aGroupResumeAboveTheThresholdWaitsForASecondPersonWhoRejectsItAndTheEventsStayParked() throws IOException {
        open("operator", "operator-password");
        waitForText(By.id("backlog-read"), "read ");
        long parkedBefore = parkedShown("OrderPlaced");
        // Three parked OrderPlaced: one group, above this server's approval threshold of 2.
        List<StoredEvent> parked = List.of(parkOne(), parkOne(), parkOne());
        // The backlog refreshes by itself (every 5 s): no click between the parking and the new count.
        new WebDriverWait(browser, SOON).withMessage("the backlog's parked count refreshed without a click")
                .ignoring(StaleElementReferenceException.class)
                .until(d -> parkedShown("OrderPlaced") >= parkedBefore + 3);
        String points = browser.findElement(By.cssSelector("#backlog-chart polyline")).getDomAttribute("points");
        assertTrue(points != null && points.strip().split(" ").length >= 2,
                "the chart keeps a point of the oldest age per refresh, two refreshes at least by now: " + points);
        shot("10-backlog-refreshed");

        click(By.cssSelector("nav button[data-view=parked]"));
        String group = parked.get(0).lastErrorClass() + " / OrderPlaced";
        WebElement box = waitFor(By.cssSelector("div.group[data-group='" + group + "']"));
        new WebDriverWait(browser, SOON).until(d -> parked.stream().allMatch(e -> box.getText()
                .contains(e.eventId().toString())));
        box.findElement(By.cssSelector(".group-reason")).sendKeys("the broker's limit was raised");
        box.findElement(By.cssSelector(".group-resume")).click();
        // The page asks before a bulk change, with the dry run's count and whether a second person must approve.
        Alert confirm = new WebDriverWait(browser, SOON).until(ExpectedConditions.alertIsPresent());
        String question = confirm.getText();
        assertTrue(question.startsWith("Resume ") && question.contains(group.replace(" / ", ", "))
                && question.contains("A second person must approve it."), question);
        confirm.accept();
        waitForText(By.id("message"), "AWAITING_APPROVAL");
        String message = browser.findElement(By.id("message")).getText();
        String request = message.substring("group resume ".length(), message.indexOf(':'));
        shot("11-group-resume-waits");

        // The approver rejects it with a reason of their own; the events stay parked.
        decideAsTheApprover("reject", request);
        Alert why = new WebDriverWait(browser, SOON).until(ExpectedConditions.alertIsPresent());
        assertTrue(why.getText().contains("Why is replay " + request + " rejected?"), why.getText());
        why.sendKeys("resume after the change window");
        why.accept();
        waitForText(By.id("request-result"), "REJECTED");
        shot("12-group-resume-rejected");
        // The audit by actor alone, filtered by the server over the whole trail: the approver's own entries only.
        click(By.cssSelector("nav button[data-view=audit]"));
        browser.findElement(By.id("audit-actor")).sendKeys("approver");
        click(By.id("audit-load"));
        // The view first shows the whole trail; then only the approver's entries, the rejection among them.
        new WebDriverWait(browser, SOON).withMessage("the audit view filtered to the approver's entries, with the"
                + " rejection of " + request).ignoring(StaleElementReferenceException.class).until(d -> {
            List<String> actors = d.findElements(By.cssSelector("#audit-rows tr td:nth-child(2)")).stream()
                    .map(WebElement::getText).distinct().toList();
            String text = d.findElement(By.id("audit-rows")).getText();
            return actors.equals(List.of("approver")) && text.contains(request) && text.contains("REPLAY_REJECTED");
        });
        for (StoredEvent e : parked) {
            assertEquals("PARKED", db.eventsOf(e.aggregateId()).get(0).state(), "a rejected resume leaves " + e.eventId()
                    + " parked");
        }
    }

    /**
     * Issue 42 item 1 (R9.4): a content change above the operator's approval threshold waits; the approver opens it
     * from the waiting list, sees only what changes, before and after, and approves; the body changes only then.
     */
    @Test
    void aContentChangeAboveTheThresholdIsApprovedByASecondPersonWhoSeesItAsADiff() throws IOException {
        StoredEvent parked = parkOne();
        String id = parked.eventId().toString();
        forgetEarlierActionsOf("operator");
        // Two events the operator already re-sent alone today: one more action is above the threshold of 2.
        db.execute("INSERT INTO outbox_replay_request (request_id, requested_at, requested_by, reason, selection,"
                + " event_count, state, decided_by, decided_at) VALUES (?, CURRENT_TIMESTAMP, 'operator',"
                + " 'earlier today', 'ids:" + UUID.randomUUID() + "', 2, 'EXECUTED', 'operator', CURRENT_TIMESTAMP)",
                UUID.randomUUID());

        open("operator", "operator-password");
        waitForText(By.id("who"), "operator (outbox-operator)");
        click(By.cssSelector("nav button[data-view=parked]"));
        waitFor(By.id("lookup-id")).sendKeys(id);
        click(By.id("lookup"));
        WebElement payload = waitFor(By.id("detail-payload"));
        new WebDriverWait(browser, SOON).until(d -> payload.getDomProperty("value").contains("nnnnnnnnnn"));
        payload.clear();
        payload.sendKeys("{\"orderId\":\"" + parked.aggregateId() + "\",\"amount\":4,"
                + "\"note\":\"shortened, second person please\"}");
        browser.findElement(By.id("detail-reason")).sendKeys("note shortened to fit the broker");
        click(By.id("detail-fix"));
        waitForText(By.id("message"), "the fix of " + id + " awaits a second person: request ");
        String request = browser.findElement(By.id("request-id")).getDomProperty("value");
        assertEquals(parked.payload(), db.eventsOf(parked.aggregateId()).get(0).payload(),
                "the body is unchanged until a second person approves");
        shot("13-fix-waits");

        browser.quit();
        open("approver", "approver-password");
        waitForText(By.id("who"), "approver (outbox-approver)");
        click(By.cssSelector("nav button[data-view=replay]"));
        waitForText(By.id("waiting-rows"), "content change of " + id);
        click(By.cssSelector("button[data-show='" + request + "']"));
        waitForText(By.id("request-change-rows"), "shortened, second person please");
        String diff = browser.findElement(By.id("request-change-rows")).getText();
        assertTrue(diff.contains("/note") && diff.contains("nnnnnnnnnn"), "the note before and after: " + diff);
        assertFalse(diff.contains("/orderId"), "what stays the same is not shown: " + diff);
        shot("14-fix-diff");
        click(By.id("request-approve"));
        waitForText(By.id("request-result"), "EXECUTED");
        assertTrue(db.eventsOf(parked.aggregateId()).get(0).payload().contains("shortened, second person please"),
                "the approved change applied");
        assertEquals("PARKED", db.eventsOf(parked.aggregateId()).get(0).state(), "a change alone sends nothing");
        shot("15-fix-approved");

        forgetEarlierActionsOf("operator");
        Reply resumed = service.admin("operator", "operator-password", "POST", "parked/" + id + "/resume",
                "{\"reason\":\"approved change\"}");
        assertEquals(200, resumed.status(), resumed.toString());
    }

    /** This person's re-sends and changes of earlier tests move out of the approval window. */
    private void forgetEarlierActionsOf(String person) {
        db.execute("UPDATE outbox_replay_request SET requested_at = requested_at - INTERVAL '30' DAY"
                + " WHERE requested_by = ?", person);
    }

    /** Closes this person's page, logs the approver in and presses approve or reject beside the waiting request. */
    private void decideAsTheApprover(String decision, String request) {
        browser.quit();
        open("approver", "approver-password");
        waitForText(By.id("who"), "approver (outbox-approver)");
        click(By.cssSelector("nav button[data-view=replay]"));
        click(By.cssSelector("button[data-decide=" + decision + "][data-request='" + request + "']"));
    }

    /** The parked count the backlog view shows for a type (0 without a row). */
    private long parkedShown(String eventType) {
        for (WebElement line : browser.findElements(By.cssSelector("#backlog-rows tr"))) {
            List<WebElement> cells = line.findElements(By.tagName("td"));
            if (cells.size() == 6 && cells.get(0).getText().equals(eventType)) {
                return Long.parseLong(cells.get(4).getText());
            }
        }
        return 0;
    }

    /**
     * Issue 41 (R5.7): a consumer waiting for a missing version is listed with the versions it misses; the operator
     * skips them from the page, which asks for the reason and says what a skip costs, and the version that waited is
     * applied; the skip is in the audit trail.
     */
    @Test
    void anOperatorSeesAConsumersGapAndSkipsItFromTheConsole() throws IOException {
        Reply placed = service.placeOrder("console-gap-" + UUID.randomUUID(), new java.math.BigDecimal("5"));
        assertEquals(201, placed.status(), placed.toString());
        String order = placed.orderId();
        await(SOON, "OrderPlaced processed by shipping", () -> db.count("processed_event",
                "consumer = 'shipping' AND aggregate_id = '" + order + "'"), n -> n == 1);
        java.time.OffsetDateTime now = java.time.OffsetDateTime.now(java.time.ZoneOffset.UTC);
        db.using(dev.outbox.internal.persistence.RecordedRow.pending("Order", order, 3, "OrderAmended")
                .recordedAt(now).dueAt(now)::insert);
        await(SOON, "version 3 waiting at shipping for version 2", () -> db.count("inbox_waiting",
                "consumer = 'shipping' AND aggregate_id = '" + order + "'"), n -> n == 1);

        open("operator", "operator-password");
        waitForText(By.id("who"), "operator");
        click(By.cssSelector("nav button[data-view=gaps]"));
        waitForText(By.id("gap-rows"), order);
        shot("13-consumer-gap");
        click(By.cssSelector("button[data-skip='shipping Order " + order + "']"));
        Alert why = new WebDriverWait(browser, SOON).until(ExpectedConditions.alertIsPresent());
        assertTrue(why.getText().contains("versions 2 to 2") && why.getText().contains("never be applied"),
                "the page says what the skip costs: " + why.getText());
        why.sendKeys("version 2 was lost with the old broker");
        why.accept();
        waitForText(By.id("message"), "skipped versions 2 to 2 of " + order + " at shipping");
        await(SOON, "version 3 applied after the skip", () -> db.count("processed_event",
                "consumer = 'shipping' AND aggregate_id = '" + order + "' AND aggregate_version = 3"), n -> n == 1);
        click(By.id("gaps-load"));
        new WebDriverWait(browser, SOON).withMessage("the gap is no longer listed")
                .ignoring(StaleElementReferenceException.class)
                .until(d -> !d.findElement(By.id("gap-rows")).getText().contains(order));
        shot("14-consumer-gap-skipped");
        click(By.cssSelector("nav button[data-view=audit]"));
        click(By.id("audit-load"));
        waitForText(By.id("audit-rows"), "lost with the old broker");
    }

    @Test
    void anApproversPageOffersNoRepair() throws IOException {
        String id = parkOne().eventId().toString();
        open("approver", "approver-password");
        waitForText(By.id("who"), "approver (outbox-approver)");
        click(By.cssSelector("nav button[data-view=parked]"));
        waitForText(By.id("parked-groups"), id);
        assertTrue(browser.findElements(By.cssSelector("button[data-event], .group-resume")).isEmpty(),
                "an approver sees the parked event but is offered neither opening its body nor resuming");
        assertFalse(browser.findElement(By.id("lookup")).isDisplayed(), "nor looking up an event's body");
        click(By.cssSelector("nav button[data-view=replay]"));
        assertFalse(browser.findElement(By.id("replay-request")).isDisplayed(), "nor requesting a replay");
        assertTrue(browser.findElement(By.id("request-approve")).isDisplayed(), "but approving one");
        shot("7-approver");
    }

    @Test
    void anAnonymousVisitorGetsTheLoginNotTheConsole() throws Exception {
        browser = chromium();
        browser.get(Settings.required("it.base.url") + "/outbox-admin/");
        assertFalse(browser.getPageSource().contains("Outbox console"), "no console without a login: "
                + browser.getPageSource());
        shot("0-anonymous");
        // What the browser got: the server's own login challenge (a person's browser asks for user and password).
        HttpResponse<String> page = service.exchange("GET", "outbox-admin/", null, null, java.util.Map.of(), null);
        assertEquals(401, page.statusCode());
        assertTrue(page.headers().firstValue("WWW-Authenticate").orElse("").startsWith("Basic"), page.headers().map()
                .toString());
    }

    private void open(String user, String password) {
        browser = chromium();
        // The browser's own Basic login; Chromium keeps the credentials for the page's calls to api/.
        String base = Settings.required("it.base.url").replace("://", "://" + user + ":" + password + "@");
        browser.get(base + "/outbox-admin/");
    }

    private static WebDriver chromium() {
        String binary = Settings.optional("it.chromium", "/usr/bin/chromium");
        String driver = Settings.optional("it.chromedriver", "/usr/bin/chromedriver");
        for (String program : List.of(binary, driver)) {
            assertTrue(Files.isExecutable(Path.of(program)), program + " is missing: the console's browser tests need"
                    + " Debian's chromium and chromium-driver packages (.ci/run installs them), or -Dit.chromium and"
                    + " -Dit.chromedriver pointing at others");
        }
        ChromeOptions options = new ChromeOptions();
        options.setBinary(binary);
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1280,900");
        return new ChromeDriver(new ChromeDriverService.Builder().usingDriverExecutable(new File(driver)).build(),
                options);
    }

    private WebElement waitFor(By what) {
        return new WebDriverWait(browser, SOON).until(ExpectedConditions.visibilityOfElementLocated(what));
    }

    private void waitForText(By what, String text) {
        new WebDriverWait(browser, SOON).withMessage(() -> "'" + text + "' in " + what + ", page: "
                + browser.findElement(By.tagName("body")).getText()).until(
                ExpectedConditions.textToBePresentInElementLocated(what, text));
    }

    private void click(By what) {
        waitFor(what).click();
    }

    private void shot(String name) throws IOException {
        Files.createDirectories(screenshots());
        File png = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE);
        Files.copy(png.toPath(), screenshots().resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
    }
}
