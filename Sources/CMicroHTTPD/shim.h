#ifndef CMICROHTTPD_SHIM_H
#define CMICROHTTPD_SHIM_H
/* microhttpd.h expects the socket types to be declared before it. */
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <stdint.h>
#include <stdarg.h>
#include <microhttpd.h>
#include <unistd.h>
#include <errno.h>
#include <time.h>
#include <sys/ioctl.h>
#include <linux/sockios.h>
#include <sys/syscall.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>

/* Swift cannot call C variadics (MHD_start_daemon, MHD_get_*_info): these non-variadic
   wrappers are the only reason this file has code. Related documentation:
   https://www.gnu.org/software/libmicrohttpd/manual/libmicrohttpd.html */

/* The signature of MHD_OPTION_URI_LOG_CALLBACK, which microhttpd.h documents but does not name. */
typedef void *(*cmhd_uri_log_callback)(void *cls, const char *uri, struct MHD_Connection *connection);

/* Starts a daemon with the callbacks the server always installs (completion, connection
   start/close, the raw request target) and the scalar options in `options`, an
   MHD_OPTION_END-terminated array. */
static inline struct MHD_Daemon *cmhd_start_daemon(unsigned int flags, uint16_t port,
    MHD_AccessHandlerCallback handler, void *cls,
    MHD_RequestCompletedCallback completed, MHD_NotifyConnectionCallback connection_notify,
    cmhd_uri_log_callback uri_logged,
    MHD_LogCallback logger, const struct sockaddr *bind_address, const struct MHD_OptionItem *options)
{
    return MHD_start_daemon(flags, port, NULL, NULL, handler, cls,
                            /* First, or MHD warns that messages before it went to stderr. */
                            MHD_OPTION_EXTERNAL_LOGGER, logger, cls,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, cls,
                            MHD_OPTION_NOTIFY_CONNECTION, connection_notify, cls,
                            MHD_OPTION_URI_LOG_CALLBACK, uri_logged, cls,
                            MHD_OPTION_SOCK_ADDR, bind_address,
                            MHD_OPTION_ARRAY, options,
                            MHD_OPTION_END);
}

