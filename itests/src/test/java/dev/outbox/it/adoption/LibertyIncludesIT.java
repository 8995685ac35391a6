package dev.outbox.it.adoption;

import dev.outbox.it.support.CrashServer;
import dev.outbox.it.support.ExampleService;
import dev.outbox.it.support.ExampleService.Reply;
import dev.outbox.it.support.LibertyProcess;
import dev.outbox.it.support.ServerLog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;

import static dev.outbox.it.support.Eventually.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 45, as an adopter meets it on Open Liberty: a service that includes the core and the transports' parts
 * (outbox.xml, outbox-jms.xml, outbox-kafka.xml) but not the admin part answers its own API, its health and its
 * metrics with no admin jar anywhere, and keeps the admin API closed (that the core alone turns on no messaging,
 * security or REST feature is PublishedServerConfigTest's); a server that
 * includes the admin part (outbox-admin.xml) without the login lockout's jar says so at start, in one line naming
 * the file. On the H2 run's process-level server, whose jar is moved away for the test and put back after.
 */
@EnabledIfSystemProperty(named = "it.db", matches = "h2")
class LibertyIncludesIT {

    private final ExampleService service = CrashServer.service();
    private final LibertyProcess server = CrashServer.process(service);
    private Path jar;
    private Path away;
    private Path adminInclude;
    private String adminIncludeAsShipped;
    private Path ear;
    private byte[] earAsShipped;

    @BeforeEach
    void moveTheLoginJarAway() throws Exception {
        server.deleteOverride("failpoint.xml");
        jar = server.serverDir().resolve("lib/outbox/outbox-liberty-login.jar");
        away = server.serverDir().resolve("outbox-liberty-login.jar.away");
        assertTrue(Files.isRegularFile(jar), "the test server holds the login jar before the test: " + jar);
        Files.move(jar, away, StandardCopyOption.REPLACE_EXISTING);
        adminInclude = server.serverDir().resolve("outbox-admin.xml");
        adminIncludeAsShipped = Files.readString(adminInclude);
        ear = server.serverDir().resolve("dropins/example-ear.ear");
        earAsShipped = Files.readAllBytes(ear);
    }

    @AfterEach
    void putItBack() throws Exception {
        server.stop();
        server.kill();
        Files.writeString(adminInclude, adminIncludeAsShipped);
        Files.write(ear, earAsShipped);
        Files.move(away, jar, StandardCopyOption.REPLACE_EXISTING);
    }

    @Test
    void aServiceThatIncludesTheCoreAndTheTransportsButNotTheAdminPartAnswersItsOwnApiWithoutTheAdminJar() throws Exception {
        // A service without the admin WAR: the example's EAR without it, and the example's server.xml's include of
        // outbox-admin.xml emptied, so the server has the core (outbox.xml) and the transports' parts
        // (outbox-jms.xml, and outbox-kafka.xml, which turns on no feature) and no lockout jar.
        Files.write(ear, withoutTheAdminWar(earAsShipped));
        Files.writeString(adminInclude, "<server description=\"no admin part: the core and the transports\"/>");
        server.start();
        Reply placed = service.placeOrder("core-only-" + UUID.randomUUID(), BigDecimal.ONE);
        assertEquals(201, placed.status(), "the service's own API: " + placed);
        assertEquals(200, service.health("health/ready").status(), "readiness answers without a login");
        assertTrue(service.metrics().contains("outbox_"), "/metrics answers without a login, outbox series included");
        assertEquals(404, service.admin(null, null, "GET", "parked?limit=1", null).status(), "no admin API deployed");
        assertTrue(ServerLog.linesSoFar(server.serverDir()).noneMatch(line -> line.contains("CWWKS1203E")),
                "no refused request in the log (the lockout was never loaded)");
    }

    @Test
    void theAdminIncludeWithoutItsJarSaysWhichFileIsMissingInOneLine() throws Exception {
        server.launch(); // every request is refused (CWWKS1203E), so "answering" never comes: wait for the log
        String line = await(Duration.ofSeconds(90), "the admin WAR's start-up line about the missing jar",
                () -> ServerLog.linesSoFar(server.serverDir()).filter(l -> l.contains("OUTBOX-6001")).findFirst(),
                Optional::isPresent).orElseThrow();
        assertTrue(line.contains(jar.normalize().toString()) && line.contains("outbox.admin.login.jar"),
                "the line names the missing file and its setting: " + line);
    }

    /** The EAR as a service without the admin API ships it: no outbox-admin.war, no module for it. */
    private static byte[] withoutTheAdminWar(byte[] shipped) throws java.io.IOException {
        java.io.ByteArrayOutputStream rewritten = new java.io.ByteArrayOutputStream();
        try (java.util.zip.ZipInputStream in = new java.util.zip.ZipInputStream(new java.io.ByteArrayInputStream(shipped));
             java.util.zip.ZipOutputStream out = new java.util.zip.ZipOutputStream(rewritten)) {
            for (java.util.zip.ZipEntry entry = in.getNextEntry(); entry != null; entry = in.getNextEntry()) {
                if (entry.getName().equals("outbox-admin.war")) {
                    continue;
                }
                byte[] content = in.readAllBytes();
                if (entry.getName().equals("META-INF/application.xml")) {
                    String xml = new String(content, java.nio.charset.StandardCharsets.UTF_8);
                    String stripped = xml.replaceAll("(?s)<module>\\s*<web>\\s*<web-uri>outbox-admin\\.war</web-uri>.*?</module>", "");
                    assertNotEquals(xml, stripped, "application.xml declared the admin WAR's module");
                    content = stripped.getBytes(java.nio.charset.StandardCharsets.UTF_8);
                }
                out.putNextEntry(new java.util.zip.ZipEntry(entry.getName()));
                out.write(content);
                out.closeEntry();
            }
        }
        return rewritten.toByteArray();
    }
}
