#ifndef CPOSTGRES_SHIM_H
#define CPOSTGRES_SHIM_H
#include <libpq-fe.h>

/* PG_DIAG_SQLSTATE is a character macro ('C'), which Swift does not import.
   https://www.postgresql.org/docs/current/libpq-exec.html#LIBPQ-PQRESULTERRORFIELD */
static inline int cpq_diag_sqlstate(void) { return PG_DIAG_SQLSTATE; }

/* libpq prints every NOTICE (e.g. "relation already exists, skipping") to stderr by default;
   the store reports errors itself, so notices are dropped. A C function pointer that captures
   nothing is simplest written in C. https://www.postgresql.org/docs/current/libpq-notice-processing.html */
static void cpq_ignore_notice(void *arg, const char *message) { (void) arg; (void) message; }
static inline void cpq_silence_notices(PGconn *conn) { PQsetNoticeProcessor(conn, cpq_ignore_notice, NULL); }
#endif
