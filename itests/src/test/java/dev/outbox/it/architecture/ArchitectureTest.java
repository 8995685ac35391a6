package dev.outbox.it.architecture;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaConstructor;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.EvaluationResult;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.members;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The line between the library's API and its internals, checked on the compiled classes of every module:
 * what an application may use is {@code dev.outbox}, {@code dev.outbox.spi} (transports), {@code dev.outbox.jms},
 * {@code dev.outbox.kafka} and {@code dev.outbox.ops}; everything under {@code dev.outbox.internal} may change in
 * any release. The library's own modules share their internals (they ship together, in one version).
 */
class ArchitectureTest {

    static final List<String> LIBRARY_MODULES = List.of("outbox-jpa", "outbox-ejb", "outbox-health",
            "outbox-jms-bridge", "outbox-kafka", "outbox-admin");
    static final String[] API_PACKAGES = {"dev.outbox", "dev.outbox.spi", "dev.outbox.jms", "dev.outbox.kafka",
            "dev.outbox.ops"};
    static final String[] SERVER_PACKAGES = {"com.ibm..", "io.openliberty..", "org.jboss..", "org.wildfly.."};

    static final ArchRule APPLICATIONS_USE_ONLY_THE_API = noClasses()
            .should().dependOnClassesThat().resideInAPackage("dev.outbox.internal..")
            .because("an application may use only the API; dev.outbox.internal changes without notice");

    static final ArchRule THE_LIBRARY_NAMES_NO_SERVER_TYPE = noClasses()
            .should().dependOnClassesThat().resideInAnyPackage(SERVER_PACKAGES)
            .because("one EAR runs unchanged on Open Liberty and WildFly: the library speaks Jakarta EE and MicroProfile");

    static final ArchRule ONLY_OUTBOX_KAFKA_NAMES_KAFKA = noClasses()
            .that().resideOutsideOfPackages("dev.outbox.kafka..", "dev.outbox.internal.transport.kafka..",
                    "dev.outbox.internal.inbox.kafka..")
            .should().dependOnClassesThat().resideInAPackage("org.apache.kafka..")
            .because("a JMS-only EAR must not need kafka-clients: Kafka code lives in outbox-kafka alone");

    static final ArchRule ONLY_THE_TRACING_ADAPTER_NAMES_OPENTELEMETRY = noClasses()
            .that().haveNameNotMatching("dev\\.outbox\\.internal\\.trace\\.OpenTelemetryTrac(ing|ers)(\\$.*)?")
            .should().dependOnClassesThat().resideInAPackage("io.opentelemetry..")
            .because("a server without the OpenTelemetry API must never load a class that names it (R6.7): only"
                    + " the tracing adapter does, and TracingChoice reaches it only once the API is there");

    static final ArchRule THE_API_EXPOSES_NO_INTERNAL_TYPE = members()
            .that().areDeclaredInClassesThat().resideInAnyPackage(API_PACKAGES)
            .and().areDeclaredInClassesThat().arePublic()
            .and().arePublic()
            .should(exposeNoInternalType())
            .because("a public signature of the API that names an internal type would freeze that type");

    /**
     * Issue 43 item 2, one persistence seam: JDBC belongs to {@code dev.outbox.internal.persistence}. The classes
     * named here still run statements of their own and are to move behind it; the list only shrinks, and a class
     * not on it that names a {@code java.sql} type fails the build.
     */
    static final List<String> JDBC_NOT_YET_BEHIND_THE_SEAM = List.of(
            "dev.outbox.internal.failure.Causes", // classifies SQLExceptions (SQL states), runs nothing
            "dev.outbox.internal.protocol.Confirm", // the connection it is given; the statements are ConfirmRows'
            "dev.outbox.internal.record.EventRecording",
            "dev.outbox.internal.inbox.ConsumerInbox",
            "dev.outbox.internal.inbox.InboxAttempt", // catches SQLException around its transactions
            "dev.outbox.internal.inbox.Resequencer",
            "dev.outbox.internal.inbox.jms.InboxInterceptor");

    static final ArchRule JDBC_ONLY_BEHIND_THE_PERSISTENCE_SEAM = noClasses()
            .that().resideOutsideOfPackage("dev.outbox.internal.persistence..")
            .and(DescribedPredicate.describe("are not on the list of classes still to move",
                    (JavaClass type) -> !JDBC_NOT_YET_BEHIND_THE_SEAM.contains(type.getName().replaceAll("\\$.*", ""))))
            .should().dependOnClassesThat().resideInAPackage("java.sql..")
            .because("statements run in one place, the persistence package, where dialects hold what differs");

    /** The internal packages depend on each other without cycles (issue 43 item 2). */
    static final ArchRule INTERNAL_PACKAGES_FORM_NO_CYCLE = packagesFormNoCycle("dev.outbox.internal.(*)..");

    /**
     * Issue 43 item 3: no package of the library, public or internal, takes part in a cycle. The public API is
     * interfaces and values (internals implement {@code Inbox}, {@code OutboxRecorder} ... and use its values), so
     * an API class that reached back into the internals would close a cycle here.
     */
    static final ArchRule LIBRARY_PACKAGES_FORM_NO_CYCLE = packagesFormNoCycle("dev.(**)");

    static ArchRule packagesFormNoCycle(String slices) {
        return slices().matching(slices).should().beFreeOfCycles();
    }

