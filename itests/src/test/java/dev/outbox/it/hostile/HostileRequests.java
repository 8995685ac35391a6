package dev.outbox.it.hostile;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;

/**
 * A seeded generator of hostile HTTP requests against the example's API and the admin API: malformed, truncated,
 * oversized, wrongly typed and unicode-edge JSON, wrong content types, huge headers and path ids, bad credentials.
 * The same seed gives the same requests, so a failure in CI is replayed with {@code -Dit.hostile.seed}.
 *
 * <p>Every text a request carries that a server could log (customer ids, notes, event bodies) contains
 * {@code marker}, so the campaign can look for it in the server's logs afterwards.
 */
final class HostileRequests {

    /** One request: what kind of attack, and everything needed to send it. */
    record Attack(String kind, String method, String path, Map<String, String> headers, byte[] body, Target target) {

        /** A line for a failure message: the kind and the request's shape, never a megabyte of body. */
        String describe() {
            String shownPath = path.length() > 120 ? path.substring(0, 120) + "...(" + path.length() + " chars)" : path;
            String shownBody = body == null ? "no body" : body.length > 160
                    ? new String(body, 0, 160, StandardCharsets.ISO_8859_1) + "...(" + body.length + " bytes)"
                    : new String(body, StandardCharsets.ISO_8859_1);
            Map<String, String> shownHeaders = new LinkedHashMap<>();
            headers.forEach((name, value) -> shownHeaders.put(name,
                    value.length() > 80 ? value.substring(0, 80) + "...(" + value.length() + " chars)" : value));
            return kind + ": " + method + " " + shownPath + " " + shownHeaders + " " + shownBody;
        }
    }

    /** The start of the kind of an attack whose request no server may accept: the campaign asserts a 4xx. */
    static final String MUST_BE_REFUSED = "refused: ";

    /** Whether a request goes to the example's API or to the admin API (its path is relative to either). */
    enum Target { API, ADMIN }

    private static final String JSON = "application/json";
    private static final String[] PEOPLE = {"operator", "approver", "lead"};
    // Wrong passwords go to lead (or names nobody has) only: the server locks a name after a few (issue 19), and
    // the garbage attacks, as operator or approver, must still get past the login to reach the parsers.
    private static final String GUESSED = "lead";
    private static final String[] LOGGED_IN = {"operator", "approver"};

    private final Random random;
    private final String marker;
    private final String targetOrder;
    private int serial;

    /**
     * @param targetOrder an order that exists, the target of the attacks on {@code pay}, {@code notes} and
     *                    {@code GET}, so the campaign can check that only accepted commands changed it
     */
    HostileRequests(long seed, String marker, String targetOrder) {
        this.random = new Random(seed);
        this.marker = marker;
        this.targetOrder = targetOrder;
    }

    List<Attack> campaign(int size) {
        List<Attack> attacks = new ArrayList<>(size);
        attacks.addAll(regressions());
        while (attacks.size() < size) {
            attacks.add(next());
        }
        return attacks;
    }

