package org.edgebridge.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The outbox's one writer: requests that wait meet in one transaction, and one that fails fails alone. */
class OutboxWriterTest {
    @TempDir
    Path dir;

    private Jdbi jdbi;
    private OutboxWriter writer;
    private final CountDownLatch busy = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);

    @BeforeEach
    void open() {
        Path file = dir.resolve("outbox.db");
        Outbox.open(file, Clock.systemUTC()).close();
        jdbi = Jdbi.create("jdbc:sqlite:" + file);
        writer = new OutboxWriter(jdbi);
    }

    @AfterEach
    void close() {
        release.countDown();
        writer.close();
    }

    @Test
    void requests_that_wait_together_are_committed_in_one_transaction() throws Exception {
        CompletableFuture<Object> holding = holdTheWriter();
        CompletableFuture<Integer> a = async(h -> insertDevice(h, "a"));
        awaitQueued(1); // a before c: async() enqueues from the common pool, where the two would race
        CompletableFuture<String> c = async(h -> {
            boolean ownSees =
                    h.get("SELECT count(*) FROM devices WHERE client_id = 'a'").one(rs -> rs.getInt(1)) == 1;
            boolean othersSee = deviceCount("a") == 1;
            return "own " + ownSees + ", other connections " + othersSee;
        });
        awaitQueued(2);
        release.countDown();
        holding.get(10, TimeUnit.SECONDS);
        assertThat(a.get(10, TimeUnit.SECONDS)).isEqualTo(1);
        assertThat(c.get(10, TimeUnit.SECONDS))
                .as("c runs in a's transaction, before its commit")
                .isEqualTo("own true, other connections false");
        assertThat(deviceCount("a")).as("committed once both were done").isEqualTo(1);
        WriterFigures figures = writer.figures();
        assertThat(figures.transactions())
                .as("the holding request's, then a and c together")
                .isEqualTo(2);
        assertThat(figures.requests()).isEqualTo(3);
        assertThat(figures.busySeconds()).isPositive();
    }

    @Test
    void a_request_that_fails_is_rolled_back_alone_and_fails_alone() throws Exception {
        CompletableFuture<Object> holding = holdTheWriter();
        CompletableFuture<Integer> a = async(h -> insertDevice(h, "a"));
        CompletableFuture<Integer> b = async(h -> {
            insertDevice(h, "b");
            throw new IllegalStateException("b fails after its insert");
        });
        CompletableFuture<Integer> c = async(h -> insertDevice(h, "c"));
        awaitQueued(3);
        release.countDown();
        holding.get(10, TimeUnit.SECONDS);
        assertThat(a.get(10, TimeUnit.SECONDS)).isEqualTo(1);
        assertThat(c.get(10, TimeUnit.SECONDS)).isEqualTo(1);
        assertThatThrownBy(() -> b.get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasRootCauseMessage("b fails after its insert");
        assertThat(deviceCount("a") + deviceCount("c")).isEqualTo(2);
        assertThat(deviceCount("b"))
                .as("the failed request's insert is rolled back")
                .isZero();
    }

    @Test
    void a_lone_request_that_fails_leaves_nothing_and_the_next_one_is_written() {
        assertThatThrownBy(() -> writer.write(h -> {
                    insertDevice(h, "x");
                    throw new IllegalStateException("fails");
                }))
                .hasMessage("fails");
        assertThat(deviceCount("x")).isZero();
        int written = writer.write(h -> insertDevice(h, "y"));
        assertThat(written).isEqualTo(1);
        assertThat(deviceCount("y")).isEqualTo(1);
    }

    @Test
    void a_write_from_inside_a_write_is_refused_instead_of_waiting_for_itself() {
        assertThatThrownBy(() -> writer.write(h -> writer.write(h2 -> null)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("wait for itself");
    }

    @Test
    void marks_of_published_receipts_ride_the_next_transaction_and_a_close_commits_them() {
        Outbox other = Outbox.open(dir.resolve("outbox.db"), Clock.systemUTC());
        long id = other.store(java.util.List.of(OutboxFixture.command("dev", "C-1", 0, java.time.Instant.now())))
                                .get(0)
                        instanceof StoreResult.Stored stored
                ? stored.record().id()
                : -1;
        other.close();
        writer.markPublished(java.util.List.of(id));
        assertThat(published(id)).as("not committed on their own").isFalse();
        writer.close();
        assertThat(published(id)).isTrue();
        int written = writer.write(h -> insertDevice(h, "after-close"));
        assertThat(written).as("a write after close starts the writer again").isEqualTo(1);
    }

    private boolean published(long id) {
        return jdbi.withHandle(h -> h.createQuery("SELECT receipt_published FROM commands WHERE id = :id")
                        .bind("id", id)
                        .mapTo(Integer.class)
                        .one())
                == 1;
    }

    private CompletableFuture<Object> holdTheWriter() throws InterruptedException {
        CompletableFuture<Object> holding = async(h -> {
            busy.countDown();
            release.await(10, TimeUnit.SECONDS);
            return null;
        });
        assertThat(busy.await(10, TimeUnit.SECONDS)).isTrue();
        return holding;
    }

    private void awaitQueued(int n) {
        Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> writer.queued() == n);
    }

    private <R> CompletableFuture<R> async(Throwing<R> work) {
        return CompletableFuture.supplyAsync(() -> writer.write(h -> {
            try {
                return work.run(h);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }));
    }

    @FunctionalInterface
    private interface Throwing<R> {
        R run(NamedStatements h) throws java.sql.SQLException, InterruptedException;
    }

    private static int insertDevice(NamedStatements h, String clientId) throws java.sql.SQLException {
        return h.get("INSERT INTO devices (client_id, last_sequence, first_seen_at, last_seen_at) "
                        + "VALUES (:c, 0, 0, 0)")
                .set("c", clientId)
                .update();
    }

    private int deviceCount(String clientId) {
        return jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM devices WHERE client_id = :c")
                .bind("c", clientId)
                .mapTo(Integer.class)
                .one());
    }
}
