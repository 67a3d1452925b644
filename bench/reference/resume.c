/*
 * resume.c - how fast does a libmicrohttpd (0.9.75) event loop serve a connection that another
 * thread resumes? NavPrefs answers every write (and every GET that misses its cache) that way:
 * the access handler suspends the connection, a worker produces the answer, then calls
 * MHD_resume_connection() from its own thread.
 *
 * Every request here is deferred like that: the handler suspends the connection and queues it;
 * one worker thread resumes it at once; the next handler call answers {"deferred":true}.
 *
 * usage: resume PORT MODE            (listens on 127.0.0.1:PORT only)
 *   runwait   MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME, one thread looping MHD_run_wait(d, 50):
 *             NavPrefs' loop as it is (MicroHTTPServer/MHD/EventLoop.swift)
 *   internal  the same flags | MHD_USE_INTERNAL_POLLING_THREAD (MHD's own epoll thread)
 *   wake      external epoll like runwait, but our loop waits on its own epoll set holding MHD's
 *             epoll fd (MHD_DAEMON_INFO_EPOLL_FD) and an eventfd that the worker writes after each
 *             MHD_resume_connection(); then MHD_run(). The wait is capped at 50 ms and at
 *             MHD_get_timeout(), so the 0.9.75 epoll-128 stall stays bounded as with runwait.
 *
 * Build: gcc -O2 -Wall -o resume resume.c $(pkg-config --cflags --libs libmicrohttpd) -lpthread
 */
#define _GNU_SOURCE
#include <microhttpd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#define QUEUE 65536

static struct MHD_Connection *queue[QUEUE];
static unsigned head, tail;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t nonempty = PTHREAD_COND_INITIALIZER;
static int wake_fd = -1;
static volatile int running = 1;
static int marker_waiting, marker_ready;

static void *
worker(void *unused)
{
  (void) unused;
  for (;;) {
    pthread_mutex_lock(&lock);
    while (head == tail && running) pthread_cond_wait(&nonempty, &lock);
    if (head == tail) { pthread_mutex_unlock(&lock); return NULL; }
    struct MHD_Connection *c = queue[head++ % QUEUE];
    pthread_mutex_unlock(&lock);
    MHD_resume_connection(c);
    if (wake_fd >= 0) {
      uint64_t one = 1;
      if (write(wake_fd, &one, sizeof one) < 0) { /* the counter cannot overflow here */ }
    }
  }
}

static enum MHD_Result
handler(void *cls, struct MHD_Connection *c, const char *url, const char *method, const char *version,
        const char *upload_data, size_t *upload_data_size, void **con_cls)
{
  (void) cls; (void) url; (void) method; (void) version; (void) upload_data;
  if (*con_cls == NULL) { *con_cls = &marker_waiting; return MHD_YES; } /* answer on a later call */
  if (*upload_data_size != 0) { *upload_data_size = 0; return MHD_YES; }
  if (*con_cls == &marker_waiting) {                                  /* defer: suspend, hand over */
    *con_cls = &marker_ready;
    MHD_suspend_connection(c);
    pthread_mutex_lock(&lock);
    queue[tail++ % QUEUE] = c;
    pthread_cond_signal(&nonempty);
    pthread_mutex_unlock(&lock);
    return MHD_YES;
  }
  static const char body[] = "{\"deferred\":true}\n";                 /* resumed: answer */
  struct MHD_Response *r = MHD_create_response_from_buffer(sizeof body - 1, (void *) body, MHD_RESPMEM_PERSISTENT);
  MHD_add_response_header(r, "Content-Type", "application/json");
  enum MHD_Result ret = MHD_queue_response(c, 200, r);
  MHD_destroy_response(r);
  return ret;
}

static void
completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe)
{
  (void) cls; (void) c; (void) toe;
  *con_cls = NULL;
}

static void *
loop_runwait(void *d)
{
  while (running) MHD_run_wait((struct MHD_Daemon *) d, 50);
  return NULL;
}

static void *
loop_wake(void *d)
{
  struct MHD_Daemon *daemon = d;
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_EPOLL_FD);
  int ep = epoll_create1(EPOLL_CLOEXEC);
  struct epoll_event ev = { .events = EPOLLIN, .data.fd = info->epoll_fd };
  epoll_ctl(ep, EPOLL_CTL_ADD, info->epoll_fd, &ev);
  ev.data.fd = wake_fd;
  epoll_ctl(ep, EPOLL_CTL_ADD, wake_fd, &ev);
  while (running) {
    MHD_UNSIGNED_LONG_LONG next;
    int ms = 50;
    if (MHD_get_timeout(daemon, &next) == MHD_YES && next < 50) ms = (int) next;
    struct epoll_event events[2];
    int n = epoll_wait(ep, events, 2, ms);
    for (int i = 0; i < n; i++)
      if (events[i].data.fd == wake_fd) {
        uint64_t count;
        if (read(wake_fd, &count, sizeof count) < 0) { /* EAGAIN: already drained */ }
      }
    MHD_run(daemon);
  }
  close(ep);
  return NULL;
}

int
main(int argc, char **argv)
{
  if (argc != 3) { fprintf(stderr, "usage: %s PORT runwait|internal|wake\n", argv[0]); return 2; }
  unsigned short port = (unsigned short) atoi(argv[1]);
  const char *mode = argv[2];
  unsigned int flags = MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
  if (strcmp(mode, "internal") == 0) flags |= MHD_USE_INTERNAL_POLLING_THREAD;
  else if (strcmp(mode, "wake") == 0) wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  else if (strcmp(mode, "runwait") != 0) { fprintf(stderr, "resume: unknown mode %s\n", mode); return 2; }

  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, NULL);

  struct sockaddr_in address = { .sin_family = AF_INET, .sin_port = htons(port) };
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  struct MHD_Daemon *d = MHD_start_daemon(flags, port, NULL, NULL, &handler, NULL,
                                          MHD_OPTION_SOCK_ADDR, (struct sockaddr *) &address,
                                          MHD_OPTION_NOTIFY_COMPLETED, &completed, NULL,
                                          MHD_OPTION_CONNECTION_LIMIT, (unsigned int) 16384,
                                          MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int) 60,
                                          MHD_OPTION_END);
  if (d == NULL) { fprintf(stderr, "resume: MHD_start_daemon failed\n"); return 1; }
  pthread_t work, loop;
  pthread_create(&work, NULL, worker, NULL);
  int external = (flags & MHD_USE_INTERNAL_POLLING_THREAD) == 0;
  if (external) pthread_create(&loop, NULL, wake_fd >= 0 ? loop_wake : loop_runwait, d);
  fprintf(stderr, "resume: ready on 127.0.0.1:%u, mode %s\n", port, mode);
  int sig;
  sigwait(&set, &sig);
  running = 0;
  if (external) pthread_join(loop, NULL);
  pthread_mutex_lock(&lock);
  pthread_cond_broadcast(&nonempty);
  pthread_mutex_unlock(&lock);
  pthread_join(work, NULL);
  MHD_stop_daemon(d);
  return 0;
}
