package ${package}.statements;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;

import java.util.List;

/** Reads an account's statement, in the order its deposits were made. */
@ApplicationScoped
public class Statements {

    @PersistenceContext(unitName = "service")
    EntityManager entityManager;

    public List<StatementLine> of(String accountId) {
        return entityManager.createQuery("SELECT l FROM StatementLine l WHERE l.accountId = :account "
                        + "ORDER BY l.accountVersion", StatementLine.class)
                .setParameter("account", accountId)
                .getResultList();
    }
}
