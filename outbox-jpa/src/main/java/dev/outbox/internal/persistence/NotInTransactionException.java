package dev.outbox.internal.persistence;

import dev.outbox.internal.config.Settings;

/**
 * The outbox's datasource handed out a connection that is not part of the caller's JTA transaction (R1.1): the
 * outbox's rows would commit on their own, a dual write. Its message names the setting and the server options.
 */
public class NotInTransactionException extends IllegalStateException {

    public NotInTransactionException(String dataSource) {
        super("the outbox datasource " + dataSource + " (setting " + Settings.DATASOURCE + ") is not part of the"
                + " caller's JTA transaction: its connection is in auto-commit mode inside an active transaction, so the"
                + " outbox's rows would commit on their own whatever the transaction does (R1.1). Name a datasource the"
                + " server enlists in JTA transactions, the one the business change uses (Liberty: a dataSource without"
                + " transactional=\"false\"; WildFly: a datasource with jta=true)");
    }
}
