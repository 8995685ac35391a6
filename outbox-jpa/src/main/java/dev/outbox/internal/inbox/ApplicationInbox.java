package dev.outbox.internal.inbox;

import dev.outbox.Inbox;
import dev.outbox.InboxedEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.util.Map;
import java.util.function.Consumer;

/**
 * The public {@link Inbox}: an application's own consumer through the same {@link ConsumerInbox} the MDB, Kafka
 * and Reactive Messaging adapters use, releasing every waiting successor in the caller's transaction.
 */
@ApplicationScoped
public class ApplicationInbox implements Inbox {

    @Inject
    ConsumerInbox inbox;

    @Override
    public Receipt receive(String consumer, InboxedEvent event, String previousVersions,
                           Consumer<InboxedEvent> change) throws Exception {
        return inbox.receive(consumer, new Received(event, null, Map.of(),
                Received.previousVersions(previousVersions)), received -> change.accept(received.event()),
                Resequencer.RELEASE_ALL).receipt();
    }
}
