package dev.outbox.example;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/** The example's HTTP API under {@code /api}. */
@ApplicationPath("/api")
public class OrdersApplication extends Application {
}
