/*
 * powercutfs: a FUSE file system for tests that loses, at a "power cut", everything that was not fsync'd.
 * Test-only (built by the tests against libfuse3; never part of the product).
 *
 * Usage: powercutfs BACKING MOUNTPOINT    (runs in the foreground, single-threaded; SIGTERM unmounts)
 *
 * BACKING holds live/ (the files as the processes on the mount see them; every operation passes through to it),
 * store/ (the durable content of each file, by inode number) and trash/. The semantics are LazyFS's:
 *   - a file's data (its content and size) is durable once the file is fsync'd or fdatasync'd; only the 4 KiB
 *     blocks written since its last sync are copied to store/ at the sync;
 *   - a directory's entries (names -> files and directories: creates, unlinks, renames, links) are durable once the
 *     directory is fsync'd; at that moment its entries are recorded;
 *   - at mount, everything in live/ is durable.
 * A cut: writing "cut" to MOUNTPOINT/.powercut (a control file that no listing shows). The file system then
 * rebuilds live/ from what is durable (a directory entry that names a file whose data was never synced gives an
 * empty file), every file handle opened before the cut fails with EIO from then on (the process that held it lost
 * its power), and what is live now is durable. The write to the control file returns when the cut is done.
 */
#define FUSE_USE_VERSION 31
#define _GNU_SOURCE
#include <fuse.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/time.h>
#include <unistd.h>

#define BLOCK 4096
#define CONTROL "/.powercut"
#define CONTROL_FH UINT64_MAX

/* One directory entry as it was when its directory was last synced. */
struct entry {
    char *name;
    ino_t ino;
    mode_t mode;
    char *target; /* a symbolic link's target, else NULL */
};

/* What the file system knows of one inode of live/. */
struct node {
    ino_t ino;
    int used;
    /* a file: the blocks written since its last sync, and the smallest size it had meanwhile */
    unsigned char *dirty;
    size_t dirty_blocks;
    off_t min_size;
    int size_changed;
    /* a directory: its entries at its last sync (has_entries = 0: never synced, not even at mount) */
    int has_entries;
    struct entry *entries;
    size_t entry_count;
};

/* An open file: its descriptor in live/, and the power epoch it was opened in. */
struct handle {
    int fd;
    ino_t ino;
    uint32_t epoch;
    int used;
};

static char backing[PATH_MAX], live[PATH_MAX], store[PATH_MAX], trash[PATH_MAX];
static struct node *nodes;
static size_t node_count;
static struct handle *handles;
static size_t handle_count;
static uint32_t epoch = 1;
static unsigned long trash_seq;
static unsigned long cuts;

static void live_path(char *out, const char *path) { snprintf(out, PATH_MAX, "%s%s", live, path); }
static void store_path(char *out, ino_t ino) { snprintf(out, PATH_MAX, "%s/%lu", store, (unsigned long) ino); }

static struct node *find_node(ino_t ino) {
    for (size_t i = 0; i < node_count; i++) {
        if (nodes[i].used && nodes[i].ino == ino) return &nodes[i];
    }
    return NULL;
}

static struct node *node_for(ino_t ino) {
    struct node *n = find_node(ino);
    if (n) return n;
    for (size_t i = 0; i < node_count; i++) {
        if (!nodes[i].used) { n = &nodes[i]; break; }
    }
    if (!n) {
        nodes = realloc(nodes, (node_count + 1) * sizeof *nodes);
        n = &nodes[node_count++];
    }
    memset(n, 0, sizeof *n);
    n->used = 1;
    n->ino = ino;
    n->min_size = -1;
    return n;
}

static void free_entries(struct node *n) {
    for (size_t i = 0; i < n->entry_count; i++) { free(n->entries[i].name); free(n->entries[i].target); }
    free(n->entries);
    n->entries = NULL;
    n->entry_count = 0;
    n->has_entries = 0;
}

static void drop_node(struct node *n) {
    free(n->dirty);
    free_entries(n);
    n->used = 0;
}

/* Whether any directory's durable entries name this inode. */
static int durably_named(ino_t ino) {
    for (size_t i = 0; i < node_count; i++) {
        if (!nodes[i].used) continue;
        for (size_t j = 0; j < nodes[i].entry_count; j++) {
            if (nodes[i].entries[j].ino == ino) return 1;
        }
    }
    return 0;
}

