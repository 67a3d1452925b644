/*
 * counter.c - the ceiling of NavPrefs' HTTP layer: the smallest libmicrohttpd (0.9.75) server
 * that answers NavPrefs' two hot counter routes with the same bytes, in the same MHD mode.
 *
 *   GET  /v1/profiles/{p}/counter            -> from memory (NavPrefs answers hot GETs from
 *                                               its counter cache)
 *   POST /v1/profiles/{p}/counter/increment  -> {"by":n} (optional), one SQLite transaction on
 *                                               the MHD thread: BEGIN IMMEDIATE; UPDATE profiles
 *                                               ... RETURNING last_event_id; the guarded counter
 *                                               upsert ... RETURNING; INSERT INTO events; COMMIT
 *
 * Answers carry what NavPrefs' carry, in the same order: ETag, Content-Type: application/json,
 * Cache-Control (no-cache; no-store on a problem), X-Content-Type-Options: nosniff, X-Request-ID
 * (8 hex digits, '-', a hex counter), and MHD adds Date and Content-Length; the body is
 * {"profile":..,"value":..,"stringValue":"..","version":..} (+ ,"eventId":.. after a write) and a
 * newline.
 *
 * usage: counter PORT MODE DBPATH full|normal       (listens on 127.0.0.1:PORT only)
 *   MODE runwait   MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME, no internal thread; one thread of
 *                  ours loops MHD_run_wait(d, 50). NavPrefs' mode (MicroHTTPServer/MHD/EventLoop).
 *        internal  MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL (MHD's own epoll thread)
 *        pool2     the same with MHD_OPTION_THREAD_POOL_SIZE 2
 *   The database gets NavPrefs' schema (STRICT, WITHOUT ROWID), WAL, and synchronous FULL or
 *   NORMAL like `navprefs --sqlite-synchronous`.
 *
 * Runs until SIGINT or SIGTERM. Prints "counter: ready" on stderr once listening.
 *
 * Build: gcc -O2 -Wall -o counter counter.c $(pkg-config --cflags --libs libmicrohttpd sqlite3) -lpthread
 */
#define _GNU_SOURCE
#include <microhttpd.h>
#include <sqlite3.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#define MAX_BODY 1024
#define MAX_PROFILES 1024

/* One request between MHD's access-handler calls (NavPrefs keeps a RequestContext). */
struct request {
  size_t body_len;
  int too_large;
  char body[MAX_BODY];
};

/* The in-memory counter state, by profile (NavPrefs' CounterCache). */
struct entry {
  char name[65];
  long long value, version;
};

static struct entry entries[MAX_PROFILES];
static int entry_count;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* uncontended in runwait/internal */
static sqlite3 *db;
static sqlite3_stmt *st_begin, *st_commit, *st_rollback, *st_update, *st_log, *st_event,
                    *st_new_profile, *st_new_counter, *st_read;
static char id_prefix[9];
static unsigned long long next_id;
static volatile int loop_run = 1;

/* The counter statement of NavPrefs' SQLite store (SQLiteStore+Counter.swift): reads the
   counter through its layers, guards the Int64 range and If-Match, and upserts the numIndex
   preference with the event id as its version. */
static const char UPDATE_SQL[] =
  "WITH current AS (\n"
  "    SELECT CASE WHEN s.value IS NOT NULL THEN CAST(json_extract(s.value, '$') AS INTEGER)\n"
  "                ELSE coalesce(CAST(json_extract(d.value, '$') AS INTEGER), 0) END AS value,\n"
  "           CASE WHEN s.value IS NOT NULL THEN s.version\n"
  "                ELSE max(coalesce(s.version, 0), p.defaults_version) END AS version\n"
  "    FROM profiles p\n"
  "    LEFT JOIN preferences s ON s.profile = p.name AND s.key = 'numIndex'\n"
  "    LEFT JOIN registered_defaults d ON d.profile = p.name AND d.key = 'numIndex'\n"
  "    WHERE p.name = ?1)\n"
  "INSERT INTO preferences (profile, key, value, version)\n"
  "SELECT ?1, 'numIndex', json_quote(CAST(coalesce(?2, current.value + ?3) AS TEXT)), ?8\n"
  "FROM current\n"
  "WHERE current.value BETWEEN ?4 AND ?5\n"
  "  AND (?6 IS NULL OR ?7 = 1 OR current.version IN (SELECT value FROM json_each(?6)))\n"
  "  AND (?9 IS NULL OR current.version NOT IN (SELECT value FROM json_each(?9)))\n"
  "ON CONFLICT (profile, key) DO UPDATE SET value = excluded.value, version = excluded.version\n"
  "RETURNING CAST(json_extract(value, '$') AS INTEGER), version";

