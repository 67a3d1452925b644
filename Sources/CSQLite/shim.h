#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H
#include <sqlite3.h>

/* SQLITE_TRANSIENT is a macro that casts -1 to a function pointer, which Swift cannot import:
   it tells sqlite3_bind_* to copy the bytes before returning. https://sqlite.org/c3ref/c_static.html */
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }
#endif