static void mark_dirty(ino_t ino, off_t off, size_t len) {
    if (len == 0) return;
    struct node *n = node_for(ino);
    size_t last = (size_t) ((off + (off_t) len - 1) / BLOCK);
    if (last >= n->dirty_blocks) {
        size_t grow = last + 1 + (last + 1) / 2;
        n->dirty = realloc(n->dirty, grow);
        memset(n->dirty + n->dirty_blocks, 0, grow - n->dirty_blocks);
        n->dirty_blocks = grow;
    }
    for (size_t b = (size_t) (off / BLOCK); b <= last; b++) n->dirty[b] = 1;
}

static void size_changing(ino_t ino, off_t old_size, off_t new_size) {
    struct node *n = node_for(ino);
    off_t smaller = old_size < new_size ? old_size : new_size;
    if (n->min_size < 0 || smaller < n->min_size) n->min_size = smaller;
    n->size_changed = 1;
}

/* Makes the data of the file open as handle_fd durable: the dirty blocks and its size go to store/. */
static int copy_dirty(struct node *n, int fd);

static int sync_file(int handle_fd, ino_t ino) {
    struct node *n = node_for(ino);
    char self[64];
    snprintf(self, sizeof self, "/proc/self/fd/%d", handle_fd);
    int fd = open(self, O_RDONLY); /* the handle may be write-only */
    if (fd < 0) return -errno;
    int err = copy_dirty(n, fd);
    close(fd);
    return err;
}

static int copy_dirty(struct node *n, int fd) {
    struct stat st;
    if (fstat(fd, &st) != 0) return -errno;
    ino_t ino = n->ino;
    char sp[PATH_MAX];
    store_path(sp, ino);
    int out = open(sp, O_WRONLY | O_CREAT, 0600);
    if (out < 0) return -errno;
    int err = 0;
    if (n->min_size >= 0 && ftruncate(out, n->min_size) != 0) err = -errno;
    char buf[BLOCK];
    for (size_t b = 0; !err && b < n->dirty_blocks; b++) {
        if (!n->dirty[b] || (off_t) (b * BLOCK) >= st.st_size) continue;
        ssize_t got = pread(fd, buf, BLOCK, (off_t) (b * BLOCK));
        if (got < 0 || (got > 0 && pwrite(out, buf, (size_t) got, (off_t) (b * BLOCK)) != got)) err = -EIO;
    }
    if (!err && ftruncate(out, st.st_size) != 0) err = -errno;
    close(out);
    if (!err) {
        if (n->dirty) memset(n->dirty, 0, n->dirty_blocks);
        n->min_size = -1;
        n->size_changed = 0;
    }
    return err;
}

/* Records the entries of the live directory at path as durable. */
static int sync_dir(const char *path) {
    char lp[PATH_MAX];
    live_path(lp, path);
    struct stat dst;
    if (lstat(lp, &dst) != 0) return -errno;
    DIR *d = opendir(lp);
    if (!d) return -errno;
    struct node *n = node_for(dst.st_ino);
    free_entries(n);
    n->has_entries = 1;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        n->entries = realloc(n->entries, (n->entry_count + 1) * sizeof *n->entries);
        struct entry *en = &n->entries[n->entry_count++];
        en->name = strdup(e->d_name);
        en->ino = st.st_ino;
        en->mode = st.st_mode;
        en->target = NULL;
        if (S_ISLNK(st.st_mode)) {
            char t[PATH_MAX];
            ssize_t len = readlinkat(dirfd(d), e->d_name, t, sizeof t - 1);
            t[len < 0 ? 0 : len] = 0;
            en->target = strdup(t);
        }
    }
    closedir(d);
    return 0;
}

static int copy_file(const char *from, const char *to) {
    int in = open(from, O_RDONLY);
    if (in < 0) return -errno;
    int out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (out < 0) { close(in); return -errno; }
    char buf[65536];
    ssize_t got;
    int err = 0;
    while ((got = read(in, buf, sizeof buf)) > 0) {
        if (write(out, buf, (size_t) got) != got) { err = -EIO; break; }
    }
    if (got < 0) err = -errno;
    close(in);
    close(out);
    return err;
}

/* Makes everything under the live path durable (at mount, and after a cut). */
static void make_all_durable(const char *path) {
    char lp[PATH_MAX];
    live_path(lp, path);
    sync_dir(path);
    struct stat dst;
    if (lstat(lp, &dst) != 0) return;
    struct node *dn = find_node(dst.st_ino);
    for (size_t i = 0; dn && i < dn->entry_count; i++) {
        char child[PATH_MAX];
        snprintf(child, sizeof child, "%s/%s", strcmp(path, "/") ? path : "", dn->entries[i].name);
        if (S_ISDIR(dn->entries[i].mode)) {
            make_all_durable(child);
            dn = find_node(dst.st_ino); /* the recursion may have moved the node table */
        } else if (S_ISREG(dn->entries[i].mode)) {
            char from[PATH_MAX], to[PATH_MAX];
            live_path(from, child);
            store_path(to, dn->entries[i].ino);
            copy_file(from, to);
        }
    }
}

