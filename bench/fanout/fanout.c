/*
 * fanout: SSE fan-out harness. One thread, epoll, non-blocking sockets, loopback only.
 *
 *  1. reads the server's VmRSS (-r PID,PID: summed), then opens N subscriptions
 *     (GET SUB_PATH, Accept: text/event-stream) with at most INFLIGHT connects unanswered,
 *     spread over A source addresses 127.1.0.1 .. 127.1.0.A (per-IP limits, ephemeral ports);
 *     a subscriber counts as established once it has the 200 status, the headers and its first
 *     SSE block (-e id: its first `id:` line; -e frame: any first block, e.g. nchan's ": hi");
 *  2. settles SETTLE ms, reads VmRSS again: (after - before) / N = memory per idle subscriber;
 *  3. holds every subscriber idle IDLE s and reads the server's CPU time over that window
 *     (utime+stime ticks from /proc/PID/stat, and ns per thread from schedstat: see `meter`);
 *  4. K times: opens a publisher connection, takes t0, writes the change (-u "METHOD PATH",
 *     -b BODY), and reads every subscriber until each has dispatched its k-th event (an SSE
 *     block with a `data:` line); the arrival time is taken when the block's blank line is
 *     parsed. Bodies may be chunked (decoded here) or not. Reports first / p50 / p99 / max
 *     arrival, how many never got it within TIMEOUT, the publisher's status, and the harness's
 *     own CPU time in the window (close to the window: the harness is the limit; far below:
 *     it is waiting for the server), the server's CPU time in it, and how long the server's
 *     threads and the harness were runnable but waiting for a CPU (schedstat: for the harness and
 *     a one-thread server, above zero only when another process competes; a server's threads on
 *     one core also wait for each other);
 *  5. optional (-H S): waits up to S s for one round of comment blocks (heartbeats) on every
 *     subscriber and reports the round's spread (first to last arrival) and the server CPU spent
 *     meanwhile above its idle rate of step 3;
 *  6. closes everything with RST (SO_LINGER 0): no TIME_WAIT pile-up.
 * Lost = sum over subscribers of (K - events received), at the end; extra events are counted
 * too. Output: human lines on stderr; on stdout one "CHANGE key=value ..." line per change and
 * one "RESULT key=value ..." line at the end (medians over the changes).
 *
 * -P PORT2 (for bench/postgres/run.sh) puts every other subscriber on a second server (instance B),
 * while the change is still made through -p PORT (instance A). One process, one clock: the
 * arrival times on both instances are measured from the same t0, so "the last subscriber on
 * either instance" is a plain max, with nothing to merge between processes. With -P, CHANGE and
 * RESULT lines also carry the statistics of each side (a_*: subscribers on A, which get the
 * event from A's own commit; b_*: subscribers on B, which get it through PostgreSQL's NOTIFY).
 * Without -P everything goes to PORT.
 *
 * usage: fanout -p PORT [-P PORT2] -n N [-a ADDRS] [-s SUB_PATH] [-u "METHOD PATH"] [-b BODY]
 *               [-m K] [-g GAP_MS] [-S SETTLE_MS] [-I IDLE_S] [-H HB_WAIT_S] [-t TIMEOUT_S]
 *               [-r PID,PID] [-e id|frame] [-i INFLIGHT] [-l LABEL]
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef IP_BIND_ADDRESS_NO_PORT
#define IP_BIND_ADDRESS_NO_PORT 24
#endif

enum { CONNECTING, SENT, BODY, OPEN, DEAD };          /* subscriber states */
enum { C_SIZE, C_EXT, C_SIZE_LF, C_DATA, C_DATA_CR, C_DATA_LF, C_DONE }; /* chunk decoder */

struct sub {
  int fd;
  uint8_t state, chunked, cstate, line_start, lpos, has_data, has_id, saw_id, est;
  char lbuf[6];
  uint32_t crem;            /* bytes left in the current chunk */
  uint32_t events;          /* dispatched blocks with data since established */
  uint32_t blocks;          /* every dispatched block */
  uint32_t comments;        /* comment lines (": ...") since established */
  char *hdr; uint16_t hlen; /* response head, until its blank line */
};

