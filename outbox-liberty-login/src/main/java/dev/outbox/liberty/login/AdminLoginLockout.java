package dev.outbox.liberty.login;

import com.ibm.websphere.security.PasswordCheckFailedException;
import com.ibm.websphere.security.WSSecurityException;
import com.ibm.websphere.security.WebTrustAssociationFailedException;
import com.ibm.wsspi.security.registry.RegistryHelper;
import com.ibm.wsspi.security.tai.TAIResult;
import com.ibm.wsspi.security.tai.TrustAssociationInterceptor;
import dev.outbox.liberty.login.FailedLogins.Attempt;
import dev.outbox.liberty.login.FailedLogins.Locked;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.rmi.RemoteException;
import java.util.Optional;
import java.util.Properties;
import java.util.logging.Logger;

/**
 * Stops password guessing against the admin API on Open Liberty (issue 19), whose registries have no lockout of
 * their own. Liberty calls this interceptor before its own login for every request that carries HTTP Basic
 * credentials with a user name, protected path or not (a guess sent to {@code /health/live} is a guess too: Liberty checks
 * credentials on unprotected paths as well). The interceptor checks the password against the server's user
 * registry, the same check Liberty's login makes, counts wrong ones per user name, and refuses a name that sent
 * {@code maxFailures} wrong passwords in one {@code lockout} period for the rest of that period, right password or
 * not, with 401 and {@code Retry-After}, without asking the registry. A right password goes back to Liberty as the
 * user's name, and Liberty takes the groups from the registry as for any login; the roles apply as before.
 * Requests without a Basic header are Liberty's own business; a Basic header this interceptor cannot read is
 * refused. Like Elytron's lock on WildFly, it covers every Basic login to the server, not only the admin API's.
 *
 * <p>A bad setting does not open the door: every Basic login is refused with 503 and the log names the variable.
 */
public final class AdminLoginLockout implements TrustAssociationInterceptor {

    private static final Logger LOG = Logger.getLogger(AdminLoginLockout.class.getName());
    private static final int TRACKED_NAMES = 10_000;
    /** Longer names are refused unchecked: no registry's user has one, and the table stays small (10,000 x 256). */
    static final int LONGEST_NAME = 256;
    private static final String CHALLENGE = "Basic realm=\"outbox\"";
    private static final long REPORT_EVERY_NANOS = 60_000_000_000L;

    private volatile FailedLogins failedLogins;
    private volatile String misconfiguration;
    private volatile long reportedForgotten;
    private volatile long reportedAt = System.nanoTime() - REPORT_EVERY_NANOS - 1;

    @Override
    public int initialize(Properties properties) {
        try {
            LockoutPolicy policy = LockoutPolicy.from(properties);
            failedLogins = new FailedLogins(policy, System::nanoTime, TRACKED_NAMES);
            misconfiguration = null;
            LoginMessages.LOCKOUT_ON.log(LOG,
                    () -> "outbox admin login lockout: " + policy.maxFailures() + " wrong passwords within "
                    + policy.lockout() + " lock a user name for " + policy.lockout() + " ("
                    + LockoutPolicy.MAX_FAILURES + ", " + LockoutPolicy.LOCKOUT + ")");
        } catch (IllegalArgumentException e) {
            misconfiguration = e.getMessage();
            LoginMessages.LOCKOUT_NOT_STARTED.log(LOG,
                    () -> "outbox admin login lockout not started, every HTTP Basic login is refused until the setting"
                    + " is fixed: " + misconfiguration);
        }
        return 0;
    }

    /**
     * Every HTTP Basic header, well-formed or not. A malformed one is refused here: handed to Liberty it would be
     * read by Liberty's lenient Base64 decoder (non-alphabet characters, inner padding) and checked uncounted.
     */
    @Override
    public boolean isTargetInterceptor(HttpServletRequest request) {
        return BasicCredentials.isBasic(request.getHeader("Authorization"));
    }

    @Override
    public TAIResult negotiateValidateandEstablishTrust(HttpServletRequest request, HttpServletResponse response)
            throws WebTrustAssociationFailedException {
        Verdict verdict = decide(request, response, (user, password) -> {
            try {
                return Optional.of(RegistryHelper.getUserRegistry(null).checkPassword(user, password));
            } catch (PasswordCheckFailedException wrongPassword) {
                return Optional.empty();
            }
        });
        return verdict.securityName() == null ? TAIResult.create(verdict.status())
                : TAIResult.create(verdict.status(), verdict.securityName());
    }