static int remove_one(const char *p, const struct stat *st, int type, struct FTW *ftw) {
    (void) st; (void) type; (void) ftw;
    return remove(p);
}

static void remove_tree(const char *p) { nftw(p, remove_one, 16, FTW_DEPTH | FTW_PHYS); }

struct made { ino_t ino; char path[PATH_MAX]; };
static struct made *made;
static size_t made_count;

/* Builds, under dir_path, the durable entries of directory ino. */
static void rebuild(ino_t ino, const char *dir_path) {
    struct node *n = find_node(ino);
    if (!n) return;
    for (size_t i = 0; i < n->entry_count; i++) {
        struct entry *e = &n->entries[i];
        char p[PATH_MAX];
        snprintf(p, sizeof p, "%s/%s", dir_path, e->name);
        if (S_ISDIR(e->mode)) {
            mkdir(p, e->mode & 07777);
            rebuild(e->ino, p);
            n = find_node(ino);
            continue;
        }
        if (S_ISLNK(e->mode)) {
            if (symlink(e->target ? e->target : "", p) != 0) fprintf(stderr, "powercutfs: symlink %s: %m\n", p);
            continue;
        }
        int linked = 0;
        for (size_t m = 0; m < made_count && !linked; m++) {
            if (made[m].ino == e->ino) linked = link(made[m].path, p) == 0;
        }
        if (linked) continue;
        char sp[PATH_MAX];
        store_path(sp, e->ino);
        if (rename(sp, p) != 0) {
            int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, e->mode & 07777);
            if (fd >= 0) close(fd);
        }
        chmod(p, e->mode & 07777);
        made = realloc(made, (made_count + 1) * sizeof *made);
        made[made_count].ino = e->ino;
        snprintf(made[made_count].path, PATH_MAX, "%s", p);
        made_count++;
    }
}

static void cut(void) {
    for (size_t i = 0; i < handle_count; i++) {
        if (handles[i].used) { close(handles[i].fd); handles[i].used = 0; }
    }
    epoch++;
    struct stat root;
    lstat(live, &root);
    char next[PATH_MAX];
    snprintf(next, sizeof next, "%s/next", backing);
    remove_tree(next);
    mkdir(next, root.st_mode & 07777);
    made_count = 0;
    rebuild(root.st_ino, next);
    remove_tree(live);
    rename(next, live);
    remove_tree(store);
    mkdir(store, 0700);
    remove_tree(trash);
    mkdir(trash, 0700);
    for (size_t i = 0; i < node_count; i++) {
        if (nodes[i].used) drop_node(&nodes[i]);
    }
    node_count = 0;
    make_all_durable("/");
    cuts++;
    fprintf(stderr, "powercutfs: cut %lu done\n", cuts);
}

/* Moves a live file aside instead of unlinking it while a durable entry still names it, so that its inode number
 * is not given to another file before the next cut. */
static int unlink_or_keep(const char *lp) {
    struct stat st;
    if (lstat(lp, &st) != 0) return -errno;
    if (S_ISREG(st.st_mode) && durably_named(st.st_ino)) {
        char t[PATH_MAX];
        snprintf(t, sizeof t, "%s/%lu", trash, ++trash_seq);
        return rename(lp, t) == 0 ? 0 : -errno;
    }
    if (unlink(lp) != 0) return -errno;
    if (!S_ISREG(st.st_mode) || st.st_nlink > 1) return 0;
    struct node *n = find_node(st.st_ino);
    if (n) drop_node(n);
    char sp[PATH_MAX];
    store_path(sp, st.st_ino);
    unlink(sp);
    return 0;
}

static struct handle *handle_of(struct fuse_file_info *fi) {
    if (!fi || fi->fh == CONTROL_FH) return NULL;
    size_t i = (size_t) (fi->fh & 0xffffffffu);
    uint32_t e = (uint32_t) (fi->fh >> 32);
    if (i >= handle_count || !handles[i].used || handles[i].epoch != e) return NULL;
    return &handles[i];
}

