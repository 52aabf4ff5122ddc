package org.edgebridge.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The intake's writer prepares its statements once and runs them again and again: why intake (B1) is fast. */
class CommandWriterTest {
    @TempDir
    Path dir;

    @Test
    void every_command_after_the_first_runs_on_statements_prepared_before() {
        Path file = dir.resolve("outbox.db");
        Outbox.open(file, Clock.systemUTC()).close();
        Map<String, Integer> prepared = new ConcurrentHashMap<>();
        Jdbi jdbi = Jdbi.create(() -> countingPrepares(DriverManager.getConnection("jdbc:sqlite:" + file), prepared));
        OutboxWriter writer = new OutboxWriter(jdbi);
        try {
            for (int i = 1; i <= 20; i++) {
                List<NewCommand> one = List.of(OutboxFixture.command("dev", "C-" + i, 0, Instant.now()));
                List<StoreResult> r = writer.write(sql -> CommandWriter.store(sql, one, 100));
                assertThat(r.get(0)).isInstanceOf(StoreResult.Stored.class);
            }
            List<NewCommand> again = List.of(OutboxFixture.command("dev", "C-1", 0, Instant.now()));
            assertThat(writer.write(sql -> CommandWriter.store(sql, again, 100)).get(0))
                    .isInstanceOf(StoreResult.AlreadyStored.class);
        } finally {
            writer.close();
        }
        assertThat(prepared)
                .as("find, next sequence and insert: each prepared once for 21 commands")
                .containsEntry(numbered(OutboxSql.FIND), 1)
                .containsEntry(numbered(IntakeSql.NEXT_SEQUENCE), 1)
                .containsEntry(numbered(IntakeSql.INSERT), 1);
    }

    @Test
    void the_batch_is_taken_once_the_write_turn_has_come() throws Exception {
        Path file = dir.resolve("outbox.db");
        Outbox outbox = Outbox.open(file, Clock.systemUTC());
        OutboxWriter writer = new OutboxWriter(Jdbi.create("jdbc:sqlite:" + file));
        List<NewCommand> queue = new CopyOnWriteArrayList<>();
        queue.add(OutboxFixture.command("dev", "first", 0, Instant.now()));
        CountDownLatch busy = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try {
            // another request holds the writer
            CompletableFuture<Object> holding = CompletableFuture.supplyAsync(() -> writer.write(h -> {
                busy.countDown();
                await(release);
                return null;
            }));
            assertThat(busy.await(10, TimeUnit.SECONDS)).isTrue();
            var stored = CompletableFuture.supplyAsync(
                    () -> writer.write(sql -> CommandWriter.store(sql, List.copyOf(queue), 100)));
            queue.add(OutboxFixture.command("dev", "came-while-waiting", 0, Instant.now()));
            release.countDown();
            holding.get(10, TimeUnit.SECONDS);
            assertThat(stored.get(10, TimeUnit.SECONDS))
                    .as("what came while the writer was busy is in the same transaction")
                    .extracting(r -> r.command().commandId())
                    .containsExactly("first", "came-while-waiting");
        } finally {
            writer.close();
            outbox.close();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A connection that counts {@code prepareStatement} per SQL text. */
    static Connection countingPrepares(Connection real, Map<String, Integer> prepared) {
        return (Connection) Proxy.newProxyInstance(
                Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    if (method.getName().equals("prepareStatement") && args != null && args[0] instanceof String sql) {
                        prepared.merge(sql, 1, Integer::sum);
                    }
                    try {
                        return method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    /**
     * Issue 40 point 1: a command whose write throws (an expiry whose milliseconds overflow a long, as the parser once
     * let through) fails alone: the commands before and after it in the same call are stored, with gapless sequences,
     * and the call does not fail.
     */
    @Test
    void a_command_whose_write_throws_fails_alone_and_the_rest_of_the_batch_is_stored() {
        Path file = dir.resolve("outbox.db");
        Outbox outbox = Outbox.open(file, Clock.systemUTC());
        try {
            Instant now = Instant.now();
            NewCommand fine = OutboxFixture.command("dev-a", "A-1", 0, now);
            NewCommand base = OutboxFixture.command("dev-bad", "XA1", 0, now);
            NewCommand bad = new NewCommand(
                    base.clientId(),
                    base.commandId(),
                    base.topic(),
                    base.type(),
                    base.payload(),
                    base.payloadSha256(),
                    now,
                    java.util.Optional.of(Instant.MAX));
            NewCommand next = OutboxFixture.command("dev-bad", "XA2", 0, now);
            NewCommand other = OutboxFixture.command("dev-b", "B-1", 0, now);
            List<StoreResult> results = outbox.store(List.of(fine, bad, next, other));
            assertThat(results)
                    .extracting(r -> r.getClass().getSimpleName())
                    .containsExactly("Stored", "Unstorable", "Stored", "Stored");
            assertThat(((StoreResult.Stored) results.get(2)).record().sequence())
                    .as("the failed command's sequence was rolled back with it")
                    .isEqualTo(1);
            assertThat(outbox.find("dev-bad", "XA1")).isEmpty();
            assertThat(outbox.openCount()).isEqualTo(3);
        } finally {
            outbox.close();
        }
    }

    /** The SQL text as prepared: its names numbered. */
    private static String numbered(String sql) {
        return NamedStatements.numbered(sql, new java.util.HashMap<>());
    }
}