    /** Requests that once got a 500, sent in every campaign whatever the seed. */
    private List<Attack> regressions() {
        List<Attack> found = new ArrayList<>();
        serial++;
        found.add(place("regression: amount beyond the plain-string limit", JSON,
                "{\"customerId\":\"" + customer() + "\",\"amount\":1e999999999}"));
        serial++;
        found.add(place("regression: amount with a billion decimals", JSON,
                "{\"customerId\":\"" + customer() + "\",\"amount\":1E-999999999}"));
        serial++;
        found.add(place("regression: a number longer than the parser allows", JSON,
                "{\"customerId\":\"" + customer() + "\",\"amount\":1" + "0".repeat(5_000) + "}"));
        found.add(place("regression: nesting deeper than the parser allows", JSON, "{\"a\":".repeat(2_000)));
        serial++;
        found.add(place("regression: NUL in the customer id", JSON,
                "{\"customerId\":\"" + customer() + "\\u0000\",\"amount\":1}"));
        serial++;
        found.add(new Attack("regression: a q value that is not a number", "POST", "orders",
                Map.of("Content-Type", JSON, "Accept", "*/*;q=garbage"), validPlacement().getBytes(StandardCharsets.UTF_8),
                Target.API));
        serial++;
        found.add(new Attack("regression: an unknown charset", "POST", "orders",
                Map.of("Content-Type", JSON + "; charset=nonsense"), validPlacement().getBytes(StandardCharsets.UTF_8),
                Target.API));
        found.add(new Attack("regression: an admin body that is an array", "POST", "replays",
                Map.of("Content-Type", JSON, "Authorization", basic("operator", "operator-password")),
                "[]".getBytes(StandardCharsets.UTF_8), Target.ADMIN));
        found.add(new Attack("regression: an admin q value that is not a number", "GET", "parked",
                Map.of("Accept", "*/*;q=garbage", "Authorization", basic("operator", "operator-password")), null,
                Target.ADMIN));
        return found;
    }

    private Attack next() {
        serial++;
        return switch (random.nextInt(12)) {
            case 0, 1 -> truncatedOrMangledPlacement();
            case 2, 3 -> wronglyTypedPlacement();
            case 4 -> unicodeEdgePlacement();
            case 5 -> oversizedPlacement();
            case 6 -> wrongContentType();
            case 7 -> hugeOrOddHeaders();
            case 8 -> hostilePathId();
            case 9 -> payOrNoteWithGarbage();
            case 10 -> adminWithoutTheRightCredentials();
            default -> adminWithGarbage();
        };
    }

    // --- The example's API -------------------------------------------------------------------------------------

    private String customer() {
        return "hostile-" + marker + "-" + serial;
    }

    private String validPlacement() {
        return "{\"customerId\":\"" + customer() + "\",\"amount\":12.50,\"note\":\"note " + marker + "\"}";
    }

    private Attack truncatedOrMangledPlacement() {
        String valid = validPlacement();
        switch (random.nextInt(3)) {
            case 0 -> {
                return place(MUST_BE_REFUSED + "content after the object", JSON,
                        valid + pick("}", "]", ",", "garbage", "{}", "\u0000", "/* comment */", "{"));
            }
            case 1 -> {
                return place(MUST_BE_REFUSED + "not an object", JSON, pick("[" + valid + "]", "null", "42",
                        "\"" + marker + "\"", "[]", "true"));
            }
            default -> {
                // mangled below: some mangles still leave a valid placement, which may be accepted
            }
        }
        String body = switch (random.nextInt(9)) {
            case 0 -> valid.substring(0, random.nextInt(valid.length()));
            case 1 -> mutate(valid, 1 + random.nextInt(4));
            case 2 -> valid.substring(0, valid.length() - 1);
            case 3 -> "{" + valid;
            case 4 -> valid.replace(":", pick("=", " : :", "", "::"));
            case 5 -> valid.replace("\"", pick("'", "", "\\\"", "\u201c"));
            case 6 -> "{\"customerId\":\"" + customer() + "\",\"customerId\":\"" + customer() + "-twice\",\"amount\":1}";
            case 7 -> pick("", " ", "null", "true", "42", "\"" + marker + "\"", "{", "}", "[]", "{,}", "{\"\":}");
            default -> "{\"customerId\":\"" + customer() + "\",\"amount\":12.50,}";
        };
        return place("mangled JSON", JSON, body);
    }

    private String mutate(String text, int edits) {
        StringBuilder mutated = new StringBuilder(text);
        String alphabet = "{}[]\":,\\ \t\n0-.eE+nulltrue\u0000\u00ff\u2028";
        for (int i = 0; i < edits && mutated.length() > 0; i++) {
            int at = random.nextInt(mutated.length());
            switch (random.nextInt(3)) {
                case 0 -> mutated.deleteCharAt(at);
                case 1 -> mutated.insert(at, alphabet.charAt(random.nextInt(alphabet.length())));
                default -> mutated.setCharAt(at, alphabet.charAt(random.nextInt(alphabet.length())));
            }
        }
        return mutated.toString();
    }

