package ${package}.accounts;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import java.math.BigDecimal;

/**
 * An account: the aggregate whose events the outbox publishes. Its version counts its changes (1, 2, 3 ...), and
 * each change's event carries the version it made, with no hole: a consumer applies an account's events in that
 * order and waits for a missing one.
 */
@Entity
@Table(name = "account")
public class Account {

    @Id
    private String id;

    @Column(precision = 19, scale = 2)
    private BigDecimal balance;

    private long version;

    protected Account() {
    }

    static Account open(String id) {
        Account account = new Account();
        account.id = id;
        account.balance = BigDecimal.ZERO;
        account.version = 0;
        return account;
    }

    /** Adds the amount and returns the version this change makes. */
    long deposit(BigDecimal amount) {
        balance = balance.add(amount);
        version = version + 1;
        return version;
    }

    public String id() {
        return id;
    }

    public BigDecimal balance() {
        return balance;
    }

    public long version() {
        return version;
    }
}
