package org.edgebridge.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class FatalErrorsTest {
    @Test
    void an_error_is_fatal_bare_or_wrapped_in_the_exceptions_moquette_and_netty_make_of_it() {
        OutOfMemoryError oom = new OutOfMemoryError("Java heap space");
        assertThat(FatalErrors.errorIn(oom)).isSameAs(oom);
        assertThat(FatalErrors.errorIn(new RuntimeException("session loop", oom)))
                .isSameAs(oom);
        assertThat(FatalErrors.errorIn(new CompletionException(new IllegalStateException("deep", oom))))
                .isSameAs(oom);
    }

    @Test
    void an_exception_without_an_error_in_its_causes_is_not_fatal() {
        assertThat(FatalErrors.errorIn(new IllegalStateException("bad packet", new java.io.IOException("reset"))))
                .isNull();
        assertThat(FatalErrors.errorIn(new RuntimeException())).isNull();
    }

    @Test
    void a_cause_chain_that_loops_ends_the_search() {
        RuntimeException a = new RuntimeException("a");
        RuntimeException b = new RuntimeException("b", a);
        a.initCause(b);
        assertThat(FatalErrors.errorIn(a)).isNull();
    }

    @Test
    void a_test_jvm_without_the_handler_is_not_halted_by_a_handler_that_caught_an_error() {
        // haltOnAnyError is installed by run and demo only: here haltIfFatal must return
        FatalErrors.haltIfFatal(Thread.currentThread(), new RuntimeException(new OutOfMemoryError("test")));
    }
}