/* NavPrefs' schema (SQLiteSchema.swift, version 2). */
static const char SCHEMA_SQL[] =
  "CREATE TABLE IF NOT EXISTS profiles (name TEXT PRIMARY KEY, created_at INTEGER NOT NULL,"
  " last_event_id INTEGER NOT NULL, defaults_version INTEGER NOT NULL DEFAULT 0,"
  " preferences_version INTEGER NOT NULL DEFAULT 0) STRICT, WITHOUT ROWID;"
  "CREATE TABLE IF NOT EXISTS preferences (profile TEXT NOT NULL, key TEXT NOT NULL, value TEXT,"
  " version INTEGER NOT NULL, PRIMARY KEY (profile, key)) STRICT, WITHOUT ROWID;"
  "CREATE TABLE IF NOT EXISTS registered_defaults (profile TEXT NOT NULL, key TEXT NOT NULL,"
  " value TEXT NOT NULL, position INTEGER NOT NULL, PRIMARY KEY (profile, key)) STRICT, WITHOUT ROWID;"
  "CREATE TABLE IF NOT EXISTS events (profile TEXT NOT NULL, id INTEGER NOT NULL, type TEXT NOT NULL,"
  " data TEXT NOT NULL, created_at INTEGER NOT NULL, PRIMARY KEY (profile, id)) STRICT, WITHOUT ROWID;";

static long long
now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (long long) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
die_sql(const char *what)
{
  fprintf(stderr, "counter: %s: %s\n", what, db ? sqlite3_errmsg(db) : "no database");
  exit(1);
}

static sqlite3_stmt *
prepare(const char *sql)
{
  sqlite3_stmt *s = NULL;
  if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &s, NULL) != SQLITE_OK) die_sql(sql);
  return s;
}

/* Steps a statement to its end (RETURNING statements finish their work there); returns the
   last sqlite3_step code. */
static int
finish(sqlite3_stmt *s)
{
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {}
  sqlite3_reset(s);
  return rc;
}

static struct entry *
find(const char *name)
{
  for (int i = 0; i < entry_count; i++)
    if (strcmp(entries[i].name, name) == 0) return &entries[i];
  return NULL;
}

static struct entry *
remember(const char *name, long long value, long long version)
{
  struct entry *e = find(name);
  if (e == NULL) {
    if (entry_count == MAX_PROFILES) entry_count = 0; /* drop everything when full, like NavPrefs */
    e = &entries[entry_count++];
    snprintf(e->name, sizeof e->name, "%s", name);
  }
  e->value = value;
  e->version = version;
  return e;
}

static enum MHD_Result
reply(struct MHD_Connection *c, unsigned int status, const char *content_type, long long version,
      const char *body, size_t len)
{
  struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *) body, MHD_RESPMEM_MUST_COPY);
  if (r == NULL) return MHD_NO;
  char etag[32], rid[40];
  if (version >= 0) {
    snprintf(etag, sizeof etag, "\"%lld\"", version);
    MHD_add_response_header(r, "ETag", etag);
  }
  MHD_add_response_header(r, "Content-Type", content_type);
  /* navprefs: a state may be cached if revalidated (ETag), a problem not at all */
  MHD_add_response_header(r, "Cache-Control", version >= 0 ? "no-cache" : "no-store");
  MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
  snprintf(rid, sizeof rid, "%s-%llx", id_prefix, __atomic_add_fetch(&next_id, 1, __ATOMIC_RELAXED));
  MHD_add_response_header(r, "X-Request-ID", rid);
  enum MHD_Result ret = MHD_queue_response(c, status, r);
  MHD_destroy_response(r);
  return ret;
}

static enum MHD_Result
problem(struct MHD_Connection *c, unsigned int status, const char *title)
{
  char body[256];
  int n = snprintf(body, sizeof body, "{\"title\":\"%s\",\"status\":%u}\n", title, status);
  return reply(c, status, "application/problem+json", -1, body, (size_t) n);
}

