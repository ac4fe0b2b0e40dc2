#ifndef RECEIPTDESK_CLIBPQ_SHIM_H
#define RECEIPTDESK_CLIBPQ_SHIM_H
#if __has_include(<libpq-fe.h>)        /* pkg-config gave -I (Debian: /usr/include/postgresql) */
#include <libpq-fe.h>
#else                                  /* Debian layout without pkg-config */
#include <postgresql/libpq-fe.h>
#endif

/* Swift imports only numeric and string literal macros; the PG_DIAG_* field codes are
   character literals ('C', 'M', ...), so they are re-exported as constants. */
static const int rd_pq_diag_sqlstate = PG_DIAG_SQLSTATE;
static const int rd_pq_diag_message_primary = PG_DIAG_MESSAGE_PRIMARY;
static const int rd_pq_diag_message_detail = PG_DIAG_MESSAGE_DETAIL;
static const int rd_pq_diag_constraint_name = PG_DIAG_CONSTRAINT_NAME;
#endif