    /** The registry's password check: the security name, or empty for a wrong password. */
    interface PasswordCheck {
        Optional<String> securityName(String user, String password) throws WSSecurityException, RemoteException;
    }

    /** What Liberty is told: 200 with the name to log in, or the status to answer. */
    record Verdict(int status, String securityName) {
    }

    Verdict decide(HttpServletRequest request, HttpServletResponse response, PasswordCheck registry) {
        if (misconfiguration != null) {
            return new Verdict(HttpServletResponse.SC_SERVICE_UNAVAILABLE, null);
        }
        Optional<BasicCredentials> credentials = BasicCredentials.parse(request.getHeader("Authorization"));
        if (credentials.isEmpty() || credentials.get().user().length() > LONGEST_NAME) {
            return challenge(response);
        }
        String user = credentials.get().user();
        FailedLogins.Admission admission = failedLogins.begin(user);
        reportForgottenCounts(request);
        if (admission instanceof Locked locked) {
            // the password is not even checked: a locked name gives a guesser no answer
            response.setHeader("Retry-After", Long.toString(Math.max(1, (locked.left().toMillis() + 999) / 1000)));
            return challenge(response);
        }
        Attempt attempt = (Attempt) admission;
        try {
            Optional<String> securityName = registry.securityName(user, credentials.get().password());
            if (securityName.isPresent()) {
                failedLogins.right(attempt);
                return new Verdict(HttpServletResponse.SC_OK, securityName.get());
            }
            if (attempt.locks()) {
                LoginMessages.NAME_LOCKED.log(LOG,
                        () -> "outbox admin login: user name " + printable(user) + " locked after repeated wrong"
                        + " passwords, last from " + request.getRemoteAddr());
            }
            return challenge(response);
        } catch (WSSecurityException | RemoteException e) {
            // the registry (an LDAP server, say) did not answer: no verdict on the password, nothing counted
            failedLogins.right(attempt);
            LoginMessages.REGISTRY_FAILED.log(LOG,
                    () -> "outbox admin login: the user registry could not check a password: " + e.getClass().getName());
            return new Verdict(HttpServletResponse.SC_SERVICE_UNAVAILABLE, null);
        }
    }

    /** At most once a minute: names forgotten with wrong passwords on them mean guessing across many names. */
    private void reportForgottenCounts(HttpServletRequest request) {
        long forgot = failedLogins.forgot();
        long now = System.nanoTime();
        if (forgot > reportedForgotten && now - reportedAt > REPORT_EVERY_NANOS) {
            reportedForgotten = forgot;
            reportedAt = now;
            LoginMessages.NAME_TABLE_FULL.log(LOG,
                    () -> "outbox admin login: the table of " + TRACKED_NAMES + " user names is full; " + forgot
                    + " names were forgotten with wrong passwords counted (guessing across invented names?),"
                    + " last request from " + request.getRemoteAddr());
        }
    }

    private static Verdict challenge(HttpServletResponse response) {
        response.setHeader("WWW-Authenticate", CHALLENGE);
        return new Verdict(HttpServletResponse.SC_UNAUTHORIZED, null);
    }

    /**
     * A name as a guesser sent it can be anything: the log gets at most 64 characters of it, with control, format
     * and line-separating characters (which could forge or reorder log lines) as '?'.
     */
    static String printable(String user) {
        StringBuilder out = new StringBuilder("'");
        user.codePoints().limit(64).forEach(c -> out.appendCodePoint(loggable(c) ? c : '?'));
        return out.append(user.codePointCount(0, user.length()) > 64 ? "...'" : "'").toString();
    }

    private static boolean loggable(int codePoint) {
        int type = Character.getType(codePoint);
        return !Character.isISOControl(codePoint) && type != Character.FORMAT && type != Character.LINE_SEPARATOR
                && type != Character.PARAGRAPH_SEPARATOR && type != Character.UNASSIGNED;
    }

    @Override
    public String getVersion() {
        return "1";
    }

    @Override
    public String getType() {
        return "outbox admin login lockout";
    }

    @Override
    public void cleanup() {
        failedLogins = null;
    }
}