/* The port the daemon is bound to (useful when it was started on port 0), or 0. */
static inline uint16_t cmhd_bound_port(struct MHD_Daemon *daemon)
{
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/* The peer address of a connection, or NULL. */
static inline const struct sockaddr *cmhd_client_address(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}

/* What the application stored in the connection's socket context (MHD_OPTION_NOTIFY_CONNECTION), or NULL. */
static inline void *cmhd_socket_context(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}

/* The socket of a connection, or -1 (the deadlines shut it down from the event loop). */
static inline int cmhd_connection_fd(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/* Bytes of the request line and header section as received (terminators included), or 0 before
   the headers are complete: the measure of the header-size limit. */
static inline size_t cmhd_request_header_size(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    return info == NULL ? 0 : info->header_size;
}

/* Makes the response send neither a length nor chunked framing and close the connection
   (MHD_set_response_options is variadic): the only headers-only form of an unknown-length body. */
static inline int cmhd_response_unframed(struct MHD_Response *response)
{
    return MHD_set_response_options(response, MHD_RF_HTTP_1_0_COMPATIBLE_STRICT, MHD_RO_END) == MHD_YES;
}

/* Sends what it can of `bytes` without blocking or raising SIGPIPE; returns bytes sent or -1. */
static inline ssize_t cmhd_send_nonblocking(int fd, const void *bytes, size_t count)
{
    return send(fd, bytes, count, MSG_DONTWAIT | MSG_NOSIGNAL);
}

/* Bytes the socket still holds unsent or unacknowledged (SIOCOUTQ), or -1. */
static inline int cmhd_unsent_bytes(int fd)
{
    int unsent = 0;
    return ioctl(fd, SIOCOUTQ, &unsent) == 0 ? unsent : -1;
}

/* send() without blocking or SIGPIPE: the bytes sent, 0 when the socket would block (nothing
   sent), or -1 on any other error (the peer left). */
static inline ssize_t cmhd_send_or_would_block(int fd, const void *bytes, size_t count)
{
    ssize_t sent = send(fd, bytes, count, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (sent >= 0) return sent;
    return (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -1;
}

/* Fixes the socket's send buffer at `bytes` (Linux doubles it for its own bookkeeping and stops
   growing it): what the kernel holds for a client that does not read is then bounded. */
static inline void cmhd_limit_send_buffer(int fd, int bytes)
{
    (void) setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof bytes);
}

/* Values libmicrohttpd keeps for the current request (header fields, cookies, query arguments):
   one pool record each. */
static inline int cmhd_value_count(struct MHD_Connection *connection)
{
    return MHD_get_connection_values(connection, (enum MHD_ValueKind) (MHD_HEADER_KIND | MHD_COOKIE_KIND | MHD_GET_ARGUMENT_KIND), NULL, NULL);
}

/* Bytes received on `fd` and not read yet (FIONREAD), or 0. */
static inline int cmhd_pending_bytes(int fd)
{
    int pending = 0;
    return ioctl(fd, FIONREAD, &pending) == 0 ? pending : 0;
}

/* Reads and throws away what `fd` holds, up to `max` bytes, without blocking: a socket closed
   with unread bytes sends a reset, which can destroy the answer written just before it. */
static inline void cmhd_drain_socket(int fd, size_t max)
{
    char scratch[4096];
    size_t drained = 0;
    while (drained < max) {
        ssize_t got = recv(fd, scratch, sizeof scratch, MSG_DONTWAIT);
        if (got <= 0) break;
        drained += (size_t) got;
    }
}

/* Shuts a connection's socket both ways: MHD then reads end-of-stream and closes it itself. */
static inline void cmhd_shutdown_socket(int fd) { (void) shutdown(fd, SHUT_RDWR); }

/* The kernel id of the calling thread (glibc declares gettid() only under _GNU_SOURCE), so that
   tests can read the event-loop thread's CPU time from /proc/self/task/<tid>/stat. */
static inline int32_t cmhd_current_thread_id(void) { return (int32_t) syscall(SYS_gettid); }

/* CLOCK_MONOTONIC in nanoseconds: a plain integer for checks that run per connection several
   times a second (ContinuousClock.Instant is resilient, so each copy goes through the runtime). */
static inline int64_t cmhd_monotonic_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t) now.tv_sec * 1000000000 + now.tv_nsec;
}

/* In external-epoll mode (no MHD thread), MHD_resume_connection() from another thread does not
   wake MHD_run_wait() before its timeout (measured: every resumed request waited the full 50 ms).
   So the event loop waits itself, on an epoll set holding MHD's epoll fd and an eventfd that every
   resume signals, and then lets MHD work without blocking (MHD_run). */

/* A non-blocking eventfd for waking the loop, or -1. */
static inline int cmhd_wake_fd_create(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

/* Wakes the loop waiting on `wake_fd` (an eventfd only counts, so concurrent signals are fine). */
static inline void cmhd_wake_fd_signal(int wake_fd)
{
    uint64_t one = 1;
    ssize_t written = write(wake_fd, &one, sizeof one);
    (void) written; /* only fails when the counter is about to overflow: the loop is awake anyway */
}

/* The event loop's epoll set: MHD's own epoll fd, the wake-up eventfd, and sockets the server
   watches itself (a suspended stream's hang-up, the rest of an answer it writes itself). Each
   registration carries a token; the two below are the loop's own, the server's are smaller. */
#define CMHD_TOKEN_DAEMON UINT64_MAX
#define CMHD_TOKEN_WAKE (UINT64_MAX - 1)

/* An empty epoll set for the loop, or -1. */
static inline int cmhd_loop_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

/* Adds the daemon's epoll fd and `wake_fd` to the loop's set; 0, or -1. */
static inline int cmhd_loop_epoll_add_daemon(int loop_fd, struct MHD_Daemon *daemon, int wake_fd)
{
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_EPOLL_FD);
    if (info == NULL) return -1;
    struct epoll_event event = { .events = EPOLLIN, .data.u64 = CMHD_TOKEN_DAEMON };
    struct epoll_event wake = { .events = EPOLLIN, .data.u64 = CMHD_TOKEN_WAKE };
    if (epoll_ctl(loop_fd, EPOLL_CTL_ADD, info->epoll_fd, &event) != 0
        || epoll_ctl(loop_fd, EPOLL_CTL_ADD, wake_fd, &wake) != 0) return -1;
    return 0;
}

/* Watches `fd` under `token`: for the peer's hang-up (`writable` 0: EPOLLRDHUP, edge-triggered,
   so one report per change; hang-ups and errors are always reported), or for room to send
   (`writable` 1: EPOLLOUT, edge-triggered). An fd watched already gets the new interest. 0, or -1. */
static inline int cmhd_loop_watch(int loop_fd, int fd, uint64_t token, int writable)
{
    struct epoll_event event = { .events = (writable ? EPOLLOUT : EPOLLRDHUP) | EPOLLET, .data.u64 = token };
    if (epoll_ctl(loop_fd, EPOLL_CTL_ADD, fd, &event) == 0) return 0;
    if (errno == EEXIST && epoll_ctl(loop_fd, EPOLL_CTL_MOD, fd, &event) == 0) return 0;
    return -1;
}

/* Stops watching `fd` (closing it stops too: the kernel drops a closed socket from the set). */
static inline void cmhd_loop_unwatch(int loop_fd, int fd) { (void) epoll_ctl(loop_fd, EPOLL_CTL_DEL, fd, NULL); }

/* The epoll event bits a watch reports, for Swift. */
static inline uint32_t cmhd_event_hang_up(void) { return EPOLLHUP | EPOLLERR; }
static inline uint32_t cmhd_event_peer_finished(void) { return EPOLLRDHUP; }
static inline uint32_t cmhd_event_writable(void) { return EPOLLOUT; }

/* Waits until MHD has work, a resume signalled `wake_fd` (drained here), a watched socket
   reports, MHD's next timeout, or `max_ms`. Writes the watched sockets' tokens and events into
   `tokens` and `events` (room for `capacity`, 2 to 64) and returns how many, and the wait it
   allowed into `timeout_used` (0: MHD has work it could not finish); the caller then runs MHD
   once without blocking (MHD_run). Reports beyond `capacity` stay queued for the next wait. */
static inline int cmhd_loop_wait(struct MHD_Daemon *daemon, int loop_fd, int wake_fd, int max_ms,
                                 uint64_t *tokens, uint32_t *events, int capacity, int *timeout_used)
{
    MHD_UNSIGNED_LONG_LONG next = 0;
    int timeout = max_ms;
    if (MHD_get_timeout(daemon, &next) == MHD_YES && next < (MHD_UNSIGNED_LONG_LONG) max_ms) timeout = (int) next;
    *timeout_used = timeout;
    struct epoll_event ready_events[64];
    int room = capacity < 64 ? capacity : 64; /* at least 2: the daemon and the wake-up */
    int ready = epoll_wait(loop_fd, ready_events, room, timeout);
    int count = 0;
    for (int i = 0; i < ready; i++) {
        uint64_t token = ready_events[i].data.u64;
        if (token == CMHD_TOKEN_WAKE) {
            uint64_t value;
            ssize_t got = read(wake_fd, &value, sizeof value);
            (void) got; /* EAGAIN: another wake-up already drained it */
        } else if (token != CMHD_TOKEN_DAEMON) {
            tokens[count] = token;
            events[count] = ready_events[i].events;
            count++;
        }
    }
    return count;
}

/* Whether the peer has finished sending and nothing of it is left unread: a read would see the
   end of the stream (recv with MSG_PEEK answers 0). Never blocks; reads nothing. */
static inline int cmhd_peer_finished_sending(int fd)
{
    char byte;
    return recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}
#endif