static int new_handle(int fd, struct fuse_file_info *fi) {
    struct stat st;
    if (fstat(fd, &st) != 0) { int err = -errno; close(fd); return err; }
    size_t i;
    for (i = 0; i < handle_count && handles[i].used; i++) {}
    if (i == handle_count) {
        handles = realloc(handles, (handle_count + 1) * sizeof *handles);
        handle_count++;
    }
    handles[i] = (struct handle) { fd, st.st_ino, epoch, 1 };
    fi->fh = ((uint64_t) epoch << 32) | i;
    if (fi->flags & O_TRUNC) size_changing(st.st_ino, 0, 0);
    return 0;
}

static void *pc_init(struct fuse_conn_info *conn, struct fuse_config *cfg) {
    (void) conn;
    cfg->use_ino = 0;
    cfg->hard_remove = 1;
    cfg->attr_timeout = 0;
    cfg->entry_timeout = 0;
    cfg->negative_timeout = 0;
    cfg->kernel_cache = 0;
    cfg->direct_io = 0;
    return NULL;
}

static int pc_getattr(const char *path, struct stat *st, struct fuse_file_info *fi) {
    if (!strcmp(path, CONTROL)) {
        memset(st, 0, sizeof *st);
        st->st_mode = S_IFREG | 0200;
        st->st_nlink = 1;
        return 0;
    }
    struct handle *h = handle_of(fi);
    if (h) return fstat(h->fd, st) == 0 ? 0 : -errno;
    char lp[PATH_MAX];
    live_path(lp, path);
    return lstat(lp, st) == 0 ? 0 : -errno;
}

static int pc_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off, struct fuse_file_info *fi,
        enum fuse_readdir_flags flags) {
    (void) off; (void) fi; (void) flags;
    char lp[PATH_MAX];
    live_path(lp, path);
    DIR *d = opendir(lp);
    if (!d) return -errno;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) fill(buf, e->d_name, NULL, 0, 0);
    closedir(d);
    return 0;
}

static int pc_mkdir(const char *path, mode_t mode) {
    char lp[PATH_MAX];
    live_path(lp, path);
    return mkdir(lp, mode) == 0 ? 0 : -errno;
}

static int pc_rmdir(const char *path) {
    char lp[PATH_MAX];
    live_path(lp, path);
    return rmdir(lp) == 0 ? 0 : -errno;
}

static int pc_unlink(const char *path) {
    char lp[PATH_MAX];
    live_path(lp, path);
    return unlink_or_keep(lp);
}

static int pc_rename(const char *from, const char *to, unsigned int flags) {
    if (flags) return -EINVAL;
    char lf[PATH_MAX], lt[PATH_MAX];
    live_path(lf, from);
    live_path(lt, to);
    struct stat st;
    if (lstat(lt, &st) == 0 && S_ISREG(st.st_mode)) {
        int err = unlink_or_keep(lt);
        if (err) return err;
    }
    return rename(lf, lt) == 0 ? 0 : -errno;
}

static int pc_link(const char *from, const char *to) {
    char lf[PATH_MAX], lt[PATH_MAX];
    live_path(lf, from);
    live_path(lt, to);
    return link(lf, lt) == 0 ? 0 : -errno;
}

static int pc_symlink(const char *target, const char *path) {
    char lp[PATH_MAX];
    live_path(lp, path);
    return symlink(target, lp) == 0 ? 0 : -errno;
}

static int pc_readlink(const char *path, char *buf, size_t size) {
    char lp[PATH_MAX];
    live_path(lp, path);
    ssize_t n = readlink(lp, buf, size - 1);
    if (n < 0) return -errno;
    buf[n] = 0;
    return 0;
}

static int pc_chmod(const char *path, mode_t mode, struct fuse_file_info *fi) {
    struct handle *h = handle_of(fi);
    if (h) return fchmod(h->fd, mode) == 0 ? 0 : -errno;
    char lp[PATH_MAX];
    live_path(lp, path);
    return chmod(lp, mode) == 0 ? 0 : -errno;
}

static int pc_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi) {
    (void) fi;
    char lp[PATH_MAX];
    live_path(lp, path);
    return lchown(lp, uid, gid) == 0 ? 0 : -errno;
}

static int pc_truncate(const char *path, off_t size, struct fuse_file_info *fi) {
    if (!strcmp(path, CONTROL)) return 0;
    struct handle *h = handle_of(fi);
    if (fi && fi->fh != CONTROL_FH && !h) return -EIO;
    char lp[PATH_MAX];
    live_path(lp, path);
    struct stat st;
    if ((h ? fstat(h->fd, &st) : lstat(lp, &st)) != 0) return -errno;
    if ((h ? ftruncate(h->fd, size) : truncate(lp, size)) != 0) return -errno;
    size_changing(st.st_ino, st.st_size, size);
    return 0;
}

