package ${package}.statements;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import java.math.BigDecimal;

/** One applied MoneyDeposited event: the statement's line, keyed by the event's id. */
@Entity
@Table(name = "statement_line")
public class StatementLine {

    @Id
    private String eventId;

    private String accountId;

    private long accountVersion;

    @Column(precision = 19, scale = 2)
    private BigDecimal amount;

    protected StatementLine() {
    }

    StatementLine(String eventId, String accountId, long accountVersion, BigDecimal amount) {
        this.eventId = eventId;
        this.accountId = accountId;
        this.accountVersion = accountVersion;
        this.amount = amount;
    }

    public String eventId() {
        return eventId;
    }

    public String accountId() {
        return accountId;
    }

    public long accountVersion() {
        return accountVersion;
    }

    public BigDecimal amount() {
        return amount;
    }
}
