#ifndef CJANSSON_SHIM_H
#define CJANSSON_SHIM_H
#include <jansson.h>

/* json_typeof is a macro, which Swift cannot import. https://jansson.readthedocs.io/en/latest/apiref.html */
static inline json_type cjansson_typeof(const json_t *json) { return json_typeof(json); }
#endif
