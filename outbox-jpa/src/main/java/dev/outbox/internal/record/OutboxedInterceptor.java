package dev.outbox.internal.record;

import dev.outbox.Outboxed;
import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;

/** Runs an {@link Outboxed} command inside a JTA transaction and writes its events before it returns. */
@Outboxed
@Interceptor
@Priority(Interceptor.Priority.LIBRARY_BEFORE + 100)
public class OutboxedInterceptor {

    @Inject
    RequiredTransaction transaction;

    @Inject
    EventRecording recorder;

    @AroundInvoke
    Object aroundCommand(InvocationContext invocation) throws Exception {
        return transaction.call(() -> recorder.command(invocation::proceed));
    }
}
