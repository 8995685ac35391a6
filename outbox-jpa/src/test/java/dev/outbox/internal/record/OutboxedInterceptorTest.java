package dev.outbox.internal.record;

import dev.outbox.CommitFailedException;
import jakarta.interceptor.InvocationContext;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.Callable;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** What an {@code @Outboxed} command's caller gets when its transaction fails as it ends. */
class OutboxedInterceptorTest {

    /** A command that declares one checked exception of its own. */
    interface Commands {
        void place() throws IOException;
    }

    private static OutboxedInterceptor interceptorWhoseTransactionThrows(Exception failure) {
        OutboxedInterceptor interceptor = new OutboxedInterceptor();
        interceptor.transaction = new RequiredTransaction() {
            @Override
            public <T> T call(Callable<T> work) throws Exception {
                throw failure;
            }
        };
        return interceptor;
    }

    @Test
    void anUndeclaredCheckedFailureOfTheTransactionsEndBecomesACommitFailedExceptionWithItsCause() throws Exception {
        // Open Liberty's @Transactional interceptor lets a heuristic commit outcome out as a checked exception.
        Exception heuristic = new Exception("a server's own checked commit failure");
        CommitFailedException e = assertThrows(CommitFailedException.class,
                () -> interceptorWhoseTransactionThrows(heuristic).aroundCommand(invocationOf("place")));
        assertSame(heuristic, e.getCause(), "the cause chain is kept, so DatabaseOutage can read it");
    }

    @Test
    void theCommandsOwnCheckedAndUncheckedExceptionsPassUnchanged() throws Exception {
        IOException declared = new IOException("the command's own");
        assertSame(declared, assertThrows(IOException.class,
                () -> interceptorWhoseTransactionThrows(declared).aroundCommand(invocationOf("place"))));
        IllegalStateException unchecked = new IllegalStateException("a bug or a mapped failure");
        assertSame(unchecked, assertThrows(IllegalStateException.class,
                () -> interceptorWhoseTransactionThrows(unchecked).aroundCommand(invocationOf("place"))));
    }

    private static InvocationContext invocationOf(String name) throws NoSuchMethodException {
        Method method = Commands.class.getMethod(name);
        return new InvocationContext() {
            public Object getTarget() { return null; }
            public Object getTimer() { return null; }
            public Method getMethod() { return method; }
            public Constructor<?> getConstructor() { return null; }
            public Object[] getParameters() { return new Object[0]; }
            public void setParameters(Object[] params) { }
            public Map<String, Object> getContextData() { return Map.of(); }
            public Object proceed() { return null; }
        };
    }
}
