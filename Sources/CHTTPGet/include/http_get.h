#ifndef LITE_HTTP_GET_H
#define LITE_HTTP_GET_H

#include <stddef.h>

/// Receives the body in pieces; returns `size` to go on, anything else to stop the transfer.
typedef size_t (*lite_http_write_fn)(const char *data, size_t size, void *context);

/// GET `url` (http or https; redirects followed) with libcurl, loaded with dlopen at the first call, so that a
/// process that never downloads does not load libcurl and the TLS libraries behind it. From byte `resume_from`
/// on when it is positive (a Range request). Gives up when connecting takes `connect_timeout` seconds or no byte
/// arrives for `idle_timeout` seconds. Returns 0 when the transfer completed, with the HTTP status in `*status`
/// (whatever it is); otherwise nonzero, with a message in `message` (always terminated).
int lite_http_get(const char *url, long long resume_from, long connect_timeout, long idle_timeout,
                  lite_http_write_fn write, void *context, long *status, char *message, size_t message_capacity);

#endif