static enum MHD_Result
state_reply(struct MHD_Connection *c, const char *profile, long long value, long long version,
            long long event_id)
{
  char body[256];
  int n = event_id < 0
    ? snprintf(body, sizeof body, "{\"profile\":\"%s\",\"value\":%lld,\"stringValue\":\"%lld\",\"version\":%lld}\n",
               profile, value, value, version)
    : snprintf(body, sizeof body,
               "{\"profile\":\"%s\",\"value\":%lld,\"stringValue\":\"%lld\",\"version\":%lld,\"eventId\":%lld}\n",
               profile, value, value, version, event_id);
  return reply(c, 200, "application/json", version, body, (size_t) n);
}

/* "/v1/profiles/{p}/counter" + suffix: copies {p} (NavPrefs' profile-name rules) into name. */
static int
route(const char *url, const char *suffix, char name[65])
{
  static const char prefix[] = "/v1/profiles/";
  if (strncmp(url, prefix, sizeof prefix - 1) != 0) return 0;
  const char *p = url + sizeof prefix - 1, *slash = strchr(p, '/');
  if (slash == NULL || slash == p || slash - p > 64) return 0;
  if (strcmp(slash, suffix) != 0) return 0;
  for (const char *q = p; q < slash; q++) {
    char ch = *q;
    int alnum = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
    if (!alnum && (q == p || (ch != '.' && ch != '_' && ch != '-'))) return 0;
  }
  memcpy(name, p, (size_t) (slash - p));
  name[slash - p] = 0;
  return 1;
}

static enum MHD_Result
get_counter(struct MHD_Connection *c, const char *profile)
{
  pthread_mutex_lock(&lock);
  struct entry *e = find(profile);
  long long value = 0, version = 0;
  int found = e != NULL;
  if (e != NULL) {
    value = e->value;
    version = e->version;
  } else { /* a miss reads the store once, then memory answers */
    sqlite3_bind_text(st_read, 1, profile, -1, SQLITE_STATIC);
    if (sqlite3_step(st_read) == SQLITE_ROW) {
      value = sqlite3_column_int64(st_read, 0);
      version = sqlite3_column_int64(st_read, 1);
      remember(profile, value, version);
      found = 1;
    }
    sqlite3_reset(st_read);
  }
  pthread_mutex_unlock(&lock);
  if (!found) return problem(c, 404, "Profile not found");
  return state_reply(c, profile, value, version, -1);
}

/* {"by": n}: the one member the operation takes; an empty body means 1. */
static int
parse_by(const struct request *rq, long long *by)
{
  *by = 1;
  if (rq->body_len == 0) return 1;
  const char *k = strstr(rq->body, "\"by\"");
  if (k == NULL) return 0;
  k += 4;
  while (*k == ' ' || *k == '\t' || *k == '\n' || *k == '\r') k++;
  if (*k++ != ':') return 0;
  char *end;
  *by = strtoll(k, &end, 10);
  return end != k && *by >= 1;
}