    private Attack wronglyTypedPlacement() {
        String customer = pick("123", "true", "null", "[]", "{}", "[\"" + customer() + "\"]", "\"\"", "\"   \"",
                "\"" + customer() + "x".repeat(100) + "\"", "\"" + customer() + "\"", "\"" + customer() + "\"",
                "{\"id\":\"" + customer() + "\"}", "1e400");
        String amount = pick("\"12\"", "-1", "0", "-0", "0.001", "1e999999999", "1E-999999999",
                "123456789012345678901234567890", "9999999999.99", "9999999999.999", "10000000000", "1E+2", "[]",
                "null", "true", "\"NaN\"", "\"Infinity\"", "{}", "12.50", "0.1e1", "-1e-2", "1" + "0".repeat(5000),
                "0." + "0".repeat(5000) + "1", "12.5000000000000000000000000000001");
        String note = pick("", ",\"note\":123", ",\"note\":[]", ",\"note\":null", ",\"note\":{\"x\":\"" + marker + "\"}",
                ",\"note\":\"" + marker + "\"", ",\"note\":true");
        return place("wrong types", JSON, "{\"customerId\":" + customer + ",\"amount\":" + amount + note + "}");
    }

    private Attack unicodeEdgePlacement() {
        String edge = pick("\\u0000", "\u0000", "\\ud800", "\\udfff", "\\ud800\\ud800", "\ud83d\ude00", "\\ud83d\\ude00",
                "\u202e", "\ufeff", "\uffff", "\\uffff", "e\u0301", "\u0007\u001b[31m", "\\n\\r\\t", "\u2028\u2029",
                "\ud83d\ude00".repeat(60), "\u00e9".repeat(120), "\\", "\\x41", "\\u00", "\\uZZZZ", "%00", "' OR '1'='1",
                "\"; DROP TABLE orders; --", "${jndi:ldap://127.0.0.1/a}", "<script>alert(1)</script>");
        boolean inCustomer = random.nextBoolean();
        String customer = inCustomer ? customer() + edge : customer();
        String note = inCustomer ? "note " + marker : "note " + marker + edge;
        String body = "{\"customerId\":\"" + customer + "\",\"amount\":3,\"note\":\"" + note + "\"}";
        if (random.nextInt(4) == 0) {
            // Bytes that are not UTF-8 at all: an overlong slash, a lone continuation byte, 0xFF.
            byte[] text = body.getBytes(StandardCharsets.UTF_8);
            byte[] broken = new byte[text.length + 2];
            int at = body.indexOf(marker) + marker.length();
            System.arraycopy(text, 0, broken, 0, at);
            byte[][] bad = {{(byte) 0xC0, (byte) 0xAF}, {(byte) 0x80, (byte) 0x80}, {(byte) 0xFF, (byte) 0xFE}};
            byte[] chosen = bad[random.nextInt(bad.length)];
            broken[at] = chosen[0];
            broken[at + 1] = chosen[1];
            System.arraycopy(text, at, broken, at + 2, text.length - at);
            return new Attack("invalid UTF-8", "POST", "orders", Map.of("Content-Type", JSON), broken, Target.API);
        }
        return place("unicode edge", JSON, body);
    }

