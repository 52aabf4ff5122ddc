package org.edgebridge;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.List;
import org.jspecify.annotations.NullMarked;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What the product's packages may import (docs/design.md, "Packages"). One test per rule, over the product's
 * classes only (tests may reach anywhere).
 */
class ArchitectureTest {
    /** The sub-package that holds every Moquette 0.17 workaround, and the shims Java makes live in Moquette's package. */
    private static final String[] MOQUETTE_FENCE = {"org.edgebridge.broker.moquette..", "io.moquette.."};

    private static JavaClasses product;

    @BeforeAll
    static void importProduct() {
        product = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
                .importPackages("org.edgebridge", "io.moquette");
    }

    @Test
    void onlyTheMoquetteFenceUsesMoquetteNettyOrH2() {
        noClasses()
                .that()
                .resideOutsideOfPackages(MOQUETTE_FENCE)
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("io.moquette..", "io.netty..", "org.h2..")
                .because("Moquette 0.17's sharp edges are answered in one place (docs/moquette.md)")
                .check(product);
    }

    @Test
    void onlyTheOutboxUsesSqlJdbiOrFlyway() {
        noClasses()
                .that()
                .resideOutsideOfPackage("org.edgebridge.outbox..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("java.sql..", "javax.sql..", "org.jdbi..", "org.flywaydb..", "org.sqlite..")
                .because("all SQL lives in the outbox")
                .check(product);
    }

    @Test
    void nothingButTheCompositionRootUsesAdmin() {
        noClasses()
                .that()
                .resideOutsideOfPackages("org.edgebridge.admin..")
                .and()
                .resideOutsideOfPackage("org.edgebridge")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("org.edgebridge.admin..")
                .because("the admin side reads the other parts; no part depends on it")
                .check(product);
    }

    @Test
    void adminReadsViewsNotTheParts() {
        noClasses()
                .that()
                .resideInAPackage("org.edgebridge.admin..")
                .should()
                .dependOnClassesThat()
                .haveFullyQualifiedName("org.edgebridge.broker.Broker")
                .orShould()
                .dependOnClassesThat()
                .haveFullyQualifiedName("org.edgebridge.intake.Intake")
                .orShould()
                .dependOnClassesThat()
                .haveFullyQualifiedName("org.edgebridge.forward.Forwarder")
                .because("the admin side reads BrokerView, IntakeView and ForwarderControl: what it may see and do")
                .check(product);
    }

    /** Every package is a slice of its own: a package and its sub-package (broker, broker.moquette) may not form a cycle either. */
    @Test
    void packagesHaveNoCycles() {
        slices().matching("org.edgebridge.(**)").should().beFreeOfCycles().check(product);
    }

    @Test
    void theOutboxKnowsNoOtherPart() {
        noClasses()
                .that()
                .resideInAPackage("org.edgebridge.outbox..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "org.edgebridge.intake..",
                        "org.edgebridge.forward..",
                        "org.edgebridge.broker..",
                        "org.edgebridge.receipt..")
                .because("the outbox stores; the parts that use it know it, not the other way round")
                .check(product);
    }

    @Test
    void forwardKnowsNoBroker() {
        noClasses()
                .that()
                .resideInAPackage("org.edgebridge.forward..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("org.edgebridge.broker..")
                .because("receipts reach devices through receipt.ReceiptSender, not the broker")
                .check(product);
    }

    @Test
    void theReferenceCentralUsesNothingOfTheBridge() {
        noClasses()
                .that()
                .resideInAPackage("org.edgebridge.central..")
                .should()
                .dependOnClassesThat(
                        resideInAPackage("org.edgebridge..").and(resideOutsideOfPackage("org.edgebridge.central..")))
                .because("the reference central stands for a real central: it shares nothing with the bridge")
                .check(product);
    }

    @Test
    void eachCallerReachesTheOutboxThroughItsPort() {
        noClasses()
                .that()
                .resideOutsideOfPackages("org.edgebridge", "org.edgebridge.outbox..")
                .should()
                .dependOnClassesThat()
                .haveFullyQualifiedName("org.edgebridge.outbox.Outbox")
                .because("the intake, the forwarder and admin each see their port (IntakeOutbox, ForwarderOutbox, "
                        + "AdminOutbox); only the composition root holds the Outbox")
                .check(product);
    }

    @Test
    void everyPackageOfTheBridgeIsNullMarked() {
        // NullAway checks only @NullMarked packages (the parent pom): a package without it would be unchecked
        List<String> unmarked = product.stream()
                .map(JavaClass::getPackageName)
                .filter(name -> name.startsWith("org.edgebridge"))
                .distinct()
                .filter(name -> !product.getPackage(name).isAnnotatedWith(NullMarked.class))
                .sorted()
                .toList();
        assertThat(unmarked)
                .as("packages without @NullMarked in their package-info.java")
                .isEmpty();
    }
}
