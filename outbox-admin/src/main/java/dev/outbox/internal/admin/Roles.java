package dev.outbox.internal.admin;

/** The two roles of the admin API; the server maps them to its users or groups. */
public final class Roles {

    /** Lists, shows, repairs and resumes parked events; previews and requests replays. */
    public static final String OPERATOR = dev.outbox.internal.ops.OperatorRoles.OPERATOR;

    /** Approves or rejects a replay someone else requested (R9.4). */
    public static final String APPROVER = dev.outbox.internal.ops.OperatorRoles.APPROVER;

    private Roles() {
    }
}
