/*
 * mhd_sse: the ceiling of navprefs' SSE path: a C libmicrohttpd server in navprefs' mode that
 * streams the same bytes, and nothing else (no storage, no log, no Swift).
 *
 *   GET /v1/profiles/bench/events -> 200 text/event-stream (chunked, as MHD sends a body of
 *       unknown length): "retry: 2000\n\n" "id: N\n\n", then one frame per change:
 *       "id: N\nevent: refresh\ndata: {...}\n\n" (navprefs' refresh event, same bytes)
 *   PUT|POST anything else -> a change: the next frame for every subscriber; 200 JSON
 *
 * Mode (navprefs' EventLoop): MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG, no
 * MHD thread; our one thread loops MHD_run_wait(d, 50). Every callback runs on that thread, so a
 * change resumes the subscribers from MHD's own thread. An idle subscriber is suspended by its
 * content reader (returning 0 without suspending would busy-loop) and resumed on a change.
 * Limits as navprefs': 16384 connections, 1024 per IP, 60 s idle timeout, backlog 1024, strict
 * client checks; the per-connection memory pool is the third argument (navprefs: 32768).
 * Response block size 4096, as navprefs' MHDResponse.queueStream.
 *
 * usage: mhd_sse PORT [CONNECTION_MEMORY_BYTES]      runs until SIGINT/SIGTERM
 */
#include <microhttpd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct sub {
  struct MHD_Connection *conn;
  unsigned long long sent;     /* last change written */
  int opened, suspended;
  struct sub *prev, *next;
};

static struct sub subs = { .prev = &subs, .next = &subs };
static unsigned nsubs;
static unsigned long long seq = 1;
static char frame[512];
static size_t frame_len;
static volatile sig_atomic_t stop;

static void on_signal(int sig) { (void) sig; stop = 1; }

static void make_frame(void) {
  frame_len = (size_t) snprintf(frame, sizeof frame,
      "id: %llu\nevent: refresh\ndata: {\"profile\":\"bench\",\"name\":\"doRefreshNotification\","
      "\"keys\":[\"sliderValuekey\",\"fontSizekey\"],\"sliderValue\":3.0,\"fontSize\":20.0,"
      "\"effectiveFontSize\":20.0,\"version\":%llu}\n\n", seq, seq);
}

static ssize_t reader(void *cls, uint64_t pos, char *buf, size_t max) {
  (void) pos;
  struct sub *s = cls;
  if (!s->opened) {
    s->opened = 1;
    return snprintf(buf, max, "retry: 2000\n\nid: %llu\n\n", s->sent);
  }
  if (s->sent < seq && frame_len <= max) {
    memcpy(buf, frame, frame_len);
    s->sent = seq;
    return (ssize_t) frame_len;
  }
  s->suspended = 1;
  MHD_suspend_connection(s->conn);
  return 0;
}

static void sub_free(void *cls) {
  struct sub *s = cls;
  s->prev->next = s->next; s->next->prev = s->prev;
  nsubs--;
  free(s);
}

static void wake_all(void) {
  for (struct sub *s = subs.next; s != &subs; s = s->next)
    if (s->suspended) { s->suspended = 0; MHD_resume_connection(s->conn); }
}

static enum MHD_Result json(struct MHD_Connection *c, unsigned status, const char *body) {
  struct MHD_Response *r = MHD_create_response_from_buffer(strlen(body), (void *) body, MHD_RESPMEM_MUST_COPY);
  MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
  enum MHD_Result ret = MHD_queue_response(c, status, r);
  MHD_destroy_response(r);
  return ret;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                               const char *version, const char *upload, size_t *upload_size, void **con_cls) {
  (void) cls; (void) version; (void) upload;
  static int marker;
  if (*con_cls == NULL) { *con_cls = &marker; return MHD_YES; }   /* answer on the last call */
  if (*upload_size) { *upload_size = 0; return MHD_YES; }          /* the body is not needed */
  if (strcmp(method, "GET") == 0 && strcmp(url, "/v1/profiles/bench/events") == 0) {
    struct sub *s = calloc(1, sizeof *s);
    if (s == NULL) return MHD_NO;
    s->conn = c; s->sent = seq;
    s->next = &subs; s->prev = subs.prev; subs.prev->next = s; subs.prev = s;
    nsubs++;
    struct MHD_Response *r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, &reader, s, &sub_free);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/event-stream");
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
    MHD_add_response_header(r, "X-Accel-Buffering", "no");
    enum MHD_Result ret = MHD_queue_response(c, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    return ret;
  }
  if (strcmp(method, "PUT") == 0 || strcmp(method, "POST") == 0) {
    char body[64];
    seq++;
    make_frame();
    wake_all();
    snprintf(body, sizeof body, "{\"subscribers\":%u,\"eventId\":%llu}", nsubs, seq);
    return json(c, MHD_HTTP_OK, body);
  }
  return json(c, MHD_HTTP_NOT_FOUND, "{\"type\":\"not-found\"}");
}

int main(int argc, char **argv) {
  if (argc < 2) { fprintf(stderr, "usage: %s PORT [CONNECTION_MEMORY_BYTES]\n", argv[0]); return 2; }
  unsigned port = (unsigned) atoi(argv[1]);
  unsigned pool = argc > 2 ? (unsigned) atoi(argv[2]) : 32768;
  make_frame();
  signal(SIGINT, on_signal); signal(SIGTERM, on_signal); signal(SIGPIPE, SIG_IGN);
  struct MHD_Daemon *d = MHD_start_daemon(
      MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG, (uint16_t) port, NULL, NULL, &handler, NULL,
      MHD_OPTION_CONNECTION_LIMIT, 16384u, MHD_OPTION_PER_IP_CONNECTION_LIMIT, 1024u,
      MHD_OPTION_CONNECTION_TIMEOUT, 60u, MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t) pool,
      MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024u, MHD_OPTION_STRICT_FOR_CLIENT, 1, MHD_OPTION_END);
  if (d == NULL) { fprintf(stderr, "mhd_sse: MHD_start_daemon failed on port %u\n", port); return 1; }
  fprintf(stderr, "mhd_sse: port %u, connection memory %u bytes\n", port, pool);
  while (!stop) MHD_run_wait(d, 50);
  /* MHD_stop_daemon refuses suspended connections, and resuming them all to end their streams
     only logs a failure per connection the harness reset: a bench server just leaves. */
  _exit(0);
}
