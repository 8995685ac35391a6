package dev.outbox.example;

import jakarta.json.Json;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.Provider;

import java.nio.charset.Charset;

/**
 * The example's copy of the admin API's filter (an application cannot see the outbox's internal classes).
 * Refuses a request whose Accept or Content-Type header cannot be read, before the JAX-RS runtime negotiates with
 * it: RESTEasy answers a q value that is not a number, or a charset it does not know, with a 500 and a stack trace
 * in the log, where a client's mistake deserves a 400 (or 415) that names the header.
 */
@Provider
@PreMatching
public class UnreadableHeaders implements ContainerRequestFilter {

    @Override
    public void filter(ContainerRequestContext request) {
        String accept = request.getHeaderString(HttpHeaders.ACCEPT);
        if (accept != null && !readableAccept(accept)) {
            refuse(request, Response.Status.BAD_REQUEST, "the Accept header is not a list of media types with"
                    + " numeric q values");
            return;
        }
        String contentType = request.getHeaderString(HttpHeaders.CONTENT_TYPE);
        if (contentType != null && !readableContentType(contentType)) {
            refuse(request, Response.Status.UNSUPPORTED_MEDIA_TYPE, "the Content-Type header is not a media type"
                    + " in a charset this server knows; send application/json in UTF-8");
        }
    }

    static boolean readableAccept(String accept) {
        if (accept.isBlank()) {
            return true;
        }
        for (String range : accept.split(",")) {
            if (range.isBlank()) {
                return false; // RESTEasy reads an empty item as a media type too, and fails with a 500
            }
            try {
                String q = MediaType.valueOf(range.strip()).getParameters().get("q");
                if (q != null) {
                    Float.parseFloat(q);
                }
            } catch (IllegalArgumentException unreadable) { // NumberFormatException is one
                return false;
            }
        }
        return true;
    }

    static boolean readableContentType(String contentType) {
        try {
            String charset = MediaType.valueOf(contentType.strip()).getParameters().get("charset");
            return charset == null || Charset.isSupported(charset);
        } catch (IllegalArgumentException unreadable) { // IllegalCharsetNameException is one
            return false;
        }
    }

    private static void refuse(ContainerRequestContext request, Response.Status status, String message) {
        request.abortWith(Response.status(status).type(MediaType.APPLICATION_JSON)
                .entity(Json.createObjectBuilder().add("error", message).build()).build());
    }
}