static int port, port2, n = 1000, addrs = 1, k_changes = 5, gap_ms = 300, settle_ms = 1000, idle_s = 5,
           hb_wait_s = 0, timeout_s = 20, max_inflight = 200, ready_on_id = 1;
static const char *sub_path = "/sub", *pub_line = "POST /pub", *pub_body = "{\"change\":1}", *label = "fanout", *pids = "";
static struct sub *subs;
static int ep;
static double *arrive;      /* arrival (ms after t0) of the current change, per subscriber */
static int cur_change;      /* events a subscriber must reach to have the current change */
static double cur_t0;
static int got_cur;
static int hb_base_set;     /* during the heartbeat wait */
static uint32_t *hb_base;
static int hb_got;
static double hb_first = -1, hb_last = -1;
static char rbuf[1 << 16];

static double now_ms(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + t.tv_nsec / 1e6; }
static double self_cpu_ms(void) {
  struct rusage r; getrusage(RUSAGE_SELF, &r);
  return (r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1e3 + (r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e3;
}

/* summed over the -r pids: VmRSS (KiB), utime+stime (ticks), and CPU ns of every thread */
static long rss_kb(void) {
  long sum = 0; char list[1024]; snprintf(list, sizeof list, "%s", pids);
  for (char *save, *p = strtok_r(list, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
    char path[64], line[256]; snprintf(path, sizeof path, "/proc/%s/status", p);
    FILE *f = fopen(path, "r"); if (!f) continue;
    while (fgets(line, sizeof line, f)) if (strncmp(line, "VmRSS:", 6) == 0) sum += atol(line + 6);
    fclose(f);
  }
  return sum;
}
static long cpu_ticks(void) {
  long sum = 0; char list[1024]; snprintf(list, sizeof list, "%s", pids);
  for (char *save, *p = strtok_r(list, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
    char path[64], line[1024]; snprintf(path, sizeof path, "/proc/%s/stat", p);
    FILE *f = fopen(path, "r"); if (!f) continue;
    if (fgets(line, sizeof line, f)) {
      char *q = strrchr(line, ')'); long ut = 0, st = 0;
      /* after ")": state(3) ... utime is field 14, stime 15 */
      if (q && sscanf(q + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %ld %ld", &ut, &st) == 2) sum += ut + st;
    }
    fclose(f);
  }
  return sum;
}
/* Server CPU time over a window, from /proc/PID/task/TID/schedstat (ns: field 1, time on a CPU;
   field 2, time runnable but waiting for one). Threads come and go (navprefs' worker threads exit
   when idle), so a plain sum over the live threads would lose the time of those that exited: the
   meter keeps each thread's first and last reading (a thread born in the window counts from 0)
   and is sampled at both ends and every 50 ms in between; an exiting thread loses at most its
   last 50 ms. */
#define MAX_THREADS 1024
struct meter { int n, started; double last_sample; int tid[MAX_THREADS]; double first[MAX_THREADS][2], last[MAX_THREADS][2]; };
static struct meter *active_meter;
static double now_ms(void);
static void meter_sample(struct meter *m) {
  char list[1024]; snprintf(list, sizeof list, "%s", pids);
  for (char *save, *p = strtok_r(list, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
    char dir[64]; snprintf(dir, sizeof dir, "/proc/%s/task", p);
    DIR *d = opendir(dir); if (!d) continue;
    struct dirent *e;
    while ((e = readdir(d))) {
      if (e->d_name[0] == '.') continue;
      char path[384]; snprintf(path, sizeof path, "%s/%s/schedstat", dir, e->d_name);
      FILE *f = fopen(path, "r"); double run = 0, wait = 0;
      if (!f) continue;
      int ok = fscanf(f, "%lf %lf", &run, &wait) == 2; fclose(f);
      if (!ok) continue;
      int tid = atoi(e->d_name), i = 0;
      while (i < m->n && m->tid[i] != tid) i++;
      if (i == m->n) {
        if (m->n == MAX_THREADS) continue;
        m->n++; m->tid[i] = tid;
        m->first[i][0] = m->started ? 0 : run; m->first[i][1] = m->started ? 0 : wait;
      }
      m->last[i][0] = run; m->last[i][1] = wait;
    }
    closedir(d);
  }
  m->last_sample = now_ms();
}
static void meter_start(struct meter *m) { m->n = 0; m->started = 0; meter_sample(m); m->started = 1; active_meter = m; }
static double meter_stop(struct meter *m, double *wait_ms) {   /* CPU ms; waiting ms in *wait_ms */
  meter_sample(m); active_meter = NULL;
  double run = 0, wait = 0;
  for (int i = 0; i < m->n; i++) { run += m->last[i][0] - m->first[i][0]; wait += m->last[i][1] - m->first[i][1]; }
  if (wait_ms) *wait_ms = wait / 1e6;
  return run / 1e6;
}
static struct meter meter;
static double self_wait_ns(void) {
  FILE *f = fopen("/proc/thread-self/schedstat", "r"); double run = 0, wait = 0;
  if (f) { if (fscanf(f, "%lf %lf", &run, &wait) != 2) wait = 0; fclose(f); }
  return wait;
}

static void kill_fd(int fd) { struct linger l = { 1, 0 }; setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l); close(fd); }
static int open_count, dead_count;
static void drop(struct sub *s) {
  if (s->state == DEAD) return;
  if (s->state == OPEN) open_count--;
  s->state = DEAD; dead_count++;
  epoll_ctl(ep, EPOLL_CTL_DEL, s->fd, NULL); close(s->fd);
  free(s->hdr); s->hdr = NULL;
}

/* subscriber i's server: with -P, odd i go to PORT2 (instance B), even i to PORT (A) */
static int on_b(int i) { return port2 && (i % 2); }
static int port_of(int i) { return on_b(i) ? port2 : port; }

static int connect_to(uint32_t src, int dport) {   /* src: host-order IPv4 source address */
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  int one = 1; setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);   /* port chosen at connect */
  struct sockaddr_in b = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(src) };
  if (bind(fd, (struct sockaddr *) &b, sizeof b) < 0) { close(fd); return -1; }
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(dport), .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  if (connect(fd, (struct sockaddr *) &a, sizeof a) < 0 && errno != EINPROGRESS) { close(fd); return -1; }
  return fd;
}

/* SSE bytes (already de-chunked) of subscriber i */
static void sse(int i, const char *p, size_t len, double t) {
  struct sub *s = &subs[i];
  for (size_t j = 0; j < len; j++) {
    char c = p[j];
    if (c == '\r') continue;
    if (c != '\n') { if (s->lpos < 5) s->lbuf[s->lpos++] = c; s->line_start = 0; continue; }
    if (s->line_start) {                        /* blank line: dispatch the block */
      s->blocks++;
      if (s->has_id) s->saw_id = 1;
      if (s->has_data && s->state == OPEN) {
        s->events++;
        if ((int) s->events == cur_change && arrive[i] < 0) { arrive[i] = t - cur_t0; got_cur++; }
      }
      s->has_data = s->has_id = 0;
      if (s->state == BODY && (ready_on_id ? s->saw_id : s->blocks >= 1)) { s->state = OPEN; s->est = 1; open_count++; }
    } else {                                    /* end of a line: what field? */
      if (s->lpos >= 5 && memcmp(s->lbuf, "data:", 5) == 0) s->has_data = 1;
      else if (s->lpos >= 3 && memcmp(s->lbuf, "id:", 3) == 0) s->has_id = 1;
      else if (s->lpos >= 1 && s->lbuf[0] == ':' && s->state == OPEN) {
        s->comments++;
        if (hb_base_set && s->comments == hb_base[i] + 1) {
          hb_got++; if (hb_first < 0) hb_first = t; hb_last = t;
        }
      }
    }
    s->line_start = 1; s->lpos = 0;
  }
}

/* body bytes of subscriber i: chunked decoding if needed */
static void body(int i, const char *p, size_t len, double t) {
  struct sub *s = &subs[i];
  if (!s->chunked) { sse(i, p, len, t); return; }
  size_t j = 0;
  while (j < len) {
    char c = p[j];
    switch (s->cstate) {
      case C_SIZE:
        if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')) {
          s->crem = s->crem * 16 + (uint32_t) (c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
        } else if (c == ';') s->cstate = C_EXT;
        else if (c == '\r') s->cstate = C_SIZE_LF;
        else if (c == '\n') s->cstate = s->crem ? C_DATA : C_DONE;
        j++; break;
      case C_EXT: if (c == '\n') s->cstate = s->crem ? C_DATA : C_DONE; else if (c == '\r') s->cstate = C_SIZE_LF; j++; break;
      case C_SIZE_LF: s->cstate = s->crem ? C_DATA : C_DONE; j++; break;   /* the LF */
      case C_DATA: {
        size_t take = len - j < s->crem ? len - j : s->crem;
        sse(i, p + j, take, t);
        j += take; s->crem -= (uint32_t) take;
        if (s->crem == 0) s->cstate = C_DATA_CR;
        break;
      }
      case C_DATA_CR: s->cstate = c == '\r' ? C_DATA_LF : C_SIZE; if (c == '\n') s->cstate = C_SIZE; j++; break;
      case C_DATA_LF: s->cstate = C_SIZE; j++; break;
      case C_DONE: j = len; break;   /* end of the stream: ignore */
    }
  }
}

/* response head, then body */
static void head(int i, const char *p, size_t len, double t) {
  struct sub *s = &subs[i];
  if (s->state != SENT) { body(i, p, len, t); return; }
  if (!s->hdr) s->hdr = malloc(4096);
  size_t take = len < (size_t) (4095 - s->hlen) ? len : (size_t) (4095 - s->hlen);
  memcpy(s->hdr + s->hlen, p, take); s->hlen += (uint16_t) take; s->hdr[s->hlen] = 0;
  char *end = strstr(s->hdr, "\r\n\r\n");
  if (!end) { if (s->hlen >= 4095) drop(s); return; }
  size_t headlen = (size_t) (end - s->hdr) + 4, consumed = headlen - (s->hlen - take);
  if (strncmp(s->hdr, "HTTP/1.1 200", 12) != 0) {
    static int shown;
    if (shown++ < 3) fprintf(stderr, "%s: subscriber refused: %.*s\n", label, (int) strcspn(s->hdr, "\r"), s->hdr);
    drop(s); return;
  }
  *end = 0;
  for (char *q = s->hdr; (q = strcasestr(q, "\r\ntransfer-encoding:")); q++)
    if (strcasestr(q, "chunked")) s->chunked = 1;
  free(s->hdr); s->hdr = NULL;
  s->state = BODY; s->line_start = 1;
  if (consumed < len) body(i, p + consumed, len - consumed, t);
}

static void readable(int i) {
  struct sub *s = &subs[i];
  for (int rounds = 0; rounds < 8; rounds++) {
    ssize_t r = read(s->fd, rbuf, sizeof rbuf);
    if (r < 0 && (errno == EAGAIN || errno == EINTR)) return;
    if (r <= 0) { drop(s); return; }
    head(i, rbuf, (size_t) r, now_ms());
    if (s->state == DEAD || (size_t) r < sizeof rbuf) return;
  }
}

static struct epoll_event evs[1024];
#define PUB_ID 0xFFFFFFFFu
static int pub_fd = -1, pub_status;
static char pub_resp[512]; static int pub_resp_len;

static void pump(int wait_ms) {
  if (active_meter && now_ms() - active_meter->last_sample >= 50) meter_sample(active_meter);
  int k = epoll_wait(ep, evs, 1024, wait_ms);
  for (int e = 0; e < k; e++) {
    uint32_t i = evs[e].data.u32;
    if (i == PUB_ID) {
      ssize_t r = read(pub_fd, pub_resp + pub_resp_len, sizeof pub_resp - 1 - pub_resp_len);
      if (r > 0) { pub_resp_len += (int) r; pub_resp[pub_resp_len] = 0; if (!pub_status && pub_resp_len >= 12) pub_status = atoi(pub_resp + 9); }
      else if (r == 0 || errno != EAGAIN) { epoll_ctl(ep, EPOLL_CTL_DEL, pub_fd, NULL); }
      continue;
    }
    struct sub *s = &subs[i];
    if (s->state == CONNECTING) {
      int err = 0; socklen_t el = sizeof err; getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &err, &el);
      if (err) { drop(s); continue; }
      char req[512];
      int len = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nAccept: text/event-stream\r\n"
                         "Cache-Control: no-cache\r\n\r\n", sub_path, port_of((int) i));
      if (write(s->fd, req, (size_t) len) != len) { drop(s); continue; }
      s->state = SENT;
      struct epoll_event ev = { .events = EPOLLIN, .data.u32 = i };
      epoll_ctl(ep, EPOLL_CTL_MOD, s->fd, &ev);
    } else if (s->state != DEAD) readable((int) i);
  }
}

static int cmp_d(const void *a, const void *b) { double x = *(const double *) a, y = *(const double *) b; return (x > y) - (x < y); }
static double pct(const double *v, int cnt, double q) { if (cnt <= 0) return -1; int j = (int) (q * cnt); if (j >= cnt) j = cnt - 1; return v[j]; }
static double median(double *v, int cnt) { if (cnt <= 0) return -1; qsort(v, cnt, sizeof *v, cmp_d); return cnt % 2 ? v[cnt / 2] : (v[cnt / 2 - 1] + v[cnt / 2]) / 2; }

int main(int argc, char **argv) {
  int o;
  while ((o = getopt(argc, argv, "p:P:n:a:s:u:b:m:g:S:I:H:t:r:e:i:l:")) != -1) switch (o) {
    case 'p': port = atoi(optarg); break;          case 'n': n = atoi(optarg); break;
    case 'P': port2 = atoi(optarg); break;
    case 'a': addrs = atoi(optarg); break;         case 's': sub_path = optarg; break;
    case 'u': pub_line = optarg; break;            case 'b': pub_body = optarg; break;
    case 'm': k_changes = atoi(optarg); break;     case 'g': gap_ms = atoi(optarg); break;
    case 'S': settle_ms = atoi(optarg); break;     case 'I': idle_s = atoi(optarg); break;
    case 'H': hb_wait_s = atoi(optarg); break;     case 't': timeout_s = atoi(optarg); break;
    case 'r': pids = optarg; break;                case 'e': ready_on_id = strcmp(optarg, "id") == 0; break;
    case 'i': max_inflight = atoi(optarg); break;  case 'l': label = optarg; break;
    default: fprintf(stderr, "usage: see the comment at the top of fanout.c\n"); return 2;
  }
  if (!port || n < 1 || addrs < 1 || addrs > 65000 || k_changes < 1 || k_changes > 100) { fprintf(stderr, "fanout: bad arguments\n"); return 2; }
  struct rlimit rl; getrlimit(RLIMIT_NOFILE, &rl);
  if (rl.rlim_cur < (rlim_t) n + 64) { fprintf(stderr, "fanout: ulimit -n %ld is below N + 64\n", (long) rl.rlim_cur); return 2; }
  subs = calloc((size_t) n, sizeof *subs); arrive = malloc(sizeof *arrive * (size_t) n); hb_base = calloc((size_t) n, sizeof *hb_base);
  ep = epoll_create1(EPOLL_CLOEXEC);
  for (int i = 0; i < n; i++) arrive[i] = 0;   /* no change yet: nothing is recorded */
  cur_change = 0;

  /* 1. connect */
  long rss0 = rss_kb();
  double tc0 = now_ms();
  int started = 0;
  while (open_count + dead_count < n && now_ms() - tc0 < timeout_s * 1e3) {
    int pending = started - open_count - dead_count;
    while (started < n && pending < max_inflight) {
      struct sub *s = &subs[started];
      /* 127.1.0.x; with -P, (i / 2) % A so that every address has as many subscribers on A as on B */
      s->fd = connect_to(0x7F010000u + 1 + (uint32_t) ((port2 ? started / 2 : started) % addrs), port_of(started));
      if (s->fd < 0) { s->state = DEAD; dead_count++; started++; continue; }
      s->state = CONNECTING;
      struct epoll_event ev = { .events = EPOLLOUT, .data.u32 = (uint32_t) started };
      epoll_ctl(ep, EPOLL_CTL_ADD, s->fd, &ev);
      started++; pending++;
    }
    pump(20);
  }
  double connect_ms = now_ms() - tc0;
  int failed = n - open_count;

  /* 2. settle, RSS */
  for (double ts = now_ms(); now_ms() - ts < settle_ms;) pump(50);
  long rss1 = rss_kb();
  double per_sub = open_count ? (rss1 - rss0) * 1024.0 / open_count : 0;
  fprintf(stderr, "%s: %d/%d subscribers established (%d failed) in %.0f ms over %d source addresses; server RSS %ld -> %ld KiB = %.0f B per subscriber\n",
          label, open_count, n, failed, connect_ms, addrs, rss0, rss1, per_sub);

  /* 3. idle CPU */
  long tk0 = cpu_ticks(); meter_start(&meter); double ti0 = now_ms(); uint32_t blocks0 = 0;
  for (int i = 0; i < n; i++) blocks0 += subs[i].blocks;
  while (now_ms() - ti0 < idle_s * 1e3) pump(100);
  long tk1 = cpu_ticks(); double idle_cpu_ms = meter_stop(&meter, NULL), idle_ms = now_ms() - ti0; uint32_t blocks1 = 0;
  for (int i = 0; i < n; i++) blocks1 += subs[i].blocks;
  fprintf(stderr, "%s: idle %.1f s: server CPU %ld ticks, %.1f ms (%.3f%% of one core); %u blocks arrived meanwhile\n",
          label, idle_ms / 1e3, tk1 - tk0, idle_cpu_ms, 100 * idle_cpu_ms / idle_ms, blocks1 - blocks0);

  /* 4. changes */
  char method[16] = "POST", path[256] = "/pub";
  sscanf(pub_line, "%15s %255s", method, path);
  double p50s[100], p99s[100], maxs[100], firsts[100], hcpus[100], hshare[100], scpus[100];
  int lost_at_change = 0, done = 0, bad_pub = 0, open_before = open_count;
  double *lat = malloc(sizeof *lat * (size_t) n);
  /* with -P: the same statistics per side (0: subscribers on A, 1: on B) */
  double side_first[2][100], side_p50[2][100], side_p99[2][100], side_max[2][100];
  int side_open[2] = { 0, 0 };
  for (int i = 0; i < n; i++) if (subs[i].state == OPEN) side_open[on_b(i)]++;
  for (int m = 1; m <= k_changes && open_count > 0; m++) {
    for (int i = 0; i < n; i++) arrive[i] = -1;
    got_cur = 0; cur_change = m;
    char req[1024];
    int len = snprintf(req, sizeof req, "%s %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
                       "Content-Length: %zu\r\nConnection: close\r\n\r\n%s", method, path, port, strlen(pub_body), pub_body);
    pub_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1; setsockopt(pub_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    if (connect(pub_fd, (struct sockaddr *) &a, sizeof a) < 0) { perror("fanout: publisher connect"); break; }
    pub_status = 0; pub_resp_len = 0;
    struct epoll_event ev = { .events = EPOLLIN, .data.u32 = PUB_ID };
    epoll_ctl(ep, EPOLL_CTL_ADD, pub_fd, &ev);
    meter_start(&meter);
    double c0 = self_cpu_ms(), hw0 = self_wait_ns();
    cur_t0 = now_ms();
    if (write(pub_fd, req, (size_t) len) != len) { perror("fanout: publish"); break; }
    int expect = open_count;
    while (got_cur < expect && now_ms() - cur_t0 < timeout_s * 1e3) { pump(100); expect = open_count; }
    double window = now_ms() - cur_t0, hc = self_cpu_ms() - c0, sw, sc = meter_stop(&meter, &sw);
    double hw = (self_wait_ns() - hw0) / 1e6;
    for (double tw = now_ms(); !pub_status && now_ms() - tw < 2000;) pump(20);
    if (pub_status < 200 || pub_status > 299) { bad_pub++; fprintf(stderr, "%s: change %d: publisher answered %d\n", label, m, pub_status); }
    epoll_ctl(ep, EPOLL_CTL_DEL, pub_fd, NULL); kill_fd(pub_fd); pub_fd = -1;
    int cnt = 0;
    for (int i = 0; i < n; i++) if (arrive[i] >= 0) lat[cnt++] = arrive[i];
    qsort(lat, (size_t) cnt, sizeof *lat, cmp_d);
    lost_at_change += open_before - cnt;
    firsts[done] = pct(lat, cnt, 0); p50s[done] = pct(lat, cnt, 0.5); p99s[done] = pct(lat, cnt, 0.99);
    maxs[done] = cnt ? lat[cnt - 1] : -1;
    for (int b = 0; port2 && b < 2; b++) {
      int c2 = 0;
      for (int i = 0; i < n; i++) if (on_b(i) == b && arrive[i] >= 0) lat[c2++] = arrive[i];
      qsort(lat, (size_t) c2, sizeof *lat, cmp_d);
      side_first[b][done] = pct(lat, c2, 0); side_p50[b][done] = pct(lat, c2, 0.5);
      side_p99[b][done] = pct(lat, c2, 0.99); side_max[b][done] = c2 ? lat[c2 - 1] : -1;
    }
    hcpus[done] = hc; hshare[done] = 100 * hc / window; scpus[done] = sc;
    fprintf(stderr, "%s: change %d: %d/%d got it (publisher %d); first %.2f, p50 %.2f, p99 %.2f, max %.2f ms; "
            "harness CPU %.1f ms = %.0f%% of the %.1f ms window; server CPU %.1f ms\n",
            label, m, cnt, open_before, pub_status, firsts[done], p50s[done], p99s[done], maxs[done], hc, hshare[done], window, sc);
    if (sw > 0.05 * window || hw > 0.05 * window)
      fprintf(stderr, "%s: change %d: waited for a CPU: server threads %.1f ms (for each other or another process), harness %.1f ms\n",
              label, m, sw, hw);
    printf("CHANGE label=%s n=%d m=%d got=%d of=%d publisher=%d first_ms=%.3f p50_ms=%.3f p99_ms=%.3f max_ms=%.3f "
           "window_ms=%.3f harness_cpu_ms=%.3f server_cpu_ms=%.3f server_wait_ms=%.3f harness_wait_ms=%.3f",
           label, n, m, cnt, open_before, pub_status, firsts[done], p50s[done], p99s[done], maxs[done], window, hc, sc, sw, hw);
    for (int b = 0; port2 && b < 2; b++)
      printf(" %c_first_ms=%.3f %c_p50_ms=%.3f %c_p99_ms=%.3f %c_max_ms=%.3f", "ab"[b], side_first[b][done], "ab"[b],
             side_p50[b][done], "ab"[b], side_p99[b][done], "ab"[b], side_max[b][done]);
    printf("\n");
    if (port2)
      fprintf(stderr, "%s: change %d: on A (%d): first %.2f, max %.2f ms; on B (%d): first %.2f, max %.2f ms\n", label, m,
              side_open[0], side_first[0][done], side_max[0][done], side_open[1], side_first[1][done], side_max[1][done]);
    done++;
    for (double tg = now_ms(); now_ms() - tg < gap_ms;) pump(20);
  }
  long rss2 = rss_kb();

  /* 5. heartbeat round */
  double hb_cpu_ms = -1, hb_spread = -1; int hb_subs = 0;
  if (hb_wait_s > 0) {
    for (int i = 0; i < n; i++) hb_base[i] = subs[i].comments;
    hb_base_set = 1; hb_got = 0;
    meter_start(&meter); double tw = now_ms();
    while (hb_got < open_count && now_ms() - tw < hb_wait_s * 1e3) pump(100);
    if (hb_got) for (double t2 = now_ms(); now_ms() - t2 < 200;) pump(20);  /* the tail of the round */
    double waited = now_ms() - tw, total = meter_stop(&meter, NULL);
    /* the round's own cost: what the server spent meanwhile, less its idle rate over the wait */
    hb_cpu_ms = total - (idle_ms > 0 ? idle_cpu_ms / idle_ms * waited : 0); hb_subs = hb_got;
    hb_spread = hb_got ? hb_last - hb_first : -1;
    fprintf(stderr, "%s: heartbeat round: %d/%d got a comment within %d s; first to last %.1f ms; server CPU %.1f ms over %.1f s "
            "(%.1f ms above idle)\n", label, hb_got, open_count, hb_wait_s, hb_spread, total, waited / 1e3, hb_cpu_ms);
  }

  /* end: events per subscriber */
  long lost = 0, extra = 0;
  for (int i = 0; i < n; i++) {
    if (!subs[i].est) continue;                                      /* never established */
    if ((int) subs[i].events < done) lost += done - (int) subs[i].events;
    if ((int) subs[i].events > done) extra += (int) subs[i].events - done;
  }
  int dropped = open_before - open_count;
  double fm = median(firsts, done), pm = median(p50s, done), qm = median(p99s, done), mm = median(maxs, done);
  double mworst = -1; for (int i = 0; i < done; i++) if (maxs[i] > mworst) mworst = maxs[i];
  double hm = median(hcpus, done), hs = median(hshare, done), sm = median(scpus, done);
  printf("RESULT label=%s n=%d open=%d failed=%d connect_ms=%.0f rss0_kb=%ld rss1_kb=%ld rss2_kb=%ld bytes_per_sub=%.0f "
         "idle_s=%.2f idle_ticks=%ld idle_cpu_ms=%.2f changes=%d first_ms=%.2f p50_ms=%.2f p99_ms=%.2f max_ms=%.2f max_worst_ms=%.2f "
         "lost=%ld lost_in_window=%d extra=%ld dropped=%d bad_publish=%d harness_cpu_ms=%.2f harness_share_pct=%.0f server_cpu_ms=%.2f "
         "hb_subs=%d hb_spread_ms=%.1f hb_cpu_ms=%.1f idle_blocks=%u",
         label, n, open_before, failed, connect_ms, rss0, rss1, rss2, per_sub, idle_ms / 1e3, tk1 - tk0, idle_cpu_ms, done,
         fm, pm, qm, mm, mworst, lost, lost_at_change, extra, dropped, bad_pub, hm, hs, sm, hb_subs, hb_spread, hb_cpu_ms,
         blocks1 - blocks0);
  for (int b = 0; port2 && b < 2; b++) {
    long side_lost = 0;
    for (int i = 0; i < n; i++)
      if (subs[i].est && on_b(i) == b && (int) subs[i].events < done) side_lost += done - (int) subs[i].events;
    printf(" %c_open=%d %c_lost=%ld %c_first_ms=%.2f %c_p50_ms=%.2f %c_p99_ms=%.2f %c_max_ms=%.2f", "ab"[b], side_open[b],
           "ab"[b], side_lost, "ab"[b], median(side_first[b], done), "ab"[b], median(side_p50[b], done),
           "ab"[b], median(side_p99[b], done), "ab"[b], median(side_max[b], done));
  }
  printf("\n");
  fflush(stdout);
  for (int i = 0; i < n; i++) if (subs[i].state != DEAD) kill_fd(subs[i].fd);
  return 0;
}
