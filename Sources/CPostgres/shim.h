#ifndef ONBOARDMETRICS_CPOSTGRES_SHIM_H
#define ONBOARDMETRICS_CPOSTGRES_SHIM_H

// Debian and Homebrew install libpq-fe.h either at the include root or under postgresql/.
#if __has_include(<libpq-fe.h>)
#include <libpq-fe.h>
#elif __has_include(<postgresql/libpq-fe.h>)
#include <postgresql/libpq-fe.h>
#else
#error "libpq-fe.h not found: install libpq-dev (Debian/Ubuntu) or libpq (Homebrew)"
#endif

#endif
