#ifndef FLOOR_CMICROHTTPD_SHIM_H
#define FLOOR_CMICROHTTPD_SHIM_H
/* microhttpd.h expects the socket types to be declared before it. */
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <stdint.h>
#include <stdarg.h>
#include <signal.h>
#include <unistd.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <time.h>
#include <microhttpd.h>

/* MHD_start_daemon is variadic, which Swift cannot call. navprefs' mode and limits: external
   epoll (no MHD thread: the floor's loop drives MHD), suspend/resume, 127.0.0.1 only. */
static inline struct MHD_Daemon *floor_start_daemon(uint16_t port, MHD_AccessHandlerCallback handler,
                                                    MHD_RequestCompletedCallback completed, void *cls)
{
    struct sockaddr_in address = { .sin_family = AF_INET, .sin_port = htons(port) };
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return MHD_start_daemon(MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG, port, NULL, NULL,
                            handler, cls,
                            MHD_OPTION_SOCK_ADDR, (struct sockaddr *) &address,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, cls,
                            MHD_OPTION_CONNECTION_LIMIT, (unsigned int) 16384,
                            MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int) 1024,
                            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int) 60,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t) 6144,
                            MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned int) 1024,
                            MHD_OPTION_END);
}

/* SIGINT and SIGTERM blocked and delivered to a descriptor the loop waits on, or -1. */
static inline int floor_signal_fd(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    if (sigprocmask(SIG_BLOCK, &set, NULL) != 0) return -1;
    return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

/* The loop's epoll set: MHD's epoll descriptor and the signal descriptor; or -1. */
static inline int floor_loop_create(struct MHD_Daemon *daemon, int signal_fd)
{
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_EPOLL_FD);
    if (info == NULL) return -1;
    int loop_fd = epoll_create1(EPOLL_CLOEXEC);
    if (loop_fd < 0) return -1;
    struct epoll_event mhd = { .events = EPOLLIN, .data.fd = info->epoll_fd };
    struct epoll_event sig = { .events = EPOLLIN, .data.fd = signal_fd };
    if (epoll_ctl(loop_fd, EPOLL_CTL_ADD, info->epoll_fd, &mhd) != 0
        || epoll_ctl(loop_fd, EPOLL_CTL_ADD, signal_fd, &sig) != 0) {
        close(loop_fd);
        return -1;
    }
    return loop_fd;
}

/* Sleeps until MHD has work, MHD's next timeout (at most `max_ms`), or a signal; returns 1 when
   SIGINT or SIGTERM arrived. */
static inline int floor_loop_wait(struct MHD_Daemon *daemon, int loop_fd, int signal_fd, int max_ms)
{
    MHD_UNSIGNED_LONG_LONG next = 0;
    int timeout = max_ms;
    if (MHD_get_timeout(daemon, &next) == MHD_YES && next < (MHD_UNSIGNED_LONG_LONG) max_ms) timeout = (int) next;
    struct epoll_event events[2];
    int ready = epoll_wait(loop_fd, events, 2, timeout);
    for (int i = 0; i < ready; i++)
        if (events[i].data.fd == signal_fd) return 1;
    return 0;
}

/* CLOCK_MONOTONIC in nanoseconds (the commit's wall time, for the exit line). */
static inline int64_t floor_monotonic_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t) now.tv_sec * 1000000000 + now.tv_nsec;
}
#endif