    private Attack oversizedPlacement() {
        String body = switch (random.nextInt(6)) {
            case 0 -> "{\"customerId\":\"" + customer() + "\",\"amount\":1,\"note\":\"" + marker
                    + "n".repeat(300_000) + "\"}";
            case 1 -> "[".repeat(100_000);
            case 2 -> "{\"a\":".repeat(20_000) + "1" + "}".repeat(20_000);
            case 3 -> "{\"customerId\":\"" + customer() + "\",\"amount\":1," + fields(5_000) + "}";
            case 4 -> "{\"customerId\":\"" + customer() + "\",\"amount\":1,\"note\":\"" + marker
                    + "\\u00e9".repeat(50_000) + "\"}";
            default -> "{\"customerId\":\"" + customer() + "x".repeat(200_000) + "\",\"amount\":1}";
        };
        return place("oversized", JSON, body);
    }

    private static String fields(int count) {
        StringBuilder fields = new StringBuilder();
        for (int i = 0; i < count; i++) {
            fields.append(i == 0 ? "" : ",").append("\"f").append(i).append("\":").append(i);
        }
        return fields.toString();
    }

    private Attack wrongContentType() {
        String type = pick("text/plain", "application/xml", "application/x-www-form-urlencoded", "multipart/form-data",
                "application/json; charset=ISO-8859-1", "application/json; charset=nonsense", "application/json;;;",
                "application/json; charset=UTF-16", "*/*", "garbage", "application/", "/json", "",
                "application/json; boundary=\"" + "x".repeat(3000) + "\"");
        Map<String, String> headers = new LinkedHashMap<>();
        if (!type.isEmpty()) {
            headers.put("Content-Type", type);
        }
        if (random.nextBoolean()) {
            headers.put("Accept", pick("application/xml", "text/html", "*/*;q=garbage", "application/json;q=2"));
        }
        return new Attack("wrong content type", "POST", "orders", headers,
                validPlacement().getBytes(StandardCharsets.UTF_8), Target.API);
    }

    private Attack hugeOrOddHeaders() {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", JSON);
        switch (random.nextInt(5)) {
            case 0 -> headers.put("X-Fault-Drill", pick("nonsense", "none;drop", "x".repeat(10_000), "\u00e9t\u00e9",
                    "BUSINESS FAILS"));
            case 1 -> headers.put("X-Hostile", "v".repeat(random.nextBoolean() ? 8_000 : 100_000));
            case 2 -> {
                for (int i = 0; i < 300; i++) {
                    headers.put("X-Many-" + i, "value-" + i);
                }
            }
            case 3 -> headers.put("Cookie", "LtpaToken2=" + "A".repeat(20_000));
            default -> headers.put("Authorization", "Basic " + "%%%".repeat(1_000));
        }
        return new Attack("odd headers", "POST", "orders", headers, validPlacement().getBytes(StandardCharsets.UTF_8),
                Target.API);
    }

    private String hostileId() {
        return switch (random.nextInt(10)) {
            case 0 -> "a".repeat(random.nextBoolean() ? 200 : 10_000);
            case 1 -> "%00";
            case 2 -> "..%2F..%2Foutbox-admin%2Fapi%2Fparked";
            case 3 -> encode("\u00e9\ud83d\ude00" + serial);
            case 4 -> encode("' OR '1'='1");
            case 5 -> "%20";
            case 6 -> encode(UUID.randomUUID().toString());
            case 7 -> encode(targetOrder + "\u0000");
            case 8 -> "%ef%bf%bf";
            default -> "%C0%AF";
        };
    }

    private Attack hostilePathId() {
        String id = hostileId();
        return switch (random.nextInt(3)) {
            case 0 -> new Attack("path id", "GET", "orders/" + id, Map.of(), null, Target.API);
            case 1 -> new Attack("path id", "POST", "orders/" + id + "/pay", Map.of("Content-Type", JSON),
                    "{\"version\":1}".getBytes(StandardCharsets.UTF_8), Target.API);
            default -> new Attack("path id", "POST", "orders/" + id + "/notes", Map.of("Content-Type", JSON),
                    ("{\"note\":\"" + marker + "\"}").getBytes(StandardCharsets.UTF_8), Target.API);
        };
    }

