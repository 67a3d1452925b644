/* flush-images.c: what a power loss would leave of a database's files, for a test (issue 34).
 *
 * Preloaded into navprefs (LD_PRELOAD), it wraps fsync and fdatasync. When one of them is called
 * on a regular file whose path starts with $POWER_LOSS_WATCH (the database, its -wal; the -shm
 * is left out, SQLite rebuilds it from the log), it copies the file as it is at that moment,
 * calls the real flush, and once that returned 0 the copy replaces the file's image in
 * $POWER_LOSS_IMAGES. Each image is then the file as of its last completed flush: what a power
 * loss keeps at least when the OS loses every write made after it. Writes made while the copy
 * is read may be in it too (a torn tail, which SQLite's checksums handle as after a real loss);
 * a write the service acknowledged after its flush is always in it.
 *
 * Build: cc -shared -fPIC -O1 -o flush-images.so flush-images.c -ldl -lpthread
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int (*real_fsync)(int);
static int (*real_fdatasync)(int);
static const char *watched;
static const char *images;
static pthread_mutex_t imaging = PTHREAD_MUTEX_INITIALIZER;
static unsigned long copies;

__attribute__((constructor)) static void load(void) {
    real_fsync = (int (*)(int)) dlsym(RTLD_NEXT, "fsync");
    real_fdatasync = (int (*)(int)) dlsym(RTLD_NEXT, "fdatasync");
    watched = getenv("POWER_LOSS_WATCH");
    images = getenv("POWER_LOSS_IMAGES");
}

/* Copies what `fd` holds now to `to`; 0 on success. */
static int copy_file(int fd, const char *to) {
    int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (out < 0) return -1;
    static char buffer[1 << 16];
    off_t offset = 0;
    for (;;) {
        ssize_t got = pread(fd, buffer, sizeof buffer, offset);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) { close(out); return got == 0 ? 0 : -1; }
        for (ssize_t done = 0; done < got;) {
            ssize_t put = write(out, buffer + done, (size_t) (got - done));
            if (put < 0 && errno == EINTR) continue;
            if (put <= 0) { close(out); return -1; }
            done += put;
        }
        offset += got;
    }
}

static int flush_and_image(int fd, int (*real)(int)) {
    if (real == NULL) { errno = ENOSYS; return -1; }
    char link[64], path[PATH_MAX];
    struct stat status;
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t length = readlink(link, path, sizeof path - 1);
    if (watched == NULL || images == NULL || length <= 0 || fstat(fd, &status) != 0 || !S_ISREG(status.st_mode)) return real(fd);
    path[length] = 0;
    if (strncmp(path, watched, strlen(watched)) != 0) return real(fd);
    const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    size_t named = strlen(name);
    if (named >= 4 && strcmp(name + named - 4, "-shm") == 0) return real(fd);
    char copy[2 * PATH_MAX + 32], image[2 * PATH_MAX + 2];
    pthread_mutex_lock(&imaging);
    snprintf(copy, sizeof copy, "%s/.%s.%lu", images, name, copies++);
    snprintf(image, sizeof image, "%s/%s", images, name);
    int copied = copy_file(fd, copy);
    int result = real(fd);
    int saved = errno;
    if (result == 0 && copied == 0) rename(copy, image); else unlink(copy);
    pthread_mutex_unlock(&imaging);
    errno = saved;
    return result;
}

int fsync(int fd) { return flush_and_image(fd, real_fsync); }
int fdatasync(int fd) { return flush_and_image(fd, real_fdatasync); }