/* One increment: the SQL work NavPrefs' writer does for one job, one transaction. */
static enum MHD_Result
increment(struct MHD_Connection *c, const char *profile, long long by)
{
  long long value = 0, version = 0, event_id = 0;
  int refused = 0, failed = 0;
  pthread_mutex_lock(&lock);
  if (finish(st_begin) != SQLITE_DONE) die_sql("BEGIN IMMEDIATE");
  if (find(profile) == NULL) { /* NavPrefs: createProfileIfNeeded (once per profile) */
    sqlite3_bind_text(st_new_profile, 1, profile, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st_new_profile, 2, now_ms());
    failed |= finish(st_new_profile) != SQLITE_DONE;
  }
  /* NavPrefs: nextEventID, then the counter statement with the event id as the version. */
  sqlite3_bind_text(st_log, 1, profile, -1, SQLITE_STATIC);
  if (sqlite3_step(st_log) == SQLITE_ROW) event_id = sqlite3_column_int64(st_log, 0);
  else failed = 1;
  failed |= finish(st_log) != SQLITE_DONE;
  sqlite3_bind_text(st_update, 1, profile, -1, SQLITE_STATIC);
  sqlite3_bind_null(st_update, 2);
  sqlite3_bind_int64(st_update, 3, by);
  sqlite3_bind_int64(st_update, 4, INT64_MIN);
  sqlite3_bind_int64(st_update, 5, INT64_MAX - by);
  sqlite3_bind_null(st_update, 6);
  sqlite3_bind_int64(st_update, 7, 0);
  sqlite3_bind_int64(st_update, 8, event_id);
  sqlite3_bind_null(st_update, 9);
  if (!failed && sqlite3_step(st_update) == SQLITE_ROW) {
    value = sqlite3_column_int64(st_update, 0);
    version = sqlite3_column_int64(st_update, 1);
    failed |= finish(st_update) != SQLITE_DONE;
  } else {
    refused = !failed;
    sqlite3_reset(st_update);
  }
  if (!refused && !failed) {
    char data[256];
    int n = snprintf(data, sizeof data,
                     "{\"profile\":\"%s\",\"key\":\"numIndex\",\"operation\":\"increment\",\"by\":%lld,"
                     "\"value\":%lld,\"stringValue\":\"%lld\",\"version\":%lld}",
                     profile, by, value, value, version);
    sqlite3_bind_text(st_event, 1, profile, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st_event, 2, event_id);
    sqlite3_bind_text(st_event, 3, "counter", 7, SQLITE_STATIC);
    sqlite3_bind_text(st_event, 4, data, n, SQLITE_STATIC);
    sqlite3_bind_int64(st_event, 5, now_ms());
    failed |= finish(st_event) != SQLITE_DONE;
  }
  if (refused || failed) {
    finish(st_rollback);
  } else {
    if (finish(st_commit) != SQLITE_DONE) { failed = 1; finish(st_rollback); }
    else remember(profile, value, version);
  }
  pthread_mutex_unlock(&lock);
  if (failed) return problem(c, 503, "Storage unavailable");
  if (refused) return problem(c, 409, "Counter out of range");
  return state_reply(c, profile, value, version, event_id);
}

static enum MHD_Result
handler(void *cls, struct MHD_Connection *c, const char *url, const char *method,
        const char *version, const char *upload_data, size_t *upload_data_size, void **con_cls)
{
  (void) cls; (void) version;
  struct request *rq = *con_cls;
  /* MHD 0.9.75 calls the handler once when the headers are in, once per piece of body, then
     once more with no data. A response queued on the FIRST call makes MHD close the connection
     after it (keep-alive lost), so every answer waits for the last call. */
  if (rq == NULL) {
    rq = malloc(sizeof *rq);
    if (rq == NULL) return MHD_NO;
    rq->body_len = 0;
    rq->too_large = 0;
    rq->body[0] = 0;
    *con_cls = rq;
    return MHD_YES;
  }
  if (*upload_data_size != 0) {
    if (rq->body_len + *upload_data_size < MAX_BODY) {
      memcpy(rq->body + rq->body_len, upload_data, *upload_data_size);
      rq->body_len += *upload_data_size;
      rq->body[rq->body_len] = 0;
    } else {
      rq->too_large = 1;
    }
    *upload_data_size = 0;
    return MHD_YES;
  }
  char profile[65];
  if (strcmp(method, "GET") == 0 && route(url, "/counter", profile))
    return get_counter(c, profile);
  if (strcmp(method, "POST") == 0 && route(url, "/counter/increment", profile)) {
    if (rq->too_large) return problem(c, 413, "Payload too large");
    if (rq->body_len > 0) {
      const char *type = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
      if (type == NULL || strncasecmp(type, "application/json", 16) != 0)
        return problem(c, 415, "Unsupported media type");
    }
    long long by;
    if (!parse_by(rq, &by)) return problem(c, 400, "Invalid body");
    return increment(c, profile, by);
  }
  return problem(c, 404, "Not found");
}

static void
completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe)
{
  (void) cls; (void) c; (void) toe;
  free(*con_cls);
  *con_cls = NULL;
}

static void *
run_loop(void *d)
{
  while (loop_run) MHD_run_wait((struct MHD_Daemon *) d, 50);
  return NULL;
}

