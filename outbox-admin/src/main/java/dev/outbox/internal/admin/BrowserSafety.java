package dev.outbox.internal.admin;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.annotation.WebFilter;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Set;

/**
 * What a browser needs to keep the console and the admin API to themselves (issue 22). A browser that holds an
 * operator's Basic login sends it with any request to this server, also one that another site's page starts
 * (a form, an image, a beacon, a fetch without a preflight): so any API call another site started is refused with
 * 403 (a read too: reading a body is audited in the operator's name), and so is a change to anything else. The
 * browser says where a request came from in {@code Sec-Fetch-Site} (every current browser) or, older ones, in
 * {@code Origin} on changes, which is compared with the {@code Host} asked for. Clients that are not browsers
 * (curl, scripts) send neither and are not affected; a link to the console from another site still opens it.
 * Every answer forbids framing (clickjacking), content sniffing and caching (an event's body must not stay in a
 * cache), and lets the page run only its own files.
 */
@WebFilter(urlPatterns = "/*")
public class BrowserSafety extends HttpFilter {

    private static final Set<String> READS = Set.of("GET", "HEAD", "OPTIONS");
    private static final byte[] REFUSAL = ("{\"error\":\"the admin API answers this server's own page and clients"
            + " that are not browsers; this request came from another site\"}").getBytes(StandardCharsets.UTF_8);

    @Override
    protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        response.setHeader("Content-Security-Policy",
                "default-src 'self'; frame-ancestors 'none'; form-action 'none'; base-uri 'none'");
        response.setHeader("X-Frame-Options", "DENY");
        response.setHeader("X-Content-Type-Options", "nosniff");
        response.setHeader("Referrer-Policy", "no-referrer");
        response.setHeader("Cache-Control", "no-store");
        // The servlet path, decoded and normalised by the container: /%61pi/ is the API too
        boolean api = request.getServletPath().equals("/api") || request.getServletPath().startsWith("/api/");
        if ((api || !READS.contains(request.getMethod()))
                && fromAnotherSite(request.getHeader("Sec-Fetch-Site"), request.getHeader("Origin"),
                request.getHeader("Host"))) {
            response.setStatus(HttpServletResponse.SC_FORBIDDEN);
            response.setContentType("application/json");
            response.getOutputStream().write(REFUSAL);
            return;
        }
        chain.doFilter(request, response);
    }

    /** True when a browser says the request was started by another site's page. */
    static boolean fromAnotherSite(String fetchSite, String origin, String host) {
        if (fetchSite != null) {
            return !fetchSite.equals("same-origin") && !fetchSite.equals("none");
        }
        if (origin == null) {
            return false;
        }
        try {
            String authority = URI.create(origin.strip()).getAuthority();
            return authority == null || host == null || !authority.equalsIgnoreCase(host.strip());
        } catch (IllegalArgumentException unreadable) {
            return true; // an Origin that is not a URI is no proof of this server's page
        }
    }
}
