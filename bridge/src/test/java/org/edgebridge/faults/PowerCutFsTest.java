package org.edgebridge.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The power-cut file system keeps exactly what was synced (LazyFS's semantics): its own semantics, tested. */
class PowerCutFsTest {
    @TempDir
    Path tmp;

    private PowerCutFs fs;
    private Path root;

    @BeforeEach
    void mount() throws Exception {
        Path backing = tmp.resolve("backing");
        Files.createDirectories(backing.resolve("live"));
        Files.writeString(backing.resolve("live").resolve("before-mount.txt"), "there at mount");
        fs = PowerCutFs.mount(backing, tmp.resolve("mnt"));
        root = fs.root();
    }

    @AfterEach
    void unmount() {
        fs.close();
    }

    @Test
    void what_was_there_at_mount_is_durable() throws IOException {
        fs.cut();
        assertThat(Files.readString(root.resolve("before-mount.txt"))).isEqualTo("there at mount");
    }

    @Test
    void synced_data_survives_a_cut_and_data_written_after_the_sync_does_not() throws IOException {
        Path f = root.resolve("a.dat");
        try (FileChannel c = FileChannel.open(f, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            c.write(ByteBuffer.wrap("synced".getBytes(StandardCharsets.US_ASCII)));
            c.force(false);
            c.write(ByteBuffer.wrap(" and not synced".getBytes(StandardCharsets.US_ASCII)));
        }
        syncDirectory(root);
        assertThat(Files.readString(f)).isEqualTo("synced and not synced");
        fs.cut();
        assertThat(Files.readString(f)).isEqualTo("synced");
    }

    @Test
    void an_overwrite_in_the_middle_of_a_synced_file_is_lost_unless_synced() throws IOException {
        Path f = root.resolve("big.dat");
        byte[] ones = new byte[3 * 4096 + 100];
        java.util.Arrays.fill(ones, (byte) 1);
        try (FileChannel c = FileChannel.open(f, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            c.write(ByteBuffer.wrap(ones));
            c.force(true);
        }
        syncDirectory(root);
        try (FileChannel c = FileChannel.open(f, StandardOpenOption.WRITE)) {
            c.write(ByteBuffer.wrap(new byte[] {7, 7}), 5000);
            c.force(false);
            c.write(ByteBuffer.wrap(new byte[] {9}), 9000);
            c.truncate(10_000);
        }
        fs.cut();
        byte[] after = Files.readAllBytes(f);
        assertThat(after).hasSize(ones.length);
        assertThat(after[5000]).isEqualTo((byte) 7);
        assertThat(after[5001]).isEqualTo((byte) 7);
        assertThat(after[9000]).isEqualTo((byte) 1);
        assertThat(after[ones.length - 1]).isEqualTo((byte) 1);
    }

    @Test
    void a_new_file_whose_directory_was_not_synced_is_gone_after_a_cut_even_if_its_data_was() throws IOException {
        Path f = root.resolve("new.dat");
        writeSynced(f, "data synced, name not");
        fs.cut();
        assertThat(f).doesNotExist();
    }

    @Test
    void a_file_named_by_a_synced_directory_but_never_synced_itself_comes_back_empty() throws IOException {
        Path f = root.resolve("named.dat");
        Files.writeString(f, "never synced");
        syncDirectory(root);
        fs.cut();
        assertThat(f).exists();
        assertThat(Files.size(f)).isZero();
    }

    @Test
    void a_rename_survives_a_cut_only_once_its_directory_is_synced() throws IOException {
        Path tmpFile = root.resolve("x.tmp");
        Path target = root.resolve("x");
        writeSynced(tmpFile, "v1");
        syncDirectory(root);
        Files.move(tmpFile, target, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        fs.cut();
        assertThat(target).doesNotExist();
        assertThat(Files.readString(tmpFile)).isEqualTo("v1");

        Files.move(tmpFile, target, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        syncDirectory(root);
        fs.cut();
        assertThat(tmpFile).doesNotExist();
        assertThat(Files.readString(target)).isEqualTo("v1");
    }

    @Test
    void a_replacing_rename_not_synced_leaves_the_old_file_after_a_cut() throws IOException {
        Path target = root.resolve("config");
        writeSynced(target, "old");
        syncDirectory(root);
        Path next = root.resolve("config.new");
        writeSynced(next, "new");
        Files.move(
                next,
                target,
                java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        assertThat(Files.readString(target)).isEqualTo("new");
        fs.cut();
        assertThat(Files.readString(target)).isEqualTo("old");
    }

    @Test
    void a_new_directory_needs_its_parent_synced_and_its_entries_need_it_synced() throws IOException {
        Path dir = Files.createDirectory(root.resolve("sub"));
        writeSynced(dir.resolve("f"), "in sub");
        syncDirectory(root);
        fs.cut();
        assertThat(dir).isDirectory();
        assertThat(dir.resolve("f")).doesNotExist();

        writeSynced(dir.resolve("f"), "in sub");
        syncDirectory(dir);
        fs.cut();
        assertThat(Files.readString(dir.resolve("f"))).isEqualTo("in sub");
    }

    @Test
    void an_unlink_not_synced_is_undone_by_a_cut() throws IOException {
        Path f = root.resolve("kept.dat");
        writeSynced(f, "kept");
        syncDirectory(root);
        Files.delete(f);
        writeSynced(root.resolve("other.dat"), "takes no inode of the deleted file");
        fs.cut();
        assertThat(Files.readString(f)).isEqualTo("kept");
    }

    @Test
    void a_handle_opened_before_a_cut_fails_after_it() throws IOException {
        Path f = root.resolve("open.dat");
        writeSynced(f, "x");
        syncDirectory(root);
        try (FileChannel c = FileChannel.open(f, StandardOpenOption.WRITE)) {
            fs.cut();
            assertThatThrownBy(() -> c.write(ByteBuffer.wrap(new byte[] {1}), 0))
                    .isInstanceOf(IOException.class);
        }
        assertThat(Files.readString(f)).isEqualTo("x");
    }

    private static void writeSynced(Path f, String text) throws IOException {
        try (FileChannel c = FileChannel.open(
                f, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            c.write(ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)));
            c.force(true);
        }
    }

    private static void syncDirectory(Path dir) throws IOException {
        try (FileChannel c = FileChannel.open(dir, StandardOpenOption.READ)) {
            c.force(true);
        }
    }
}