    private Attack payOrNoteWithGarbage() {
        if (random.nextBoolean()) {
            String version = pick("0", "-1", "1.5", "1e20", "\"1\"", "null", "[]", "{}", "true", "99999999999999999999",
                    "1" + "0".repeat(400), "2");
            String body = pick("{\"version\":" + version + "}", "{\"version\":" + version, "", "[]", "{\"x\":1}",
                    "{\"version\":" + version + ",\"version\":1}");
            return new Attack("pay garbage", "POST", "orders/" + targetOrder + "/pay", Map.of("Content-Type", JSON),
                    body.getBytes(StandardCharsets.UTF_8), Target.API);
        }
        String note = pick("\"\"", "\" \"", "123", "null", "[\"" + marker + "\"]",
                "\"" + marker + "x".repeat(1_000) + "\"", "\"" + marker + "\\u0000\"", "\"" + marker + "\\ud800\"");
        return new Attack("note garbage", "POST", "orders/" + targetOrder + "/notes", Map.of("Content-Type", JSON),
                ("{\"note\":" + note + "}").getBytes(StandardCharsets.UTF_8), Target.API);
    }

    private Attack place(String kind, String contentType, String body) {
        return new Attack("place " + kind, "POST", "orders", Map.of("Content-Type", contentType),
                body.getBytes(StandardCharsets.UTF_8), Target.API);
    }

    // --- The admin API -----------------------------------------------------------------------------------------

    private String adminPath() {
        String id = random.nextInt(3) == 0 ? hostileId() : UUID.randomUUID().toString();
        return pick("parked", "parked?limit=" + pick("-1", "0", "abc", "99999999999", "1e3", ""),
                "events/" + id, "parked/" + id, "parked/" + id + "/resume", "replays", "replays/" + id,
                "replays/" + id + "/approve", "replays/" + id + "/reject",
                "audit?eventId=" + pick(id, "", "not-a-uuid") + "&limit=" + pick("5", "-5", "x", "2147483648"),
                "audit?actor=" + pick("lead", "", "%00", "%E2%80%AE" + id, "a".repeat(5_000)), "backlog", "me",
                "replays?limit=" + pick("-1", "0", "abc", "99999999999", ""));
    }

    private Attack adminWithoutTheRightCredentials() {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", JSON);
        String credentials = switch (random.nextInt(7)) {
            case 0 -> null;
            case 1 -> basic(GUESSED, "not-the-password-" + serial);
            case 2 -> basic("nobody-" + serial, "x");
            case 3 -> basic(GUESSED + "\u0000", pick(PEOPLE) + "-password");
            case 4 -> "Basic " + pick("!!!", "", "Og==", "dXNlcg==", "x".repeat(5_000));
            case 5 -> pick("Bearer abc.def.ghi", "Digest username=\"operator\"", "Basic", "basic bm9ib2R5Og==" /* nobody: */);
            default -> basic("\u00e9\ud83d\ude00" + "o".repeat(random.nextInt(2_000)), "p");
        };
        if (credentials != null) {
            headers.put("Authorization", credentials);
        }
        String method = pick("GET", "POST", "PUT", "DELETE");
        byte[] body = method.equals("GET") || method.equals("DELETE") ? null
                : ("{\"reason\":\"r\",\"payload\":{\"x\":\"" + marker + "\"},\"schemaVersion\":1}")
                .getBytes(StandardCharsets.UTF_8);
        return new Attack("admin credentials", method, adminPath(), headers, body, Target.ADMIN);
    }