static void
open_store(const char *path, const char *synchronous)
{
  if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK)
    die_sql(path);
  char sql[256];
  snprintf(sql, sizeof sql,
           "PRAGMA journal_mode = WAL; PRAGMA synchronous = %s; PRAGMA busy_timeout = 5000;"
           " PRAGMA foreign_keys = OFF;", synchronous);
  if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) die_sql(sql);
  if (sqlite3_exec(db, SCHEMA_SQL, NULL, NULL, NULL) != SQLITE_OK) die_sql("schema");
  st_begin = prepare("BEGIN IMMEDIATE");
  st_commit = prepare("COMMIT");
  st_rollback = prepare("ROLLBACK");
  st_update = prepare(UPDATE_SQL);
  st_log = prepare("UPDATE profiles SET last_event_id = last_event_id + 1, preferences_version = last_event_id + 1"
                   " WHERE name = ?1 RETURNING last_event_id");
  st_event = prepare("INSERT INTO events (profile, id, type, data, created_at) VALUES (?1, ?2, ?3, ?4, ?5)");
  st_new_profile = prepare("INSERT INTO profiles (name, created_at, last_event_id) VALUES (?1, ?2, 0) ON CONFLICT DO NOTHING");
  st_new_counter = prepare("SELECT 1");  /* unused since schema 2: the counter is a preference row */
  st_read = prepare("SELECT CAST(json_extract(value, '$') AS INTEGER), version FROM preferences"
                    " WHERE profile = ?1 AND key = 'numIndex' AND value IS NOT NULL");
}

int
main(int argc, char **argv)
{
  if (argc != 5 || (strcmp(argv[4], "full") != 0 && strcmp(argv[4], "normal") != 0)) {
    fprintf(stderr, "usage: %s PORT runwait|internal|pool2 DBPATH full|normal\n", argv[0]);
    return 2;
  }
  unsigned short port = (unsigned short) atoi(argv[1]);
  const char *mode = argv[2];
  unsigned int flags = MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
  unsigned int pool = 0;
  int external = 0;
  if (strcmp(mode, "runwait") == 0) external = 1;
  else if (strcmp(mode, "internal") == 0) flags |= MHD_USE_INTERNAL_POLLING_THREAD;
  else if (strcmp(mode, "pool2") == 0) { flags |= MHD_USE_INTERNAL_POLLING_THREAD; pool = 2; }
  else { fprintf(stderr, "counter: unknown mode %s\n", mode); return 2; }

  open_store(argv[3], strcmp(argv[4], "full") == 0 ? "FULL" : "NORMAL");
  srandom((unsigned int) (time(NULL) ^ getpid()));
  snprintf(id_prefix, sizeof id_prefix, "%08lx", (unsigned long) random() & 0xffffffffUL);

  /* SIGINT/SIGTERM blocked in every thread (MHD's inherit the mask), awaited in main. */
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, NULL);

  /* NavPrefs' limits (ServerConfiguration defaults). */
  struct MHD_OptionItem options[] = {
    { MHD_OPTION_CONNECTION_LIMIT, 16384, NULL },
    { MHD_OPTION_PER_IP_CONNECTION_LIMIT, 1024, NULL },
    { MHD_OPTION_CONNECTION_TIMEOUT, 60, NULL },
    { MHD_OPTION_CONNECTION_MEMORY_LIMIT, 32 << 10, NULL },
    { MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024, NULL },
    { MHD_OPTION_STRICT_FOR_CLIENT, 1, NULL },
    { pool > 0 ? MHD_OPTION_THREAD_POOL_SIZE : MHD_OPTION_END, pool, NULL },
    { MHD_OPTION_END, 0, NULL },
  };
  struct sockaddr_in address = { .sin_family = AF_INET, .sin_port = htons(port) };
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK); /* loopback only */
  struct MHD_Daemon *d = MHD_start_daemon(flags, port, NULL, NULL, &handler, NULL,
                                          MHD_OPTION_SOCK_ADDR, (struct sockaddr *) &address,
                                          MHD_OPTION_NOTIFY_COMPLETED, &completed, NULL,
                                          MHD_OPTION_ARRAY, options,
                                          MHD_OPTION_END);
  if (d == NULL) { fprintf(stderr, "counter: MHD_start_daemon failed (mode %s, port %u)\n", mode, port); return 1; }
  pthread_t loop;
  if (external && pthread_create(&loop, NULL, run_loop, d) != 0) { fprintf(stderr, "counter: no thread\n"); return 1; }
  fprintf(stderr, "counter: ready on 127.0.0.1:%u, mode %s, synchronous %s\n", port, mode, argv[4]);
  int sig;
  sigwait(&set, &sig);
  if (external) { loop_run = 0; pthread_join(loop, NULL); }
  MHD_stop_daemon(d);
  sqlite3_stmt *all[] = { st_begin, st_commit, st_rollback, st_update, st_log, st_event,
                          st_new_profile, st_new_counter, st_read };
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) sqlite3_finalize(all[i]);
  sqlite3_close(db);
  return 0;
}
