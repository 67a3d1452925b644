#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H
#include <sqlite3.h>
#include <malloc.h>

/* SQLITE_TRANSIENT is a macro that casts -1 to a function pointer, which Swift cannot import:
   it tells sqlite3_bind_* to copy the bytes before returning. https://sqlite.org/c3ref/c_static.html */
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }

/* glibc hands the free top of a heap back to the kernel once it exceeds M_TRIM_THRESHOLD (128 KiB
   by default). SQLite's writer frees that much on every commit, so each transaction paid page
   faults and TLB flushes to get the memory back (measured on the writer thread: 9.6k writes/s,
   16.4k with trimming above 256 MiB, same RSS). mallopt is a macro-free function, but glibc's
   header is not part of Swift's Glibc module. */
static inline int csqlite_set_malloc_trim_threshold(size_t bytes) { return mallopt(M_TRIM_THRESHOLD, (int) bytes); }

/* SQLite keeps process-wide memory statistics by default, under a mutex taken on every one of
   its allocations (Debian's build: pthread_mutex_lock in sqlite3Malloc showed in profiles of a
   write). navprefs never reads them. sqlite3_config is variadic, which Swift cannot call; it
   works only before SQLite is initialized (it answers SQLITE_MISUSE after). */
static inline int csqlite_disable_memory_statistics(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }

#endif
