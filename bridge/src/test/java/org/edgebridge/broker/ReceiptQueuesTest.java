package org.edgebridge.broker;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ReceiptQueuesTest {
    private static final int ENTRIES = 256;
    private static final long BYTES = 256 * 1024;

    @Test
    void a_device_whose_queue_holds_256_receipts_gets_no_257th() {
        ReceiptQueues queues = new ReceiptQueues(ENTRIES, BYTES);
        for (int queued = 0; queued < ENTRIES; queued++) {
            assertThat(queues.admit("dev", 300, queued)).isTrue();
            queues.arrived("dev", queued + 1);
        }
        assertThat(queues.admit("dev", 300, ENTRIES)).isFalse();
        assertThat(queues.dropped()).isEqualTo(1);
        assertThat(queues.mostQueued()).isEqualTo(ENTRIES);
    }

    @Test
    void ten_kib_receipts_stop_at_256_kib_before_the_entries_bound() {
        ReceiptQueues queues = new ReceiptQueues(ENTRIES, BYTES);
        int admitted = 0;
        for (int queued = 0; queued < 100; queued++) {
            if (queues.admit("dev", 10 * 1024, admitted)) {
                admitted++;
                queues.arrived("dev", admitted);
            }
        }
        assertThat(admitted).isEqualTo(25);
        assertThat(queues.dropped()).isEqualTo(75);
    }

    @Test
    void a_burst_handed_over_faster_than_the_broker_queues_it_is_bounded_too() {
        ReceiptQueues queues = new ReceiptQueues(ENTRIES, BYTES);
        int admitted = 0;
        for (int i = 0; i < 1_000; i++) {
            // the broker has queued none of them yet: all are still on their way
            if (queues.admit("dev", 300, 0)) {
                admitted++;
            }
        }
        assertThat(admitted).isEqualTo(ENTRIES);
    }

    @Test
    void receipts_queued_before_a_restart_count_at_the_average_allowed_size() {
        ReceiptQueues queues = new ReceiptQueues(ENTRIES, BYTES);
        // 250 queued in an earlier life count 1 KiB each: 6 KiB of room is left
        assertThat(queues.admit("dev", 7 * 1024, 250)).isFalse();
        assertThat(queues.admit("dev", 5 * 1024, 250)).isTrue();
    }

    @Test
    void a_device_whose_receipts_are_read_keeps_no_ledger() {
        ReceiptQueues queues = new ReceiptQueues(ENTRIES, BYTES);
        for (int i = 0; i < 1_000; i++) {
            assertThat(queues.admit("dev-" + i, 300, 0)).isTrue();
            queues.arrived("dev-" + i, 0); // sent at once: in flight, not queued
        }
        assertThat(queues.devices()).isZero();
    }

    @Test
    void receipts_handed_over_and_arriving_on_other_threads_at_once_never_break_the_ledger() throws Exception {
        // a session loop completes hand-overs while the intake writer and the forwarder admit new receipts: a ledger
        // dropped by one arrival while another thread admitted into it made a later arrival count below zero, and the
        // next admit threw NoSuchElementException into the intake writer (seen in ShutdownIT's resends)
        ReceiptQueues queues = new ReceiptQueues(ENTRIES, BYTES);
        java.util.List<Thread> threads = new java.util.ArrayList<>();
        java.util.concurrent.atomic.AtomicReference<Throwable> failure =
                new java.util.concurrent.atomic.AtomicReference<>();
        for (int t = 0; t < 4; t++) {
            Thread thread = new Thread(() -> {
                try {
                    for (int i = 0; i < 50_000; i++) {
                        if (queues.admit("dev", 300, i % 3)) {
                            queues.arrived("dev", i % 2);
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            threads.add(thread);
            thread.start();
        }
        for (Thread thread : threads) {
            thread.join();
        }
        assertThat(failure.get()).isNull();
        queues.arrived("dev", 0);
        assertThat(queues.admit("dev", 300, 0)).isTrue();
    }

    @Test
    void many_devices_each_within_their_own_bound_stop_at_the_site_bound_in_entries() {
        ReceiptQueues queues = new ReceiptQueues(ENTRIES, BYTES, 1_000, Long.MAX_VALUE);
        int admitted = 0;
        for (int d = 0; d < 10; d++) {
            int queued = 0; // what the broker holds queued for this device
            for (int i = 0; i < 200; i++) {
                if (queues.admit("dev-" + d, 300, queued)) {
                    admitted++;
                    queued++;
                    queues.arrived("dev-" + d, queued);
                }
            }
        }
        assertThat(admitted).isEqualTo(1_000);
        assertThat(queues.totalEntries()).isEqualTo(1_000);
        assertThat(queues.droppedSiteFull()).isEqualTo(1_000);
        assertThat(queues.dropped()).as("no device reached its own bound").isZero();
        // one device reads its receipts: room for others again
        queues.arrived("dev-0", 0);
        assertThat(queues.totalEntries()).isEqualTo(800);
        assertThat(queues.admit("dev-9", 300, 0)).isTrue();
    }

    @Test
    void many_devices_stop_at_the_site_bound_in_bytes_counting_receipts_from_before_start() {
        ReceiptQueues queues = new ReceiptQueues(ENTRIES, BYTES, 1_000_000, 1024 * 1024);
        // four devices with 250 receipts each queued in an earlier life: 250 KiB each at the average allowed size
        for (int d = 0; d < 4; d++) {
            assertThat(queues.admit("old-" + d, 1024, 250)).isTrue();
            queues.arrived("old-" + d, 251);
        }
        assertThat(queues.totalBytes()).isEqualTo(4 * 251 * 1024L);
        assertThat(queues.admit("new", 21 * 1024, 0))
                .as("past 1 MiB for all devices")
                .isFalse();
        assertThat(queues.admit("new", 1024, 0)).isTrue();
        assertThat(queues.droppedSiteFull()).isEqualTo(1);
        assertThat(queues.devices()).isEqualTo(5);
    }

    /**
     * Issue 40 point 9: a device that read its queue, or whose session went away, and got no receipt since, no longer
     * counts toward the site's totals once the ledgers are read again from the broker; before, the totals kept its
     * receipts for good and drifted up until the site bound refused every device.
     */
    @Test
    void the_site_totals_follow_the_broker_when_devices_read_their_queues_or_go_away() {
        ReceiptQueues queues = new ReceiptQueues(ENTRIES, BYTES, 1_000, Long.MAX_VALUE);
        java.util.Map<String, Integer> broker = new java.util.HashMap<>();
        for (int d = 0; d < 4; d++) {
            String dev = "dev-" + d;
            for (int i = 0; i < 250; i++) {
                assertThat(queues.admit(dev, 300, i)).isTrue();
                queues.arrived(dev, i + 1);
            }
            broker.put(dev, 250);
        }
        assertThat(queues.totalEntries()).isEqualTo(1_000);
        assertThat(queues.admit("dev-new", 300, 0)).as("the site is full").isFalse();
        broker.put("dev-0", 0); // read its queue
        broker.remove("dev-1"); // its session expired
        broker.put("dev-2", 100); // read part of it
        org.awaitility.Awaitility.await()
                .atMost(java.time.Duration.ofSeconds(5))
                .until(() -> {
                    queues.refreshIfDue(c -> broker.getOrDefault(c, 0));
                    return queues.totalEntries() == 350;
                });
        assertThat(queues.devices()).isEqualTo(2);
        assertThat(queues.admit("dev-new", 300, 0)).as("room again").isTrue();
    }
}