static int pc_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi) {
    if (!strcmp(path, CONTROL)) return 0;
    struct handle *h = handle_of(fi);
    if (h) return futimens(h->fd, tv) == 0 ? 0 : -errno;
    char lp[PATH_MAX];
    live_path(lp, path);
    return utimensat(AT_FDCWD, lp, tv, AT_SYMLINK_NOFOLLOW) == 0 ? 0 : -errno;
}

static int pc_open(const char *path, struct fuse_file_info *fi) {
    if (!strcmp(path, CONTROL)) { fi->fh = CONTROL_FH; fi->direct_io = 1; return 0; }
    char lp[PATH_MAX];
    live_path(lp, path);
    int fd = open(lp, fi->flags & ~O_NOFOLLOW);
    if (fd < 0) return -errno;
    return new_handle(fd, fi);
}

static int pc_create(const char *path, mode_t mode, struct fuse_file_info *fi) {
    char lp[PATH_MAX];
    live_path(lp, path);
    int fd = open(lp, fi->flags | O_CREAT, mode);
    if (fd < 0) return -errno;
    return new_handle(fd, fi);
}

static int pc_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi) {
    (void) path;
    if (fi->fh == CONTROL_FH) return 0;
    struct handle *h = handle_of(fi);
    if (!h) return -EIO;
    ssize_t n = pread(h->fd, buf, size, off);
    return n < 0 ? -errno : (int) n;
}

static int pc_write(const char *path, const char *buf, size_t size, off_t off, struct fuse_file_info *fi) {
    (void) path;
    if (fi->fh == CONTROL_FH) {
        if (size >= 3 && !strncmp(buf, "cut", 3)) { cut(); return (int) size; }
        return -EINVAL;
    }
    struct handle *h = handle_of(fi);
    if (!h) return -EIO;
    struct stat st;
    if (fstat(h->fd, &st) != 0) return -errno;
    ssize_t n = pwrite(h->fd, buf, size, off);
    if (n < 0) return -errno;
    mark_dirty(h->ino, off, (size_t) n);
    if (off + n > st.st_size) size_changing(h->ino, st.st_size, off + n);
    return (int) n;
}

static int pc_statfs(const char *path, struct statvfs *st) {
    (void) path;
    return statvfs(live, st) == 0 ? 0 : -errno;
}

static int pc_release(const char *path, struct fuse_file_info *fi) {
    (void) path;
    struct handle *h = handle_of(fi);
    if (h) { close(h->fd); h->used = 0; }
    return 0;
}

static int pc_fsync(const char *path, int datasync, struct fuse_file_info *fi) {
    (void) path; (void) datasync;
    if (fi->fh == CONTROL_FH) return 0;
    struct handle *h = handle_of(fi);
    if (!h) return -EIO;
    return sync_file(h->fd, h->ino);
}

static int pc_fsyncdir(const char *path, int datasync, struct fuse_file_info *fi) {
    (void) datasync; (void) fi;
    return sync_dir(path);
}

static int pc_access(const char *path, int mask) {
    if (!strcmp(path, CONTROL)) return 0;
    char lp[PATH_MAX];
    live_path(lp, path);
    return access(lp, mask) == 0 ? 0 : -errno;
}

static const struct fuse_operations ops = {
    .init = pc_init, .getattr = pc_getattr, .readdir = pc_readdir, .mkdir = pc_mkdir, .rmdir = pc_rmdir,
    .unlink = pc_unlink, .rename = pc_rename, .link = pc_link, .symlink = pc_symlink, .readlink = pc_readlink,
    .chmod = pc_chmod, .chown = pc_chown, .truncate = pc_truncate, .utimens = pc_utimens, .open = pc_open,
    .create = pc_create, .read = pc_read, .write = pc_write, .statfs = pc_statfs, .release = pc_release,
    .fsync = pc_fsync, .fsyncdir = pc_fsyncdir, .access = pc_access,
};

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: powercutfs BACKING MOUNTPOINT\n");
        return 2;
    }
    if (!realpath(argv[1], backing)) { perror(argv[1]); return 2; }
    snprintf(live, sizeof live, "%s/live", backing);
    snprintf(store, sizeof store, "%s/store", backing);
    snprintf(trash, sizeof trash, "%s/trash", backing);
    mkdir(live, 0700);
    remove_tree(store);
    mkdir(store, 0700);
    remove_tree(trash);
    mkdir(trash, 0700);
    make_all_durable("/");
    char *fargs[] = { argv[0], "-f", "-s", "-o", "fsname=powercutfs,default_permissions", argv[2], NULL };
    return fuse_main(6, fargs, &ops, NULL);
}
