package org.edgebridge.broker.moquette;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.edgebridge.storage.Fsync;
import org.h2.mvstore.MVMap;
import org.h2.mvstore.MVStore;
import org.h2.mvstore.MVStoreTool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moquette 0.17 bug answered: after a crash, sessions saved without an expiry instant make {@code startServer} throw
 * for good; and h2-mvstore 2.1.212 can silently reopen a store at an old version when a write follows its crash
 * recovery. Proven by {@code BrokerStoreRepairTest} (built with Moquette's own {@code H2Builder}) and {@code
 * PowerCutIT}.
 *
 * <p>Makes Moquette 0.17's H2 store startable again after a crash or a power cut, before the broker opens it (see
 * docs/moquette.md, "The store after kill -9" and "Power cuts"). The store is never written in place: a write that
 * follows h2-mvstore's crash recovery can land in the space of a chunk the recovered version still lists, and the
 * next open then falls back to an old version (the sessions and anything newer gone). So the repair
 * <ol>
 *   <li><b>copies</b> the store, opened read-only, into a new file ({@code MVStoreTool.compact}: every map's pages,
 *       written one after the other into fresh space);</li>
 *   <li><b>stamps</b> {@code expireAt = now + expiryInterval} on the copy's sessions that lack an instant (0.17 saves
 *       a persistent session without one and stamps it only on a clean stop; at start-up it throws on any stored
 *       session without one: "Can't track for expiration a session without expiry instant");</li>
 *   <li><b>verifies</b> that a fresh read-only open of the copy reads what was written: the version written or a
 *       newer one, the same maps and sessions as the original, none without an instant;</li>
 *   <li><b>replaces</b> the store with the copy: the copy synced, renamed over the store, the directory synced.</li>
 * </ol>
 * Any failure is a {@link BrokerStoreRefused}: the caller sets the store aside and starts with an empty one. The
 * original is untouched until the rename, so a power cut during the repair leaves it as it was.
 */
final class BrokerStoreRepair {
    private static final Logger LOG = LoggerFactory.getLogger(BrokerStoreRepair.class);
    static final String STORE_FILE = "moquette_store.h2";
    static final String SESSIONS_MAP = "sessions_store";
    /** The copy while it is built; a left-over one (a crash during a repair) is deleted by the next repair. */
    static final String COPY_FILE = STORE_FILE + ".repair";

    private BrokerStoreRepair() {}

    /**
     * @return how many sessions were given an expiry instant
     * @throws BrokerStoreRefused if the store cannot be read or its copy does not read back what was written
     */
    static int repair(Path storeDir, Clock clock) {
        Path file = storeDir.resolve(STORE_FILE);
        Path copy = storeDir.resolve(COPY_FILE);
        if (!Files.exists(file)) {
            return 0;
        }
        try {
            Files.deleteIfExists(copy);
            Contents original = contents(file.toString());
            MVStoreTool.compact(file.toString(), copy.toString(), false);
            Stamped stamped = stampMissingExpiry(copy.toString(), clock);
            verify(copy.toString(), stamped.version(), original);
            Fsync.file(copy);
            Files.move(copy, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            Fsync.directory(storeDir);
            if (stamped.count() > 0) {
                LOG.info(
                        "broker store: gave {} sessions left by an unclean stop an expiry instant ({} sessions, {} "
                                + "maps)",
                        stamped.count(),
                        original.sessions(),
                        original.maps().size());
            }
            return stamped.count();
        } catch (BrokerStoreRefused e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            throw new BrokerStoreRefused("the broker store could not be read: " + e, e);
        } finally {
            try {
                Files.deleteIfExists(copy);
            } catch (IOException e) {
                LOG.warn("broker store: the repair's copy {} could not be deleted: {}", copy, e.toString());
            }
        }
    }

    /** What a store holds, read without writing: its maps' names and how many sessions. */
    private record Contents(Set<String> maps, int sessions) {}

    private static Contents contents(String file) {
        MVStore store = open(file, true);
        try {
            Set<String> maps = new TreeSet<>(store.getMapNames());
            return new Contents(
                    maps, maps.contains(SESSIONS_MAP) ? sessions(store).size() : 0);
        } finally {
            store.close();
        }
    }

    private record Stamped(int count, long version) {}

    private static Stamped stampMissingExpiry(String file, Clock clock) {
        MVStore store = open(file, false);
        try {
            if (!store.hasMap(SESSIONS_MAP)) {
                return new Stamped(0, store.getCurrentVersion());
            }
            MVMap<Object, StoredSession> sessions = sessions(store);
            List<Map.Entry<Object, StoredSession>> missing = new ArrayList<>();
            for (Map.Entry<Object, StoredSession> e : sessions.entrySet()) {
                if (!e.getValue().hasExpiryInstant()) {
                    missing.add(e);
                }
            }
            long now = clock.millis();
            for (Map.Entry<Object, StoredSession> e : missing) {
                StoredSession s = e.getValue();
                sessions.put(e.getKey(), s.expiringAt(now + s.expiryIntervalSeconds() * 1000L));
            }
            if (!missing.isEmpty()) {
                store.commit();
            }
            return new Stamped(missing.size(), store.getCurrentVersion());
        } finally {
            store.close();
        }
    }

    private static void verify(String file, long writtenVersion, Contents original) {
        MVStore store = open(file, true);
        try {
            long read = store.getCurrentVersion();
            if (read < writtenVersion) {
                throw new BrokerStoreRefused("the broker store's repaired copy reopened at version " + read
                        + " after version " + writtenVersion + " was written: it fell back to an older state");
            }
            Set<String> maps = new TreeSet<>(store.getMapNames());
            if (!maps.equals(original.maps())) {
                throw new BrokerStoreRefused("the broker store's repaired copy holds other maps than the store: " + maps
                        + " instead of " + original.maps());
            }
            if (!store.hasMap(SESSIONS_MAP)) {
                return;
            }
            MVMap<Object, StoredSession> sessions = sessions(store);
            if (sessions.size() != original.sessions()) {
                throw new BrokerStoreRefused("the broker store's repaired copy holds " + sessions.size()
                        + " sessions, the store " + original.sessions());
            }
            List<String> without = sessions.values().stream()
                    .filter(s -> !s.hasExpiryInstant())
                    .map(StoredSession::clientId)
                    .limit(5)
                    .toList();
            if (!without.isEmpty()) {
                throw new BrokerStoreRefused("the broker store still holds sessions without an expiry instant after "
                        + "the repair, e.g. " + without);
            }
        } finally {
            store.close();
        }
    }

    private static MVStore open(String file, boolean readOnly) {
        MVStore.Builder b = new MVStore.Builder().fileName(file).autoCommitDisabled();
        return (readOnly ? b.readOnly() : b).open();
    }

    private static MVMap<Object, StoredSession> sessions(MVStore store) {
        return store.openMap(
                SESSIONS_MAP, new MVMap.Builder<Object, StoredSession>().valueType(StoredSession.Type.INSTANCE));
    }
}