    @Test
    void jdbcIsUsedOnlyBehindThePersistenceSeam() {
        JDBC_ONLY_BEHIND_THE_PERSISTENCE_SEAM.check(classesOf(LIBRARY_MODULES.toArray(String[]::new)));
    }

    @Test
    void theInternalPackagesFormNoCycle() {
        INTERNAL_PACKAGES_FORM_NO_CYCLE.check(classesOf(LIBRARY_MODULES.toArray(String[]::new)));
    }

    @Test
    void noPackageOfTheLibraryPublicOrInternalIsInACycle() {
        LIBRARY_PACKAGES_FORM_NO_CYCLE.check(classesOf(LIBRARY_MODULES.toArray(String[]::new)));
    }

    @Test
    void theExampleUsesOnlyThePublicApi() {
        APPLICATIONS_USE_ONLY_THE_API.check(classesOf("example-orders"));
    }

    @Test
    void theLibraryModulesNameNoLibertyOrWildFlyType() {
        THE_LIBRARY_NAMES_NO_SERVER_TYPE.check(classesOf(LIBRARY_MODULES.toArray(String[]::new)));
    }

    @Test
    void onlyOutboxKafkaNamesKafkaTypes() {
        ONLY_OUTBOX_KAFKA_NAMES_KAFKA.check(classesOf(LIBRARY_MODULES.toArray(String[]::new)));
    }

    @Test
    void onlyTheTracingAdapterNamesOpenTelemetryTypes() {
        ONLY_THE_TRACING_ADAPTER_NAMES_OPENTELEMETRY.check(classesOf(LIBRARY_MODULES.toArray(String[]::new)));
    }

    @Test
    void thePublicApiNamesNoInternalTypeInItsSignatures() {
        THE_API_EXPOSES_NO_INTERNAL_TYPE.check(classesOf(LIBRARY_MODULES.toArray(String[]::new)));
    }

    /** The rules must be able to fail: a class written to break each of them is caught. */
    @Test
    void theRulesCatchAClassThatBreaksThem() {
        JavaClasses offender = new ClassFileImporter().importClasses(ReachesIntoInternals.class);
        EvaluationResult reach = APPLICATIONS_USE_ONLY_THE_API.evaluate(offender);
        assertTrue(reach.hasViolation(), "a reach into dev.outbox.internal went unnoticed");
        assertTrue(reach.getFailureReport().toString().contains("dev.outbox.internal.persistence.SqlScript"),
                "the report names the internal type: " + reach.getFailureReport());
        assertTrue(ONLY_OUTBOX_KAFKA_NAMES_KAFKA.evaluate(offender).hasViolation(),
                "a Kafka type outside outbox-kafka went unnoticed");
        assertTrue(JDBC_ONLY_BEHIND_THE_PERSISTENCE_SEAM.evaluate(offender).hasViolation(),
                "a JDBC call outside the persistence package went unnoticed");
        // Two packages whose classes name each other (cycle.a and cycle.b, in this test's sources).
        EvaluationResult cycle = packagesFormNoCycle("dev.outbox.it.architecture.cycle.(*)..").evaluate(
                new ClassFileImporter().importClasses(dev.outbox.it.architecture.cycle.a.Left.class,
                        dev.outbox.it.architecture.cycle.b.Right.class));
        assertTrue(cycle.hasViolation(), "a cycle between two packages went unnoticed");
        assertFalse(classesOf("example-orders").isEmpty(), "the example's classes were found");
    }

    private static JavaClasses classesOf(String... modules) {
        List<Path> folders = Stream.of(modules).map(m -> Path.of("..", m, "target", "classes")).toList();
        for (Path folder : folders) {
            assertTrue(Files.isDirectory(folder), "no compiled classes at " + folder.toAbsolutePath());
        }
        return new ClassFileImporter().importPaths(folders);
    }

    private static ArchCondition<JavaMember> exposeNoInternalType() {
        return new ArchCondition<>("name no dev.outbox.internal type in their signature") {
            @Override
            public void check(JavaMember member, ConditionEvents events) {
                Stream<JavaClass> named;
                if (member instanceof JavaMethod method) {
                    named = Stream.concat(Stream.of(method.getRawReturnType()), method.getRawParameterTypes().stream());
                } else if (member instanceof JavaConstructor constructor) {
                    named = constructor.getRawParameterTypes().stream();
                } else if (member instanceof JavaField field) {
                    named = Stream.of(field.getRawType());
                } else {
                    return;
                }
                named.filter(INTERNAL::test).forEach(type -> events.add(SimpleConditionEvent.violated(member,
                        member.getFullName() + " names " + type.getName())));
            }
        };
    }

    private static final DescribedPredicate<JavaClass> INTERNAL =
            DescribedPredicate.describe("internal", type -> type.getPackageName().startsWith("dev.outbox.internal"));

    /** Breaks two rules on purpose, for {@link #theRulesCatchAClassThatBreaksThem()}. */
    static final class ReachesIntoInternals {
        Object reach() throws Exception {
            return dev.outbox.internal.persistence.SqlScript.load("x.sql", getClass().getClassLoader());
        }

        Object kafka() {
            return org.apache.kafka.common.utils.Time.SYSTEM;
        }

        Object jdbc() throws Exception {
            return java.sql.DriverManager.getConnection("jdbc:h2:mem:x");
        }
    }
}
