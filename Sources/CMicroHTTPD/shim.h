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
#include <sys/syscall.h>

/* Swift cannot call C variadics (MHD_start_daemon, MHD_get_*_info): these non-variadic
   wrappers are the only reason this file has code. Related documentation:
   https://www.gnu.org/software/libmicrohttpd/manual/libmicrohttpd.html */

/* Starts a daemon with the three callbacks NavPrefs' server always installs (completion,
   connection start/close) and the scalar options in `options`, an MHD_OPTION_END-terminated array. */
static inline struct MHD_Daemon *cmhd_start_daemon(unsigned int flags, uint16_t port,
    MHD_AccessHandlerCallback handler, void *cls,
    MHD_RequestCompletedCallback completed, MHD_NotifyConnectionCallback connection_notify,
    const struct sockaddr *bind_address, const struct MHD_OptionItem *options)
{
    return MHD_start_daemon(flags, port, NULL, NULL, handler, cls,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, cls,
                            MHD_OPTION_NOTIFY_CONNECTION, connection_notify, cls,
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

/* The kernel id of the calling thread (glibc declares gettid() only under _GNU_SOURCE), so that
   tests can read the event-loop thread's CPU time from /proc/self/task/<tid>/stat. */
static inline int32_t cmhd_current_thread_id(void) { return (int32_t) syscall(SYS_gettid); }
#endif
