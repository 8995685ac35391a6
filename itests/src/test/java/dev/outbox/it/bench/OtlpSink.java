package dev.outbox.it.bench;

import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A collector that takes OTLP/HTTP trace exports and drops them, so a traced benchmark round pays what a server
 * pays with a real collector (its batch exporter serialising and posting every span) and counts what arrived.
 */
final class OtlpSink implements AutoCloseable {

    private final HttpServer server;
    private final AtomicLong exports = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();

    private OtlpSink(HttpServer server) {
        this.server = server;
    }

    static OtlpSink start() throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 50);
        OtlpSink sink = new OtlpSink(server);
        server.createContext("/v1/traces", exchange -> {
            try (InputStream body = exchange.getRequestBody()) {
                sink.bytes.addAndGet(body.transferTo(java.io.OutputStream.nullOutputStream()));
            }
            sink.exports.incrementAndGet();
            // An empty ExportTraceServiceResponse: everything accepted.
            exchange.getResponseHeaders().add("Content-Type", "application/x-protobuf");
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        server.start();
        return sink;
    }

    /** The server's OpenTelemetry settings, as environment variables: SDK on, traces to this sink, nothing else. */
    Map<String, String> serverEnvironment() {
        return Map.of("OTEL_SDK_DISABLED", "false", "OTEL_SERVICE_NAME", "orders",
                "OTEL_TRACES_EXPORTER", "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf",
                "OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:" + server.getAddress().getPort(),
                "OTEL_METRICS_EXPORTER", "none", "OTEL_LOGS_EXPORTER", "none");
    }

    long exports() {
        return exports.get();
    }

    long bytes() {
        return bytes.get();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
