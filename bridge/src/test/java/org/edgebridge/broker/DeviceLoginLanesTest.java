package org.edgebridge.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Issue 40, point 5, in one process with real PBKDF2 runs: checks are counted when queued (a third one of an address
 * with auth.queuePerAddress=2 is refused at once, without a run), and a client id whose password was verified
 * before (in data.dir/recent-logins, as after a restart) is checked before the strangers queued ahead of it.
 */
class DeviceLoginLanesTest {
    @TempDir
    Path dir;

    @Test
    void a_known_client_id_jumps_the_strangers_queue_and_one_address_gets_at_most_its_share() throws Exception {
        Path recent = Files.writeString(dir.resolve("recent-logins"), "dev-known\n", StandardCharsets.UTF_8);
        PasswordFile.addDevice(dir.resolve("passwords"), "dev-known", "known", "known-secret");
        List<String> order = new CopyOnWriteArrayList<>();
        try (DeviceLogin login = new DeviceLogin(
                Optional.of(PasswordFile.load(dir.resolve("passwords"))),
                false,
                new FailedLogins(Clock.systemUTC(), 10, 100),
                new RefusalLog(
                        LoggerFactory.getLogger(DeviceLoginLanesTest.class), Clock.systemUTC(), Duration.ofMinutes(1)),
                1,
                256,
                2,
                RecentLogins.load(recent, 100))) {
            CompletableFuture<?> last = null;
            for (int i = 0; i < 6; i++) {
                String id = "stranger-" + i;
                last = login.check(id, "nobody", bytes("wrong"), false, "10.0.0." + (i / 2))
                        .thenRun(() -> order.add(id));
            }
            CompletableFuture<DeviceLogin.Result> third =
                    login.check("stranger-x", "nobody", bytes("wrong"), false, "10.0.0.0");
            assertThat(third)
                    .as("a third check of 10.0.0.0, refused without a run")
                    .isCompletedWithValue(DeviceLogin.Result.BUSY);
            assertThat(login.refusedBusyAddress()).isEqualTo(1);
            CompletableFuture<DeviceLogin.Result> known =
                    login.check("dev-known", "known", bytes("known-secret"), false, "10.0.9.9");
            known.thenRun(() -> order.add("dev-known"));
            assertThat(known.get()).isEqualTo(DeviceLogin.Result.ACCEPTED);
            last.get();
            // the first stranger was running already (the second too, if this thread was held up that long); the known
            // id
            // came next, before the strangers queued before it
            assertThat(order).hasSize(7);
            assertThat(order.indexOf("dev-known")).isBetween(1, 2);
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
