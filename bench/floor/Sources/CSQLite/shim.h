#ifndef FLOOR_CSQLITE_SHIM_H
#define FLOOR_CSQLITE_SHIM_H
#include <sqlite3.h>
#include <malloc.h>

/* SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import. */
static inline sqlite3_destructor_type floor_sqlite_transient(void) { return SQLITE_TRANSIENT; }

/* navprefs keeps up to 256 MiB of freed heap (HeapTuning.swift): glibc would otherwise hand the
   top of the heap back after every commit and each transaction paid the page faults. */
static inline int floor_keep_freed_heap(size_t bytes) { return mallopt(M_TRIM_THRESHOLD, (int) bytes); }
#endif
