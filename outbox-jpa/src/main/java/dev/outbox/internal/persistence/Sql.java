package dev.outbox.internal.persistence;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;

/** Small SQL helpers every statement class shares. */
public final class Sql {

    public static String placeholders(int count) {
        return String.join(", ", java.util.Collections.nCopies(count, "?"));
    }

    /**
     * The database's time now: leases, due checks, retries and confirm times are all read on this one clock, never
     * on a server's (servers' clocks differ; R4.3's lease must mean the same to every claimer).
     */
    public static OffsetDateTime clock(Connection connection) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT CURRENT_TIMESTAMP(6) AS db_now");
             ResultSet rs = select.executeQuery()) {
            rs.next();
            return rs.getObject("db_now", OffsetDateTime.class);
        }
    }

    private Sql() {
    }
}
