package dev.outbox.liberty.login;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;

/** The user name and password of an HTTP Basic {@code Authorization} header (RFC 7617, UTF-8). */
record BasicCredentials(String user, String password) {

    @Override
    public String toString() {
        return "BasicCredentials[user=" + user + "]"; // R6.3: never a secret in a log line
    }

    /**
     * Whether the header's scheme is Basic, whatever its case and whatever follows: every such header is the
     * interceptor's, well-formed or not, since Liberty's own decoder reads malformed Base64 that Java's refuses.
     */
    static boolean isBasic(String header) {
        if (header == null) {
            return false;
        }
        String stripped = header.strip();
        return stripped.regionMatches(true, 0, "Basic", 0, 5)
                && (stripped.length() == 5 || Character.isWhitespace(stripped.charAt(5)));
    }

    /** Empty when the header is not Basic, not strict Base64 or has no colon: the interceptor then refuses it. */
    static Optional<BasicCredentials> parse(String header) {
        if (!isBasic(header)) {
            return Optional.empty();
        }
        String decoded;
        try {
            decoded = new String(Base64.getDecoder().decode(header.strip().substring(5).strip()), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        int colon = decoded.indexOf(':');
        if (colon <= 0) {
            return Optional.empty();
        }
        return Optional.of(new BasicCredentials(decoded.substring(0, colon), decoded.substring(colon + 1)));
    }
}
