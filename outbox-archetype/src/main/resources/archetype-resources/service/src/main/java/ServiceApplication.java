package ${package};

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/** The service's REST API under /api. */
@ApplicationPath("/api")
public class ServiceApplication extends Application {
}
