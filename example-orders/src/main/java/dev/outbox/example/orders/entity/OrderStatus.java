package dev.outbox.example.orders.entity;

public enum OrderStatus {
    PLACED,
    PAID
}
