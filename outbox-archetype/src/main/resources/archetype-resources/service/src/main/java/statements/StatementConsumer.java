package ${package}.statements;

import ${package}.accounts.Accounts;
import dev.outbox.OutboxHeaders;
import dev.outbox.jms.InboxConsumer;
import jakarta.ejb.ActivationConfigProperty;
import jakarta.ejb.MessageDriven;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageListener;
import jakarta.jms.TextMessage;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;

import java.io.StringReader;

/**
 * Applies each MoneyDeposited once, in each account's version order, behind the inbox ({@link InboxConsumer}): the
 * inbox's mark and the statement line commit together in one local transaction, the message is acknowledged after
 * it, and a redelivered event is acknowledged without running this code. The queue is the server's (server.xml),
 * the one outbox.jms.destination names.
 */
@MessageDriven(activationConfig = {
        @ActivationConfigProperty(propertyName = "destinationLookup", propertyValue = "jms/OutboxEvents"),
        @ActivationConfigProperty(propertyName = "destinationType", propertyValue = "jakarta.jms.Queue")})
// No container transaction (no XA): the inbox runs the mark and this change in its own local transaction.
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
@InboxConsumer(StatementConsumer.CONSUMER)
public class StatementConsumer implements MessageListener {

    public static final String CONSUMER = "statements";

    @PersistenceContext(unitName = "service")
    EntityManager entityManager;

    @Override
    public void onMessage(Message message) {
        try {
            if (!Accounts.MONEY_DEPOSITED.equals(message.getStringProperty(OutboxHeaders.EVENT_TYPE))) {
                return;
            }
            JsonObject deposited;
            try (JsonReader reader = Json.createReader(new StringReader(((TextMessage) message).getText()))) {
                deposited = reader.readObject();
            }
            entityManager.persist(new StatementLine(
                    message.getStringProperty(OutboxHeaders.EVENT_ID),
                    deposited.getString("accountId"),
                    message.getLongProperty(OutboxHeaders.AGGREGATE_VERSION),
                    deposited.getJsonNumber("amount").bigDecimalValue()));
        } catch (JMSException e) {
            throw new IllegalStateException("cannot read message " + messageId(message), e);
        }
    }

    private static String messageId(Message message) {
        try {
            return message.getJMSMessageID();
        } catch (JMSException e) {
            return "(unknown)";
        }
    }
}
