#ifndef RECEIPTDESK_CMICROHTTPD_SHIM_H
#define RECEIPTDESK_CMICROHTTPD_SHIM_H
/* microhttpd.h needs these types declared first (its own documentation says so). */
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

/* MHD_start_daemon, MHD_get_daemon_info and MHD_get_connection_info are variadic, which Swift
   cannot call: these fixed-signature wrappers are the only C the module adds. */

/* Starts a daemon with the three callbacks (all sharing one closure pointer) and the remaining
   options as an MHD_OPTION_ARRAY built in Swift, ended by an MHD_OPTION_END item. */
static inline struct MHD_Daemon *
rd_mhd_start_daemon (unsigned int flags,
                     MHD_AccessHandlerCallback access_handler,
                     MHD_RequestCompletedCallback request_completed,
                     MHD_NotifyConnectionCallback connection_notify,
                     MHD_LogCallback logger,
                     void *closure,
                     struct MHD_OptionItem *options)
{
  /* The logger first: libmicrohttpd logs about every option after it through it (it warns
     when the logger comes later). */
  return MHD_start_daemon (flags, 0, NULL, NULL, access_handler, closure,
                           MHD_OPTION_EXTERNAL_LOGGER, logger, closure,
                           MHD_OPTION_NOTIFY_COMPLETED, request_completed, closure,
                           MHD_OPTION_NOTIFY_CONNECTION, connection_notify, closure,
                           MHD_OPTION_ARRAY, options,
                           MHD_OPTION_END);
}

/* The port the daemon's listening socket is bound to (the kernel's choice when asked for 0),
   or 0 when MHD cannot tell. */
static inline uint16_t
rd_mhd_bound_port (struct MHD_Daemon *daemon)
{
  const union MHD_DaemonInfo *info = MHD_get_daemon_info (daemon, MHD_DAEMON_INFO_BIND_PORT);
  return (NULL == info) ? 0 : info->port;
}

/* The number of open connections, or 0 when MHD cannot tell. */
static inline unsigned int
rd_mhd_current_connections (struct MHD_Daemon *daemon)
{
  const union MHD_DaemonInfo *info =
    MHD_get_daemon_info (daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
  return (NULL == info) ? 0 : info->num_connections;
}

/* The peer's address (owned by MHD for the connection's lifetime), or NULL. */
static inline const struct sockaddr *
rd_mhd_client_address (struct MHD_Connection *connection)
{
  const union MHD_ConnectionInfo *info =
    MHD_get_connection_info (connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  return (NULL == info) ? NULL : info->client_addr;
}

/* The connection's socket, or -1. */
static inline int
rd_mhd_connection_fd (struct MHD_Connection *connection)
{
  const union MHD_ConnectionInfo *info =
    MHD_get_connection_info (connection, MHD_CONNECTION_INFO_CONNECTION_FD);
  return (NULL == info) ? -1 : info->connect_fd;
}
#endif