    private Attack adminWithGarbage() {
        Map<String, String> headers = new LinkedHashMap<>();
        String person = pick(LOGGED_IN);
        headers.put("Authorization", basic(person, person + "-password"));
        headers.put("Content-Type", random.nextInt(6) == 0 ? pick("text/plain", "application/xml", "") : JSON);
        if (headers.get("Content-Type").isEmpty()) {
            headers.remove("Content-Type");
        }
        String id = random.nextInt(3) == 0 ? hostileId() : UUID.randomUUID().toString();
        String payload = pick("{\"x\":\"" + marker + "\"}", "[1]", "\"" + marker + "\"", "null", "123",
                "{\"x\":\"" + marker + "n".repeat(300_000) + "\"}");
        String body = pick(
                "{\"payload\":" + payload + ",\"schemaVersion\":" + pick("1", "0", "-1", "1.5", "\"2\"", "4294967298", "null")
                        + ",\"reason\":" + pick("\"fix\"", "\"\"", "null", "123", "\"" + "r".repeat(20_000) + "\"") + "}",
                "{\"payloadRef\":" + pick("\"::not a uri\"", "\"https://example.invalid/" + marker + "\"", "123",
                        "\"" + "u".repeat(5_000) + "\"") + ",\"schemaVersion\":2,\"reason\":\"ref\"}",
                "{\"reason\":" + pick("\"resume\"", "null", "[]", "\"\"") + "}",
                "{\"eventIds\":" + pick("[\"" + id + "\"]", "[1,2]", "\"" + id + "\"", "[]", "[null]",
                        "[" + ("\"" + UUID.randomUUID() + "\",").repeat(2_000) + "\"x\"]") + ",\"dryRun\":"
                        + pick("true", "false", "\"yes\"", "null") + ",\"reason\":\"r\"}",
                "{\"from\":" + pick("\"2999-01-01T00:00:00Z\"", "\"yesterday\"", "0", "null") + ",\"to\":"
                        + pick("\"2999-01-02T00:00:00Z\"", "\"1999-01-01T00:00:00Z\"", "\"\"") + ",\"eventType\":"
                        + pick("\"OrderPlaced\"", "\"" + "T".repeat(500) + "\"", "7") + ",\"dryRun\":false,\"reason\":\"r\"}",
                mutate("{\"payload\":{\"orderId\":\"" + marker + "\"},\"schemaVersion\":2,\"reason\":\"fix\"}", 3),
                "{\"parkedWith\":" + pick("\"a\\u0000b\"", "\"MessageTooLarge\"", "\"" + "p".repeat(5_000) + "\"", "[]")
                        + ",\"dryRun\":true}",
                "{\"from\":\"2020-01-01T00:00:00Z\",\"to\":\"2020-01-02T00:00:00Z\",\"eventType\":"
                        + pick("\"Order\\u0000Paid\"", "\"OrderPaid\"", "\"\\ud800\"") + ",\"dryRun\":true}",
                "", "[]", "{", "null");
        String path = pick("events/" + id, "parked/" + id, "parked/" + id + "/resume", "replays", "replays", "replays/" + id,
                "replays/" + id + "/approve", "replays/" + id + "/reject", "audit?eventId=" + id,
                "parked?limit=" + pick("-1", "abc", "1000000"), "audit?actor=" + pick("%FF", "x&actor=y", "%00")
                        + "&eventId=" + pick(id, "%00"), "backlog", "me", "replays?limit=" + pick("-1", "abc", "1000000"));
        String method = path.startsWith("parked/") && !path.endsWith("/resume") ? pick("PUT", "GET", "DELETE")
                : path.startsWith("events/") || path.startsWith("audit") || path.startsWith("parked?")
                        || path.equals("backlog") || path.equals("me") || path.startsWith("replays?") ? pick("GET", "POST")
                : pick("POST", "GET");
        return new Attack("admin garbage", method, path, headers,
                method.equals("GET") || method.equals("DELETE") ? null : body.getBytes(StandardCharsets.UTF_8),
                Target.ADMIN);
    }

    private static String basic(String user, String password) {
        return "Basic " + java.util.Base64.getEncoder().encodeToString(
                (user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
    }

    @SafeVarargs
    private <T> T pick(T... choices) {
        return choices[random.nextInt(choices.length)];
    }
}
