package dev.outbox.liberty.login;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BasicCredentialsTest {

    @Test
    void aBasicHeaderGivesItsUserAndPassword() {
        assertEquals(Optional.of(new BasicCredentials("lead", "pa:ss")), BasicCredentials.parse(basic("lead:pa:ss")));
        assertEquals(Optional.of(new BasicCredentials("\u00e9", "p")), BasicCredentials.parse(basic("\u00e9:p")));
        assertTrue(BasicCredentials.isBasic("basic " + "x"), "the scheme is matched without case");
    }

    @Test
    void headersThatAreNotBasicCredentialsGiveNothing() {
        assertEquals(Optional.empty(), BasicCredentials.parse(null));
        assertEquals(Optional.empty(), BasicCredentials.parse("Bearer abc"));
        assertEquals(Optional.empty(), BasicCredentials.parse("Basic !!!"));
        assertEquals(Optional.empty(), BasicCredentials.parse(basic("no-colon")));
        assertEquals(Optional.empty(), BasicCredentials.parse(basic(":no-user")));
        assertTrue(BasicCredentials.isBasic("Basic"), "a Basic header without credentials is still Basic (refused)");
        assertTrue(BasicCredentials.isBasic("basic\tabc"));
        assertFalse(BasicCredentials.isBasic("Basically abc"));
    }

    @Test
    void thePasswordNeverAppearsInTheTextForm() {
        assertFalse(new BasicCredentials("lead", "secret").toString().contains("secret"));
    }

    private static String basic(String userColonPassword) {
        return "Basic " + Base64.getEncoder().encodeToString(userColonPassword.getBytes(StandardCharsets.UTF_8));
    }
}
