package dev.outbox.internal.ops;

/**
 * The two roles of the operations EJBs (and of the admin API in front of them); the server maps them to its users
 * or groups. The EJBs check them and take the acting person from the container, never from an argument, so no
 * code in the application can repair, replay or approve in somebody else's name.
 */
public final class OperatorRoles {

    /** Lists, shows, repairs and resumes parked events; previews and requests replays. */
    public static final String OPERATOR = "outbox-operator";

    /** Approves or rejects a replay someone else requested (R9.4). */
    public static final String APPROVER = "outbox-approver";

    private OperatorRoles() {
    }
}
