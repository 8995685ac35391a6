package dev.outbox.internal.persistence;

import dev.outbox.internal.config.Settings;

import java.sql.SQLTransientConnectionException;

/**
 * The outbox's datasource is not part of the caller's JTA transaction (R1.1): the outbox's rows would commit on
 * their own, a dual write. Its message says what the start-up probe saw ({@link TransactionJoin}), names the setting
 * and the server options. Transient for the callers that tell a poison event from an outage: a consumer waits and
 * tries again until the datasource is fixed, instead of parking or dead-lettering the events it receives meanwhile.
 */
public class NotInTransactionException extends SQLTransientConnectionException {

    public NotInTransactionException(String dataSource, String observed) {
        super("the outbox datasource " + dataSource + " (setting " + Settings.DATASOURCE + ") is not part of the"
                + " caller's JTA transaction: " + observed + ". The outbox's rows would commit or vanish whatever the"
                + " business transaction does (R1.1: a rolled-back command would publish its events, a consumer's"
                + " inbox mark would stay though its change failed). Name a datasource the server enlists in JTA"
                + " transactions, the one the business change uses (Liberty: a dataSource without"
                + " transactional=\"false\"; WildFly: a datasource with jta=true)");
    }

    /** The start-up probe's refusal again, for a write that came after it (R1.1). */
    public NotInTransactionException(NotInTransactionException probed) {
        super(probed.getMessage(), probed);
    }
}
