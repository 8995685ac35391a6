package ${package}.accounts;

import dev.outbox.OutboxEvent;
import dev.outbox.OutboxRecorder;
import dev.outbox.Outboxed;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.persistence.PersistenceContext;

import java.math.BigDecimal;

/**
 * The account commands. A deposit changes the account and records its event in one transaction: both commit, or
 * neither does.
 */
@ApplicationScoped
public class Accounts {

    public static final String MONEY_DEPOSITED = "MoneyDeposited";

    @PersistenceContext(unitName = "service")
    EntityManager entityManager;

    @Inject
    OutboxRecorder outbox;

    /** Deposits into the account (opened by its first deposit) and returns the version the deposit made. */
    @Outboxed // joins or starts a JTA transaction, like @Transactional(REQUIRED)
    public long deposit(String accountId, BigDecimal amount) {
        if (amount.signum() <= 0 || amount.stripTrailingZeros().scale() > 2) {
            throw new IllegalArgumentException("a deposit must be positive, in cents at most, was " + amount);
        }
        BigDecimal cents = amount.setScale(2);
        // The row lock orders concurrent deposits to one account, so their versions are 1, 2, 3 ... with no hole.
        // Two first deposits to a new account both find no row to lock: the second insert of its id fails at the
        // flush, and that deposit rolls back with its event (AccountConflicts answers 409: try again).
        Account account = entityManager.find(Account.class, accountId, LockModeType.PESSIMISTIC_WRITE);
        if (account == null) {
            account = Account.open(accountId);
            entityManager.persist(account);
        }
        long version = account.deposit(cents);
        entityManager.flush();
        String body = Json.createObjectBuilder()
                .add("accountId", accountId)
                .add("amount", cents)
                .build().toString();
        outbox.record(OutboxEvent.of("Account", accountId, version, MONEY_DEPOSITED, body));
        return version;
    }

    public Account find(String accountId) {
        return entityManager.find(Account.class, accountId);
    }
}
