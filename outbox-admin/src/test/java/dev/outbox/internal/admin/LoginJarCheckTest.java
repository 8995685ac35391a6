package dev.outbox.internal.admin;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The admin include's jar check (issue 45): it names a missing jar, and only when the include asks for one. */
class LoginJarCheckTest {

    @TempDir
    Path folder;

    @Test
    void aMissingJarIsNamed() {
        String path = folder.resolve("lib/outbox/outbox-liberty-login.jar").toString();
        assertEquals(Optional.of(path), LoginJarCheck.missing(Optional.of(path)));
    }

    @Test
    void aJarInPlaceOrNoAdminIncludeIsNotReported() throws IOException {
        Path jar = Files.createFile(folder.resolve("outbox-liberty-login.jar"));
        assertEquals(Optional.empty(), LoginJarCheck.missing(Optional.of(jar.toString())));
        assertEquals(Optional.empty(), LoginJarCheck.missing(Optional.empty()), "WildFly, or no admin include");
    }
}
